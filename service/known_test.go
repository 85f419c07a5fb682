package service_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/gamesolver/gamesolver/engine/book"
	"github.com/gamesolver/gamesolver/engine/polyomino"
	"github.com/gamesolver/gamesolver/service"
	"github.com/gamesolver/gamesolver/service/cache"
	"github.com/gamesolver/gamesolver/service/jobs"
)

// TestSearchUsesChildrenCached: a job's units cache the positions after
// each move; a request's search takes their values rather than search
// them again. A job canceled after some units: an all_moves request of
// 100 ms values at least those moves (its search adds what it proves).
// The same job run to its end: a request of 100 ms without all_moves (a
// cache miss: the job cached its all_moves answer) proves the position
// (8 x 5, lost) with every best move (every move), as a cold search of
// half a second does; a server without the children's values does not.
// (Under the race detector, ten times the times, and no cold search.)
func TestSearchUsesChildrenCached(t *testing.T) {
	budget, unit := 100*time.Millisecond, 5*time.Second
	if service.RaceEnabled {
		budget, unit = time.Second, 20*time.Second
	}
	s := searcherWithBudget(budget)
	s.Loader = cache.NewLoader(cache.NewMemory(64<<20, time.Hour), time.Hour) // every child's answer
	s.MinLengthTime = time.Millisecond                                        // the units' length searches: plies are not the point
	// Five seconds per unit (they take milliseconds; a second failed a
	// unit in a clean-clone CI beside four helpers' servers), and for the
	// final length search of the lost position (its slowest loss:
	// seconds).
	jm, ctx := runJobs(t, service.PolyominoAnalyzeJob{Search: s, MaxDuration: unit, Workers: 1})
	p := service.NewPolyomino(s)
	q := service.PolyominoQuery{Game: "pentominoes", Width: intp(8), Height: intp(5), AllMoves: true}
	req, _ := json.Marshal(q)

	job := cancelAfter(t, ctx, jm, req, 20)
	done := job.Progress.Done
	a, err := p.Analyze(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	proven := 0
	for _, m := range a.Moves {
		if m.Proven {
			proven++
		}
	}
	if proven < done {
		t.Errorf("after a job canceled with %d units done (of %d), an all_moves request of 100 ms valued %d moves", done, job.Progress.Total, proven)
	}

	job, err = jm.Submit(ctx, "polyomino.analyze", req)
	whole, _ := jobAnswer(t, ctx, jm, job, err)
	var moves []string
	for _, m := range whole.Moves {
		moves = append(moves, m.Move)
	}
	if !whole.Proven || whole.Outcome != "loss" || len(moves) < 100 {
		t.Fatalf("the job: %s proven %v, %d moves", whole.Outcome, whole.Proven, len(moves))
	}
	q.AllMoves = false
	a, err = p.Analyze(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	best := slices.Sorted(slices.Values(a.BestMoves))
	slices.Sort(moves)
	if a.Source != service.SourceSearch || !a.Proven || a.Outcome != "loss" || !a.BestComplete || !slices.Equal(best, moves) {
		t.Errorf("after the job, a request of 100 ms: %s %s proven %v complete %v, %d best moves; the position's moves: %d", a.Source, a.Outcome, a.Proven, a.BestComplete, len(best), len(moves))
	}
	if service.RaceEnabled {
		return
	}
	cold, err := service.NewPolyomino(searcherWithBudget(budget)).Analyze(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	if cold.Proven && cold.BestComplete {
		t.Errorf("a cold search of 100 ms proved the position with every best move: the test shows nothing")
	}
}

// TestBookUsesChildrenCached: the same for a position the opening book
// answers (two plies into its long-L opening, where it knows the two
// winning moves): a job canceled after some units leaves their values
// to an all_moves request of 400 ms, which the book's answer takes
// (its search of the other moves needs a budget of half a second or
// more: without the look-up, the book's 2 moves alone).
func TestBookUsesChildrenCached(t *testing.T) {
	budget := 400 * time.Millisecond
	s := searcherWithBudget(budget)
	s.Loader = cache.NewLoader(cache.NewMemory(64<<20, time.Hour), time.Hour)
	s.MinLengthTime = time.Millisecond
	jm, ctx := runJobs(t, service.PolyominoAnalyzeJob{Search: s, MaxDuration: time.Minute, Workers: 1})
	p := service.NewPolyomino(s)
	q := service.PolyominoQuery{Game: "pentominoes", Moves: []string{"L:c4,d4,e4,f4,c5", "I:a1,a2,a3,a4,a5"}, AllMoves: true}
	// The book loaded and its file of this position indexed, as a
	// server's are after its first seconds.
	cfg, _ := polyomino.Preset("pentominoes")
	pos, err := polyomino.NewPosition(cfg, nil, q.Moves, polyomino.First)
	if err != nil {
		t.Fatal(err)
	}
	if b, err := book.Embedded(); err != nil {
		t.Fatal(err)
	} else if _, ok := b.LookupWait(pos, true); !ok {
		t.Fatal("the book does not hold the position")
	}
	proven := func() (int, service.PolyominoAnswer) {
		a, err := p.Analyze(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, m := range a.Moves {
			if m.Proven {
				n++
			}
		}
		return n, a
	}
	before, _ := proven()
	req, _ := json.Marshal(q)
	job := cancelAfter(t, ctx, jm, req, 6)
	after, a := proven()
	if service.RaceEnabled && a.Source == service.SourceBook {
		// 988 children's keys take the race detector longer than the
		// look-up's 100 ms: the run checks the concurrency only.
		return
	}
	if a.Source != service.SourceBook || after < job.Progress.Done || after <= before {
		t.Errorf("after a job canceled with %d units done (of %d), an all_moves request of %v (%s) valued %d moves; before the job, %d", job.Progress.Done, job.Progress.Total, budget, a.Source, after, before)
	}
}

// cancelAfter submits a polyomino.analyze job of request req and cancels
// it once n of its units are done (or it ended).
func cancelAfter(t *testing.T, ctx context.Context, jm *jobs.Manager, req json.RawMessage, n int) jobs.Job {
	t.Helper()
	job, err := jm.Submit(ctx, "polyomino.analyze", req)
	if err != nil {
		t.Fatal(err)
	}
	for job.Progress.Done < n && !job.Status.Final() && err == nil {
		time.Sleep(10 * time.Millisecond)
		job, err = jm.Get(ctx, job.ID)
	}
	if job, err = jm.Cancel(ctx, job.ID); err != nil || job.Status != jobs.StatusCanceled {
		t.Fatalf("cancel: %v, %s %s", err, job.Status, job.Error)
	}
	return job
}
