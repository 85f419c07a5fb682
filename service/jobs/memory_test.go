package jobs

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fillJob gives the running job id of s (created with n units) a result of
// about 300 bytes for every unit, in its file as complete writes them (one
// synced write here, not n) and in memory.
func fillJob(tb testing.TB, s *MemoryStore, id string, n int) {
	tb.Helper()
	pad := strings.Repeat("x", 280)
	f, err := os.OpenFile(s.path(id), os.O_APPEND|os.O_WRONLY, 0o640)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	now := time.Now()
	_ = enc.Encode(logRecord{Op: "start", At: now.UnixMilli()})
	s.mu.Lock()
	j := s.jobs[id]
	j.s.Status, j.s.Started = StatusRunning, now
	for u := range n {
		r := json.RawMessage(fmt.Sprintf(`{"unit":%d,"pad":"%s"}`, u, pad))
		_ = enc.Encode(logRecord{Op: "unit", Unit: u, Result: r, Nodes: int64(1000 + u)})
		j.results[u], j.nodes[u] = r, int64(1000+u)
	}
	s.mu.Unlock()
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	if err := f.Sync(); err != nil { // as each complete did
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
}

// newBigJob creates in s a running job of n units, each with its result.
func newBigJob(tb testing.TB, s *MemoryStore, n int) string {
	tb.Helper()
	units := make([]json.RawMessage, n)
	for i := range units {
		units[i] = json.RawMessage(fmt.Sprintf(`{"move":%d,"depth":12}`, i))
	}
	st := state{ID: newID(), Type: "toy.squares", Status: StatusQueued, Created: time.Now().UTC(), Request: json.RawMessage(`{"n":1}`), Total: n}
	if err := s.create(context.Background(), st, units, limits{}); err != nil {
		tb.Fatal(err)
	}
	fillJob(tb, s, st.ID, n)
	return st.ID
}

// getWaits calls load on id in a loop until stop is closed and sends the
// longest call.
func getWaits(s *MemoryStore, id string, stop <-chan struct{}, worst chan<- time.Duration) {
	var w time.Duration
	for {
		select {
		case <-stop:
			worst <- w
			return
		default:
		}
		t0 := time.Now()
		if _, ok, _ := s.load(context.Background(), id); !ok {
			panic("the other job is gone")
		}
		w = max(w, time.Since(t0))
		time.Sleep(100 * time.Microsecond) // a poller, not a spinner
	}
}

// BenchmarkCompactHoldsLock: the end of a job of 1,000 or 12,000 units
// whose results (300 bytes each) are in, on a store with a directory (its
// file compacted: rewritten without the units and results, synced,
// renamed), while another goroutine reads another job (a status read, an
// event stream's poll) in a loop: ns/op is finish's call, get-wait-max-ms
// the longest of those reads over every op (the store's lock held
// meanwhile), get-wait-ms the mean of each op's longest. A job of 1 unit
// shows what any end costs: the end record's synced append (under the
// lock as every record's until records were written outside it:
// BenchmarkRecordHoldsLock) and, when compacted under the lock, its small
// file's rewriting and syncs.
func BenchmarkCompactHoldsLock(b *testing.B) {
	for _, n := range []int{1, 1000, 12000} {
		b.Run(fmt.Sprintf("units=%d", n), func(b *testing.B) {
			s, err := NewMemoryStore(b.TempDir())
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			ctx := context.Background()
			other := newBigJob(b, s, 1)
			var worst, sum time.Duration
			ops := 0
			for b.Loop() {
				b.StopTimer()
				id := newBigJob(b, s, n)
				stop, got := make(chan struct{}), make(chan time.Duration)
				go getWaits(s, other, stop, got)
				time.Sleep(time.Millisecond)
				b.StartTimer()
				ok, _, err := s.finish(ctx, id, ending{Status: StatusDone, At: time.Now(), Result: json.RawMessage(`{"count":1}`), TTL: time.Hour})
				b.StopTimer()
				if !ok || err != nil {
					b.Fatalf("finish: %v %v", ok, err)
				}
				close(stop)
				w := <-got
				worst, sum, ops = max(worst, w), sum+w, ops+1
				b.StartTimer()
			}
			b.ReportMetric(float64(worst)/1e6, "get-wait-max-ms")
			b.ReportMetric(float64(sum)/1e6/float64(max(ops, 1)), "get-wait-ms")
		})
	}
}

// finishAsync ends job id of s in a goroutine; the channel gets finish's
// error when it returns.
func finishAsync(s *MemoryStore, id string, ttl time.Duration) <-chan error {
	done := make(chan error, 1)
	go func() {
		ok, _, err := s.finish(context.Background(), id, ending{Status: StatusDone, At: time.Now(), Result: json.RawMessage(`{"count":1}`), TTL: ttl})
		if err == nil && !ok {
			err = fmt.Errorf("finish: not ended")
		}
		done <- err
	}()
	return done
}

// setCompactWrite sets the hook compactWrite for the test.
func setCompactWrite(t *testing.T, hook func(id string)) {
	compactWrite = hook
	t.Cleanup(func() { compactWrite = nil })
}

// TestCompactOutsideLock: while a finished job's file is compacted (its
// writing held up here), the store serves the other jobs: a read and a
// submission do not wait for it (the store's lock was held through the
// writing and the syncs: 51-60 ms for 12,000 units, BenchmarkCompactHoldsLock),
// and the file is compacted once the writing ends.
func TestCompactOutsideLock(t *testing.T) {
	s, err := NewMemoryStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	other := newBigJob(t, s, 1)
	id := newBigJob(t, s, 50)
	writing, release := make(chan struct{}), make(chan struct{})
	setCompactWrite(t, func(string) {
		close(writing)
		<-release
	})
	done := finishAsync(s, id, time.Hour)
	<-writing
	served := make(chan error, 1)
	go func() {
		if _, ok, err := s.load(ctx, other); err != nil || !ok {
			served <- fmt.Errorf("load: %v %v", ok, err)
			return
		}
		if j, ok, err := s.load(ctx, id); err != nil || !ok || j.Status != StatusDone || j.Done != 50 {
			served <- fmt.Errorf("load of the finished job: %+v %v %v", j, ok, err)
			return
		}
		st := state{ID: newID(), Type: "toy.squares", Status: StatusQueued, Created: time.Now().UTC(), Request: json.RawMessage(`{}`), Total: 1}
		served <- s.create(ctx, st, []json.RawMessage{json.RawMessage(`{}`)}, limits{})
	}()
	select {
	case err := <-served:
		close(release)
		if err != nil {
			t.Error(err)
		}
	case <-time.After(5 * time.Second):
		close(release)
		t.Error("a read of another job waited for a compaction")
		<-served
	}
	if err := <-done; err != nil || t.Failed() {
		t.Fatal(err)
	}
	b, err := os.ReadFile(s.path(id))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), `"units":[`) || strings.Contains(string(b), `"pad"`) {
		t.Errorf("the finished job's file is not compacted:\n%.300s", b)
	}
	if n := len(s.finished); n != 1 || s.finished[0].id != id || s.finished[0].bytes != int64(len(b)) {
		t.Errorf("finished = %+v; want the job with its compacted file's %d bytes", s.finished, len(b))
	}
	assertNoTemp(t, s)
}

func assertNoTemp(t *testing.T, s *MemoryStore) {
	t.Helper()
	if tmps, _ := filepath.Glob(filepath.Join(s.dir, ".*.tmp")); len(tmps) > 0 {
		t.Errorf("temporary files left: %v", tmps)
	}
}

// TestCompactKeepsLateRecords: a record appended to a job's file while its
// compaction is written (none is: the slow mark of a finished job is not
// written, but a compaction must not lose one) keeps the full file, which
// a restart replays with the record; a job swept meanwhile (expired, its
// file removed) does not get its file back.
func TestCompactKeepsLateRecords(t *testing.T) {
	dir := t.TempDir()
	s, err := NewMemoryStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	id := newBigJob(t, s, 20)
	setCompactWrite(t, func(string) {
		s.mu.Lock()
		defer s.mu.Unlock()
		if err := s.append(id, logRecord{Op: "slow"}); err != nil {
			t.Error(err)
		}
	})
	if err := <-finishAsync(s, id, time.Hour); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(s.path(id))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"units":[`) || !strings.HasSuffix(string(b), `{"op":"slow"}`+"\n") {
		t.Errorf("want the full file with the late record; got:\n%s", b)
	}
	assertNoTemp(t, s)

	// Swept while compacted.
	gone := newBigJob(t, s, 20)
	setCompactWrite(t, func(string) {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.sweep(time.Now().Add(30 * time.Minute)) // gone, not id
	})
	if err := <-finishAsync(s, gone, time.Minute); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(s.path(gone)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the swept job's file: %v", err)
	}
	assertNoTemp(t, s)
	for _, f := range s.finished {
		if f.id == gone {
			t.Errorf("the swept job filed with the finished ones: %+v", s.finished)
		}
	}
	_ = s.Close()

	compactWrite = nil
	s, err = NewMemoryStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	j := s.jobs[id]
	if j == nil || j.s.Status != StatusDone || len(j.results) != 20 || !j.slow {
		t.Fatalf("replayed: %+v", j)
	}
	if s.jobs[gone] != nil {
		t.Error("the swept job came back")
	}
}

// TestSlowAfterEndNotWritten: a unit of a job finished meanwhile handed
// back as slow marks the job in memory and appends nothing to its
// (compacted) file.
func TestSlowAfterEndNotWritten(t *testing.T) {
	s, err := NewMemoryStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	id := newBigJob(t, s, 3)
	d, err := s.claim(ctx, "c", time.Minute, time.Second, true)
	if err != nil || d == nil || d.JobID != id {
		t.Fatalf("claim: %+v %v", d, err)
	}
	if err := <-finishAsync(s, id, time.Hour); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(s.path(id))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.slow(ctx, d, "c"); err != nil {
		t.Fatal(err)
	}
	after, err := os.ReadFile(s.path(id))
	if err != nil {
		t.Fatal(err)
	}
	if string(after) != string(before) || !s.jobs[id].slow {
		t.Errorf("slow after the end: file %q -> %q, marked %v", before, after, s.jobs[id].slow)
	}
}

// TestExpiredSweptOnAccess: finished jobs past their expiry leave the
// memory and the disk at the next call to the store, whatever it is (a read
// of another job here; only an idle worker slot's claim swept them), at
// most 100 a call, the soonest first; one evicted before its expiry is not
// left in the expiry heap.
func TestExpiredSweptOnAccess(t *testing.T) {
	ctx := context.Background()
	// endAll ends ids in s, expiring in their order, from deadline on.
	endAll := func(s *MemoryStore, ids []string, deadline time.Time) {
		t.Helper()
		for i, id := range ids {
			at := time.Now()
			ttl := deadline.Sub(at) + time.Duration(i)*time.Millisecond/10
			if ok, _, err := s.finish(ctx, id, ending{Status: StatusDone, At: at, Result: json.RawMessage(`{}`), TTL: ttl}); !ok || err != nil {
				t.Fatalf("finish: %v %v", ok, err)
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("the jobs took too long to end")
		}
	}
	// count counts the jobs of ids s keeps, and their files.
	count := func(s *MemoryStore, ids []string) (jobs, files int) {
		s.mu.Lock()
		defer s.mu.Unlock()
		for _, id := range ids {
			if s.jobs[id] != nil {
				jobs++
			}
			if _, err := os.Stat(s.path(id)); s.dir != "" && err == nil {
				files++
			}
		}
		return jobs, files
	}
	read := func(s *MemoryStore, id string) {
		t.Helper()
		if _, ok, err := s.load(ctx, id); !ok || err != nil {
			t.Fatalf("load: %v %v", ok, err)
		}
	}

	s, err := NewMemoryStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	other := newBigJob(t, s, 1)
	ids := []string{newBigJob(t, s, 3), newBigJob(t, s, 3)}
	deadline := time.Now().Add(time.Second)
	endAll(s, ids, deadline)
	read(s, other)
	if jobs, files := count(s, ids); jobs != 2 || files != 2 {
		t.Fatalf("before the expiry: %d jobs, %d files; want 2", jobs, files)
	}
	time.Sleep(time.Until(deadline.Add(10 * time.Millisecond)))
	read(s, other)
	if jobs, files := count(s, ids); jobs != 0 || files != 0 || len(s.finished) != 0 || s.finishedBytes != 0 {
		t.Errorf("after a call: %d jobs, %d files, finished %v (%d bytes); want none", jobs, files, s.finished, s.finishedBytes)
	}

	// Without a directory (no syncs: many jobs end in time), 150 jobs.
	s, err = NewMemoryStore("")
	if err != nil {
		t.Fatal(err)
	}
	other = newUnitsJob(t, s, 1)
	s.maxFinished = 149 // the 150th end evicts the first job
	ids = make([]string, 150)
	for i := range ids {
		ids[i] = newUnitsJob(t, s, 1)
	}
	deadline = time.Now().Add(time.Second)
	endAll(s, ids, deadline)
	if jobs, _ := count(s, ids); jobs != 149 || len(s.expiring) != 149 {
		t.Fatalf("before the expiry: %d jobs, %d expiring; want 149 (one evicted)", jobs, len(s.expiring))
	}
	time.Sleep(time.Until(deadline.Add(30 * time.Millisecond)))
	read(s, other)
	if jobs, _ := count(s, ids); jobs != 49 || s.jobs[ids[100]] != nil || s.jobs[ids[101]] == nil {
		t.Errorf("after a call: %d jobs (job 100 kept: %v, 101: %v); want 49, the soonest swept", jobs, s.jobs[ids[100]] != nil, s.jobs[ids[101]] != nil)
	}
	if n, _ := s.countActive(ctx); n != 1 {
		t.Errorf("%d active, want 1", n)
	}
	if jobs, _ := count(s, ids); jobs != 0 || len(s.expiring) != 0 || len(s.finished) != 0 || s.finishedBytes != 0 {
		t.Errorf("after two calls: %d jobs, %d expiring, finished %d (%d bytes); want none", jobs, len(s.expiring), len(s.finished), s.finishedBytes)
	}
}
