package service

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/gamesolver/gamesolver/engine/capture"
	"github.com/gamesolver/gamesolver/service/cache"
)

// checkEditsRefused answers q once (the entry cached under the key keyOf
// gives), serves it again from the cache, then puts each edit of the entry
// in the cache: each must be refused, the position searched again (the
// first answer's outcome, best moves and plies) and the entry replaced.
func checkEditsRefused(t *testing.T, q PolyominoQuery, keyOf func() (string, error), edits map[string]func(a *PolyominoAnswer)) {
	t.Helper()
	ctx := context.Background()
	c := cache.NewMemory(1<<24, time.Hour)
	m := NewMetrics(prometheus.NewRegistry())
	s := &Searcher{Loader: cache.NewLoader(c, time.Hour), Slots: NewSlots(1, 4, time.Second, nil),
		Budgets: Budgets{Default: time.Minute, Max: time.Minute}, Workers: 1, Metrics: m,
		QuickTime: time.Nanosecond, // no quick try: the slot's search, which reads the entry again
		// The length search may take the budget: the answers compared
		// must all have their plies (with the default least time, 200 ms,
		// a search on a loaded machine found the value but not the plies).
		MinLengthTime: time.Minute}
	p := NewPolyomino(s)
	refused := m.CacheResults.WithLabelValues("answer", "invalid")
	want, err := p.Analyze(ctx, q)
	if err != nil || !want.Proven || want.Plies == nil || q.AllMoves && len(want.Moves) == 0 {
		t.Fatalf("first answer: %v %+v", err, want)
	}
	key, err := keyOf()
	if err != nil {
		t.Fatal(err)
	}
	raw, ok, _ := c.Get(ctx, key)
	if !ok {
		t.Fatal("not cached")
	}
	if again, err := p.Analyze(ctx, q); err != nil || again.Source != SourceCache {
		t.Fatalf("the entry as stored: %v, source %s", err, again.Source)
	}
	for name, edit := range edits {
		before := testutil.ToFloat64(refused)
		var a PolyominoAnswer
		if err := json.Unmarshal(raw, &a); err != nil {
			t.Fatal(err)
		}
		edit(&a)
		b, _ := json.Marshal(a)
		_ = c.Set(ctx, key, b, time.Hour)
		got, err := p.Analyze(ctx, q)
		if err != nil || got.Source != SourceSearch || got.Outcome != want.Outcome || !reflect.DeepEqual(got.BestMoves, want.BestMoves) ||
			len(got.Moves) != len(want.Moves) || got.Plies == nil || *got.Plies != *want.Plies {
			t.Errorf("%s: %v, source %s, %s %v in %v plies", name, err, got.Source, got.Outcome, got.BestMoves, got.Plies)
		}
		if fixed, _, _ := c.Get(ctx, key); string(fixed) == string(b) {
			t.Errorf("%s: the edited entry stayed", name)
		}
		// Counted once (the entry is read again once the request has
		// its slot: it counted twice).
		if n := testutil.ToFloat64(refused) - before; n != 1 {
			t.Errorf("%s: counted %v times as invalid", name, n)
		}
	}
}

// polyominoKeyOf and captureKeyOf give checkEditsRefused the cache key of
// q's answer.
func polyominoKeyOf(q PolyominoQuery, allMoves bool) func() (string, error) {
	return func() (string, error) {
		pos, err := q.position()
		if err != nil {
			return "", err
		}
		return analyzeKey(pos, allMoves), nil
	}
}

func captureKeyOf(q PolyominoQuery, allMoves bool) func() (string, error) {
	return func() (string, error) {
		pos, err := q.capturePosition()
		if err != nil {
			return "", err
		}
		return captureCacheKey(pos, allMoves), nil
	}
}

// TestCachedAnswerChecked: a cached answer is checked against the
// position asked about; an entry edited in Redis (a move off the board, a
// piece that does not exist, plies that do not fit, a move missing or
// listed twice, no best move, an outcome that is none, figures that
// contradict each other) is refused and the position searched again, its
// answer replacing the entry. Before, any entry that decoded was served.
func TestCachedAnswerChecked(t *testing.T) {
	q := PolyominoQuery{Game: "pentominoes", Width: ptr(6), Height: ptr(5), Pieces: ptr(PieceNames("FILNPTUVWXY")), AllMoves: true, Moves: []string{"I:a1,a2,a3,a4,a5"}}
	edits := map[string]func(a *PolyominoAnswer){
		"best move off the board": func(a *PolyominoAnswer) { a.BestMoves[0] = "I:b9,c9,d9,e9,f9" },
		"no such piece":           func(a *PolyominoAnswer) { a.BestMoves[0] = "Q:f1,f2" },
		"negative plies":          func(a *PolyominoAnswer) { a.Plies = ptr(-5) },
		"plies of the other side": func(a *PolyominoAnswer) { a.Plies = ptr(*a.Plies + 1) },
		"no best move":            func(a *PolyominoAnswer) { a.BestMoves = []string{} },
		"a move missing":          func(a *PolyominoAnswer) { a.Moves = a.Moves[1:] },
		"a move twice":            func(a *PolyominoAnswer) { a.Moves[1] = a.Moves[0] },
		"a best move twice":       func(a *PolyominoAnswer) { a.BestMoves = append(a.BestMoves, a.BestMoves[0]) },
		"outcome none":            func(a *PolyominoAnswer) { a.Outcome = "maybe" },
		// Entries that contradict themselves (an end-to-end check found
		// them served).
		"a draw without draws": func(a *PolyominoAnswer) { a.Outcome, a.Value, a.Plies = "draw", 0, nil },
		"a loss whose moves win": func(a *PolyominoAnswer) {
			a.Outcome, a.Value, a.Plies = "loss", -1, ptr(*a.Plies+1)
		},
		"a losing best move": func(a *PolyominoAnswer) {
			for _, m := range a.Moves {
				if m.Value < 0 {
					a.BestMoves = []string{m.Move}
				}
			}
		},
		"every win marked lost": func(a *PolyominoAnswer) {
			for i := range a.Moves {
				if a.Moves[i].Value > 0 {
					a.Moves[i].Outcome, a.Moves[i].Value = "loss", -1
				}
			}
		},
		"a move's plies negative": func(a *PolyominoAnswer) { a.Moves[0].Plies = ptr(-5) },
	}
	checkEditsRefused(t, q, polyominoKeyOf(q, true), edits)
}

// TestCachedCaptureAnswerChecked: the same for the capture variant, whose
// answers are kept in the position's own frame.
func TestCachedCaptureAnswerChecked(t *testing.T) {
	q := PolyominoQuery{Game: "capture", Width: ptr(5), Height: ptr(4), Pieces: ptr(PieceNames("tetrominoes")), AllMoves: true}
	checkEditsRefused(t, q, captureKeyOf(q, true), map[string]func(a *PolyominoAnswer){
		"best turn off the board": func(a *PolyominoAnswer) { a.BestMoves[0] = "O:e9,f9,e10,f10" },
		"plies of the other side": func(a *PolyominoAnswer) { a.Plies = ptr(*a.Plies + 1) },
		"a draw with plies":       func(a *PolyominoAnswer) { a.Outcome = "draw" },
		"a turn missing":          func(a *PolyominoAnswer) { a.Moves = a.Moves[1:] },
	})
}

// TestFlippedWinRefused: a won position's entry without its moves' values
// (no all_moves) turned into a loss, every other figure fitting (plies of
// the loser's parity), lists only the winning moves as best, where a lost
// position's best moves are all its moves: refused (an audit's flipped
// entries, 13 best moves of 247 and 4 of 228, were served).
func TestFlippedWinRefused(t *testing.T) {
	flip := map[string]func(a *PolyominoAnswer){
		"a win turned loss": func(a *PolyominoAnswer) {
			if a.Outcome != "win" || a.BestMoves == nil {
				t.Fatalf("the position is not won: %+v", a)
			}
			a.Outcome, a.Value, a.Plies = "loss", -1, ptr(*a.Plies+1)
		},
	}
	q := PolyominoQuery{Game: "pentominoes", Width: ptr(6), Height: ptr(5), Pieces: ptr(PieceNames("FILNPTUVWXY"))}
	checkEditsRefused(t, q, polyominoKeyOf(q, false), flip)
	cq := PolyominoQuery{Game: "capture", Width: ptr(5), Height: ptr(4), Pieces: ptr(PieceNames("tetrominoes"))}
	checkEditsRefused(t, cq, captureKeyOf(cq, false), flip)
}

// BenchmarkCachedAnswerCheck: the check of a cached all_moves answer
// against its position (consistentWith), against the decoding of the
// same answer's JSON that every cache hit pays anyway.
func BenchmarkCachedAnswerCheck(b *testing.B) {
	for _, game := range []string{"hexominoes", "pentominoes"} {
		pos, err := PolyominoQuery{Game: game, AllMoves: true}.position()
		if err != nil {
			b.Fatal(err)
		}
		frame := pos.Frame()
		a := PolyominoAnswer{Outcome: "win", Proven: true, Value: 1, BestComplete: true}
		for _, m := range pos.LegalMoves() {
			a.Moves = append(a.Moves, PolyominoMove{Move: frame.ToCanonical(m).String()})
		}
		a.BestMoves = []string{a.Moves[0].Move}
		raw, err := json.Marshal(a)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(game+"/check", func(b *testing.B) {
			for b.Loop() {
				if !consistentWith(a, pos) {
					b.Fatal("refused")
				}
			}
		})
		b.Run(game+"/decode", func(b *testing.B) {
			for b.Loop() {
				var v PolyominoAnswer
				if err := json.Unmarshal(raw, &v); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// leavingRuns counts the runs of TestRequestPositionLeavesWithItsContext.
var leavingRuns atomic.Int64

// TestRequestPositionLeavesWithItsContext: a request that ends while its
// game waits to be built gets its context's error, not a fault of its
// board (the build queue's wait is the request's).
func TestRequestPositionLeavesWithItsContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	// A board of its own at each run: the engines keep the games built
	// (a second run, go test -count=2, found it built and never waited).
	n := int(leavingRuns.Add(1))
	cell := fmt.Sprintf("%c%d", 'a'+n%16, 16-n/16%16)
	q := PolyominoQuery{Game: "hexominoes", Width: ptr(16), Height: ptr(16), Blocked: ptr([]string{cell})}
	if _, err := q.requestPosition(ctx); err != context.Canceled {
		t.Fatalf("a canceled request's position: %v", err)
	}
	if _, err := q.position(); err != nil {
		t.Fatalf("the same position for the service: %v", err)
	}
	// The capture variant's games too (they were built for every request,
	// outside any bound).
	c := PolyominoQuery{Game: "capture", Width: ptr(16), Height: ptr(16), Order: ptr(6), Blocked: ptr([]string{cell})}
	if _, err := c.requestCapturePosition(ctx); err != context.Canceled {
		t.Fatalf("a canceled request's capture position: %v", err)
	}
	if _, err := c.capturePosition(); err != nil {
		t.Fatalf("the same capture position for the service: %v", err)
	}
}

// TestPlanLeavesWithItsContext: a job's submission builds its game as a
// request does (in the bounded queue, left when its context ends), not in
// the workers' unbounded queue, where a review found submissions past
// their client's rate building 16 x 16 games.
func TestPlanLeavesWithItsContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	n := int(leavingRuns.Add(1)) // a board of its own at each run, as above
	cell := fmt.Sprintf("%c%d", 'a'+n%16, 16-n/16%16)
	p, _ := pliesService(NewSlots(1, 4, time.Second, nil))
	job := PolyominoAnalyzeJob{Search: p.search, MaxDuration: time.Minute, Workers: 1}
	for _, game := range []string{"hexominoes", "capture"} {
		q := PolyominoQuery{Game: game, Width: ptr(16), Height: ptr(16), Order: ptr(6), Blocked: ptr([]string{cell})}
		raw, _ := json.Marshal(q)
		if _, err := job.Plan(ctx, raw); err != context.Canceled {
			t.Errorf("%s: a canceled submission's plan: %v", game, err)
		}
	}
}

// TestConsistentCaptureManyTurns: a cached capture answer of a position of
// more turns than all_moves values (845,056) is checked without listing
// them (0.3 s of CPU a cache hit): its best moves played, no move list.
func TestConsistentCaptureManyTurns(t *testing.T) {
	pos := manyTurnsPosition(t)
	one, three := 1, 3
	for _, tc := range []struct {
		name string
		a    PolyominoAnswer
		ok   bool
	}{
		{"a legal best move", PolyominoAnswer{Outcome: "win", Proven: true, Value: 1, Plies: &one, BestMoves: []string{"X:b12,a13,b13,c13,b14"}}, true},
		{"with a removal", PolyominoAnswer{Outcome: "win", Proven: true, Value: 1, Plies: &three, BestMoves: []string{"~I X:b12,a13,b13,c13,b14", "~I ~L X:b12,a13,b13,c13,b14"}}, true},
		{"a cell taken", PolyominoAnswer{Outcome: "win", Proven: true, Value: 1, BestMoves: []string{"X:b2,a3,b3,c3,b4"}}, false},
		{"listed twice", PolyominoAnswer{Outcome: "win", Proven: true, Value: 1, BestMoves: []string{"X:b12,a13,b13,c13,b14", "X:b12,a13,b13,c13,b14"}}, false},
		{"no best move", PolyominoAnswer{Outcome: "loss", Proven: true, Value: -1, BestMoves: []string{}}, false},
		{"a move list", PolyominoAnswer{Outcome: "win", Proven: true, Value: 1, BestMoves: []string{"X:b12,a13,b13,c13,b14"},
			Moves: []PolyominoMove{{Move: "X:b12,a13,b13,c13,b14", Outcome: "win", Proven: true, Value: 1}}}, false},
		{"even plies of a win", PolyominoAnswer{Outcome: "win", Proven: true, Value: 1, Plies: new(int), BestMoves: []string{"X:b12,a13,b13,c13,b14"}}, false},
		{"not a turn", PolyominoAnswer{Outcome: "win", Proven: true, Value: 1, BestMoves: []string{"X:zz"}}, false},
	} {
		if got := consistentCapture(tc.a, pos); got != tc.ok {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.ok)
		}
	}
}

// manyTurnsPosition is a capture position on 16 x 16 whose mover has eight
// marked pieces (each removal optional): 845,056 turns.
func manyTurnsPosition(tb testing.TB) *capture.Position {
	var q PolyominoQuery
	raw := `{"game":"capture","width":16,"height":16,"board":["IIIII.LLLL.NN...","......L.....NNN.","................","PP.TTT.U.U.V....","PP..T..UUU.V....","P...T......VVV..","................","W...............","WW..............",".WW.............","................","................","................","................","................","................"],` +
		`"markers":{"I":"first","L":"first","N":"first","P":"first","T":"first","U":"first","V":"first","W":"first"},"to_move":"first"}`
	if err := json.Unmarshal([]byte(raw), &q); err != nil {
		tb.Fatal(err)
	}
	pos, err := q.requestCapturePosition(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	if n := pos.CountTurns(); n != 845056 {
		tb.Fatalf("%d turns", n)
	}
	return pos
}

// BenchmarkConsistentCaptureManyTurns: the check of a cached answer of
// that position, at each cache hit.
func BenchmarkConsistentCaptureManyTurns(b *testing.B) {
	pos := manyTurnsPosition(b)
	one := 1
	a := PolyominoAnswer{Outcome: "win", Proven: true, Value: 1, Plies: &one, BestMoves: []string{"X:b12,a13,b13,c13,b14"}}
	for b.Loop() {
		if !consistentCapture(a, pos) {
			b.Fatal("refused")
		}
	}
}
