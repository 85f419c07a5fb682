package service

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gamesolver/gamesolver/engine/polyomino"
	"github.com/gamesolver/gamesolver/service/cache"
)

// Tests from a review of the partial answers: a request completing a
// cached entry from the copy it read must not replace a final answer that
// another request stored meanwhile (completePlies and completeBest wrote
// without looking), and a capture job must not take a short request's
// partial answer for its own.

// partialCached caches a partial answer of partialPosition (the request
// q that made it, with the shortest budget that proved it).
func partialCached(t *testing.T) (*Polyomino, *Searcher, cache.Cache, PolyominoQuery) {
	t.Helper()
	c := cache.NewMemory(1<<24, time.Minute)
	s := &Searcher{Loader: cache.NewLoader(c, time.Minute), Slots: NewSlots(2, 4, time.Second, nil),
		Budgets: Budgets{Default: time.Minute, Max: time.Minute}, Workers: 1}
	p := NewPolyomino(s)
	q := PolyominoQuery{Game: "pentominoes", Moves: strings.Fields("P:d4,d5,e5,d6,e6 U:a2,c2,a3,b3,c3 W:f6,g6,g7,h7,h8"), BudgetMs: 100}
	var a PolyominoAnswer
	for !a.Proven && q.BudgetMs < 6400 {
		q.BudgetMs *= 2
		a, _ = p.Analyze(context.Background(), q)
	}
	if !a.Proven || a.BestComplete {
		t.Skip("no partial answer on this machine")
	}
	return p, s, c, q
}

// partialThenFinal caches a partial answer of partialPosition (a short
// budget), keeps that copy, then lets a long request complete the entry.
func partialThenFinal(t *testing.T) (*Polyomino, *Searcher, cache.Cache, string, *polyomino.Position, PolyominoAnswer) {
	t.Helper()
	p, s, c, q := partialCached(t)
	pos, _ := q.position()
	key := cacheKey("polyomino", "all=false", polyomino.CanonicalKey(pos))
	raw, _, _ := c.Get(context.Background(), key)
	var stale PolyominoAnswer
	if err := json.Unmarshal(raw, &stale); err != nil || !stale.partial() {
		t.Fatalf("the cached answer is not partial: %v", err)
	}
	long := q
	long.BudgetMs = 60000
	if a, err := p.Analyze(context.Background(), long); err != nil || !a.BestComplete {
		t.Fatal("the long request did not complete the answer")
	}
	return p, s, c, key, pos, stale
}

func cachedComplete(c cache.Cache, key string) (bool, int) {
	raw, _, _ := c.Get(context.Background(), key)
	var a PolyominoAnswer
	_ = json.Unmarshal(raw, &a)
	return a.BestComplete, len(a.BestMoves)
}

func TestCompletePliesKeepsFinal(t *testing.T) {
	p, _, c, key, pos, stale := partialThenFinal(t)
	stale.Plies, stale.LengthTriedNs = nil, 0
	p.completePlies(context.Background(), key, &stale, pos, time.Second)
	if ok, n := cachedComplete(c, key); !ok {
		t.Errorf("final answer replaced by a partial one (%d best moves)", n)
	}
}

func TestCompleteBestKeepsFinal(t *testing.T) {
	p, s, c, key, pos, stale := partialThenFinal(t)
	for range maxIdleTables {
		s.tables.get(nil) // a cold table
	}
	stale.BestTriedNs, stale.ElapsedNs = 0, 0 // as a job unit's, a quick one
	if searched, _ := p.completeBest(context.Background(), key, &stale, pos, completeNeed(stale)+5*time.Millisecond); !searched {
		t.Fatal("no search")
	}
	if ok, n := cachedComplete(c, key); !ok {
		t.Errorf("final answer replaced by a partial one (%d best moves)", n)
	}
}

// A capture job searches for its whole time limit, not taking a short
// request's cached partial answer (it came back in a millisecond).
func TestCaptureJobSearchesPastAShortPartial(t *testing.T) {
	s := &Searcher{Loader: cache.NewLoader(cache.NewMemory(1<<24, time.Minute), time.Minute), Slots: NewSlots(2, 4, time.Second, nil),
		Budgets: Budgets{Default: time.Minute, Max: time.Minute}, Workers: 1}
	p := NewPolyomino(s)
	ctx := context.Background()
	q := PolyominoQuery{Game: "capture", ToMove: "first",
		Board:   []string{"...PPP.", "FF.PPI.", ".FFLLI.", ".F..LI.", "..NNLIV", "NNN.LIV", "....VVV"},
		Markers: map[string]string{"F": "first", "I": "first", "L": "first", "N": "first", "P": "first", "V": "first"}, BudgetMs: 100}
	var first PolyominoAnswer
	for !first.Proven && q.BudgetMs < 1600 {
		q.BudgetMs *= 2
		first, _ = p.Analyze(ctx, q)
	}
	if !first.Proven || first.BestComplete {
		t.Skip("no partial answer on this machine")
	}
	const limit = 2 * time.Second
	kind := PolyominoAnalyzeJob{Search: s, MaxDuration: limit, Workers: 1}
	jq := q
	jq.BudgetMs = 0
	raw, _ := json.Marshal(jq)
	units, err := kind.Plan(ctx, raw)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	out, err := kind.Run(ctx, raw, units[0], func(int64) {})
	if err != nil {
		t.Fatal(err)
	}
	var a PolyominoAnswer
	_ = json.Unmarshal(out, &a)
	if took := time.Since(start); !a.BestComplete && took < limit/2 {
		t.Errorf("job unit answered in %v with the cached partial answer (%d best moves)", took, len(a.BestMoves))
	}
}

// A request whose budget a kept capture answer does not serve searches
// again; when that search proves less (a loaded machine), the kept answer
// stands rather than an unproven one.
func TestLongerBudgetFallsBackToKeptAnswer(t *testing.T) {
	mem := cache.NewMemory(1<<20, 0)
	s := &Searcher{Loader: cache.NewLoader(mem, 0), Slots: NewSlots(1, 1, time.Second, nil), Budgets: Budgets{Default: time.Second, Max: time.Minute}}
	ctx := context.Background()
	plies := 3 // (an answer without them would not serve: TestCapturePliesMissing)
	kept := PolyominoAnswer{Capture: true, Outcome: "win", Proven: true, Plies: &plies, BestMoves: []string{"kept"}, BestTriedNs: int64(100 * time.Millisecond)}
	raw, _ := json.Marshal(kept)
	if err := mem.Set(ctx, "k", raw, 0); err != nil {
		t.Fatal(err)
	}
	searched := false
	search := func(context.Context) (PolyominoAnswer, int64, bool, error) {
		searched = true
		return PolyominoAnswer{Capture: true, Outcome: "unknown", Heuristic: true, BestMoves: []string{"guess"}}, 1, false, nil
	}
	// 150 ms: served by the kept answer (tried 100 ms).
	if a, source, err := runCached(ctx, s, "capture", "k", 150*time.Millisecond, nil, search); err != nil || searched || source != SourceCache || a.BestMoves[0] != "kept" {
		t.Fatalf("150 ms: %v from %s (searched %v), %v", a.BestMoves, source, searched, err)
	}
	a, source, err := runCached(ctx, s, "capture", "k", time.Second, nil, search)
	if err != nil || !searched || source != SourceCache || !a.Proven || a.BestMoves[0] != "kept" {
		t.Fatalf("1 s: %v (proven %v) from %s, searched %v, %v; want a search, then the kept answer", a.BestMoves, a.Proven, source, searched, err)
	}
}

// A job's unit keeps its partial answer (the first winning move) in the
// cache, under the child's key, for the synchronous requests.
func TestUnitKeepsItsAnswer(t *testing.T) {
	s := &Searcher{Loader: cache.NewLoader(cache.NewMemory(1<<24, time.Minute), time.Minute), Slots: NewSlots(2, 4, time.Second, nil),
		Budgets: Budgets{Default: time.Minute, Max: time.Minute}, Workers: 1}
	kind := PolyominoAnalyzeJob{Search: s, MaxDuration: time.Minute, Workers: 1}
	q := PolyominoQuery{Game: "pentominoes", Moves: strings.Fields("P:d4,d5,e5,d6,e6 U:a2,c2,a3,b3,c3 W:f6,g6,g7,h7,h8")}
	raw, _ := json.Marshal(q)
	units, err := kind.Plan(context.Background(), raw)
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range units[:10] {
		out, err := kind.Run(context.Background(), raw, u, func(int64) {})
		if err != nil {
			t.Fatal(err)
		}
		var a PolyominoAnswer
		_ = json.Unmarshal(out, &a)
		if !a.partial() {
			continue
		}
		var unit struct{ Move string }
		_ = json.Unmarshal(u, &unit)
		child := q
		child.Moves = append(append([]string(nil), q.Moves...), unit.Move)
		pos, err := child.position()
		if err != nil {
			t.Fatal(err)
		}
		kept, ok, _ := s.Loader.Cache().Get(context.Background(), cacheKey("polyomino", "all=false", polyomino.CanonicalKey(pos)))
		var c PolyominoAnswer
		if !ok || json.Unmarshal(kept, &c) != nil || !c.partial() || c.BestMoves[0] != a.BestMoves[0] {
			t.Fatalf("after unit %s the cache holds %s (found %v), not its answer", u, kept, ok)
		}
		return
	}
	t.Fatal("no partial answer among the first 10 units")
}

// A unit's length search has a floor (lengthJobMin unless the searcher
// sets one): with a quarter of a first-win proof's time only, 1 unit in
// 10 found its plies.
func TestUnitLengthFloor(t *testing.T) {
	s := &Searcher{}
	if got := (PolyominoAnalyzeJob{Search: s}).lengthLeast(); got != lengthJobMin || got < 20*time.Millisecond {
		t.Errorf("default floor %v, want lengthJobMin (%v, at least 20 ms)", got, lengthJobMin)
	}
	s.MinLengthTime = time.Second
	if got := (PolyominoAnalyzeJob{Search: s}).lengthLeast(); got != time.Second {
		t.Errorf("floor %v with MinLengthTime 1 s", got)
	}
}

// A client that leaves does not make its request's budget the search's
// (a review found a 30 s budget recorded after 50 ms): the entry stays
// open to completion by the next long requests.
func TestCompleteBestRecordsWhatRan(t *testing.T) {
	p, _, c, q := partialCached(t)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	long := q
	long.BudgetMs = 30_000
	_, _ = p.Analyze(ctx, long)
	pos, _ := q.position()
	raw, _, _ := c.Get(context.Background(), cacheKey("polyomino", "all=false", polyomino.CanonicalKey(pos)))
	var kept PolyominoAnswer
	if err := json.Unmarshal(raw, &kept); err != nil {
		t.Fatal(err)
	}
	if kept.partial() && kept.BestTriedNs > int64(5*time.Second) {
		t.Errorf("a client gone after 50 ms left a search of %v recorded", time.Duration(kept.BestTriedNs))
	}
}

// A request that completes a cached answer's plies reports that length
// search as its work (a review saw a request take its whole budget and
// answer "elapsed_ms": 0).
func TestCompletePliesReportsItsWork(t *testing.T) {
	c := cache.NewMemory(1<<24, time.Minute)
	s := &Searcher{Loader: cache.NewLoader(c, time.Minute), Slots: NewSlots(2, 4, time.Second, nil),
		Budgets: Budgets{Default: time.Minute, Max: time.Minute}, Workers: 1}
	p := NewPolyomino(s)
	q := PolyominoQuery{Game: "pentominoes", Moves: strings.Fields("Z:f3,d4,e4,f4,d5 P:c6,d6,e6,c7,d7 Y:g5,g6,g7,h7,g8"), BudgetMs: 10_000}
	a, err := p.Analyze(context.Background(), q)
	if err != nil || !a.Proven || a.Plies == nil {
		t.Fatalf("%v: proven %v, plies %v", err, a.Proven, a.Plies)
	}
	pos, _ := q.position()
	key := cacheKey("polyomino", "all=false", polyomino.CanonicalKey(pos))
	raw, _, _ := c.Get(context.Background(), key)
	var kept PolyominoAnswer
	if err := json.Unmarshal(raw, &kept); err != nil {
		t.Fatal(err)
	}
	kept.Plies, kept.PerfectFirst, kept.LengthTriedNs = nil, false, 0 // as a job unit's
	raw, _ = json.Marshal(kept)
	if err := c.Set(context.Background(), key, raw, time.Minute); err != nil {
		t.Fatal(err)
	}
	b, err := p.Analyze(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	if b.Source != SourceCache || b.Plies == nil || b.SpentNs <= 0 || b.SpentNodes <= 0 {
		t.Errorf("source %s, plies %v, spent %d ns and %d nodes", b.Source, b.Plies, b.SpentNs, b.SpentNodes)
	}
	c2, _ := p.Analyze(context.Background(), q)
	if c2.SpentNs != 0 || c2.SpentNodes != 0 {
		t.Errorf("a plain cache hit reports %d ns and %d nodes of work", c2.SpentNs, c2.SpentNodes)
	}
}

// A request that stops waiting for another's completion does not read its
// answer, which the other may still be writing (a review found the read
// before the check: a data race under -race). The other's answer, better
// than the waiter's, is there before the waiter gives up, its completion
// not ended: a read without the check takes it (and the test fails
// without -race too).
func TestCompletionWaiterReadsOnlyAnEndedAnswer(t *testing.T) {
	p, _, _, q := partialCached(t)
	pos, _ := q.position()
	other := &completion{done: make(chan struct{})}
	other.answer = PolyominoAnswer{Outcome: "win", Proven: true, BestMoves: []string{"x"}, BestTriedNs: int64(time.Hour)}
	p.completing.Store("k", other)
	wrote := make(chan struct{})
	go func() {
		defer close(wrote)
		time.Sleep(120 * time.Millisecond) // after the waiter gave up
		close(other.done)
	}()
	canon := PolyominoAnswer{Outcome: "win", Proven: true, BestMoves: []string{"y"}, BestTriedNs: int64(20 * time.Millisecond)}
	p.completeBest(context.Background(), "k", &canon, pos, 100*time.Millisecond)
	<-wrote
	if len(canon.BestMoves) != 1 || canon.BestMoves[0] != "y" {
		t.Errorf("best moves %v: taken from a completion still running", canon.BestMoves)
	}
}

// TestWithFirst: a checked first move (a fastest win, or a slowest loss)
// leads the best moves when they have it, and is never added to them.
func TestWithFirst(t *testing.T) {
	checked := PolyominoAnswer{Outcome: "win", PerfectFirst: true, BestMoves: []string{"X:b1,a2,b2,c2,b3"}}
	for _, c := range []struct {
		name  string
		a     PolyominoAnswer
		old   PolyominoAnswer
		want  []string
		first bool
	}{
		{"has it", PolyominoAnswer{Outcome: "win", BestMoves: []string{"I:a1,a2,a3,a4,a5", "X:b1,a2,b2,c2,b3"}}, checked,
			[]string{"X:b1,a2,b2,c2,b3", "I:a1,a2,a3,a4,a5"}, true},
		{"lacks it", PolyominoAnswer{Outcome: "win", BestMoves: []string{"I:a1,a2,a3,a4,a5"}}, checked,
			[]string{"I:a1,a2,a3,a4,a5"}, false},
		{"its own first", PolyominoAnswer{Outcome: "win", PerfectFirst: true, BestMoves: []string{"I:a1,a2,a3,a4,a5", "X:b1,a2,b2,c2,b3"}}, checked,
			[]string{"I:a1,a2,a3,a4,a5", "X:b1,a2,b2,c2,b3"}, true},
		{"an unchecked first", PolyominoAnswer{Outcome: "win", BestMoves: []string{"I:a1,a2,a3,a4,a5", "X:b1,a2,b2,c2,b3"}},
			PolyominoAnswer{Outcome: "win", BestMoves: []string{"X:b1,a2,b2,c2,b3"}}, []string{"I:a1,a2,a3,a4,a5", "X:b1,a2,b2,c2,b3"}, false},
	} {
		a := c.a
		withFirst(&a, c.old)
		if !slices.Equal(a.BestMoves, c.want) || a.PerfectFirst != c.first {
			t.Errorf("%s: best %v, perfect first %v; want %v, %v", c.name, a.BestMoves, a.PerfectFirst, c.want, c.first)
		}
	}
}
