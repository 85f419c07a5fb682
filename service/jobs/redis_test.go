package jobs

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/gamesolver/gamesolver/service/redistest"
)

// helperEnv, when set to a Redis address, makes TestHelperWorker run a
// worker in this process until it is killed.
const helperEnv = "GS_JOBS_HELPER_REDIS"

// TestHelperWorker is not a test: TestWorkerKilled runs it in a child
// process, whose units hold forever after reporting their nodes, and kills
// it with SIGKILL in the middle of a unit.
func TestHelperWorker(t *testing.T) {
	addr := os.Getenv(helperEnv)
	if addr == "" {
		t.Skip("helper process of TestWorkerKilled")
	}
	k := newSquares()
	k.gated(make(chan struct{})) // never opens
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	opts := fastOptions(t)
	m, err := NewManager(NewRedisStore(rdb), []Kind{k}, opts)
	if err != nil {
		t.Fatal(err)
	}
	_ = m.RunWorker(context.Background(), "doomed", 1)
}

func TestWorkerKilled(t *testing.T) {
	srv := redistest.Start(t)
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	t.Cleanup(func() { _ = rdb.Close() })
	k := newSquares()
	m, met := newManager(t, NewRedisStore(rdb), k, fastOptions(t))
	const request = `{"n":100,"units":4}`
	j := submit(t, m, request)

	child := exec.Command(os.Args[0], "-test.run=^TestHelperWorker$", "-test.v")
	child.Env = append(os.Environ(), helperEnv+"="+srv.Addr())
	var out bytes.Buffer
	child.Stdout, child.Stderr = &out, &out
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = child.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = child.Process.Kill()
		<-exited
		if t.Failed() {
			t.Logf("child output:\n%s", out.String())
		}
	})

	// The child takes unit 0, reports its 25 nodes and holds; the node
	// count reaches the job with its heartbeat.
	waitJob(t, m, j.ID, "the child's report", func(j Job) bool { return j.Progress.Nodes == 25 })

	// A second worker finishes the other units but leaves unit 0 alone as
	// long as the child heartbeats, well past ReclaimAfter.
	startWorker(t, m, "survivor", 2)
	waitJob(t, m, j.ID, "3 units done", func(j Job) bool { return j.Progress.Done == 3 })
	time.Sleep(fastOptions(t).ReclaimAfter + 500*time.Millisecond)
	if got, _ := m.Get(context.Background(), j.ID); got.Status != StatusRunning || got.Progress.Done != 3 {
		t.Fatalf("while the child lives: %+v", got)
	}
	if runs := k.get(k.started); runs[0] != 0 {
		t.Fatalf("unit 0 was taken from a live worker: %v", runs)
	}
	if g := (*met.unfinished.Load())(); g != 1 {
		t.Errorf("gauge of unfinished jobs = %v while the job runs, want 1", g)
	}

	if err := child.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-exited
	killed := time.Now()
	j = waitStatus(t, m, j.ID, StatusDone)
	t.Logf("unit 0 finished %v after the kill (ReclaimAfter %v)", time.Since(killed), fastOptions(t).ReclaimAfter)
	if runs := k.get(k.started); runs[0] != 1 || total(runs) != 4 {
		t.Errorf("runs here %v, want each unit once", runs)
	}
	if got := value(met.Reclaimed.WithLabelValues("toy.squares")); got != 1 {
		t.Errorf("reclaimed = %v, want 1", got)
	}
	if g := (*met.unfinished.Load())(); g != 0 {
		t.Errorf("gauge of unfinished jobs = %v after the job, want 0", g)
	}

	// The same job in one process, in memory, gives the same answer.
	mem, _ := NewMemoryStore("")
	single, _ := newManager(t, mem, newSquares(), fastOptions(t))
	sj := submit(t, single, request)
	startWorker(t, single, "single", 1)
	sj = waitStatus(t, single, sj.ID, StatusDone)
	if string(j.Result) != string(sj.Result) || j.Progress.Nodes != sj.Progress.Nodes {
		t.Errorf("after the kill: %s with %d nodes; single process: %s with %d nodes", j.Result, j.Progress.Nodes, sj.Result, sj.Progress.Nodes)
	}
	wantSum(t, j, 100)
	assertQueueEmpty(t, &env{rdb: rdb})
}

// TestWorkerAdoptsItsNamesakesUnits: a worker started under the name of
// one that died holding units (a restarted container keeps its host name
// and pid) takes them back at once, their delivery counted, instead of
// after ReclaimAfter (an hour here: the job would not end in the test).
func TestWorkerAdoptsItsNamesakesUnits(t *testing.T) {
	srv := redistest.Start(t)
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	t.Cleanup(func() { _ = rdb.Close() })
	ctx := context.Background()
	opts := fastOptions(t)
	opts.ReclaimAfter = time.Hour
	k := newSquares()
	m, met := newManager(t, NewRedisStore(rdb), k, opts)
	j := submit(t, m, `{"n":10,"units":3}`)
	// The dead worker's slots 0 and 3 (it ran more slots than its
	// successor) each took a unit; a worker "phoenixes" is another one.
	for _, consumer := range []string{"phoenix/0", "phoenix/3", "phoenixes/0"} {
		if err := rdb.XReadGroup(ctx, &redis.XReadGroupArgs{Group: groupName, Consumer: consumer, Streams: []string{streamKey, ">"}, Count: 1, Block: -1}).Err(); err != nil {
			t.Fatal(err)
		}
	}
	stop := startWorker(t, m, "phoenix", 1)
	waitJob(t, m, j.ID, "the dead namesake's two units done", func(j Job) bool { return j.Progress.Done == 2 })
	if got := value(met.Reclaimed.WithLabelValues("toy.squares")); got != 2 {
		t.Errorf("reclaimed = %v, want 2 (each delivery counted)", got)
	}
	if runs := k.get(k.started); total(runs) != 2 {
		t.Errorf("runs %v, want two units once each", runs)
	}
	pending, err := rdb.XPendingExt(ctx, &redis.XPendingExtArgs{Stream: streamKey, Group: groupName, Start: "-", End: "+", Count: 10, Consumer: "phoenixes/0"}).Result()
	if err != nil || len(pending) != 1 {
		t.Errorf("the other worker's unit: %v, %v; want it left pending", pending, err)
	}
	// More units than a page of the pending list (all in the stream at
	// once: a window of 150; no worker takes them).
	stop()
	wide, _ := newManager(t, NewRedisStore(rdb).Window(150), newSquares(), opts)
	submit(t, wide, `{"n":150,"units":150}`)
	if err := rdb.XReadGroup(ctx, &redis.XReadGroupArgs{Group: groupName, Consumer: "many/0", Streams: []string{streamKey, ">"}, Count: 150, Block: -1}).Err(); err != nil {
		t.Fatal(err)
	}
	if n, err := NewRedisStore(rdb).adopt(ctx, "many", 0, nil); n != 150 || err != nil {
		t.Errorf("adopt of 150 units: %d, %v", n, err)
	}
}

// TestWorkerLeavesALiveNamesakesUnits: a worker started under the name of
// a live one (a misconfiguration: book workers were all book-1 in their
// containers) takes none of the units it heartbeats, at its start or
// after (a review found the live worker's unit run twice, its job failed
// with MaxDeliveries 1).
func TestWorkerLeavesALiveNamesakesUnits(t *testing.T) {
	srv := redistest.Start(t)
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	t.Cleanup(func() { _ = rdb.Close() })
	opts := fastOptions(t)
	opts.ReclaimAfter, opts.MaxDeliveries = time.Hour, 1
	k := newSquares()
	gate := k.gated(make(chan struct{}))
	m, met := newManager(t, NewRedisStore(rdb), k, opts)
	j := submit(t, m, `{"n":10,"units":1}`)
	startWorker(t, m, "twin", 1)
	waitFor(t, "the unit running", func() bool { return len(k.get(k.started)) == 1 })
	other, _ := newManager(t, NewRedisStore(rdb), k, opts)
	startWorker(t, other, "twin", 1)
	// Past both of the newcomer's looks (at its start, and three
	// heartbeats and one later).
	time.Sleep(6 * opts.Heartbeat)
	if runs := k.get(k.started); runs[0] != 1 {
		t.Errorf("the live worker's unit ran %d times", runs[0])
	}
	if got := value(met.Reclaimed.WithLabelValues("toy.squares")); got != 0 {
		t.Errorf("reclaimed = %v, want 0", got)
	}
	close(gate)
	if j = waitStatus(t, m, j.ID, StatusDone); j.Error != "" {
		t.Errorf("job: %+v", j)
	}
}

func TestDeadConsumersAreForgotten(t *testing.T) {
	srv := redistest.Start(t)
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	t.Cleanup(func() { _ = rdb.Close() })
	ctx := context.Background()
	opts := fastOptions(t)
	opts.forgetAfter = 200 * time.Millisecond
	m, _ := newManager(t, NewRedisStore(rdb), newSquares(), opts)

	j := submit(t, m, `{"n":10,"units":2}`)
	stopOld := startWorker(t, m, "old", 2)
	waitStatus(t, m, j.ID, StatusDone)
	stopOld()
	// "holder" takes a unit and dies with it: it must not be forgotten
	// before the unit is reclaimed.
	j = submit(t, m, `{"n":10,"units":1}`)
	if err := rdb.XReadGroup(ctx, &redis.XReadGroupArgs{Group: groupName, Consumer: "holder", Streams: []string{streamKey, ">"}, Count: 1, Block: -1}).Err(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	startWorker(t, m, "new", 1)
	waitFor(t, "the new worker's consumer", func() bool {
		names := consumers(t, rdb)
		return names["new/0"] && names["holder"] && !names["old/0"] && !names["old/1"]
	})
	waitStatus(t, m, j.ID, StatusDone)
}

func consumers(t *testing.T, rdb *redis.Client) map[string]bool {
	cs, err := rdb.XInfoConsumers(context.Background(), streamKey, groupName).Result()
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, c := range cs {
		names[c.Name] = true
	}
	return names
}

// TestForeignUnitsAreLeftToTheirWorkers: a worker that does not know a
// job's type (a book worker beside the servers) hands its units back
// uncounted instead of failing the job; the worker that knows it runs it.
func TestForeignUnitsAreLeftToTheirWorkers(t *testing.T) {
	srv := redistest.Start(t)
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	t.Cleanup(func() { _ = rdb.Close() })
	opts := fastOptions(t)
	m, _ := newManager(t, NewRedisStore(rdb), newSquares(), opts)
	other := newSquares()
	other.name = "toy.other"
	stranger, _ := newManager(t, NewRedisStore(rdb), other, opts)

	j := submit(t, m, `{"n":30,"units":3}`)
	startWorker(t, stranger, "stranger", 2)
	waitFor(t, "the stranger to see the units", func() bool { return consumers(t, rdb)["stranger/0"] })
	time.Sleep(200 * time.Millisecond)
	if got, err := m.Get(context.Background(), j.ID); err != nil || got.Status.Final() {
		t.Fatalf("with only the stranger working: %+v, %v", got, err)
	}
	startWorker(t, m, "owner", 1)
	wantSum(t, waitJob(t, m, j.ID, "the end", func(j Job) bool { return j.Status.Final() }), 30)
	if n := total(other.started); n != 0 {
		t.Fatalf("the stranger ran %d units", n)
	}
	assertQueueEmpty(t, &env{rdb: rdb})
}

// TestRedisStoreKeepsFinishedCapped: past maxFinished jobs or
// maxFinishedBytes the oldest finished jobs are forgotten, keys and all,
// before their TTL (Redis kept every finished job for its TTL); a finished
// job keeps no unit result, only their number; unfinished jobs stay.
func TestRedisStoreKeepsFinishedCapped(t *testing.T) {
	srv := redistest.Start(t)
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	t.Cleanup(func() { _ = rdb.Close() })
	ctx := context.Background()
	store := NewRedisStore(rdb)
	store.maxFinished = 3
	m, _ := newManager(t, store, newSquares(), fastOptions(t))
	stop := startWorker(t, m, "w", 1)
	var ids []string
	for i := range 5 {
		j := waitStatus(t, m, submit(t, m, fmt.Sprintf(`{"n":%d,"units":2}`, i+2)).ID, StatusDone)
		if j.Progress.Done != 2 || j.Progress.Total != 2 {
			t.Errorf("job %d: progress %+v, want 2 of 2 done", i, j.Progress)
		}
		ids = append(ids, j.ID)
	}
	stop()
	queued := submit(t, m, `{"n":3,"units":1}`) // no worker: stays queued
	for i, id := range ids {
		j, err := m.Get(ctx, id)
		// A finished job is its hash, its units' nodes added up in it,
		// and their hash of one field, the sum (it was 50 bytes a unit).
		keys, _ := rdb.Exists(ctx, jobKey(id), nodesKey(id), resultsKey(id)).Result()
		if kept := err == nil; kept != (i >= 2) || (kept && keys != 2) || (!kept && keys != 0) {
			t.Errorf("job %d: Get error %v, %d keys", i, err, keys)
		}
		if n, _ := rdb.HLen(ctx, nodesKey(id)).Result(); err == nil && n != 1 {
			t.Errorf("job %d: %d fields of nodes", i, n)
		}
		if err == nil && j.Progress.Nodes != int64(i+2) {
			t.Errorf("job %d: %d nodes, want %d", i, j.Progress.Nodes, i+2)
		}
	}
	if n, _ := rdb.ZCard(ctx, finishedKey).Result(); n != 3 {
		t.Errorf("%d finished jobs filed, want 3", n)
	}
	// Past the bytes kept, the oldest go at the next job's end, the
	// latest stays; the total is the sum of the sizes kept.
	store.maxFinishedBytes = 1
	stop = startWorker(t, m, "w2", 1)
	last := waitStatus(t, m, queued.ID, StatusDone)
	stop()
	kept, _ := rdb.ZRange(ctx, finishedKey, 0, -1).Result()
	sizes, _ := rdb.HGetAll(ctx, finishedKey+":bytes").Result()
	total, _ := rdb.Get(ctx, finishedKey+":total").Int64()
	if len(kept) != 1 || kept[0] != last.ID || len(sizes) != 1 || strconv.Itoa(int(total)) != sizes[last.ID] {
		t.Errorf("past the bytes: kept %v, sizes %v, total %d", kept, sizes, total)
	}
	if _, err := m.Get(ctx, ids[4]); err == nil {
		t.Errorf("job 4 kept past the bytes")
	}
	// Past the TTL: gone from the finished set at the next end.
	store.maxFinishedBytes = MaxFinishedBytes
	opts := fastOptions(t)
	opts.TTL = time.Millisecond
	m2, _ := newManager(t, store, newSquares(), opts)
	stop = startWorker(t, m2, "w3", 1)
	defer stop()
	filed := func(id string) func() bool {
		return func() bool { return rdb.ZScore(ctx, finishedKey, id).Err() == nil }
	}
	waitFor(t, "the first job filed", filed(submit(t, m2, `{"n":2,"units":1}`).ID))
	time.Sleep(50 * time.Millisecond)
	j := submit(t, m2, `{"n":2,"units":1}`)
	waitFor(t, "the second job filed", filed(j.ID))
	if kept, _ := rdb.ZRange(ctx, finishedKey, 0, -1).Result(); len(kept) != 1 || kept[0] != j.ID {
		t.Errorf("past the TTL: kept %v, want the last job only", kept)
	}
}

// TestRedisForgetsExpiredIdle: a finished job past its TTL is forgotten,
// keys and all, by an idle worker's reconcile, with no later job's end
// (which was the only time they went: without one they stayed for ever);
// one not yet expired stays.
func TestRedisForgetsExpiredIdle(t *testing.T) {
	srv := redistest.Start(t)
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	t.Cleanup(func() { _ = rdb.Close() })
	ctx := context.Background()
	store := NewRedisStore(rdb)
	short := fastOptions(t)
	short.TTL = 300 * time.Millisecond
	m, _ := newManager(t, store, newSquares(), short)
	long, _ := newManager(t, store, newSquares(), fastOptions(t))
	stop := startWorker(t, long, "w-long", 1)
	kept := waitStatus(t, long, submit(t, long, `{"n":2,"units":1}`).ID, StatusDone)
	stop()
	stop = startWorker(t, m, "w", 1)
	defer stop()
	j := waitStatus(t, m, submit(t, m, `{"n":2,"units":2}`).ID, StatusDone)
	waitFor(t, "the expired job forgotten", func() bool { return rdb.ZScore(ctx, finishedKey, j.ID).Err() == redis.Nil })
	if n, _ := rdb.Exists(ctx, jobKey(j.ID), nodesKey(j.ID), resultsKey(j.ID)).Result(); n != 0 {
		t.Errorf("%d keys of the expired job left", n)
	}
	sizes, _ := rdb.HGetAll(ctx, finishedKey+":bytes").Result()
	total, _ := rdb.Get(ctx, finishedKey+":total").Int64()
	if _, err := m.Get(ctx, kept.ID); err != nil || len(sizes) != 1 || strconv.Itoa(int(total)) != sizes[kept.ID] {
		t.Errorf("the job not expired: %v; sizes %v, total %d", err, sizes, total)
	}
}

// lateHeartbeats is a store whose heartbeats wait until a time (a Redis
// stall): a unit's idle time grows meanwhile.
type lateHeartbeats struct {
	Store
	until time.Time
}

func (l *lateHeartbeats) heartbeat(ctx context.Context, d *delivery, consumer string, nodes int64) (bool, Status, error) {
	if wait := time.Until(l.until); wait > 0 {
		time.Sleep(wait)
	}
	return l.Store.heartbeat(ctx, d, consumer, nodes)
}

// TestWorkerKeepsItsOwnLateUnits: the worker's second look for a dead
// namesake's units (four heartbeats after its start) leaves its own
// running units alone, however late their heartbeats (a re-check: a unit
// whose heartbeats stalled 400 ms was handed back and its job failed with
// MaxDeliveries 1).
func TestWorkerKeepsItsOwnLateUnits(t *testing.T) {
	srv := redistest.Start(t)
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	t.Cleanup(func() { _ = rdb.Close() })
	opts := fastOptions(t)
	opts.MaxDeliveries = 1
	k := newSquares()
	gate := k.gated(make(chan struct{}))
	store := &lateHeartbeats{Store: NewRedisStore(rdb), until: time.Now().Add(400 * time.Millisecond)}
	m, met := newManager(t, store, k, opts)
	j := submit(t, m, `{"n":10,"units":1}`)
	startWorker(t, m, "late", 1)
	waitFor(t, "the unit running", func() bool { return len(k.get(k.started)) == 1 })
	// Another worker, which would take a unit handed back at once.
	other, _ := newManager(t, NewRedisStore(rdb), k, opts)
	startWorker(t, other, "other", 1)
	time.Sleep(600 * time.Millisecond) // past the second look, and the stall
	close(gate)
	if j = waitStatus(t, m, j.ID, StatusDone); j.Error != "" {
		t.Errorf("job: %+v", j)
	}
	if runs := k.get(k.started); runs[0] != 1 {
		t.Errorf("the unit ran %d times", runs[0])
	}
	if got := value(met.Reclaimed.WithLabelValues("toy.squares")); got != 0 {
		t.Errorf("reclaimed = %v, want 0", got)
	}
}

// TestRedisStoreFullReadsAndAcks: a Redis past its maxmemory (noeviction)
// refuses writes but still answers a job's read and takes a unit's
// acknowledgement: both were transactions, which Redis then refuses
// whole (an audit's full Redis answered GET /v1/jobs/{id} with 503, and
// left acknowledged units pending, to be run again).
func TestRedisStoreFullReadsAndAcks(t *testing.T) {
	srv := redistest.Start(t)
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	t.Cleanup(func() { _ = rdb.Close() })
	ctx := context.Background()
	store := NewRedisStore(rdb)
	s := state{ID: newID(), Type: "toy.squares", Status: StatusQueued, Created: time.Now().UTC().Truncate(time.Millisecond),
		Request: json.RawMessage(`{}`), Total: 1}
	if err := store.create(ctx, s, []json.RawMessage{json.RawMessage(`{"from":1,"to":2}`)}, limits{}); err != nil {
		t.Fatal(err)
	}
	d, err := store.claim(ctx, "c", 0, time.Second, false)
	if err != nil || d == nil {
		t.Fatalf("claim: %+v %v", d, err)
	}
	if err := rdb.ConfigSet(ctx, "maxmemory-policy", "noeviction").Err(); err != nil {
		t.Fatal(err)
	}
	if err := rdb.ConfigSet(ctx, "maxmemory", "1").Err(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rdb.ConfigSet(ctx, "maxmemory", "0").Err() })
	if err := rdb.Set(ctx, "x", "y", 0).Err(); err == nil || !strings.Contains(err.Error(), "OOM") {
		t.Fatalf("a write to the full Redis: %v", err)
	}
	if st, ok, err := store.load(ctx, s.ID); err != nil || !ok || st.Status != StatusQueued {
		t.Errorf("the job read from the full Redis: %+v %v %v", st, ok, err)
	}
	if err := store.ack(ctx, d); err != nil {
		t.Fatalf("ack on the full Redis: %v", err)
	}
	pending, _ := rdb.XPending(ctx, streamKey, groupName).Result()
	if n, _ := rdb.XLen(ctx, streamKey).Result(); n != 0 || pending.Count != 0 {
		t.Errorf("after the ack: %d entries, %d pending", n, pending.Count)
	}
}

// lostTxReply is a go-redis hook that lets Redis run a job's creation
// (createScript) and then reports it failed, as when Redis answers after
// the client's timeout (a slow or stalled Redis): the client cannot tell
// whether the job was written. after, if set, runs before the failure is
// reported (a worker, meanwhile).
type lostTxReply struct{ after func() }

func (lostTxReply) DialHook(next redis.DialHook) redis.DialHook { return next }
func (h lostTxReply) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if err := next(ctx, cmd); err != nil || !isCreate(cmd) {
			return err
		}
		if h.after != nil {
			h.after()
		}
		err := fmt.Errorf("read tcp: i/o timeout: %w", context.DeadlineExceeded)
		cmd.SetErr(err)
		return err
	}
}
func (lostTxReply) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

// isCreate tells whether cmd runs createScript.
func isCreate(cmd redis.Cmder) bool {
	args := cmd.Args()
	if len(args) < 2 {
		return false
	}
	switch cmd.Name() {
	case "evalsha":
		return args[1] == createScript.Hash()
	case "eval":
		return strings.Contains(fmt.Sprint(args[1]), "redis.call('EXISTS', KEYS[6])")
	}
	return false
}

// TestRedisStoreCreateCutOffLeavesNothing: a submission whose transaction
// Redis ran but whose answer came too late is answered 503 and undone;
// nothing of it may stay behind: no job, no place in the caps, and no
// units hash (a key without expiry, never evicted under volatile-lru, that
// nothing else deletes) nor units in the stream (workers would drop them
// as the units of a job "gone from the store: a Redis restart without
// persistence?").
func TestRedisStoreCreateCutOffLeavesNothing(t *testing.T) {
	for _, lim := range []limits{{all: 10, client: 10}, {}} {
		t.Run(fmt.Sprintf("caps %d %d", lim.all, lim.client), func(t *testing.T) { testCreateCutOff(t, lim) })
	}
}

// newWindowedStore is a store of a window of 2 units on a private
// redis-server, its group made, with its client.
func newWindowedStore(t *testing.T) (*redis.Client, *RedisStore) {
	t.Helper()
	srv := redistest.Start(t)
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr(), MaxRetries: -1})
	t.Cleanup(func() { _ = rdb.Close() })
	store := NewRedisStore(rdb).Window(2)
	if err := store.ensureGroup(context.Background()); err != nil {
		t.Fatal(err)
	}
	return rdb, store
}

func testCreateCutOff(t *testing.T, lim limits) {
	rdb, store := newWindowedStore(t)
	ctx := context.Background()
	rdb.AddHook(lostTxReply{})
	units := make([]json.RawMessage, 5)
	for i := range units {
		units[i] = json.RawMessage(fmt.Sprintf(`{"from":%d,"to":%d}`, i, i+1))
	}
	s := state{ID: newID(), Type: "toy.squares", Status: StatusQueued, Created: time.Now().UTC().Truncate(time.Millisecond),
		Request: json.RawMessage(`{}`), Total: len(units), Client: "ip:192.0.2.1"}
	if err := store.create(ctx, s, units, lim); err == nil {
		t.Fatal("create: no error, though the transaction's answer was lost")
	}
	// The submission is undone in the background: wait for its hash.
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if n, _ := rdb.Exists(ctx, unitsKey(s.ID)).Result(); n == 0 {
			break
		}
	}
	keys, err := rdb.Keys(ctx, keyPrefix+"*").Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		switch k {
		case streamKey:
			if n, _ := rdb.XLen(ctx, k).Result(); n != 0 {
				t.Errorf("%d units of the job undone left in the stream", n)
			}
		case activeKey, clientKey(s.Client):
			if n, _ := rdb.SCard(ctx, k).Result(); n != 0 {
				t.Errorf("%s: %d ids left", k, n)
			}
		case undoneKey(s.ID):
			// The job's mark, should its transaction come later: it
			// expires.
			if ttl, _ := rdb.PTTL(ctx, k).Result(); ttl <= 0 || ttl > undoneTTL {
				t.Errorf("the undone mark's ttl %v", ttl)
			}
		default:
			ttl, _ := rdb.PTTL(ctx, k).Result()
			t.Errorf("key %s left behind (ttl %v)", k, ttl)
		}
	}
}

// createEmptyJob writes a queued job of n units of no payload ({}) to
// store, with no caps, and returns it.
func createEmptyJob(tb testing.TB, store *RedisStore, n int) state {
	tb.Helper()
	units := make([]json.RawMessage, n)
	for i := range units {
		units[i] = json.RawMessage(`{}`)
	}
	s := state{ID: newID(), Type: "toy.squares", Status: StatusQueued, Created: time.Now().UTC(), Request: json.RawMessage(`{}`), Total: n}
	if err := store.create(context.Background(), s, units, limits{}); err != nil {
		tb.Fatal(err)
	}
	return s
}

// paddedResult is unit i's result, padded to about size bytes.
func paddedResult(i, size int) json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"unit":%d,"pad":"%s"}`, i, strings.Repeat("x", size)))
}

// replyBytes is a go-redis hook that adds up the size of every command
// and its reply as go-redis prints them.
type replyBytes struct{ n *atomic.Int64 }

func (h replyBytes) DialHook(next redis.DialHook) redis.DialHook { return next }
func (h replyBytes) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		h.n.Add(int64(len(cmd.String())))
		return err
	}
}
func (h replyBytes) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

// TestRedisCompleteFetchesOnlyNew: a unit's completion brings back the
// results the process has not read yet, not every result so far (a job of
// n units moved n²/2 results through Redis, a script of 11-34 ms a unit
// near the end of a 900-unit job on a loaded host: an audit), and still
// the results another process wrote meanwhile.
func TestRedisCompleteFetchesOnlyNew(t *testing.T) {
	srv := redistest.Start(t)
	var sent atomic.Int64
	stores := make([]*RedisStore, 2)
	for i := range stores {
		rdb := redis.NewClient(&redis.Options{Addr: srv.Addr(), MaxRetries: -1})
		t.Cleanup(func() { _ = rdb.Close() })
		if i == 0 {
			rdb.AddHook(replyBytes{&sent})
		}
		stores[i] = NewRedisStore(rdb)
	}
	ctx := context.Background()
	const n, size = 60, 1000
	s := createEmptyJob(t, stores[0], n)
	result := func(i int) json.RawMessage { return paddedResult(i, size) }
	sent.Store(0)
	for i := range n {
		st := stores[i%3/2] // units 2, 5, 8...: the other process's
		status, results, err := st.complete(ctx, &delivery{JobID: s.ID, Unit: i}, result(i), 1)
		if err != nil || status != StatusQueued || len(results) != i+1 {
			t.Fatalf("unit %d: %v %s, %d results", i, err, status, len(results))
		}
		for j := range i + 1 {
			if string(results[j]) != string(result(j)) {
				t.Fatalf("unit %d: result %d is %.40s", i, j, results[j])
			}
		}
	}
	// Each result once to the process that wrote it and once read (plus
	// the keys); every result so far at each unit would be n/2 times that.
	if got, most := sent.Load(), int64(3*n*size); got > most {
		t.Errorf("%d bytes of commands and replies for %d units of %d bytes: more than %d", got, n, size, most)
	}
	if jobs, bytes := stores[0].seen.size(); jobs != 1 || bytes < n*size {
		t.Errorf("kept: %d jobs, %d bytes", jobs, bytes)
	}
	if _, _, err := stores[0].finish(ctx, s.ID, ending{Status: StatusDone, At: time.Now(), TTL: time.Hour}); err != nil {
		t.Fatal(err)
	}
	if jobs, _ := stores[0].seen.size(); jobs != 0 {
		t.Errorf("%d jobs' results kept after the job's end", jobs)
	}
	if status, _, err := stores[0].complete(ctx, &delivery{JobID: s.ID, Unit: 0}, nil, 0); err != nil || status != StatusDone {
		t.Fatalf("after the end: %v %s", err, status)
	}
	if jobs, _ := stores[0].seen.size(); jobs != 0 {
		t.Errorf("%d jobs' results kept after their end", jobs)
	}
}

// BenchmarkRedisCompleteLate: a unit's completion late in a job of 2,000
// units whose 1,999 other results (300 bytes each) are in (a private
// redis-server, skipped without one): the completion script and what it
// brings back; one process, which has read the others before.
func BenchmarkRedisCompleteLate(b *testing.B) {
	srv := redistest.Start(b)
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr(), MaxRetries: -1})
	defer rdb.Close()
	ctx := context.Background()
	store := NewRedisStore(rdb)
	const n = 2000
	s := createEmptyJob(b, store, n)
	fields := make([]any, 0, 2*(n-1))
	for i := range n - 1 {
		fields = append(fields, i, []byte(paddedResult(i, 280)))
	}
	if err := rdb.HSet(ctx, resultsKey(s.ID), fields...).Err(); err != nil {
		b.Fatal(err)
	}
	d := &delivery{JobID: s.ID, Unit: n - 1}
	result := json.RawMessage(`{"unit":1999}`)
	for b.Loop() {
		if _, results, err := store.complete(ctx, d, result, 1); err != nil || len(results) != n {
			b.Fatalf("%v, %d results", err, len(results))
		}
	}
	// Redis's own time a completion (its script's; HMGET's, if any, is
	// once): what every other client of Redis waits for.
	var usec, calls float64
	info, _ := rdb.Info(ctx, "commandstats").Result()
	for _, l := range strings.Split(info, "\n") {
		if name, stats, ok := strings.Cut(strings.TrimSpace(l), ":"); ok && (name == "cmdstat_evalsha" || name == "cmdstat_hmget") {
			for _, f := range strings.Split(stats, ",") {
				k, v, _ := strings.Cut(f, "=")
				x, _ := strconv.ParseFloat(v, 64)
				switch {
				case k == "usec":
					usec += x
				case k == "calls" && name == "cmdstat_evalsha":
					calls += x
				}
			}
		}
	}
	b.ReportMetric(usec/max(calls, 1), "redis-µs/op")
}

// BenchmarkRedisCreateBig: the write of a job of 12,000 units of 100 bytes
// (the biggest plans: BenchmarkPlanBigJob's 11,830) to a private
// redis-server, 8 of them to the stream, the rest to the units hash.
func BenchmarkRedisCreateBig(b *testing.B) {
	srv := redistest.Start(b)
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr(), MaxRetries: -1})
	defer rdb.Close()
	ctx := context.Background()
	store := NewRedisStore(rdb)
	units := make([]json.RawMessage, 12000)
	for i := range units {
		units[i] = json.RawMessage(fmt.Sprintf(`{"unit":%d,"pad":"%s"}`, i, strings.Repeat("x", 80)))
	}
	for b.Loop() {
		s := state{ID: newID(), Type: "toy.squares", Status: StatusQueued, Created: time.Now().UTC(), Request: json.RawMessage(`{}`), Total: len(units)}
		if err := store.create(ctx, s, units, limits{}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestRedisReconcileKeepsEarlierFinished: a job an earlier version
// finished (a Redis TTL on its keys, no "expires": before 3c41f4f) is in
// the finished set too, and stays until its TTL, as a job's end leaves
// it: an idle worker's reconcile read its missing expiry as past and
// deleted the job moments after its end (its client's poll got 404).
func TestRedisReconcileKeepsEarlierFinished(t *testing.T) {
	srv := redistest.Start(t)
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	t.Cleanup(func() { _ = rdb.Close() })
	ctx := context.Background()
	store := NewRedisStore(rdb)
	m, _ := newManager(t, store, newSquares(), fastOptions(t))
	stop := startWorker(t, m, "w", 1)
	j := waitStatus(t, m, submit(t, m, `{"n":2,"units":1}`).ID, StatusDone)
	stop()
	// As the earlier finish script left it.
	if err := rdb.HDel(ctx, jobKey(j.ID), "expires").Err(); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{jobKey(j.ID), nodesKey(j.ID)} {
		if err := rdb.PExpire(ctx, k, time.Hour).Err(); err != nil {
			t.Fatal(err)
		}
	}
	if err := store.reconcile(ctx, ""); err != nil {
		t.Fatal(err)
	}
	if got, err := m.Get(ctx, j.ID); err != nil || got.Status != StatusDone {
		t.Fatalf("the job an earlier version finished: %+v, %v", got, err)
	}
	if err := rdb.ZScore(ctx, finishedKey, j.ID).Err(); err != nil {
		t.Errorf("the job left the finished set: %v", err)
	}
	// Gone (its TTL, or evicted): forgotten, its size with it.
	if err := rdb.Del(ctx, jobKey(j.ID)).Err(); err != nil {
		t.Fatal(err)
	}
	if err := store.reconcile(ctx, ""); err != nil {
		t.Fatal(err)
	}
	if err := rdb.ZScore(ctx, finishedKey, j.ID).Err(); err != redis.Nil {
		t.Errorf("the gone job is still in the finished set: %v", err)
	}
	if n, _ := rdb.HLen(ctx, finishedKey+":bytes").Result(); n != 0 {
		t.Errorf("%d sizes left", n)
	}
}
