package capture

import "github.com/gamesolver/gamesolver/engine/polyomino"

// DistinctTurns counts the legal turns up to the symmetries of the board
// that map the position onto itself (every cell keeps its piece, and so
// its marker, or stays empty, blocked or covered for good): two turns
// with the same removals whose placements are images of each other under
// such a symmetry count once. It returns -1 without listing anything when
// there are more than limit turns.
func (p *Position) DistinctTurns(limit int) int {
	if n := p.CountTurns(); n > limit || n > MaxListedTurns {
		return -1
	}
	g := p.game
	board := p.Board()
	var stab []polyomino.Transform
	for _, t := range polyomino.RectSymmetries(g.width, g.height) {
		if mapsOnto(board, t, g.width, g.height) {
			stab = append(stab, t)
		}
	}
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
				img.Cells[i] = s.ApplyInRect(c, g.width, g.height)
			}
			seen[img.String()] = true
		}
	}
	return distinct
}

// mapsOnto reports whether transform t maps the drawn board onto itself.
func mapsOnto(board []string, t polyomino.Transform, width, height int) bool {
	for y, row := range board {
		for x := range width {
			c := t.ApplyInRect(polyomino.Cell{X: x, Y: y}, width, height)
			if row[x] != board[c.Y][c.X] {
				return false
			}
		}
	}
	return true
}
