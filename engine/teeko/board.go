package teeko

import (
	"math/bits"
	"strings"
)

// Bitboard is a set of squares of the 5 x 5 board. Square n (1..25, Scarne's
// numbering in reading order) is bit n-1:
//
//	squares              bits
//	 1  2  3  4  5        0  1  2  3  4
//	 6  7  8  9 10        5  6  7  8  9
//	11 12 13 14 15       10 11 12 13 14
//	16 17 18 19 20       15 16 17 18 19
//	21 22 23 24 25       20 21 22 23 24
//
// Bits 25..31 are always zero.
type Bitboard uint32

// NumSquares is the number of squares of the board.
const NumSquares = 25

// PiecesPerSide is the number of pieces each side owns.
const PiecesPerSide = 4

const allSquares Bitboard = 1<<NumSquares - 1

// SquareBit returns the set holding only square sq (1..25); it panics when sq
// is off the board.
func SquareBit(sq int) Bitboard {
	if sq < 1 || sq > NumSquares {
		panic("teeko: square off the board")
	}
	return 1 << (sq - 1)
}

// Has reports whether square sq (1..25) is in the set.
func (b Bitboard) Has(sq int) bool {
	return sq >= 1 && sq <= NumSquares && b&(1<<(sq-1)) != 0
}

// Count returns the number of squares in the set.
func (b Bitboard) Count() int { return bits.OnesCount32(uint32(b)) }

// Squares returns the squares of the set in increasing order.
func (b Bitboard) Squares() []int {
	out := make([]int, 0, b.Count())
	for x := b; x != 0; x &= x - 1 {
		out = append(out, bits.TrailingZeros32(uint32(x))+1)
	}
	return out
}

// first returns the bit index (0..24) of the lowest square of a non-empty set.
func (b Bitboard) first() int { return bits.TrailingZeros32(uint32(b)) }

// Board is the placement of the pieces: the black and the red squares, which
// never overlap on a valid board.
type Board struct {
	Black, Red Bitboard
}

// Occupied returns the squares holding a piece.
func (b Board) Occupied() Bitboard { return b.Black | b.Red }

// Pieces returns the number of pieces on the board.
func (b Board) Pieces() int { return b.Occupied().Count() }

// Side returns the squares of colour c.
func (b Board) Side(c Color) Bitboard {
	if c == Red {
		return b.Red
	}
	return b.Black
}

// String returns the 25-character board string: b black, r red, . empty.
func (b Board) String() string {
	var sb strings.Builder
	sb.Grow(NumSquares)
	for i := 0; i < NumSquares; i++ {
		switch {
		case b.Black&(1<<i) != 0 && b.Red&(1<<i) != 0:
			sb.WriteByte('?') // never on a valid board
		case b.Black&(1<<i) != 0:
			sb.WriteByte('b')
		case b.Red&(1<<i) != 0:
			sb.WriteByte('r')
		default:
			sb.WriteByte('.')
		}
	}
	return sb.String()
}

// Picture returns the board as five rows of five characters, for humans.
func (b Board) Picture() string {
	s := b.String()
	var sb strings.Builder
	for r := 0; r < 5; r++ {
		for c := 0; c < 5; c++ {
			if c > 0 {
				sb.WriteByte(' ')
			}
			sb.WriteByte(s[5*r+c])
		}
		sb.WriteByte('\n')
	}
	return sb.String()
}

// neighbours[i] is the set of squares adjacent to bit i in the 8 directions.
var neighbours = makeNeighbours()

func makeNeighbours() [NumSquares]Bitboard {
	var n [NumSquares]Bitboard
	for i := 0; i < NumSquares; i++ {
		r, c := i/5, i%5
		for dr := -1; dr <= 1; dr++ {
			for dc := -1; dc <= 1; dc++ {
				rr, cc := r+dr, c+dc
				if (dr != 0 || dc != 0) && rr >= 0 && rr < 5 && cc >= 0 && cc < 5 {
					n[i] |= 1 << (5*rr + cc)
				}
			}
		}
	}
	return n
}

// Adjacent reports whether squares a and b (1..25) are neighbours in one of
// the 8 directions.
func Adjacent(a, b int) bool {
	return a >= 1 && a <= NumSquares && neighbours[a-1].Has(b)
}

// NumSymmetries is the number of symmetries of the square board (rotations
// and reflections).
const NumSymmetries = 8

// symSquare[t][i] is the bit that bit i goes to under symmetry t:
// 0 identity, 1..3 rotations by 90, 180, 270 degrees, 4 left-right mirror,
// 5 top-bottom mirror, 6 main-diagonal and 7 anti-diagonal reflection.
var symSquare = makeSymSquare()

// symRows[t][r][x] is the image under symmetry t of the row r pattern x.
// Transforming a set then costs five table look-ups.
var symRows = makeSymRows()

func makeSymSquare() [NumSymmetries][NumSquares]uint8 {
	var s [NumSymmetries][NumSquares]uint8
	for i := 0; i < NumSquares; i++ {
		r, c := i/5, i%5
		img := [NumSymmetries][2]int{
			{r, c}, {c, 4 - r}, {4 - r, 4 - c}, {4 - c, r},
			{r, 4 - c}, {4 - r, c}, {c, r}, {4 - c, 4 - r},
		}
		for t, rc := range img {
			s[t][i] = uint8(5*rc[0] + rc[1])
		}
	}
	return s
}

func makeSymRows() *[NumSymmetries][5][32]Bitboard {
	var t [NumSymmetries][5][32]Bitboard
	for s := 0; s < NumSymmetries; s++ {
		for r := 0; r < 5; r++ {
			for x := 0; x < 32; x++ {
				var m Bitboard
				for c := 0; c < 5; c++ {
					if x&(1<<c) != 0 {
						m |= 1 << symSquare[s][5*r+c]
					}
				}
				t[s][r][x] = m
			}
		}
	}
	return &t
}

// Transform returns the image of the set under symmetry t (0..7).
func (b Bitboard) Transform(t int) Bitboard {
	rows := &symRows[t]
	return rows[0][b&31] | rows[1][(b>>5)&31] | rows[2][(b>>10)&31] |
		rows[3][(b>>15)&31] | rows[4][(b>>20)&31]
}

// Transform returns the image of the board under symmetry t (0..7).
func (b Board) Transform(t int) Board {
	return Board{Black: b.Black.Transform(t), Red: b.Red.Transform(t)}
}

// TransformSquare returns the image of square sq (1..25) under symmetry t.
func TransformSquare(sq, t int) int { return int(symSquare[t][sq-1]) + 1 }
