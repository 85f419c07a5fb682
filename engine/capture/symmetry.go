package capture

import "github.com/gamesolver/gamesolver/engine/polyomino"

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
	stab := symmetries(p.Board())
	seen := map[string]bool{}
	distinct := 0
	for _, t := range p.LegalTurns() {
		if seen[t.String()] {
			continue
		}
		// A new class: mark every image (the stabilizer is a group, the
		// identity among them).
		distinct++
		img := Turn{Removals: t.Removals, Piece: t.Piece, Cells: make([]polyomino.Cell, len(t.Cells))}
		for _, s := range stab {
			for i, c := range t.Cells {
				img.Cells[i] = s(c)
			}
			seen[img.String()] = true
		}
	}
	return distinct
}

// symmetries lists the cell maps that carry the drawn board's cells other
// than '#' onto cells drawn alike: for each transform whose image of that
// region, translated onto the region's bounding box, matches it.
func symmetries(board []string) []func(polyomino.Cell) polyomino.Cell {
	var cells []polyomino.Cell
	minX, minY := 1<<30, 1<<30
	for y, row := range board {
		for x := range len(row) {
			if row[x] != '#' {
				cells = append(cells, polyomino.Cell{X: x, Y: y})
				minX, minY = min(minX, x), min(minY, y)
			}
		}
	}
	var out []func(polyomino.Cell) polyomino.Cell
	for _, t := range polyomino.Transforms {
		tx, ty := 1<<30, 1<<30
		for _, c := range cells {
			d := t.Apply(c)
			tx, ty = min(tx, d.X), min(ty, d.Y)
		}
		m := func(c polyomino.Cell) polyomino.Cell {
			d := t.Apply(c)
			return polyomino.Cell{X: d.X - tx + minX, Y: d.Y - ty + minY}
		}
		ok := true
		for _, c := range cells {
			d := m(c)
			if d.Y < 0 || d.Y >= len(board) || d.X < 0 || d.X >= len(board[d.Y]) || board[d.Y][d.X] != board[c.Y][c.X] {
				ok = false
				break
			}
		}
		if ok {
			out = append(out, m)
		}
	}
	return out
}
