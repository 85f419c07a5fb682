package capture

import (
	"context"
	"sort"
)

// The heuristic player searches the placements (each with the removals it
// needs; extra removals are left to the exact search) by iterative
// deepening alpha-beta on the evaluation, within a node budget. It knows
// the rules that decide games: a player who cannot place loses (sooner is
// worse), captures move cells from one player's reserve to the other's,
// removals make room. It ignores the repetition rule.

// heuristicNodes is the heuristic player's default node budget.
const heuristicNodes = 150_000

type hsearch struct {
	g        *Game
	ctx      context.Context
	nodes    int64
	maxNodes int64
	check    int64 // next node count at which to look at ctx
	stopped  bool
	bufs     [][]turn
	tt       map[posKey]hEntry
	states   []state // states[ply]: see searcher.states
}

// hEntry remembers a searched position: the depth searched, the value
// and whether it is exact or a bound, and the best turn (ordering).
type hEntry struct {
	depth int8
	bound int8 // 0 exact, 1 lower, -1 upper
	value int32
	best  turn
}

// maxHDepth bounds the heuristic search's iterative deepening.
const maxHDepth = 64

// maxHTable bounds the heuristic search's table (entries).
const maxHTable = 1 << 18

func (h *hsearch) stop() bool {
	if h.stopped {
		return true
	}
	if h.nodes >= h.maxNodes {
		h.stopped = true
	} else if h.nodes >= h.check {
		h.check = h.nodes + 1024
		h.stopped = h.ctx.Err() != nil
	}
	return h.stopped
}

// ab returns the value of st for the player to move, depth plies deep.
func (h *hsearch) ab(st *state, depth, ply, alpha, beta int) int {
	g := h.g
	h.nodes++
	if depth == 0 {
		h.nodes += g.evalCost - 1
		return g.evaluate(st)
	}
	e, hit := h.tt[st.key]
	if hit && int(e.depth) >= depth {
		v := int(e.value)
		switch {
		case e.bound == 0,
			e.bound > 0 && v >= beta,
			e.bound < 0 && v <= alpha:
			return v
		}
	}
	for len(h.bufs) <= ply {
		h.bufs = append(h.bufs, nil)
	}
	ts := st.appendPlacements(g, h.bufs[ply][:0])
	h.bufs[ply] = ts
	if len(ts) == 0 {
		return evalLoss + ply
	}
	if depth >= 2 {
		h.order(st, ts, e.best, hit)
	}
	alpha0 := alpha
	best, bestTurn := evalLoss-1, ts[0]
	for _, t := range ts {
		if h.stop() {
			return best
		}
		child := &h.states[ply+1]
		*child = *st
		child.play(g, t)
		v := -h.ab(child, depth-1, ply+1, -beta, -alpha)
		if v > best {
			best, bestTurn = v, t
			if v > alpha {
				alpha = v
				if alpha >= beta {
					break
				}
			}
		}
	}
	if h.stopped {
		return best
	}
	bound := int8(0)
	switch {
	case best >= beta:
		bound = 1
	case best <= alpha0:
		bound = -1
	}
	if len(h.tt) < maxHTable || hit {
		h.tt[st.key] = hEntry{depth: int8(depth), bound: bound, value: int32(best), best: bestTurn}
	}
	return best
}

// order puts the table's turn first, then the others by one ply of the
// evaluation.
func (h *hsearch) order(st *state, ts []turn, first turn, hit bool) {
	g := h.g
	keys := make([]int, len(ts))
	for i, t := range ts {
		if hit && t == first {
			keys[i] = evalWin * 4
			continue
		}
		child := *st
		child.play(g, t)
		keys[i] = -g.evaluate(&child)
		h.nodes += g.evalCost
	}
	sort.Stable(byScore{ts, keys})
}

type byScore struct {
	ts   []turn
	keys []int
}

func (b byScore) Len() int           { return len(b.ts) }
func (b byScore) Less(i, j int) bool { return b.keys[i] > b.keys[j] }
func (b byScore) Swap(i, j int) {
	b.ts[i], b.ts[j] = b.ts[j], b.ts[i]
	b.keys[i], b.keys[j] = b.keys[j], b.keys[i]
}

// heuristicChoice is the heuristic player's turn among allowed (the
// placements with the removals they need when allowed is empty): iterative
// deepening alpha-beta until the node budget (heuristicNodes) or ctx runs
// out; the root turns are ordered by the previous iteration.
func heuristicChoice(ctx context.Context, pos *Position, allowed []turn, budget int64) turn {
	g := pos.game
	if len(allowed) == 0 {
		allowed = pos.st.appendPlacements(g, nil)
	}
	if budget <= 0 {
		budget = heuristicNodes
	}
	h := &hsearch{g: g, ctx: ctx, maxNodes: budget, tt: map[posKey]hEntry{}, states: make([]state, maxHDepth+2)}
	ts := append([]turn(nil), allowed...)
	scores := make([]int, len(ts))
	for i, t := range ts {
		if h.stop() {
			// Out of budget before every turn had one ply: the best of
			// those that had.
			ts, scores = ts[:i], scores[:i]
			break
		}
		child := pos.st
		child.play(g, t)
		scores[i] = -g.evaluate(&child)
		h.nodes += g.evalCost
	}
	if len(ts) == 0 {
		return allowed[0]
	}
	sort.Stable(byScore{ts, scores})
	best := ts[0]
	for depth := 2; depth <= maxHDepth && !h.stopped; depth++ {
		alpha := evalLoss - 1
		iterBest, complete := ts[0], true
		for i, t := range ts {
			if h.stop() {
				complete = false
				break
			}
			child := &h.states[1]
			*child = pos.st
			child.play(g, t)
			v := -h.ab(child, depth-1, 1, evalLoss-1, -alpha)
			if h.stopped {
				complete = false
				break
			}
			scores[i] = v
			if v > alpha {
				alpha, iterBest = v, t
			}
		}
		// The previous best is searched first, so even an unfinished
		// iteration's best is at least as well founded.
		best = iterBest
		if !complete {
			break
		}
		if alpha >= evalWin/2 || alpha <= evalLoss/2 {
			break // decided: a forced end within the horizon
		}
		sort.Stable(byScore{ts, scores})
	}
	return best
}
