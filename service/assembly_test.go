package service

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/gamesolver/gamesolver/engine/polyomino"
	"github.com/gamesolver/gamesolver/service/cache"
)

func TestAssemblyGate(t *testing.T) {
	m := NewMetrics(prometheus.NewRegistry())
	g := NewAssembly(1, m)
	ctx := context.Background()
	r1, err := g.Enter(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	// A small answer never waits, even with every place taken.
	rs, err := g.Enter(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	rs()
	// A big one waits for the place, and gets it when it is released.
	got := make(chan error, 1)
	go func() {
		r, err := g.Enter(ctx, true)
		if err == nil {
			r()
		}
		got <- err
	}()
	waitUntil(t, func() bool { return testutil.ToFloat64(m.AssemblyWaiting) == 1 })
	select {
	case err := <-got:
		t.Fatalf("a big answer entered a full gate: %v", err)
	default:
	}
	r1()
	if err := <-got; err != nil {
		t.Fatal(err)
	}
	// A request that ends leaves the queue.
	r1, _ = g.Enter(ctx, true)
	cctx, cancel := context.WithCancel(ctx)
	go func() { time.Sleep(20 * time.Millisecond); cancel() }()
	if _, err := g.Enter(cctx, true); !errors.Is(err, context.Canceled) {
		t.Errorf("canceled wait: %v", err)
	}
	r1()
	if w := testutil.ToFloat64(m.AssemblyWaiting); w != 0 {
		t.Errorf("waiting = %v after the waits ended", w)
	}
	// No gate: no wait.
	var none *Assembly
	if r, err := none.Enter(ctx, true); err != nil {
		t.Fatal(err)
	} else {
		r()
	}
}

// A request that holds its place (HoldAssembly) enters once, whatever the
// number of its big steps, and keeps the place until done.
func TestAssemblyHold(t *testing.T) {
	g := NewAssembly(1, nil)
	hctx, done := HoldAssembly(context.Background())
	for i := range 3 {
		r, err := g.Enter(hctx, true)
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		r() // a no-op: the place is the request's
	}
	tctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := g.Enter(tctx, true); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("another request entered while the place was held: %v", err)
	}
	// Work of another kind gives the place up; the next big step takes
	// one again.
	PauseAssembly(hctx)
	if r, err := g.Enter(context.Background(), true); err != nil {
		t.Fatalf("the place was not given up: %v", err)
	} else {
		r()
	}
	if _, err := g.Enter(hctx, true); err != nil || len(g.run) != 1 {
		t.Fatalf("the request took no place again: %v, %d taken", err, len(g.run))
	}
	// A flight's search, shared with other requests, does not use the
	// request's place: it would wait for one of its own.
	fctx, fcancel := context.WithTimeout(withoutHold(hctx), 50*time.Millisecond)
	defer fcancel()
	if _, err := g.Enter(fctx, true); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a flight's step entered on the request's place: %v", err)
	}
	done()
	done() // idempotent
	r, err := g.Enter(context.Background(), true)
	if err != nil {
		t.Fatal(err)
	}
	r()
	if len(g.run) != 0 {
		t.Errorf("%d places still taken", len(g.run))
	}
}

// The requests that share a flight's big answer get one decoded value
// (decoded once, however many places the gate has: a review found 4 of 7
// decoding it again with 4 places), equal to what each would have
// decoded; small answers are decoded by each request.
func TestRunCachedSharesBigDecodes(t *testing.T) {
	for _, n := range []int{10, 2 * BigAnswerMoves} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			s := &Searcher{
				Loader:   cache.NewLoader(cache.NewMemory(1<<20, 0), 0),
				Slots:    NewSlots(1, 1, time.Second, nil),
				Budgets:  Budgets{Default: time.Second, Max: time.Minute},
				Assembly: NewAssembly(4, nil),
			}
			want := PolyominoAnswer{Outcome: "unknown", BestMoves: []string{}}
			for i := range n {
				want.Moves = append(want.Moves, PolyominoMove{Move: fmt.Sprintf("I:a%d,b%d,c%d,d%d,e%d", i, i, i, i, i), Outcome: "unknown"})
			}
			release := make(chan struct{})
			search := func(context.Context) (PolyominoAnswer, int64, bool, error) {
				<-release
				return want, 1, false, nil // unproven: not cached, shared by the flight only
			}
			const requests = 8
			var wg sync.WaitGroup
			var joined sync.WaitGroup
			answers := make([]PolyominoAnswer, requests)
			for i := range requests {
				wg.Add(1)
				joined.Add(1)
				go func() {
					defer wg.Done()
					joined.Done()
					a, _, err := runCached(context.Background(), s, "test", "k", time.Second, nil, search)
					if err != nil {
						t.Error(err)
					}
					answers[i] = a
				}()
			}
			joined.Wait()
			time.Sleep(100 * time.Millisecond) // the requests join the flight
			close(release)
			wg.Wait()
			shared := 0
			for i, a := range answers {
				if !reflect.DeepEqual(a.Moves, want.Moves) {
					t.Fatalf("request %d: %d moves, not the search's %d", i, len(a.Moves), len(want.Moves))
				}
				if i > 0 && &a.Moves[0] == &answers[0].Moves[0] {
					shared++
				}
			}
			if big := n >= BigAnswerMoves; big != (shared == requests-1) {
				t.Errorf("%d moves: %d of %d requests shared the first one's decoded answer", n, shared, requests-1)
			}
		})
	}
}

// BenchmarkBigAnswerAssembly: what a request for the hexominoes opening
// with all_moves (14,589 moves) does with the shared answer of its flight,
// outside the solver slot: decode it, map its moves onto the position.
func BenchmarkBigAnswerAssembly(b *testing.B) {
	q := PolyominoQuery{Game: "hexominoes", AllMoves: true}
	pos, err := q.position()
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	res, err := polyomino.Solve(ctx, pos, polyomino.Options{AllMoves: true})
	if err != nil {
		b.Fatal(err)
	}
	raw, err := json.Marshal(answerOf(res, pos.Frame().ToCanonical))
	if err != nil {
		b.Fatal(err)
	}
	b.Run("decode", func(b *testing.B) {
		for b.Loop() {
			var a PolyominoAnswer
			if err := json.Unmarshal(raw, &a); err != nil {
				b.Fatal(err)
			}
		}
	})
	var canon PolyominoAnswer
	if err := json.Unmarshal(raw, &canon); err != nil {
		b.Fatal(err)
	}
	b.Run("map", func(b *testing.B) {
		for b.Loop() {
			if a := fromCanonical(canon, pos); len(a.Moves) != len(canon.Moves) {
				b.Fatal(len(a.Moves))
			}
		}
	})
}

// BenchmarkBigAnswerSolve: the making of that answer in a solver slot,
// the flight's one search (the flood's budget of 1 s; the heuristic player
// answers the opening, beyond the search) and its encoding.
func BenchmarkBigAnswerSolve(b *testing.B) {
	q := PolyominoQuery{Game: "hexominoes", AllMoves: true}
	pos, err := q.position()
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		res, err := polyomino.Solve(ctx, pos, polyomino.Options{AllMoves: true, Workers: 1})
		cancel()
		if err != nil {
			b.Fatal(err)
		}
		raw, err := json.Marshal(answerOf(res, pos.Frame().ToCanonical))
		if err != nil || len(res.Moves) != 14589 {
			b.Fatal(err, len(res.Moves))
		}
		_ = raw
	}
}
