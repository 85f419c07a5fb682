package polyomino

import (
	"context"
	"math/bits"
	"slices"
	"sync/atomic"
	"unsafe"
)

// Search results of the win/loss search, from the point of view of the
// player to move.
const (
	resAbort = 0
	resWin   = 1
	resLoss  = -1
)

// solver is what the search goroutines of one Solve call share.
type solver struct {
	game     *Game
	tt       *Table
	keyer    keyer
	pool     bool
	ctx      context.Context
	maxNodes int64
	stop     atomic.Bool
	nodes    atomic.Int64 // flushed node counts of all workers
	seen     atomic.Int64 // flushed counts of positions seen without a node
	settled  atomic.Int64 // flushed counts of those settled by their evaluation
	progress func(nodes int64)
	nextProg atomic.Int64
	// ttMin1 is the least number of playable vertices at which search1
	// consults the table; below it a subtree is cheaper to search.
	ttMin1 int
	// hctx is the context of the whole call: ctx ends earlier, leaving
	// the heuristic player time to move (Solve).
	hctx context.Context
	// root is the conflict graph of the root position (nil until built);
	// the heuristic player reuses it.
	root *cgraph
}

// expired reports whether the search must stop (the context is done, or
// another worker stopped it), and stops it. For the work outside the
// nodes' own budget checks.
func (s *solver) expired() bool {
	if s.stop.Load() {
		return true
	}
	if s.ctx != nil && s.ctx.Err() != nil {
		s.stop.Store(true)
		return true
	}
	return false
}

// bigWords is the state size (in words) from which every node checks the
// budget (on a 16 x 16 board with tetrominoes, about 60 words, a node takes
// 0.7 ms and 4096 of them took 4.6 s; on the 8 x 8 board a node of 2-7
// words takes 5-30 us, and 4096 of them overshot a budget of 5 ms by
// 100 ms): nodes of midWords words or more check every midEvery of them.
const bigWords = 8

const (
	midWords = 2
	midEvery = 16 // a power of two
)

// checkEvery is the number of nodes between two looks at the context, the
// node budget and the progress callback (a power of two).
const checkEvery = 4096

// worker is one search goroutine with its own scratch memory.
type worker struct {
	s     *solver
	nodes int64 // nodes searched by this worker
	mid   int64 // nodes of midWords words or more
	flush int64 // nodes already added to s.nodes
	// seen counts the child positions that move generation makes and
	// evaluates (their replies, the clique rule, a playout) without
	// searching them as nodes: settled there or never reached (see
	// Result.Examined); settled those its evaluation settles (no reply,
	// the clique rule, a twin: Result.Settled).
	seen, settled int64
	frames        []frame
	// cancel, when set, stops the current task early (its result is no
	// longer needed).
	cancel, cancel2 *atomic.Bool
	// limit, when positive, stops the worker's search (resAbort) once its
	// nodes reach it, looked at every checkEvery nodes: a try that may
	// give up, the search going on.
	limit int64
	// perturb: this worker helps another on the same subtree; near its
	// root it tries the second move first, to fill the table with what the
	// other will need next.
	perturb bool
	// near is a small private table for the one-word endgame states:
	// their subtrees are small and their transpositions mostly local, so
	// a table that stays in the processor's cache serves them best.
	near    []nearEntry
	nearBuf *nearBuf // near's, handed back when the worker is done
	// pend is the entry of search1's last immediate win, not yet read
	// (key pendKey; nil: none): read at once, it stalled on its prefetch
	// not yet arrived (5 % of the profile). It is read, and set to a win
	// if it does not hold one, before the next access to near (settle),
	// so that the table goes through the same states; the children
	// counted if the table did not know the position (pendSeen and
	// pendSettled) are added then.
	pend                  *nearEntry
	pendKey               ttKey
	pendSeen, pendSettled int64
	// killer[ply] is the placement that last won at that ply: tried first
	// where it is playable.
	killer []int32
	// killer2[ply] is the killer that a cut at a multi-word node last
	// displaced (search1 replaces killer[ply] alone).
	killer2 []int32
}

// settle reads the entry of the immediate win put off (pend): as search1
// did at the win, the children made are counted and the win stored unless
// the table knew the position (a win, since the key is the position).
func (w *worker) settle() {
	e := w.pend
	if e == nil {
		return
	}
	w.pend = nil
	if e.value(w.pendKey) == resAbort {
		e.set(w.pendKey, resWin)
		w.seen += w.pendSeen
		w.settled += w.pendSettled
	}
}

// nearEntry: key.a, and key.b's low 48 bits with the result in the top 16.
type nearEntry struct{ a, b uint64 }

const nearBits = 17

// nearAt is the entry of key k.
func (w *worker) nearAt(k ttKey) *nearEntry {
	return &w.near[mix64(k.a^k.b*0x9e3779b97f4a7c15)>>(64-nearBits)]
}

// value is the result stored in e for key k, resAbort if none.
func (e *nearEntry) value(k ttKey) int {
	if e.a == k.a && e.b<<16 == k.b<<16 {
		return int(int16(e.b >> 48))
	}
	return resAbort
}

// set stores result r for key k in e.
func (e *nearEntry) set(k ttKey, r int) {
	e.a, e.b = k.a, k.b&(1<<48-1)|uint64(uint16(int16(r)))<<48
}

// frame is the scratch of one ply.
type frame struct {
	ms    []uint64 // ordered moves: sort key << 32 | vertex
	later []uint64 // moves put off to the end (odd playouts)
	child []uint64 // the child state being searched
	tmp   []uint64
	g     cgraph   // a graph compacted at this ply
	state []uint64 // its full state
	list  []int32
	// bucket: search1's moves by sort key (a set of vertices a key).
	bucket [128]uint64
	// lastChild[r]: the last child of r replies whose verdict search1
	// found at this ply's node, verdict[r] that verdict.
	lastChild [64]uint64
	verdict   [64]uint8
	// count and sorted: sortMoves' scratch.
	count  []int32
	sorted []uint64
}

// newWorker allocates the frames once: a frame must not move while a
// caller holds it.
func newWorker(s *solver) *worker {
	n := 2*len(s.game.set.Pieces) + 8
	nb := s.tt.nearTable()
	w := &worker{s: s, frames: make([]frame, n), near: nb.entries, nearBuf: nb, killer: make([]int32, n), killer2: make([]int32, n)}
	for i := range w.killer {
		w.killer[i], w.killer2[i] = -1, -1
	}
	return w
}

func (w *worker) frame(ply int) *frame { return &w.frames[ply] }

// flushCounts adds the worker's counts not yet added to the solver's.
func (w *worker) flushCounts() {
	w.settle()
	w.s.nodes.Add(w.nodes - w.flush)
	w.flush = w.nodes
	w.s.seen.Add(w.seen)
	w.s.settled.Add(w.settled)
	w.seen, w.settled = 0, 0
}

// done hands the worker's endgame table back for the next search
// (nearPool: its entries are values of positions, true in any search of
// the game, and the next search with the same Table keeps them).
func (w *worker) done() {
	w.settle()
	if w.nearBuf != nil {
		nearPool.Put(w.nearBuf)
	}
	w.near, w.nearBuf = nil, nil
}

// checkWide looks at the budget and the context at a node of k words as
// often as its cost asks: every node of bigWords words or more, every
// midEvery-th of midWords or more (tick covers the rest). It reports
// whether the search must stop.
func (w *worker) checkWide(k int) bool {
	if k < midWords {
		return false
	}
	w.mid++
	return (k >= bigWords || w.mid&(midEvery-1) == 0) && w.check()
}

// tick counts a node and, every checkEvery nodes, looks at the context and
// the budget. It reports whether the search must stop.
func (w *worker) tick() bool {
	w.nodes++
	if w.nodes&(checkEvery-1) != 0 {
		return false
	}
	return w.check()
}

func (w *worker) check() bool {
	s := w.s
	total := s.nodes.Add(w.nodes - w.flush)
	w.flush = w.nodes
	if s.stop.Load() || w.cancel != nil && w.cancel.Load() || w.cancel2 != nil && w.cancel2.Load() {
		return true
	}
	if w.limit > 0 && w.nodes >= w.limit {
		return true
	}
	if s.maxNodes > 0 && total >= s.maxNodes {
		s.stop.Store(true)
		return true
	}
	if s.ctx != nil {
		select {
		case <-s.ctx.Done():
			s.stop.Store(true)
			return true
		default:
		}
	}
	if s.progress != nil {
		if next := s.nextProg.Load(); total >= next && s.nextProg.CompareAndSwap(next, total+1<<20) {
			s.progress(total)
		}
	}
	return false
}

// key computes the transposition key of state L of graph g, side to move.
func (w *worker) key(g *cgraph, L []uint64, side int) ttKey {
	game := w.s.game
	var live Bits
	var p [2]uint64
	pool := w.s.pool
	for i, word := range L {
		for ; word != 0; word &= word - 1 {
			v := i*64 + bits.TrailingZeros64(word)
			if game.small {
				live[0] |= g.m64[v]
			} else {
				live = live.Or(game.placements[g.place[v]].mask)
			}
			if pool || g.own[side][i]&(1<<(uint(v)&63)) != 0 {
				p[0] |= g.pbit[v]
			} else {
				p[1] |= g.pbit[v]
			}
		}
	}
	return w.s.keyer.key(live, p[0], p[1])
}

// key1 is the endgame table's key of a one-word state: the live cells as
// they lie, not up to the board's symmetries (keyer.raw). Endgame
// transpositions are almost never images of one another under a symmetry:
// on the benchmark position the raw key costs 0.01 % more nodes and its
// canonical form (8 images, each moved to the corner) 5 % of the time.
func (w *worker) key1(g *cgraph, L uint64, side int) ttKey {
	var live, p0, p1 uint64
	if w.s.pool {
		for m := L; m != 0; m &= m - 1 {
			v := bits.TrailingZeros64(m)
			live |= g.m64[v]
			p0 |= g.pbit[v]
		}
	} else {
		own := g.own[side][0]
		for m := L; m != 0; m &= m - 1 {
			v := bits.TrailingZeros64(m)
			live |= g.m64[v]
			if own&(1<<uint(v)) != 0 {
				p0 |= g.pbit[v]
			} else {
				p1 |= g.pbit[v]
			}
		}
	}
	return w.s.keyer.raw(live, p0, p1)
}

// solveBool decides a normal-play state: resWin if the player to move
// (side) wins, resLoss if he loses, resAbort if the search was stopped.
func (w *worker) solveBool(g *cgraph, L []uint64, side int, ply int) int {
	return w.solveNode(g, L, side, ply, false)
}

// solveNode is solveBool; mixed reports that L is known not to be a
// disjoint union of cliques (with a common pool, the parent's evaluation
// of the move found so), and the node skips that test: most children
// searched were tested so in their parent (the lazy evaluation of a
// multi-word node's moves, every move of search1's).
func (w *worker) solveNode(g *cgraph, L []uint64, side int, ply int, mixed bool) int {
	if w.tick() {
		return resAbort
	}
	game := w.s.game
	k := g.words
	if k == 1 && game.small {
		w.nodes-- // search1 counts the node
		return w.search1(g, L[0], side, ply, mixed)
	}
	// A node of a big state costs up to a millisecond (every move is
	// ordered by a clique count and a playout of k words): such nodes
	// look at the budget and the context each time, not every checkEvery
	// nodes, so that a deadline is kept on the largest boards too.
	if w.checkWide(k) {
		return resAbort
	}
	mine := g.own[side]
	cnt := popcount(L)
	if !intersects(L, mine) {
		return resLoss
	}
	f := w.frame(ply)
	f.tmp = grow(f.tmp, k)
	if w.s.pool && !mixed {
		if n, ok := cliqueCountK(g, L, f.tmp); ok {
			if n&1 == 1 {
				return resWin
			}
			return resLoss
		}
	}
	// Compact sparse states: the work per move is proportional to K, and
	// states of at most 64 vertices have the one-word fast path.
	if k > 1 && (cnt*4 <= k*64 || cnt <= 64 && game.small) {
		switch {
		case cnt <= 64 && game.small && havePext:
			g.compact1(L, &f.g)
		case game.small && havePext:
			g.compactK(L, cnt, &f.g)
		default:
			f.list = g.compact(game, L, &f.g, f.list)
		}
		f.state = f.g.full(f.state)
		w.nodes--
		return w.solveNode(&f.g, f.state, side, ply, mixed)
	}
	key := w.key(g, L, side)
	// The table's bucket is fetched while the killers are looked for.
	w.s.tt.prefetch(key)
	// The killers first (the placements of the last two cuts at this
	// ply), before the other moves are ordered: in a state this big a
	// move that wins at once (no reply, an even union of cliques) is rare,
	// and a killer often wins, which spares the ordering of every move.
	kv, kv2 := -1, -1
	if !w.perturb || ply > 4 {
		kl, kl2 := w.killer[ply], w.killer2[ply]
		for v, pl := range g.place[:g.n] {
			if (pl == kl || pl == kl2) && mine[v>>6]&L[v>>6]&(1<<(uint(v)&63)) != 0 {
				if pl == kl {
					kv = v
				} else {
					kv2 = v
				}
			}
		}
	}
	if v, bound, ok := w.s.tt.probe(key); ok && bound == boundExact {
		return v
	}
	start := w.nodes
	f.ms = f.ms[:0]
	f.child = grow(f.child, k)
	opp := 1 - side
	oppOwn := g.own[opp]
	for _, x := range [2]int{kv, kv2} {
		if x < 0 {
			continue
		}
		if r := w.try(g, L, f, x, opp, ply, key, start, false); r != resLoss {
			if r == resWin && x == kv2 {
				w.killer[ply], w.killer2[ply] = w.killer2[ply], w.killer[ply]
			}
			return r
		}
	}
	perturb := w.perturb && ply <= 4
	lazy := w.s.pool && !perturb
	for i, word := range L {
		word &= mine[i]
		for ; word != 0; word &= word - 1 {
			v := i*64 + bits.TrailingZeros64(word)
			if v == kv || v == kv2 {
				continue
			}
			_, replies := andNotCountOwn(L, g.adj[v*k:(v+1)*k], oppOwn)
			w.seen++ // a node instead when tryMove searches it
			key2 := uint64(replies)
			if w.s.pool && replies > 0 && !lazy {
				andNotCount(f.child, L, g.adj[v*k:(v+1)*k])
				if n, ok := cliqueCountK(g, f.child, f.tmp); ok {
					if n&1 == 1 {
						w.settled++
						continue // the opponent makes the last move
					}
					replies = 0
				}
				key2 |= uint64(playoutK(g, f.child, nil)&1) << 16
			}
			if replies == 0 {
				w.settled++
				w.s.tt.store(key, resWin, boundExact, w.nodes-start+1)
				return resWin
			}
			if g.place[v] == w.killer[ply] {
				key2 = 0
			}
			f.ms = append(f.ms, key2<<32|uint64(v))
		}
	}
	perturb = perturb && len(f.ms) > 1
	if perturb {
		slices.Sort(f.ms)
		f.ms[0], f.ms[1] = f.ms[1], f.ms[0]
	}
	// With a common pool the moves go in the order (playout parity,
	// replies): the parity and the clique rule cost a pass over the child,
	// so they are computed lazily, in the order of replies: the moves of
	// even playout are searched as they come, those of odd playout after.
	f.later = f.later[:0]
	for i := range f.ms {
		if !perturb {
			orderNext(f.ms, i, f.sortMoves)
		}
		m := f.ms[i]
		v := int(uint32(m))
		if lazy && m>>32 != 0 {
			andNotCount(f.child, L, g.adj[v*k:(v+1)*k])
			if n, ok := cliqueCountK(g, f.child, f.tmp); ok {
				w.settled++
				if n&1 == 1 {
					continue // the opponent makes the last move
				}
				w.s.tt.store(key, resWin, boundExact, w.nodes-start+1)
				return resWin
			}
			if playoutK(g, f.child, nil)&1 == 1 {
				f.later = append(f.later, m)
				continue
			}
		}
		if r, settled := w.tryMove(g, L, f, f.ms[:i], m, opp, ply, key, start); settled {
			return r
		}
	}
	for i, m := range f.later {
		if r, settled := w.tryMove(g, L, f, f.later[:i], m, opp, ply, key, start); settled {
			return r
		}
	}
	w.s.tt.store(key, resLoss, boundExact, w.nodes-start)
	return resLoss
}

// tryMove searches move m (sort key << 32 | vertex) of the multi-word state
// L, unless one of the earlier moves leads to the same state (twin), and
// makes it the killer when it wins. It reports the result and whether it
// settles the node (a win, or the search stopped).
func (w *worker) tryMove(g *cgraph, L []uint64, f *frame, earlier []uint64, m uint64, opp, ply int, key ttKey, start int64) (int, bool) {
	v := int(uint32(m))
	if w.twin(g, L, earlier, m, v) {
		w.settled++
		return resLoss, false
	}
	w.seen-- // counted as a node
	// A move with a sort key other than 0 (not the killer, and leaving a
	// reply) had its child tested by the clique rule (lazily or not).
	r := w.try(g, L, f, v, opp, ply, key, start, w.s.pool && m>>32 != 0)
	if r == resWin {
		w.killer2[ply] = w.killer[ply]
		w.killer[ply] = g.place[v]
	}
	return r, r != resLoss
}

// try searches move v of the multi-word state L at ply (its table key, the
// node count when its search started, opp the player to reply): resWin
// when the move wins (stored in the table), resAbort when the search
// stops, resLoss when the move does not win. mixed: the child is known
// not to be a union of cliques (solveNode).
func (w *worker) try(g *cgraph, L []uint64, f *frame, v, opp, ply int, key ttKey, start int64, mixed bool) int {
	k := g.words
	andNotCount(f.child, L, g.adj[v*k:(v+1)*k])
	switch w.solveNode(g, f.child, opp, ply+1, mixed) {
	case resAbort:
		return resAbort
	case resLoss:
		w.s.tt.store(key, resWin, boundExact, w.nodes-start)
		return resWin
	}
	return resLoss
}

// search1 is solveBool for a graph of at most 64 vertices on a board of at
// most 64 cells: a state is one word. mixed: L is known not to be a union
// of cliques (solveNode); with a common pool every child that search1
// searches is known so, its evaluation (playoutCliques) having tested it.
func (w *worker) search1(g *cgraph, L uint64, side int, ply int, mixed bool) int {
	if w.tick() {
		return resAbort
	}
	own := g.own[side][0]
	mine := L & own
	if mine == 0 {
		return resLoss
	}
	adj := g.adj64()
	pool := w.s.pool
	if pool && !mixed {
		// The state splits into cliques (each move kills exactly its own
		// group): the number of moves left is fixed, parity decides.
		if n, ok := cliqueCount(adj, L); ok {
			if n&1 == 1 {
				return resWin
			}
			return resLoss
		}
	}
	// The endgame table's entry is fetched while the moves are generated,
	// and read after (at an immediate win, later still: w.pend): a cache
	// miss on every probe cost more than generating the moves of the
	// nodes it settles. The counts are those of a probe made first.
	var key ttKey
	var e *nearEntry
	probe := bits.OnesCount64(L) >= w.s.ttMin1
	if probe {
		key = w.key1(g, L, side)
		e = w.nearAt(key)
		prefetch(unsafe.Pointer(e))
	}
	f := w.frame(ply)
	// The moves go into buckets by sort key (f.bucket; occ: the keys
	// used), each a set of vertices: taken in order of key, then of
	// vertex, they are the moves in the sorted order of (key, vertex),
	// without a sort. A bucket is set afresh when its key is first used.
	bucket := &f.bucket
	var occ [2]uint64
	oppOwn := g.own[1-side][0]
	made, settled := int64(0), int64(0) // children made and evaluated, settled so
	known := uint64(0)
	for m := mine; m != 0; m &= m - 1 {
		v := bits.TrailingZeros64(m)
		made++
		replies := bits.OnesCount64(L &^ adj[v&63] & oppOwn)
		sk := uint64(replies) // the move's sort key
		if pool && replies > 0 {
			// The reply position splits into cliques: the number of moves
			// left is fixed; a win if it is even, and a move not worth
			// searching if it is odd. Otherwise a greedy playout of it:
			// an odd length suggests the opponent makes the last move.
			// (One pass: playoutCliques.) Many moves leave the same
			// child (37 % on the benchmark position: the placements of
			// one piece in a region it alone fits, say): the verdict of
			// the last child of each number of replies is kept
			// (f.lastChild, f.verdict; known: the numbers kept).
			c := L &^ adj[v&63]
			r := uint(replies) & 63
			var verdict uint8 // the playout's parity, or oddCliques
			if known>>r&1 != 0 && f.lastChild[r] == c {
				verdict = f.verdict[r]
			} else {
				n, cliques := playoutCliques(adj, c)
				verdict = uint8(n & 1)
				if cliques {
					verdict = oddCliques
					if n&1 == 0 {
						verdict, replies = 0, 0 // a win: the node ends
					}
				}
				f.lastChild[r], f.verdict[r] = c, verdict
				known |= 1 << r
			}
			if verdict == oddCliques {
				settled++
				continue
			}
			sk |= uint64(verdict) << 6 // replies < 64
		}
		if replies == 0 {
			if probe {
				// The table knew the position (no child counted) or
				// not: the entry is read later (w.pend).
				w.settle()
				w.pend, w.pendKey = e, key
				w.pendSeen, w.pendSettled = made, settled+1
				return resWin
			}
			w.seen += made
			w.settled += settled + 1
			return resWin
		}
		if g.place[v] == w.killer[ply] {
			sk = 0
		}
		bit := uint64(1) << uint(v)
		if h, b := sk>>6&1, uint64(1)<<(sk&63); occ[h]&b == 0 {
			occ[h] |= b
			bucket[sk&127] = bit
		} else {
			bucket[sk&127] |= bit
		}
	}
	if probe {
		w.settle()
		if v := e.value(key); v != resAbort {
			return v
		}
	}
	w.seen += made
	w.settled += settled
	for h := range occ {
		for keys := occ[h]; keys != 0; keys &= keys - 1 {
			all := bucket[h<<6|bits.TrailingZeros64(keys)]
			for vs := all; vs != 0; vs &= vs - 1 {
				v := bits.TrailingZeros64(vs)
				child := L &^ adj[v&63]
				// Twins: a move with the same sort key as an earlier one
				// may lead to the same state (the placements of a region
				// only one piece fits, say); such a state is known to be a
				// win for the opponent.
				twin := false
				for u := all & (1<<uint(v) - 1); u != 0; u &= u - 1 {
					if L&^adj[bits.TrailingZeros64(u)&63] == child {
						twin = true
						break
					}
				}
				if twin {
					w.settled++
					continue
				}
				w.seen-- // counted as a node
				switch w.search1(g, child, 1-side, ply+1, true) {
				case resAbort:
					return resAbort
				case resLoss:
					w.killer[ply] = g.place[v]
					if probe {
						w.settle()
						e.set(key, resWin)
					}
					return resWin
				}
			}
		}
	}
	if probe {
		w.settle()
		e.set(key, resLoss)
	}
	return resLoss
}

// cliqueCount reports whether the vertices of L fall into groups such that
// every move removes exactly its own group (the conflict graph restricted
// to L is a disjoint union of cliques), and if so how many groups there
// are: then exactly that many moves remain, whatever is played.
func cliqueCount(adj *[64]uint64, L uint64) (int, bool) {
	n := 0
	for r := L; r != 0; {
		v := bits.TrailingZeros64(r)
		s := adj[v&63] & L
		for t := s &^ (1 << uint(v)); t != 0; t &= t - 1 {
			if adj[bits.TrailingZeros64(t)&63]&L != s {
				return 0, false
			}
		}
		r &^= s
		n++
	}
	return n, true
}

// oddCliques is the verdict of a child of search1 that is an odd union of
// cliques (not worth searching).
const oddCliques = 2

// playoutCliques is a greedy playout of state L (always the lowest
// vertex) and cliqueCount in one pass: the playout's length n, and whether
// L is a disjoint union of cliques (then n is their number). Each step of
// the playout removes the lowest vertex's neighbours in L, the group that
// cliqueCount checks next, so both walk the same groups; once a group is
// not a clique apart from the rest, only the playout goes on.
func playoutCliques(adj *[64]uint64, L uint64) (n int, cliques bool) {
	cliques = true
	for r := L; r != 0; n++ {
		v := bits.TrailingZeros64(r)
		s := adj[v&63] & L
		if cliques {
			for t := s &^ (1 << uint(v)); t != 0; t &= t - 1 {
				if adj[bits.TrailingZeros64(t)&63]&L != s {
					cliques = false
					break
				}
			}
		}
		r &^= s
	}
	return n, cliques
}

// lazyPicks is the number of moves orderNext selects one by one before it
// sorts the rest: most nodes are decided by their first move or two.
const lazyPicks = 2

// orderNext puts the i-th move of the ascending order of ms at ms[i],
// given ms[:i] already in place: for i < lazyPicks the least of ms[i:],
// at lazyPicks the rest sorted at once. The values are distinct (the
// vertex is in the low bits), so the order is the sorted order exactly.
func orderNext(ms []uint64, i int, sortRest func([]uint64)) {
	switch {
	case i < lazyPicks:
		least := i
		for j := i + 1; j < len(ms); j++ {
			if ms[j] < ms[least] {
				least = j
			}
		}
		ms[i], ms[least] = ms[least], ms[i]
	case i == lazyPicks:
		sortRest(ms[i:])
	}
}

// sortMoves sorts moves (sort key << 32 | vertex) by a counting sort on
// small sort keys (the replies of a multi-word node's moves), then an
// insertion sort that puts the vertices of one key in order (they are
// nearly so); large keys go to slices.Sort.
func (f *frame) sortMoves(ms []uint64) {
	hi := uint64(0)
	for _, m := range ms {
		hi = max(hi, m>>32)
	}
	if hi >= 1024 || len(ms) < 32 {
		slices.Sort(ms)
		return
	}
	n := int(hi) + 2
	if cap(f.count) < n {
		f.count = make([]int32, n)
	}
	count := f.count[:n]
	clear(count)
	for _, m := range ms {
		count[m>>32+1]++
	}
	for i := 1; i < n; i++ {
		count[i] += count[i-1]
	}
	f.sorted = grow(f.sorted, len(ms))
	out := f.sorted[:len(ms)]
	for _, m := range ms {
		k := m >> 32
		out[count[k]] = m
		count[k]++
	}
	copy(ms, out)
	insertionSort(ms)
}

func insertionSort(a []uint64) {
	for i := 1; i < len(a); i++ {
		x := a[i]
		j := i
		for j > 0 && a[j-1] > x {
			a[j] = a[j-1]
			j--
		}
		a[j] = x
	}
}

// playoutK is the length of a greedy playout (always the lowest-numbered
// move) from state c of k words; c is consumed.
// buf holds a row of a lazy graph (words long).
func playoutK(g *cgraph, c, buf []uint64) int {
	k := g.words
	n := 0
	for w := 0; w < k; {
		if c[w] == 0 {
			w++
			continue
		}
		v := w*64 + bits.TrailingZeros64(c[w])
		row := g.rowOf(v, buf)
		for i := range c {
			c[i] &^= row[i]
		}
		n++
	}
	return n
}

// tmpK is a scratch state of k words.
func (w *worker) tmpK(k int) []uint64 {
	f := w.frame(0)
	f.tmp = grow(f.tmp, k)
	return f.tmp
}

// twin reports whether an earlier move with the same sort key leads to the
// same state as move v (see search1).
func (w *worker) twin(g *cgraph, L []uint64, earlier []uint64, m uint64, v int) bool {
	k := g.words
	rv := g.adj[v*k : (v+1)*k]
	for j := len(earlier) - 1; j >= 0 && earlier[j]>>32 == m>>32; j-- {
		u := int(uint32(earlier[j]))
		ru := g.adj[u*k : (u+1)*k]
		same := true
		for i := range L {
			if (rv[i]^ru[i])&L[i] != 0 {
				same = false
				break
			}
		}
		if same {
			return true
		}
	}
	return false
}
