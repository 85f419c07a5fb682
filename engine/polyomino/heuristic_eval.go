package polyomino

import (
	"math/bits"
	"sort"
	"time"
)

// The heuristic player, for positions too big to solve.
//
// Common pool (impartial): the player who makes the last placement wins,
// so the player prefers moves after which a greedy playout of the rest of
// the game has an even length (he would make its last move), and among
// those the moves that leave the opponent the fewest replies.
//
// Hands: a player's future is the pieces he will still manage to place. A
// piece with many live placements is almost sure to be placed; one with a
// single placement is easily blocked; one with none is lost. A placement no
// opposing placement overlaps is a sanctuary: the opponent can never spoil
// it, and it keeps its piece's count up however the opponent plays. The
// evaluation of a state for a player is
//
//	placed(me) - placed(other) + sum over my live pieces of f(n_p)
//	                           - sum over his live pieces of f(n_p)
//	f(n) = 1 - 1/(1 + n)       (n_p: live placements of piece p;
//	                            sanctuaries count double)
//
// which rewards keeping every own piece alive and killing the opponent's
// scarce pieces more than raw mobility does. The player looks two plies
// ahead on the most promising candidates: his move, then the opponent's
// best reply by the same evaluation.
//
// The evaluation counts every live piece as nearly placed, even when many
// of them compete for the same few cells, and so cannot tell which pieces
// will be squeezed out when the board fills up. Past the opening the
// player therefore plays the rest of the game out from each of the best
// candidates, both sides moving by the one-ply evaluation (a playout), and
// picks the candidate whose playout ends best (the score difference; under
// normal play, who is the first unable to place); among equal ones the
// two-ply value decides, then the one-ply value. Playouts resolve the
// competition for space move by move, which no sum over pieces can; in
// self-play against the greedy mobility player on the hexomino preset
// they raised the engine's score from about 74 % to 93 % (BENCHMARKS.md,
// "Heuristic player, self-play").
//
// Sanctuaries are counted per state, like the live placements. They are
// found once, in the position the player is to move in, and stay
// sanctuaries in the later states of the look-ahead and the playouts
// (moves only ever remove placements); but one dies like any placement
// when its owner places its piece or a placement that overlaps it, and
// then counts no more.

// heuristic evaluates the moves of one position with the conflict graph
// of every live placement (a lazy one on big boards: see buildLazy).
type heuristic struct {
	pos  *Position
	g    cgraph
	L    []uint64
	side int
	// count is the piece counts of the root state L.
	count pieceCounts
	// safe is the set of the root's sanctuaries (no opposing placement
	// overlaps them, so they stay sanctuaries in every later state);
	// safeWords are the words of safe that are not zero.
	safe      []uint64
	safeWords []int32
	owner     [64]int
	buf       []uint64 // a row of a lazy graph
	// The vertices of word i of a state are split by piece into the
	// segments segStart[i] to segStart[i+1]-1: segPiece[j] is the piece
	// of the vertices in segMask[j]. appendLegal lists the placements
	// piece by piece, so that a word has one or two segments, and play
	// counts a word's victims per piece with a popcount per segment
	// instead of a look-up per victim.
	segStart []int32
	segPiece []uint8
	segMask  []uint64
	// evals counts the moves evaluated (for tests of the deadline).
	evals int
}

// pieceCounts are the counts of a state, per piece p (set index): live[p]
// is the number of its live placements, safe[p] of those that are
// sanctuaries. play keeps both up to date as the state is played on.
type pieceCounts struct {
	live, safe [64]int
}

// newHeuristicOn makes the heuristic of a position. root, when not nil, is
// the graph Solve built for the root: its vertices are the same placements
// in the same order (the mover's in a pool, the first player's then the
// second's with hands), and it is used when it has its cover sets (a
// one-word graph, built by build1 or compact1, does not; it is cheap to
// build again). Otherwise the heuristic builds its own (buildLazy), lazy
// when the time to deadline (zero: none) is shorter than a dense build.
func newHeuristicOn(pos *Position, root *cgraph, deadline time.Time) *heuristic {
	h := &heuristic{pos: pos, side: int(pos.toMove & 1)}
	g := &h.g
	if root != nil && root.words > 1 && root.lazy == nil {
		*g = *root
	} else {
		var list []int32
		if pos.game.pool {
			list = pos.appendLegal(pos.toMove, nil)
		} else {
			list = pos.appendLegal(First, nil)
			list = pos.appendLegal(Second, list)
		}
		// Short of time (a budget of a few milliseconds on a big
		// board), rows are computed as the evaluation reaches them: it
		// may reach few of them.
		short := !deadline.IsZero() && time.Until(deadline) < graphCost(len(list), pos.game.set.Order)
		g.buildLazy(pos.game, list, short)
	}
	h.L = g.full(nil)
	h.buf = make([]uint64, g.words)
	h.safe = make([]uint64, g.words)
	h.segStart = make([]int32, g.words+1)
	for i := range g.words {
		h.segStart[i] = int32(len(h.segPiece))
		for b := 0; b < 64 && i*64+b < g.n; {
			p := g.pbit[i*64+b]
			var m uint64
			for ; b < 64 && i*64+b < g.n && g.pbit[i*64+b] == p; b++ {
				m |= 1 << uint(b)
			}
			h.segPiece = append(h.segPiece, uint8(bits.TrailingZeros64(p)))
			h.segMask = append(h.segMask, m)
		}
	}
	h.segStart[g.words] = int32(len(h.segPiece))
	for p := range h.owner {
		h.owner[p] = -1
		for s := range 2 {
			if pos.game.hands[s]&(1<<p) != 0 && !pos.game.pool {
				h.owner[p] = s
			}
		}
	}
	// contested[s][c]: some placement of player s covers cell c. A
	// placement is safe when no cell of it is contested by the opponent
	// (pieces are never shared between hands).
	var contested [2][]bool
	game := pos.game
	k, order := g.words, game.set.Order
	if !game.pool {
		cells := game.geo.Cells()
		for s := range 2 {
			contested[s] = make([]bool, cells)
			for c := range cells {
				contested[s][c] = intersects(g.cover[c*k:(c+1)*k], g.own[s])
			}
		}
	}
	for v := 0; v < g.n; v++ {
		p := bits.TrailingZeros64(g.pbit[v])
		h.count.live[p]++
		if game.pool || h.owner[p] < 0 {
			continue
		}
		safe := true
		pi := int(g.place[v])
		for _, c := range game.cellIdx[pi*order : (pi+1)*order] {
			if contested[1-h.owner[p]][c] {
				safe = false
				break
			}
		}
		if safe {
			h.count.safe[p]++
			h.safe[v>>6] |= 1 << uint(v&63)
		}
	}
	for i, w := range h.safe {
		if w != 0 {
			h.safeWords = append(h.safeWords, int32(i))
		}
	}
	return h
}

// value of a state's piece counts for side s.
func (h *heuristic) value(count *pieceCounts, s int) float64 {
	v := float64(h.pos.score[s] - h.pos.score[1-s])
	for p := range count.live {
		if count.live[p] == 0 || h.owner[p] < 0 {
			continue
		}
		n := count.live[p] + count.safe[p]
		f := 1 - 1/float64(1+n)
		if h.owner[p] == s {
			v += f
		} else {
			v -= f
		}
	}
	return v
}

// play removes vertex v from state L (in place, unless L is nil) and its
// victims from the counts, live and safe: every placement of its piece
// and the placements of other pieces that overlap it.
func (h *heuristic) play(L []uint64, from []uint64, count *pieceCounts, v int) {
	g := &h.g
	k := g.words
	row := g.rowOf(v, h.buf)
	p := bits.TrailingZeros64(g.pbit[v])
	same := g.prow[p*k : (p+1)*k]
	count.live[p], count.safe[p] = 0, 0
	// The safe victims first (play may be in place): the words that hold
	// sanctuaries are few, none in the opening.
	for _, i := range h.safeWords {
		if t := from[i] & row[i] & h.safe[i] &^ same[i]; t != 0 {
			for j := h.segStart[i]; j < h.segStart[i+1]; j++ {
				count.safe[h.segPiece[j]] -= bits.OnesCount64(t & h.segMask[j])
			}
		}
	}
	for i := range from {
		if t := from[i] & row[i] &^ same[i]; t != 0 {
			for j := h.segStart[i]; j < h.segStart[i+1]; j++ {
				count.live[h.segPiece[j]] -= bits.OnesCount64(t & h.segMask[j])
			}
		}
		if L != nil {
			L[i] = from[i] &^ row[i]
		}
	}
}

// evalMove is the one-ply value of vertex v for the player to move.
func (h *heuristic) evalMove(v int, tmp []uint64) float64 {
	g := &h.g
	if h.pos.game.pool {
		andNotCount(tmp, h.L, g.rowOf(v, h.buf))
		replies := popcount(tmp)
		n := playoutK(g, tmp, h.buf)
		return -float64(n&1)*1000 - float64(replies)
	}
	count := h.count
	h.play(nil, h.L, &count, v)
	return h.value(&count, h.side) + 1
}

// evalTwoPly is the value of v after the opponent's best reply; ok is
// false when late reported the deadline passed first.
func (h *heuristic) evalTwoPly(v int, late func() bool) (val float64, ok bool) {
	if late() {
		return 0, false
	}
	L1 := make([]uint64, h.g.words)
	c1 := h.count
	h.play(L1, h.L, &c1, v)
	seen := 0
	// The values are the state's for the opponent after his reply (his
	// placed piece and ours cancel out), the negation of ours.
	w, his, ok := h.bestMove(L1, &c1, 1-h.side, &seen, late)
	switch {
	case !ok:
		return 0, false
	case w < 0: // no reply: our piece placed
		return h.value(&c1, h.side) + 1, true
	}
	return -his, true
}

// bestMove is the move of player t in state L (piece counts count) after
// which the state is worth most to t by the one-ply evaluation (the first
// such in vertex order), and that value; -1 when t has no move. ok is
// false when late reported the deadline passed first; it is asked every
// 256 moves evaluated, counted in seen across calls.
func (h *heuristic) bestMove(L []uint64, count *pieceCounts, t int, seen *int, late func() bool) (best int, val float64, ok bool) {
	g := &h.g
	best = -1
	for i, word := range L {
		word &= g.own[t][i]
		for ; word != 0; word &= word - 1 {
			if *seen++; *seen&255 == 0 && late() {
				return -1, 0, false
			}
			v := i*64 + bits.TrailingZeros64(word)
			c := *count
			h.play(nil, L, &c, v)
			h.evals++
			if x := h.value(&c, t); best < 0 || x > val {
				best, val = v, x
			}
		}
	}
	return best, val, true
}

// best is the heuristic's move among the moves not excluded. Once late
// reports the deadline passed (it is asked every 64 or 256 moves
// evaluated) it stops evaluating and plays the best move evaluated so far.
func (h *heuristic) best(excluded []Move, late func() bool) (Move, bool) {
	g := &h.g
	ex := map[string]bool{}
	for _, m := range excluded {
		ex[m.String()] = true
	}
	type cand struct {
		v   int
		val float64
	}
	var cands []cand
	fallback := -1
	tmp := make([]uint64, g.words)
scan:
	for i, word := range h.L {
		word &= g.own[h.side][i]
		for ; word != 0; word &= word - 1 {
			v := i*64 + bits.TrailingZeros64(word)
			if fallback < 0 {
				fallback = v
			}
			if len(ex) > 0 && ex[h.pos.game.move(g.place[v]).String()] {
				continue
			}
			cands = append(cands, cand{v, h.evalMove(v, tmp)})
			h.evals++
			if len(cands)&63 == 0 && late() {
				break scan
			}
		}
	}
	if len(cands) == 0 {
		if fallback < 0 {
			return Move{}, false
		}
		return h.pos.game.move(g.place[fallback]), true
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].val > cands[j].val })
	bestV := cands[0].v
	if !h.pos.game.pool {
		k := g.words
		// Two plies on the best few candidates, as many as a budget of
		// about 6000 replies allows (the opening is wide open anyway).
		opp := popcount(andAll(h.L, g.own[1-h.side]))
		n := min(len(cands), 6, max(1, 6000/max(opp, 1)))
		top := cands[:n]
		bestVal := 0.0
		two := make([]float64, 0, n)
		for i, c := range top {
			val, ok := h.evalTwoPly(c.v, late)
			if !ok {
				break // late: the best of those looked at two plies deep, or the one-ply best
			}
			two = append(two, val)
			if i == 0 || val > bestVal {
				bestV, bestVal = c.v, val
			}
		}
		// Playouts from the best candidates by one ply, as many as
		// playoutBudget allows; the best end decides, once two or more
		// ended before the deadline (one alone would only repeat the
		// one-ply choice over the two-ply one).
		live := float64(popcount(h.L))
		if m := min(len(cands), playoutMax, int(playoutBudget/(live*live))); m >= playoutMin && !late() {
			L1 := make([]uint64, k)
			playedV, bestR, bestTie, ended := -1, 0, 0.0, 0
			for i, c := range cands[:m] {
				c1 := h.count
				h.play(L1, h.L, &c1, c.v)
				r, ok := h.playout(L1, c1, 1-h.side, late)
				if !ok {
					break // late: the best of those played out, or the two-ply best
				}
				ended++
				// Ties: the candidates looked at two plies deep first
				// (they are the first ones), by that value; then by the
				// one-ply value.
				tie := -1e9 + c.val
				if i < len(two) {
					tie = two[i]
				}
				if i == 0 || r > bestR || r == bestR && tie > bestTie {
					playedV, bestR, bestTie = c.v, r, tie
				}
			}
			if ended >= 2 {
				bestV = playedV
			}
		}
	}
	return h.pos.game.move(g.place[bestV]), true
}

// playoutBudget bounds the playouts of one decision. A playout from a
// state of n live placements costs about n*n (each of its moves scans the
// mover's live placements and their conflicts; the first moves cost the
// most), so the player plays out the best playoutBudget/(n*n) candidates,
// at most playoutMax, and none when that makes fewer than playoutMin: from
// about 12,000 live placements down, at about 0.1 s a decision on one
// core. The hexomino opening, with about 29,000, is left to the two-ply
// look-ahead (one playout from it takes about a quarter of a second).
// Self-play against the greedy player on the hexomino preset (200 games,
// out of 200): 174-175 with the best 8 candidates played out from 8,000 or
// 12,000 live placements down, 183 with 16 and 185.5 with 32 from 8,000,
// 188 with 64 from 3,000; 186.5 with this budget and 187 with three times
// it (ties by the one-ply value), 190.5 with this budget and the ties as
// now.
const (
	playoutBudget = 0.6e9
	playoutMin    = 4
	playoutMax    = 256
)

// playout plays the rest of the game from state L (piece counts count,
// side t to move, after h.side's move; L is played on in place), both
// sides choosing by the one-ply evaluation, and returns its end for
// h.side: under the score rule the pieces h.side places in it, his move
// included, minus those the other places; under normal play +1 when the
// other is the first who cannot place, -1 when h.side is. ok is false
// when late reported the deadline passed first.
func (h *heuristic) playout(L []uint64, count pieceCounts, t int, late func() bool) (end int, ok bool) {
	passes, seen, diff := 0, 0, 1
	for passes < 2 {
		best, _, ok := h.bestMove(L, &count, t, &seen, late)
		if !ok {
			return 0, false
		}
		if best < 0 {
			if !h.pos.game.score { // who cannot place loses
				if t == h.side {
					return -1, true
				}
				return 1, true
			}
			passes++
			t = 1 - t
			continue
		}
		passes = 0
		h.play(L, L, &count, best)
		if t == h.side {
			diff++
		} else {
			diff--
		}
		t = 1 - t
	}
	return diff, true
}

func andAll(a, b []uint64) []uint64 {
	out := make([]uint64, len(a))
	for i := range a {
		out[i] = a[i] & b[i]
	}
	return out
}
