package service

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/gamesolver/gamesolver/engine/capture"
	"github.com/gamesolver/gamesolver/engine/polyomino"
	"github.com/gamesolver/gamesolver/service/cache"
)

// pliesService is a service of one worker, a memory cache and budgets of a
// minute, whose length searches may take a minute.
func pliesService(slots *Slots) (*Polyomino, *cache.Memory) {
	c := cache.NewMemory(1<<22, time.Minute)
	s := &Searcher{Loader: cache.NewLoader(c, time.Minute), Slots: slots, Budgets: Budgets{Default: time.Minute, Max: time.Minute},
		Workers: 1, MinLengthTime: time.Minute}
	return NewPolyomino(s), c
}

// TestCachedAnswerGetsItsPlies: a proven answer cached without plies (its
// search ran out of its length share, or a job's unit stored it) is
// completed by the next request when a solver slot is free, and stored
// completed; with every slot busy it is served as cached.
func TestCachedAnswerGetsItsPlies(t *testing.T) {
	ctx := context.Background()
	slots := NewSlots(1, 4, time.Second, nil)
	p, c := pliesService(slots)
	five := 5
	q := PolyominoQuery{Game: "pentominoes", Width: &five, Height: &five, AllMoves: true}
	first, err := p.Analyze(ctx, q)
	if err != nil || first.Plies == nil || first.Source != SourceSearch {
		t.Fatalf("first answer: %v, plies %v, from %s", err, first.Plies, first.Source)
	}
	pos, err := q.position()
	if err != nil {
		t.Fatal(err)
	}
	key := cacheKey("polyomino", "all=true", polyomino.CanonicalKey(pos))
	strip := func(tried time.Duration) {
		raw, ok, err := c.Get(ctx, key)
		if err != nil || !ok {
			t.Fatalf("not cached: %v", err)
		}
		var canon PolyominoAnswer
		if err := json.Unmarshal(raw, &canon); err != nil {
			t.Fatal(err)
		}
		canon.Plies, canon.LengthTriedNs = nil, int64(tried)
		for i := range canon.Moves {
			canon.Moves[i].Plies = nil
		}
		b, _ := json.Marshal(canon)
		if err := c.Set(ctx, key, b, time.Minute); err != nil {
			t.Fatal(err)
		}
	}

	// Every slot busy: the answer as cached.
	strip(0)
	release, ok := slots.TryAcquire()
	if !ok {
		t.Fatal("no slot free")
	}
	busy, err := p.Analyze(ctx, q)
	release()
	if err != nil || busy.Source != SourceCache || busy.Plies != nil {
		t.Fatalf("with the slots busy: %v, from %s, plies %v", err, busy.Source, busy.Plies)
	}

	// A length search as long as this request's has failed before: not
	// tried again.
	strip(time.Hour)
	tried, err := p.Analyze(ctx, q)
	if err != nil || tried.Source != SourceCache || tried.Plies != nil {
		t.Fatalf("after a longer failed try: %v, from %s, plies %v", err, tried.Source, tried.Plies)
	}

	// A slot free: completed, and stored so.
	strip(0)
	second, err := p.Analyze(ctx, q)
	if err != nil || second.Source != SourceCache || second.Plies == nil || *second.Plies != *first.Plies {
		t.Fatalf("second answer: %v, from %s, plies %v (first %d)", err, second.Source, second.Plies, *first.Plies)
	}
	plies := map[string]int{}
	for _, m := range first.Moves {
		plies[m.Move] = *m.Plies
	}
	for _, m := range second.Moves {
		if m.Plies == nil || *m.Plies != plies[m.Move] {
			t.Fatalf("move %s: plies %v, first %d", m.Move, m.Plies, plies[m.Move])
		}
	}
	if second.Moves[0].Move != first.Moves[0].Move || second.BestMoves[0] != first.BestMoves[0] {
		t.Errorf("order: %s / %s, first %s / %s", second.Moves[0].Move, second.BestMoves[0], first.Moves[0].Move, first.BestMoves[0])
	}
	raw, _, _ := c.Get(ctx, key)
	var stored PolyominoAnswer
	if err := json.Unmarshal(raw, &stored); err != nil || stored.Plies == nil {
		t.Fatalf("stored without plies: %v", err)
	}
}

// TestCachedAllMovesPliesGrow: an all_moves answer cached with some
// moves' plies missing (its length search had no time for them) is
// completed by the next request with a solver slot free; the plies it
// knew are kept, not searched again (a move given a wrong number keeps
// it, and lends it to its symmetry class), and the others are found.
func TestCachedAllMovesPliesGrow(t *testing.T) {
	ctx := context.Background()
	p, c := pliesService(NewSlots(1, 4, time.Second, nil))
	five := 5
	q := PolyominoQuery{Game: "pentominoes", Width: &five, Height: &five, AllMoves: true}
	first, err := p.Analyze(ctx, q)
	if err != nil || first.Plies == nil || !first.PerfectFirst {
		t.Fatalf("first answer: %v, plies %v, perfect first %v", err, first.Plies, first.PerfectFirst)
	}
	pos, err := q.position()
	if err != nil {
		t.Fatal(err)
	}
	key := cacheKey("polyomino", "all=true", polyomino.CanonicalKey(pos))
	raw, _, _ := c.Get(ctx, key)
	var canon PolyominoAnswer
	if err := json.Unmarshal(raw, &canon); err != nil {
		t.Fatal(err)
	}
	// Every move's plies gone but the first's, made wrong (of the right
	// parity: an entry whose plies do not fit its outcomes is refused).
	wrong := 99
	if canon.Moves[0].Outcome == string(polyomino.Win) {
		wrong = 98
	}
	for i := range canon.Moves {
		canon.Moves[i].Plies = nil
	}
	w := wrong
	canon.Moves[0].Plies = &w
	b, _ := json.Marshal(canon)
	if err := c.Set(ctx, key, b, time.Minute); err != nil {
		t.Fatal(err)
	}
	// A request too short to find any: its try is kept (a request as
	// short does not repeat it: TestCachedAnswerGetsItsPlies).
	tiny := q
	tiny.BudgetMs = 1
	if _, err := p.Analyze(ctx, tiny); err != nil {
		t.Fatal(err)
	}
	raw, _, _ = c.Get(ctx, key)
	var short PolyominoAnswer
	if err := json.Unmarshal(raw, &short); err != nil || short.LengthTriedNs == 0 || movesWithPlies(short) != 1 {
		t.Fatalf("a 1 ms request: %v, tried %d ns, %d moves with plies", err, short.LengthTriedNs, movesWithPlies(short))
	}
	second, err := p.Analyze(ctx, q)
	if err != nil || second.Source != SourceCache || second.SpentNodes == 0 {
		t.Fatalf("second answer: %v, from %s, %d nodes searched", err, second.Source, second.SpentNodes)
	}
	var kept string
	for _, m := range second.Moves {
		if m.Plies != nil && *m.Plies == wrong {
			kept = m.Move
		}
	}
	classOf := map[string]int{}
	for c, ms := range pos.SymmetryClasses() {
		for _, m := range ms {
			classOf[m.String()] = c
		}
	}
	if kept == "" {
		t.Fatal("the plies known were searched again")
	}
	plies := map[string]int{}
	for _, m := range first.Moves {
		plies[m.Move] = *m.Plies
	}
	for _, m := range second.Moves {
		want := plies[m.Move]
		if classOf[m.Move] == classOf[kept] {
			want = wrong
		}
		if m.Plies == nil || *m.Plies != want {
			t.Fatalf("move %s: plies %v, want %d", m.Move, m.Plies, want)
		}
	}
	raw, _, _ = c.Get(ctx, key)
	var stored PolyominoAnswer
	if err := json.Unmarshal(raw, &stored); err != nil || !lengthComplete(stored, true) {
		t.Fatalf("stored incomplete: %v", err)
	}
}

// TestCaptureCachedWithoutPlies: a capture answer cached without plies
// serves requests of a budget up to twice as long as the search that made
// it; a longer one completes it with a length search alone (the cached
// proof kept), and the answer, with plies, replaces the cached one.
func TestCaptureCachedWithoutPlies(t *testing.T) {
	ctx := context.Background()
	p, c := pliesService(NewSlots(1, 4, time.Second, nil))
	five := 5
	tetrominoes := PieceNames("tetrominoes")
	q := PolyominoQuery{Game: "capture", Width: &five, Height: &five, Pieces: &tetrominoes}
	first, err := p.Analyze(ctx, q)
	if err != nil || !first.Proven || first.Plies == nil || first.Source != SourceSearch {
		t.Fatalf("first answer: %v, %+v", err, first)
	}
	pos, err := q.capturePosition()
	if err != nil {
		t.Fatal(err)
	}
	key := captureCacheKey(pos, false)
	raw, ok, err := c.Get(ctx, key)
	if err != nil || !ok {
		t.Fatalf("not cached: %v", err)
	}
	var cached PolyominoAnswer
	if err := json.Unmarshal(raw, &cached); err != nil {
		t.Fatal(err)
	}
	// Marks of the cached proof: its legal moves (kept by a completion),
	// its nodes (not this request's work).
	const mark = 1 << 40
	cached.Plies, cached.LengthTriedNs, cached.Nodes, cached.LegalMoves = nil, int64(time.Second), mark, cached.LegalMoves+1000
	b, _ := json.Marshal(cached)
	if err := c.Set(ctx, key, b, time.Minute); err != nil {
		t.Fatal(err)
	}
	q.BudgetMs = 2000
	served, err := p.Analyze(ctx, q)
	if err != nil || served.Source != SourceCache || served.Plies != nil {
		t.Fatalf("a budget twice as long: %v, from %s, plies %v", err, served.Source, served.Plies)
	}
	// The service's longest budget: the length search alone takes well
	// under a second here, but under the race detector on a loaded
	// machine it ran out of 10 s.
	q.BudgetMs = time.Minute.Milliseconds()
	again, err := p.Analyze(ctx, q)
	if err != nil || again.Source != SourceSearch || again.Plies == nil || *again.Plies != *first.Plies {
		t.Fatalf("a longer budget: %v, from %s, plies %v (want %d)", err, again.Source, again.Plies, *first.Plies)
	}
	if again.LegalMoves != cached.LegalMoves || !slices.Equal(again.BestMoves, first.BestMoves) || !again.PerfectFirst {
		t.Fatalf("a longer budget: %d legal moves, best %v (perfect first %v), want the cached proof's %d, best %v",
			again.LegalMoves, again.BestMoves, again.PerfectFirst, cached.LegalMoves, first.BestMoves)
	}
	if again.Nodes == 0 || again.Nodes >= mark {
		t.Fatalf("a longer budget: %d nodes, want the length search's own", again.Nodes)
	}
	q.BudgetMs = 0
	if last, err := p.Analyze(ctx, q); err != nil || last.Source != SourceCache || last.Plies == nil {
		t.Fatalf("then from the cache: %v, from %s, plies %v", err, last.Source, last.Plies)
	}
}

// TestCapturePliesMissing: which capture answers lack plies, and which
// budgets a cached one serves.
func TestCapturePliesMissing(t *testing.T) {
	three := 3
	for _, c := range []struct {
		name    string
		a       PolyominoAnswer
		missing bool
	}{
		{"won with plies", PolyominoAnswer{Capture: true, Proven: true, Outcome: "win", Plies: &three}, false},
		{"won without", PolyominoAnswer{Capture: true, Proven: true, Outcome: "win"}, true},
		{"lost without", PolyominoAnswer{Capture: true, Proven: true, Outcome: "loss"}, true},
		{"drawn", PolyominoAnswer{Capture: true, Proven: true, Outcome: "draw"}, false},
		{"not proven", PolyominoAnswer{Capture: true, Outcome: "unknown"}, false},
		{"not capture", PolyominoAnswer{Proven: true, Outcome: "win"}, false},
		{"a won move without", PolyominoAnswer{Capture: true, Proven: true, Outcome: "win", Plies: &three,
			Moves: []PolyominoMove{{Move: "a", Outcome: "win", Proven: true, Plies: new(int)}, {Move: "b", Outcome: "loss", Proven: true}}}, true},
		{"drawn, a lost move without", PolyominoAnswer{Capture: true, Proven: true, Outcome: "draw",
			Moves: []PolyominoMove{{Move: "a", Outcome: "draw", Proven: true}, {Move: "b", Outcome: "loss", Proven: true}}}, true},
		{"drawn, every won or lost move with", PolyominoAnswer{Capture: true, Proven: true, Outcome: "draw",
			Moves: []PolyominoMove{{Move: "a", Outcome: "draw", Proven: true}, {Move: "b", Outcome: "loss", Proven: true, Plies: &three}}}, false},
		{"a drawn or unproven move without", PolyominoAnswer{Capture: true, Proven: true, Outcome: "win", Plies: &three,
			Moves: []PolyominoMove{{Move: "a", Outcome: "draw", Proven: true}, {Move: "b", Outcome: "unknown"}}}, false},
	} {
		if got := c.a.capturePliesMissing(); got != c.missing {
			t.Errorf("%s: missing %v, want %v", c.name, got, c.missing)
		}
		c.a.LengthTriedNs = int64(time.Second)
		if got, want := c.a.serves(3*time.Second), !c.missing; got != want {
			t.Errorf("%s: serves a budget three times as long %v, want %v", c.name, got, want)
		}
		if !c.a.serves(2 * time.Second) {
			t.Errorf("%s: does not serve a budget twice as long", c.name)
		}
	}
}

// TestCaptureLengthTried: what a capture answer without plies records for
// the cache (serves): the search's budget when the budget cut the length
// search short, every budget when more time would not help (the length
// search's share of the proof's time ran out), the time spent when the
// search was stopped (another flight's answer settled it).
func TestCaptureLengthTried(t *testing.T) {
	five, four := 5, 4
	tetrominoes := PieceNames("tetrominoes")
	q := PolyominoQuery{Game: "capture", Width: &five, Height: &four, Pieces: &tetrominoes}
	pos, err := q.capturePosition()
	if err != nil {
		t.Fatal(err)
	}
	opts := capture.Options{Table: capture.NewTable(pos.Game(), 1)}
	res, err := capture.Solve(t.Context(), pos, opts)
	if err != nil || !res.Proven || res.Outcome != capture.Win {
		t.Fatalf("not proven: %v %+v", err, res)
	}
	run := func(ctx context.Context, share float64, least time.Duration) PolyominoAnswer {
		a := PolyominoAnswer{Capture: true, Proven: true, Outcome: string(res.Outcome)}
		withCaptureLength(ctx, &a, pos, res, capture.Options{Table: capture.NewTable(pos.Game(), 1)}, share, least, 7*time.Second, time.Now())
		return a
	}
	// No time left in the budget.
	ctx, cancel := context.WithTimeout(t.Context(), time.Millisecond)
	<-ctx.Done()
	if a := run(ctx, lengthShare, lengthMin); a.Plies != nil || a.LengthTriedNs != int64(7*time.Second) || a.serves(15*time.Second) || !a.serves(14*time.Second) {
		t.Errorf("budget spent: plies %v, tried %v", a.Plies, time.Duration(a.LengthTriedNs))
	}
	cancel()
	// A share of a nanosecond within a long budget.
	ctx, cancel = context.WithTimeout(t.Context(), time.Minute)
	if a := run(ctx, 0, time.Nanosecond); a.Plies != nil || !a.serves(time.Hour) {
		t.Errorf("share spent: plies %v, tried %v", a.Plies, time.Duration(a.LengthTriedNs))
	}
	// The search stopped (canceled) before the length search.
	cancel()
	if a := run(ctx, lengthShare, lengthMin); a.Plies != nil || a.LengthTriedNs > int64(time.Second) || a.serves(7*time.Second) {
		t.Errorf("stopped: plies %v, tried %v", a.Plies, time.Duration(a.LengthTriedNs))
	}
	// Enough time: plies, nothing recorded.
	if a := run(t.Context(), lengthShare, time.Minute); a.Plies == nil || a.LengthTriedNs != 0 {
		t.Errorf("with time: plies %v, tried %v", a.Plies, time.Duration(a.LengthTriedNs))
	}
}

// TestSearchKnowingLessKeepsCached: a cached answer that does not serve a
// request's budget is searched again, and the new answer replaces it only
// when it knows as much (rank): a search cut short under load that knows
// less leaves the request the cached answer.
func TestSearchKnowingLessKeepsCached(t *testing.T) {
	ctx := context.Background()
	seven := 7
	plies := func(n int) *int { return &n }
	// cached: a capture answer, every best move and each move's value
	// known, no plies, after a length search of a second.
	cached := PolyominoAnswer{Capture: true, Proven: true, Outcome: "win", BestComplete: true,
		BestMoves: []string{"a", "b"}, LengthTriedNs: int64(time.Second),
		Moves: []PolyominoMove{{Move: "a", Outcome: "loss", Proven: true}, {Move: "b", Outcome: "loss", Proven: true}, {Move: "c", Outcome: "win", Proven: true}}}
	partial := cached
	partial.BestComplete, partial.BestTriedNs, partial.Moves = false, int64(time.Second), nil
	// timed: the position's plies and two moves' known, not the third's.
	timed := cached
	timed.Plies = plies(seven)
	timed.Moves = slices.Clone(cached.Moves)
	timed.Moves[0].Plies, timed.Moves[1].Plies = plies(6), plies(6)
	cases := []struct {
		name     string
		cached   PolyominoAnswer
		searched PolyominoAnswer
		want     string // the answer's source
	}{
		{"search unproven", cached, PolyominoAnswer{Capture: true, Outcome: "unknown", Heuristic: true, BestMoves: []string{"a"}}, SourceCache},
		{"fewer moves valued", cached, func() PolyominoAnswer {
			a := cached
			a.Moves = slices.Clone(cached.Moves)
			a.Moves[2].Proven, a.Moves[2].Outcome = false, "unknown"
			return a
		}(), SourceCache},
		{"best moves incomplete", cached, func() PolyominoAnswer {
			a := cached
			a.BestComplete = false
			return a
		}(), SourceCache},
		{"plies lost", timed, func() PolyominoAnswer {
			a := timed
			a.Plies = nil
			return a
		}(), SourceCache},
		{"fewer moves with plies", timed, func() PolyominoAnswer {
			a := timed
			a.Moves = slices.Clone(timed.Moves)
			a.Moves[0].Plies = nil
			return a
		}(), SourceCache},
		{"more moves with plies", timed, func() PolyominoAnswer {
			a := timed
			a.Moves = slices.Clone(timed.Moves)
			a.Moves[2].Plies = plies(4)
			return a
		}(), SourceSearch},
		{"same knowledge", cached, cached, SourceSearch},
		{"plies found", cached, func() PolyominoAnswer {
			a := cached
			a.Plies, a.LengthTriedNs = plies(seven), 0
			return a
		}(), SourceSearch},
		{"partial, fewer best moves", partial, func() PolyominoAnswer {
			a := partial
			a.BestMoves = []string{"a"}
			return a
		}(), SourceCache},
		{"partial completed", partial, func() PolyominoAnswer {
			a := partial
			a.BestComplete, a.BestTriedNs = true, 0
			return a
		}(), SourceSearch},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, mem := pliesService(NewSlots(1, 4, time.Second, nil))
			key := "test|" + c.name
			b, _ := json.Marshal(c.cached)
			if err := mem.Set(ctx, key, b, time.Minute); err != nil {
				t.Fatal(err)
			}
			budget := 10 * time.Second // more than twice the second the cached one tried
			if c.cached.serves(budget) {
				t.Fatal("the cached answer serves the budget: nothing searched")
			}
			searched := false
			got, source, err := runCached(ctx, p.search, "capture", key, budget, nil, func(context.Context) (PolyominoAnswer, int64, bool, error) {
				searched = true
				return c.searched, 1, c.searched.final(), nil
			})
			if err != nil || !searched {
				t.Fatalf("error %v, searched %v", err, searched)
			}
			if source != c.want {
				t.Fatalf("answer from %s, want %s (rank cached %v, searched %v)", source, c.want, c.cached.rank(), c.searched.rank())
			}
			want := c.searched
			if c.want == SourceCache {
				want = c.cached
			}
			if g, w := got.rank(), want.rank(); !slices.Equal(g, w) {
				t.Fatalf("answer ranks %v, want %v", g, w)
			}
			// The cache keeps the answer that knows more.
			raw, ok, err := mem.Get(ctx, key)
			var kept PolyominoAnswer
			if err != nil || !ok || json.Unmarshal(raw, &kept) != nil {
				t.Fatalf("cache: %v, %v", ok, err)
			}
			if c.want == SourceCache && !slices.Equal(kept.rank(), c.cached.rank()) {
				t.Fatalf("cache ranks %v, want the cached answer's %v", kept.rank(), c.cached.rank())
			}
		})
	}
}

// BenchmarkCaptureCompletePlies: a capture answer cached without plies,
// completed by a longer budget: a length search alone (complete) against
// the proof and length search a new request would make (solve). The 5 x 5
// tetromino board, empty: a win.
func BenchmarkCaptureCompletePlies(b *testing.B) {
	five := 5
	tetrominoes := PieceNames("tetrominoes")
	q := PolyominoQuery{Game: "capture", Width: &five, Height: &five, Pieces: &tetrominoes}
	pos, err := q.capturePosition()
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	solved, _, _, err := solveCapture(ctx, pos, capture.Options{}, lengthShare, time.Minute)
	if err != nil || solved.Plies == nil {
		b.Fatalf("not solved: %v %+v", err, solved)
	}
	old := solved
	old.Plies, old.PerfectFirst, old.LengthTriedNs = nil, false, int64(time.Second)
	for _, name := range []string{"solve", "complete"} {
		b.Run(name, func(b *testing.B) {
			var nodes int64
			for b.Loop() {
				var a PolyominoAnswer
				var n int64
				if name == "solve" {
					a, n, _, err = solveCapture(ctx, pos, capture.Options{}, lengthShare, time.Minute)
				} else {
					a, n, _, err = completeCapturePlies(ctx, old, pos, false, time.Minute)
				}
				if err != nil || a.Plies == nil || *a.Plies != *solved.Plies {
					b.Fatalf("%s: %v, plies %v", name, err, a.Plies)
				}
				nodes += n
			}
			b.ReportMetric(float64(nodes)/float64(b.N), "nodes/op")
		})
	}
}

// TestCaptureWinAtOnceHasPlies: a capture position won in one ply, whose
// other turns the proof cannot decide within the budget (repetition
// cycles), answers one ply and the winning turn first: the proof spent
// the whole budget on the other turns and left the length search none
// (an integrator's bot found the plies missing in every such position).
func TestCaptureWinAtOnceHasPlies(t *testing.T) {
	p, _ := pliesService(NewSlots(1, 4, time.Second, nil))
	const atOnce = "T:e3,e4,d5,e5,f5"
	for _, all := range []bool{false, true} {
		q := PolyominoQuery{Game: "capture", BudgetMs: 300, AllMoves: all, Moves: []string{
			"N:c3,c4,d4,d5,d6", "P:a5,b5,c5,b6,c6", "Y:f1,f2,g2,f3,f4", "~N L:a3,b3,c3,d3,d4", "N:e6,f6,g6,d7,e7", "I:a2,b2,c2,d2,e2"}}
		a, err := p.Analyze(context.Background(), q)
		if err != nil || !a.Proven || a.Outcome != string(capture.Win) {
			t.Fatalf("all_moves %v: %v, %+v", all, err, a)
		}
		if a.Plies == nil || *a.Plies != 1 || !a.PerfectFirst || len(a.BestMoves) == 0 || a.BestMoves[0] != atOnce {
			t.Fatalf("all_moves %v: plies %v, perfect first %v, best %v; want 1 ply by %s first", all, a.Plies, a.PerfectFirst, a.BestMoves, atOnce)
		}
		if all {
			if len(a.Moves) == 0 || a.Moves[0].Move != atOnce || a.Moves[0].Plies == nil || *a.Moves[0].Plies != 0 {
				t.Fatalf("all moves: %+v, want %s first with 0 plies after it", a.Moves, atOnce)
			}
		}
	}
}
