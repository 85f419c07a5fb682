package capture

// Players are 0 (first) and 1 (second) inside the package.
const (
	first  = 0
	second = 1
)

var playerNames = [2]string{"first", "second"}

// state is a position between turns (or, at the start of an analysis only,
// in the middle of one: after removals, before the placement; banned then
// holds the removed pieces). It is a plain value: the search copies it
// to make a turn and drops the copy to take it back.
type state struct {
	where   [maxPieces]int32 // placement of each piece on the board, -1 otherwise
	owner   [MaxSide * MaxSide]int8
	occ     cellSet     // cells covered by pieces
	onBoard pieceSet    // pieces on the board
	pool    pieceSet    // pieces that may be placed
	marks   [2]pieceSet // pieces carrying the first / second player's marker
	banned  pieceSet    // pieces the player to move removed on this turn
	toMove  int
	key     posKey
}

// turn is a turn in engine terms: the pieces removed, then the placement.
type turn struct {
	remove pieceSet
	place  int32
}

func (g *Game) emptyState() state {
	var s state
	for i := range s.where {
		s.where[i] = -1
	}
	for i := range s.owner {
		s.owner[i] = -1
	}
	for i := range g.pieces {
		s.pool |= 1 << uint(i)
		s.key = s.key.xor(g.zobrist.pool[i])
	}
	return s
}

// put places piece p at placement pi, unmarked (no checks).
func (s *state) put(g *Game, pi int32) {
	pl := &g.placements[pi]
	p := pl.piece
	s.occ = s.occ.or(pl.mask)
	for _, c := range pl.cells {
		s.owner[c] = int8(p)
	}
	s.where[p] = pi
	s.onBoard |= 1 << uint(p)
	s.pool &^= 1 << uint(p)
	s.key = s.key.xor(g.zobrist.placement[pi]).xor(g.zobrist.pool[p])
}

// lift takes piece p off the board into the pool, dropping its marker.
func (s *state) lift(g *Game, p int) {
	pi := s.where[p]
	pl := &g.placements[pi]
	s.occ = s.occ.andNot(pl.mask)
	for _, c := range pl.cells {
		s.owner[c] = -1
	}
	bit := pieceSet(1) << uint(p)
	for side := range 2 {
		if s.marks[side]&bit != 0 {
			s.marks[side] &^= bit
			s.key = s.key.xor(g.zobrist.marker[p][side])
		}
	}
	s.where[p] = -1
	s.onBoard &^= bit
	s.pool |= bit
	s.key = s.key.xor(g.zobrist.placement[pi]).xor(g.zobrist.pool[p])
}

// mark puts side's marker on piece p (replacing the other's).
func (s *state) mark(g *Game, p, side int) {
	bit := pieceSet(1) << uint(p)
	if s.marks[side]&bit != 0 {
		return
	}
	if s.marks[1-side]&bit != 0 {
		s.marks[1-side] &^= bit
		s.key = s.key.xor(g.zobrist.marker[p][1-side])
	}
	s.marks[side] |= bit
	s.key = s.key.xor(g.zobrist.marker[p][side])
}

func (s *state) setToMove(g *Game, side int) {
	if s.toMove != side {
		s.toMove = side
		s.key = s.key.xor(g.zobrist.second)
	}
}

// play makes a legal turn and returns the pieces it captured (the placed
// piece shares 3 or more unit edges with each of them; pieces that already
// carried the mover's marker are included).
func (s *state) play(g *Game, t turn) pieceSet {
	me := s.toMove
	for r := t.remove; r != 0; r &= r - 1 {
		s.lift(g, r.lowest())
	}
	s.put(g, t.place)
	pl := &g.placements[t.place]
	var shared [maxPieces]uint8
	var captured pieceSet
	for _, c := range pl.edges {
		if o := s.owner[c]; o >= 0 {
			shared[o]++
			if shared[o] == 3 {
				captured |= 1 << uint(o)
			}
		}
	}
	for c := captured; c != 0; c &= c - 1 {
		s.mark(g, c.lowest(), me)
	}
	s.banned = 0
	s.setToMove(g, 1-me)
	return captured
}

// reach is the set of cells the player to move could place on: the empty
// cells and those of the pieces carrying his marker (which he may remove).
// It also returns the cells of his marked pieces.
func (s *state) reach(g *Game) (reach, mine cellSet) {
	for m := s.marks[s.toMove]; m != 0; m &= m - 1 {
		mine = mine.or(g.placements[s.where[m.lowest()]].mask)
	}
	return g.open.andNot(s.occ).or(mine), mine
}

// canPlace reports whether the player to move has a legal turn. Removing
// pieces never takes a placement away (removed pieces are banned, but they
// were not in the pool before), so he can place exactly when some pool
// piece he may place fits in the empty cells plus the cells of all his
// marked pieces.
func (s *state) canPlace(g *Game) bool {
	reach, _ := s.reach(g)
	avail := s.pool &^ s.banned
	if g.small {
		r := reach[0]
		for ; avail != 0; avail &= avail - 1 {
			for _, m := range g.masks64[avail.lowest()] {
				if m&^r == 0 {
					return true
				}
			}
		}
		return false
	}
	for ; avail != 0; avail &= avail - 1 {
		for _, m := range g.masks[avail.lowest()] {
			if m.within(reach) {
				return true
			}
		}
	}
	return false
}

// fits reports whether placement j of piece p lies within reach.
func (g *Game) fits(p, j int, reach *cellSet) bool {
	if g.small {
		return g.masks64[p][j]&^reach[0] == 0
	}
	return g.masks[p][j].within(*reach)
}

// need returns the marked pieces of the player to move that a placement
// overlaps (they must be removed for it); mine are the cells of all of
// them.
func (s *state) need(g *Game, pl *placement, mine cellSet) pieceSet {
	var need pieceSet
	if !pl.mask.intersects(mine) {
		return 0
	}
	for m := s.marks[s.toMove]; m != 0; m &= m - 1 {
		q := m.lowest()
		if pl.mask.intersects(g.placements[s.where[q]].mask) {
			need |= 1 << uint(q)
		}
	}
	return need
}

// appendTurns appends every legal turn of the player to move: for each
// placement of a pool piece (not banned) on cells that are empty or covered
// by his marked pieces, the removal of those pieces together with every
// subset of his other marked pieces. The turns without extra removals come
// first for each placement. It stops after limit turns (limit <= 0: no
// limit).
func (s *state) appendTurns(g *Game, buf []turn, limit int) []turn {
	start := len(buf)
	reach, mine := s.reach(g)
	marked := s.marks[s.toMove]
	for avail := s.pool &^ s.banned; avail != 0; avail &= avail - 1 {
		p := avail.lowest()
		for j, pi := range g.byPiece[p] {
			if !g.fits(p, j, &reach) {
				continue
			}
			need := s.need(g, &g.placements[pi], mine)
			extra := marked &^ need
			for sub := pieceSet(0); ; sub = (sub - extra) & extra {
				if limit > 0 && len(buf)-start >= limit {
					return buf
				}
				buf = append(buf, turn{remove: need | sub, place: pi})
				if sub == extra {
					break
				}
			}
		}
	}
	return buf
}

// appendPlacements appends the placements the player to move can make
// (after the removals each needs), without the extra removals: one entry
// per placement, with the removals it needs.
func (s *state) appendPlacements(g *Game, buf []turn) []turn {
	reach, mine := s.reach(g)
	for avail := s.pool &^ s.banned; avail != 0; avail &= avail - 1 {
		p := avail.lowest()
		for j, pi := range g.byPiece[p] {
			if g.fits(p, j, &reach) {
				buf = append(buf, turn{remove: s.need(g, &g.placements[pi], mine), place: pi})
			}
		}
	}
	return buf
}

// countTurns is the number of legal turns (len of appendTurns).
func (s *state) countTurns(g *Game) int {
	reach, mine := s.reach(g)
	marked := s.marks[s.toMove]
	n := 0
	for avail := s.pool &^ s.banned; avail != 0; avail &= avail - 1 {
		p := avail.lowest()
		for j, pi := range g.byPiece[p] {
			if g.fits(p, j, &reach) {
				n += 1 << uint((marked &^ s.need(g, &g.placements[pi], mine)).count())
			}
		}
	}
	return n
}
