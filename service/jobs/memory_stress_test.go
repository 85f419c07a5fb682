package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// checkMemoryStore checks a quiet store's bookkeeping: the expiry heap and
// the jobs' indexes in it, the active jobs, the finished list's bytes, and
// (with a directory) that every job file is a kept job's.
func checkMemoryStore(t *testing.T, s *MemoryStore) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, j := range s.expiring {
		if j.at != i {
			t.Errorf("expiring[%d].at = %d", i, j.at)
		}
		if s.jobs[j.s.ID] != j || !j.s.Status.Final() {
			t.Errorf("expiring[%d] is no kept finished job", i)
		}
		if i > 0 && s.expiring[(i-1)/2].expires.After(j.expires) {
			t.Errorf("expiring is no heap at %d", i)
		}
	}
	for id, j := range s.jobs {
		if j.s.Status.Final() {
			if j.at >= len(s.expiring) || s.expiring[j.at] != j {
				t.Errorf("finished job %s not in expiring", LoggedID(id))
			}
			if s.active[id] != nil {
				t.Errorf("finished job %s active", LoggedID(id))
			}
		} else if s.active[id] != j {
			t.Errorf("unfinished job %s not active", LoggedID(id))
		}
	}
	for id := range s.active {
		if s.jobs[id] == nil {
			t.Errorf("active job %s unknown", LoggedID(id))
		}
	}
	var bytes int64
	seen := map[string]bool{}
	for _, f := range s.finished {
		if seen[f.id] {
			t.Errorf("job %s filed twice with the finished ones", LoggedID(f.id))
		}
		seen[f.id] = true
		bytes += f.bytes
	}
	if bytes != s.finishedBytes {
		t.Errorf("finishedBytes = %d, the finished list's sum %d", s.finishedBytes, bytes)
	}
	if s.dir == "" {
		return
	}
	names, _ := filepath.Glob(filepath.Join(s.dir, "*.jsonl"))
	for _, name := range names {
		id := strings.TrimSuffix(filepath.Base(name), ".jsonl")
		if s.jobs[id] == nil {
			t.Errorf("file of job %s, which is not kept", LoggedID(id))
		}
	}
	if tmps, _ := filepath.Glob(filepath.Join(s.dir, ".*.tmp")); len(tmps) > 0 {
		t.Errorf("temporary files left: %v", tmps)
	}
}

// memView is what a store shows of a job, as its file keeps it.
type memView struct {
	status                     Status
	created, started, finished time.Time
	result, errText            string
	done                       int
	nodes                      map[int]int64
	results                    map[int]string // unfinished jobs' only
	slow                       bool
	expires                    int64 // unix ms, as the file keeps it
}

func viewJobs(s *MemoryStore) map[string]memView {
	s.mu.Lock()
	defer s.mu.Unlock()
	ms := func(t time.Time) time.Time { return t.Truncate(time.Millisecond).UTC() }
	all := map[string]memView{}
	for id, j := range s.jobs {
		v := memView{status: j.s.Status, created: ms(j.s.Created), started: ms(j.s.Started), finished: ms(j.s.Finished),
			result: string(j.s.Result), errText: j.s.Error, done: len(j.results), nodes: map[int]int64{}, expires: j.expires.UnixMilli()}
		for u, n := range j.nodes {
			if n != 0 {
				v.nodes[u] = n
			}
		}
		if !j.s.Status.Final() {
			v.slow = j.slow // a finished job's mark is not written (TestSlowAfterEndNotWritten)
			v.results = map[int]string{}
			for u, r := range j.results {
				v.results[u] = string(r)
			}
		}
		all[id] = v
	}
	return all
}

// TestMemoryStoreStress runs a random workload on a memory store with a
// directory (submissions under the caps, workers beginning, heartbeating,
// completing and ending jobs, cancellations, slow marks, reads, tiny TTLs
// and a small MaxFinishedJobs) many goroutines at once, then checks the
// store's bookkeeping and that the directory replays what the store held.
func TestMemoryStoreStress(t *testing.T) {
	for round := range 6 {
		t.Run(fmt.Sprint(round), func(t *testing.T) { memoryStoreStress(t, round) })
	}
}

func memoryStoreStress(t *testing.T, round int) {
	dir := t.TempDir()
	if round%3 == 2 {
		dir = ""
	}
	s, err := NewMemoryStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	s.maxFinished = 1 + round%6
	if round%2 == 1 {
		// Wider windows: each record's sync and each compaction take a while.
		setSyncRecord(t, func(_ string, f *os.File) error {
			time.Sleep(time.Duration(rand.IntN(1500)) * time.Microsecond)
			return f.Sync()
		})
		setCompactWrite(t, func(string) { time.Sleep(time.Duration(rand.IntN(3000)) * time.Microsecond) })
	}
	ctx := context.Background()
	const maxActive, perClient = 12, 5
	var (
		ids    idPool
		active atomic.Int64 // creations minus ends won, upper bound of the unfinished
	)
	ttls := []time.Duration{0, time.Millisecond, 5 * time.Millisecond, 30 * time.Millisecond, time.Hour}
	deadline := time.Now().Add(700 * time.Millisecond)
	var wg sync.WaitGroup
	// Submitters.
	for g := range 4 {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(round), uint64(g)))
			for time.Now().Before(deadline) {
				n := 1 + r.IntN(5)
				units := make([]json.RawMessage, n)
				for i := range units {
					units[i] = json.RawMessage(fmt.Sprintf(`{"u":%d}`, i))
				}
				st := state{ID: newID(), Type: "toy.squares", Status: StatusQueued, Created: time.Now().UTC(), Request: json.RawMessage(`{}`), Total: n, Client: fmt.Sprint("c", r.IntN(3))}
				err := s.create(ctx, st, units, limits{all: maxActive, client: perClient})
				var full *tooManyError
				switch {
				case errors.As(err, &full):
					time.Sleep(time.Millisecond)
					continue
				case err != nil:
					t.Error(err)
					return
				}
				if n, _ := s.countActive(ctx); n > maxActive {
					t.Errorf("%d active past the cap %d", n, maxActive)
				}
				active.Add(1)
				ids.add(st.ID)
			}
		})
	}
	// Workers.
	for w := range 6 {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(round), uint64(100+w)))
			name := fmt.Sprint("w", w)
			for time.Now().Before(deadline) {
				d, err := s.claim(ctx, name, 50*time.Millisecond, 5*time.Millisecond, w == 0)
				if err != nil {
					t.Error(err)
					return
				}
				if d == nil {
					continue
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
				for k := range r.IntN(3) {
					if _, _, err := s.heartbeat(ctx, d, name, int64(10*(k+1)+d.Unit)); err != nil {
						t.Error(err)
					}
				}
				switch x := r.IntN(10); {
				case x == 0:
					if err := s.slow(ctx, d, name); err != nil {
						t.Error(err)
					}
					continue
				case x == 1:
					_ = s.release(ctx, d, name, false)
					continue
				}
				status, results, err := s.complete(ctx, d, json.RawMessage(fmt.Sprintf(`{"r":%d}`, d.Unit)), int64(100+d.Unit))
				if err != nil {
					t.Error(err)
					return
				}
				if !status.Final() && (len(results) == us.Total || r.IntN(8) == 0) {
					won, _, err := s.finish(ctx, d.JobID, ending{Status: StatusDone, At: time.Now(), Result: json.RawMessage(`{"n":1}`), TTL: ttls[r.IntN(len(ttls))]})
					if err != nil {
						t.Error(err)
					}
					if won {
						active.Add(-1)
					}
				}
				_ = s.ack(ctx, d)
			}
		})
	}
	// Cancelers and readers.
	for g := range 4 {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(round), uint64(200+g)))
			last := map[string]state{}
			gone := map[string]bool{}
			for time.Now().Before(deadline) {
				id := ids.pick(r)
				if id == "" {
					time.Sleep(time.Millisecond)
					continue
				}
				if g == 0 && r.IntN(4) == 0 {
					won, _, err := s.finish(ctx, id, ending{Status: StatusCanceled, At: time.Now(), TTL: ttls[r.IntN(len(ttls))]})
					if err != nil {
						t.Error(err)
					}
					if won {
						active.Add(-1)
					}
					continue
				}
				st, ok, err := s.load(ctx, id)
				if err != nil {
					t.Error(err)
					continue
				}
				if !ok {
					gone[id] = true
					continue
				}
				if gone[id] {
					t.Errorf("job %s back after it was gone: %+v", LoggedID(id), st)
				}
				if p, seen := last[id]; seen {
					if st.Done < p.Done || st.Nodes < p.Nodes || p.Status.Final() && st.Status != p.Status || p.Status == StatusRunning && st.Status == StatusQueued {
						t.Errorf("job %s went back: %+v after %+v", LoggedID(id), st, p)
					}
				}
				last[id] = st
				_, _, _ = s.oldest(ctx)
				_, _, _ = s.units(ctx)
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	time.Sleep(40 * time.Millisecond) // the short TTLs expire
	_, _, _ = s.load(ctx, "none")     // sweeps
	_, _, _ = s.load(ctx, "none")
	checkMemoryStore(t, s)
	if dir != "" {
		checkReplay(t, s, dir)
	}
}

// idPool holds the ids of the jobs a stress test made, for its
// goroutines to pick from.
type idPool struct {
	mu  sync.Mutex
	ids []string
}

func (p *idPool) add(id string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.ids = append(p.ids, id)
}

// pick returns one of the ids at random, "" when there is none yet.
func (p *idPool) pick(r *rand.Rand) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.ids) == 0 {
		return ""
	}
	return p.ids[r.IntN(len(p.ids))]
}

// checkReplay closes s and opens its directory again: the store's
// bookkeeping holds, and every job is as it was (but for those expired
// since), none come back.
func checkReplay(t *testing.T, s *MemoryStore, dir string) {
	t.Helper()
	before := viewJobs(s)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	again, err := NewMemoryStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	again.maxFinished = s.maxFinished
	checkMemoryStore(t, again)
	after := viewJobs(again)
	for id, b := range before {
		a, ok := after[id]
		if !ok {
			if b.status.Final() && time.Now().UnixMilli() >= b.expires {
				continue // expired since
			}
			t.Errorf("job %s not replayed: %+v", LoggedID(id), b)
			continue
		}
		if fmt.Sprint(a) != fmt.Sprint(b) {
			t.Errorf("job %s replayed\n%+v\nwant\n%+v", LoggedID(id), a, b)
		}
	}
	for id, a := range after {
		if _, ok := before[id]; !ok {
			t.Errorf("job %s came back: %+v", LoggedID(id), a)
		}
	}
}

// TestMemoryManagerStress: a Manager over a memory store with a directory,
// two workers (with express slots), submissions under the caps, gets,
// cancellations, a tiny TTL and a small MaxFinishedJobs; then the store is
// reopened from its directory.
func TestMemoryManagerStress(t *testing.T) {
	for round := range 2 {
		t.Run(fmt.Sprint(round), func(t *testing.T) {
			dir := t.TempDir()
			s, err := NewMemoryStore(dir)
			if err != nil {
				t.Fatal(err)
			}
			s.maxFinished = 5
			opts := fastOptions(t)
			opts.TTL = time.Duration(20+round*20) * time.Millisecond
			opts.MaxActive = 8
			opts.Express = 5 * time.Millisecond
			m, _ := newManager(t, s, newSquares(), opts)
			stop1 := startWorker(t, m, "a", 3)
			stop2 := startWorker(t, m, "b", 2)
			ctx := context.Background()
			deadline := time.Now().Add(time.Second)
			var ids idPool
			var wg sync.WaitGroup
			for g := range 3 {
				wg.Go(func() {
					r := rand.New(rand.NewPCG(uint64(round), uint64(g)))
					for time.Now().Before(deadline) {
						n := 1 + r.IntN(4)
						j, err := m.Submit(ctx, "toy.squares", json.RawMessage(fmt.Sprintf(`{"n":%d,"units":%d}`, 1000*n, n)))
						if err != nil {
							time.Sleep(2 * time.Millisecond)
							continue
						}
						ids.add(j.ID)
					}
				})
			}
			for g := range 3 {
				wg.Go(func() {
					r := rand.New(rand.NewPCG(uint64(round), uint64(10+g)))
					gone := map[string]bool{}
					last := map[string]Job{}
					for time.Now().Before(deadline) {
						id := ids.pick(r)
						if id == "" {
							time.Sleep(time.Millisecond)
							continue
						}
						if g == 0 && r.IntN(5) == 0 {
							_, _ = m.Cancel(ctx, id)
							continue
						}
						j, err := m.Get(ctx, id)
						if err != nil {
							gone[id] = true
							continue
						}
						if gone[id] {
							t.Errorf("job %s back after it was gone", LoggedID(id))
						}
						if p, ok := last[id]; ok && p.Status.Final() && j.Status != p.Status {
							t.Errorf("job %s: %s after %s", LoggedID(id), j.Status, p.Status)
						}
						last[id] = j
					}
				})
			}
			wg.Wait()
			stop1()
			stop2()
			time.Sleep(opts.TTL + 10*time.Millisecond)
			_, _, _ = s.load(ctx, "none")
			_, _, _ = s.load(ctx, "none")
			checkMemoryStore(t, s)
			checkReplay(t, s, dir)
		})
	}
}
