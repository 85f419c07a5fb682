package service

// RaceEnabled is raceEnabled for the tests of package service_test.
const RaceEnabled = raceEnabled
