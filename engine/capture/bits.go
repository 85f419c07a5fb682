package capture

import "math/bits"

// cellSet is a set of cells of a board of at most 256 cells (16 x 16). Cell
// (x, y) of a board W cells wide is bit i = y*W + x, counted from the least
// significant bit of word 0 upwards:
//
//	7 x 7 board (W = 7)
//	     a  b  c  d  e  f  g
//	 1   0  1  2  3  4  5  6
//	 2   7  8  9 10 11 12 13
//	 3  14 15 16 17 18 19 20
//	 ...
//	 7  42 43 44 45 46 47 48
//
// The operations are written out word by word so that they inline.
type cellSet [4]uint64

func (b *cellSet) has(i int) bool { return b[i>>6]&(1<<(uint(i)&63)) != 0 }
func (b *cellSet) set(i int)      { b[i>>6] |= 1 << (uint(i) & 63) }

func (b cellSet) or(o cellSet) cellSet {
	return cellSet{b[0] | o[0], b[1] | o[1], b[2] | o[2], b[3] | o[3]}
}

func (b cellSet) andNot(o cellSet) cellSet {
	return cellSet{b[0] &^ o[0], b[1] &^ o[1], b[2] &^ o[2], b[3] &^ o[3]}
}

func (b cellSet) intersects(o cellSet) bool {
	return b[0]&o[0]|b[1]&o[1]|b[2]&o[2]|b[3]&o[3] != 0
}

// within reports whether every cell of b is in o.
func (b cellSet) within(o cellSet) bool {
	return b[0]&^o[0]|b[1]&^o[1]|b[2]&^o[2]|b[3]&^o[3] == 0
}

// count is the number of cells in b.
func (b cellSet) count() int {
	return bits.OnesCount64(b[0]) + bits.OnesCount64(b[1]) + bits.OnesCount64(b[2]) + bits.OnesCount64(b[3])
}

// pieceSet is a set of pieces by their index in the game's piece list (at
// most 35 pieces: the hexominoes).
type pieceSet uint64

func (s pieceSet) has(p int) bool { return s&(1<<uint(p)) != 0 }
func (s pieceSet) count() int     { return bits.OnesCount64(uint64(s)) }

// lowest returns the smallest piece index in a non-empty set.
func (s pieceSet) lowest() int { return bits.TrailingZeros64(uint64(s)) }
