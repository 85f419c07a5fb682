package service

import "time"

// RaceEnabled is raceEnabled for the tests of package service_test.
const RaceEnabled = raceEnabled

// Turned is turned: an outcome for the other player.
func Turned(outcome string) string { return turned(outcome) }

// SetAnnotateGrace sets annotateGrace until the test ends.
func SetAnnotateGrace(t interface{ Cleanup(func()) }, d time.Duration) {
	old := annotateGrace
	annotateGrace = d
	t.Cleanup(func() { annotateGrace = old })
}
