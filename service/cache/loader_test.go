package cache

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestLoaderMergesConcurrentMisses(t *testing.T) {
	l := NewLoader(NewMemory(1<<20, 0), 0)
	var runs atomic.Int32
	release := make(chan struct{})
	compute := func(ctx context.Context) ([]byte, bool, error) {
		runs.Add(1)
		<-release
		return []byte("v"), true, nil
	}
	var wg sync.WaitGroup
	origins := make([]Origin, 8)
	for i := range origins {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v, o, err := l.Load(context.Background(), "k", compute)
			if err != nil || string(v) != "v" {
				t.Errorf("Load = %q, %v", v, err)
			}
			origins[i] = o
		}()
	}
	waitFor(t, func() bool { l.mu.Lock(); defer l.mu.Unlock(); return l.calls["k"] != nil && l.calls["k"].waiters == 8 })
	close(release)
	wg.Wait()
	if runs.Load() != 1 {
		t.Errorf("computation ran %d times, want 1", runs.Load())
	}
	computed := 0
	for _, o := range origins {
		if o == Computed {
			computed++
		}
	}
	if computed != 1 {
		t.Errorf("%d callers report Computed, want 1", computed)
	}
	if _, o, _ := l.Load(context.Background(), "k", compute); o != Cached {
		t.Errorf("third load origin = %v, want Cached", o)
	}
}

func TestLoaderCancelsWhenEveryWaiterLeaves(t *testing.T) {
	l := NewLoader(NewMemory(1<<20, 0), 0)
	canceled := make(chan struct{})
	compute := func(ctx context.Context) ([]byte, bool, error) {
		<-ctx.Done()
		close(canceled)
		return nil, false, ctx.Err()
	}
	ctx1, cancel1 := context.WithCancel(context.Background())
	ctx2, cancel2 := context.WithCancel(context.Background())
	errs := make(chan error, 2)
	go func() { _, _, err := l.Load(ctx1, "k", compute); errs <- err }()
	waitFor(t, func() bool { l.mu.Lock(); defer l.mu.Unlock(); return l.calls["k"] != nil })
	go func() { _, _, err := l.Load(ctx2, "k", compute); errs <- err }()
	waitFor(t, func() bool { l.mu.Lock(); defer l.mu.Unlock(); return l.calls["k"].waiters == 2 })

	cancel1()
	if err := <-errs; !errors.Is(err, context.Canceled) {
		t.Fatalf("first caller error = %v", err)
	}
	select {
	case <-canceled:
		t.Fatal("computation canceled while a caller still waits")
	case <-time.After(50 * time.Millisecond):
	}
	cancel2()
	<-errs
	select {
	case <-canceled:
	case <-time.After(5 * time.Second):
		t.Fatal("computation not canceled after every caller left")
	}
}

func TestLoaderDoesNotCacheUncacheableOrFailed(t *testing.T) {
	c := NewMemory(1<<20, 0)
	l := NewLoader(c, 0)
	_, _, _ = l.Load(context.Background(), "unproven", func(context.Context) ([]byte, bool, error) { return []byte("x"), false, nil })
	_, _, _ = l.Load(context.Background(), "failed", func(context.Context) ([]byte, bool, error) { return nil, true, errors.New("boom") })
	if n, _ := c.Len(); n != 0 {
		t.Errorf("cache holds %d entries, want 0", n)
	}
}

func TestLoaderTurnsPanicIntoError(t *testing.T) {
	l := NewLoader(NewMemory(1<<20, 0), 0)
	_, _, err := l.Load(context.Background(), "k", func(context.Context) ([]byte, bool, error) { panic("engine bug") })
	var pe *PanicError
	if !errors.As(err, &pe) || pe.Value != "engine bug" || len(pe.Stack) == 0 {
		t.Errorf("err = %v, want a PanicError with a stack", err)
	}
}

func TestLoaderKeepsCallerDeadline(t *testing.T) {
	l := NewLoader(NewMemory(1<<20, 0), 0)
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	want, _ := ctx.Deadline()
	_, _, _ = l.Load(ctx, "k", func(cctx context.Context) ([]byte, bool, error) {
		if got, ok := cctx.Deadline(); !ok || !got.Equal(want) {
			t.Errorf("computation deadline = %v, %v; want %v", got, ok, want)
		}
		return nil, false, nil
	})
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached in 5s")
		}
		time.Sleep(time.Millisecond)
	}
}

// Callers of one key with different flights (budgets) never share a
// computation, while a final value one of them stores serves every flight.
func TestLoaderFlightsDoNotMerge(t *testing.T) {
	l := NewLoader(NewMemory(1<<20, 0), 0)
	release := make(chan struct{})
	var runs atomic.Int32
	compute := func(v string) Compute {
		return func(ctx context.Context) ([]byte, bool, error) {
			runs.Add(1)
			<-release
			return []byte(v), false, nil
		}
	}
	var wg sync.WaitGroup
	got := make([]string, 2)
	for i, flight := range []string{"k|short", "k|long"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v, o, err := l.LoadFlight(context.Background(), "k", flight, compute(flight))
			if err != nil || o != Computed {
				t.Errorf("LoadFlight(%s) = %v, %v; want its own computation", flight, o, err)
			}
			got[i] = string(v)
		}()
	}
	waitFor(t, func() bool { return runs.Load() == 2 })
	close(release)
	wg.Wait()
	if got[0] != "k|short" || got[1] != "k|long" {
		t.Errorf("answers %q, want each flight its own", got)
	}
	final := func(ctx context.Context) ([]byte, bool, error) { return []byte("final"), true, nil }
	if _, _, err := l.LoadFlight(context.Background(), "k", "k|a", final); err != nil {
		t.Fatal(err)
	}
	if v, o, _ := l.LoadFlight(context.Background(), "k", "k|b", compute("x")); o != Cached || string(v) != "final" {
		t.Errorf("other flight after a final value = %q, %v; want it from the cache", v, o)
	}
}

// A final value found by one flight ends the other flights of its key: they
// stop searching and answer it.
func TestLoaderFinalValueSettlesOtherFlights(t *testing.T) {
	l := NewLoader(NewMemory(1<<20, 0), 0)
	started := make(chan struct{})
	stopped := make(chan struct{})
	long := func(ctx context.Context) ([]byte, bool, error) {
		close(started)
		<-ctx.Done()
		close(stopped)
		return []byte("partial"), false, ctx.Err()
	}
	got := make(chan string, 1)
	go func() {
		v, _, err := l.LoadFlight(context.Background(), "k", "k|long", long)
		if err != nil {
			t.Error(err)
		}
		got <- string(v)
	}()
	<-started
	final := func(ctx context.Context) ([]byte, bool, error) { return []byte("final"), true, nil }
	if v, _, err := l.LoadFlight(context.Background(), "k", "k|short", final); err != nil || string(v) != "final" {
		t.Fatalf("short flight = %q, %v", v, err)
	}
	select {
	case <-stopped:
	case <-time.After(10 * time.Second):
		t.Fatal("the other flight went on searching after a final value was found")
	}
	if v := <-got; v != "final" {
		t.Errorf("the other flight answered %q, want the final value", v)
	}
}

// TestLoaderSettledFlightDoesNotStore: a flight stopped by another's
// final value may still end with a value it calls final (a proof found
// before the stop, its extras cut short): the cache keeps the other's (a
// review found capture answers without plies overwriting answers with
// them so).
func TestLoaderSettledFlightDoesNotStore(t *testing.T) {
	mem := NewMemory(1<<20, 0)
	l := NewLoader(mem, 0)
	started := make(chan struct{})
	long := func(ctx context.Context) ([]byte, bool, error) {
		close(started)
		<-ctx.Done()
		return []byte("cut short"), true, nil
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if v, _, err := l.LoadFlight(context.Background(), "k", "k|long", long); err != nil || string(v) != "final" {
			t.Errorf("the settled flight answered %q, %v; want the final value", v, err)
		}
	}()
	<-started
	final := func(ctx context.Context) ([]byte, bool, error) { return []byte("final"), true, nil }
	if v, _, err := l.LoadFlight(context.Background(), "k", "k|short", final); err != nil || string(v) != "final" {
		t.Fatalf("short flight = %q, %v", v, err)
	}
	<-done
	if v, ok, err := mem.Get(context.Background(), "k"); err != nil || !ok || string(v) != "final" {
		t.Errorf("cached %q (%v, %v), want the final value", v, ok, err)
	}
}

// TestLoaderFreshCallAfterEveryWaiterLeft: a caller arriving while an
// abandoned computation is still stopping starts a computation of its
// own instead of getting the other's cancellation (a review found a job
// unit handed back by the express slot and run again at once fail so
// with "context canceled").
func TestLoaderFreshCallAfterEveryWaiterLeft(t *testing.T) {
	l := NewLoader(NewMemory(1<<20, 0), 0)
	var runs atomic.Int32
	unwinding := make(chan struct{})
	var once sync.Once
	stopUnwinding := func() { once.Do(func() { close(unwinding) }) }
	defer stopUnwinding()
	compute := func(ctx context.Context) ([]byte, bool, error) {
		if runs.Add(1) == 1 {
			<-ctx.Done()
			<-unwinding // the first computation takes its time to stop
			return nil, false, ctx.Err()
		}
		return []byte("v"), true, nil
	}
	ctx1, cancel1 := context.WithCancel(context.Background())
	errs := make(chan error, 1)
	go func() { _, _, err := l.Load(ctx1, "k", compute); errs <- err }()
	waitFor(t, func() bool { return runs.Load() == 1 })
	cancel1()
	if err := <-errs; !errors.Is(err, context.Canceled) {
		t.Fatalf("first caller error = %v", err)
	}
	// Joined to the first computation, this Load would wait for it to
	// stop, which it does only after Load returns: hence the timeout.
	ctx2, cancel2 := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel2()
	v, o, err := l.Load(ctx2, "k", compute)
	stopUnwinding()
	if err != nil || string(v) != "v" || o != Computed {
		t.Fatalf("second Load = %q, %v, %v; want v computed afresh", v, o, err)
	}
	if n := runs.Load(); n != 2 {
		t.Errorf("computations = %d, want 2", n)
	}
}

// TestLoaderSupersededDoesNotStore: an abandoned computation that ends
// with a final value after a newer one of its flight stored (and a caller
// then replaced) the value does not overwrite it: an abandoned
// computation stores nothing.
func TestLoaderSupersededDoesNotStore(t *testing.T) {
	c := NewMemory(1<<20, 0)
	l := NewLoader(c, 0)
	finish := make(chan struct{})
	first := func(ctx context.Context) ([]byte, bool, error) {
		<-ctx.Done()
		<-finish
		return []byte("old"), true, nil // proved just as it was canceled
	}
	ctx1, cancel1 := context.WithCancel(context.Background())
	errs := make(chan error, 1)
	go func() { _, _, err := l.Load(ctx1, "k", first); errs <- err }()
	waitFor(t, func() bool { l.mu.Lock(); defer l.mu.Unlock(); return l.calls["k"] != nil })
	cancel1()
	<-errs
	v, _, err := l.Load(context.Background(), "k", func(context.Context) ([]byte, bool, error) { return []byte("new"), true, nil })
	if err != nil || string(v) != "new" {
		t.Fatalf("second Load = %q, %v", v, err)
	}
	if err := l.Replace(context.Background(), "k", []byte("new, completed")); err != nil {
		t.Fatal(err)
	}
	close(finish)
	time.Sleep(50 * time.Millisecond) // the first computation's time to store, if it would
	if got, ok, _ := c.Get(context.Background(), "k"); !ok || string(got) != "new, completed" {
		t.Fatalf("cache holds %q (%v), want the completed value", got, ok)
	}
}
