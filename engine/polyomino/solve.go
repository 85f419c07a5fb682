package polyomino

import (
	"context"
	"math/bits"
	"runtime"
	"sort"
	"sync"
	"time"
)

// Outcome is a result for one player: win, loss, draw or unknown.
type Outcome string

const (
	Win            Outcome = "win"
	Loss           Outcome = "loss"
	Draw           Outcome = "draw"
	OutcomeUnknown Outcome = "unknown"
)

// Options steer Solve. The zero value searches until the position is
// solved or ctx is done, on every core.
type Options struct {
	// MaxNodes stops the search after about this many nodes (0: no limit).
	MaxNodes int64
	// Workers is the number of search goroutines (0: GOMAXPROCS).
	Workers int
	// AllMoves asks for the value of every legal move. Without it Solve
	// still solves every move unless FirstWin is set, so that BestMoves
	// lists every best move, but it reports only the best ones.
	AllMoves bool
	// FirstWin stops as soon as the value of the position is proven (the
	// first winning move found); BestMoves then holds that move only.
	FirstWin bool
	// Table is a transposition table to use (and keep between calls on the
	// same game); nil makes one of TableMB megabytes (default 64).
	Table   *Table
	TableMB int
	// Progress, if set, is called from the search goroutines about every
	// million nodes with the nodes searched so far. It must be quick and
	// safe for concurrent use.
	Progress func(nodes int64)
	// Decided, if set, is called each time the search of a position under
	// normal play decides one of its moves (a class of moves, as in
	// Children): the value for the mover (+1 win, -1 loss) and, for a loss,
	// the reply that refuted it when the search found one (nil when the
	// table knew the value). Calls are serialised; keep them quick.
	Decided func(class []Move, value int, refutation *Move)
	// Clock is used only to report Elapsed (default time.Now); budgets come
	// from ctx and MaxNodes.
	Clock func() time.Time
	// Prefer, if set, are moves to try first at the root, in this order
	// (those not legal are ignored): for example the moves that won in
	// sibling positions.
	Prefer []Move
	// Known, if set, is asked once for each class of root moves (the
	// symmetric moves of the position, as in Children) whether the value
	// of the position after them is known already, from a cache of
	// earlier searches: a proven Result of that position, from its
	// player to move's side as Solve returns it (Outcome and Value are
	// read), as Combine takes a child's. Those moves are not searched
	// (nor reported to Decided); their value is trusted. Not asked when
	// the player to move passes, nor on a root past the search.
	Known func(class []Move) (Result, bool)
}

// MoveResult is the value of one move for the player who makes it.
type MoveResult struct {
	Move    Move
	Outcome Outcome
	Proven  bool
	// Value: +1 / -1 (normal play: win / loss), or the final score
	// difference for the mover (score rule). Meaningful when Proven.
	Value int
}

// Result is the analysis of a position, from the point of view of the
// player to move.
type Result struct {
	Outcome Outcome
	Proven  bool
	// Value: +1 win / -1 loss under normal play; under the score rule the
	// final score difference (player to move minus the other) under
	// perfect play, placed pieces included. Meaningful when Proven.
	Value int
	// Scores are the pieces placed so far by the first and second player.
	Scores [2]int
	// BestMoves are the moves that reach Value (all of them when
	// BestComplete; sorted as Moves). When the search was stopped before
	// the value was proven, BestMoves holds the heuristic player's choice
	// (Heuristic is true).
	BestMoves    []Move
	BestComplete bool
	Heuristic    bool
	// Moves holds every legal move with its value (Options.AllMoves),
	// best first; unproven moves last.
	Moves []MoveResult
	// LegalMoves is the number of legal moves of the player to move.
	LegalMoves int
	// Over: the game has ended (normal play: the player to move has no
	// move and has lost; score rule: neither player can move).
	Over bool
	// Pass: under the score rule the player to move cannot place and
	// passes; the values are those of the position after the pass.
	Pass  bool
	Nodes int64
	// Examined counts the positions the search made and evaluated: the
	// Nodes (the positions the search is called on), and the children
	// that move generation makes (the parent's state less the move's
	// conflicts) and evaluates (its replies counted; in the one-word
	// endgame also the clique rule tested and a greedy playout played)
	// without calling the search on them: because that evaluation
	// settles them (Settled), or because another move settles the parent
	// first (a move generated and ordered, then never searched). Settled
	// counts the Nodes and the children settled by their own evaluation:
	// no reply, an odd or even union of cliques, a twin of an earlier
	// move. Both count children in the normal-play search only: under the
	// score rule, Examined and Settled are Nodes.
	Examined int64
	Settled  int64
	Elapsed  time.Duration
}

// Solve analyses a position exactly, within the budget of ctx (deadline,
// cancellation) and opts.MaxNodes. A stopped search returns Proven false
// with what it did prove and the heuristic player's best move; the error
// is nil unless the position cannot be analysed at all (ErrUnsupported
// for the capture variant).
func Solve(ctx context.Context, pos *Position, opts Options) (Result, error) {
	g := pos.game
	if g.cfg.Variant == Capture {
		return Result{}, faultf(ErrUnsupported, "analysis of the capture variant is not supported yet")
	}
	clock := opts.Clock
	if clock == nil {
		clock = time.Now
	}
	t0 := clock()
	res := Result{Scores: pos.score}
	if ctx == nil {
		ctx = context.Background()
	}
	// The search stops before the deadline, leaving the heuristic player
	// time to choose a move within it when the search does not finish.
	sctx := ctx
	if d, ok := ctx.Deadline(); ok {
		if reserve := min(time.Until(d)/5, heuristicReserve); reserve > 0 {
			var cancel context.CancelFunc
			sctx, cancel = context.WithDeadline(ctx, d.Add(-reserve))
			defer cancel()
		}
	}
	s := newSolver(sctx, pos.game, opts)
	s.hctx = ctx
	if opts.Table == nil {
		defer s.tt.release() // the search's own table
	}
	defer s.tt.warm.Store(true)
	res = s.solveRoot(pos, opts, res)
	res.Nodes = s.nodes.Load()
	res.Examined = res.Nodes + s.seen.Load()
	res.Settled = res.Nodes + s.settled.Load()
	res.Elapsed = clock().Sub(t0)
	return res, nil
}

func newSolver(ctx context.Context, g *Game, opts Options) *solver {
	tt := opts.Table
	if tt == nil {
		mb := opts.TableMB
		if mb <= 0 {
			mb = 64
		}
		tt = NewTable(mb)
	}
	tt.use(g)
	tt.nextGeneration()
	return &solver{game: g, tt: tt, keyer: newKeyer(g), pool: g.pool, ctx: ctx,
		maxNodes: opts.MaxNodes, progress: opts.Progress, ttMin1: 10}
}

// Holds reports whether the table holds positions of g: a search of g
// keeps them (they are values, true in any search of the game), one of
// another game clears the table first.
func (t *Table) Holds(g *Game) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.game == g
}

// use binds the table to a game; a table used for another game is cleared.
func (t *Table) use(g *Game) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.game != g {
		if t.game != nil {
			t.Clear()
		}
		t.game = g
	}
}

func (s *solver) workers(opts Options) int {
	n := opts.Workers
	if n <= 0 {
		n = runtime.GOMAXPROCS(0)
	}
	return n
}

// rootMove is a root move being solved (one per symmetry class).
type rootMove struct {
	vertex int
	order  uint64
	class  []Move
	value  int
	proven bool
}

// tooBig reports whether a root graph of n placements is past the search:
// the graph alone would take more than 32 MB, and no budget would prove
// anything there (the 15 x 15 hexomino opening has about 29,000).
func tooBig(n int) bool { return graphWords(n) > denseLimit }

// graphWords is the size in words of the adjacency matrix of n placements.
func graphWords(n int) int { return n * ((n + 63) / 64) }

// bigGraph reports whether the root graph of n placements takes long
// enough to build (a millisecond or more: 256 KB of adjacency) to skip
// when the search has no time left.
func bigGraph(n int) bool { return graphWords(n) >= 1<<15 }

// graphCost estimates the time buildDense takes for n placements of
// pieces of order cells: each row ORs a piece's and each cell's cover set,
// about 5 ns a word here (28 ms for 7,063 hexomino placements).
func graphCost(n, order int) time.Duration {
	return time.Duration(graphWords(n)*(order+1)) * 5 * time.Nanosecond
}

// deadlineWithin reports whether the search must stop within d (or has).
func (s *solver) deadlineWithin(d time.Duration) bool {
	if s.expired() {
		return true
	}
	if s.ctx == nil {
		return false
	}
	dl, ok := s.ctx.Deadline()
	return ok && time.Until(dl) < d
}

// shallowApplies reports whether a position too big for the root graph is
// still searched plainly (a hand game under normal play where a player has
// at most shallowPieces pieces left).
func shallowApplies(pos *Position) bool {
	return handsNormalPlay(pos.game) && fewestPieces(pos) <= shallowPieces
}

// handsNormalPlay reports whether g is a hand game under normal play.
func handsNormalPlay(g *Game) bool { return !g.pool && !g.score }

// fewestPieces is the number of pieces of the player with fewer left.
func fewestPieces(pos *Position) int {
	return min(bits.OnesCount64(pos.avail[0]), bits.OnesCount64(pos.avail[1]))
}

// Searchable reports whether Solve searches pos: false when its root graph
// is too big and no shallow search applies, where the heuristic player
// answers at once whatever the budget (the hexominoes preset's opening).
// A position without moves is searchable: its value is known.
func Searchable(pos *Position) bool {
	side := pos.toMove & 1
	n := len(pos.appendLegal(side, nil))
	if n == 0 {
		q := pos.clone()
		q.toMove = pos.toMove.Opponent()
		if !pos.game.score || len(q.appendLegal(q.toMove, nil)) == 0 {
			return true // the game is over
		}
		return Searchable(q) // the player passes
	}
	if !pos.game.pool {
		n += len(pos.appendLegal(side^1, nil))
	}
	return !tooBig(n) || shallowApplies(pos)
}

// SearchableAfterAMove reports whether Solve may search some position after
// a move of pos (true unless it can rule that out), so that splitting pos by
// its moves (a job's units) may prove something. A move removes at most the
// placements over its cells and those of its piece: when every move leaves
// the root graph too big, no shallow search can apply and (hands, normal
// play) no move can take every placement of the opponent, none can.
func SearchableAfterAMove(pos *Position) bool {
	g := pos.game
	side := pos.toMove & 1
	all := pos.appendLegal(side, nil)
	if len(all) == 0 {
		return false // no move
	}
	if handsNormalPlay(g) && fewestPieces(pos)-1 <= shallowPieces {
		return true // a move may bring the shallow search within reach
	}
	mine := len(all)
	if !g.pool {
		all = pos.appendLegal(side^1, all)
	}
	cover := make([]int, g.geo.Cells())
	theirs := make([]int, g.geo.Cells()) // the opponent's placements (hands)
	perPiece := make([]int, len(g.byPiece))
	for k, i := range all {
		for _, c := range g.cellIdx[int(i)*g.set.Order : (int(i)+1)*g.set.Order] {
			cover[c]++
			if k >= mine {
				theirs[c]++
			}
		}
		if k < mine {
			perPiece[g.placements[i].piece]++
		}
	}
	for _, i := range all[:mine] {
		gone, shut := perPiece[g.placements[i].piece], 0
		for _, c := range g.cellIdx[int(i)*g.set.Order : (int(i)+1)*g.set.Order] {
			gone += cover[c]
			shut += theirs[c]
		}
		// Searchable if the graph fits, or (hands, normal play) if the
		// move may leave the opponent no move: the game is over.
		if !tooBig(len(all)-gone) || handsNormalPlay(g) && shut >= len(all)-mine {
			return true
		}
	}
	return false
}

func (s *solver) solveRoot(pos *Position, opts Options, res Result) Result {
	g := s.game
	side := pos.toMove & 1
	var idx [2][]int32
	for p := range 2 {
		idx[p] = pos.appendLegal(Player(p), nil)
	}
	res.LegalMoves = len(idx[side])
	diff := pos.score[side] - pos.score[1-side]
	if len(idx[side]) == 0 {
		if !g.score || len(idx[1-side]) == 0 {
			res.Over, res.Proven, res.BestComplete = true, true, true
			if g.score {
				res.Value = diff
			} else {
				res.Value = -1
			}
			res.Outcome = outcomeOf(res.Value)
			return res
		}
		// Score rule: the player to move passes.
		q := pos.clone()
		q.toMove = pos.toMove.Opponent()
		opts.Known = nil // pos's children: not the other player's
		r := s.solveRoot(q, opts, Result{Scores: pos.score})
		r.Pass, r.LegalMoves, r.BestMoves, r.Moves, r.BestComplete = true, 0, nil, nil, r.Proven
		r.Value = -r.Value
		r.Outcome = outcomeOf(r.Value)
		if !r.Proven {
			r.Outcome = OutcomeUnknown
		}
		return r
	}
	// The root graph: every placement either player can still make.
	all := idx[side]
	if !g.pool {
		all = append(append([]int32(nil), idx[0]...), idx[1]...)
	}
	// A big root graph that would take more than a quarter of the time
	// left to the search is not built (7,000 hexomino placements take
	// 30-60 ms to graph, far beyond a budget of a few milliseconds; the
	// search could prove nothing in the rest): the heuristic player
	// answers on a lazy graph at once.
	if late := bigGraph(len(all)) && s.deadlineWithin(4*graphCost(len(all), g.set.Order)); tooBig(len(all)) || late {
		if shallowApplies(pos) {
			// A hand game may still be decided within a few plies (one
			// piece left against many).
			return s.solveShallow(pos, idx[side], opts, res)
		}
		// The search could not prove anything here within any budget
		// (the 15 x 15 hexomino opening has about 29,000 placements), and
		// its root graph alone would take more than 32 MB; or within the
		// time left (late): the heuristic player answers at once.
		res.Outcome, res.Heuristic = OutcomeUnknown, true
		if m, ok := heuristicMove(s.hctx, pos, nil, nil); ok {
			res.BestMoves = []Move{m}
		}
		if opts.AllMoves {
			for _, m := range pos.LegalMoves() {
				res.Moves = append(res.Moves, MoveResult{Move: m, Outcome: OutcomeUnknown})
			}
			if len(res.BestMoves) == 1 {
				heuristicFirst(res.Moves, res.BestMoves[0])
			}
		}
		return res
	}
	var root cgraph
	root.build(g, all)
	L := root.full(nil)
	// Root moves, one per symmetry class of the position.
	stab := pos.stabilizer()
	classes := map[int32]*rootMove{}
	var moves []*rootMove
	vertexOf := map[int32]int{}
	for v, pi := range all {
		vertexOf[pi] = v
	}
	k := root.words
	for _, pi := range idx[side] {
		rep := pi
		for _, perm := range stab {
			rep = min(rep, perm[pi])
		}
		rm, ok := classes[rep]
		if !ok {
			v := vertexOf[rep]
			_, theirs := andNotCountOwn(L, root.adj[v*k:(v+1)*k], root.own[1-side])
			key := uint64(theirs)
			// (On the largest boards the playouts of every class take
			// tens of milliseconds: past the deadline, replies alone.)
			if len(moves)&63 == 63 {
				s.expired()
			}
			if g.pool && !s.stop.Load() { // as in the search: playout parity, then replies
				c := make([]uint64, k)
				andNotCount(c, L, root.adj[v*k:(v+1)*k])
				key |= uint64(playoutK(&root, c, nil)&1) << 16
			}
			rm = &rootMove{vertex: v, order: key<<32 | uint64(v)}
			classes[rep] = rm
			moves = append(moves, rm)
		}
		rm.class = append(rm.class, g.move(pi))
	}
	sort.Slice(moves, func(i, j int) bool { return moves[i].order < moves[j].order })
	preferFirst(moves, opts.Prefer)
	if opts.Known != nil {
		for _, rm := range moves {
			if r, ok := opts.Known(rm.class); ok && r.Proven {
				rm.proven, rm.value = true, -r.Value
				if g.score {
					rm.value -= diff // collect adds it back, as in Combine
				}
			}
		}
	}

	s.root = &root
	if !g.score || g.pool {
		s.solveRootParallel(&root, L, int(side), moves, opts)
		if g.score { // common pool: the last to place gets one piece more
			for _, rm := range moves {
				if rm.proven {
					rm.value = max(rm.value, 0)
				}
			}
		}
		return s.collect(pos, moves, diff, opts, res)
	}
	// Score rule with hands: each root move is solved by alpha-beta, the
	// workers taking the next one.
	var mu sync.Mutex
	next := 0
	proven := false // root value settled with FirstWin
	var wg sync.WaitGroup
	for range s.workers(opts) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := newWorker(s)
			child := make([]uint64, k)
			for {
				mu.Lock()
				if next >= len(moves) || proven || s.stop.Load() {
					mu.Unlock()
					break
				}
				rm := moves[next]
				next++
				mu.Unlock()
				if rm.proven { // Options.Known
					continue
				}
				andNotCount(child, L, root.adj[rm.vertex*k:(rm.vertex+1)*k])
				v, ok := w.solveChild(&root, child, 1-int(side))
				mu.Lock()
				if ok {
					rm.value, rm.proven = v, true
					if opts.FirstWin && !opts.AllMoves && !s.game.score && v > 0 {
						proven = true
					}
				}
				mu.Unlock()
			}
			w.flushCounts()
			w.done()
		}()
	}
	wg.Wait()
	return s.collect(pos, moves, diff, opts, res)
}

// solveChild solves the position after a root move: the value for the
// player who made the move (the future score difference under the score
// rule, +1/-1 under normal play).
func (w *worker) solveChild(g *cgraph, L []uint64, side int) (int, bool) {
	if w.s.game.score && !w.s.pool {
		v, ok := w.alphaBeta(g, L, side, -1<<10, 1<<10, 1)
		return 1 - v, ok
	}
	r := w.solveBool(g, L, side, 1)
	if r == resAbort {
		return 0, false
	}
	if w.s.game.score { // pool: the last to place gains one piece more
		if r == resLoss {
			return 1, true
		}
		return 0, true
	}
	return -r, true
}

// collect turns the solved root moves into a Result.
func (s *solver) collect(pos *Position, moves []*rootMove, diff int, opts Options, res Result) Result {
	score := s.game.score
	allProven := true
	best, bestProven := -1<<20, false
	for _, rm := range moves {
		if !rm.proven {
			allProven = false
			continue
		}
		if score {
			rm.value += diff
		}
		if rm.value > best {
			best, bestProven = rm.value, true
		}
	}
	// Proven: every move solved, or a move found that nothing beats (a
	// win under normal play).
	switch {
	case allProven:
		res.Proven, res.BestComplete = true, true
	case !score && bestProven && best > 0:
		res.Proven = true
	case score && !s.game.pool && bestProven && best == diff+len(pieceNames(s.game.set, pos.avail[pos.toMove&1])):
		res.Proven = true // nobody can do better than placing every piece
	case score && s.game.pool && bestProven && best == diff+1:
		// In a common pool the players place in turn until neither can:
		// placing last, one piece more, is the best there is (FirstWin
		// stops at such a move).
		res.Proven = true
	}
	// Best first: proven wins and better scores, proven draws, the moves
	// not proven, proven losses (least bad first). (The heuristic player's
	// move, when the position is not proven, goes first: below.)
	sort.SliceStable(moves, func(i, j int) bool {
		a, b := moves[i], moves[j]
		if ta, tb := MoveRank(a.proven, a.value), MoveRank(b.proven, b.value); ta != tb {
			return ta < tb
		}
		return a.proven && a.value > b.value
	})
	if res.Proven {
		res.Value = best
		res.Outcome = outcomeOf(best)
		for _, rm := range moves {
			if rm.proven && rm.value == best {
				res.BestMoves = append(res.BestMoves, rm.class...)
			}
		}
	} else {
		res.Outcome = OutcomeUnknown
		res.Heuristic = true
		var excluded []Move
		for _, rm := range moves {
			if rm.proven && (rm.value < 0 || score && rm.value < best) {
				excluded = append(excluded, rm.class...)
			}
		}
		if m, ok := heuristicMove(s.hctx, pos, excluded, s.root); ok {
			res.BestMoves = []Move{m}
		}
	}
	if opts.AllMoves {
		for _, rm := range moves {
			for _, m := range rm.class {
				mr := MoveResult{Move: m, Proven: rm.proven, Outcome: OutcomeUnknown}
				if rm.proven {
					mr.Value, mr.Outcome = rm.value, outcomeOf(rm.value)
				}
				res.Moves = append(res.Moves, mr)
			}
		}
		if !res.Proven && len(res.BestMoves) == 1 {
			heuristicFirst(res.Moves, res.BestMoves[0])
		}
	}
	return res
}

// heuristicFirst moves the heuristic player's move to the front of the
// list, so that moves[0] is best_moves[0] when the position is not proven.
func heuristicFirst(list []MoveResult, m Move) {
	for i, mr := range list {
		if mr.Move.String() == m.String() {
			copy(list[1:i+1], list[:i])
			list[0] = mr
			return
		}
	}
}

func outcomeOf(v int) Outcome {
	switch {
	case v > 0:
		return Win
	case v < 0:
		return Loss
	}
	return Draw
}

// preferFirst moves the root moves whose class holds one of prefer to the
// front, in prefer's order; the others keep theirs.
func preferFirst(moves []*rootMove, prefer []Move) {
	if len(prefer) == 0 {
		return
	}
	rank := map[string]int{}
	for i, m := range prefer {
		if _, ok := rank[m.String()]; !ok {
			rank[m.String()] = i
		}
	}
	// Each root move's rank, found once (not at every comparison).
	of := make(map[*rootMove]int, len(moves))
	for _, rm := range moves {
		best := len(prefer)
		for _, m := range rm.class {
			if r, ok := rank[m.String()]; ok && r < best {
				best = r
			}
		}
		of[rm] = best
	}
	sort.SliceStable(moves, func(i, j int) bool { return of[moves[i]] < of[moves[j]] })
}
