package polyomino

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Move places one piece: Piece is its name, Cells the covered cells in
// reading order (by row from the top, then by column). Moves produced by the
// engine share their Cells with the game's tables: treat them as read-only.
type Move struct {
	Piece string
	Cells []Cell
}

// String writes the canonical notation, e.g. "L:a1,a2,a3,a4,b4".
func (m Move) String() string {
	b := make([]byte, 0, len(m.Piece)+1+4*len(m.Cells))
	b = append(b, m.Piece...)
	b = append(b, ':')
	for i, c := range sortedCells(m.Cells) {
		if i > 0 {
			b = append(b, ',')
		}
		b = c.appendTo(b)
	}
	return string(b)
}

// sortedCells returns the cells in reading order (a copy when they were not).
func sortedCells(cells []Cell) []Cell {
	if slices.IsSortedFunc(cells, readingOrder) {
		return cells
	}
	out := slices.Clone(cells)
	slices.SortFunc(out, readingOrder)
	return out
}

// ReadingOrder compares cells by row from the top, then by column from the
// left (for slices.SortFunc).
func ReadingOrder(a, b Cell) int { return readingOrder(a, b) }

// readingOrder compares cells by row, then column.
func readingOrder(a, b Cell) int {
	if c := cmp.Compare(a.Y, b.Y); c != 0 {
		return c
	}
	return cmp.Compare(a.X, b.X)
}

// maxMoveLen bounds the notation a parser accepts (a hexomino on a 16 x 16
// board needs about 30 characters).
const maxMoveLen = 200

// ParseMove reads a move in notation: the piece name, a colon, and the
// covered cells separated by commas in any order ("L:b4,a1,a2,a3,a4").
// Spaces around the parts and upper-case letters are accepted. ParseMove
// checks the syntax only: whether the piece exists, the cells form it and
// the move is legal is decided by a Position. The capture variant's
// removals ("~Y Z:...") are not supported yet.
func ParseMove(s string) (Move, error) {
	if len(s) > maxMoveLen {
		return Move{}, faultf(ErrBadNotation, "move of %d characters (at most %d)", len(s), maxMoveLen)
	}
	t := strings.TrimSpace(s)
	if strings.HasPrefix(t, "~") {
		return Move{}, faultf(ErrUnsupported, "removals (%q) belong to the capture variant", s)
	}
	name, list, ok := strings.Cut(t, ":")
	name = strings.TrimSpace(name)
	if !ok || name == "" {
		return Move{}, faultf(ErrBadNotation, "move %q (expected <piece>:<cells>, e.g. L:a1,a2,a3,a4,b4)", s)
	}
	for _, r := range name {
		if !(r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9') {
			return Move{}, faultf(ErrBadNotation, "piece name %q in move %q (letters and digits only)", name, s)
		}
	}
	m := Move{Piece: strings.ToUpper(name), Cells: make([]Cell, 0, strings.Count(list, ",")+1)}
	for more := true; more; {
		var part string
		part, list, more = strings.Cut(list, ",")
		c, err := ParseCell(part)
		if err != nil {
			return Move{}, fmt.Errorf("move %q: %w", s, err)
		}
		if c.X >= MaxSide || c.Y >= MaxSide {
			return Move{}, faultf(ErrOffBoard, "move %q: cell %s is off every board (at most %dx%d)", s, c, MaxSide, MaxSide)
		}
		if slices.Contains(m.Cells, c) {
			return Move{}, faultf(ErrBadNotation, "move %q lists cell %s twice", s, c)
		}
		m.Cells = append(m.Cells, c)
	}
	slices.SortFunc(m.Cells, readingOrder)
	return m, nil
}
