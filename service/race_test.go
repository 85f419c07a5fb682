//go:build race

package service

// raceEnabled: the race detector slows the searches down several times
// (budgets of the tests that need a search to find something).
const raceEnabled = true
