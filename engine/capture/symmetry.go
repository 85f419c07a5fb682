package capture

import (
	"strings"

	"github.com/gamesolver/gamesolver/engine/polyomino"
)

// DistinctTurns counts the legal turns up to the symmetries of the
// position: the rotations and reflections, with the translation that keeps
// the bounding box of the cells not drawn '#', that carry every such cell
// onto one drawn alike (every cell keeps its piece, and so its marker, or
// stays empty), wherever that region lies in the rectangle: two turns with
// the same removals whose placements are images of each other under such a
// symmetry count once. It returns -1 without listing anything when there
// are more than limit turns.
func (p *Position) DistinctTurns(limit int) int {
	if n := p.CountTurns(); n > limit || n > MaxListedTurns {
		return -1
	}
	return p.DistinctAmong(p.LegalTurns())
}

// DistinctAmong is DistinctTurns for turns, the position's legal turns
// already listed (every one of them: the classes are counted over the
// list).
func (p *Position) DistinctAmong(turns []Turn) int {
	stab := symmetries(p.Board())
	// A turn is known by its removals and the cells it covers (no two
	// pieces cover the same cells); boards are at most 16 x 16.
	type key struct {
		removals string
		cells    [4]uint64
	}
	keyOf := func(removals string, cells []polyomino.Cell, s func(polyomino.Cell) polyomino.Cell) key {
		k := key{removals: removals}
		for _, c := range cells {
			c = s(c)
			i := c.Y*16 + c.X
			k.cells[i>>6] |= 1 << (i & 63)
		}
		return k
	}
	identity := func(c polyomino.Cell) polyomino.Cell { return c }
	seen := make(map[key]bool, len(turns))
	distinct := 0
	for _, t := range turns {
		removals := strings.Join(t.Removals, " ")
		if seen[keyOf(removals, t.Cells, identity)] {
			continue
		}
		// A new class: mark every image (the stabilizer is a group, the
		// identity among them).
		distinct++
		for _, s := range stab {
			seen[keyOf(removals, t.Cells, s)] = true
		}
	}
	return distinct
}

// symmetries lists the cell maps that carry the drawn board's cells other
// than '#' onto cells drawn alike: the symmetries of those cells'
// bounding box, wherever it lies, under which every cell keeps its drawing.
func symmetries(board []string) []func(polyomino.Cell) polyomino.Cell {
	x0, y0, x1, y1 := 1<<30, 1<<30, -1, -1
	for y, row := range board {
		for x := range len(row) {
			if row[x] != '#' {
				x0, y0, x1, y1 = min(x0, x), min(y0, y), max(x1, x), max(y1, y)
			}
		}
	}
	if x1 < 0 {
		return []func(polyomino.Cell) polyomino.Cell{func(c polyomino.Cell) polyomino.Cell { return c }}
	}
	w, h := x1-x0+1, y1-y0+1
	alike := func(c, d polyomino.Cell) bool { return board[c.Y][c.X] == board[d.Y][d.X] }
	var out []func(polyomino.Cell) polyomino.Cell
	for _, t := range polyomino.BoxSymmetries(x0, y0, w, h, alike) {
		out = append(out, func(c polyomino.Cell) polyomino.Cell { return polyomino.MapInBox(t, c, x0, y0, w, h) })
	}
	return out
}
