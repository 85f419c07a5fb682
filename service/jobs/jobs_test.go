package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
	"github.com/redis/go-redis/v9"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest"
	"go.uber.org/zap/zaptest/observer"

	"github.com/gamesolver/gamesolver/service"
	"github.com/gamesolver/gamesolver/service/redistest"
)

// env is one backend under test.
type env struct {
	store Store
	rdb   *redis.Client // nil for the memory store
	// restart simulates every process and the store restarting: Redis is
	// killed and started again from its append-only file; the memory store
	// is opened again on its directory. It returns the new store.
	restart func() Store
	// crash kills the store's server, if it has one, until restart.
	crash func()
}

var backends = []struct {
	name string
	open func(t *testing.T) *env
}{
	{"memory", func(t *testing.T) *env {
		dir := t.TempDir()
		s, err := NewMemoryStore(dir)
		if err != nil {
			t.Fatal(err)
		}
		e := &env{store: s, crash: func() {}}
		e.restart = func() Store {
			// The process that held the directory has ended.
			_ = e.store.(*MemoryStore).Close()
			s, err := NewMemoryStore(dir)
			if err != nil {
				t.Fatal(err)
			}
			e.store = s
			return s
		}
		return e
	}},
	{"redis", func(t *testing.T) *env {
		srv := redistest.Start(t)
		e := &env{}
		connect := func() {
			e.rdb = redis.NewClient(&redis.Options{Addr: srv.Addr(), MaxRetries: -1})
			t.Cleanup(func() { _ = e.rdb.Close() })
			e.store = NewRedisStore(e.rdb)
		}
		connect()
		e.crash = srv.Kill
		e.restart = func() Store { srv.Restart(); connect(); return e.store }
		return e
	}},
}

// forEach runs test against every backend.
func forEach(t *testing.T, test func(t *testing.T, e *env)) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			test(t, b.open(t))
		})
	}
}

func fastOptions(t *testing.T) Options {
	return Options{
		Heartbeat: 40 * time.Millisecond, ReclaimAfter: time.Second, Poll: 40 * time.Millisecond,
		WatchEvery: 10 * time.Millisecond, OpTimeout: 2 * time.Second,
		Logger: zaptest.NewLogger(t),
	}
}

func newManager(t *testing.T, s Store, k Kind, opts Options) (*Manager, *Metrics) {
	t.Helper()
	met := NewMetrics(prometheus.NewRegistry(), nil)
	opts.Metrics = met
	m, err := NewManager(s, []Kind{k}, opts)
	if err != nil {
		t.Fatal(err)
	}
	return m, met
}

// startWorker runs a worker until the returned stop is called (or the test
// ends); stop waits until RunWorker returned.
func startWorker(t *testing.T, m *Manager, name string, concurrency int) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := m.RunWorker(ctx, name, concurrency); err != nil {
			t.Errorf("RunWorker: %v", err)
		}
	}()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			select {
			case <-done:
			case <-time.After(15 * time.Second):
				t.Errorf("worker %s did not stop", name)
			}
		})
	}
	t.Cleanup(stop)
	return stop
}

func submit(t *testing.T, m *Manager, request string) Job {
	t.Helper()
	j, err := m.Submit(context.Background(), "toy.squares", json.RawMessage(request))
	if err != nil {
		t.Fatalf("Submit(%s): %v", request, err)
	}
	return j
}

// waitJob polls the job until ok accepts it.
func waitJob(t *testing.T, m *Manager, id, what string, ok func(Job) bool) Job {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		j, err := m.Get(context.Background(), id)
		if err == nil && ok(j) {
			return j
		}
		if time.Now().After(deadline) {
			t.Fatalf("waiting for %s: last state %+v, err %v", what, j, err)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func waitStatus(t *testing.T, m *Manager, id string, s Status) Job {
	t.Helper()
	return waitJob(t, m, id, "status "+string(s), func(j Job) bool { return j.Status == s })
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func wantSum(t *testing.T, j Job, n int64) {
	t.Helper()
	want := fmt.Sprintf(`{"sum":%d}`, sumSquares(n))
	if j.Status != StatusDone || string(j.Result) != want {
		t.Fatalf("job = %s %s (error %q), want done %s", j.Status, j.Result, j.Error, want)
	}
}

// assertQueueEmpty checks that every unit was acknowledged.
func assertQueueEmpty(t *testing.T, e *env) {
	t.Helper()
	if e.rdb != nil {
		ctx := context.Background()
		waitFor(t, "an empty stream", func() bool {
			n, err := e.rdb.XLen(ctx, streamKey).Result()
			p, perr := e.rdb.XPending(ctx, streamKey, groupName).Result()
			return err == nil && perr == nil && n == 0 && p.Count == 0
		})
		return
	}
	s := e.store.(*MemoryStore)
	waitFor(t, "an empty queue", func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		return len(s.queues) == 0 && len(s.order) == 0 && len(s.pending) == 0
	})
}

func TestLifecycle(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		k := newSquares()
		m, met := newManager(t, e.store, k, fastOptions(t))
		ctx := context.Background()

		for _, id := range []string{newID(), "garbage", "", strings.Repeat("x", 1000)} {
			if _, err := m.Get(ctx, id); service.KindOf(err) != service.KindNotFound {
				t.Errorf("Get(%.30q) = %v, want NotFound", id, err)
			}
			if _, err := m.Cancel(ctx, id); service.KindOf(err) != service.KindNotFound {
				t.Errorf("Cancel(%.30q) = %v, want NotFound", id, err)
			}
		}
		if _, err := m.Submit(ctx, "toy.nope", json.RawMessage(`{}`)); service.KindOf(err) != service.KindInvalid {
			t.Errorf("Submit(unknown type) = %v, want Invalid", err)
		}
		if _, err := m.Submit(ctx, "toy.squares", json.RawMessage(`{"n":3,"units":5}`)); service.KindOf(err) != service.KindInvalid ||
			!strings.Contains(err.Error(), "units") {
			t.Errorf("Submit(bad request) = %v, want Invalid naming units", err)
		}

		j := submit(t, m, `{"n":100,"units":5}`)
		if len(j.ID) != 22 || !validID(j.ID) {
			t.Errorf("id %q is not 22 characters of base64url", j.ID)
		}
		if j.Status != StatusQueued || j.Progress.Total != 5 || j.Progress.Done != 0 || j.Progress.EstimateMS != nil || !j.Started.IsZero() {
			t.Errorf("new job = %+v", j)
		}
		if got, err := m.Get(ctx, j.ID); err != nil || got.Status != StatusQueued || string(got.Request) != `{"n":100,"units":5}` {
			t.Errorf("Get(new job) = %+v, %v", got, err)
		}

		startWorker(t, m, "w1", 2)
		j = waitStatus(t, m, j.ID, StatusDone)
		wantSum(t, j, 100)
		p := j.Progress
		if p.Done != 5 || p.Total != 5 || p.Nodes != 100 || p.EstimateMS == nil || *p.EstimateMS != 0 {
			t.Errorf("final progress = %+v, want 5/5 units, 100 nodes, estimate 0", p)
		}
		if j.Started.IsZero() || j.Finished.Before(j.Started) || j.Started.Before(j.Created) ||
			p.ElapsedMS != j.Finished.Sub(j.Started).Milliseconds() {
			t.Errorf("times: created %v started %v finished %v elapsed %dms", j.Created, j.Started, j.Finished, p.ElapsedMS)
		}
		if runs := k.get(k.started); len(runs) != 5 || total(runs) != 5 {
			t.Errorf("runs per unit = %v, want each of 5 once", runs)
		}
		if _, err := m.Cancel(ctx, j.ID); service.KindOf(err) != service.KindConflict {
			t.Errorf("Cancel(done job) = %v, want Conflict", err)
		}
		assertQueueEmpty(t, e)
		if got := value(met.Jobs.WithLabelValues("toy.squares", "done")); got != 1 {
			t.Errorf("jobs_total{done} = %v", got)
		}
		if got := value(met.Units.WithLabelValues("toy.squares", "done")); got != 5 {
			t.Errorf("units_total{done} = %v", got)
		}
		if e.rdb != nil {
			// No Redis TTL (volatile-lru evicts keys with one: the cached
			// answers, not jobs); the job says when it expires.
			for _, key := range []string{jobKey(j.ID), nodesKey(j.ID)} {
				if ttl, err := e.rdb.PTTL(ctx, key).Result(); err != nil || ttl != -1 && ttl != -2 {
					t.Errorf("PTTL %s = %v, %v; want none", key, ttl, err)
				}
			}
			exp, err := e.rdb.HGet(ctx, jobKey(j.ID), "expires").Int64()
			if left := time.Until(time.UnixMilli(exp)); err != nil || left <= 6*24*time.Hour || left > 7*24*time.Hour {
				t.Errorf("the job expires in %v (%v); want about 7 days", left, err)
			}
			// The units' results are let go; their number stays.
			if n, err := e.rdb.Exists(ctx, resultsKey(j.ID), unitsKey(j.ID)).Result(); n != 0 || err != nil {
				t.Errorf("%d of the results and units hashes kept, %v", n, err)
			}
			if got, err := m.Get(ctx, j.ID); err != nil || got.Progress.Done != 5 {
				t.Errorf("finished job's progress %+v, %v; want 5 done", got.Progress, err)
			}
		}
	})
}

func TestProgressAndWatch(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		k := newSquares()
		gate := k.gated(make(chan struct{}))
		m, _ := newManager(t, e.store, k, fastOptions(t))
		j := submit(t, m, `{"n":30,"units":3}`)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		watch, err := m.Watch(ctx, j.ID)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := m.Watch(ctx, newID()); service.KindOf(err) != service.KindNotFound {
			t.Errorf("Watch(unknown) = %v", err)
		}
		var seen []Job
		watched := make(chan struct{})
		go func() {
			defer close(watched)
			for j := range watch {
				seen = append(seen, j)
			}
		}()

		startWorker(t, m, "w1", 1)
		// Unit 0 computed its 10 numbers and waits at the gate: its report
		// reaches the job with the next heartbeat.
		got := waitJob(t, m, j.ID, "10 nodes", func(j Job) bool { return j.Progress.Nodes == 10 })
		if got.Status != StatusRunning || got.Progress.Done != 0 || got.Progress.EstimateMS != nil || got.Started.IsZero() {
			t.Errorf("while unit 0 runs: %+v", got)
		}
		gate <- struct{}{}
		got = waitJob(t, m, j.ID, "1 unit done", func(j Job) bool { return j.Progress.Done == 1 })
		if got.Progress.EstimateMS == nil || got.Progress.Total != 3 || got.Progress.Nodes < 10 {
			t.Errorf("after one unit: %+v", got.Progress)
		} else if want := got.Progress.ElapsedMS * 2; *got.Progress.EstimateMS != want {
			t.Errorf("estimate %dms, want elapsed*2 = %dms", *got.Progress.EstimateMS, want)
		}
		close(gate)
		got = waitStatus(t, m, j.ID, StatusDone)
		wantSum(t, got, 30)

		select {
		case <-watched:
		case <-time.After(5 * time.Second):
			t.Fatal("Watch did not close its channel after the job ended")
		}
		if len(seen) < 3 || seen[0].Status != StatusQueued || seen[len(seen)-1].Status != StatusDone {
			t.Fatalf("watched %d states, want queued ... done: %+v", len(seen), seen)
		}
		for i := 1; i < len(seen); i++ {
			if seen[i].Progress.Done < seen[i-1].Progress.Done {
				t.Errorf("done went back: %d then %d", seen[i-1].Progress.Done, seen[i].Progress.Done)
			}
		}
	})
}

func TestCancelQueued(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		k := newSquares()
		m, met := newManager(t, e.store, k, fastOptions(t))
		ctx := context.Background()
		j := submit(t, m, `{"n":40,"units":4}`)
		c, err := m.Cancel(ctx, j.ID)
		if err != nil || c.Status != StatusCanceled || c.Finished.IsZero() {
			t.Fatalf("Cancel = %+v, %v", c, err)
		}
		if c, err = m.Cancel(ctx, j.ID); err != nil || c.Status != StatusCanceled {
			t.Fatalf("second Cancel = %+v, %v; want the canceled job", c, err)
		}
		startWorker(t, m, "w1", 2)
		assertQueueEmpty(t, e)
		if runs := k.get(k.started); len(runs) != 0 {
			t.Errorf("units of a canceled job ran: %v", runs)
		}
		if got := value(met.Units.WithLabelValues("toy.squares", "skipped")); got != 4 {
			t.Errorf("skipped units = %v, want 4", got)
		}
		if got := value(met.Jobs.WithLabelValues("toy.squares", "canceled")); got != 1 {
			t.Errorf("jobs_total{canceled} = %v, want 1 (the second Cancel does not count)", got)
		}
		if j, _ := m.Get(ctx, j.ID); j.Status != StatusCanceled {
			t.Errorf("status after the worker = %s", j.Status)
		}
	})
}

func TestCancelRunning(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		k := newSquares()
		k.gated(make(chan struct{})) // never opens
		m, _ := newManager(t, e.store, k, fastOptions(t))
		j := submit(t, m, `{"n":40,"units":2}`)
		startWorker(t, m, "w1", 2)
		waitFor(t, "both units running", func() bool { return len(k.get(k.started)) == 2 })
		if _, err := m.Cancel(context.Background(), j.ID); err != nil {
			t.Fatal(err)
		}
		canceledAt := time.Now()
		waitFor(t, "both runs canceled", func() bool { return total(k.get(k.canceled)) == 2 })
		if d := time.Since(canceledAt); d > 2*time.Second {
			t.Errorf("running units stopped %v after the cancel; heartbeat is 40ms", d)
		}
		assertQueueEmpty(t, e)
		if j, _ := m.Get(context.Background(), j.ID); j.Status != StatusCanceled || j.Result != nil {
			t.Errorf("job = %+v", j)
		}
	})
}

func TestEarlyFinish(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		k := newSquares()
		never, winner := make(chan struct{}), make(chan struct{})
		k.wait = func(unit int) <-chan struct{} {
			if unit == 2 {
				return winner
			}
			return never
		}
		m, _ := newManager(t, e.store, k, fastOptions(t))
		j := submit(t, m, `{"n":40,"units":4,"win":2}`)
		startWorker(t, m, "w1", 4)
		waitFor(t, "every unit running", func() bool { return len(k.get(k.started)) == 4 })
		close(winner)
		j = waitStatus(t, m, j.ID, StatusDone)
		if string(j.Result) != `{"winner":2}` || j.Progress.Done != 1 || j.Progress.Total != 4 {
			t.Errorf("job = %s, progress %+v; want winner 2 after 1 of 4 units", j.Result, j.Progress)
		}
		// The units still running learn with their next heartbeat.
		waitFor(t, "the other runs canceled", func() bool { return total(k.get(k.canceled)) == 3 })
		assertQueueEmpty(t, e)
		if runs := k.get(k.finished); total(runs) != 1 {
			t.Errorf("finished runs %v, want only unit 2", runs)
		}
	})
}

func TestFailingUnit(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		k := newSquares()
		m, met := newManager(t, e.store, k, fastOptions(t))
		j := submit(t, m, `{"n":40,"units":4,"fail":1}`)
		startWorker(t, m, "w1", 1)
		j = waitStatus(t, m, j.ID, StatusFailed)
		if j.Error != "unit 1: this unit refuses" || j.Result != nil || j.Progress.EstimateMS != nil {
			t.Errorf("failed job = %+v", j)
		}
		assertQueueEmpty(t, e)
		if got := value(met.Jobs.WithLabelValues("toy.squares", "failed")); got != 1 {
			t.Errorf("jobs_total{failed} = %v", got)
		}
		if _, err := m.Cancel(context.Background(), j.ID); service.KindOf(err) != service.KindConflict {
			t.Errorf("Cancel(failed job) = %v, want Conflict", err)
		}
	})
}

func TestPanickingRun(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		k := newSquares()
		m, met := newManager(t, e.store, k, fastOptions(t))
		startWorker(t, m, "w1", 2)

		// A unit that panics once is delivered again and succeeds.
		j := submit(t, m, `{"n":40,"units":4,"panic":3,"panic_times":1}`)
		j = waitStatus(t, m, j.ID, StatusDone)
		wantSum(t, j, 40)
		if runs := k.get(k.started); runs[3] != 2 {
			t.Errorf("unit 3 ran %d times, want 2", runs[3])
		}

		// A unit that always panics fails the job at its third delivery.
		k.reset()
		j = submit(t, m, `{"n":40,"units":4,"panic":0,"panic_times":99}`)
		j = waitStatus(t, m, j.ID, StatusFailed)
		if j.Error != "unit 0 panicked on 3 deliveries: boom in unit 0" {
			t.Errorf("error = %q", j.Error)
		}
		if runs := k.get(k.started); runs[0] != 3 {
			t.Errorf("unit 0 ran %d times, want 3", runs[0])
		}
		assertQueueEmpty(t, e)
		if got := value(met.Units.WithLabelValues("toy.squares", "panicked")); got != 4 {
			t.Errorf("panicked units = %v, want 1 + 3", got)
		}
	})
}

func TestGracefulShutdownHandsUnitsBack(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		k := newSquares()
		gate := k.gated(make(chan struct{}))
		opts := fastOptions(t)
		// Only a hand-back can move the unit before a minute; and with one
		// delivery allowed, a hand-back that counted would fail the job.
		opts.ReclaimAfter, opts.MaxDeliveries = time.Minute, 1
		m, met := newManager(t, e.store, k, opts)
		j := submit(t, m, `{"n":10,"units":1}`)
		stopA := startWorker(t, m, "a", 1)
		waitFor(t, "unit 0 running", func() bool { return len(k.get(k.started)) == 1 })
		stopA()
		if c := k.get(k.canceled); c[0] != 1 {
			t.Fatalf("the run was not canceled on shutdown: %v", c)
		}
		if got := value(met.Units.WithLabelValues("toy.squares", "returned")); got != 1 {
			t.Errorf("returned units = %v", got)
		}
		close(gate)
		start := time.Now()
		startWorker(t, m, "b", 1)
		j = waitStatus(t, m, j.ID, StatusDone)
		wantSum(t, j, 10)
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("the handed-back unit took %v to finish", d)
		}
		// Handed back, not reclaimed: counted as returned only.
		if got := value(met.Reclaimed.WithLabelValues("toy.squares")); got != 0 {
			t.Errorf("reclaimed units = %v, want 0", got)
		}
	})
}

// TestUnitTimesObserved: each run of a unit is observed in the wait
// (submission to start) and run time histograms.
func TestUnitTimesObserved(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		k := newSquares()
		m, met := newManager(t, e.store, k, fastOptions(t))
		j := submit(t, m, `{"n":40,"units":4}`)
		time.Sleep(300 * time.Millisecond) // queued before any worker runs
		startWorker(t, m, "a", 1)
		wantSum(t, waitStatus(t, m, j.ID, StatusDone), 40)
		if n, sum := histogram(met.Wait.WithLabelValues("toy.squares")); n != 4 || sum < 4*0.3 {
			t.Errorf("waits: %d observed, %.3f s in all; want 4, at least 1.2 s", n, sum)
		}
		if n, _ := histogram(met.Run.WithLabelValues("toy.squares", "done")); n != 4 {
			t.Errorf("runs done: %d observed, want 4", n)
		}
		if n, _ := histogram(met.Run.WithLabelValues("toy.squares", "failed")); n != 0 {
			t.Errorf("runs failed: %d observed, want 0", n)
		}
	})
}

func TestRestartEverything(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		k := newSquares()
		gate := k.gated(make(chan struct{}))
		m, _ := newManager(t, e.store, k, fastOptions(t))
		j := submit(t, m, `{"n":40,"units":4}`)
		stopA := startWorker(t, m, "a", 2)
		gate <- struct{}{}
		gate <- struct{}{}
		waitJob(t, m, j.ID, "2 units done", func(j Job) bool { return j.Progress.Done == 2 })
		waitFor(t, "4 units started", func() bool { return len(k.get(k.started)) == 4 })
		finishedBefore := k.get(k.finished)

		// Everything goes down at once: the store first, so that worker a
		// cannot hand its running units back or acknowledge anything.
		e.crash()
		stopA()
		store := e.restart()

		k2 := newSquares()
		m2, _ := newManager(t, store, k2, fastOptions(t))
		got, err := m2.Get(context.Background(), j.ID)
		if err != nil || got.Progress.Done != 2 || got.Progress.Total != 4 {
			t.Fatalf("after the restart: %+v, %v", got, err)
		}
		startWorker(t, m2, "b", 2)
		got = waitStatus(t, m2, j.ID, StatusDone)
		wantSum(t, got, 40)
		for u := range finishedBefore {
			if n := k2.get(k2.started)[u]; n != 0 {
				t.Errorf("unit %d finished before the restart but ran again", u)
			}
		}
		if runs := k2.get(k2.started); len(runs) != 2 || total(runs) != 2 {
			t.Errorf("after the restart units ran %v, want the 2 unfinished once each", runs)
		}
		assertQueueEmpty(t, e)
	})
}

func TestFinishedJobsExpire(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		opts := fastOptions(t)
		opts.TTL = 300 * time.Millisecond
		m, _ := newManager(t, e.store, newSquares(), opts)
		j := submit(t, m, `{"n":4,"units":2}`)
		startWorker(t, m, "w1", 1)
		waitStatus(t, m, j.ID, StatusDone)
		waitFor(t, "the job to expire", func() bool {
			_, err := m.Get(context.Background(), j.ID)
			return service.KindOf(err) == service.KindNotFound
		})
		// Canceled once expired: unknown too (Redis answered 409, "already
		// done", while its keys waited for the next job's end).
		if _, err := m.Cancel(context.Background(), j.ID); service.KindOf(err) != service.KindNotFound {
			t.Errorf("cancel of an expired job: %v, want not found", err)
		}
		if e.rdb != nil {
			// Its keys go at the next job's end.
			next := submit(t, m, `{"n":4,"units":1}`)
			waitStatus(t, m, next.ID, StatusDone)
			n, err := e.rdb.Exists(context.Background(), jobKey(j.ID), resultsKey(j.ID), nodesKey(j.ID)).Result()
			if err != nil || n != 0 {
				t.Errorf("%d keys of the expired job left, %v", n, err)
			}
		}
	})
}

func TestOptionsAndKinds(t *testing.T) {
	s, _ := NewMemoryStore("")
	if _, err := NewManager(s, nil, Options{Heartbeat: time.Second, ReclaimAfter: time.Second}); err == nil {
		t.Error("ReclaimAfter below twice Heartbeat accepted")
	}
	if _, err := NewManager(s, []Kind{newSquares(), newSquares()}, Options{}); err == nil {
		t.Error("a kind registered twice accepted")
	}
	m, err := NewManager(s, []Kind{newSquares()}, Options{})
	if err != nil || fmt.Sprint(m.Types()) != "[toy.squares]" {
		t.Errorf("Types = %v, %v", m, err)
	}
	if err := m.RunWorker(context.Background(), "", 1); err == nil {
		t.Error("a worker without a name started")
	}
	seen := map[string]bool{}
	for range 1000 {
		id := newID()
		if seen[id] || !validID(id) {
			t.Fatalf("id %q repeated or invalid", id)
		}
		seen[id] = true
	}
}

// value reads a counter or gauge.
// histogram reads a histogram's count and sum.
func histogram(o prometheus.Observer) (uint64, float64) {
	var m dto.Metric
	if err := o.(prometheus.Metric).Write(&m); err != nil {
		panic(err)
	}
	return m.GetHistogram().GetSampleCount(), m.GetHistogram().GetSampleSum()
}

func value(c prometheus.Metric) float64 {
	var m dto.Metric
	if err := c.Write(&m); err != nil {
		panic(err)
	}
	if m.Counter != nil {
		return m.GetCounter().GetValue()
	}
	return m.GetGauge().GetValue()
}

// TestJobsTakeTurns: a job submitted behind one of 200 units starts after
// a few of them, not after all: the memory store hands out the next unit
// of the job with the fewest units out, the Redis store keeps a window of
// each job's units in the stream (a black-box review found a 281-byte
// request of 11,124 units holding every later job back for its hours).
func TestJobsTakeTurns(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		big, small := newSquares(), newSquares()
		small.name = "toy.small"
		big.wait = func(int) <-chan struct{} {
			time.Sleep(5 * time.Millisecond)
			return nil
		}
		var before int // big's units started when small's started
		small.wait = func(int) <-chan struct{} {
			before = total(big.get(big.started))
			return nil
		}
		opts := fastOptions(t)
		opts.Metrics = NewMetrics(prometheus.NewRegistry(), nil)
		m, err := NewManager(e.store, []Kind{big, small}, opts)
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		a, err := m.Submit(ctx, "toy.squares", json.RawMessage(`{"n":200,"units":200}`))
		if err != nil {
			t.Fatal(err)
		}
		startWorker(t, m, "w", 1)
		waitFor(t, "the big job's third unit", func() bool { return total(big.get(big.started)) >= 3 })
		b, err := m.Submit(ctx, "toy.small", json.RawMessage(`{"n":3,"units":1}`))
		if err != nil {
			t.Fatal(err)
		}
		started := total(big.get(big.started))
		wantSum(t, waitStatus(t, m, b.ID, StatusDone), 3)
		if ran := before - started; ran > unitWindow+1 {
			t.Errorf("%d units of the big job ran before the small job's one (at most %d)", ran, unitWindow+1)
		}
		wantSum(t, waitStatus(t, m, a.ID, StatusDone), 200)
		assertQueueEmpty(t, e)
		t.Logf("%d of the big job's units ran between the small job's submission and its start", before-started)
	})
}

// cappedManager is a manager of gated toy.squares jobs (their units wait
// for gate) with the caps set sets.
func cappedManager(t *testing.T, e *env, set func(*Options)) (*Manager, chan struct{}) {
	k := newSquares()
	gate := k.gated(make(chan struct{}))
	opts := fastOptions(t)
	set(&opts)
	m, _ := newManager(t, e.store, k, opts)
	return m, gate
}

// TestMaxActive: a job beyond Options.MaxActive unfinished ones is
// refused with KindBusy and a Retry-After, also when 40 come at once (the
// count and the creation are one step: a review had 40 of 40 accepted
// with a cap of 3); once one ends, one is taken.
func TestMaxActive(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		m, gate := cappedManager(t, e, func(o *Options) { o.MaxActive = 3 })
		ctx := context.Background()
		a := submit(t, m, `{"n":4,"units":2}`)
		var wg sync.WaitGroup
		var mu sync.Mutex
		accepted, busy := 0, 0
		for range 40 {
			wg.Go(func() {
				_, err := m.Submit(ctx, "toy.squares", json.RawMessage(`{"n":4,"units":2}`))
				var se *service.Error
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					accepted++
				case errors.As(err, &se) && se.Kind == service.KindBusy && se.RetryAfter > 0:
					busy++
				default:
					t.Errorf("Submit: %v, want KindBusy with a Retry-After", err)
				}
			})
		}
		wg.Wait()
		if accepted != 2 || busy != 38 {
			t.Fatalf("%d accepted, %d busy; want 2 and 38 (a cap of 3, one job in)", accepted, busy)
		}
		if _, err := m.Cancel(ctx, a.ID); err != nil {
			t.Fatal(err)
		}
		submit(t, m, `{"n":4,"units":2}`)
		close(gate)
	})
}

// TestRedisReconcile: the set of unfinished jobs forgets ids whose job
// ended without leaving it, and a job whose window ran dry (units
// finished by a server of an earlier version, which queues no next one)
// gets its next units when a worker is idle.
func TestRedisReconcile(t *testing.T) {
	e := backends[1].open(t)
	rs := e.store.(*RedisStore)
	rs.Window(2)
	ctx := context.Background()
	if err := e.rdb.SAdd(ctx, activeKey, "gone-1", "gone-2").Err(); err != nil {
		t.Fatal(err)
	}
	k := newSquares()
	opts := fastOptions(t)
	opts.MaxActive = 1
	m, _ := newManager(t, rs, k, opts)
	j := submit(t, m, `{"n":6,"units":6}`) // two stale ids in the set: tidied, then admitted
	// An earlier version's worker finishes the two queued units: results
	// written, entries acknowledged, nothing queued.
	msgs, err := e.rdb.XRange(ctx, streamKey, "-", "+").Result()
	if err != nil || len(msgs) != 2 {
		t.Fatalf("%d entries in the stream (%v), want the window of 2", len(msgs), err)
	}
	for _, msg := range msgs {
		unit := msg.Values["unit"].(string)
		e.rdb.HSetNX(ctx, resultsKey(j.ID), unit, `{"sum":0}`)
		e.rdb.XDel(ctx, streamKey, msg.ID)
	}
	startWorker(t, m, "w", 1)
	got := waitStatus(t, m, j.ID, StatusDone)
	// Units 0 and 1 counted 0 (their results above), the rest their squares.
	if want := fmt.Sprintf(`{"sum":%d}`, sumSquares(6)-1); string(got.Result) != want {
		t.Fatalf("result %s, want %s", got.Result, want)
	}
	if n, _ := e.rdb.SCard(ctx, activeKey).Result(); n != 0 {
		t.Errorf("%d ids left in the set of unfinished jobs", n)
	}
	if n, _ := e.rdb.Exists(ctx, unitsKey(j.ID)).Result(); n != 0 {
		t.Error("the units hash outlived its job")
	}
}

// TestRedisAdmittedNotWritten: a submission admitted but never written
// (Redis stalled after the admission and the request was answered 503: a
// review found such ids holding places in both caps for ever, their jobs
// shown queued without a type) is no job, and its places come back once
// its admission's mark expires.
func TestRedisAdmittedNotWritten(t *testing.T) {
	e := backends[1].open(t)
	rs := e.store.(*RedisStore)
	rs.admitHold = 200 * time.Millisecond
	ctx := context.Background()
	opts := fastOptions(t)
	opts.MaxActive, opts.MaxPerClient = 5, 1
	m, _ := newManager(t, rs, newSquares(), opts)
	client := "ip:192.0.2.7"
	ghost := state{ID: "ghost-admitted", Client: client}
	if full, err := rs.admit(ctx, ghost, limits{all: 5, client: 1}); err != nil || full != nil {
		t.Fatalf("admit: %v, %v", full, err)
	}
	if _, ok, err := rs.load(ctx, ghost.ID); ok || err != nil {
		t.Fatalf("the admission's mark loads as a job (%v)", err)
	}
	cctx := service.WithClient(ctx, client)
	_, err := m.Submit(cctx, "toy.squares", json.RawMessage(`{"n":4,"units":2}`))
	var se *service.Error
	if !errors.As(err, &se) || se.Kind != service.KindRateLimited {
		t.Fatalf("Submit beside the mark: %v, want KindRateLimited (the mark holds the place until it expires)", err)
	}
	time.Sleep(2 * rs.admitHold)
	j, err := m.Submit(cctx, "toy.squares", json.RawMessage(`{"n":4,"units":2}`))
	if err != nil {
		t.Fatalf("Submit after the mark expired: %v", err)
	}
	if ttl, _ := e.rdb.PTTL(ctx, jobKey(j.ID)).Result(); ttl != -1 {
		t.Errorf("a written job's hash expires in %v; want no expiry", ttl)
	}
	if ok, _ := e.rdb.SIsMember(ctx, activeKey, ghost.ID).Result(); ok {
		t.Error("the mark's id is still in the set of unfinished jobs")
	}
	// A mark an earlier version left (no expiry) is tidied the same way.
	old := "ghost-of-old"
	e.rdb.SAdd(ctx, activeKey, old)
	e.rdb.SAdd(ctx, clientKey("ip:192.0.2.8"), old)
	e.rdb.HSet(ctx, jobKey(old), "status", "queued")
	if err := rs.reconcile(ctx, "ip:192.0.2.8"); err != nil {
		t.Fatal(err)
	}
	for _, set := range []string{activeKey, clientKey("ip:192.0.2.8")} {
		if ok, _ := e.rdb.SIsMember(ctx, set, old).Result(); ok {
			t.Errorf("an earlier version's mark is still in %s", set)
		}
	}
	if n, _ := e.rdb.Exists(ctx, jobKey(old)).Result(); n != 0 {
		t.Error("an earlier version's mark outlived the reconcile")
	}
	if ok, _ := e.rdb.SIsMember(ctx, activeKey, j.ID).Result(); !ok {
		t.Error("the reconcile dropped a written job")
	}
}

// slowCombine is squares whose Combine, when it finishes the job, takes
// delay (a polyomino.analyze job's final length search does).
// It stops early when ctx is canceled, and counts the calls that did.
type slowCombine struct {
	*squares
	delay    time.Duration
	mu       sync.Mutex
	ends     int // Combine calls that finished the job
	canceled int // Combine calls stopped by their context
	entered  chan struct{}
}

func (k *slowCombine) Combine(ctx context.Context, request json.RawMessage, total int, results map[int]json.RawMessage) (json.RawMessage, bool, error) {
	out, done, err := k.squares.Combine(ctx, request, total, results)
	if done {
		k.mu.Lock()
		delay := k.delay
		if k.entered != nil {
			close(k.entered)
			k.entered = nil
		}
		k.mu.Unlock()
		select {
		case <-time.After(delay):
		case <-ctx.Done():
			k.mu.Lock()
			k.canceled++
			k.mu.Unlock()
			return nil, false, ctx.Err()
		}
		k.mu.Lock()
		k.ends++
		k.mu.Unlock()
	}
	return out, done, err
}

// counts returns how many Combine calls ended the job and were canceled.
func (k *slowCombine) counts() (ends, canceled int) {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.ends, k.canceled
}

// TestSlowCombineKeepsTheClaim: a Combine longer than ReclaimAfter does
// not have its unit reclaimed by another slot, which would run it again
// and combine again (a review found a 30-second final length search
// running twice, and a unit on its last delivery failing its job).
func TestSlowCombineKeepsTheClaim(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		opts := fastOptions(t) // ReclaimAfter 1 s
		k := &slowCombine{squares: newSquares(), delay: 2500 * time.Millisecond}
		m, _ := newManager(t, e.store, k, opts)
		j := submit(t, m, `{"n":3,"units":1}`)
		startWorker(t, m, "w", 2)
		wantSum(t, waitStatus(t, m, j.ID, StatusDone), 3)
		time.Sleep(opts.ReclaimAfter) // a reclaim after the end would show
		ends, _ := k.counts()
		if runs := k.get(k.started)[0]; runs != 1 || ends != 1 {
			t.Errorf("the unit ran %d times and its job was combined to an end %d times; want once each", runs, ends)
		}
	})
}

// TestCombineCanceled: a job canceled while its results are combined
// stops the kind's Combine at the unit's next heartbeat (its context), as
// it stops a run: a polyomino.analyze job's final length search had gone
// on for its whole time.
func TestCombineCanceled(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		k, m, j, _ := combining(t, e)
		if _, err := m.Cancel(context.Background(), j.ID); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "Combine stopped by the cancel", func() bool { _, c := k.counts(); return c == 1 })
		if ends, _ := k.counts(); ends != 0 {
			t.Errorf("Combine ended the job %d times after the cancel", ends)
		}
		if got, err := m.Get(context.Background(), j.ID); err != nil || got.Status != StatusCanceled {
			t.Errorf("job %+v, %v; want canceled", got, err)
		}
	})
}

// TestCombineAtShutdown: a worker shutting down while it combines stops
// Combine and gives the unit back with its result kept: the next worker
// combines again without running the unit again.
func TestCombineAtShutdown(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		k, m, j, stop := combining(t, e)
		stopped := time.Now()
		stop()
		if d := time.Since(stopped); d > 10*time.Second {
			t.Errorf("the worker took %v to stop while combining", d)
		}
		if _, c := k.counts(); c != 1 {
			t.Fatalf("Combine was not stopped by the shutdown (%d canceled)", c)
		}
		k.mu.Lock()
		k.delay = 0
		k.mu.Unlock()
		startWorker(t, m, "w2", 1)
		wantSum(t, waitStatus(t, m, j.ID, StatusDone), 3)
		if runs := k.get(k.started)[0]; runs != 1 {
			t.Errorf("the unit ran %d times; want once (its result was stored)", runs)
		}
	})
}

// TestCombineAtShutdownRestart: a process shut down while it combined a
// job won early ends that job after its restart without running its other
// units (a review found the memory store's hand-back lost with the
// process: the job waited for a unit that ran for its whole time again).
func TestCombineAtShutdownRestart(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		k := &slowCombine{squares: newSquares(), delay: time.Minute, entered: make(chan struct{})}
		hold := make(chan struct{}) // unit 1 does not finish on its own
		t.Cleanup(func() { close(hold) })
		k.wait = func(unit int) <-chan struct{} {
			if unit == 1 {
				return hold
			}
			return nil
		}
		_, j, stop := inCombine(t, e, k, `{"n":4,"units":2,"win":0}`, 2)
		stop()
		k.mu.Lock()
		k.delay = 0
		k.mu.Unlock()
		m2, _ := newManager(t, e.restart(), k, fastOptions(t))
		startWorker(t, m2, "w2", 2)
		waitStatus(t, m2, j.ID, StatusDone)
	})
}

// combining submits a one-unit job of a slowCombine kind whose Combine
// takes a minute, and returns once a worker (stopped by stop) is in it.
func combining(t *testing.T, e *env) (k *slowCombine, m *Manager, j Job, stop func()) {
	t.Helper()
	k = &slowCombine{squares: newSquares(), delay: time.Minute, entered: make(chan struct{})}
	m, j, stop = inCombine(t, e, k, `{"n":3,"units":1}`, 1)
	return k, m, j, stop
}

// inCombine submits request to k and returns once a worker of slots
// slots (stopped by stop) is in k's Combine.
func inCombine(t *testing.T, e *env, k *slowCombine, request string, slots int) (m *Manager, j Job, stop func()) {
	t.Helper()
	entered := k.entered
	m, _ = newManager(t, e.store, k, fastOptions(t))
	j = submit(t, m, request)
	stop = startWorker(t, m, "w1", slots)
	<-entered
	return m, j, stop
}

// completeUnit claims the next unit of ms for consumer, begins it and
// stores its result, as a worker would before it combines and
// acknowledges; it returns the delivery.
func completeUnit(t *testing.T, ms *MemoryStore, consumer string, result json.RawMessage, nodes int64) *delivery {
	t.Helper()
	ctx := context.Background()
	d, err := ms.claim(ctx, consumer, time.Minute, time.Second, false)
	if err != nil || d == nil {
		t.Fatalf("claim: %v %v", d, err)
	}
	if _, err := ms.begin(ctx, d, time.Now()); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ms.complete(ctx, d, result, nodes); err != nil {
		t.Fatal(err)
	}
	return d
}

// TestMemoryNodesAfterRestart: a running unit's node count survives a
// crash of the process: the job's count does not go down when the unit
// runs again from zero (a review saw 140 M nodes, then 6.8 M after a
// kill -9 and a restart).
func TestMemoryNodesAfterRestart(t *testing.T) {
	e := backends[0].open(t)
	ctx := context.Background()
	m, _ := newManager(t, e.store, newSquares(), fastOptions(t))
	j := submit(t, m, `{"n":6,"units":2}`)
	ms := e.store.(*MemoryStore)
	d, err := ms.claim(ctx, "w", time.Minute, time.Second, false)
	if err != nil || d == nil {
		t.Fatalf("claim: %v %v", d, err)
	}
	if _, err := ms.begin(ctx, d, time.Now()); err != nil {
		t.Fatal(err)
	}
	for _, n := range []int64{1000, 140_000, 90_000} {
		if owned, _, err := ms.heartbeat(ctx, d, "w", n); !owned || err != nil {
			t.Fatalf("heartbeat %d: %v, %v", n, owned, err)
		}
	}
	if got, _, _ := ms.load(ctx, j.ID); got.Nodes != 140_000 {
		t.Fatalf("before the crash: %d nodes, want 140000", got.Nodes)
	}
	ms = e.restart().(*MemoryStore) // the process crashed: nothing else written
	if got, _, _ := ms.load(ctx, j.ID); got.Nodes != 140_000 {
		t.Errorf("after the restart: %d nodes, want 140000", got.Nodes)
	}
	// The unit runs again from zero: the count stays until it passes.
	d, err = ms.claim(ctx, "w2", time.Minute, time.Second, false)
	if err != nil || d == nil {
		t.Fatalf("claim after the restart: %v %v", d, err)
	}
	if _, err := ms.begin(ctx, d, time.Now()); err != nil {
		t.Fatal(err)
	}
	_, _, _ = ms.heartbeat(ctx, d, "w2", 5000)
	if got, _, _ := ms.load(ctx, j.ID); got.Nodes != 140_000 {
		t.Errorf("the unit run again: %d nodes, want 140000", got.Nodes)
	}
}

// TestMemoryCrashAfterLastResult: a process that stopped between its job's
// last result and the job's end leaves it to the next, which ends it (the
// job used to stay running for good).
func TestMemoryCrashAfterLastResult(t *testing.T) {
	e := backends[0].open(t)
	k := newSquares()
	m, _ := newManager(t, e.store, k, fastOptions(t))
	j := submit(t, m, `{"n":5,"units":1}`)
	completeUnit(t, e.store.(*MemoryStore), "dead", json.RawMessage(fmt.Sprintf(`{"sum":%d}`, sumSquares(5))), 5)
	// The process stops here; the next opens the journal.
	m2, _ := newManager(t, e.restart(), k, fastOptions(t))
	startWorker(t, m2, "w", 1)
	wantSum(t, waitStatus(t, m2, j.ID, StatusDone), 5)
}

// TestMemoryTornLine: a record torn by a crash or a failed write (a
// fragment without its newline, at the end of a job's file) does not take
// the next record with it: that one starts a line of its own, also when
// the process that tore it goes on writing (a review found a done job
// running again after a torn line: every record appended to the fragment
// was lost); a line that is no record is skipped, not the end of the file.
func TestMemoryTornLine(t *testing.T) {
	e := backends[0].open(t)
	k := newSquares()
	m, _ := newManager(t, e.store, k, fastOptions(t))
	ctx := context.Background()
	j := submit(t, m, `{"n":6,"units":4}`)
	ms := e.store.(*MemoryStore)
	// run finishes one more unit (after a start, the first unit handed
	// out is one with its result, for its worker to combine: passed over).
	run := func(ms *MemoryStore) {
		t.Helper()
		before, _, _ := ms.load(ctx, j.ID)
		for range 2 {
			if err := ms.ack(ctx, completeUnit(t, ms, "w", json.RawMessage(`{"sum":0}`), 1)); err != nil {
				t.Fatal(err)
			}
			if now, _, _ := ms.load(ctx, j.ID); now.Done > before.Done {
				return
			}
		}
		t.Fatal("two units handed out, none without its result")
	}
	tear := func(fragment string) {
		t.Helper()
		f, err := os.OpenFile(ms.path(j.ID), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteString(fragment); err != nil {
			t.Fatal(err)
		}
		_ = f.Close()
	}
	run(ms)
	tear(`{"op":"unit","unit":`) // a crash tears the next record
	ms = e.restart().(*MemoryStore)
	if got, _, _ := ms.load(ctx, j.ID); got.Done != 1 {
		t.Fatalf("after the torn line: %d units done, want 1", got.Done)
	}
	run(ms)
	tear(`{"op":"un`) // a failed write, the process going on
	run(ms)
	tear("not a record\n")
	run(ms)
	ms = e.restart().(*MemoryStore)
	got, ok, err := ms.load(ctx, j.ID)
	if err != nil || !ok || got.Done != 4 {
		t.Fatalf("after two starts: %d units done (%v, %v), want 4", got.Done, ok, err)
	}
}

// TestMaxPerClient: one client's jobs beyond Options.MaxPerClient are
// refused with KindRateLimited and a Retry-After, another client's are
// not, and a canceled job makes room; a submission without a client has
// no such cap.
func TestMaxPerClient(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		m, gate := cappedManager(t, e, func(o *Options) { o.MaxPerClient = 2 })
		a, b := service.WithClient(context.Background(), "ip:192.0.2.1"), service.WithClient(context.Background(), "key:0123")
		req := json.RawMessage(`{"n":4,"units":2}`)
		first, err := m.Submit(a, "toy.squares", req)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := m.Submit(a, "toy.squares", req); err != nil {
			t.Fatal(err)
		}
		_, err = m.Submit(a, "toy.squares", req)
		var se *service.Error
		if !errors.As(err, &se) || se.Kind != service.KindRateLimited || se.RetryAfter <= 0 {
			t.Fatalf("client a's third job: %v, want KindRateLimited with a Retry-After", err)
		}
		for range 2 {
			if _, err := m.Submit(b, "toy.squares", req); err != nil {
				t.Fatalf("client b: %v", err)
			}
		}
		for range 3 {
			submit(t, m, string(req)) // no client: no per-client cap
		}
		if _, err := m.Cancel(context.Background(), first.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := m.Submit(a, "toy.squares", req); err != nil {
			t.Fatalf("client a after a cancel: %v", err)
		}
		close(gate)
	})
}

// TestSubmissionRate: past Options.Submissions' rate a client's
// submissions are refused with a Retry-After until the period ends (the
// jobs finished at once, so no cap on unfinished jobs stopped them),
// before they are planned (planning may build a game: a review found
// refused submissions building them), invalid ones too; another client,
// and a submission without a client, are not counted.
func TestSubmissionRate(t *testing.T) {
	rl, err := service.NewRateLimiter("3-M", nil, time.Second, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer rl.Close()
	opts := fastOptions(t)
	opts.Submissions = rl
	mem, err := NewMemoryStore("")
	if err != nil {
		t.Fatal(err)
	}
	k := newSquares()
	m, _ := newManager(t, mem, k, opts)
	startWorker(t, m, "w", 1)
	a, b := service.WithClient(context.Background(), "ip:192.0.2.1"), service.WithClient(context.Background(), "ip:192.0.2.2")
	req := json.RawMessage(`{"n":4,"units":1}`)
	// Refused for the server's load, as a full build queue refuses a
	// game: not counted (a review found a client obeying Retry-After: 1
	// spending its whole rate).
	for range 5 {
		if _, err := m.Submit(a, "toy.squares", json.RawMessage(`{"busy":true}`)); service.KindOf(err) != service.KindBusy {
			t.Fatalf("a busy plan: %v, want KindBusy", err)
		}
	}
	for i := range 3 {
		j, err := m.Submit(a, "toy.squares", req)
		if err != nil {
			t.Fatalf("client a's job %d: %v", i, err)
		}
		waitStatus(t, m, j.ID, StatusDone)
	}
	_, err = m.Submit(a, "toy.squares", req)
	var se *service.Error
	if !errors.As(err, &se) || se.Kind != service.KindRateLimited || se.RetryAfter < time.Second || se.RetryAfter > time.Minute+time.Second ||
		!strings.Contains(se.Message, "more than 3 job submissions") {
		t.Fatalf("client a's fourth job: %v, want KindRateLimited with a Retry-After within the minute (and the second the reset is rounded up to)", err)
	}
	if _, err := m.Submit(a, "toy.squares", json.RawMessage(`{"units":"x"}`)); service.KindOf(err) != service.KindRateLimited {
		t.Errorf("an invalid request past the rate: %v, want KindRateLimited", err)
	}
	k.mu.Lock()
	planned := k.planned
	k.mu.Unlock()
	if planned != 3+5 {
		t.Errorf("%d submissions planned, want the 3 within the rate and the 5 busy", planned)
	}
	if _, err := m.Submit(b, "toy.squares", req); err != nil {
		t.Errorf("client b: %v", err)
	}
	for range 4 {
		submit(t, m, string(req)) // no client: not counted
	}
}

// TestMaxPerClientAfterRestart: a restarted store still knows whose the
// unfinished jobs are (the memory store's journal keeps the client).
func TestMaxPerClientAfterRestart(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		k := newSquares()
		opts := fastOptions(t)
		opts.MaxPerClient = 1
		m, _ := newManager(t, e.store, k, opts)
		a := service.WithClient(context.Background(), "ip:192.0.2.1")
		if _, err := m.Submit(a, "toy.squares", json.RawMessage(`{"n":4,"units":2}`)); err != nil {
			t.Fatal(err)
		}
		m2, _ := newManager(t, e.restart(), k, opts)
		if _, err := m2.Submit(a, "toy.squares", json.RawMessage(`{"n":4,"units":2}`)); service.KindOf(err) != service.KindRateLimited {
			t.Fatalf("after a restart: %v, want KindRateLimited", err)
		}
	})
}

// TestRedisReconcileKeepsAdmitted: a job admitted under the caps but not
// yet written (its submission's transaction under way) stays counted
// when a refused submission reconciles meanwhile (a review had 15 jobs of
// a client in against a cap of 10 from one burst).
func TestRedisReconcileKeepsAdmitted(t *testing.T) {
	e := backends[1].open(t)
	rs := e.store.(*RedisStore)
	ctx := context.Background()
	s := state{ID: newID(), Client: "ip:192.0.2.1"}
	if full, err := rs.admit(ctx, s, limits{all: 5, client: 1}); err != nil || full != nil {
		t.Fatalf("admit: %v %v", full, err)
	}
	if err := rs.reconcile(ctx, s.Client); err != nil {
		t.Fatal(err)
	}
	if ok, _ := e.rdb.SIsMember(ctx, activeKey, s.ID).Result(); !ok {
		t.Error("reconcile dropped an admitted job from the set of unfinished jobs")
	}
	if full, err := rs.admit(ctx, state{ID: newID(), Client: s.Client}, limits{all: 5, client: 1}); err != nil || full == nil || !full.client {
		t.Errorf("the client's second job: %v %v, want its cap full", full, err)
	}
}

// TestRedisLostData: a unit running when Redis loses its data (a restart
// without it) stops at the next heartbeat, its claim gone with the
// stream, and the worker takes the next jobs (it used to search on, up to
// the unit's hour, while later jobs waited).
func TestRedisLostData(t *testing.T) {
	e := backends[1].open(t)
	k := newSquares()
	gate := k.gated(make(chan struct{}))
	m, met := newManager(t, e.store, k, fastOptions(t))
	submit(t, m, `{"n":4,"units":1}`)
	startWorker(t, m, "w", 1)
	waitFor(t, "the unit running", func() bool { return total(k.get(k.started)) == 1 })
	if err := e.rdb.FlushAll(context.Background()).Err(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the unit stopped", func() bool { return total(k.get(k.canceled)) == 1 })
	// Counted as orphaned (its job lost), not as taken over by another
	// worker, which nothing did.
	waitFor(t, "the unit counted orphaned", func() bool {
		return testutil.ToFloat64(met.Units.WithLabelValues(k.Name(), "orphaned")) == 1
	})
	if n := testutil.ToFloat64(met.Units.WithLabelValues(k.Name(), "lost")); n != 0 {
		t.Errorf("%v units counted lost (taken over)", n)
	}
	close(gate)
	j := submit(t, m, `{"n":5,"units":1}`)
	wantSum(t, waitStatus(t, m, j.ID, StatusDone), 5)
}

// afterRun is a kind whose Run calls then once its result is made.
type afterRun struct {
	*squares
	then func()
}

func (k afterRun) Run(ctx context.Context, request, payload json.RawMessage, report func(int64)) (json.RawMessage, error) {
	r, err := k.squares.Run(ctx, request, payload, report)
	k.then()
	return r, err
}

// TestRedisJobGoneAfterARun: a unit whose run ends as its job is lost
// counts one outcome, orphaned (it counted done and orphaned).
func TestRedisJobGoneAfterARun(t *testing.T) {
	e := backends[1].open(t)
	k := afterRun{newSquares(), func() { e.rdb.FlushAll(context.Background()) }}
	m, met := newManager(t, e.store, k, fastOptions(t))
	submit(t, m, `{"n":4,"units":1}`)
	startWorker(t, m, "w", 1)
	waitFor(t, "the unit counted orphaned", func() bool {
		return testutil.ToFloat64(met.Units.WithLabelValues(k.Name(), "orphaned")) == 1
	})
	if n := testutil.ToFloat64(met.Units.WithLabelValues(k.Name(), "done")); n != 0 {
		t.Errorf("the orphaned unit counted done too (%v)", n)
	}
}

// TestResultAfterShortOutage: a unit that finishes while Redis is down
// for seconds stores its result when Redis is back (the worker retries
// for a third of ReclaimAfter); it used to give up after five attempts,
// and the unit ran again after a reclaim.
func TestResultAfterShortOutage(t *testing.T) {
	e := backends[1].open(t)
	k := newSquares()
	gate := k.gated(make(chan struct{}))
	opts := fastOptions(t)
	opts.ReclaimAfter = 24 * time.Second // results retried for 8 s
	m, _ := newManager(t, e.store, k, opts)
	j := submit(t, m, `{"n":4,"units":1}`)
	startWorker(t, m, "w", 1)
	waitFor(t, "the unit running", func() bool { return total(k.get(k.started)) == 1 })
	e.crash()
	close(gate) // the unit finishes with Redis down
	waitFor(t, "the unit finished", func() bool { return total(k.get(k.finished)) == 1 })
	// Longer than retry's five attempts (about 2.7 s here: go-redis
	// retries each dial too).
	time.Sleep(5 * time.Second)
	e.restart() // the manager's client connects again
	wantSum(t, waitStatus(t, m, j.ID, StatusDone), 4)
	if n := total(k.get(k.started)); n != 1 {
		t.Errorf("the unit ran %d times", n)
	}
}

// TestOutageReclaimsNothing: after a Redis outage longer than
// ReclaimAfter, every running unit looks idle; a worker that saw the
// outage reclaims none for ReclaimAfter, and the live worker's heartbeat
// keeps its unit. Before, the idle slot of another process took the unit
// over at once: the run was dropped and a delivery counted (three outages
// failed a job, "delivered 3 times without finishing").
func TestOutageReclaimsNothing(t *testing.T) {
	e := backends[1].open(t)
	addr := e.rdb.Options().Addr
	k := newSquares()
	gate := k.gated(make(chan struct{}))
	opts := fastOptions(t)
	opts.MaxDeliveries = 1 // a reclaim would fail the job
	opts.OpTimeout = 300 * time.Millisecond
	// The live worker's heartbeat lands up to 2 s after Redis is back
	// (more on a loaded machine: with ReclaimAfter 4 s a clean-clone CI
	// saw the unit reclaimed); the idle worker, started late in the
	// outage, tries at once.
	opts.Heartbeat, opts.ReclaimAfter = 2*time.Second, 8*time.Second
	managers := twoProcesses(t, addr, k, opts)
	j := submit(t, managers[0], `{"n":4,"units":1}`)
	startWorker(t, managers[0], "a", 1)
	waitFor(t, "the unit running", func() bool { return total(k.get(k.started)) == 1 })
	e.crash()
	time.Sleep(opts.ReclaimAfter + time.Second)
	startWorker(t, managers[1], "b", 1) // idle: it would reclaim
	time.Sleep(300 * time.Millisecond)
	e.restart()
	time.Sleep(opts.ReclaimAfter + time.Second)
	if n := total(k.get(k.started)); n != 1 {
		t.Fatalf("the unit ran %d times after the outage", n)
	}
	close(gate)
	wantSum(t, waitStatus(t, managers[1], j.ID, StatusDone), 4)
	if n := total(k.get(k.started)); n != 1 {
		t.Errorf("the unit ran %d times", n)
	}
}

// twoProcesses are the managers of two processes on the Redis at addr,
// each with its own client.
func twoProcesses(t *testing.T, addr string, k Kind, opts Options) []*Manager {
	var managers []*Manager
	for range 2 {
		rdb := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1})
		t.Cleanup(func() { _ = rdb.Close() })
		m, _ := newManager(t, NewRedisStore(rdb), k, opts)
		managers = append(managers, m)
	}
	return managers
}

// TestLaterUnitFormat: a job planned by a later version (its kind's
// Versioned format above the worker's) fails with a message that says so,
// after the other workers of a shared store had their chance for
// ReclaimAfter from its first unit begun (not from its submission: a job
// queued behind others was failed at once); one planned by an earlier
// version runs. (During a rolling upgrade an earlier worker refused such
// units as "unit 0: request.part: unknown field", which read like the
// client's fault.)
func TestLaterUnitFormat(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			e := b.open(t)
			later, earlier := newSquares(), newSquares()
			later.format, earlier.format = 2, 1
			opts := fastOptions(t)
			planner, _ := newManager(t, e.store, later, opts)
			worker, met := newManager(t, e.store, earlier, opts)
			j := submit(t, planner, `{"n":4,"units":2}`)
			time.Sleep(opts.ReclaimAfter + 100*time.Millisecond) // queued past the grace
			started := time.Now()
			startWorker(t, worker, "w-earlier", 1)
			j = waitStatus(t, worker, j.ID, StatusFailed)
			if !strings.Contains(j.Error, "planned by a later version of gamesolver (toy.squares units of format 2; this worker reads format 1 and earlier)") {
				t.Errorf("error %q", j.Error)
			}
			if got := testutil.ToFloat64(met.Units.WithLabelValues("toy.squares", "passed")); e.rdb != nil && (got == 0 || time.Since(started) < opts.ReclaimAfter) {
				t.Errorf("shared store: failed after %v, %v units left to other workers", time.Since(started), got)
			}
			if len(earlier.started) != 0 {
				t.Errorf("units run: %v", earlier.started)
			}
			// A job of the earlier format runs on the later worker.
			j = submit(t, worker, `{"n":4,"units":2}`)
			startWorker(t, planner, "w-later", 1)
			wantSum(t, waitStatus(t, planner, j.ID, StatusDone), 4)
		})
	}
}

// TestLaterUnitFormatRunningJob: during a rolling upgrade, an earlier
// worker that meets a unit of a later-format job that later workers have
// run for more than ReclaimAfter leaves it to them, for ReclaimAfter from
// its own first hand-back of that unit, and the job ends done. Before, the
// grace counted from the job's first unit begun, and the earlier worker
// failed the running job at once.
func TestLaterUnitFormatRunningJob(t *testing.T) {
	e := backends[1].open(t)
	later, earlier := newSquares(), newSquares()
	later.format, earlier.format = 2, 1
	gate := later.gated(make(chan struct{}))
	opts := fastOptions(t)
	opts.ReclaimAfter = 3 * time.Second
	planner, _ := newManager(t, e.store, later, opts)
	worker, met := newManager(t, e.store, earlier, opts)
	j := submit(t, planner, `{"n":4,"units":2}`)
	startWorker(t, planner, "w-later", 1)
	waitFor(t, "the later worker running unit 0", func() bool { return total(later.get(later.started)) == 1 })
	time.Sleep(opts.ReclaimAfter + 100*time.Millisecond) // the job runs past the grace
	startWorker(t, worker, "w-earlier", 1)
	waitFor(t, "the earlier worker passing unit 1", func() bool {
		return testutil.ToFloat64(met.Units.WithLabelValues("toy.squares", "passed")) > 0
	})
	if got, err := worker.Get(context.Background(), j.ID); err != nil || got.Status.Final() {
		t.Fatalf("after a hand-back: %+v, %v", got, err)
	}
	close(gate)
	wantSum(t, waitStatus(t, planner, j.ID, StatusDone), 4)
	if n := total(earlier.get(earlier.started)); n != 0 {
		t.Errorf("%d units run by the earlier worker", n)
	}
}

// TestRefusingRedisReclaimsNothing: Redis refusing writes (maxmemory
// reached with noeviction: OOM, as READONLY after a failover or MISCONF
// on a full disk) is an outage for the workers: the unit that finishes
// meanwhile keeps its result until Redis takes it, and no worker reclaims
// the units whose heartbeats were refused. Before, the result was dropped
// after a few seconds and the unit reclaimed until its job failed,
// "delivered 3 times without finishing" (an audit's healthy jobs, after
// 100 s of maxmemory).
func TestRefusingRedisReclaimsNothing(t *testing.T) {
	e := backends[1].open(t)
	addr := e.rdb.Options().Addr
	k := newSquares()
	gate := k.gated(make(chan struct{}))
	opts := fastOptions(t)
	opts.MaxDeliveries = 1 // a reclaim would fail the job
	opts.OpTimeout = 300 * time.Millisecond
	opts.Heartbeat, opts.ReclaimAfter = 500*time.Millisecond, 2*time.Second
	managers := twoProcesses(t, addr, k, opts)
	ctx := context.Background()
	refuse := func(on bool) {
		limit := "0"
		if on {
			limit = "1"
		}
		if err := e.rdb.ConfigSet(ctx, "maxmemory-policy", "noeviction").Err(); err != nil {
			t.Fatal(err)
		}
		if err := e.rdb.ConfigSet(ctx, "maxmemory", limit).Err(); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { _ = e.rdb.ConfigSet(ctx, "maxmemory", "0").Err() })
	j := submit(t, managers[0], `{"n":4,"units":1}`)
	startWorker(t, managers[0], "a", 1)
	waitFor(t, "the unit running", func() bool { return total(k.get(k.started)) == 1 })
	refuse(true)
	startWorker(t, managers[1], "b", 1) // idle: it would reclaim
	time.Sleep(opts.Heartbeat)
	close(gate) // the unit finishes while Redis refuses its result
	waitFor(t, "the unit finished", func() bool { return total(k.get(k.finished)) == 1 })
	time.Sleep(opts.ReclaimAfter + time.Second)
	refuse(false)
	wantSum(t, waitStatus(t, managers[1], j.ID, StatusDone), 4)
	if n := total(k.get(k.started)); n != 1 {
		t.Errorf("the unit ran %d times", n)
	}
}

// TestExpressSlot: with Options.Express, a small job submitted while a
// slow job's unit holds the worker's only slot finishes at once, on the
// express slot; the slow job's unit the express slot took is handed back
// after the limit, uncounted (one delivery allowed), the job marked slow
// so that the express slot runs none of its units again, and the job
// still finishes with every unit. Without it the small job waited for the
// slow unit, up to --max-job-duration (an hour by default).
func TestExpressSlot(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		big, small := newSquares(), newSquares()
		small.name = "toy.small"
		gate := big.gated(make(chan struct{}))
		opts := fastOptions(t)
		opts.Express = 300 * time.Millisecond
		opts.MaxDeliveries = 1 // a hand-back that counted would fail the job
		met := NewMetrics(prometheus.NewRegistry(), nil)
		opts.Metrics = met
		m, err := NewManager(e.store, []Kind{big, small}, opts)
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		a, err := m.Submit(ctx, "toy.squares", json.RawMessage(`{"n":30,"units":3}`))
		if err != nil {
			t.Fatal(err)
		}
		startWorker(t, m, "w", 1)
		waitFor(t, "the big job's unit handed back by the express slot", func() bool {
			return total(big.get(big.canceled)) == 1 && value(met.Units.WithLabelValues("toy.squares", "deferred")) >= 1
		})
		start := time.Now()
		b, err := m.Submit(ctx, "toy.small", json.RawMessage(`{"n":4,"units":2}`))
		if err != nil {
			t.Fatal(err)
		}
		wantSum(t, waitStatus(t, m, b.ID, StatusDone), 4)
		t.Logf("the small job finished %v after its submission", time.Since(start))
		if j, err := m.Get(ctx, a.ID); err != nil || j.Status.Final() {
			t.Fatalf("the big job = %+v, %v; want it still running, its units gated", j, err)
		}
		close(gate)
		wantSum(t, waitStatus(t, m, a.ID, StatusDone), 30)
		if c := big.get(big.canceled); total(c) != 1 {
			t.Errorf("the express slot ran the slow job's units %v times, want once", c)
		}
		if s := big.get(big.started); len(s) != 3 || total(s) != 4 {
			t.Errorf("the big job's runs = %v, want each unit once and the handed-back one twice", s)
		}
		assertQueueEmpty(t, e)
	})
}

// TestSlowJobs: once a job is marked slow an express slot gets none of
// its units (the memory store skips them; the Redis stream hands the next
// one out, and begin says slow, for the worker to pass it on), nor the
// unit handed back; the mark survives a restart of the store (the memory
// store's file, Redis's hash); and the handed-back unit is claimable at
// once by another slot, its delivery uncounted (Redis; the memory store
// counts afresh after a restart anyway).
func TestSlowJobs(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		m, _ := newManager(t, e.store, newSquares(), fastOptions(t))
		j := submit(t, m, `{"n":5,"units":2}`)
		ctx := context.Background()
		d, err := e.store.claim(ctx, "c", time.Minute, time.Second, true)
		if err != nil || d == nil || d.Unit != 0 {
			t.Fatalf("express claim: %+v %v", d, err)
		}
		if st, err := e.store.begin(ctx, d, time.Now()); err != nil || st.Slow {
			t.Fatalf("begin = %+v, %v; want a job not slow", st, err)
		}
		if err := e.store.slow(ctx, d, "c"); err != nil {
			t.Fatal(err)
		}
		next, err := e.store.claim(ctx, "c", time.Minute, 10*time.Millisecond, true)
		switch {
		case err != nil:
			t.Fatal(err)
		case e.rdb == nil && next != nil:
			t.Fatalf("the memory store gave an express slot a slow job's unit: %+v", next)
		case e.rdb != nil:
			if next == nil || next.Unit != 1 {
				t.Fatalf("Redis express claim = %+v; want the next new unit, 1", next)
			}
			if st, err := e.store.begin(ctx, next, time.Now()); err != nil || !st.Slow {
				t.Fatalf("begin of unit 1 = %+v, %v; want the job slow", st, err)
			}
			if err := e.store.release(ctx, next, "c", false); err != nil {
				t.Fatal(err)
			}
			if again, err := e.store.claim(ctx, "c", time.Minute, 10*time.Millisecond, true); err != nil || again != nil {
				t.Fatalf("an express slot took a handed-back unit: %+v, %v", again, err)
			}
		}
		store := e.restart()
		d, err = store.claim(ctx, "d", time.Minute, time.Second, false)
		if err != nil || d == nil || d.JobID != j.ID || d.Unit != 0 || d.Deliveries != 1 {
			t.Fatalf("claim after the restart = %+v, %v; want unit 0, first delivery", d, err)
		}
		if st, err := store.begin(ctx, d, time.Now()); err != nil || !st.Slow {
			t.Fatalf("begin after the restart = %+v, %v; want the job slow", st, err)
		}
	})
}

// TestNodesNeverGoDown: a unit run again reports from zero, and the job's
// node count keeps the most its earlier run reported (finished too), so
// that progress, and the event ids made of it, never go back.
func TestNodesNeverGoDown(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		s := state{ID: newID(), Type: "toy.squares", Status: StatusQueued, Created: time.Now().UTC().Truncate(time.Millisecond),
			Request: json.RawMessage(`{}`), Total: 1}
		if err := e.store.create(ctx, s, []json.RawMessage{json.RawMessage(`{"from":1,"to":2}`)}, limits{}); err != nil {
			t.Fatal(err)
		}
		nodes := func() int64 {
			t.Helper()
			st, ok, err := e.store.load(ctx, s.ID)
			if err != nil || !ok {
				t.Fatalf("load: %v %v", ok, err)
			}
			return st.Nodes
		}
		claim := func(consumer string) *delivery {
			t.Helper()
			d, err := e.store.claim(ctx, consumer, 0, time.Second, false)
			if err != nil || d == nil || d.JobID != s.ID {
				t.Fatalf("claim: %+v %v", d, err)
			}
			if _, err := e.store.begin(ctx, d, time.Now()); err != nil {
				t.Fatal(err)
			}
			return d
		}
		d := claim("a")
		if owned, _, err := e.store.heartbeat(ctx, d, "a", 30); err != nil || !owned {
			t.Fatalf("heartbeat: %v %v", owned, err)
		}
		if n := nodes(); n != 30 {
			t.Fatalf("after the first run's report: %d nodes, want 30", n)
		}
		if err := e.store.release(ctx, d, "a", false); err != nil {
			t.Fatal(err)
		}
		d = claim("b")
		if owned, _, err := e.store.heartbeat(ctx, d, "b", 5); err != nil || !owned {
			t.Fatalf("heartbeat: %v %v", owned, err)
		}
		if n := nodes(); n != 30 {
			t.Fatalf("the second run at 5 nodes: %d nodes, want the first's 30", n)
		}
		if _, _, err := e.store.heartbeat(ctx, d, "b", 40); err != nil {
			t.Fatal(err)
		}
		if n := nodes(); n != 40 {
			t.Fatalf("the second run at 40 nodes: %d nodes, want 40", n)
		}
		if _, _, err := e.store.complete(ctx, d, json.RawMessage(`{"sum":5}`), 12); err != nil {
			t.Fatal(err)
		}
		if n := nodes(); n != 40 {
			t.Fatalf("finished with 12 nodes after a report of 40: %d nodes, want 40", n)
		}
	})
}

// TestMemoryDirInUse: a second store on the same directory is refused
// while the first is open (two processes would both run its jobs), and
// opens once the first is closed.
func TestMemoryDirInUse(t *testing.T) {
	dir := t.TempDir()
	first, err := NewMemoryStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	if f, _ := lockDir(t.TempDir()); f == nil {
		t.Skip("no directory lock here (no flock)")
	} else {
		_ = f.Close()
	}
	second, err := NewMemoryStore(dir)
	if !errors.Is(err, ErrDirInUse) {
		t.Fatalf("second store on %s: %v, %v; want ErrDirInUse", dir, second, err)
	}
	if want := fmt.Sprintf("process %d", os.Getpid()); !strings.Contains(err.Error(), want) {
		t.Errorf("message %q does not name the holder (%s)", err, want)
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	third, err := NewMemoryStore(dir)
	if err != nil {
		t.Fatalf("after the first was closed: %v", err)
	}
	_ = third.Close()
}

// frozenStore is a store whose job reads hang until their deadline while
// frozen (Redis stopped), counting the reads that reach it, and whose
// creates fail at once while full (a disk without space: the store
// answers, with an error).
type frozenStore struct {
	Store
	frozen, full atomic.Bool
	loads        atomic.Int32
	inLoad       chan struct{} // a frozen read has reached the store
}

func (f *frozenStore) load(ctx context.Context, id string) (state, bool, error) {
	f.loads.Add(1)
	if f.frozen.Load() {
		select {
		case f.inLoad <- struct{}{}:
		default:
		}
		<-ctx.Done()
		return state{}, false, ctx.Err()
	}
	return f.Store.load(ctx, id)
}

func (f *frozenStore) countActive(ctx context.Context) (int, error) {
	if f.frozen.Load() {
		<-ctx.Done()
		return 0, ctx.Err()
	}
	return f.Store.countActive(ctx)
}

func (f *frozenStore) create(ctx context.Context, s state, units []json.RawMessage, lim limits) error {
	if f.full.Load() {
		return errors.New("write jobs/x.log: no space left on device")
	}
	return f.Store.create(ctx, s, units, lim)
}

// handBackStore is a store whose hand-backs hang until their deadline
// while frozen, counting them.
type handBackStore struct {
	Store
	frozen    atomic.Bool
	handBacks atomic.Int32
}

func (h *handBackStore) release(ctx context.Context, d *delivery, consumer string, count bool) error {
	h.handBacks.Add(1)
	if h.frozen.Load() {
		<-ctx.Done()
		return ctx.Err()
	}
	return h.Store.release(ctx, d, consumer, count)
}

// TestShutdownStoreDown: a worker shutting down while the store does not
// answer tries once to hand back each running unit, not five times (each
// waiting OpTimeout: a frozen Redis held a shutdown for 25 s), and leaves
// it pending; another worker runs it once the store is back.
func TestShutdownStoreDown(t *testing.T) {
	mem, err := NewMemoryStore("")
	if err != nil {
		t.Fatal(err)
	}
	hs := &handBackStore{Store: mem}
	k := newSquares()
	gate := k.gated(make(chan struct{}))
	opts := fastOptions(t)
	opts.OpTimeout = 100 * time.Millisecond
	m, _ := newManager(t, hs, k, opts)
	j := submit(t, m, `{"n":4,"units":2}`)
	stop := startWorker(t, m, "w", 2)
	waitFor(t, "both units running", func() bool { return total(k.get(k.started)) == 2 })
	hs.frozen.Store(true)
	stop()
	if n := hs.handBacks.Load(); n != 2 {
		t.Errorf("%d hand-backs tried for 2 units", n)
	}
	hs.frozen.Store(false)
	close(gate)
	startWorker(t, m, "w2", 2)
	wantSum(t, waitStatus(t, m, j.ID, StatusDone), 4)
}

// lateClaimStore is a handBackStore whose claims return only once the
// worker stops, with a unit, the store then frozen (a blocking read that
// delivered as the worker stopped, the store stalling after it).
type lateClaimStore struct {
	handBackStore
	claiming atomic.Bool
}

func (l *lateClaimStore) claim(ctx context.Context, consumer string, minIdle, block time.Duration, express bool) (*delivery, error) {
	l.claiming.Store(true)
	<-ctx.Done()
	d, err := l.Store.claim(context.WithoutCancel(ctx), consumer, minIdle, block, express)
	l.frozen.Store(true)
	return d, err
}

// TestShutdownClaimedStoreDown: a unit claimed as its worker stops is
// handed back with one try of a store that does not answer, as a running
// unit's is (the slot's hand-back made five, each waiting OpTimeout).
func TestShutdownClaimedStoreDown(t *testing.T) {
	mem, err := NewMemoryStore("")
	if err != nil {
		t.Fatal(err)
	}
	ls := &lateClaimStore{handBackStore: handBackStore{Store: mem}}
	opts := fastOptions(t)
	opts.OpTimeout = 100 * time.Millisecond
	m, _ := newManager(t, ls, newSquares(), opts)
	submit(t, m, `{"n":4,"units":1}`)
	stop := startWorker(t, m, "w", 1)
	waitFor(t, "a claim", ls.claiming.Load)
	stop()
	if n := ls.handBacks.Load(); n != 1 {
		t.Errorf("%d hand-backs tried for the unit claimed as the worker stopped", n)
	}
}

// TestStoreDownFailsFast: while the store cannot be reached, one API
// call waits for its timeout and the others answer 503 at once (each
// waited the whole timeout, 5 s by default), with a Retry-After until the
// next try; then one call at a time probes the store, and once it answers
// all go through again. A store that answers with an error shuts nothing.
func TestStoreDownFailsFast(t *testing.T) {
	mem, err := NewMemoryStore("")
	if err != nil {
		t.Fatal(err)
	}
	fs := &frozenStore{Store: mem, inLoad: make(chan struct{}, 1)}
	opts := fastOptions(t)
	opts.OpTimeout = 300 * time.Millisecond
	m, _ := newManager(t, fs, newSquares(), opts)
	j := submit(t, m, `{"n":4,"units":1}`)
	ctx := context.Background()

	// A full disk: the submission fails, reads go on.
	fs.full.Store(true)
	if _, err := m.Submit(ctx, "toy.squares", json.RawMessage(`{"n":4,"units":1}`)); service.KindOf(err) != service.KindUnavailable {
		t.Fatalf("a submission with the disk full: %v", err)
	}
	if got, err := m.Get(ctx, j.ID); err != nil || got.ID != j.ID {
		t.Fatalf("a read after a failed write: %v", err)
	}
	if _, err := m.Get(ctx, "AAAAAAAAAAAAAAAAAAAAAA"); service.KindOf(err) != service.KindNotFound {
		t.Fatalf("an unknown job after a failed write: %v", err)
	}
	fs.full.Store(false)
	loads := fs.loads.Load()

	fs.frozen.Store(true)
	if _, err := m.Get(ctx, j.ID); service.KindOf(err) != service.KindUnavailable {
		t.Fatalf("the first read with the store down: %v", err)
	}
	<-fs.inLoad
	for range 5 {
		_, err := m.Get(ctx, j.ID)
		var se *service.Error
		if !errors.As(err, &se) || se.Kind != service.KindUnavailable || se.RetryAfter < time.Second {
			t.Fatalf("a read while the store is known down: %v", err)
		}
	}
	if _, err := m.Cancel(ctx, j.ID); service.KindOf(err) != service.KindUnavailable {
		t.Fatalf("a cancel while the store is known down: %v", err)
	}
	if n := fs.loads.Load() - loads; n != 1 {
		t.Fatalf("%d reads reached the store, want the first only", n)
	}
	// After the pause one call probes; while it waits the others fail.
	time.Sleep(opts.OpTimeout)
	probed := make(chan error)
	go func() { _, err := m.Get(ctx, j.ID); probed <- err }()
	<-fs.inLoad // the probe is in the store
	for range 3 {
		if _, err := m.Get(ctx, j.ID); service.KindOf(err) != service.KindUnavailable {
			t.Fatalf("a read beside the probe: %v", err)
		}
	}
	<-probed
	if n := fs.loads.Load() - loads; n != 2 {
		t.Fatalf("%d reads reached the store, want one probe more", n)
	}
	fs.frozen.Store(false)
	time.Sleep(opts.OpTimeout)
	for i := range 3 {
		if got, err := m.Get(ctx, j.ID); err != nil || got.ID != j.ID {
			t.Fatalf("read %d with the store back: %v", i, err)
		}
	}
	if n := fs.loads.Load() - loads; n != 5 {
		t.Errorf("%d reads reached the store, want every one once it is back", n)
	}
}

// TestScrapeWhileStoreDown: the gauge of unfinished jobs waits at most
// scrapeWait for a store that cannot be reached, even as the gate's probe
// (it waited the store's whole timeout), shows NaN, and leaves the gate as
// it was; once the store answers, the scrape's probe opens the gate.
func TestScrapeWhileStoreDown(t *testing.T) {
	mem, err := NewMemoryStore("")
	if err != nil {
		t.Fatal(err)
	}
	fs := &frozenStore{Store: mem, inLoad: make(chan struct{}, 1)}
	opts := fastOptions(t)
	opts.OpTimeout = 2 * time.Second
	m, met := newManager(t, fs, newSquares(), opts)
	m.scrapeWait = 100 * time.Millisecond
	gauge := *met.unfinished.Load()
	j := submit(t, m, `{"n":4,"units":1}`)
	if g := gauge(); g != 1 {
		t.Fatalf("gauge %v, want 1", g)
	}
	fs.frozen.Store(true)
	for i := range 2 { // the first is the gate's probe
		start := time.Now()
		if g := gauge(); !math.IsNaN(g) || time.Since(start) > time.Second {
			t.Fatalf("scrape %d with the store down: %v after %v", i, g, time.Since(start))
		}
	}
	// The scrapes closed nothing: a read waits for the store's timeout.
	start := time.Now()
	if _, err := m.Get(context.Background(), j.ID); service.KindOf(err) != service.KindUnavailable || time.Since(start) < opts.OpTimeout {
		t.Fatalf("a read after the scrapes: %v after %v", err, time.Since(start))
	}
	// Now closed: a scrape answers NaN at once.
	if g := gauge(); !math.IsNaN(g) {
		t.Fatalf("scrape with the gate closed: %v", g)
	}
	fs.frozen.Store(false)
	time.Sleep(opts.OpTimeout)
	if g := gauge(); g != 1 {
		t.Fatalf("scrape with the store back: %v", g)
	}
	if _, err := m.Get(context.Background(), j.ID); err != nil {
		t.Fatalf("a read after the scrape's probe: %v", err)
	}
}

// TestMemoryStoreKeepsFinishedCapped: past maxFinished the oldest finished
// jobs are forgotten, files too, before their TTL (a flood of small jobs
// grew the store without bound); unfinished jobs are never, and stay
// counted for the caps; a restart finds what was kept.
func TestMemoryStoreKeepsFinishedCapped(t *testing.T) {
	dir := t.TempDir()
	mem, err := NewMemoryStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	mem.maxFinished = 3
	m, met := newManager(t, mem, newSquares(), fastOptions(t))
	stop := startWorker(t, m, "w", 1)
	var ids []string
	for i := range 5 {
		j := submit(t, m, fmt.Sprintf(`{"n":%d,"units":1}`, i+1))
		waitStatus(t, m, j.ID, StatusDone)
		ids = append(ids, j.ID)
	}
	stop()
	queued := submit(t, m, `{"n":3,"units":1}`) // no worker: stays queued
	for i, id := range ids {
		_, err := m.Get(context.Background(), id)
		_, statErr := os.Stat(filepath.Join(dir, id+".jsonl"))
		if kept := err == nil; kept != (i >= 2) || kept != (statErr == nil) {
			t.Errorf("job %d: Get error %v, file %v", i, err, statErr)
		}
	}
	mem.mu.Lock()
	active := mem.unfinished("")
	mem.mu.Unlock()
	if active != 1 {
		t.Errorf("unfinished = %d, want 1 (the queued job)", active)
	}
	if g := (*met.unfinished.Load())(); g != 1 {
		t.Errorf("gauge of unfinished jobs = %v, want 1", g)
	}
	// Past the bytes kept, the oldest go too, the latest stays; a finished
	// job keeps no unit result.
	mem.mu.Lock()
	mem.maxFinishedBytes = mem.finishedBytes - 1
	mem.evict()
	kept, results := len(mem.finished), 0
	for _, f := range mem.finished {
		for _, r := range mem.jobs[f.id].results {
			results += len(r)
		}
	}
	mem.maxFinishedBytes = MaxFinishedBytes
	mem.mu.Unlock()
	if kept != 2 || results != 0 {
		t.Errorf("past the bytes: %d finished jobs kept (want 2), %d bytes of unit results", kept, results)
	}
	if err := mem.Close(); err != nil {
		t.Fatal(err)
	}
	again, err := NewMemoryStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	again.mu.Lock()
	defer again.mu.Unlock()
	if len(again.jobs) != 3 || len(again.active) != 1 || again.active[queued.ID] == nil || len(again.finished) != 2 {
		t.Errorf("after a restart: %d jobs, %d active", len(again.jobs), len(again.active))
	}
}

// TestReclaimHold: reclaims of units a live worker may hold wait after a
// call that could not reach the store (or Redis still loading its data),
// not after an error the store answered (a full Redis refusing writes
// would never let a dead worker's units be reclaimed).
func TestReclaimHold(t *testing.T) {
	mem, err := NewMemoryStore("")
	if err != nil {
		t.Fatal(err)
	}
	m, _ := newManager(t, mem, newSquares(), fastOptions(t))
	if got := m.reclaimAfter(); got != fastOptions(t).ReclaimAfter {
		t.Fatalf("a new manager holds its reclaims: %v", got)
	}
	m.storeFailed(errors.New("OOM command not allowed when used memory > 'maxmemory'"))
	if got := m.reclaimAfter(); got != fastOptions(t).ReclaimAfter {
		t.Errorf("after an answered error: %v", got)
	}
	for _, err := range []error{syscall.ECONNREFUSED, context.DeadlineExceeded, errors.New("LOADING Redis is loading the dataset in memory")} {
		m.holdReclaims.Store(0)
		m.storeFailed(err)
		if got := m.reclaimAfter(); got != outageIdle {
			t.Errorf("after %v: %v, want the hold", err, got)
		}
	}
}

// metricsManager is a manager of the toy kind over e's store whose units
// wait on gate, its metrics registered on reg.
func metricsManager(t *testing.T, e *env) (m *Manager, gate chan struct{}, reg *prometheus.Registry, met *Metrics) {
	t.Helper()
	k := newSquares()
	gate = k.gated(make(chan struct{}))
	reg = prometheus.NewRegistry()
	met = NewMetrics(reg, nil)
	opts := fastOptions(t)
	opts.Metrics = met
	m, err := NewManager(e.store, []Kind{k}, opts)
	if err != nil {
		t.Fatal(err)
	}
	return m, gate, reg, met
}

// gauges gathers reg's gauge name by its first label's value.
func gauges(t *testing.T, reg *prometheus.Registry, name string) map[string]float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, f := range families {
		if f.GetName() == name {
			for _, mt := range f.GetMetric() {
				got[mt.GetLabel()[0].GetValue()] = mt.GetGauge().GetValue()
			}
		}
	}
	return got
}

// TestOldestGauge: gamesolver_jobs_oldest_seconds reads when the oldest
// queued and the oldest running job were submitted, in either store (an
// operator could tell no worker at work only from counters that stop
// moving).
func TestOldestGauge(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		m, gate, reg, met := metricsManager(t, e)
		oldest := *met.oldest.Load()
		if q, r, ok := oldest(); !ok || !q.IsZero() || !r.IsZero() {
			t.Fatalf("no job: %v %v %v", q, r, ok)
		}
		a := submit(t, m, `{"n":4,"units":1}`)
		time.Sleep(20 * time.Millisecond)
		b := submit(t, m, `{"n":4,"units":1}`)
		same := func(got, want time.Time) bool { return got.UnixMilli() == want.UnixMilli() }
		if q, r, ok := oldest(); !ok || !same(q, a.Created) || !r.IsZero() {
			t.Errorf("two queued jobs: queued %v running %v (%v), want %v and none", q, r, ok, a.Created)
		}
		startWorker(t, m, "w", 1)
		waitJob(t, m, a.ID, "a running", func(j Job) bool { return j.Status == StatusRunning })
		if q, r, ok := oldest(); !ok || !same(q, b.Created) || !same(r, a.Created) {
			t.Errorf("one running, one queued: queued %v running %v (%v), want %v and %v", q, r, ok, b.Created, a.Created)
		}
		ages := gauges(t, reg, "gamesolver_jobs_oldest_seconds")
		if ages["queued"] <= 0 || ages["running"] < ages["queued"] || ages["running"] > 60 {
			t.Errorf("gamesolver_jobs_oldest_seconds %v", ages)
		}
		close(gate)
		waitJob(t, m, b.ID, "b done", func(j Job) bool { return j.Status == StatusDone })
		if q, r, ok := oldest(); !ok || !q.IsZero() || !r.IsZero() {
			t.Errorf("every job done: %v %v %v", q, r, ok)
		}
	})
}

// TestUnitsGauge: gamesolver_job_units_queued counts the store's units
// waiting for a worker and those handed out, in either store (the backlog
// an operator scales the workers on; jobs_unfinished counts jobs, whatever
// their size).
func TestUnitsGauge(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		m, gate, reg, _ := metricsManager(t, e)
		want := func(what string, waiting, delivered float64) {
			t.Helper()
			deadline := time.Now().Add(5 * time.Second)
			for {
				got := gauges(t, reg, "gamesolver_job_units_queued")
				if got["waiting"] == waiting && got["delivered"] == delivered && len(got) == 2 {
					return
				}
				if time.Now().After(deadline) {
					t.Fatalf("%s: %v, want waiting %v delivered %v", what, got, waiting, delivered)
				}
				time.Sleep(10 * time.Millisecond)
			}
		}
		want("no job", 0, 0)
		// More units than a job's window (Redis: 8 in the stream, the
		// others in the job's hash) count too.
		a := submit(t, m, `{"n":20,"units":20}`)
		b := submit(t, m, `{"n":4,"units":2}`)
		want("two jobs queued", 22, 0)
		if _, err := m.Cancel(context.Background(), b.ID); err != nil {
			t.Fatal(err)
		}
		want("one canceled (its units wait to be skipped)", 22, 0)
		startWorker(t, m, "w", 1)
		want("one unit running", 21, 1)
		close(gate)
		waitJob(t, m, a.ID, "a done", func(j Job) bool { return j.Status == StatusDone })
		want("every unit done or skipped", 0, 0)
	})
}

// TestMemoryFinishedCompacted: a finished job's file keeps what a
// finished job shows (its request, status, times, result or error, units
// done, nodes) and drops the units' payloads and results, and a restart
// shows the job as before (a canceled job of 7,000 units kept 2 MB of
// payloads for a week, replayed at every start).
func TestMemoryFinishedCompacted(t *testing.T) {
	e := backends[0].open(t)
	ctx := context.Background()
	m, _ := newManager(t, e.store, newSquares(), fastOptions(t))
	done := submit(t, m, `{"n":30,"units":3}`)
	stop := startWorker(t, m, "w", 1)
	waitStatus(t, m, done.ID, StatusDone)
	stop()
	canceled := submit(t, m, `{"n":40,"units":4}`)
	ms := e.store.(*MemoryStore)
	d, err := ms.claim(ctx, "w", time.Minute, time.Second, false)
	if err != nil || d == nil || d.JobID != canceled.ID {
		t.Fatalf("claim: %+v %v", d, err)
	}
	if _, err := ms.begin(ctx, d, time.Now()); err != nil {
		t.Fatal(err)
	}
	if owned, _, err := ms.heartbeat(ctx, d, "w", 7000); !owned || err != nil {
		t.Fatalf("heartbeat: %v %v", owned, err)
	}
	if _, err := m.Cancel(ctx, canceled.ID); err != nil {
		t.Fatal(err)
	}
	var before []Job
	for _, id := range []string{done.ID, canceled.ID} {
		j, err := m.Get(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		before = append(before, j)
		b, err := os.ReadFile(ms.path(id))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), `"units":[`) || strings.Count(string(b), "\n") > 6 {
			t.Errorf("the finished job %s's file:\n%s", j.Status, b)
		}
	}
	if before[0].Progress.Done != 3 || before[1].Progress.Nodes != 7000 || before[1].Progress.Total != 4 {
		t.Fatalf("before the restart: %+v", before)
	}
	// A compaction's temporary file left by a crash is removed at start.
	tmp := filepath.Join(ms.dir, "."+done.ID+".jsonl.123.tmp")
	if err := os.WriteFile(tmp, []byte("{"), 0o640); err != nil {
		t.Fatal(err)
	}
	m2, _ := newManager(t, e.restart(), newSquares(), fastOptions(t))
	if _, err := os.Stat(tmp); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the temporary file left: %v", err)
	}
	for i, id := range []string{done.ID, canceled.ID} {
		j, err := m2.Get(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		b, ms := before[i], func(t time.Time) int64 { return t.UnixMilli() } // the files keep milliseconds
		if j.Status != b.Status || j.Progress.Done != b.Progress.Done || j.Progress.Total != b.Progress.Total || j.Progress.Nodes != b.Progress.Nodes ||
			string(j.Result) != string(b.Result) || j.Error != b.Error || string(j.Request) != string(b.Request) ||
			ms(j.Created) != ms(b.Created) || ms(j.Started) != ms(b.Started) || ms(j.Finished) != ms(b.Finished) {
			t.Errorf("after the restart:\n%+v\nbefore:\n%+v", j, before[i])
		}
	}
}

// countingStore counts a store's loads (job reads).
type countingStore struct {
	Store
	loads atomic.Int64
}

func (s *countingStore) load(ctx context.Context, id string) (state, bool, error) {
	s.loads.Add(1)
	return s.Store.load(ctx, id)
}

// TestWatchersSharePoll: the watchers of one job share one poll of the
// store (a thousand event streams on a job polled Redis 9,600 times a
// second), each gets every state from its first to the final one, in
// order, and the poll stops with the last watcher.
func TestWatchersSharePoll(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		cs := &countingStore{Store: e.store}
		k := newSquares()
		gate := k.gated(make(chan struct{}))
		opts := fastOptions(t)
		opts.WatchEvery = 20 * time.Millisecond
		m, _ := newManager(t, cs, k, opts)
		j := submit(t, m, `{"n":30,"units":3}`)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		const watchers = 50
		seen := make([][]Job, watchers)
		var wg sync.WaitGroup
		for i := range watchers {
			ch, err := m.Watch(ctx, j.ID)
			if err != nil {
				t.Fatal(err)
			}
			wg.Go(func() {
				for j := range ch {
					seen[i] = append(seen[i], j)
				}
			})
		}
		before, t0 := cs.loads.Load(), time.Now()
		time.Sleep(200 * time.Millisecond) // about 10 polls
		// One poll's loads (a tick, and the first reads), not one a watcher.
		if n, most := cs.loads.Load()-before, int64(time.Since(t0)/opts.WatchEvery)+5; n > most {
			t.Errorf("%d loads in %v for %d watchers polling every 20 ms, want at most %d: not shared", n, time.Since(t0), watchers, most)
		}
		stop := startWorker(t, m, "w", 1)
		close(gate)
		waitStatus(t, m, j.ID, StatusDone)
		stop() // the next job stays queued
		done := make(chan struct{})
		go func() { wg.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatal("the watchers' channels were not closed after the job ended")
		}
		for i, s := range seen {
			if len(s) < 2 || s[0].Status != StatusQueued || s[len(s)-1].Status != StatusDone {
				t.Fatalf("watcher %d saw %d states: %+v", i, len(s), s)
			}
			for k := 1; k < len(s); k++ {
				if !ahead(s[k], s[k-1]) {
					t.Errorf("watcher %d: state %d %+v not after %+v", i, k, s[k].Progress, s[k-1].Progress)
				}
			}
		}
		m.watches.mu.Lock()
		left := len(m.watches.byID)
		m.watches.mu.Unlock()
		if left != 0 {
			t.Errorf("%d polls left after every watcher ended", left)
		}
		// A watcher that leaves early stops nothing the others need, and
		// the last one to leave stops the poll.
		j2 := submit(t, m, `{"n":4,"units":2}`)
		c1, cancel1 := context.WithCancel(context.Background())
		w1, _ := m.Watch(c1, j2.ID)
		w2, _ := m.Watch(ctx, j2.ID)
		<-w1
		<-w2
		cancel1()
		for range w1 {
		}
		if _, err := m.Cancel(context.Background(), j2.ID); err != nil {
			t.Fatal(err)
		}
		var last Job
		for j := range w2 {
			last = j
		}
		if last.Status != StatusCanceled {
			t.Errorf("the watcher left: last state %+v", last)
		}
	})
}

// panickyCombine panics in its first panics Combine calls.
type panickyCombine struct {
	*squares
	panics int64
	calls  atomic.Int64
}

func (k *panickyCombine) Combine(ctx context.Context, req json.RawMessage, total int, results map[int]json.RawMessage) (json.RawMessage, bool, error) {
	if k.calls.Add(1) <= k.panics {
		panic("boom in Combine")
	}
	return k.squares.Combine(ctx, req, total, results)
}

// TestPanickingCombine: a panic in Combine is handled as one in Run (a
// review found it failed the job at once, its stack never logged): logged
// with its stack, the unit handed back (its result kept) until its
// MaxDeliveries-th delivery.
func TestPanickingCombine(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		for _, tc := range []struct {
			panics int64
			status Status
		}{{1, StatusDone}, {99, StatusFailed}} {
			k := &panickyCombine{squares: newSquares(), panics: tc.panics}
			core, logs := observer.New(zap.ErrorLevel)
			opts := fastOptions(t)
			opts.Logger = zap.New(core)
			m, met := newManager(t, e.store, k, opts)
			stop := startWorker(t, m, "w1", 1)
			j := submit(t, m, `{"n":6,"units":1}`)
			j = waitStatus(t, m, j.ID, tc.status)
			stop()
			if tc.status == StatusDone {
				wantSum(t, j, 6)
			} else if j.Error != "combining 1 results panicked on 3 deliveries: boom in Combine" {
				t.Errorf("error = %q", j.Error)
			}
			if n := logs.FilterMessage("combining the job's results panicked").FilterFieldKey("stack").Len(); n != int(min(tc.panics, 3)) {
				t.Errorf("%d panics in Combine logged with their stack, want %d", n, min(tc.panics, 3))
			}
			if got := value(met.Units.WithLabelValues("toy.squares", "panicked")); got != float64(min(tc.panics, 3)) {
				t.Errorf("panicked units = %v", got)
			}
			if runs := k.get(k.started); runs[0] != 1 {
				t.Errorf("the unit ran %d times: its result was not kept", runs[0])
			}
		}
	})
}

// seesRequest records the requests its units are run with.
type seesRequest struct {
	*squares
	mu   sync.Mutex
	seen []string
}

func (k *seesRequest) Run(ctx context.Context, request, payload json.RawMessage, report func(int64)) (json.RawMessage, error) {
	k.mu.Lock()
	k.seen = append(k.seen, string(request))
	k.mu.Unlock()
	return k.squares.Run(ctx, request, payload, report)
}

// TestRunGetsTheRequest: each unit runs with its job's request (a kind's
// units need not carry it), in both stores.
func TestRunGetsTheRequest(t *testing.T) {
	forEach(t, func(t *testing.T, e *env) {
		k := &seesRequest{squares: newSquares()}
		m, _ := newManager(t, e.store, k, fastOptions(t))
		startWorker(t, m, "w1", 2)
		const req = `{"n":12,"units":3}`
		j := submit(t, m, req)
		j = waitStatus(t, m, j.ID, StatusDone)
		wantSum(t, j, 12)
		k.mu.Lock()
		defer k.mu.Unlock()
		if len(k.seen) < 3 {
			t.Fatalf("%d runs", len(k.seen))
		}
		for _, r := range k.seen {
			if r != req {
				t.Errorf("a unit ran with request %q, its job's %s", r, req)
			}
		}
	})
}
