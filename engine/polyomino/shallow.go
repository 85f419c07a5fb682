package polyomino

// A hand game under normal play whose root graph is too big to build (a
// 16 x 16 board with many pieces left) is still often decided within a few
// plies: a player with one piece left against many places it, the
// opponent answers, and he has nothing left. shallow searches such a
// position plainly on the board's bitsets, deepening from one ply to
// shallowDepth within a work budget and the solver's deadline, and hands
// what it proved to collect like any root search.

// shallowPieces: solveRoot tries the shallow search when a player has at
// most this many pieces left (else it cannot decide the game in time).
const shallowPieces = 2

// shallowDepth is the deepest search tried (plies from the root).
const shallowDepth = 4

// shallowWork caps the placements looked at (about 0.1-0.3 s).
const shallowWork = 1 << 25

type shallow struct {
	s     *solver
	g     *Game
	work  int64 // placements left to look at
	nodes int64
}

// value is the value of the position (occ, avail) for side under normal
// play within depth more plies: +1 / -1 and true when proven.
func (sh *shallow) value(occ Bits, avail [2]uint64, side, depth int) (int, bool) {
	g := sh.g
	sh.nodes++
	proven, any := true, false
	for m := avail[side]; m != 0; m &= m - 1 {
		bit := m & -m
		if sh.work < 0 || sh.nodes&15 == 0 && sh.s.expired() {
			return 0, false
		}
		for _, i := range g.byPiece[trailingZeros(m)] {
			sh.work--
			mask := g.placements[i].mask
			if mask.Intersects(occ) {
				continue
			}
			any = true
			if depth == 0 {
				return 0, false
			}
			next := [2]uint64{avail[0] &^ bit, avail[1] &^ bit}
			v, ok := sh.value(occ.Or(mask), next, 1-side, depth-1)
			switch {
			case ok && v < 0:
				return 1, true
			case !ok:
				proven = false
				if sh.work < 0 {
					return 0, false
				}
			}
		}
	}
	if !any || proven {
		return -1, true
	}
	return 0, false
}

// solveShallow values the root moves idx (placement indices) of pos, a
// hand game under normal play, by shallow searches.
func (s *solver) solveShallow(pos *Position, idx []int32, opts Options, res Result) Result {
	g := s.game
	sh := &shallow{s: s, g: g, work: shallowWork}
	side := int(pos.toMove & 1)
	moves := make([]*rootMove, len(idx))
	for k, i := range idx {
		moves[k] = &rootMove{class: []Move{g.move(i)}}
	}
	for depth := 1; depth <= shallowDepth && sh.work > 0 && !s.expired(); depth++ {
		won := false
		for k, i := range idx {
			rm := moves[k]
			if rm.proven {
				continue
			}
			bit := uint64(1) << g.placements[i].piece
			next := [2]uint64{pos.avail[0] &^ bit, pos.avail[1] &^ bit}
			v, ok := sh.value(pos.occ.Or(g.placements[i].mask), next, 1-side, depth-1)
			if ok {
				rm.value, rm.proven = -v, true
				won = won || v < 0
			}
			if sh.work < 0 {
				break
			}
		}
		if won && !opts.AllMoves {
			break // a winning move proves the position
		}
	}
	s.nodes.Add(sh.nodes)
	return s.collect(pos, moves, 0, opts, res)
}
