package polyomino

import "math/bits"

// heuristic evaluates the moves of one position with the conflict graph
// of every live placement.
type heuristic struct {
	pos  *Position
	g    cgraph
	L    []uint64
	side int
}

func newHeuristic(pos *Position) *heuristic {
	h := &heuristic{pos: pos, side: int(pos.toMove & 1)}
	var list []int32
	if pos.game.pool {
		list = pos.appendLegal(pos.toMove, nil)
	} else {
		list = pos.appendLegal(First, nil)
		list = pos.appendLegal(Second, list)
	}
	h.g.build(pos.game, list)
	h.L = h.g.full(nil)
	return h
}

// score rates vertex v for the player to move: higher is better.
func (h *heuristic) score(v int) int {
	g := &h.g
	k := g.words
	row := g.adj[v*k : (v+1)*k]
	_, mine := andNotCountOwn(h.L, row, g.own[h.side])
	_, theirs := andNotCountOwn(h.L, row, g.own[1-h.side])
	if h.pos.game.pool {
		return -theirs
	}
	return mine - theirs
}

func (h *heuristic) best(excluded []Move) (Move, bool) {
	g := &h.g
	ex := map[string]bool{}
	for _, m := range excluded {
		ex[m.String()] = true
	}
	bestV, bestS := -1, 0
	var fallback = -1
	for i, word := range h.L {
		word &= g.own[h.side][i]
		for ; word != 0; word &= word - 1 {
			v := i*64 + bits.TrailingZeros64(word)
			if fallback < 0 {
				fallback = v
			}
			if ex[h.pos.game.move(g.place[v]).String()] {
				continue
			}
			if s := h.score(v); bestV < 0 || s > bestS {
				bestV, bestS = v, s
			}
		}
	}
	if bestV < 0 {
		bestV = fallback
	}
	if bestV < 0 {
		return Move{}, false
	}
	return h.pos.game.move(g.place[bestV]), true
}
