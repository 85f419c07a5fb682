package service

import (
	"context"
	"slices"
	"testing"
	"time"

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
	// budget: the second class is not proven in it).
	budget := 15 * time.Second
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
