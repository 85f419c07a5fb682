// Package verify checks a Pentominoes proof (the book's certificate, a
// refutation or a reply file) independently of the engine's search: its
// own placements of the 12 pentominoes on the 8 x 8 board (from the
// pieces' shapes only), its own parser of the certificate format, its own
// symmetry classes, and a plain negamax with an exact memo, without the
// engine's transposition table, move ordering or pruning. Check re-solves
// every position a proof leaves to search (or a sample of them) and
// reports what it found.
package verify
