package service

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/gamesolver/gamesolver/engine/polyomino"
	"github.com/gamesolver/gamesolver/service/cache"
)

// The polyomino.analyze job kind: a unit per class of moves, combined
// into the parent's answer.

// PolyominoAnalyzeJob proves a position on the job system: one unit per
// symmetry class of its moves, each solving the position after that move
// (children proven elsewhere are shared through the cache), combined into
// the parent's value. Without all_moves the job ends as soon as a winning
// move is proven.
type PolyominoAnalyzeJob struct {
	Search      *Searcher
	MaxDuration time.Duration
	// Workers is the number of goroutines of one unit's search (0: every core).
	Workers int
}

// Name implements JobKind.
func (PolyominoAnalyzeJob) Name() string { return "polyomino.analyze" }

// UnitFormat is the format of the units and results of the polyomino.analyze jobs this
// version plans and reads (jobs.Versioned): raise it with any change an
// earlier worker would misread. 1: those of 2026-11-29.
func (PolyominoAnalyzeJob) UnitFormat() int { return 1 }

type polyUnit struct {
	Index int    `json:"index"`
	Move  string `json:"move"`
	// Query: the job's request, as units planned before 2026-11-28
	// carried it (each of them: 12,392 copies of a 60 KB request made a
	// 711 MB job); units now leave it out, and Run reads the job's.
	Query json.RawMessage `json:"query,omitempty"`
	// Answer: the position's finished answer, in its canonical frame, as
	// the planner's cache held it (unit cachedWhole).
	Answer json.RawMessage `json:"answer,omitempty"`
}

// cachedWhole is the index of the one unit of a polyomino.analyze job
// whose position the planner's cache answers whole (the same job again,
// or a position a request proved): the unit carries that answer, so that
// any worker gives it (its own cache may not hold it). An earlier worker
// refuses the unit (an index that is no class): the job fails, asking for
// a resubmit.
const cachedWhole = -3

// cachedAnswer is the finished answer the cache holds for a job's
// position, when it answers the whole job: proven, every best move (every
// move's value with allMoves) and, in normal play, the plies, which a
// job's Combine would look for. A cache that fails says nothing: the job
// is planned in full.
func (j PolyominoAnalyzeJob) cachedAnswer(ctx context.Context, pos *polyomino.Position, allMoves bool) (json.RawMessage, bool) {
	if j.Search == nil || j.Search.Loader == nil {
		return nil, false
	}
	raw, ok, err := j.Search.Loader.Cache().Get(cache.Uncounted(ctx), analyzeKey(pos, allMoves))
	if err != nil || !ok {
		return nil, false
	}
	a, valid := decodeFinal[PolyominoAnswer](raw)
	if !valid || !a.BestComplete || allMoves && (len(a.Moves) == 0 || provenMoves(a.Moves) < len(a.Moves)) ||
		a.Plies == nil && pos.Game().Config().EndRule == polyomino.NormalPlay || !consistentWith(a, pos) {
		return nil, false
	}
	return raw, true
}

// decodeQuery decodes a polyomino.analyze job's request (or unit's query)
// and builds its position.
func decodeQuery(raw json.RawMessage) (PolyominoQuery, *polyomino.Position, error) {
	var q PolyominoQuery
	if err := DecodeRequest(raw, &q); err != nil {
		return q, nil, err
	}
	pos, err := q.position()
	return q, pos, err
}

// Plan implements JobKind.
func (j PolyominoAnalyzeJob) Plan(ctx context.Context, request json.RawMessage) ([]json.RawMessage, error) {
	if q, ok := captureQuery(request); ok {
		// The capture variant is one unit: its search deepens a horizon
		// over the whole position (repetitions tie the turns together).
		if err := checkBudget(q.BudgetMs); err != nil {
			return nil, err
		}
		pos, err := q.requestCapturePosition(ctx)
		if err != nil {
			return nil, err
		}
		if err := checkAllTurns(pos, q.AllMoves); err != nil {
			return nil, err
		}
		if pos.Over() {
			// As for the other games: a job has nothing to prove.
			return nil, Invalid("board", nil, "the game is over (the player to move has no legal turn, or the position repeated): analyze answers it at once")
		}
		u, _ := json.Marshal(polyUnit{Index: captureUnit})
		return []json.RawMessage{u}, nil
	}
	var q PolyominoQuery
	if err := DecodeRequest(request, &q); err != nil {
		return nil, err
	}
	// Refused when planned only: a job stored before this check was made
	// (its units never read the budget) still runs. Checked before the
	// game is built.
	if err := checkBudget(q.BudgetMs); err != nil {
		return nil, err
	}
	// The game, when not built lately, is built as a request's (the
	// bounded queue, left when ctx ends), not in the workers' unbounded
	// one (a review found submissions past their client's rate building
	// 16 x 16 games that way).
	pos, err := q.requestPosition(ctx)
	if err != nil {
		return nil, err
	}
	if pos.Game().Config().Variant == polyomino.Capture {
		return nil, Invalid("game", polyomino.ErrUnsupported, "the capture variant is game \"capture\"")
	}
	children := pos.Children()
	if len(children) == 0 {
		return nil, Invalid("board", nil, "the game is over: the player to move has no legal move")
	}
	if beyondJobs(pos) {
		return nil, Invalid("request", nil, "%s", errBeyondJobs)
	}
	if bookKnows(pos, q.AllMoves) {
		// The opening book answers the whole position: one unit reads it.
		u, _ := json.Marshal(polyUnit{Index: bookWhole})
		return []json.RawMessage{u}, nil
	}
	if len(children) > 1 {
		// (One class: its unit is as cheap, and Combine tells a whole
		// answer by its one unit of many classes.)
		if raw, ok := j.cachedAnswer(ctx, pos, q.AllMoves); ok {
			u, _ := json.Marshal(polyUnit{Index: cachedWhole, Answer: raw})
			return []json.RawMessage{u}, nil
		}
	}
	// The units cache the children: a request's search of the position
	// takes their values (knownChildren), the job finished or not.
	j.Search.markChildren(ctx, pos)
	units := make([]json.RawMessage, len(children))
	for i, c := range children {
		move := ""
		if len(c.Moves) > 0 {
			move = c.Moves[0].String()
		}
		units[i], _ = json.Marshal(polyUnit{Index: i, Move: move})
	}
	return units, nil
}

// Run implements JobKind: it solves one child, through the shared cache.
func (j PolyominoAnalyzeJob) Run(ctx context.Context, request, unit json.RawMessage, report func(int64)) (json.RawMessage, error) {
	var u polyUnit
	if err := json.Unmarshal(unit, &u); err != nil {
		return nil, fmt.Errorf("unit: %w", err)
	}
	if len(u.Query) == 0 {
		u.Query = request // (a unit planned before 2026-11-28 carries it)
	}
	if u.Index == captureUnit {
		return j.runCapture(ctx, u.Query, report)
	}
	q, pos, err := decodeQuery(u.Query)
	if err != nil {
		return nil, err
	}
	if u.Index == bookWhole {
		a, ok := bookAnswer(pos, q.AllMoves, true)
		if !ok {
			return nil, fmt.Errorf("the opening book no longer answers %s", u.Query)
		}
		return json.Marshal(a)
	}
	if u.Index == cachedWhole {
		a, valid := decodeFinal[PolyominoAnswer](u.Answer)
		if !valid || !consistentWith(a, pos) {
			return nil, fmt.Errorf("the answer the unit carries does not fit its position in this version")
		}
		a = fromCanonical(a, pos)
		a.Source = SourceCache
		return json.Marshal(a)
	}
	children := pos.Children()
	if u.Index < 0 || u.Index >= len(children) || len(children[u.Index].Moves) > 0 && children[u.Index].Moves[0].String() != u.Move {
		// Planned by another version, whose classes differ.
		return nil, fmt.Errorf("unit %d (%s) is not a class of this position's moves in this version", u.Index, u.Move)
	}
	child := children[u.Index].Position
	if a, ok := bookAnswer(child, false, true); ok {
		return json.Marshal(a) // a child the book knows: no search
	}
	if q.AllMoves {
		if a, ok := keptBookMove(ctx, j.Search, pos, children[u.Index]); ok {
			// A request valued the move (bookMoves): no proof, but the
			// child's plies, which the request did not look for (an
			// end-to-end check: 147 moves a request had valued were the
			// job's moves without plies).
			res := polyomino.Result{Outcome: polyomino.Outcome(a.Outcome), Proven: true, Value: a.Value}
			lctx, cancel := context.WithTimeout(ctx, j.MaxDuration)
			defer cancel()
			tt := j.Search.tables.get(child.Game())
			defer j.Search.tables.put(tt)
			j.Search.withLength(lctx, &a, child, res, tt, lengthJobShare, max(j.lengthLeast(), keptLengthMin))
			report(a.Nodes)
			return json.Marshal(a)
		}
	}
	if !polyomino.Searchable(child) {
		// Beyond the search: unknown at once (its heuristic move would
		// not serve the job).
		return json.Marshal(PolyominoAnswer{Outcome: string(polyomino.OutcomeUnknown)})
	}
	key := cacheKey("polyomino", "all=false", polyomino.CanonicalKey(child))
	raw, _, err := j.Search.Loader.LoadChecked(ctx, key, key, j.Search.validFor(j.MaxDuration), func(ctx context.Context) ([]byte, bool, error) {
		ctx, cancel := context.WithTimeout(ctx, j.MaxDuration)
		defer cancel()
		tt := j.Search.tables.get(child.Game())
		defer j.Search.tables.put(tt)
		// The parent needs the child's value only: a won child's search
		// stops at its first winning move (4 to 5 times faster over the
		// children of a 3-ply position: BENCHMARKS.md "Jobs").
		res, err := polyomino.Solve(ctx, child, polyomino.Options{FirstWin: true, Progress: report, Workers: j.Workers, Table: tt})
		if err != nil {
			return nil, false, err
		}
		if ctx.Err() != nil && !res.Proven {
			return nil, false, ctx.Err()
		}
		a := answerOf(res, child.Frame().ToCanonical)
		// The answer is cached for synchronous requests too: with their
		// plies.
		j.Search.withLength(ctx, &a, child, res, tt, lengthJobShare, j.lengthLeast())
		report(a.Nodes)
		j.Search.observeNodes("polyomino", a.Nodes)
		b, err := json.Marshal(a)
		if err == nil {
			a.keep(ctx, j.Search, key) // for synchronous requests, which may complete it
		}
		return b, res.Proven && res.BestComplete, err
	})
	if err != nil {
		return nil, err
	}
	return raw, nil
}

// keptLengthMin is the least time of the length search of a unit whose
// value a request found (keptBookMove): the proof it skipped would have
// taken longer (a child of a 3-ply position: about 0.1 s for its plies).
const keptLengthMin = 250 * time.Millisecond

// lengthLeast is the least time of a unit's length search: a first-win
// proof can take microseconds, its length search much longer (with a
// quarter of the proof's time only, 1 unit in 10 found its plies:
// BENCHMARKS.md "Jobs").
func (j PolyominoAnalyzeJob) lengthLeast() time.Duration {
	if j.Search.MinLengthTime > 0 {
		return j.Search.MinLengthTime
	}
	return lengthJobMin
}

// combinePlies gives a job's answer the plies its units found: each
// move's are its child's; the position's are one more than its fastest
// winning child's (every child proven, every winning child's plies
// known) or, lost, its slowest child's (every child known). Moves are
// then in perfect play's order.
func combinePlies(a *PolyominoAnswer, res polyomino.Result, children []polyomino.Child, rs []polyomino.Result, plies []*int, all bool) {
	childOf := map[string]int{}
	for i, c := range children {
		for _, m := range c.Moves {
			childOf[m.String()] = i
		}
	}
	for i := range a.Moves {
		if c, ok := childOf[a.Moves[i].Move]; ok && rs[c].Proven {
			a.Moves[i].Plies = plies[c]
		}
	}
	if a.Moves == nil && res.Proven && (res.Outcome == polyomino.Win || res.Outcome == polyomino.Loss) {
		// Without all_moves: the winning moves the fastest first, or
		// (lost: every move) the slowest first (see fastestFirst).
		key := func(m string) int {
			var p *int
			if c, ok := childOf[m]; ok {
				p = plies[c]
			}
			return lengthKey(res.Outcome == polyomino.Win, p, nil)
		}
		sort.SliceStable(a.BestMoves, func(x, y int) bool { return key(a.BestMoves[x]) < key(a.BestMoves[y]) })
	}
	if !res.Proven || !all || pos0(children) {
		fastestFirst(a)
		return
	}
	best := -1
	for i, r := range rs {
		if !r.Proven {
			// A child beyond the search (polyomino.Searchable) may be
			// a faster win: the position's plies are unknown.
			fastestFirst(a)
			return
		}
		childLost := r.Outcome == polyomino.Loss // the move wins
		if res.Outcome == polyomino.Win && !childLost {
			continue
		}
		if plies[i] == nil {
			fastestFirst(a)
			return
		}
		switch n := *plies[i]; {
		case best < 0, res.Outcome == polyomino.Win && n < best, res.Outcome == polyomino.Loss && n > best:
			best = n
		}
	}
	if best >= 0 {
		n := best + 1
		a.Plies = &n
		a.PerfectFirst = true // every winning (lost: every) child's plies known
	}
	fastestFirst(a)
}

// pos0 reports a position split into no child with a move (the player to
// move passes, or nothing is left): its plies are not a child's plus one.
func pos0(children []polyomino.Child) bool {
	return len(children) == 0 || len(children[0].Moves) == 0
}

// unitValue is what Combine reads of a unit's answer (a PolyominoAnswer).
type unitValue struct {
	Outcome   string `json:"outcome"`
	Proven    bool   `json:"proven"`
	Value     int    `json:"value"`
	Over      bool   `json:"over"`
	Plies     *int   `json:"plies"`
	Nodes     int64  `json:"nodes"`
	ElapsedNs int64  `json:"elapsed_ns"`
}

// combineCache keeps, for the last few jobs Combine saw (by request), the
// position's children and the values read from its units' answers (by
// the answer's bytes: two jobs of one request may have different
// answers): Combine runs after every unit of a job, with every result so
// far. The zero value is ready; the Searcher holds one (Searcher.combine).
type combineCache struct {
	mu      sync.Mutex
	entries map[string]*combineEntry
	order   []string // oldest first
}

type combineEntry struct {
	children []polyomino.Child
	values   map[string]unitValue
}

// entry returns the request's entry, with pos.Children() computed once
// while the request is among the last 8.
func (c *combineCache) entry(request json.RawMessage, pos *polyomino.Position) *combineEntry {
	key := string(request)
	c.mu.Lock()
	e, ok := c.entries[key]
	c.mu.Unlock()
	if ok {
		return e
	}
	e = &combineEntry{children: pos.Children(), values: map[string]unitValue{}}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.entries[key]; ok {
		return old
	}
	if len(c.order) == 8 {
		delete(c.entries, c.order[0])
		c.order = c.order[1:]
	}
	if c.entries == nil {
		c.entries = map[string]*combineEntry{}
	}
	c.entries[key] = e
	c.order = append(c.order, key)
	return e
}

// value is the unitValue of a unit's answer raw, decoded once.
func (c *combineCache) value(e *combineEntry, raw json.RawMessage) (unitValue, error) {
	c.mu.Lock()
	v, ok := e.values[string(raw)]
	c.mu.Unlock()
	if ok {
		return v, nil
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return v, err
	}
	c.mu.Lock()
	if len(e.values) < 4096 { // a job's units (a few MB at most)
		e.values[string(raw)] = v
	}
	c.mu.Unlock()
	return v, nil
}

// Combine implements JobKind.
func (j PolyominoAnalyzeJob) Combine(ctx context.Context, request json.RawMessage, total int, results map[int]json.RawMessage) (json.RawMessage, bool, error) {
	if _, ok := captureQuery(request); ok {
		raw, ok := results[0]
		return raw, ok, nil
	}
	q, pos, err := decodeQuery(request)
	if err != nil {
		return nil, false, err
	}
	if raw, ok := results[0]; ok && total == 1 && bookKnows(pos, q.AllMoves) {
		return raw, true, nil // the book's answer, whole
	}
	combine := &combineCache{} // remembers nothing
	if j.Search != nil {
		combine = &j.Search.combine
	}
	if raw, ok := results[0]; ok && total == 1 && len(combine.entry(request, pos).children) > 1 {
		return raw, true, nil // the cache's answer, whole (cachedWhole)
	}
	// Called after every unit with every result so far: what is not
	// needed to tell whether the job is done waits until it is (each call
	// decoded every answer whole and listed the children: a job of 524
	// units spent 61 % of its time here).
	if q.AllMoves && len(results) < total {
		return nil, false, nil // every move's value is asked for
	}
	entry := combine.entry(request, pos)
	children := entry.children
	rs := make([]polyomino.Result, len(children))
	plies := make([]*int, len(children)) // each child's, where its unit found them
	var nodes, elapsed int64
	for i, raw := range results {
		a, err := combine.value(entry, raw)
		if err != nil {
			return nil, false, err
		}
		rs[i] = polyomino.Result{Outcome: polyomino.Outcome(a.Outcome), Proven: a.Proven, Value: a.Value, Over: a.Over}
		plies[i] = a.Plies
		nodes += a.Nodes
		elapsed += a.ElapsedNs
	}
	res, err := polyomino.Combine(pos, children, rs)
	if err != nil {
		return nil, false, err
	}
	done := len(results) == total || (res.Proven && res.Value > 0 && !q.AllMoves)
	if !done {
		return nil, false, nil
	}
	res.Nodes = nodes
	res.Elapsed = time.Duration(elapsed) // the units' search time, summed
	if !q.AllMoves {
		res.Moves = nil
	}
	// The children's moves are already the position's own: no frame.
	a := withPosition(answerOf(res, func(m polyomino.Move) polyomino.Move { return m }), pos)
	a.Source = SourceSearch
	combinePlies(&a, res, children, rs, plies, len(results) == total)
	normal := pos.Game().Config().EndRule == polyomino.NormalPlay
	var known polyomino.Result // the book's value of pos, when it knows it
	inBook := false
	if normal && j.Search != nil {
		known, inBook = bookResult(pos, false, true)
	}
	if q.AllMoves && inBook && (!res.Proven || known.Outcome == res.Outcome) {
		// The moves of a book position the job valued, for the requests
		// (bookMoves), which then need no search of them; when some are
		// left unknown (children beyond the search, polyomino.Searchable),
		// with the units' limit as the time tried: a request's search
		// would not value them either.
		kept := res
		kept.Outcome, kept.Proven, kept.Value = known.Outcome, true, known.Value // the book's, which a job that left moves unknown may not know
		var tried int64
		if !allValued(kept) {
			tried = int64(j.MaxDuration)
		}
		keepBookMoves(ctx, j.Search, pos, kept, tried)
	}
	if res.Proven && !pos0(children) && normal {
		a = withBookLengths(a, res, pos)
		if a.Plies == nil {
			j.finalLength(ctx, &a, pos, res)
		}
		if inBook && known.Outcome == res.Outcome && ctx.Err() == nil {
			// The requests of a book position answer from the book, with
			// the lengths of this entry (fromBook), not the job's.
			keepBookLengths(ctx, j.Search, pos, a, q.AllMoves)
		}
	}
	if a.Proven && ctx.Err() == nil && j.Search != nil && a.final() {
		// For the requests, here and in every process sharing the
		// cache: a position proven by a job answers them at once.
		j.cacheAnswer(ctx, analyzeKey(pos, q.AllMoves), canonicalAnswer(a, pos))
	}
	b, err := json.Marshal(a)
	return b, true, err
}

// cacheAnswer stores c, a finished job's answer in the canonical frame,
// under key for the requests, unless the cache holds an answer that knows
// as much (rank: a longer request's all_moves answer with more plies, say).
// An answer stopped at its first win is kept without a time of its own:
// the units' summed time would make completeNeed refuse a request the
// completion of its best moves.
func (j PolyominoAnalyzeJob) cacheAnswer(ctx context.Context, key string, c PolyominoAnswer) {
	raw, ok, err := j.Search.Loader.Cache().Get(cache.Fresh(cache.Uncounted(context.WithoutCancel(ctx))), key)
	if err != nil {
		return // what the cache holds is unknown: it may know more
	}
	if ok {
		if old, valid := decodeFinal[PolyominoAnswer](raw); valid && old.Outcome == c.Outcome && slices.Compare(old.rank(), c.rank()) >= 0 {
			return
		}
	}
	if c.partial() {
		c.ElapsedNs = 0
	}
	storeOver(ctx, j.Search, key, c, raw, ok)
}

// canonicalAnswer is a, an answer of pos, as the cache keeps it: its
// moves in pos's canonical frame, without what belongs to the position or
// the request (fromCanonical and toPosition add them back).
func canonicalAnswer(a PolyominoAnswer, pos *polyomino.Position) PolyominoAnswer {
	c := PolyominoAnswer{
		Outcome: a.Outcome, Proven: a.Proven, Value: a.Value, BestComplete: a.BestComplete,
		Plies: a.Plies, LengthTriedNs: a.LengthTriedNs, PerfectFirst: a.PerfectFirst, BestTriedNs: a.BestTriedNs,
		Heuristic: a.Heuristic, LegalMoves: a.LegalMoves, Over: a.Over, Pass: a.Pass,
		Nodes: a.Nodes, ElapsedNs: a.ElapsedNs, BestMoves: a.BestMoves, Moves: a.Moves,
	}
	return mapMoves(c, pos.Frame().ToCanonical)
}

// finalLengthMax bounds the length search of a finished job's position
// (finalLength; and the job's unit limit does). It runs in Combine, after
// the unit's run: its slot is held, an express slot's too (beyond its
// limit), and every unit finishing before the job ends runs one (a job
// stopped at a first win; a cancel, the job's end or a shutdown stops it
// at the unit's next heartbeat). Hence a few seconds at most; the search
// ends when it has the plies, and a position's fastest win, the common
// case, is found in well under that. (A quarter
// of the units' time, at least 250 ms, was too little for a job that
// stopped at its first win after a second: the 8 x 8 position three plies
// in, a win in 7 found by a request in about a second, got no plies.)
const finalLengthMax = 3 * time.Second

// finalLength gives a finished job's proven answer the plies of its
// position, which its units' length searches did not give (each winning
// move's own plies were needed: a lost position's slowest loss each, where
// the position's fastest win is often far cheaper to find, as a request's
// length search finds it), with a move perfect play chooses first among
// the best moves (bestFirst) and, with all moves, that move's plies. Its
// nodes and time count in the answer's.
func (j PolyominoAnalyzeJob) finalLength(ctx context.Context, a *PolyominoAnswer, pos *polyomino.Position, res polyomino.Result) {
	d := finalLengthMax
	if j.MaxDuration > 0 {
		d = min(d, j.MaxDuration)
	}
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	start := time.Now()
	defer func() { a.ElapsedNs += int64(time.Since(start)) }()
	lengths := polyomino.NewLengths(ctx, pos, polyomino.LengthOptions{MaxNodes: lengthMaxNodes})
	if lengths == nil {
		return
	}
	defer lengths.Close()
	l := lengths.Length(res.Outcome)
	a.Nodes += l.Nodes
	if !l.Proven {
		return
	}
	n := l.Plies
	a.Plies = &n
	best := ""
	if f := l.Fastest; f != nil {
		if slices.Contains(a.BestMoves, f.String()) {
			best = f.String()
			withFirst(a, PolyominoAnswer{PerfectFirst: true, BestMoves: []string{best}})
		} else if !a.BestComplete {
			// A job stopped at its first win lists the wins found by
			// then: the fastest joins them, first.
			best = f.String()
			withFastest(a, best)
		}
	}
	if best == "" {
		// bestFirst reads a's best moves and res's in the same order:
		// a's, which combinePlies sorted by the units' plies.
		ordered := res
		ordered.BestMoves = make([]polyomino.Move, 0, len(a.BestMoves))
		for _, s := range a.BestMoves {
			if m, err := polyomino.ParseMove(s); err == nil {
				ordered.BestMoves = append(ordered.BestMoves, m)
			}
		}
		best = bestFirst(a, lengths, ordered)
	}
	for i := range a.Moves {
		if a.Moves[i].Move == best && a.Moves[i].Plies == nil {
			m := n - 1
			a.Moves[i].Plies = &m
		}
	}
	fastestFirst(a)
}
