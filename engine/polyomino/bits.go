package polyomino

import "math/bits"

// Bits is a set of cells of a board of at most 256 cells (16 x 16). Cell
// (x, y) of a board W cells wide is bit i = y*W + x, counted from the least
// significant bit of word 0 upwards:
//
//	8 x 8 board (W = 8)            5 x 5 board (W = 5)
//	     a  b  c  d  e  f  g  h         a  b  c  d  e
//	 1   0  1  2  3  4  5  6  7     1   0  1  2  3  4
//	 2   8  9 10 11 12 13 14 15     2   5  6  7  8  9
//	 3  16 17 18 19 20 21 22 23     3  10 11 12 13 14
//	 ...                            4  15 16 17 18 19
//	 8  56 57 58 59 60 61 62 63     5  20 21 22 23 24
//
// Boards of at most 64 cells use word 0 only; the search keeps their masks
// as plain uint64 (Board64), which is the fast path.
type Bits [4]uint64

// Board64 is the fast-path bitboard of a board of at most 64 cells, with the
// bit order of Bits.
type Board64 uint64

// Has reports whether cell i is in the set.
func (b *Bits) Has(i int) bool { return b[i>>6]&(1<<(uint(i)&63)) != 0 }

// Set adds cell i.
func (b *Bits) Set(i int) { b[i>>6] |= 1 << (uint(i) & 63) }

// Clear removes cell i.
func (b *Bits) Clear(i int) { b[i>>6] &^= 1 << (uint(i) & 63) }

// Or returns the union.
func (b Bits) Or(o Bits) Bits { return Bits{b[0] | o[0], b[1] | o[1], b[2] | o[2], b[3] | o[3]} }

// And returns the intersection.
func (b Bits) And(o Bits) Bits { return Bits{b[0] & o[0], b[1] & o[1], b[2] & o[2], b[3] & o[3]} }

// AndNot returns the cells of b not in o.
func (b Bits) AndNot(o Bits) Bits {
	return Bits{b[0] &^ o[0], b[1] &^ o[1], b[2] &^ o[2], b[3] &^ o[3]}
}

// Intersects reports whether the sets share a cell.
func (b Bits) Intersects(o Bits) bool {
	return b[0]&o[0]|b[1]&o[1]|b[2]&o[2]|b[3]&o[3] != 0
}

// IsZero reports whether the set is empty.
func (b Bits) IsZero() bool { return b[0]|b[1]|b[2]|b[3] == 0 }

// Count is the number of cells in the set.
func (b Bits) Count() int {
	return bits.OnesCount64(b[0]) + bits.OnesCount64(b[1]) + bits.OnesCount64(b[2]) + bits.OnesCount64(b[3])
}

// Cells lists the cell indices in increasing order.
func (b Bits) Cells() []int {
	var out []int
	for w, word := range b {
		for word != 0 {
			out = append(out, w*64+bits.TrailingZeros64(word))
			word &= word - 1
		}
	}
	return out
}

// Count is the number of cells in the set.
func (b Board64) Count() int { return bits.OnesCount64(uint64(b)) }

// The 8 x 8 frame transforms below act on boards at most 8 wide and 8 high
// laid out with W = 8. Together with translation they give the canonical
// keys of the transposition table (key.go).

// flipV mirrors the rows (top row to bottom).
func flipV(x uint64) uint64 { return bits.ReverseBytes64(x) }

// flipH mirrors the columns (column a to column h).
func flipH(x uint64) uint64 {
	const k1, k2, k4 = 0x5555555555555555, 0x3333333333333333, 0x0f0f0f0f0f0f0f0f
	x = ((x >> 1) & k1) | ((x & k1) << 1)
	x = ((x >> 2) & k2) | ((x & k2) << 2)
	x = ((x >> 4) & k4) | ((x & k4) << 4)
	return x
}

// transpose swaps rows and columns (a1-h8 diagonal).
func transpose(x uint64) uint64 {
	const k1, k2, k4 = 0x5500550055005500, 0x3333000033330000, 0x0f0f0f0f00000000
	t := k4 & (x ^ (x << 28))
	x ^= t ^ (t >> 28)
	t = k2 & (x ^ (x << 14))
	x ^= t ^ (t >> 14)
	t = k1 & (x ^ (x << 7))
	x ^= t ^ (t >> 7)
	return x
}

// toOrigin8 translates a non-empty set in the 8 x 8 frame so that its
// topmost row is row 0 and its leftmost column is column 0.
func toOrigin8(x uint64) uint64 {
	x >>= uint(bits.TrailingZeros64(x)) &^ 7
	f := x | x>>32
	f |= f >> 16
	f |= f >> 8
	return x >> uint(bits.TrailingZeros8(uint8(f)))
}

func trailingZeros(x uint64) int { return bits.TrailingZeros64(x) }
