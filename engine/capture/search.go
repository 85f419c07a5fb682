package capture

import (
	"context"
	"math"
	"math/bits"
	"sort"
)

// Values of a position for the player to move.
const (
	valLoss    int8 = -1
	valDraw    int8 = 0
	valWin     int8 = 1
	valUnknown int8 = 2
)

// noDep marks a proof that rests on no position of the history.
const noDep = math.MaxInt32

// The search is a negamax over win / draw / loss with iterative deepening
// on a horizon (a proof found under any horizon is exact) and a
// transposition table. Draws come only from the repetition rule, which
// makes values depend on the history: the same board can be a win with
// one history and a draw with another. The table must never hand out a
// value the current history would change. How it is kept sound:
//
// A proof is the part of the tree a value rests on: a win rests on the
// position and one winning child's proof, a loss or a draw on the
// position and all its children's proofs; a table entry's proof is the
// one it was stored with. While searching a node X at history index d
// (the game's positions and the search path are one sequence, indexed
// from the start of the game), a position of the proof may equal an
// earlier position of the sequence; dep is the smallest index of such a
// match. A value with dep >= d is decided by the part of the sequence from
// X on: the counts that produced every draw and every non-draw inside the
// proof come from positions of the proof itself. Such a value holds for X
// after any history that shares no position with the proof, and only
// then is it stored.
//
// Before a stored value is used for X, the filter checks that no position
// of the current sequence can lie in the stored proof. Rather than the
// proof, the entry keeps a summary that any position of the proof
// satisfies: the number of pieces on the board lies in [kmin, kmax], and
// the pieces of core are on the board where they are in X. A position of
// the sequence failing the summary cannot be in the proof; if every one
// fails, the history cannot change the value (the proof's positions are
// counted exactly as when it was made). Summaries combine as proofs do
// (kmin and kmax by min and max, cores by intersection with the pieces of
// each position), so entries used inside a proof extend it correctly.
// A position seen before on the sequence (dep < d at once) neither reads
// nor writes the table.
//
// A proof also has a depth (plies): a win or a loss it proves is reached
// within that many plies, whatever the loser does (a win: one more than
// its winning child's proof, a loss: one more than the deepest of its
// children's, a stuck player's loss 0). The proof search uses it only
// to pass it on; the length search (Length) uses an entry only when its
// depth fits in what is left of the horizon, which makes its horizon
// search exact: a value found under horizon h is a win or a loss within
// h plies, and one not found is none within h.
type proof struct {
	val        int8
	kmin, kmax int8
	plies      int16
	dep        int32
	core       pieceSet
}

// leaf is the proof made of the position alone.
func leaf(st *state, val int8) proof {
	k := int8(st.onBoard.count())
	return proof{val: val, dep: noDep, kmin: k, kmax: k, core: st.onBoard}
}

// join extends p with q (the value is left to the caller).
func (p proof) join(q proof) proof {
	p.dep = min(p.dep, q.dep)
	p.kmin = min(p.kmin, q.kmin)
	p.kmax = max(p.kmax, q.kmax)
	p.core &= q.core
	return p
}

var unknownProof = proof{val: valUnknown}

// maxNodeTurns is the most turns a node below the root may have for the
// search to look at it (more come only from many marked pieces).
const maxNodeTurns = 1 << 16

type searcher struct {
	g          *Game
	ctx        context.Context
	maxNodes   int64 // 0: no limit
	nodes      int64
	nextCheck  int64
	stopped    bool
	horizon    int
	horizonHit bool
	// exact: the length search's mode, where table entries are used only
	// when their depth fits under the horizon (see proof). wideHit: a
	// node was left unsearched for having too many turns, so a value not
	// found under the horizon might exist (lengths are then not exact).
	exact   bool
	wideHit bool
	tt      *table
	// path is the game's history followed by the search path: the
	// positions between turns, in order.
	path []histEntry
	bufs [][]turn
	keys [][]int32
	// states[ply] holds the position searched ply turns below the root
	// (children are made there, not on the Go stack, where the recursion
	// would move them to the heap).
	states []state
	// history counts the wins each placement produced (move ordering).
	history []uint32
	// stored, when set (tests), sees every value the table keeps.
	stored func(st *state, val int8)
	// progress, when set, is told the node count about every 2^20 nodes.
	progress     func(nodes int64)
	nextProgress int64
}

func newSearcher(ctx context.Context, g *Game, history []histEntry, maxNodes int64, tt *table) *searcher {
	return &searcher{
		g: g, ctx: ctx, maxNodes: maxNodes, nextCheck: 1024,
		tt:      tt,
		states:  make([]state, maxHorizon+2),
		path:    append([]histEntry(nil), history...),
		history: make([]uint32, len(g.placements)),
	}
}

// checkStop looks at the budget (called every 1024 nodes).
func (s *searcher) checkStop() bool {
	s.nextCheck = s.nodes + 1024
	if s.progress != nil && s.nodes >= s.nextProgress {
		s.nextProgress = s.nodes + 1<<20
		s.progress(s.nodes)
	}
	if s.maxNodes > 0 && s.nodes >= s.maxNodes || s.ctx.Err() != nil {
		s.stopped = true
	}
	return s.stopped
}

// safe reports whether no position of the path can lie in the proof of
// entry e stored for position st (see the comment on proof).
func (s *searcher) safe(e *ttEntry, st *state) bool {
	for i := range s.path {
		x := &s.path[i]
		if x.onBoard&e.core != e.core {
			continue
		}
		k := uint8(x.onBoard.count())
		if k < e.kmin || k > e.kmax {
			continue
		}
		same := true
		for c := e.core; c != 0; c &= c - 1 {
			p := c.lowest()
			if x.where[p] != st.where[p] {
				same = false
				break
			}
		}
		if same {
			return false
		}
	}
	return true
}

func (s *searcher) buffers(ply int) ([]turn, []int32) {
	for len(s.bufs) <= ply {
		s.bufs = append(s.bufs, make([]turn, 0, 256))
		s.keys = append(s.keys, make([]int32, 0, 256))
	}
	return s.bufs[ply][:0], s.keys[ply][:0]
}

// search returns the value of st for the player to move, ply turns below
// the root, and the proof it rests on.
func (s *searcher) search(st *state, ply int) proof {
	g := s.g
	idx := int32(len(s.path))
	self := leaf(st, 0)
	seen := 0
	for i := len(s.path) - 1; i >= 0; i-- {
		if s.path[i].key == st.key {
			seen++
			self.dep = int32(i)
		}
	}
	if seen >= 2 {
		self.val = valDraw // the third occurrence
		return self
	}
	if seen == 0 {
		if e, ok := s.tt.probe(st.key); ok && (!s.exact || e.val == valDraw || int(e.plies) <= s.horizon-ply) && s.safe(&e, st) {
			return proof{val: e.val, dep: noDep, kmin: int8(e.kmin), kmax: int8(e.kmax), plies: int16(e.plies), core: e.core}
		}
	}
	if !st.canPlace(g) {
		self.val = valLoss
		return self
	}
	if ply >= s.horizon {
		s.horizonHit = true
		return unknownProof
	}
	if s.nodes >= s.nextCheck && s.checkStop() || s.stopped {
		return unknownProof
	}
	s.nodes++
	start := s.nodes
	buf, keys := s.buffers(ply)
	turns := st.appendTurns(g, buf, maxNodeTurns+1)
	s.bufs[ply] = turns
	if len(turns) > maxNodeTurns {
		s.wideHit = true
		return unknownProof // too wide to search
	}
	s.path = append(s.path, entryOf(st))
	defer func() { s.path = s.path[:len(s.path)-1] }()

	// A turn that leaves the opponent stuck wins at once. Each position
	// looked at here counts as a node.
	child := &s.states[ply+1]
	for _, t := range turns {
		*child = *st
		child.play(g, t)
		s.nodes++
		if !child.canPlace(g) {
			s.history[t.place] += 8
			res := self.join(leaf(child, 0))
			res.val, res.plies = valWin, 1
			s.store(st, res, idx, start)
			return res
		}
	}
	turns = s.order(turns, keys, ply)

	acc := proof{dep: noDep, kmin: math.MaxInt8, kmax: math.MinInt8, plies: 1, core: ^pieceSet(0)}
	best := valLoss
	unknown := false
	for _, t := range turns {
		*child = *st
		child.play(g, t)
		r := s.search(child, ply+1)
		if s.stopped {
			return unknownProof
		}
		if r.val == valUnknown {
			unknown = true
			continue
		}
		if -r.val == valWin {
			s.history[t.place] += 2
			res := self.join(r)
			res.val, res.plies = valWin, r.plies+1
			s.store(st, res, idx, start)
			return res
		}
		acc = acc.join(r)
		acc.plies = max(acc.plies, r.plies+1)
		best = max(best, -r.val)
	}
	if unknown {
		return unknownProof
	}
	res := self.join(acc)
	res.val, res.plies = best, acc.plies
	s.store(st, res, idx, start)
	return res
}

// store keeps a value that does not depend on the history before the
// position.
func (s *searcher) store(st *state, res proof, idx int32, start int64) {
	if res.dep < idx {
		return
	}
	if s.stored != nil {
		s.stored(st, res.val)
	}
	work := uint8(bits.Len64(uint64(s.nodes-start+1))) + 1
	s.tt.store(ttEntry{key: st.key, core: res.core, val: res.val, kmin: uint8(res.kmin), kmax: uint8(res.kmax), work: work, plies: uint16(max(res.plies, 0))})
}

// order sorts turns for the search: fewer removals first (a removal hands
// the opponent a piece), then placements that won before.
func (s *searcher) order(turns []turn, keys []int32, ply int) []turn {
	keys = keys[:0]
	for _, t := range turns {
		keys = append(keys, int32(t.remove.count())<<24-int32(min(s.history[t.place], 1<<23)))
	}
	s.keys[ply] = keys
	sort.Sort(byKey{turns, keys})
	return turns
}

type byKey struct {
	turns []turn
	keys  []int32
}

func (b byKey) Len() int           { return len(b.turns) }
func (b byKey) Less(i, j int) bool { return b.keys[i] < b.keys[j] }
func (b byKey) Swap(i, j int) {
	b.turns[i], b.turns[j] = b.turns[j], b.turns[i]
	b.keys[i], b.keys[j] = b.keys[j], b.keys[i]
}
