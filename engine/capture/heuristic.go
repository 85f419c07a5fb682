package capture

import (
	"context"
	"sort"
)

// The heuristic player. Its evaluation is mobility with removals: the
// placements each player could make from the position (on empty cells and
// the cells of the pieces carrying his marker, which he may remove), the
// player to move's minus the other's. Captures count through it: a piece
// captured becomes the capturer's reserve of cells and leaves the
// victim's. A player who cannot place has lost.
const (
	evalWin  = 1 << 20
	evalLoss = -evalWin
)

// mobility counts the placements of pool pieces (the ban aside) each
// player could make: the player to move's and the other's.
func (g *Game) mobility(st *state) (mine, theirs int) {
	empty := g.open.andNot(st.occ)
	var cells [2]cellSet
	for side := range 2 {
		for m := st.marks[side]; m != 0; m &= m - 1 {
			cells[side] = cells[side].or(g.placements[st.where[m.lowest()]].mask)
		}
	}
	me := st.toMove
	rm, ro := empty.or(cells[me]), empty.or(cells[1-me])
	for avail := st.pool; avail != 0; avail &= avail - 1 {
		p := avail.lowest()
		if g.small {
			a, b := rm[0], ro[0]
			for _, m := range g.masks64[p] {
				if m&^a == 0 {
					mine++
				}
				if m&^b == 0 {
					theirs++
				}
			}
		} else {
			for _, m := range g.masks[p] {
				if m.within(rm) {
					mine++
				}
				if m.within(ro) {
					theirs++
				}
			}
		}
	}
	if st.banned != 0 { // a turn in progress: recount without the banned pieces
		mine = 0
		for avail := st.pool &^ st.banned; avail != 0; avail &= avail - 1 {
			for _, m := range g.masks[avail.lowest()] {
				if m.within(rm) {
					mine++
				}
			}
		}
	}
	return mine, theirs
}

// evaluate scores a position for the player to move.
func (g *Game) evaluate(st *state) int {
	mine, theirs := g.mobility(st)
	if mine == 0 {
		return evalLoss
	}
	return mine - theirs
}

// scoreTurn scores a turn for the player making it by one ply: the
// evaluation of the position it leaves, negated.
func (g *Game) scoreTurn(st *state, t turn) int {
	child := *st
	child.play(g, t)
	return -g.evaluate(&child)
}

// rootOrderWork bounds the work of rootOrder (turns times placements):
// beyond it the turns keep their generation order.
const rootOrderWork = 1 << 26

// rootOrder lists the indices of turns best first for the player to move,
// by one ply of the evaluation (in generation order on boards where that
// would take long, or once ctx is done).
func rootOrder(ctx context.Context, pos *Position, turns []turn) []int {
	g := pos.game
	idx := make([]int, len(turns))
	for i := range idx {
		idx[i] = i
	}
	if len(turns)*len(g.placements) > rootOrderWork {
		return idx
	}
	scores := make([]int, len(turns))
	for i, t := range turns {
		if i%256 == 255 && ctx.Err() != nil {
			return idx
		}
		scores[i] = g.scoreTurn(&pos.st, t)
	}
	sort.SliceStable(idx, func(a, b int) bool { return scores[idx[a]] > scores[idx[b]] })
	return idx
}
