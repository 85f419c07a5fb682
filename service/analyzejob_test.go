package service_test

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/gamesolver/gamesolver/engine/polyomino"
	"github.com/gamesolver/gamesolver/engine/teeko"
	"github.com/gamesolver/gamesolver/service"
	"github.com/gamesolver/gamesolver/service/cache"
	"github.com/gamesolver/gamesolver/service/jobs"
)

func searcherWithBudget(budget time.Duration) *service.Searcher {
	return &service.Searcher{
		Loader:  cache.NewLoader(cache.NewMemory(1<<20, time.Minute), time.Minute),
		Slots:   service.NewSlots(1, 4, time.Second, nil),
		Budgets: service.Budgets{Default: budget, Max: budget},
		Workers: 1,
	}
}

func intp(v int) *int { return &v }

// runJobs starts an in-process job manager for kind with a worker of two
// slots, stopped when the test ends.
func runJobs(t *testing.T, kind jobs.Kind) (*jobs.Manager, context.Context) {
	t.Helper()
	store, err := jobs.NewMemoryStore("")
	if err != nil {
		t.Fatal(err)
	}
	jm, err := jobs.NewManager(store, []jobs.Kind{kind}, jobs.Options{Poll: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go func() { _ = jm.RunWorker(ctx, "test", 2) }()
	return jm, ctx
}

// TestAnalyzeInBackground: a position the request's budget does not prove
// (the server's cap is a microsecond here) comes back with a job link when
// the client asks for background work; the polyomino.analyze job proves it
// and agrees with an analysis given time. For the capture variant the job
// is one unit searched with the job's time limit.
// backgroundAnalyzer is a Polyomino whose searches get a microsecond, and
// that hands positions to polyomino.analyze jobs of an in-process manager.
func backgroundAnalyzer(t *testing.T) (*service.Polyomino, *jobs.Manager, context.Context) {
	t.Helper()
	return backgroundAnalyzerWith(t, nil)
}

// backgroundAnalyzerWith is backgroundAnalyzer counting in m (nil: no
// metrics).
func backgroundAnalyzerWith(t *testing.T, m *service.Metrics) (*service.Polyomino, *jobs.Manager, context.Context) {
	t.Helper()
	s := searcherWithBudget(time.Microsecond)
	s.Metrics = m
	kind := service.PolyominoAnalyzeJob{Search: s, MaxDuration: time.Minute, Workers: 1}
	jm, ctx := runJobs(t, kind)
	p := service.NewPolyomino(s)
	p.SetJobs(func(ctx context.Context, typ string, req json.RawMessage) (string, error) {
		j, err := jm.Submit(ctx, typ, req)
		return j.ID, err
	})
	return p, jm, ctx
}

// jobAnswer waits for a polyomino.analyze job (as Submit or Get returned
// it) to end and returns its answer; it must end done.
func jobAnswer(t *testing.T, ctx context.Context, jm *jobs.Manager, job jobs.Job, err error) (service.PolyominoAnswer, jobs.Job) {
	t.Helper()
	for err == nil && !job.Status.Final() {
		time.Sleep(20 * time.Millisecond)
		job, err = jm.Get(ctx, job.ID)
	}
	if err != nil || job.Status != jobs.StatusDone {
		t.Fatalf("job: %v %s %s", err, job.Status, job.Error)
	}
	var got service.PolyominoAnswer
	if err := json.Unmarshal(job.Result, &got); err != nil {
		t.Fatal(err)
	}
	return got, job
}

func TestAnalyzeInBackground(t *testing.T) {
	p, jm, ctx := backgroundAnalyzer(t)
	patient := service.NewPolyomino(searcherWithBudget(30 * time.Second))
	pieces := service.PieceNames("IOTSL")
	for _, tc := range []struct {
		name string
		q    service.PolyominoQuery
	}{
		// About 37 000 and 50 000 nodes: more than a search does before it
		// first looks at its deadline.
		{"pentominoes 6 x 6", service.PolyominoQuery{Game: "pentominoes", Width: intp(6), Height: intp(6)}},
		{"capture 5 x 4", service.PolyominoQuery{Game: "capture", Width: intp(5), Height: intp(4), Pieces: &pieces}},
		// Score rule, common pool: each unit's first-win search of a move
		// stopped at a reply placing last and reported it unproven (the
		// job ended "done", unknown, heuristic).
		{"pentominoes 6 x 6, score rule", service.PolyominoQuery{Game: "pentominoes", Width: intp(6), Height: intp(6), EndRule: "score"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := tc.q
			q.Background = true
			a, err := p.Analyze(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			if a.Proven || a.JobID == "" {
				t.Fatalf("proven %v in a microsecond, job %q", a.Proven, a.JobID)
			}
			job, err := jm.Get(ctx, a.JobID)
			got, job := jobAnswer(t, ctx, jm, job, err)
			want, err := patient.Analyze(ctx, tc.q)
			if err != nil {
				t.Fatal(err)
			}
			if !want.Proven || !got.Proven || got.Outcome != want.Outcome || got.Value != want.Value || len(got.BestMoves) == 0 {
				t.Fatalf("job %s proven %v value %d best %v; direct %s proven %v value %d",
					got.Outcome, got.Proven, got.Value, got.BestMoves, want.Outcome, want.Proven, want.Value)
			}
			if got.Nodes == 0 || got.ElapsedNs == 0 {
				t.Errorf("job answer: %d nodes in %d ns", got.Nodes, got.ElapsedNs)
			}
			if got.Capture != want.Capture || len(got.Board) != len(want.Board) || got.ToMove != want.ToMove {
				t.Fatalf("position fields: job %v %v %s, direct %v %v %s", got.Capture, got.Board, got.ToMove, want.Capture, want.Board, want.ToMove)
			}
			if job.Progress.Total < 1 || job.Progress.Done != job.Progress.Total && tc.q.Game == "capture" {
				t.Fatalf("progress %+v", job.Progress)
			}
		})
	}
	// A bad capture request is refused when the job is planned.
	bad, _ := json.Marshal(service.PolyominoQuery{Game: "capture", Moves: []string{"I:a1,a2"}})
	if _, err := jm.Submit(ctx, (service.PolyominoAnalyzeJob{}).Name(), bad); err == nil {
		t.Fatal("an illegal capture turn was accepted")
	}
}

// TestAnalyzeJobPlies: a polyomino.analyze job's answer carries the plies
// its units found, each move's and the position's, as a direct analysis
// given time does.
func TestAnalyzeJobPlies(t *testing.T) {
	s := searcherWithBudget(time.Microsecond)
	s.MinLengthTime = time.Minute // the units' plies, however slow the machine
	kind := service.PolyominoAnalyzeJob{Search: s, MaxDuration: time.Minute, Workers: 1}
	jm, ctx := runJobs(t, kind)
	for _, q := range []service.PolyominoQuery{
		{Game: "pentominoes", Width: intp(5), Height: intp(5), AllMoves: true},                                                          // won
		{Game: "tetrominoes", Width: intp(5), Height: intp(5), Moves: []string{"I:a1,b1,c1,d1", "L:a2,b2,a3,a4"}, AllMoves: true},       // lost
		{Game: "pentominoes", Width: intp(6), Height: intp(6), Moves: []string{"V:d3,d4,d5,e5,f5", "Y:b1,b2,c2,b3,b4"}, AllMoves: true}, // lost in 4, some moves in 2
	} {
		raw, _ := json.Marshal(q)
		job, err := jm.Submit(ctx, (service.PolyominoAnalyzeJob{}).Name(), raw)
		got, _ := jobAnswer(t, ctx, jm, job, err)
		direct := searcherWithBudget(time.Minute)
		direct.MinLengthTime = time.Minute
		want, err := service.NewPolyomino(direct).Analyze(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if got.Plies == nil || want.Plies == nil || *got.Plies != *want.Plies || got.Outcome != want.Outcome {
			t.Fatalf("%+v: job %s plies %v, direct %s plies %v", q, got.Outcome, got.Plies, want.Outcome, want.Plies)
		}
		t.Logf("%s %dx%d after %v: %s in %d plies, %d moves", q.Game, *q.Width, *q.Height, q.Moves, got.Outcome, *got.Plies, len(got.Moves))
		wantMove := map[string]int{}
		for _, m := range want.Moves {
			wantMove[m.Move] = *m.Plies
		}
		for i, m := range got.Moves {
			if m.Plies == nil || *m.Plies != wantMove[m.Move] {
				t.Fatalf("%+v: move %s plies %v, direct %d", q, m.Move, m.Plies, wantMove[m.Move])
			}
			// Perfect play's order: the fastest win first, the slowest loss first.
			if prev := got.Moves[max(i-1, 0)]; m.Outcome == prev.Outcome && (m.Outcome == "win" && *m.Plies < *prev.Plies || m.Outcome == "loss" && *m.Plies > *prev.Plies) {
				t.Errorf("%+v: move %s (%d plies) after %s (%d)", q, m.Move, *m.Plies, prev.Move, *prev.Plies)
			}
		}
		// Without all_moves the first best move is perfect play's: a
		// fastest win, or a slowest loss.
		q.AllMoves = false
		raw, _ = json.Marshal(q)
		job, err = jm.Submit(ctx, (service.PolyominoAnalyzeJob{}).Name(), raw)
		got, _ = jobAnswer(t, ctx, jm, job, err)
		if len(got.BestMoves) < 2 || wantMove[got.BestMoves[0]] != *want.Plies-1 {
			t.Errorf("%+v: best_moves[0] %v lasts %d plies after it, want %d", q, got.BestMoves, wantMove[got.BestMoves[0]], *want.Plies-1)
		}
	}
}

// TestAnalyzeJobFinalLength: units whose length searches find nothing
// (a nanosecond's least time here; in a long job, the lost children's
// slowest losses) leave the finished job without its position's plies,
// which the job then finds by the position's own length search, with a
// move perfect play chooses first (a review found a 17-minute job without
// the plies a 1-second request gave).
func TestAnalyzeJobFinalLength(t *testing.T) {
	s := searcherWithBudget(time.Microsecond)
	s.MinLengthTime = time.Nanosecond
	kind := service.PolyominoAnalyzeJob{Search: s, MaxDuration: time.Minute, Workers: 1}
	jm, ctx := runJobs(t, kind)
	for _, q := range []service.PolyominoQuery{
		{Game: "pentominoes", Width: intp(5), Height: intp(5), AllMoves: true},                                                          // won
		{Game: "pentominoes", Width: intp(5), Height: intp(5)},                                                                          // won, stopped at a first win
		{Game: "pentominoes", Width: intp(6), Height: intp(6), Moves: []string{"V:d3,d4,d5,e5,f5", "Y:b1,b2,c2,b3,b4"}, AllMoves: true}, // lost in 4
	} {
		raw, _ := json.Marshal(q)
		job, err := jm.Submit(ctx, (service.PolyominoAnalyzeJob{}).Name(), raw)
		got, _ := jobAnswer(t, ctx, jm, job, err)
		direct := searcherWithBudget(time.Minute)
		direct.MinLengthTime = time.Minute
		all := q
		all.AllMoves = true
		want, err := service.NewPolyomino(direct).Analyze(ctx, all)
		if err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("%s %dx%d after %v, all_moves %v", q.Game, *q.Width, *q.Height, q.Moves, q.AllMoves)
		if got.Plies == nil || want.Plies == nil || *got.Plies != *want.Plies || got.Outcome != want.Outcome {
			t.Fatalf("%s: job %s plies %v, direct %s plies %v", name, got.Outcome, got.Plies, want.Outcome, want.Plies)
		}
		wantMove := map[string]int{}
		for _, m := range want.Moves {
			wantMove[m.Move] = *m.Plies
		}
		if len(got.BestMoves) == 0 || !got.PerfectFirst || wantMove[got.BestMoves[0]] != *want.Plies-1 {
			t.Errorf("%s: perfect_first %v, best_moves %v: the first should last %d plies after it", name, got.PerfectFirst, got.BestMoves, *want.Plies-1)
		}
		for _, m := range got.Moves {
			if m.Plies != nil && *m.Plies != wantMove[m.Move] {
				t.Errorf("%s: move %s plies %d, direct %d", name, m.Move, *m.Plies, wantMove[m.Move])
			}
		}
	}
}

// TestNoJobBeyondTheSearch: a position where neither it nor any position
// after a move is searched (the hexomino opening) gets no job, which would
// only run the heuristic player on its 14,589 moves: analyze says why in
// job_error, and POST /v1/jobs refuses it. Where some positions after a
// move are searched (hexominoes on 12 x 12), the job's units for the
// others answer unknown at once, with no heuristic move.
func TestNoJobBeyondTheSearch(t *testing.T) {
	p, jm, ctx := backgroundAnalyzer(t)
	a, err := p.Analyze(ctx, service.PolyominoQuery{Game: "hexominoes", Background: true})
	if err != nil {
		t.Fatal(err)
	}
	if a.Proven || a.JobID != "" || !strings.Contains(a.JobError, "no job") || len(a.BestMoves) != 1 {
		t.Fatalf("hexominoes with background: proven %v, job %q, job_error %q, best %v", a.Proven, a.JobID, a.JobError, a.BestMoves)
	}
	raw, _ := json.Marshal(service.PolyominoQuery{Game: "hexominoes"})
	_, err = jm.Submit(ctx, (service.PolyominoAnalyzeJob{}).Name(), raw)
	if service.KindOf(err) != service.KindInvalid || !strings.Contains(err.Error(), "beyond the search") {
		t.Fatalf("polyomino.analyze job on the hexomino opening: %v", err)
	}

	kind := service.PolyominoAnalyzeJob{Search: searcherWithBudget(time.Second), MaxDuration: time.Minute, Workers: 1}
	hex, pool := service.PieceNames("hexominoes"), true
	raw, _ = json.Marshal(service.PolyominoQuery{Game: "pentominoes", Width: intp(12), Height: intp(12), Pieces: &hex, Pool: &pool})
	units, err := kind.Plan(ctx, raw)
	if err != nil {
		t.Fatal(err)
	}
	cfg, _ := polyomino.Preset("pentominoes")
	cfg.Width, cfg.Height, cfg.Order, cfg.Pieces = 12, 12, 6, nil
	pos, err := polyomino.NewPosition(cfg, nil, nil, polyomino.DefaultToMove)
	if err != nil {
		t.Fatal(err)
	}
	children := pos.Children()
	beyond := 0
	for _, u := range units[:40] {
		var unit struct {
			Index int
			Move  string
		}
		if err := json.Unmarshal(u, &unit); err != nil {
			t.Fatal(err)
		}
		if got := children[unit.Index].Moves[0].String(); got != unit.Move {
			t.Fatalf("unit %s: the position's class %d starts with %s", u, unit.Index, got)
		}
		if polyomino.Searchable(children[unit.Index].Position) {
			continue // a unit that searches (for up to a minute)
		}
		// A unit beyond the search answers at once.
		out, err := kind.Run(ctx, raw, u, func(int64) {})
		if err != nil {
			t.Fatal(err)
		}
		var a service.PolyominoAnswer
		if err := json.Unmarshal(out, &a); err != nil {
			t.Fatal(err)
		}
		if a.Outcome != "unknown" || len(a.BestMoves) != 0 || a.Nodes != 0 {
			t.Errorf("unit %s beyond the search: %s with %d nodes, best %v", u, a.Outcome, a.Nodes, a.BestMoves)
		}
		beyond++
	}
	if beyond == 0 || beyond == 40 {
		t.Errorf("%d of the first 40 units beyond the search", beyond)
	}
}

// TestPiecesLeft: an answer lists the pieces still to place, the common
// pool's or each hand's, from search, cache and book alike.
func TestPiecesLeft(t *testing.T) {
	p := service.NewPolyomino(searcherWithBudget(5 * time.Second))
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		q      service.PolyominoQuery
		pool   string
		first  string
		second string
	}{
		{"book", service.PolyominoQuery{Moves: []string{"L:c5,d5,e5,f5,c6"}}, "[F I N P T U V W X Y Z]", "[]", "[]"},
		{"search", service.PolyominoQuery{Game: "tetrominoes", Moves: []string{"I:a1,b1,c1,d1"}}, "[O T S L]", "[]", "[]"},
		{"hands", service.PolyominoQuery{Width: intp(5), Height: intp(5), Pieces: names("FILNPT"), Hands: &service.Hands{First: []string{"F", "I", "L"}, Second: []string{"N", "P", "T"}},
			Moves: []string{"I:a1,b1,c1,d1,e1"}}, "[]", "[F L]", "[N P T]"},
	} {
		for range 2 { // the second answer comes from the cache
			a, err := p.Analyze(ctx, tc.q)
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			got := a.PiecesLeft
			if fmt.Sprint(nonNil(got.Pool)) != tc.pool || fmt.Sprint(nonNil(got.First)) != tc.first || fmt.Sprint(nonNil(got.Second)) != tc.second {
				t.Errorf("%s (%s): pieces left %+v", tc.name, a.Source, got)
			}
		}
	}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// all_moves on the largest boards keeps to the budget: the answer's 12 484
// moves used to be mapped to and from the canonical frame one by one, each
// finding the frame again from every legal move (10.6 s for a budget of 1 s
// on an empty 16 x 16 board, 111 s with hexominoes). The bound is loose:
// the test catches the square, not a slow machine.
func TestAllMovesKeepsBudget(t *testing.T) {
	p := service.NewPolyomino(searcherWithBudget(30 * time.Second))
	start := time.Now()
	a, err := p.Analyze(context.Background(), service.PolyominoQuery{Width: intp(16), Height: intp(16), BudgetMs: 200, AllMoves: true})
	took := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Moves) != 12484 {
		t.Fatalf("%d moves, want 12484", len(a.Moves))
	}
	if took > 5*time.Second {
		t.Errorf("a 200 ms budget took %v", took)
	}
}

// With the jobs store down, background work is lost but the answer is not:
// it comes without a job, and job_error says why (it used to be a 503).
func TestAnalyzeInBackgroundStoreDown(t *testing.T) {
	p := service.NewPolyomino(searcherWithBudget(time.Microsecond))
	p.SetJobs(func(ctx context.Context, typ string, req json.RawMessage) (string, error) {
		return "", &service.Error{Kind: service.KindUnavailable, Message: "jobs store unavailable: could not store the job"}
	})
	a, err := p.Analyze(context.Background(), service.PolyominoQuery{Game: "pentominoes", Width: intp(6), Height: intp(6), Background: true})
	if err != nil {
		t.Fatal(err)
	}
	if a.Proven || a.JobID != "" || !strings.Contains(a.JobError, "jobs store unavailable") || len(a.BestMoves) != 1 {
		t.Errorf("answer %+v", a)
	}
}

// Repeated background requests for one position share its job while it is
// queued or running; once it is canceled, the next request starts another.
func TestAnalyzeInBackgroundSharesJob(t *testing.T) {
	m := service.NewMetrics(prometheus.NewRegistry())
	p, jm, ctx := backgroundAnalyzerWith(t, m)
	p.SetJobActive(func(ctx context.Context, id string) bool {
		j, err := jm.Get(ctx, id)
		return err == nil && !j.Status.Final()
	})
	// An empty 12 x 12 board: far too big to finish here, so the job is
	// still queued or running when the second request comes.
	q := service.PolyominoQuery{Game: "pentominoes", Width: intp(12), Height: intp(12), Background: true}
	first, err := p.Analyze(ctx, q)
	if err != nil || first.JobID == "" {
		t.Fatalf("first: %v, job %q", err, first.JobID)
	}
	second, err := p.Analyze(ctx, q)
	if err != nil || second.JobID != first.JobID {
		t.Fatalf("second: %v, job %q, want the first's %q", err, second.JobID, first.JobID)
	}
	// Another client, or the other player to move, gets a job of its own
	// (the job's answer names the winner; its client may cancel it).
	other, err := p.Analyze(service.WithClient(ctx, "ip:192.0.2.9"), q)
	if err != nil || other.JobID == "" || other.JobID == first.JobID {
		t.Fatalf("another client: %v, job %q (the first client's %q)", err, other.JobID, first.JobID)
	}
	q2 := q
	q2.ToMove = "second"
	flipped, err := p.Analyze(ctx, q2)
	if err != nil || flipped.JobID == "" || flipped.JobID == first.JobID {
		t.Fatalf("second to move: %v, job %q (first to move: %q)", err, flipped.JobID, first.JobID)
	}
	_, _ = jm.Cancel(ctx, other.JobID)
	_, _ = jm.Cancel(ctx, flipped.JobID)
	if _, err := jm.Cancel(ctx, first.JobID); err != nil {
		t.Fatal(err)
	}
	third, err := p.Analyze(ctx, q)
	if err != nil || third.JobID == "" || third.JobID == first.JobID {
		t.Fatalf("after the cancel: %v, job %q (the canceled one %q)", err, third.JobID, first.JobID)
	}
	_, _ = jm.Cancel(ctx, third.JobID)
	// Counted for the operator: four jobs started, one shared.
	for outcome, want := range map[string]float64{"started": 4, "shared": 1, "store_down": 0, "capped": 0} {
		if got := testutil.ToFloat64(m.Background.WithLabelValues(outcome)); got != want {
			t.Errorf("background analyses %s: %v, want %v", outcome, got, want)
		}
	}
}

// A polyomino.analyze job on a position the opening book answers (the
// empty 8 x 8 board, and with all_moves the position after a winning first
// move) is one unit that reads the book: it used to plan a search per
// class of moves (296 on the empty board). After the certificate's first
// move it has the plies of the book's lengths file.
func TestAnalyzeJobFromBook(t *testing.T) {
	s := searcherWithBudget(time.Microsecond)
	jm, ctx := runJobs(t, service.PolyominoAnalyzeJob{Search: s, MaxDuration: time.Minute, Workers: 1})
	for _, q := range []service.PolyominoQuery{
		{},
		{Moves: []string{"L:c5,d5,e5,f5,c6"}, AllMoves: true},
		{AllMoves: true}, // every first move is in the book
	} {
		req, _ := json.Marshal(q)
		j, err := jm.Submit(ctx, service.PolyominoAnalyzeJob{}.Name(), req)
		if err != nil {
			t.Fatal(err)
		}
		for err == nil && !j.Status.Final() {
			time.Sleep(20 * time.Millisecond)
			j, err = jm.Get(ctx, j.ID)
		}
		if err != nil || j.Status != jobs.StatusDone || j.Progress.Total != 1 {
			t.Fatalf("%v: %v %s %s, progress %+v", q.Moves, err, j.Status, j.Error, j.Progress)
		}
		var a service.PolyominoAnswer
		if err := json.Unmarshal(j.Result, &a); err != nil {
			t.Fatal(err)
		}
		if a.Source != service.SourceBook || !a.Proven || len(a.BestMoves) == 0 || q.AllMoves && len(a.Moves) != a.LegalMoves {
			t.Errorf("%v: source %s proven %v, %d best moves, %d of %d moves", q.Moves, a.Source, a.Proven, len(a.BestMoves), len(a.Moves), a.LegalMoves)
		}
		for _, m := range a.Moves {
			if !m.Proven {
				t.Fatalf("%v: move %s not proven in a whole answer", q.Moves, m.Move)
			}
			if len(q.Moves) == 1 && m.Plies == nil {
				t.Fatalf("%v: move %s without the plies of the book's lengths file", q.Moves, m.Move)
			}
		}
		if len(q.Moves) == 1 && (a.Plies == nil || !a.PerfectFirst) {
			t.Errorf("%v: plies %v, perfect first %v: the book's lengths file knows them", q.Moves, a.Plies, a.PerfectFirst)
		}
	}
	// The book knows the value of the position after a losing opening
	// (its winning reply) but not every reply's: with all_moves the job
	// searches each class (it used to answer from the book with moves
	// unproven; the empty board was such a position until every first
	// move was classified).
	req, _ := json.Marshal(service.PolyominoQuery{Moves: []string{"I:a1,b1,c1,d1,e1"}, AllMoves: true})
	j, err := jm.Submit(ctx, service.PolyominoAnalyzeJob{}.Name(), req)
	if err != nil {
		t.Fatal(err)
	}
	if j.Progress.Total < 100 {
		t.Errorf("all_moves after a losing opening: %d units, want one per class of replies", j.Progress.Total)
	}
	_, _ = jm.Cancel(ctx, j.ID)
}

// TestPieceSetsInCatalogue: the catalogue lists 5, 12 and 35 pieces with
// their pictures and the symbols the tilings' solution rows use (H10 is A).
func TestPieceSetsInCatalogue(t *testing.T) {
	info := service.PolyominoInfo()
	want := map[int]int{4: 5, 5: 12, 6: 35}
	for _, ps := range info.PieceSets {
		if len(ps.Pieces) != want[ps.Order] {
			t.Errorf("order %d: %d pieces", ps.Order, len(ps.Pieces))
		}
		seen := map[string]bool{}
		for _, p := range ps.Pieces {
			if len(p.Symbol) != 1 || seen[p.Symbol] || len(p.Picture) == 0 {
				t.Errorf("%s: symbol %q (seen %v), %d picture rows", p.Name, p.Symbol, seen[p.Symbol], len(p.Picture))
			}
			seen[p.Symbol] = true
			if p.Name == "H10" && p.Symbol != "A" || p.Name == "L" && p.Symbol != "L" {
				t.Errorf("%s: symbol %q", p.Name, p.Symbol)
			}
		}
	}
}

// TestVariantsInCatalogue: the catalogue names Teeko's 16 forms and the
// placement games' variants, each with request fields the service takes.
func TestVariantsInCatalogue(t *testing.T) {
	tv := service.TeekoInfo().Variants
	seen := map[string]bool{}
	for _, v := range tv {
		seen[v.Request["rules"]+"/"+v.Request["drop_style"]] = true
		if _, err := teeko.ParseRules(v.Request["rules"]); err != nil {
			t.Errorf("%s: %v", v.Name, err)
		}
		if _, err := teeko.ParseDropStyle(v.Request["drop_style"]); err != nil || len(v.Request) != 2 {
			t.Errorf("%s: %v %v", v.Name, v.Request, err)
		}
	}
	if len(tv) != 16 || len(seen) != 16 {
		t.Errorf("%d Teeko variants, %d distinct", len(tv), len(seen))
	}
	p := service.NewPolyomino(searcherWithBudget(time.Second))
	pv := service.PolyominoInfo().Variants
	for _, v := range pv {
		raw, _ := json.Marshal(v.Request)
		var q service.PolyominoQuery
		if err := service.DecodeRequest(raw, &q); err != nil {
			t.Fatalf("%s: %v", v.Name, err)
		}
		if m, err := p.Moves(context.Background(), q); err != nil || m.Count == 0 {
			t.Errorf("%s: %d moves, %v", v.Name, m.Count, err)
		}
	}
	if len(pv) != 3 {
		t.Errorf("%d placement game variants", len(pv))
	}
}

// A jobs store that hangs holds an answer up by at most a second (it did
// by the store's retries, seconds), and for a few seconds after that no
// background job is tried. A store at its cap of unfinished jobs costs
// the job, not the answer, and no pause.
func TestAnalyzeInBackgroundStoreSlow(t *testing.T) {
	p := service.NewPolyomino(searcherWithBudget(time.Microsecond))
	var calls atomic.Int32
	p.SetJobs(func(ctx context.Context, typ string, req json.RawMessage) (string, error) {
		calls.Add(1)
		<-ctx.Done()
		return "", &service.Error{Kind: service.KindUnavailable, Message: "jobs store unavailable: " + ctx.Err().Error()}
	})
	q := service.PolyominoQuery{Game: "pentominoes", Width: intp(6), Height: intp(6), Background: true}
	for i := range 3 {
		start := time.Now()
		a, err := p.Analyze(context.Background(), q)
		if took := time.Since(start); err != nil || took > 3*time.Second || a.JobID != "" || a.JobError == "" {
			t.Fatalf("request %d: %v after %v, job %q, job_error %q", i, err, took, a.JobID, a.JobError)
		}
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("%d submissions, want 1 (then a pause)", n)
	}

	busy := service.NewPolyomino(searcherWithBudget(time.Microsecond))
	calls.Store(0)
	busy.SetJobs(func(ctx context.Context, typ string, req json.RawMessage) (string, error) {
		calls.Add(1)
		return "", &service.Error{Kind: service.KindBusy, Message: "100 jobs are unfinished, the server's cap"}
	})
	for range 2 {
		a, err := busy.Analyze(context.Background(), q)
		if err != nil || a.JobID != "" || !strings.Contains(a.JobError, "cap") || len(a.BestMoves) != 1 {
			t.Fatalf("at the cap: %v, %+v", err, a)
		}
	}
	if n := calls.Load(); n != 2 {
		t.Errorf("%d submissions at the cap, want 2 (no pause)", n)
	}

	// A job whose planning outlasts the wait (its game evicted and built
	// again, or the build queue long) ends with the submission's
	// context, not a store's error: the server's load, no pause (it was
	// counted store_down and paused background jobs).
	slow := service.NewPolyomino(searcherWithBudget(time.Microsecond))
	calls.Store(0)
	slow.SetJobs(func(ctx context.Context, typ string, req json.RawMessage) (string, error) {
		calls.Add(1)
		<-ctx.Done()
		return "", ctx.Err()
	})
	for range 2 {
		a, err := slow.Analyze(context.Background(), q)
		if err != nil || a.JobID != "" || !strings.Contains(a.JobError, "planning it took longer") || len(a.BestMoves) != 1 {
			t.Fatalf("planning too slow: %v, %+v", err, a)
		}
	}
	if n := calls.Load(); n != 2 {
		t.Errorf("%d submissions planned too slowly, want 2 (no pause)", n)
	}
}

func names(s string) *service.PieceNames { n := service.PieceNames(s); return &n }

// TestNoJobForAnEndedGame: a finished game gets no job, in the capture
// variant as in the others (a review found the capture variant planning a
// job where the others refused with 400).
func TestNoJobForAnEndedGame(t *testing.T) {
	kind := service.PolyominoAnalyzeJob{Search: searcherWithBudget(time.Second), MaxDuration: time.Minute, Workers: 1}
	full := func(n int) []string {
		rows := make([]string, n)
		for i := range rows {
			rows[i] = strings.Repeat("#", n)
		}
		return rows
	}
	for _, q := range []service.PolyominoQuery{
		{Game: "tetrominoes", Board: full(5)},
		{Game: "capture", Board: full(7)},
	} {
		raw, _ := json.Marshal(q)
		_, err := kind.Plan(context.Background(), raw)
		if service.KindOf(err) != service.KindInvalid || !strings.Contains(err.Error(), "the game is over") {
			t.Errorf("%s on a full board: %v; want the game is over", q.Game, err)
		}
	}
}

// TestJobAnswerServesRequests: a position a polyomino.analyze job proved
// answers the requests from the cache, in any process sharing it (a
// searcher of its own here: no table of the job's), and so does its
// mirror image, with the best moves mapped into its frame.
func TestJobAnswerServesRequests(t *testing.T) {
	s := searcherWithBudget(time.Microsecond)
	kind := service.PolyominoAnalyzeJob{Search: s, MaxDuration: time.Minute, Workers: 1}
	jm, ctx := runJobs(t, kind)
	q := service.PolyominoQuery{Game: "pentominoes", Width: intp(6), Height: intp(6), Moves: []string{"L:a1,a2,a3,a4,b4"}}
	raw, _ := json.Marshal(q)
	job, err := jm.Submit(ctx, kind.Name(), raw)
	want, _ := jobAnswer(t, ctx, jm, job, err)
	if !want.Proven {
		t.Fatalf("the job did not prove the position: %+v", want)
	}
	other := &service.Searcher{Loader: s.Loader, Slots: service.NewSlots(1, 4, time.Second, nil),
		Budgets: service.Budgets{Default: time.Microsecond, Max: time.Microsecond}, Workers: 1}
	p := service.NewPolyomino(other)
	turn := func(m string) string { return quarterTurn(6, m) }
	for _, tc := range []struct {
		name string
		move func(string) string
	}{{"same position", func(m string) string { return m }}, {"a quarter turn", turn}} {
		q := q
		q.Moves = []string{tc.move(q.Moves[0])}
		a, err := p.Analyze(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if !a.Proven || a.Source != service.SourceCache || a.Outcome != want.Outcome || a.Value != want.Value {
			t.Fatalf("%s: %s proven %v from %s; the job's %s", tc.name, a.Outcome, a.Proven, a.Source, want.Outcome)
		}
		var mapped []string
		for _, m := range want.BestMoves {
			mapped = append(mapped, tc.move(m))
		}
		if !slices.Equal(a.BestMoves, mapped) || a.BestComplete != want.BestComplete || !reflect.DeepEqual(a.Plies, want.Plies) {
			t.Errorf("%s: best %v (complete %v, plies %v); the job's, mapped: %v (%v, %v)", tc.name, a.BestMoves, a.BestComplete, a.Plies, mapped, want.BestComplete, want.Plies)
		}
	}
	// The job stopped at its first win: a request with time completes the
	// best moves (the units' summed time, kept as the answer's, made it
	// need twice that: TestJobAnswerKeepsBetter checks the entry).
	if want.BestComplete {
		t.Skip("the job found every best move")
	}
	budget := 5 * time.Second // the completion takes a fraction of a second (more under the race detector)
	patient := service.NewPolyomino(&service.Searcher{Loader: s.Loader, Slots: service.NewSlots(1, 4, time.Second, nil),
		Budgets: service.Budgets{Default: budget, Max: budget}, Workers: 1})
	if a, err := patient.Analyze(ctx, q); err != nil || !a.Proven || !a.BestComplete || len(a.BestMoves) < len(want.BestMoves) {
		t.Fatalf("a %v request after the job: %v, proven %v, best_complete %v, %d best moves (the job's %d)", budget, err, a.Proven, a.BestComplete, len(a.BestMoves), len(want.BestMoves))
	}
}

// quarterTurn rotates a move of the n x n board (n < 10) a quarter turn
// (no involution: a frame mapped the wrong way shows), its cells sorted as
// the notation writes them.
func quarterTurn(n int, m string) string {
	piece, cells, _ := strings.Cut(m, ":")
	out := strings.Split(cells, ",")
	for i, c := range out {
		col, row := int(c[0]-'a'), int(c[1]-'1')
		out[i] = fmt.Sprintf("%c%d", 'a'+n-1-row, col+1)
	}
	slices.SortFunc(out, func(x, y string) int { return cmp.Or(cmp.Compare(x[1:], y[1:]), cmp.Compare(x[0], y[0])) })
	return piece + ":" + strings.Join(out, ",")
}

// sameSet: a and b hold the same strings, in any order.
func sameSet(a, b []string) bool {
	return len(a) == len(b) && reflect.DeepEqual(slices.Sorted(slices.Values(a)), slices.Sorted(slices.Values(b)))
}

// TestAnalyzeJobAgainFromCache: a job whose position a finished job (or a
// request) proved whole is one unit carrying the cached answer, which any
// worker gives back in the position's frame; an answer that does not
// serve the whole job (stopped at its first win) plans every class again.
func TestAnalyzeJobAgainFromCache(t *testing.T) {
	s := searcherWithBudget(time.Microsecond)
	s.MinLengthTime = time.Minute
	kind := service.PolyominoAnalyzeJob{Search: s, MaxDuration: time.Minute, Workers: 1}
	jm, ctx := runJobs(t, kind)
	submit := func(q service.PolyominoQuery) (service.PolyominoAnswer, jobs.Job) {
		raw, _ := json.Marshal(q)
		job, err := jm.Submit(ctx, kind.Name(), raw)
		return jobAnswer(t, ctx, jm, job, err)
	}
	for _, q := range []service.PolyominoQuery{
		{Game: "tetrominoes", Width: intp(5), Height: intp(5), Moves: []string{"I:a1,b1,c1,d1", "L:a2,b2,a3,a4"}, AllMoves: true}, // lost
		{Game: "pentominoes", Width: intp(6), Height: intp(6), Moves: []string{"V:d3,d4,d5,e5,f5", "Y:b1,b2,c2,b3,b4"}},           // lost
	} {
		first, firstJob := submit(q)
		if firstJob.Progress.Total < 2 || !first.Proven || !first.BestComplete {
			t.Fatalf("%v: the first job: %d units, proven %v, best_complete %v", q.Moves, firstJob.Progress.Total, first.Proven, first.BestComplete)
		}
		again, againJob := submit(q)
		if againJob.Progress.Total != 1 || again.Source != service.SourceCache {
			t.Fatalf("%v: the same job again: %d units, source %q", q.Moves, againJob.Progress.Total, again.Source)
		}
		again.Source = first.Source
		if !reflect.DeepEqual(again, first) {
			t.Errorf("%v: the same job again answered\n%+v\nthe first\n%+v", q.Moves, again, first)
		}
		// The same position turned: the cached answer in its frame.
		n := *q.Width
		turned := q
		turned.Moves = nil
		for _, m := range q.Moves {
			turned.Moves = append(turned.Moves, quarterTurn(n, m))
		}
		got, job := submit(turned)
		if job.Progress.Total != 1 || got.Outcome != first.Outcome || !reflect.DeepEqual(got.Plies, first.Plies) {
			t.Fatalf("%v: %d units, %s in %v plies; the first %s in %v", turned.Moves, job.Progress.Total, got.Outcome, got.Plies, first.Outcome, first.Plies)
		}
		// (Moves of equal value and plies come in the turned position's
		// order.)
		var best []string
		for _, m := range first.BestMoves {
			best = append(best, quarterTurn(n, m))
		}
		if !sameSet(got.BestMoves, best) {
			t.Errorf("%v: best moves %v, the first's turned %v", turned.Moves, got.BestMoves, best)
		}
		want := map[string]service.PolyominoMove{}
		for _, m := range first.Moves {
			m.Move = quarterTurn(n, m.Move)
			want[m.Move] = m
		}
		for _, m := range got.Moves {
			if !reflect.DeepEqual(m, want[m.Move]) {
				t.Errorf("%v: move %+v, the first's turned %+v", turned.Moves, m, want[m.Move])
			}
		}
		if len(got.Moves) != len(want) {
			t.Errorf("%v: %d moves, the first %d", turned.Moves, len(got.Moves), len(want))
		}
	}
	// A job that stopped at its first win does not answer the same job
	// again (its best moves are not all known): every class is planned.
	q := service.PolyominoQuery{Game: "pentominoes", Width: intp(6), Height: intp(6), Moves: []string{"L:a1,a2,a3,a4,b4"}}
	first, _ := submit(q)
	if first.BestComplete {
		t.Skip("the job found every best move")
	}
	if _, job := submit(q); job.Progress.Total < 2 {
		t.Errorf("a job after a first-win job: %d units", job.Progress.Total)
	}
}

// TestJobKindsVersioned: every job kind the service plans keeps a unit
// format with its jobs (jobs.Versioned), so that a worker of an earlier
// version says a job is a later version's rather than refuse its units as
// a bad request.
func TestJobKindsVersioned(t *testing.T) {
	for _, k := range []jobs.Kind{service.PolyominoAnalyzeJob{}, service.TilingsJob{}, service.BookJob{}} {
		if v, ok := k.(jobs.Versioned); !ok || v.UnitFormat() < 1 {
			t.Errorf("%s: no unit format", k.Name())
		}
	}
}
