// Package service holds the use cases behind the HTTP API: validation of
// requests into engine values, caching of solved positions, budgets,
// admission control of solver work, readiness, and the catalogue of games.
//
// It knows no HTTP: handlers in package api call it with plain Go values and
// turn its *Error values into problem+json. It imports the engines; the
// engines import nothing of it.
package service
