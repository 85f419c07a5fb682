// Package polyomino implements the polyomino placement games (Golomb's
// Pentominoes and its relatives) and the free polyomino piece sets they use.
//
// Pieces are generated, not typed in: Generate grows every free polyomino of
// order n from those of order n-1. Tetrominoes are named I O T S L and
// pentominoes F I L N P T U V W X Y Z after the letters they resemble;
// hexominoes are numbered H01..H35 by the width of their canonical
// orientation (widest first) and then by their picture read row by row,
// a filled cell before a gap, so H01 is the straight hexomino.
//
// Cells are addressed by column X (0 = left) and row Y (0 = top); in
// notation columns are letters from 'a' and rows numbers from 1 at the top,
// so "a1" is the top-left cell.
package polyomino
