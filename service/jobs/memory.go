package jobs

import (
	"bufio"
	"container/heap"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// MemoryStore keeps jobs and units in the process: a queue of new units and
// a table of delivered ones that behaves like a stream's pending entries
// (owner, delivery count, time of the last delivery or heartbeat).
//
// With a directory it also appends every job's history to <dir>/<id>.jsonl
// (creation with the units, start, a running unit's node count each time
// a heartbeat raises it, each unit result, the job marked slow, the end),
// synced before the change is made visible (a finished job's file is then
// rewritten without its units' payloads and results), and replays the files when
// opened: a restarted process loses no job and no finished unit, its
// jobs' node counts do not go down, and it queues again the units of
// unfinished jobs that have no result, after one that has (its worker
// only combines: the results may end the job). A record is written and
// synced outside the store's lock, a job's one at a time (memJob.write),
// so that the other jobs' operations do not wait for the disk.
//
// One process at a time owns the directory: NewMemoryStore locks it until
// Close (or the end of the process), and a second opening is refused with
// ErrDirInUse.
type MemoryStore struct {
	dir    string
	unlock func() error // releases the directory's lock (LockDir); nil without a directory

	mu       sync.Mutex
	jobs     map[string]*memJob
	active   map[string]*memJob // the unfinished jobs (queued, running)
	finished []finishedJob      // the finished jobs, oldest end first (some may be swept already)
	// finishedBytes is the finished jobs' size (finishedJob.bytes).
	finishedBytes int64
	// maxFinished and maxFinishedBytes cap the finished jobs kept (their
	// answers and files): past either the oldest are forgotten before
	// their TTL, so that a flood of jobs cannot fill the memory and the
	// disk.
	maxFinished      int
	maxFinishedBytes int64
	queues           map[string][]*memEntry // never delivered, by job, oldest first
	order            []string               // the jobs with queued units, oldest first
	served           map[string]uint64      // job -> when a unit of it was last handed out (a count)
	handouts         uint64
	pending          map[uint64]*memEntry // delivered, not acknowledged
	seq              uint64
	wake             chan struct{} // closed when a unit becomes claimable
	expiring         expiring      // the finished jobs, soonest expiry first
	swept            []string      // jobs swept whose files exit removes
}

type memJob struct {
	// write is held from the check of what a record of the job's would
	// change, through the record's writing and syncing, to the change
	// (MemoryStore.write), s.mu not held meanwhile: the job's records are
	// written one at a time, in the order of their changes. It is taken
	// before s.mu.
	write   sync.Mutex
	s       state
	results map[int]json.RawMessage
	nodes   map[int]int64
	expires time.Time // zero while unfinished
	slow    bool      // a unit outlasted an express slot's limit
	at      int       // the job's index in MemoryStore.expiring, once finished
}

type memEntry struct {
	seq        uint64
	job        string
	unit       int
	payload    json.RawMessage
	owner      string
	deliveries int64
	delivered  time.Time // zero: claimable at once
}

// ErrDirInUse: another process (or another MemoryStore of this one, not
// closed) holds the jobs directory (Linux, the BSDs, macOS, illumos: where
// flock exists).
var ErrDirInUse = errors.New("jobs: the directory is in use")

// lockWait is how long NewMemoryStore waits for a directory's lock before
// it reports ErrDirInUse.
const lockWait = time.Second

type dirInUseError struct{ dir, pid string }

func (e *dirInUseError) Error() string {
	by := "another process"
	if e.pid != "" {
		by = "process " + e.pid
	}
	return fmt.Sprintf("the jobs directory %s is in use by %s: two processes sharing it would both run its jobs; give each its own --data-dir, or share the jobs through REDIS_URL", e.dir, by)
}

func (e *dirInUseError) Is(target error) bool { return target == ErrDirInUse }

// LockDir takes on dir the lock NewMemoryStore takes on its directory
// (<dir>/lock, an flock held until unlock or the end of the process), for
// a tool that writes into a directory one process at a time (gamesolver
// book build's progress file). ErrDirInUse when another holds it.
func LockDir(dir string) (unlock func() error, err error) {
	f, err := lockDir(dir)
	if err != nil {
		return nil, err
	}
	return func() error {
		if f == nil {
			return nil
		}
		return f.Close()
	}, nil
}

// NewMemoryStore returns an in-process store. With dir != "" jobs survive a
// restart of the process (see MemoryStore); the directory is created if
// needed, and locked until Close.
func NewMemoryStore(dir string) (*MemoryStore, error) {
	s := &MemoryStore{
		dir: dir, jobs: map[string]*memJob{}, active: map[string]*memJob{}, maxFinished: MaxFinishedJobs, maxFinishedBytes: MaxFinishedBytes, queues: map[string][]*memEntry{}, served: map[string]uint64{}, pending: map[uint64]*memEntry{},
		wake: make(chan struct{}),
	}
	if dir == "" {
		return s, nil
	}
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, fmt.Errorf("jobs: data directory: %w", err)
	}
	unlock, err := LockDir(dir)
	if err != nil {
		return nil, err
	}
	s.unlock = unlock
	if err := s.replay(); err != nil {
		_ = s.Close()
		return nil, err
	}
	return s, nil
}

// Close releases the directory for another process. The store must not be
// used afterwards.
func (s *MemoryStore) Close() error {
	if s.unlock == nil {
		return nil
	}
	err := s.unlock()
	s.unlock = nil
	return err
}

func (s *MemoryStore) create(_ context.Context, st state, units []json.RawMessage, lim limits) error {
	s.enter()
	defer s.exit()
	if lim.all > 0 {
		if n := s.unfinished(""); n >= lim.all {
			return &tooManyError{active: n}
		}
	}
	if lim.client > 0 {
		if n := s.unfinished(st.Client); n >= lim.client {
			return &tooManyError{active: n, client: true}
		}
	}
	if s.dir != "" {
		// The job holds its place under the caps while its record is
		// written and synced, outside s.mu (a job of 12,000 units writes
		// megabytes); nothing else sees it until then.
		s.active[st.ID] = &memJob{s: st}
		s.mu.Unlock()
		err := s.append(st.ID, logRecord{Op: "create", Job: toLogJob(st), Units: units})
		if err != nil {
			// The submission is refused: its record, whole or not, must
			// not bring the job back at the next start.
			_ = os.Remove(s.path(st.ID))
		} else {
			// The new file's name, written down: the record's sync is
			// the file's, and a crash of the machine could lose the
			// entry, and the job its client was told it has.
			syncDir(s.dir)
		}
		s.mu.Lock()
		if err != nil {
			delete(s.active, st.ID)
			return err
		}
	}
	s.add(st, units, nil)
	return nil
}

// add registers a job and queues its units that have no result. A job
// replayed unfinished with results first queues one unit that has its
// result: the process may have stopped between a result and the job's end
// (its results may end it: every unit done, or an early win; a worker
// shutting down while it combined hands its unit back only in memory),
// and that unit's worker finds its result and only combines.
func (s *MemoryStore) add(st state, units []json.RawMessage, results map[int]json.RawMessage) {
	j := &memJob{s: st, results: map[int]json.RawMessage{}, nodes: map[int]int64{}}
	s.jobs[st.ID] = j
	if st.Status.Final() {
		return // replay retires it
	}
	s.active[st.ID] = j
	var q []*memEntry
	if done := slices.Sorted(maps.Keys(results)); len(done) > 0 {
		i := done[len(done)-1]
		s.seq++
		q = append(q, &memEntry{seq: s.seq, job: st.ID, unit: i, payload: units[i]})
	}
	for i, u := range units {
		if _, ok := results[i]; ok {
			continue
		}
		s.seq++
		q = append(q, &memEntry{seq: s.seq, job: st.ID, unit: i, payload: u})
	}
	if len(q) > 0 {
		s.queues[st.ID] = q
		s.order = append(s.order, st.ID)
	}
	s.signal()
}

func (s *MemoryStore) signal() {
	close(s.wake)
	s.wake = make(chan struct{})
}

func (s *MemoryStore) load(_ context.Context, id string) (state, bool, error) {
	s.enter()
	defer s.exit()
	j := s.job(id, time.Now())
	if j == nil {
		return state{}, false, nil
	}
	st := j.s
	st.Done = len(j.results)
	for _, n := range j.nodes {
		st.Nodes += n
	}
	return st, true, nil
}

// job returns a live job, nil for an unknown or expired one.
func (s *MemoryStore) job(id string, now time.Time) *memJob {
	j := s.jobs[id]
	if j == nil || !j.expires.IsZero() && !now.Before(j.expires) {
		return nil
	}
	return j
}

func (s *MemoryStore) claim(ctx context.Context, consumer string, minIdle, block time.Duration, express bool) (*delivery, error) {
	timer := time.NewTimer(block)
	defer timer.Stop()
	for {
		s.enter()
		d := s.take(consumer, minIdle, time.Now(), express)
		wake := s.wake
		s.exit()
		if d != nil {
			return d, nil
		}
		select {
		case <-ctx.Done():
			return nil, nil
		case <-timer.C:
			return nil, nil
		case <-wake:
		}
	}
}

// take hands out the oldest pending unit idle for minIdle, else a new one:
// the next unit of the job with the fewest units out (delivered, not
// acknowledged), among those the one served least recently. Jobs take
// turns so: one job of ten thousand units does not hold back the jobs
// after it. An express slot takes only new units, of jobs not slow.
func (s *MemoryStore) take(consumer string, minIdle time.Duration, now time.Time, express bool) *delivery {
	var e *memEntry
	out := map[string]int{}
	for _, p := range s.pending {
		out[p.job]++
		if !express && (p.delivered.IsZero() || now.Sub(p.delivered) >= minIdle) && (e == nil || p.seq < e.seq) {
			e = p
		}
	}
	reclaimed := e != nil
	if e == nil {
		k := -1
		for i, id := range s.order {
			if express {
				if j := s.jobs[id]; j != nil && j.slow {
					continue
				}
			}
			if k < 0 {
				k = i
				continue
			}
			best := s.order[k]
			if out[id] < out[best] || out[id] == out[best] && s.served[id] < s.served[best] {
				k = i
			}
		}
		if k < 0 {
			return nil
		}
		id := s.order[k]
		q := s.queues[id]
		e = q[0]
		s.handouts++
		s.served[id] = s.handouts
		if len(q) == 1 {
			delete(s.queues, id)
			delete(s.served, id)
			s.order = slices.Delete(s.order, k, k+1)
		} else {
			s.queues[id] = q[1:]
		}
		s.pending[e.seq] = e
	}
	e.owner, e.delivered = consumer, now
	e.deliveries++
	return &delivery{
		EntryID: strconv.FormatUint(e.seq, 10), JobID: e.job, Unit: e.unit, Payload: e.payload,
		Deliveries: e.deliveries, Reclaimed: reclaimed,
	}
}

// enter takes s.mu and sweeps: every call to the store forgets the jobs
// that expired since the last (a job past its expiry is read as gone
// meanwhile). Only an idle worker slot's claim swept them, at most once a
// second and through every job: a store whose slots were all busy, or
// that ran no worker, kept them in memory and on disk.
func (s *MemoryStore) enter() {
	s.mu.Lock()
	s.sweep(time.Now())
}

// exit lets s.mu go, then removes the files of the jobs swept: no other
// call waits for that.
func (s *MemoryStore) exit() {
	swept := s.swept
	s.swept = nil
	s.mu.Unlock()
	for _, id := range swept {
		_ = os.Remove(s.path(id))
	}
}

// sweep forgets the jobs expired at now, the soonest first, at most 100
// (the rest at the next calls), and leaves their files to exit (s.mu
// held).
func (s *MemoryStore) sweep(now time.Time) {
	for n := 0; n < 100 && len(s.expiring) > 0 && !now.Before(s.expiring[0].expires); n++ {
		j := heap.Pop(&s.expiring).(*memJob)
		delete(s.jobs, j.s.ID)
		if s.dir != "" {
			s.swept = append(s.swept, j.s.ID)
		}
	}
	// The finished jobs swept leave the caps' counts (the oldest ends
	// first; one expiring sooner behind a later one, of an earlier TTL,
	// leaves them when evict reaches it).
	for len(s.finished) > 0 && s.jobs[s.finished[0].id] == nil {
		s.finishedBytes -= s.finished[0].bytes
		s.finished = s.finished[1:]
	}
}

// expiring is the finished jobs by expiry, soonest first (container/heap;
// memJob.at is a job's index).
type expiring []*memJob

func (h expiring) Len() int           { return len(h) }
func (h expiring) Less(a, b int) bool { return h[a].expires.Before(h[b].expires) }
func (h expiring) Swap(a, b int) {
	h[a], h[b] = h[b], h[a]
	h[a].at, h[b].at = a, b
}
func (h *expiring) Push(x any) {
	j := x.(*memJob)
	j.at = len(*h)
	*h = append(*h, j)
}
func (h *expiring) Pop() any {
	old := *h
	j := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return j
}

// unexpire takes j out of s.expiring, if it is there (s.mu held).
func (s *MemoryStore) unexpire(j *memJob) {
	if j.at < len(s.expiring) && s.expiring[j.at] == j {
		heap.Remove(&s.expiring, j.at)
	}
}

func (s *MemoryStore) entry(d *delivery) *memEntry {
	seq, _ := strconv.ParseUint(d.EntryID, 10, 64)
	return s.pending[seq]
}

func (s *MemoryStore) begin(_ context.Context, d *delivery, now time.Time) (unitStart, error) {
	s.enter()
	defer s.exit()
	j := s.job(d.JobID, time.Now())
	if j == nil {
		return unitStart{}, nil
	}
	if j.s.Status == StatusQueued {
		start := func() (logRecord, bool) {
			return logRecord{Op: "start", At: now.UnixMilli()}, j.s.Status == StatusQueued // not started or ended meanwhile
		}
		if _, err := s.write(j, start, func() { j.s.Status, j.s.Started = StatusRunning, now }); err != nil {
			return unitStart{}, err
		}
	}
	_, has := j.results[d.Unit]
	return unitStart{Found: true, Status: j.s.Status, Type: j.s.Type, Request: j.s.Request, Total: j.s.Total, HasResult: has, Slow: j.slow, Created: j.s.Created, Started: j.s.Started, Format: j.s.Format}, nil
}

func (s *MemoryStore) heartbeat(_ context.Context, d *delivery, consumer string, nodes int64) (bool, Status, error) {
	s.enter()
	defer s.exit()
	now := time.Now()
	var status Status
	j := s.job(d.JobID, now)
	if j != nil {
		status = j.s.Status
	}
	e := s.entry(d)
	if e == nil || e.owner != consumer {
		return false, status, nil
	}
	e.delivered = now
	raises := func() bool {
		_, done := j.results[d.Unit]
		return !j.s.Status.Final() && !done && nodes > j.nodes[d.Unit]
	}
	if j != nil && raises() {
		// Progress.Nodes never goes down, a restart included: the count
		// is written before it shows (a failed write leaves it as it
		// was; the run goes on).
		count := func() (logRecord, bool) { return logRecord{Op: "nodes", Unit: d.Unit, Nodes: nodes}, raises() }
		_, _ = s.write(j, count, func() { j.nodes[d.Unit] = nodes })
	}
	return true, status, nil
}

func (s *MemoryStore) complete(_ context.Context, d *delivery, result json.RawMessage, nodes int64) (Status, map[int]json.RawMessage, error) {
	s.enter()
	defer s.exit()
	j := s.job(d.JobID, time.Now())
	if j == nil {
		return "", nil, nil
	}
	if j.s.Status.Final() {
		return j.s.Status, nil, nil
	}
	if _, has := j.results[d.Unit]; result != nil && !has {
		unit := func() (logRecord, bool) {
			if _, has := j.results[d.Unit]; has || j.s.Status.Final() {
				return logRecord{}, false // written or ended meanwhile
			}
			nodes = max(j.nodes[d.Unit], nodes) // Progress.Nodes
			return logRecord{Op: "unit", Unit: d.Unit, Result: result, Nodes: nodes}, true
		}
		if _, err := s.write(j, unit, func() { j.results[d.Unit], j.nodes[d.Unit] = slices.Clone(result), nodes }); err != nil {
			return "", nil, err
		}
		if j.s.Status.Final() {
			return j.s.Status, nil, nil
		}
	}
	results := make(map[int]json.RawMessage, len(j.results))
	for i, r := range j.results {
		results[i] = r
	}
	return j.s.Status, results, nil
}

func (s *MemoryStore) finish(_ context.Context, id string, e ending) (bool, Status, error) {
	ended, status, c, err := s.end(id, e)
	if c != nil {
		s.compact(c)
	}
	return ended, status, err
}

// end records the end of job id, and returns, with a directory, its file's
// compaction for finish to do outside s.mu.
func (s *MemoryStore) end(id string, e ending) (bool, Status, *compaction, error) {
	s.enter()
	defer s.exit()
	j := s.job(id, time.Now())
	if j == nil {
		return false, "", nil, nil
	}
	if j.s.Status.Final() {
		return false, j.s.Status, nil, nil
	}
	expires := e.At.Add(e.TTL)
	rec := logRecord{Op: "end", Status: e.Status, At: e.At.UnixMilli(), Result: e.Result, Error: e.Error, Expires: expires.UnixMilli()}
	ended, err := s.write(j, func() (logRecord, bool) { return rec, !j.s.Status.Final() }, func() {
		j.s.Status, j.s.Finished, j.s.Result, j.s.Error = e.Status, e.At, slices.Clone(e.Result), e.Error
		j.expires = expires
		heap.Push(&s.expiring, j)
		delete(s.active, id)
	})
	if err != nil || !ended { // ended by another call meanwhile
		return false, j.s.Status, nil, err
	}
	c := s.compaction(j, rec)
	if c == nil {
		s.retire(j)
		s.evict()
	}
	return true, e.Status, c, nil
}

// compaction is the rewriting of a finished job's file without what only
// an unfinished job needs: the units' payloads and results (a finished
// job reads their number and node counts only). A canceled job of 7,000
// units kept 2 MB of them for a week, and a restart replayed every such
// file (14 s for 100 of them).
//
// Its records are taken under s.mu when the job ends; the new file is
// written and synced outside it (under it, a job of 12,000 units held
// every other job's reads, submissions, heartbeats and completions
// 51-60 ms, one of 1,000 8-12 ms: BenchmarkCompactHoldsLock), and
// renamed over the job's under s.mu and the job's write lock (every
// append's, outside s.mu), unless the job is gone meanwhile (its file
// removed by sweep) or its file grew (a record appended after the end
// would be lost: none is, slow writes nothing for a finished job, but
// the full file replays the same and is kept then). The job is
// filed with the finished jobs (retire, evict) once its file is in place,
// so that its size is the compacted file's. The file is replaced whole or
// not at all: a crash leaves the full one and the temporary file, which
// replay removes.
type compaction struct {
	j    *memJob
	head []logRecord // create, start
	// done holds the units with a result, partial the others with a node
	// count (the maps copied, not sorted: sorted outside s.mu).
	done, partial []unitNodes
	slow          bool
	end           logRecord
	size          int64 // the file's, its end record last
}

type unitNodes struct {
	unit  int
	nodes int64
}

// compaction returns the compaction of j, just finished with its end
// record end; nil without a directory or when the file cannot be read
// (s.mu held).
func (s *MemoryStore) compaction(j *memJob, end logRecord) *compaction {
	if s.dir == "" {
		return nil
	}
	fi, err := os.Stat(s.path(j.s.ID))
	if err != nil {
		return nil
	}
	c := &compaction{j: j, slow: j.slow, end: end, size: fi.Size(), done: make([]unitNodes, 0, len(j.results))}
	c.head = append(c.head, logRecord{Op: "create", Job: toLogJob(j.s), Total: j.s.Total})
	if !j.s.Started.IsZero() {
		c.head = append(c.head, logRecord{Op: "start", At: j.s.Started.UnixMilli()})
	}
	for u := range j.results {
		c.done = append(c.done, unitNodes{u, j.nodes[u]})
	}
	for u, n := range j.nodes {
		if _, done := j.results[u]; !done && n > 0 {
			c.partial = append(c.partial, unitNodes{u, n})
		}
	}
	return c
}

// records returns c's file's records, in order: the job's creation without
// its units (their number), its start, the units with a result (their node
// counts), the other units' node counts, the slow mark, the end.
func (c *compaction) records(yield func(logRecord) bool) {
	for _, r := range c.head {
		if !yield(r) {
			return
		}
	}
	byUnit := func(a, b unitNodes) int { return a.unit - b.unit }
	slices.SortFunc(c.done, byUnit)
	slices.SortFunc(c.partial, byUnit)
	for _, u := range c.done {
		if !yield(logRecord{Op: "unit", Unit: u.unit, Nodes: u.nodes}) {
			return
		}
	}
	for _, u := range c.partial {
		if !yield(logRecord{Op: "nodes", Unit: u.unit, Nodes: u.nodes}) {
			return
		}
	}
	if c.slow && !yield(logRecord{Op: "slow"}) {
		return
	}
	yield(c.end)
}

// compactWrite, when set (tests), is called before a compaction writes its
// temporary file, s.mu not held.
var compactWrite func(id string)

// compact does c: writes and syncs the new file outside s.mu, renames it
// over the job's under it, then files the job with the finished ones.
func (s *MemoryStore) compact(c *compaction) {
	id := c.j.s.ID // never changes
	path := s.path(id)
	tmp, err := s.writeCompacted(path, c.records)
	c.j.write.Lock() // no record appended between the size's check and the rename
	s.enter()
	if s.jobs[id] != c.j {
		// Swept (expired) meanwhile, its file removed: not to come back.
		s.exit()
		c.j.write.Unlock()
		if tmp != "" {
			_ = os.Remove(tmp)
		}
		return
	}
	renamed := false
	if err == nil {
		if fi, serr := os.Stat(path); serr == nil && fi.Size() == c.size {
			renamed = os.Rename(tmp, path) == nil
		}
	}
	s.retire(c.j)
	s.evict()
	s.exit()
	c.j.write.Unlock()
	if renamed {
		syncDir(s.dir) // the rename, written down (the full file replays the same meanwhile)
	} else if tmp != "" {
		_ = os.Remove(tmp)
	}
}

// writeCompacted writes recs to a synced temporary file beside path (named
// as replay expects one) and returns its name ("" when none is left).
func (s *MemoryStore) writeCompacted(path string, recs iter.Seq[logRecord]) (string, error) {
	if compactWrite != nil {
		compactWrite(strings.TrimSuffix(filepath.Base(path), ".jsonl"))
	}
	f, err := os.CreateTemp(s.dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return "", err
	}
	err = f.Chmod(0o640)
	if err == nil {
		w := bufio.NewWriterSize(f, 64*1024)
		enc := json.NewEncoder(w)
		for r := range recs {
			if err = enc.Encode(r); err != nil {
				break
			}
		}
		if err == nil {
			err = w.Flush()
		}
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
}

// dirSynced, when set (tests), is told of each syncDir (atomic: a test's
// setting it may meet a goroutine an earlier test left behind).
var dirSynced atomic.Pointer[func(dir string)]

// syncDir flushes a directory's entries (a rename in it) to the disk, as
// far as the file system can (atomicfile's).
func syncDir(dir string) {
	if f := dirSynced.Load(); f != nil {
		(*f)(dir)
	}
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
}

// What a store keeps of finished jobs at most: past either figure the
// oldest are forgotten before their TTL. A memory store counts their
// answers' bytes in memory or, more, their files' on disk (a small job
// keeps about 5 KB of memory and 4 KB of disk; a count listing a thousand
// tilings about 300 KB of each: its file keeps the answer, not its units'
// payloads and results); a Redis store their requests', answers' and
// errors' bytes (the units' results are let go when a job ends).
const (
	MaxFinishedJobs  = 20_000
	MaxFinishedBytes = 256 << 20
)

// finishedJob is a finished job in the order of their ends, with its size:
// its answer's bytes in memory or, more, its file's on disk.
type finishedJob struct {
	id    string
	bytes int64
}

// retire files j, just finished, with the finished jobs, and lets its
// units' results go (only their number is read again) (s.mu held).
func (s *MemoryStore) retire(j *memJob) {
	for u := range j.results {
		j.results[u] = nil
	}
	size := int64(len(j.s.Result))
	if s.dir != "" {
		if fi, err := os.Stat(s.path(j.s.ID)); err == nil {
			size = max(size, fi.Size())
		}
	}
	s.finished = append(s.finished, finishedJob{id: j.s.ID, bytes: size})
	s.finishedBytes += size
}

// evict forgets the oldest finished jobs past maxFinished or
// maxFinishedBytes, keeping the latest one (s.mu held).
func (s *MemoryStore) evict() {
	for len(s.finished) > s.maxFinished || len(s.finished) > 1 && s.finishedBytes > s.maxFinishedBytes {
		f := s.finished[0]
		s.finished = s.finished[1:]
		s.finishedBytes -= f.bytes
		if j, ok := s.jobs[f.id]; ok && j.s.Status.Final() {
			delete(s.jobs, f.id)
			s.unexpire(j)
			if s.dir != "" {
				_ = os.Remove(s.path(f.id))
			}
		}
	}
}

func (s *MemoryStore) ack(_ context.Context, d *delivery) error {
	s.enter()
	defer s.exit()
	if e := s.entry(d); e != nil {
		delete(s.pending, e.seq)
	}
	return nil
}

func (s *MemoryStore) release(_ context.Context, d *delivery, consumer string, count bool) error {
	s.enter()
	defer s.exit()
	return s.handBack(d, consumer, count)
}

func (s *MemoryStore) slow(_ context.Context, d *delivery, consumer string) error {
	s.enter()
	defer s.exit()
	_ = s.handBack(d, consumer, false)
	j := s.job(d.JobID, time.Now())
	if j == nil || j.slow {
		return nil
	}
	// The mark only spares express slots a try: it shows at once, and
	// the unit goes back, even when it cannot be written (and is then
	// lost on a restart). A finished job's is not written: a restart
	// queues none of its units, and nothing is appended after the end
	// (compact).
	j.slow = true
	mark := func() (logRecord, bool) { return logRecord{Op: "slow"}, !j.s.Status.Final() }
	_, err := s.write(j, mark, func() {})
	return err
}

// handBack makes the unit, if consumer owns it, claimable at once (s.mu
// held).
func (s *MemoryStore) handBack(d *delivery, consumer string, count bool) error {
	e := s.entry(d)
	if e == nil || e.owner != consumer {
		return nil
	}
	e.delivered = time.Time{}
	if !count {
		e.deliveries--
	}
	s.signal()
	return nil
}

// unfinished counts the jobs queued or running, of client unless "" (s.mu
// held).
func (s *MemoryStore) unfinished(client string) int {
	if client == "" {
		return len(s.active)
	}
	n := 0
	for _, j := range s.active {
		if j.s.Client == client {
			n++
		}
	}
	return n
}

// forget has nothing to do: the memory store keeps no consumers.
func (s *MemoryStore) forget(context.Context, time.Duration) (int, error) { return 0, nil }

// adopt has nothing to do: the units a process held are claimable again
// when its journal is read.
func (s *MemoryStore) adopt(context.Context, string, time.Duration, []string) (int, error) {
	return 0, nil
}

func (s *MemoryStore) shared() bool { return false }

// passed: no other process takes this store's units, so none of a later
// format is handed back (Manager.process fails its job at once).
func (s *MemoryStore) passed(context.Context, *delivery, time.Time) (time.Time, error) {
	return time.Time{}, errors.New("jobs: the memory store is not shared: no unit is handed back for its format")
}

func (s *MemoryStore) countActive(context.Context) (int, error) {
	s.enter()
	defer s.exit()
	return s.unfinished(""), nil
}

func (s *MemoryStore) oldest(context.Context) (queued, running time.Time, err error) {
	s.enter()
	defer s.exit()
	for _, j := range s.active {
		at := &running
		if j.s.Status == StatusQueued {
			at = &queued
		}
		if at.IsZero() || j.s.Created.Before(*at) {
			*at = j.s.Created
		}
	}
	return queued, running, nil
}

func (s *MemoryStore) units(context.Context) (waiting, delivered int, err error) {
	s.enter()
	defer s.exit()
	for _, q := range s.queues {
		waiting += len(q)
	}
	return waiting, len(s.pending), nil
}

// logRecord is one line of a job's file.
type logRecord struct {
	Op    string            `json:"op"` // create, start, nodes, unit, slow, end
	Job   *logJob           `json:"job,omitempty"`
	Units []json.RawMessage `json:"units,omitempty"`
	// Total is the number of units of a finished job's create record,
	// whose units are left out (compact); 0: len(Units).
	Total   int             `json:"total,omitempty"`
	At      int64           `json:"at,omitempty"` // unix ms
	Unit    int             `json:"unit,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Nodes   int64           `json:"nodes,omitempty"`
	Status  Status          `json:"status,omitempty"`
	Error   string          `json:"error,omitempty"`
	Expires int64           `json:"expires,omitempty"` // unix ms
}

type logJob struct {
	ID      string          `json:"id"`
	Type    string          `json:"type"`
	Created int64           `json:"created"`
	Request json.RawMessage `json:"request"`
	Client  string          `json:"client,omitempty"`
	Format  int             `json:"format,omitempty"`
}

func toLogJob(st state) *logJob {
	return &logJob{ID: st.ID, Type: st.Type, Created: st.Created.UnixMilli(), Request: st.Request, Client: st.Client, Format: st.Format}
}

func (s *MemoryStore) path(id string) string { return filepath.Join(s.dir, id+".jsonl") }

// write appends the record rec returns to job j's file and, once it is
// synced, makes its change (apply). s.mu is held when write is called,
// when it returns, and when it calls rec and apply, but not while the
// record is written and synced: j.write is, from rec to apply, so that the
// job's records are written one at a time, and other jobs' operations do
// not wait for the disk (a record's sync takes 1-3 ms on a VM's disk; an
// operation on another job waited for every record of every job's:
// BenchmarkRecordHoldsLock). rec, called once j.write is held, returns
// false when the job changed meanwhile and there is nothing to write
// any more. write reports whether the change was made; an error is the
// append's, the change not made. Without a directory nothing is written
// and s.mu is not let go.
func (s *MemoryStore) write(j *memJob, rec func() (logRecord, bool), apply func()) (bool, error) {
	if s.dir == "" {
		_, ok := rec()
		if ok {
			apply()
		}
		return ok, nil
	}
	s.mu.Unlock()
	j.write.Lock()
	defer j.write.Unlock() // after s.mu is taken again
	s.mu.Lock()
	r, ok := rec()
	if !ok {
		return false, nil
	}
	id := j.s.ID
	s.mu.Unlock()
	err := s.append(id, r)
	s.mu.Lock()
	if err != nil {
		return false, err
	}
	apply()
	return true, nil
}

// syncRecord, when set (tests), is called in the place of the sync of a
// job's file after a record is written to it (s.mu not held; the job's
// write lock held, but for a creation's record): its error is the sync's.
var syncRecord func(id string, f *os.File) error

// append writes one record to the job's file and syncs it. Without a
// directory it does nothing. The caller holds the job's write lock (or
// the job is not seen yet: create), not s.mu.
func (s *MemoryStore) append(id string, rec logRecord) error {
	if s.dir == "" {
		return nil
	}
	line, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(s.path(id), os.O_APPEND|os.O_CREATE|os.O_RDWR, 0o640)
	if err != nil {
		return hideID(fmt.Errorf("jobs: %w", err), id)
	}
	size, isTorn := torn(f)
	if isTorn {
		// A write before this one was torn (a crash, a full disk): the
		// record starts a line of its own, or it would be lost with the
		// fragment (readLog skips it).
		line = append([]byte{'\n'}, line...)
	}
	_, err = f.Write(append(line, '\n'))
	if err == nil {
		if syncRecord != nil {
			err = syncRecord(id, f)
		} else {
			err = f.Sync()
		}
	}
	if err != nil && size >= 0 {
		// The call fails and its change is not made: its record, whole
		// or not, is cut off as far as the disk lets, so that a restart
		// does not make it either.
		if f.Truncate(size) == nil {
			_ = f.Sync()
		}
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return hideID(fmt.Errorf("jobs: write %s: %w", s.path(id), err), id)
	}
	return nil
}

// idHidden is an error whose text shows a job's id as the logs do
// (LoggedID): the job file's path names the job whole, and a store's
// error reaches the logs.
type idHidden struct {
	err error
	id  string
}

func hideID(err error, id string) error { return &idHidden{err: err, id: id} }

func (e *idHidden) Error() string {
	return strings.ReplaceAll(e.err.Error(), e.id, LoggedID(e.id))
}

func (e *idHidden) Unwrap() error { return e.err }

// torn reports f's size (-1: unknown) and whether f, a job's file, ends
// without a newline (its last write was torn), or cannot tell. (Nothing is cut: another process sharing the directory
// may be writing that line.)
func torn(f *os.File) (size int64, isTorn bool) {
	st, err := f.Stat()
	if err != nil {
		return -1, true // unknown: an empty line costs nothing
	}
	if st.Size() == 0 {
		return 0, false
	}
	var last [1]byte
	_, err = f.ReadAt(last[:], st.Size()-1)
	return st.Size(), err != nil || last[0] != '\n'
}

// replay rebuilds the jobs from their files, oldest job first, so that the
// queue keeps its order. A torn line (a crash while writing) is skipped
// (readLog); a file without its creation record is ignored.
func (s *MemoryStore) replay() error {
	// A compaction cut short by a crash left its temporary file (the job's
	// own file stayed whole).
	if tmps, err := filepath.Glob(filepath.Join(s.dir, ".*.jsonl.*.tmp")); err == nil {
		for _, name := range tmps {
			_ = os.Remove(name)
		}
	}
	names, err := filepath.Glob(filepath.Join(s.dir, "*.jsonl"))
	if err != nil {
		return err
	}
	type replayed struct {
		st      state
		units   []json.RawMessage
		results map[int]json.RawMessage
		nodes   map[int]int64
		expires time.Time
		slow    bool
	}
	var all []*replayed
	now := time.Now()
	for _, name := range names {
		id := strings.TrimSuffix(filepath.Base(name), ".jsonl")
		if !validID(id) {
			continue
		}
		recs, err := readLog(name)
		if err != nil {
			return hideID(err, id) // NewMemoryStore's error reaches the logs too
		}
		if len(recs) == 0 || recs[0].Op != "create" || recs[0].Job == nil {
			continue
		}
		c := recs[0]
		r := &replayed{
			st: state{
				ID: id, Type: c.Job.Type, Status: StatusQueued, Created: time.UnixMilli(c.Job.Created).UTC(),
				Request: c.Job.Request, Total: max(len(c.Units), c.Total), Client: c.Job.Client, Format: c.Job.Format,
			},
			units: c.Units, results: map[int]json.RawMessage{}, nodes: map[int]int64{},
		}
		for _, rec := range recs[1:] {
			switch rec.Op {
			case "start":
				r.st.Status, r.st.Started = StatusRunning, time.UnixMilli(rec.At).UTC()
			case "nodes":
				if _, has := r.results[rec.Unit]; !has && rec.Unit >= 0 && rec.Unit < r.st.Total {
					r.nodes[rec.Unit] = max(r.nodes[rec.Unit], rec.Nodes)
				}
			case "unit":
				if rec.Unit < 0 || rec.Unit >= r.st.Total {
					continue // no unit of this job's (a damaged line)
				}
				if _, has := r.results[rec.Unit]; !has {
					r.results[rec.Unit], r.nodes[rec.Unit] = rec.Result, rec.Nodes
				}
			case "slow":
				r.slow = true
			case "end":
				r.st.Status, r.st.Finished = rec.Status, time.UnixMilli(rec.At).UTC()
				r.st.Result, r.st.Error = rec.Result, rec.Error
				r.expires = time.UnixMilli(rec.Expires)
			}
		}
		if !r.expires.IsZero() && !now.Before(r.expires) {
			_ = os.Remove(name)
			continue
		}
		all = append(all, r)
	}
	slices.SortFunc(all, func(a, b *replayed) int { return a.st.Created.Compare(b.st.Created) })
	var ended []*memJob
	for _, r := range all {
		units := r.units
		if r.st.Status.Final() {
			units = nil // nothing left to run
		}
		s.add(r.st, units, r.results)
		j := s.jobs[r.st.ID]
		j.results, j.nodes, j.expires, j.slow = r.results, r.nodes, r.expires, r.slow
		if r.st.Status.Final() {
			heap.Push(&s.expiring, j)
			ended = append(ended, j)
		}
	}
	// The finished ones in the order of their ends (eviction's).
	slices.SortStableFunc(ended, func(a, b *memJob) int { return a.s.Finished.Compare(b.s.Finished) })
	for _, j := range ended {
		s.retire(j)
	}
	s.evict()
	return nil
}

// readLog reads a job's records, one a line. A line that is no record is
// skipped: the fragment of a write torn by a crash (power loss, a full
// disk), which append ends with a newline before it writes the next.
func readLog(name string) ([]logRecord, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("jobs: %w", err)
	}
	defer f.Close()
	var recs []logRecord
	r := bufio.NewReaderSize(f, 64*1024)
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 {
			var rec logRecord
			if json.Unmarshal(line, &rec) == nil {
				recs = append(recs, rec)
			}
		}
		if err == io.EOF {
			return recs, nil
		}
		if err != nil {
			return nil, fmt.Errorf("jobs: read %s: %w", name, err)
		}
	}
}
