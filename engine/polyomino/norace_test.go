//go:build !race

package polyomino

const raceEnabled = false
