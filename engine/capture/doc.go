// Package capture implements O'Dwyer's capture variant of the polyomino
// placement games.
package capture
