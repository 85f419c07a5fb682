//go:build race

package polyomino

// raceEnabled: the race detector slows everything down (timing tolerances).
const raceEnabled = true
