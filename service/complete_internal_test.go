package service

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/gamesolver/gamesolver/engine/polyomino"
	"github.com/gamesolver/gamesolver/service/cache"
)

func TestWithKnownBest(t *testing.T) {
	for _, tc := range []struct {
		found, known []string
		perfect      bool
		want         []string
	}{
		{[]string{"a", "b"}, nil, false, []string{"a", "b"}},
		{[]string{"c", "a"}, []string{"a", "b"}, false, []string{"a", "b", "c"}},
		{[]string{"c", "a"}, []string{"a", "b"}, true, []string{"c", "a", "b"}},
		{[]string{"b"}, []string{"a", "b"}, true, []string{"b", "a"}},
		{nil, []string{"a"}, true, []string{"a"}},
	} {
		if got := withKnownBest(tc.found, tc.known, tc.perfect); !slices.Equal(got, tc.want) {
			t.Errorf("withKnownBest(%v, %v, %v) = %v, want %v", tc.found, tc.known, tc.perfect, got, tc.want)
		}
	}
}

// TestCompletionKeepsKnownBest: a request completing a partial answer's
// best moves keeps those the answer knew when its search proves others
// first (an integrator saw a job's winning moves replaced by a request's
// search, warm from the job's, that proved another first).
func TestCompletionKeepsKnownBest(t *testing.T) {
	c := cache.NewMemory(1<<24, time.Minute)
	// The first class takes about 2 s on one core of the machine this
	// was written on; a long budget keeps a loaded machine's search
	// from finding nothing (the completion then searches the whole
	// budget: the second class is not proven in it). The race detector
	// slows the search several times: under it, under load, 15 s found
	// nothing in two runs of three.
	budget := 15 * time.Second
	if raceEnabled {
		budget = 90 * time.Second
	}
	s := &Searcher{Loader: cache.NewLoader(c, time.Minute), Slots: NewSlots(1, 4, time.Second, nil),
		Budgets: Budgets{Default: budget, Max: budget}, Workers: 1, MinLengthTime: time.Millisecond}
	p := NewPolyomino(s)
	seven := 7
	q := PolyominoQuery{Game: "pentominoes", Width: &seven, Height: &seven}
	pos, err := q.position()
	if err != nil {
		t.Fatal(err)
	}
	// Two winning first moves (both proven by requests of the server
	// when this test was written), of two classes: a search preferring them proves the
	// first class within seconds, the second not in the budget.
	known := []string{"F:a5,b5,b6,c6,b7", "F:e5,f5,f6,g6,f7"}
	a := canonicalAnswer(PolyominoAnswer{Outcome: "win", Proven: true, Value: 1, BestMoves: known, BestTriedNs: int64(time.Millisecond), LegalMoves: pos.LegalMoveCount()}, pos)
	a.keep(context.Background(), s, analyzeKey(pos, false))
	got, err := p.Analyze(context.Background(), q)
	if err != nil || !got.Proven || got.Outcome != "win" {
		t.Fatalf("%v, %+v", err, got)
	}
	if got.Source != SourceSearch {
		t.Fatalf("the completion found nothing within %v (source %s)", budget, got.Source)
	}
	for _, m := range known {
		if !slices.Contains(got.BestMoves, m) {
			t.Errorf("the completed answer's best moves %v lack %s, known before", got.BestMoves, m)
		}
	}
}

// TestPartialAnswerCompletedQuickly: a partial answer cached (a job's
// unit stops at its first win) of a position the quick try proves whole
// is answered whole by a short request, as a cold server answers it (an
// audit found 30 ms requests served one best move of 76 after a job:
// completeBest needs twice its least search), and the whole answer is
// kept.
func TestPartialAnswerCompletedQuickly(t *testing.T) {
	c := cache.NewMemory(1<<24, time.Minute)
	// A quick try of 30 s (20 ms ran out on a loaded machine) within a
	// budget of a minute; the unit's time, kept as the answer's, makes
	// completeBest need 80 s: only the quick try may complete it.
	s := &Searcher{Loader: cache.NewLoader(c, time.Minute), Slots: NewSlots(1, 4, time.Second, nil),
		Budgets: Budgets{Default: time.Second, Max: time.Minute}, Workers: 1, QuickTime: 30 * time.Second}
	p := NewPolyomino(s)
	six := 6
	pieces := PieceNames("FILNPTUV")
	q := PolyominoQuery{Game: "pentominoes", Width: &six, Height: &six, Pieces: &pieces,
		Moves: []string{"V:c2,d2,e2,c3,c4", "L:b3,b4,b5,a6,b6"}, BudgetMs: 60000}
	pos, err := q.position()
	if err != nil {
		t.Fatal(err)
	}
	res, err := polyomino.Solve(context.Background(), pos, polyomino.Options{FirstWin: true, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	unit := answerOf(res, pos.Frame().ToCanonical)
	unit.ElapsedNs = int64(40 * time.Second)
	if !unit.partial() {
		t.Fatalf("the first-win answer is not partial: %+v", unit)
	}
	unit.keep(context.Background(), s, analyzeKey(pos, false))
	for i := range 2 {
		a, err := p.Analyze(context.Background(), q)
		if err != nil || !a.Proven || !a.BestComplete || len(a.BestMoves) <= len(unit.BestMoves) {
			t.Fatalf("request %d: %v, proven %v, best complete %v, %d best moves (the unit's %d)", i, err, a.Proven, a.BestComplete, len(a.BestMoves), len(unit.BestMoves))
		}
		if i == 1 && a.Source != SourceCache {
			t.Errorf("the whole answer not kept: the second request's from %s", a.Source)
		}
	}
}

// TestCombinePliesUnknownChild: a job's won position has no plies while
// a child is unproven (beyond the search): it may be a faster win (an
// audit read the plies as the proven winning child's plus one); once
// every child is proven, they are.
func TestCombinePliesUnknownChild(t *testing.T) {
	five := 5
	pieces := PieceNames("tetrominoes")
	q := PolyominoQuery{Game: "tetrominoes", Width: &five, Height: &five, Pieces: &pieces}
	pos, err := q.position()
	if err != nil {
		t.Fatal(err)
	}
	children := pos.Children()
	if len(children) < 3 {
		t.Fatalf("%d children", len(children))
	}
	combined := func(unknown bool) PolyominoAnswer {
		rs := make([]polyomino.Result, len(children))
		plies := make([]*int, len(children))
		for i := range rs {
			n := 3 // the child's mover wins in 3: the move loses
			rs[i], plies[i] = polyomino.Result{Outcome: polyomino.Win, Proven: true, Value: 1}, &n
		}
		two := 2 // the move wins in 3
		rs[0], plies[0] = polyomino.Result{Outcome: polyomino.Loss, Proven: true, Value: -1}, &two
		if unknown {
			rs[1], plies[1] = polyomino.Result{Outcome: polyomino.OutcomeUnknown}, nil
		}
		res, err := polyomino.Combine(pos, children, rs)
		if err != nil || !res.Proven || res.Outcome != polyomino.Win {
			t.Fatalf("combined: %v, %+v", err, res)
		}
		a := answerOf(res, func(m polyomino.Move) polyomino.Move { return m })
		combinePlies(&a, res, children, rs, plies, true)
		return a
	}
	if a := combined(true); a.Plies != nil || a.PerfectFirst {
		t.Errorf("a child unproven: plies %v, perfect first %v; want none", a.Plies, a.PerfectFirst)
	}
	if a := combined(false); a.Plies == nil || *a.Plies != 3 || !a.PerfectFirst {
		t.Errorf("every child proven: plies %v, perfect first %v; want 3", a.Plies, a.PerfectFirst)
	}
}

// TestQuickTryFailsOnce: a quick try that cannot complete a cached
// partial answer is recorded in the entry (BestTriedNs), so that the next
// requests do not repeat it (a review found every hit paying 20 ms and
// holding the quick tries' one place, other requests queued for a slot).
func TestQuickTryFailsOnce(t *testing.T) {
	c := cache.NewMemory(1<<24, time.Minute)
	s := &Searcher{Loader: cache.NewLoader(c, time.Minute), Slots: NewSlots(1, 4, time.Second, nil),
		Budgets: Budgets{Default: time.Second, Max: time.Minute}, Workers: 1}
	p := NewPolyomino(s)
	q := PolyominoQuery{Game: "pentominoes", Moves: []string{"L:a1,a2,a3,a4,b4", "I:h1,h2,h3,h4,h5", "X:d4,c5,d5,e5,d6"}, BudgetMs: 1000}
	pos, err := q.position()
	if err != nil {
		t.Fatal(err)
	}
	if n := pos.LegalMoveCount(); n > quickMoves {
		t.Fatalf("%d legal moves: no quick try", n)
	}
	// A partial answer as a unit leaves it: a legal move said to win,
	// its time long (completeBest would need 80 s).
	first := pos.LegalMoves()[0]
	unit := canonicalAnswer(PolyominoAnswer{Outcome: "win", Proven: true, Value: 1, BestMoves: []string{first.String()},
		ElapsedNs: int64(40 * time.Second), LegalMoves: pos.LegalMoveCount()}, pos)
	key := analyzeKey(pos, false)
	unit.keep(context.Background(), s, key)
	a, err := p.Analyze(context.Background(), q)
	if err != nil || a.Source != SourceCache || a.BestComplete {
		t.Fatalf("%v: from %s, best complete %v; want the cached partial answer", err, a.Source, a.BestComplete)
	}
	raw, ok, err := c.Get(context.Background(), key)
	var kept PolyominoAnswer
	if err != nil || !ok || json.Unmarshal(raw, &kept) != nil {
		t.Fatalf("cache: %v %v", ok, err)
	}
	if kept.BestTriedNs < int64(s.quickTime()) {
		t.Errorf("the failed quick try not recorded: best tried %v", time.Duration(kept.BestTriedNs))
	}
}
