package service

import (
	"context"
	"errors"
	"math"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"

	"github.com/gamesolver/gamesolver/service/cache"
)

func TestBudgetsClamp(t *testing.T) {
	b := Budgets{Default: 2 * time.Second, Max: 30 * time.Second}
	tests := []struct {
		ms   int64
		want time.Duration
	}{
		{0, 2 * time.Second},
		{-5, 2 * time.Second},
		{500, 500 * time.Millisecond},
		{30000, 30 * time.Second},
		{1 << 50, 30 * time.Second},
		{9223372036855, 30 * time.Second}, // overflows in nanoseconds
		{math.MaxInt64, 30 * time.Second},
	}
	for _, tt := range tests {
		if got := b.Clamp(tt.ms); got != tt.want {
			t.Errorf("Clamp(%d) = %v, want %v", tt.ms, got, tt.want)
		}
	}
}

func TestSlotsAdmission(t *testing.T) {
	m := NewMetrics(prometheus.NewRegistry())
	s := NewSlots(2, 1, time.Second, m)
	ctx := context.Background()
	r1, err1 := s.Acquire(ctx)
	r2, err2 := s.Acquire(ctx)
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	if got := testutil.ToFloat64(m.SlotsInUse); got != 2 {
		t.Errorf("slots in use = %v", got)
	}
	// One may wait in the queue; it gets the slot released while it waits.
	got := make(chan error, 1)
	go func() {
		r, err := s.Acquire(ctx)
		if err == nil {
			r()
		}
		got <- err
	}()
	waitUntil(t, func() bool { return testutil.ToFloat64(m.SlotsWaiting) == 1 })
	// The queue is full: refused at once, with a Retry-After.
	start := time.Now()
	_, err := s.Acquire(ctx)
	var se *Error
	if !errors.As(err, &se) || se.Kind != KindBusy || se.RetryAfter <= 0 || time.Since(start) > 500*time.Millisecond { // at once: well before the 1 s wait
		t.Errorf("full queue: err %v after %v", err, time.Since(start))
	}
	r1()
	if err := <-got; err != nil {
		t.Errorf("queued request: %v", err)
	}
	// A queued request gives up after the longest wait.
	_, _ = s.Acquire(ctx) // takes the slot r1 freed
	start = time.Now()
	if _, err := s.Acquire(ctx); KindOf(err) != KindBusy || time.Since(start) < 900*time.Millisecond {
		t.Errorf("queue wait: %v after %v", err, time.Since(start))
	}
	// A canceled client leaves the queue.
	cctx, cancel := context.WithCancel(ctx)
	go func() { time.Sleep(20 * time.Millisecond); cancel() }()
	if _, err := s.Acquire(cctx); !errors.Is(err, context.Canceled) {
		t.Errorf("canceled wait: %v", err)
	}
	r2()
	if testutil.ToFloat64(m.SlotsRefused) != 2 {
		t.Errorf("refused = %v, want 2", testutil.ToFloat64(m.SlotsRefused))
	}
	// The capacity, and the requests' waits: 6, 3 of them in the queue
	// (one got a slot, one gave up after 1 s, one was canceled); the full
	// queue's refusal at once is not a wait (a reviewer's: under overload
	// such refusals pulled the quantiles to 0).
	if got := testutil.ToFloat64(m.Slots); got != 2 {
		t.Errorf("slots = %v, want 2", got)
	}
	var h dto.Metric
	_ = m.SlotWait.(prometheus.Metric).Write(&h)
	if n, sum := h.GetHistogram().GetSampleCount(), h.GetHistogram().GetSampleSum(); n != 6 || sum < 1 {
		t.Errorf("slot waits: %d observed, %v s in all; want 6, at least the 1 s wait", n, sum)
	}
}

func TestReadiness(t *testing.T) {
	r := NewReadiness(cache.NewMemory(1<<10, 0))
	if rep := r.Report(context.Background()); !rep.Ready || rep.Cache.Backend != "memory" {
		t.Errorf("empty readiness %+v", rep)
	}
	r.Add(func() Component { return Component{Name: "a", Ready: true, State: "ready"} })
	r.Add(func() Component { return Component{Name: "b", State: "building"} })
	if rep := r.Report(context.Background()); rep.Ready || len(rep.Components) != 2 {
		t.Errorf("readiness with a building component %+v", rep)
	}
}

func waitUntil(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached in 5s")
		}
		time.Sleep(time.Millisecond)
	}
}

// Two concurrent requests for one position with different budgets each run
// under their own budget: the longer one does not take the shorter one's
// partial answer (they used to share one search by the cache key).
func TestRunCachedKeepsEachBudget(t *testing.T) {
	s := &Searcher{
		Loader:  cache.NewLoader(cache.NewMemory(1<<20, 0), 0),
		Slots:   NewSlots(2, 2, time.Second, nil),
		Budgets: Budgets{Default: time.Second, Max: time.Minute},
	}
	started := make(chan struct{}, 2)
	search := func(name string) func(ctx context.Context) (string, int64, bool, error) {
		return func(ctx context.Context) (string, int64, bool, error) {
			started <- struct{}{}
			<-ctx.Done()
			return name, 0, false, nil
		}
	}
	short, long := make(chan string, 1), make(chan string, 1)
	ask := func(budget time.Duration, name string, to chan<- string) {
		v, _, err := runCached(context.Background(), s, "test", "k", budget, nil, search(name))
		if err != nil {
			t.Error(err)
		}
		to <- v
	}
	go ask(100*time.Millisecond, "short", short)
	<-started
	go ask(300*time.Millisecond, "long", long)
	select {
	case <-started:
	case v := <-long:
		t.Fatalf("the request with the longer budget got %q without a search of its own", v)
	case <-time.After(10 * time.Second):
		t.Fatal("the request with the longer budget did not search")
	}
	if v := <-short; v != "short" {
		t.Errorf("shorter budget's answer = %q", v)
	}
	if v := <-long; v != "long" {
		t.Errorf("longer budget's answer = %q, want its own", v)
	}
}

// TestRunCachedSharesByAsked: requests asking for one budget share a
// search whatever each had spent before it (Asked: a book look-up of
// 100-330 ms made ten identical requests six to eight searches, nine of
// them refused for want of a slot).
func TestRunCachedSharesByAsked(t *testing.T) {
	s := &Searcher{
		Loader:  cache.NewLoader(cache.NewMemory(1<<20, 0), 0),
		Slots:   NewSlots(2, 2, time.Second, nil),
		Budgets: Budgets{Default: time.Second, Max: time.Minute},
	}
	var searches atomic.Int32
	started := make(chan struct{}, 2)
	search := func(ctx context.Context) (string, int64, bool, error) {
		searches.Add(1)
		started <- struct{}{}
		<-ctx.Done()
		return "first", 0, false, nil
	}
	got := make(chan string, 2)
	ask := func(left time.Duration) {
		v, _, err := runCached(context.Background(), s, "test", "k", left, &runOptions[string]{Asked: 2 * time.Second}, search)
		if err != nil {
			t.Error(err)
		}
		got <- v
	}
	go ask(2 * time.Second)
	<-started
	go ask(1900 * time.Millisecond)
	for range 2 {
		if v := <-got; v != "first" {
			t.Errorf("answer %q, want the shared search's", v)
		}
	}
	if n := searches.Load(); n != 1 {
		t.Errorf("%d searches for two requests asking the same budget", n)
	}
}

// TestRunCachedRefusesInvalidEntries: a cache entry that does not decode
// as a final answer (corrupt, or not written by this code) is a miss: the
// search runs and its answer replaces the entry. It used to answer 500
// (garbage, []) or an empty answer from the cache ({}, null).
func TestRunCachedRefusesInvalidEntries(t *testing.T) {
	proven := PolyominoAnswer{Outcome: "win", Proven: true, BestComplete: true, BestMoves: []string{"I:a1,a2,a3,a4,a5"}}
	for _, stored := range []string{"garbage", "[]", "{}", "null", `{"result":"win","proven":false}`, `"x"`} {
		mem := cache.NewMemory(1<<20, 0)
		s := &Searcher{
			Loader:  cache.NewLoader(mem, 0),
			Slots:   NewSlots(1, 1, time.Second, nil),
			Budgets: Budgets{Default: time.Second, Max: time.Minute},
		}
		ctx := context.Background()
		if err := mem.Set(ctx, "k", []byte(stored), 0); err != nil {
			t.Fatal(err)
		}
		searched := 0
		search := func(context.Context) (PolyominoAnswer, int64, bool, error) {
			searched++
			return proven, 1, true, nil
		}
		for i, want := range []string{SourceSearch, SourceCache} {
			a, source, err := runCached(ctx, s, "test", "k", time.Second, nil, search)
			if err != nil || source != want || a.Outcome != "win" || !a.Proven || len(a.BestMoves) != 1 {
				t.Fatalf("stored %s, request %d: %+v from %q, %v; want the search's answer from %q", stored, i, a, source, err, want)
			}
		}
		if searched != 1 {
			t.Errorf("stored %s: %d searches, want 1 (then the cache)", stored, searched)
		}
	}
}

// TestSlotsRetryAfter: a refusal's Retry-After is when the first holder
// should be done by its budget (within 1 s and 30 s), and 1 s when a
// holder's time is unknown.
func TestSlotsRetryAfter(t *testing.T) {
	tests := []struct {
		name    string
		holders []time.Duration // 0: unknown (TryAcquire, Acquire)
		lo, hi  time.Duration
	}{
		{"budgets of 3 s and 8 s", []time.Duration{8 * time.Second, 3 * time.Second}, 2 * time.Second, 3 * time.Second},
		{"a short budget", []time.Duration{100 * time.Millisecond, 5 * time.Second}, time.Second, time.Second},
		{"a long budget", []time.Duration{time.Hour, time.Hour}, 30 * time.Second, 30 * time.Second},
		{"one holder's time unknown", []time.Duration{0, 5 * time.Second}, time.Second, time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewSlots(len(tt.holders), 0, time.Second, nil)
			for _, d := range tt.holders {
				r, err := s.AcquireFor(context.Background(), d)
				if err != nil {
					t.Fatal(err)
				}
				defer r()
			}
			_, err := s.Acquire(context.Background())
			var se *Error
			if !errors.As(err, &se) || se.Kind != KindBusy || se.RetryAfter < tt.lo || se.RetryAfter > tt.hi {
				t.Fatalf("refusal %v (Retry-After %v), want between %v and %v", err, se.RetryAfter, tt.lo, tt.hi)
			}
		})
	}
	// A released holder's time no longer counts.
	s := NewSlots(1, 0, time.Second, nil)
	r, _ := s.AcquireFor(context.Background(), 20*time.Second)
	r()
	r, _ = s.Acquire(context.Background())
	if _, err := s.Acquire(context.Background()); err.(*Error).RetryAfter != time.Second {
		t.Fatalf("after a release: Retry-After %v, want 1s", err.(*Error).RetryAfter)
	}
	r()
	// Holders that release long before their budgets: the refusal's
	// Retry-After follows how long they hold (twice that, at least 1 s),
	// not the 30 s budget of the holder now.
	for range 5 {
		r, _ := s.AcquireFor(context.Background(), 30*time.Second)
		time.Sleep(time.Millisecond)
		r()
	}
	if s.typical <= 0 || s.typical > time.Second {
		t.Fatalf("typical hold %v after five of about 1 ms", s.typical)
	}
	s.typical = 100 * time.Millisecond // (not the microseconds measured: a busy machine may take them to reach busy)
	r, _ = s.AcquireFor(context.Background(), 30*time.Second)
	if _, err := s.Acquire(context.Background()); err.(*Error).RetryAfter != time.Second {
		t.Errorf("short holds of 30 s budgets: Retry-After %v, want 1s", err.(*Error).RetryAfter)
	}
	r()
	// A holder past twice the typical hold is a long one: its budget.
	long := NewSlots(1, 0, time.Second, nil)
	long.typical = 10 * time.Millisecond
	r, _ = long.AcquireFor(context.Background(), 20*time.Second)
	defer r()
	time.Sleep(30 * time.Millisecond)
	if _, err := long.Acquire(context.Background()); err.(*Error).RetryAfter < 19*time.Second {
		t.Errorf("a holder past the typical hold: Retry-After %v, want its budget's end (about 20 s)", err.(*Error).RetryAfter)
	}
}
