package polyomino

// appendLegal appends the placement indices the player may play.
func (p *Position) appendLegal(pl Player, buf []int32) []int32 {
	g := p.game
	avail := p.avail[pl&1]
	if g.small {
		occ := p.occ[0]
		for m := avail; m != 0; m &= m - 1 {
			for _, i := range g.byPiece[trailingZeros(m)] {
				if g.mask64[i]&occ == 0 {
					buf = append(buf, i)
				}
			}
		}
		return buf
	}
	for m := avail; m != 0; m &= m - 1 {
		for _, i := range g.byPiece[trailingZeros(m)] {
			if !g.placements[i].mask.Intersects(p.occ) {
				buf = append(buf, i)
			}
		}
	}
	return buf
}

// liveSets returns the union of the cells of every legal placement of
// either player, and the pieces each player can place somewhere. With a
// common pool (equal pieces available) the placements are scanned once.
func (p *Position) liveSets() (live Bits, pieces [2]uint64) {
	g := p.game
	for side := range 2 {
		if side == 1 && p.avail[1] == p.avail[0] {
			pieces[1] = pieces[0]
			break
		}
		for m := p.avail[side]; m != 0; m &= m - 1 {
			pc := trailingZeros(m)
			if g.small {
				occ, l := p.occ[0], live[0]
				for _, i := range g.byPiece[pc] {
					if g.mask64[i]&occ == 0 {
						l |= g.mask64[i]
						pieces[side] |= 1 << pc
					}
				}
				live[0] = l
				continue
			}
			for _, i := range g.byPiece[pc] {
				if !g.placements[i].mask.Intersects(p.occ) {
					live = live.Or(g.placements[i].mask)
					pieces[side] |= 1 << pc
				}
			}
		}
	}
	return live, pieces
}

// hasMove reports whether the player can place a piece.
func (p *Position) hasMove(pl Player) bool {
	g := p.game
	for m := p.avail[pl&1]; m != 0; m &= m - 1 {
		for _, i := range g.byPiece[trailingZeros(m)] {
			if !g.placements[i].mask.Intersects(p.occ) {
				return true
			}
		}
	}
	return false
}

// AppendLegalMoves appends the legal moves of the player to move to buf
// and returns it (moves share their cells with the game's tables).
func (p *Position) AppendLegalMoves(buf []Move) []Move {
	var idx [256]int32
	list := p.appendLegal(p.toMove, idx[:0])
	for _, i := range list {
		buf = append(buf, p.game.move(i))
	}
	return buf
}

// LegalMoves lists the legal moves of the player to move, by piece in set
// order, then orientation, then reading order.
func (p *Position) LegalMoves() []Move { return p.AppendLegalMoves(nil) }

// LegalMoveCount is the number of legal moves of the player to move.
func (p *Position) LegalMoveCount() int {
	var idx [256]int32
	return len(p.appendLegal(p.toMove, idx[:0]))
}

// Over reports whether the game has ended: under normal play when the
// player to move cannot place a piece (he has lost), under the score rule
// when neither player can.
func (p *Position) Over() bool {
	if p.hasMove(p.toMove) {
		return false
	}
	return p.game.cfg.EndRule == NormalPlay || !p.hasMove(p.toMove.Opponent())
}

// MustPass reports whether, under the score rule, the player to move cannot
// place a piece while the opponent can.
func (p *Position) MustPass() bool {
	return p.game.score && !p.hasMove(p.toMove) && p.hasMove(p.toMove.Opponent())
}

// stabilizer lists, as permutations of the placements, the symmetries of
// the position: the rotations and reflections that map its empty cells
// onto themselves, wherever they lie in the rectangle (blocked and covered
// cells are alike to the play: a '#' on the board and a blocked cell are
// the same). The identity comes first; the symmetries of the rectangle
// come as the game's cached permutations. Each maps the legal placements
// onto themselves (other placements are left in place).
func (p *Position) stabilizer() [][]int32 {
	g := p.game
	var out [][]int32
	var found [8]bool // the linear parts found
	rect := RectSymmetries(g.geo.Width, g.geo.Height)
	for r, m := range g.geo.rectMap {
		if r == 0 || mapCells(m, p.occ) == p.occ {
			out = append(out, g.placementPerm(r))
			found[rect[r]] = true
		}
	}
	// The empty cells off the rectangle's centre may have symmetries of
	// their own, those of their bounding box (a 5 x 5 square beside a
	// blocked column has 8).
	x0, y0, x1, y1 := g.geo.Width, g.geo.Height, -1, -1
	for i := range g.geo.Cells() {
		if c := g.geo.Cell(i); !p.occ.Has(i) {
			x0, y0, x1, y1 = min(x0, c.X), min(y0, c.Y), max(x1, c.X), max(y1, c.Y)
		}
	}
	if x1 < 0 {
		return out // no empty cell
	}
	w, h := x1-x0+1, y1-y0+1
	empty := func(c Cell) bool { return !p.occ.Has(g.geo.Index(c)) }
	for _, t := range BoxSymmetries(x0, y0, w, h, func(c, d Cell) bool { return empty(c) == empty(d) }) {
		if found[t] {
			continue
		}
		perm := make([]int32, len(g.placements))
		for i, pl := range g.placements {
			perm[i] = int32(i)
			if pl.mask.Intersects(p.occ) {
				continue // not a legal move here
			}
			var img Bits
			for _, c := range pl.mask.Cells() {
				img.Set(g.geo.Index(MapInBox(t, g.geo.Cell(c), x0, y0, w, h)))
			}
			perm[i] = g.byCells[img]
		}
		out = append(out, perm)
	}
	return out
}

// DistinctUpToSymmetry counts the legal moves of the player to move that
// are distinct up to the symmetries of the board that map the position
// onto itself (on the empty 8 x 8 board: 296 of the 2308 pentomino moves).
func (p *Position) DistinctUpToSymmetry() int {
	var idx [256]int32
	list := p.appendLegal(p.toMove, idx[:0])
	stab := p.stabilizer()
	n := 0
	for _, i := range list {
		rep := i
		for _, perm := range stab {
			rep = min(rep, perm[i])
		}
		if rep == i {
			n++
		}
	}
	return n
}

// SymmetryClasses groups the legal moves of the player to move by the
// symmetries of the position: each class lists moves whose results are
// images of one another, the first of each class standing for it.
func (p *Position) SymmetryClasses() [][]Move {
	var idx [256]int32
	list := p.appendLegal(p.toMove, idx[:0])
	stab := p.stabilizer()
	classes := map[int32][]Move{}
	var reps []int32
	for _, i := range list {
		rep := i
		for _, perm := range stab {
			rep = min(rep, perm[i])
		}
		if _, ok := classes[rep]; !ok {
			reps = append(reps, rep)
		}
		classes[rep] = append(classes[rep], p.game.move(i))
	}
	out := make([][]Move, len(reps))
	for k, r := range reps {
		out[k] = classes[r]
	}
	return out
}
