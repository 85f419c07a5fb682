package polyomino

import (
	"math/bits"
	"slices"
)

// alphaBeta searches a score-rule game with hands: the value is the
// difference between the pieces the player to move (side) and the other
// player will still place under perfect play. A player who cannot place
// passes; the game ends when neither can. ok is false when the search was
// stopped.
//
// (A common-pool game under the score rule needs no own search: the
// players alternate until nobody can move, so the difference is 1 when the
// player to move makes the last placement and 0 otherwise, which is the
// normal-play result.)
func (w *worker) alphaBeta(g *cgraph, L []uint64, side int, alpha, beta int, ply int) (int, bool) {
	if w.tick() {
		return 0, false
	}
	game := w.s.game
	k := g.words
	if w.checkWide(k) {
		return 0, false
	}
	opp := 1 - side
	if !intersects(L, g.own[side]) {
		if !intersects(L, g.own[opp]) {
			return 0, true
		}
		v, ok := w.alphaBeta(g, L, opp, -beta, -alpha, ply+1)
		return -v, ok
	}
	if cnt := popcount(L); k > 1 && cnt*4 <= k*64 {
		f := w.frame(ply)
		f.list = g.compact(game, L, &f.g, f.list)
		f.state = f.g.full(f.state)
		w.nodes--
		return w.alphaBeta(&f.g, f.state, side, alpha, beta, ply)
	}
	// Bounds: the player to move places at most one piece per live piece
	// of his, the other player at most one per live piece of his.
	var live [2]uint64
	for i, word := range L {
		for ; word != 0; word &= word - 1 {
			v := i*64 + bits.TrailingZeros64(word)
			if g.own[side][i]&(1<<(uint(v)&63)) != 0 {
				live[0] |= g.pbit[v]
			} else {
				live[1] |= g.pbit[v]
			}
		}
	}
	hi, lo := bits.OnesCount64(live[0]), -bits.OnesCount64(live[1])
	if hi <= alpha {
		return hi, true
	}
	if lo >= beta {
		return lo, true
	}
	alpha, beta = max(alpha, lo-1), min(beta, hi+1)
	key := w.key(g, L, side)
	if v, bound, ok := w.s.tt.probe(key); ok {
		switch bound {
		case boundExact:
			return v, true
		case boundLower:
			alpha = max(alpha, v)
		case boundUpper:
			beta = min(beta, v)
		}
		if alpha >= beta {
			return v, true
		}
	}
	start := w.nodes
	f := w.frame(ply)
	f.ms = f.ms[:0]
	f.child = grow(f.child, k)
	mine, theirs := g.own[side], g.own[opp]
	for i, word := range L {
		word &= mine[i]
		for ; word != 0; word &= word - 1 {
			v := i*64 + bits.TrailingZeros64(word)
			row := g.adj[v*k : (v+1)*k]
			_, myMoves := andNotCountOwn(L, row, mine)
			_, theirMoves := andNotCountOwn(L, row, theirs)
			// Order: fewest replies for the other player, most moves kept
			// for the player to move.
			f.ms = append(f.ms, uint64(1<<20+theirMoves-myMoves)<<32|uint64(v))
		}
	}
	slices.Sort(f.ms)
	alpha0 := alpha
	best := -1 << 20
	for _, m := range f.ms {
		v := int(uint32(m))
		andNotCount(f.child, L, g.adj[v*k:(v+1)*k])
		r, ok := w.alphaBeta(g, f.child, opp, 1-beta, 1-alpha, ply+1)
		if !ok {
			return 0, false
		}
		r = 1 - r
		if r > best {
			best = r
			if r > alpha {
				alpha = r
				if alpha >= beta {
					break
				}
			}
		}
	}
	bound := boundExact
	switch {
	case best <= alpha0:
		bound = boundUpper
	case best >= beta:
		bound = boundLower
	}
	w.s.tt.store(key, best, bound, w.nodes-start)
	return best, true
}
