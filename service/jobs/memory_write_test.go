package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// newUnitsJob creates in s a queued job of n small units.
func newUnitsJob(tb testing.TB, s *MemoryStore, n int) string {
	tb.Helper()
	units := make([]json.RawMessage, n)
	for i := range units {
		units[i] = json.RawMessage(fmt.Sprintf(`{"move":%d}`, i))
	}
	st := state{ID: newID(), Type: "toy.squares", Status: StatusQueued, Created: time.Now().UTC().Truncate(time.Millisecond), Request: json.RawMessage(`{"n":1}`), Total: n}
	if err := s.create(context.Background(), st, units, limits{}); err != nil {
		tb.Fatal(err)
	}
	return st.ID
}

// readWaits calls load on id every 0.1 ms until stop is closed and sends
// every call's time.
func readWaits(s *MemoryStore, id string, stop <-chan struct{}, waits chan<- []time.Duration) {
	var all []time.Duration
	for {
		select {
		case <-stop:
			waits <- all
			return
		default:
		}
		t0 := time.Now()
		if _, ok, _ := s.load(context.Background(), id); !ok {
			panic("the other job is gone")
		}
		all = append(all, time.Since(t0))
		time.Sleep(100 * time.Microsecond) // a poller, not a spinner
	}
}

// BenchmarkRecordHoldsLock: unit completions (a result of 300 bytes each:
// one synced record in the job's file) written by 1 or 4 goroutines, each
// on a job of its own, on a store with a directory, while another
// goroutine reads another job every 0.1 ms (a status read, an event
// stream's poll): ns/op is the wall time of a completion (all writers
// together), get-wait-us the mean of those reads, get-wait-p99-us and
// get-wait-max-ms their 99th percentile and longest (the store's lock held
// meanwhile).
func BenchmarkRecordHoldsLock(b *testing.B) {
	result := json.RawMessage(fmt.Sprintf(`{"pad":"%s"}`, strings.Repeat("x", 290)))
	for _, writers := range []int{1, 4} {
		b.Run(fmt.Sprintf("writers=%d", writers), func(b *testing.B) {
			s, err := NewMemoryStore(b.TempDir())
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			ctx := context.Background()
			other := newUnitsJob(b, s, 1)
			// Each writer's job has a unit for each of its completions (a
			// unit's result is written once).
			ops := func(w int) int {
				n := b.N / writers
				if w < b.N%writers {
					n++
				}
				return n
			}
			jobs := make([]string, writers)
			for w := range jobs {
				jobs[w] = newUnitsJob(b, s, max(ops(w), 1))
			}
			stop, got := make(chan struct{}), make(chan []time.Duration)
			go readWaits(s, other, stop, got)
			b.ResetTimer()
			var wg sync.WaitGroup
			for w, id := range jobs {
				wg.Go(func() {
					for u := range ops(w) {
						if _, _, err := s.complete(ctx, &delivery{JobID: id, Unit: u}, result, 1000); err != nil {
							b.Error(err)
							return
						}
					}
				})
			}
			wg.Wait()
			b.StopTimer()
			close(stop)
			waits := <-got
			if len(waits) == 0 {
				return
			}
			slices.Sort(waits)
			var sum time.Duration
			for _, w := range waits {
				sum += w
			}
			b.ReportMetric(float64(sum)/1e3/float64(len(waits)), "get-wait-us")
			b.ReportMetric(float64(waits[len(waits)*99/100])/1e3, "get-wait-p99-us")
			b.ReportMetric(float64(waits[len(waits)-1])/1e6, "get-wait-max-ms")
		})
	}
}

// setSyncRecord sets the hook syncRecord for the test.
func setSyncRecord(t *testing.T, hook func(id string, f *os.File) error) {
	syncRecord = hook
	t.Cleanup(func() { syncRecord = nil })
}

// unitResult is unit u's result in these tests.
func unitResult(u int) json.RawMessage { return json.RawMessage(fmt.Sprintf(`{"unit":%d}`, u)) }

// TestRecordOutsideLock: while a record of a job's is synced (the sync
// held up here), the other jobs' operations go on (the store's lock was
// held through every record's sync: BenchmarkRecordHoldsLock), the change
// does not show before its record is synced, and a job whose creation is
// being synced holds its place under the caps but is not seen.
func TestRecordOutsideLock(t *testing.T) {
	s, err := NewMemoryStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	busy, other := newUnitsJob(t, s, 2), newUnitsJob(t, s, 2)
	created := state{ID: newID(), Type: "toy.squares", Status: StatusQueued, Created: time.Now().UTC(), Request: json.RawMessage(`{}`), Total: 1}
	var held string // the job whose next record is held up
	syncing, release := make(chan struct{}), make(chan struct{})
	setSyncRecord(t, func(id string, f *os.File) error {
		if id == held {
			close(syncing)
			<-release
		}
		return f.Sync()
	})
	// within runs f while a record of job id (written by write) is being
	// synced: f must not wait for the sync.
	within := func(id string, write func() error, f func() error) {
		t.Helper()
		held, syncing, release = id, make(chan struct{}), make(chan struct{})
		wrote := make(chan error, 1)
		go func() { wrote <- write() }()
		select {
		case <-syncing:
		case err := <-wrote:
			t.Fatalf("written without a sync: %v", err)
		}
		served := make(chan error, 1)
		go func() { served <- f() }()
		var err error
		select {
		case err = <-served:
			close(release)
		case <-time.After(5 * time.Second):
			close(release)
			t.Error("an operation on another job waited for a record's sync")
			err = <-served
		}
		if err != nil {
			t.Error(err)
		}
		if err := <-wrote; err != nil {
			t.Fatal(err)
		}
	}

	within(busy, func() error {
		_, _, err := s.complete(ctx, &delivery{JobID: busy, Unit: 0}, unitResult(0), 10)
		return err
	}, func() error {
		if st, ok, err := s.load(ctx, busy); err != nil || !ok || st.Done != 0 || st.Nodes != 0 {
			return fmt.Errorf("the unit's result shows before its record is synced: %+v %v %v", st, ok, err)
		}
		if us, err := s.begin(ctx, &delivery{JobID: other, Unit: 0}, time.Now()); err != nil || us.Status != StatusRunning {
			return fmt.Errorf("begin: %+v %v", us, err)
		}
		if _, res, err := s.complete(ctx, &delivery{JobID: other, Unit: 0}, unitResult(0), 5); err != nil || len(res) != 1 {
			return fmt.Errorf("complete: %v %v", res, err)
		}
		if ok, _, err := s.finish(ctx, other, ending{Status: StatusDone, At: time.Now(), Result: json.RawMessage(`{}`), TTL: time.Hour}); !ok || err != nil {
			return fmt.Errorf("finish: %v %v", ok, err)
		}
		return nil
	})
	if st, ok, err := s.load(ctx, busy); err != nil || !ok || st.Done != 1 || st.Nodes != 10 {
		t.Errorf("after its sync: %+v %v %v; want the unit done", st, ok, err)
	}

	// A creation being synced: its place under the caps is taken, the job
	// not seen.
	within(created.ID, func() error {
		return s.create(ctx, created, []json.RawMessage{json.RawMessage(`{}`)}, limits{all: 2})
	}, func() error {
		if _, ok, _ := s.load(ctx, created.ID); ok {
			return fmt.Errorf("the job shows before its creation is synced")
		}
		st := state{ID: newID(), Type: "toy.squares", Status: StatusQueued, Created: time.Now().UTC(), Request: json.RawMessage(`{}`), Total: 1}
		var tooMany *tooManyError
		if err := s.create(ctx, st, []json.RawMessage{json.RawMessage(`{}`)}, limits{all: 2}); !errors.As(err, &tooMany) {
			return fmt.Errorf("a job past the cap while another's creation is synced: %v; want refused", err)
		}
		return nil
	})
	if _, ok, _ := s.load(ctx, created.ID); !ok {
		t.Error("the job created is not there")
	}
}

// TestRecordSyncErrorReported: a record whose sync fails fails the call
// that wrote it, each of several at once, with the error (naming the job as
// the logs do), and its change is not made; the other jobs' records are
// written meanwhile; a job whose creation fails gives its place back; a
// restart makes none of the failed changes.
func TestRecordSyncErrorReported(t *testing.T) {
	s, err := NewMemoryStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	failing, other := newUnitsJob(t, s, 8), newUnitsJob(t, s, 8)
	refused := state{ID: newID(), Type: "toy.squares", Status: StatusQueued, Created: time.Now().UTC(), Request: json.RawMessage(`{}`), Total: 1}
	setSyncRecord(t, func(id string, f *os.File) error {
		if id == failing || id == refused.ID {
			return syscall.EIO
		}
		return f.Sync()
	})
	isEIO := func(what string, err error, id string) {
		t.Helper()
		if !errors.Is(err, syscall.EIO) || strings.Contains(err.Error(), id) || !strings.Contains(err.Error(), LoggedID(id)) {
			t.Errorf("%s: %v; want EIO naming the job as the logs do", what, err)
		}
	}
	if _, err := s.begin(ctx, &delivery{JobID: failing, Unit: 0}, time.Now()); err == nil {
		t.Error("begin: no error")
	} else {
		isEIO("begin", err, failing)
	}
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for u := range 8 {
		wg.Go(func() {
			_, _, errs[u] = s.complete(ctx, &delivery{JobID: failing, Unit: u}, unitResult(u), 10)
		})
		wg.Go(func() {
			if _, _, err := s.complete(ctx, &delivery{JobID: other, Unit: u}, unitResult(u), 10); err != nil {
				t.Errorf("the other job's complete: %v", err)
			}
		})
	}
	wg.Wait()
	for u, err := range errs {
		isEIO(fmt.Sprintf("complete of unit %d", u), err, failing)
	}
	if ok, _, err := s.finish(ctx, failing, ending{Status: StatusCanceled, At: time.Now(), TTL: time.Hour}); ok || !errors.Is(err, syscall.EIO) {
		t.Errorf("finish: %v %v; want EIO", ok, err)
	}
	if st, _, _ := s.load(ctx, failing); st.Status != StatusQueued || st.Done != 0 || st.Nodes != 0 {
		t.Errorf("the failing job: %+v; want it queued, nothing done", st)
	}
	if st, _, _ := s.load(ctx, other); st.Done != 8 {
		t.Errorf("the other job: %d units done, want 8", st.Done)
	}
	err = s.create(ctx, refused, []json.RawMessage{json.RawMessage(`{}`)}, limits{all: 3})
	isEIO("create", err, refused.ID)
	if n, _ := s.countActive(ctx); n != 2 {
		t.Errorf("%d jobs active after a refused creation, want 2", n)
	}
	if _, err := os.Stat(s.path(refused.ID)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the refused job's file: %v", err)
	}
	// A restart makes none of the failed changes either: their records,
	// written but not synced, were cut off (they replayed: a review's).
	dir := s.dir
	s.Close()
	s2, err := NewMemoryStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if st, _, _ := s2.load(ctx, failing); st.Status != StatusQueued || st.Done != 0 || st.Nodes != 0 {
		t.Errorf("the failing job after a restart: %+v; want it queued, nothing done", st)
	}
	if st, _, _ := s2.load(ctx, other); st.Done != 8 {
		t.Errorf("the other job after a restart: %d units done, want 8", st.Done)
	}
}

// TestRecordsReplayAfterKill: four workers run the units of four jobs at
// once (begin, node counts, results, a slow mark, a job's end, another
// canceled meanwhile); then the process is killed as the power would (the
// flock let go, every file cut back to what its last sync wrote, a torn
// line left in one) and the directory opened again: every change a call
// returned replays, and the jobs are as they were.
func TestRecordsReplayAfterKill(t *testing.T) {
	dir := t.TempDir()
	s, err := NewMemoryStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	synced := map[string]int64{} // job -> its file's size at its last sync
	setSyncRecord(t, func(id string, f *os.File) error {
		err := f.Sync()
		if fi, serr := f.Stat(); err == nil && serr == nil {
			mu.Lock()
			synced[id] = fi.Size()
			mu.Unlock()
		}
		return err
	})
	ctx := context.Background()
	const total = 12
	ids := make([]string, 4)
	for i := range ids {
		ids[i] = newUnitsJob(t, s, total)
	}
	canceled := ids[3]
	var wg sync.WaitGroup
	for w := range 4 {
		name := fmt.Sprintf("w%d", w)
		wg.Go(func() {
			for {
				d, err := s.claim(ctx, name, time.Hour, 20*time.Millisecond, false)
				if err != nil || d == nil {
					return
				}
				us, err := s.begin(ctx, d, time.Now())
				if err != nil {
					t.Error(err)
					return
				}
				if !us.Found || us.Status.Final() {
					_ = s.ack(ctx, d)
					continue
				}
				for k := range 3 {
					if _, _, err := s.heartbeat(ctx, d, name, int64(100*k+d.Unit)); err != nil {
						t.Error(err)
					}
				}
				if d.Unit == 5 && !us.Slow {
					if err := s.slow(ctx, d, name); err != nil {
						t.Error(err)
					}
					continue // handed back
				}
				_, results, err := s.complete(ctx, d, unitResult(d.Unit), int64(1000+d.Unit))
				if err != nil {
					t.Error(err)
					return
				}
				if d.JobID == ids[0] && len(results) == total {
					if _, _, err := s.finish(ctx, d.JobID, ending{Status: StatusDone, At: time.Now(), Result: json.RawMessage(`{"n":12}`), TTL: time.Hour}); err != nil {
						t.Error(err)
					}
				}
				if d.JobID == canceled && len(results) == total/2 {
					if _, _, err := s.finish(ctx, canceled, ending{Status: StatusCanceled, At: time.Now(), TTL: time.Hour}); err != nil {
						t.Error(err)
					}
				}
				_ = s.ack(ctx, d)
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	type view struct {
		st      state
		results map[int]string
		nodes   map[int]int64
		slow    bool
	}
	look := func(s *MemoryStore) map[string]view {
		s.mu.Lock()
		defer s.mu.Unlock()
		all := map[string]view{}
		for _, id := range ids {
			j := s.jobs[id]
			if j == nil {
				continue
			}
			v := view{st: j.s, results: map[int]string{}, nodes: maps.Clone(j.nodes), slow: j.slow}
			for _, at := range []*time.Time{&v.st.Created, &v.st.Started, &v.st.Finished} {
				*at = at.Truncate(time.Millisecond).UTC() // as a file holds it
			}
			for u, r := range j.results {
				v.results[u] = string(r)
			}
			all[id] = v
		}
		return all
	}
	before := look(s)
	if st := before[ids[0]].st; st.Status != StatusDone || len(before[ids[1]].results) != total || before[canceled].st.Status != StatusCanceled {
		t.Fatalf("the jobs did not run as meant: %+v", before)
	}

	// Killed: the flock goes with the process; what no sync wrote is lost.
	_ = s.Close()
	for id, size := range synced {
		if fi, err := os.Stat(s.path(id)); err == nil && fi.Size() > size {
			if err := os.Truncate(s.path(id), size); err != nil {
				t.Fatal(err)
			}
		}
	}
	f, err := os.OpenFile(s.path(ids[2]), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = f.WriteString(`{"op":"unit","unit":1,"res`)
	_ = f.Close()

	again, err := NewMemoryStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	after := look(again)
	for _, id := range ids {
		b, a := before[id], after[id]
		if b.st.Status.Final() {
			// A finished job's results are let go: their number is kept.
			for u := range b.results {
				b.results[u] = ""
			}
			for u := range a.results {
				a.results[u] = ""
			}
		}
		if fmt.Sprint(a.st) != fmt.Sprint(b.st) || !maps.Equal(a.results, b.results) || !maps.Equal(a.nodes, b.nodes) || a.slow != b.slow {
			t.Errorf("job %d replayed:\n%+v\nwant\n%+v", slices.Index(ids, id), a, b)
		}
	}
}

// TestCreateSyncsDirectory: a job's creation syncs the directory after its
// file's first record, so that a crash of the machine cannot lose the new
// file's name, and the job its client was told it has.
func TestCreateSyncsDirectory(t *testing.T) {
	dir := t.TempDir()
	s, err := NewMemoryStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var synced atomic.Int32
	count := func(d string) {
		if d == dir {
			synced.Add(1)
		}
	}
	dirSynced.Store(&count)
	t.Cleanup(func() { dirSynced.Store(nil) })
	newUnitsJob(t, s, 1)
	if synced.Load() == 0 {
		t.Error("a job created without syncing its directory")
	}
}
