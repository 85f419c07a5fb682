package polyomino

import (
	"fmt"
	"strconv"
	"strings"
)

// MaxSide is the largest board width or height.
const MaxSide = 16

// Geometry is a rectangular board with blocked cells.
type Geometry struct {
	Width, Height int
	// Blocked holds the cells no piece may cover.
	Blocked Bits
	// Symmetries are the transforms of the rectangle (RectSymmetries) that
	// also map the blocked cells onto themselves, identity first.
	Symmetries []Transform
	// cellMap[s][i] is the image of cell i under Symmetries[s].
	cellMap [][]int
	// rectMap[r][i] is the image of cell i under RectSymmetries[r], and
	// rectSym[r] the index of that transform in Symmetries (-1 when it
	// does not map the blocked cells onto themselves). A position whose
	// blocked and covered cells together are symmetric has the symmetry
	// even so (Position.stabilizer).
	rectMap [][]int
	rectSym []int
}

// CheckSize checks a board's sides (1..MaxSide); its error names the side
// at fault ("width and height" when both are).
func CheckSize(width, height int) error {
	bad := func(n int) bool { return n < 1 || n > MaxSide }
	side := ""
	switch {
	case bad(width) && bad(height):
		side = "width and height"
	case bad(width):
		side = "width"
	case bad(height):
		side = "height"
	default:
		return nil
	}
	field := "Width"
	if side == "height" {
		field = "Height"
	}
	return inField(field, faultf(ErrBadConfig, "board size %d x %d (%s must be 1..%d)", width, height, side, MaxSide))
}

// NewGeometry builds a board geometry; blocked lists cell indices.
func NewGeometry(width, height int, blocked []int) (*Geometry, error) {
	if err := CheckSize(width, height); err != nil {
		return nil, err
	}
	g := &Geometry{Width: width, Height: height}
	for _, i := range blocked {
		if i < 0 || i >= width*height {
			return nil, inField("Blocked", faultf(ErrBadConfig, "blocked cell %d is off the board", i))
		}
		g.Blocked.Set(i)
	}
	for _, t := range RectSymmetries(width, height) {
		m := make([]int, width*height)
		ok := true
		for i := range m {
			c := t.ApplyInRect(g.Cell(i), width, height)
			m[i] = g.Index(c)
			if g.Blocked.Has(i) != g.Blocked.Has(m[i]) {
				ok = false
				break
			}
		}
		if ok {
			g.rectSym = append(g.rectSym, len(g.Symmetries))
			g.Symmetries = append(g.Symmetries, t)
			g.cellMap = append(g.cellMap, m)
		} else {
			for i := range m { // the whole map (the check stopped early)
				m[i] = g.Index(t.ApplyInRect(g.Cell(i), width, height))
			}
			g.rectSym = append(g.rectSym, -1)
		}
		g.rectMap = append(g.rectMap, m)
	}
	return g, nil
}

// Cells is the number of cells of the rectangle, blocked ones included.
func (g *Geometry) Cells() int { return g.Width * g.Height }

// Small reports whether the board fits the 64-bit fast path.
func (g *Geometry) Small() bool { return g.Width*g.Height <= 64 }

// Index is the bit index of a cell (which must be on the board).
func (g *Geometry) Index(c Cell) int { return c.Y*g.Width + c.X }

// Cell is the cell of a bit index.
func (g *Geometry) Cell(i int) Cell { return Cell{i % g.Width, i / g.Width} }

// OnBoard reports whether the cell lies inside the rectangle.
func (g *Geometry) OnBoard(c Cell) bool {
	return c.X >= 0 && c.X < g.Width && c.Y >= 0 && c.Y < g.Height
}

// Open is the set of cells that are not blocked.
func (g *Geometry) Open() Bits {
	var b Bits
	for i := 0; i < g.Cells(); i++ {
		if !g.Blocked.Has(i) {
			b.Set(i)
		}
	}
	return b
}

// MapBits applies symmetry number s (an index into Symmetries) to a set.
func (g *Geometry) MapBits(s int, b Bits) Bits { return mapCells(g.cellMap[s], b) }

func mapCells(m []int, b Bits) Bits {
	var out Bits
	for w, word := range b {
		for word != 0 {
			i := w*64 + trailingZeros(word)
			word &= word - 1
			out.Set(m[i])
		}
	}
	return out
}

// String names the cell in notation: column letter from 'a', row number
// from 1 at the top.
func (c Cell) String() string { return string(c.appendTo(nil)) }

// appendTo appends the cell's name to b.
func (c Cell) appendTo(b []byte) []byte {
	if c.X < 0 || c.X >= 26 || c.Y < 0 {
		return fmt.Appendf(b, "(%d,%d)", c.X, c.Y)
	}
	return strconv.AppendInt(append(b, byte('a'+c.X)), int64(c.Y+1), 10)
}

// ParseCell reads a cell name such as "a1" or "p16" (any case). It checks
// the syntax only; whether the cell is on a given board is the board's
// business.
func ParseCell(s string) (Cell, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	if len(t) < 2 || t[0] < 'a' || t[0] > 'z' {
		return Cell{}, faultf(ErrBadNotation, "cell %q (expected a column letter and a row number, e.g. c4)", s)
	}
	n, err := strconv.Atoi(t[1:])
	if err != nil || n < 1 || n > 99 || t[1] == '0' || t[1] == '+' {
		return Cell{}, faultf(ErrBadNotation, "cell %q (expected a column letter and a row number from 1, e.g. c4)", s)
	}
	return Cell{int(t[0] - 'a'), n - 1}, nil
}

// cellOnBoard checks that a cell is on the board and names the fault.
func (g *Geometry) cellOnBoard(c Cell) error {
	if !g.OnBoard(c) {
		return faultf(ErrOffBoard, "cell %s is off the %dx%d board", c, g.Width, g.Height)
	}
	return nil
}
