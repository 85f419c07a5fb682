package polyomino

import (
	"fmt"
	"sort"
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
	var sb strings.Builder
	sb.WriteString(m.Piece)
	sb.WriteByte(':')
	cells := sortedCells(m.Cells)
	for i, c := range cells {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(c.String())
	}
	return sb.String()
}

// sortedCells returns the cells in reading order (a copy when they were not).
func sortedCells(cells []Cell) []Cell {
	less := func(a, b Cell) bool { return a.Y < b.Y || a.Y == b.Y && a.X < b.X }
	if sort.SliceIsSorted(cells, func(i, j int) bool { return less(cells[i], cells[j]) }) {
		return cells
	}
	out := append([]Cell(nil), cells...)
	sort.Slice(out, func(i, j int) bool { return less(out[i], out[j]) })
	return out
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
	m := Move{Piece: strings.ToUpper(name)}
	seen := make(map[Cell]bool)
	for _, part := range strings.Split(list, ",") {
		c, err := ParseCell(part)
		if err != nil {
			return Move{}, fmt.Errorf("move %q: %w", s, err)
		}
		if c.X >= MaxSide || c.Y >= MaxSide {
			return Move{}, faultf(ErrOffBoard, "move %q: cell %s is off every board (at most %dx%d)", s, c, MaxSide, MaxSide)
		}
		if seen[c] {
			return Move{}, faultf(ErrBadNotation, "move %q lists cell %s twice", s, c)
		}
		seen[c] = true
		m.Cells = append(m.Cells, c)
	}
	m.Cells = sortedCells(m.Cells)
	return m, nil
}
