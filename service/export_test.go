package service

// RaceEnabled is raceEnabled for the tests of package service_test.
const RaceEnabled = raceEnabled

// Turned is turned: an outcome for the other player.
func Turned(outcome string) string { return turned(outcome) }
