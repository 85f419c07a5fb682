package jobs

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// Redis key layout: see the package documentation.
const (
	keyPrefix = "gs:jobs:"
	streamKey = keyPrefix + "stream"
	groupName = "workers"
	// handBackIdle is the idle time a handed-back entry gets, so that the
	// next XAUTOCLAIM of any worker takes it whatever its min-idle time.
	handBackIdle = 365 * 24 * time.Hour
	// claimScans bounds the XAUTOCLAIM calls of one claim (each looks at up
	// to 10 pending entries), so that a long pending list cannot stall
	// Redis.
	claimScans = 100
	// activeKey is the set of unfinished jobs' ids.
	activeKey = keyPrefix + "active"
	// finishedKey is the sorted set of finished jobs' ids by their ends
	// (":bytes", a hash of their sizes; ":total", the sum).
	finishedKey = keyPrefix + "finished"
	// evictBatch bounds the finished jobs one job's end forgets.
	evictBatch = 100
	// unitWindow is how many units of a job wait in the stream at once:
	// the others wait in the job's units hash, and each finished unit
	// queues the next, at the stream's end. Jobs so take turns: a job of
	// ten thousand units holds back a job submitted after it by at most
	// this many of its units.
	unitWindow = 8
)

func jobKey(id string) string     { return keyPrefix + id }
func resultsKey(id string) string { return keyPrefix + id + ":results" }
func nodesKey(id string) string   { return keyPrefix + id + ":nodes" }
func unitsKey(id string) string   { return keyPrefix + id + ":units" }

// undoneKey marks a job whose submission was undone (undoScript), for
// undoneTTL: should its write run after the undo (a stalled Redis runs
// what its connections sent in any order), it writes nothing
// (createScript), and a job written so by an earlier version (a
// MULTI/EXEC) is deleted by its first unit begun (beginScript).
func undoneKey(id string) string { return keyPrefix + id + ":undone" }

// undoneTTL is how long an undone job's mark lives: past the write it
// refuses, and until a unit of the job is begun should an earlier version
// write it after all, which may wait behind
// every other job's units (a stalled Redis comes with a backlog: 800
// units of 30 s on 16 slots are 25 minutes; a review). A week, the
// finished jobs' TTL; a mark is a few bytes, made only for the
// submissions cut off.
const undoneTTL = 7 * 24 * time.Hour

// passedKey is the hash of when a worker first handed each of the job's
// units back for being of a later format than it reads (passedScript),
// for passedTTL from the latest such hand-back.
func passedKey(id string) string { return keyPrefix + id + ":passed" }

// passedTTL is how long a job's passedKey lives after its last write: past
// any grace (ReclaimAfter), and a few bytes, written only during a rolling
// upgrade.
const passedTTL = 24 * time.Hour

// clientKey is the set of a client's unfinished jobs' ids.
func clientKey(client string) string { return activeKey + ":" + client }

// RedisStore keeps jobs in Redis (see the package documentation for the
// layout), so that workers on many machines share them. It needs Redis 7
// or newer (XAUTOCLAIM that drops deleted entries) and one Redis, not a
// cluster: the scripts touch a job's keys and the stream together.
//
// The client's timeouts apply to every call (go-redis lets the blocking
// XREADGROUP wait Options.Poll beyond them). Give the store a client of its
// own rather than the cache's, whose 20ms timeout suits single GETs, not
// the submission of a job with thousands of units in one transaction.
type RedisStore struct {
	client   redis.UniversalClient
	hasGroup atomic.Bool
	window   int // unitWindow; tests change it
	// lastReconcile: unix ns of the last reconcile of an idle claim.
	lastReconcile atomic.Int64
	// admitHold is how long an admitted job's placeholder lives without
	// the job written (admitScript); tests shorten it.
	admitHold time.Duration
	// maxFinished and maxFinishedBytes cap the finished jobs kept
	// (MaxFinishedJobs, MaxFinishedBytes: requests and answers).
	maxFinished      int
	maxFinishedBytes int64
	// seen keeps the results this process read of the jobs it combines,
	// so that a completion fetches only those it lacks.
	seen *seenResults
}

// admitHold is RedisStore.admitHold's default: far longer than a job's
// write takes after its admission, short enough that a submission cut
// off between the two (Redis stalled, the request answered 503) holds
// its caps' places only that long.
const admitHold = time.Minute

// NewRedisStore returns a store over client. It does not talk to Redis
// until used.
func NewRedisStore(client redis.UniversalClient) *RedisStore {
	return &RedisStore{client: client, window: unitWindow, admitHold: admitHold, maxFinished: MaxFinishedJobs, maxFinishedBytes: MaxFinishedBytes,
		seen: newSeenResults(seenBytes)}
}

// Window sets how many units of a job wait in the stream at once (default
// 8, at least 1): more lets one job use more worker slots at once, fewer
// lets a job submitted later start sooner. It returns r.
func (r *RedisStore) Window(n int) *RedisStore {
	r.window = max(n, 1)
	return r
}

// ensureGroup creates the stream and its consumer group once; again after
// a NOGROUP error (Redis lost its data).
func (r *RedisStore) ensureGroup(ctx context.Context) error {
	if r.hasGroup.Load() {
		return nil
	}
	err := r.client.XGroupCreateMkStream(ctx, streamKey, groupName, "0").Err()
	if err != nil && !strings.HasPrefix(err.Error(), "BUSYGROUP") {
		return err
	}
	r.hasGroup.Store(true)
	return nil
}

func isNoGroup(err error) bool { return err != nil && strings.HasPrefix(err.Error(), "NOGROUP") }

func (r *RedisStore) create(ctx context.Context, s state, units []json.RawMessage, lim limits) error {
	if err := r.ensureGroup(ctx); err != nil {
		return err
	}
	w := min(len(units), r.window)
	admitted := lim.all > 0 || lim.client > 0
	if admitted {
		// Checked and counted in one script: concurrent submissions each
		// see the others, so the caps hold.
		full, err := r.admit(ctx, s, lim)
		if err == nil && full != nil {
			// The sets may hold ids of jobs that ended without leaving
			// them (an older server's finish): tidy, then try once more.
			if err = r.reconcile(ctx, s.Client); err == nil {
				full, err = r.admit(ctx, s, lim)
			}
		}
		if err != nil {
			return err
		}
		if full != nil {
			return full
		}
	}
	args := make([]any, 0, 9+w+2*(len(units)-w))
	args = append(args, s.ID, s.Type, string(s.Status), s.Created.UnixMilli(), []byte(s.Request), s.Total, w, s.Client, s.Format)
	for _, u := range units[:w] {
		args = append(args, []byte(u))
	}
	for i, u := range units[w:] {
		args = append(args, w+i, []byte(u))
	}
	written, err := createScript.Run(ctx, r.client,
		[]string{jobKey(s.ID), unitsKey(s.ID), streamKey, activeKey, clientKey(s.Client), undoneKey(s.ID)}, args...).Int()
	if err == nil && written == 0 {
		// Undone before it ran: only a write of a submission already
		// answered 503 comes after its undoing (its places in the caps
		// are undone again below).
		err = errors.New("jobs: the submission was undone before it was written")
	}
	if err != nil {
		// The script may have run all the same (Redis answered after
		// the timeout, or the answer was lost): the client is told 503
		// and submits again, so nothing of this job may stay, neither in
		// the caps (admitted) nor as a job nobody knows of, nor its units
		// hash (no expiry: never evicted, never deleted) nor its units in
		// the stream (workers would drop them as a job "gone from the
		// store"). In the background, so that the answer does not wait
		// for a Redis that did not answer; a script that reaches Redis
		// runs, answered or not.
		go func() {
			uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), undoTimeout)
			defer cancel()
			_ = r.undo(uctx, s, w)
		}()
	}
	return err
}

// undo undoes the submission of s, with w units in the stream
// (undoScript).
func (r *RedisStore) undo(ctx context.Context, s state, w int) error {
	return undoScript.Run(ctx, r.client,
		[]string{jobKey(s.ID), unitsKey(s.ID), activeKey, clientKey(s.Client), streamKey, resultsKey(s.ID), nodesKey(s.ID), undoneKey(s.ID)},
		s.ID, groupName, w, undoScan, undoneTTL.Milliseconds()).Err()
}

// createScript writes job ARGV[1] (type, status, created, request, total,
// queued, client, format: ARGV[2..9]) in its hash KEYS[1], not to expire;
// its first units, as many as queued (their payloads after), to the
// stream KEYS[3]; the
// others (index, payload pairs after those) to its units hash KEYS[2];
// and its id to the sets of unfinished jobs KEYS[4] and, with a client,
// KEYS[5]. It writes nothing, and returns 0, when the job was undone
// (KEYS[6]): a stalled Redis runs what its connections sent in any order,
// and the submission's undoing (undoScript), sent after, may come first.
// Else it returns 1, and writes nothing again when the job was written
// (its hash has a total; an admission's mark has none): go-redis sends a
// command again when its connection broke before the answer, though
// Redis may have run it, and a second write put the job's first units in
// the stream twice and set a running job queued again.
// (A MULTI/EXEC could not look at the mark.)
var createScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[6]) == 1 then return 0 end
if redis.call('HEXISTS', KEYS[1], 'total') == 1 then return 1 end
redis.call('HSET', KEYS[1], 'id', ARGV[1], 'type', ARGV[2], 'status', ARGV[3], 'created', ARGV[4], 'request', ARGV[5],
  'total', ARGV[6], 'queued', ARGV[7], 'client', ARGV[8], 'format', ARGV[9])
redis.call('PERSIST', KEYS[1])
local w = tonumber(ARGV[7])
for i = 1, w do
  redis.call('XADD', KEYS[3], '*', 'job', ARGV[1], 'unit', i - 1, 'payload', ARGV[9 + i])
end
local i = 10 + w
while i <= #ARGV do
  local j = math.min(i + 1999, #ARGV)
  redis.call('HSET', KEYS[2], unpack(ARGV, i, j))
  i = j + 1
end
redis.call('SADD', KEYS[4], ARGV[1])
if ARGV[8] ~= '' then redis.call('SADD', KEYS[5], ARGV[1]) end
return 1
`)

// undoTimeout bounds the undoing of a submission cut off.
const undoTimeout = 5 * time.Second

// undoScan is how many of the stream's latest entries undoScript looks
// through for a job's units: they were added moments before, at its end.
const undoScan = 1000

// undoScript undoes a submission cut off (RedisStore.create): it deletes
// the job's hash (KEYS[1]) and units hash (KEYS[2]), and its results and
// nodes hashes (KEYS[6], KEYS[7]: a worker may have finished a unit
// meanwhile; no expiry either), takes its id ARGV[1]
// out of the sets of unfinished jobs (KEYS[3], KEYS[4]) and acknowledges
// and deletes its units (at most ARGV[3]) among the latest ARGV[4] entries
// of the stream KEYS[5] (group ARGV[2]); and marks the job undone (KEYS[8],
// for ARGV[5] ms), should its write come after. It returns the
// units deleted.
var undoScript = redis.NewScript(`
redis.call('SET', KEYS[8], '1', 'PX', tonumber(ARGV[5]))
redis.call('DEL', KEYS[1], KEYS[2], KEYS[6], KEYS[7])
redis.call('SREM', KEYS[3], ARGV[1])
redis.call('SREM', KEYS[4], ARGV[1])
local want, n = tonumber(ARGV[3]), 0
if want == 0 or redis.call('EXISTS', KEYS[5]) == 0 then return 0 end
for _, e in ipairs(redis.call('XREVRANGE', KEYS[5], '+', '-', 'COUNT', tonumber(ARGV[4]))) do
  local f = e[2]
  for i = 1, #f - 1, 2 do
    if f[i] == 'job' then
      if f[i + 1] == ARGV[1] then
        redis.pcall('XACK', KEYS[5], ARGV[2], e[1])
        redis.call('XDEL', KEYS[5], e[1])
        n = n + 1
      end
      break
    end
  end
  if n >= want then break end
end
return n
`)

// admitScript adds job ARGV[1] to the set of unfinished jobs (KEYS[1]) and
// to its client's (KEYS[2]) when the first holds fewer than ARGV[2] and
// the second fewer than ARGV[3] (0: no cap), and marks its hash (KEYS[3])
// queued, so that a reconcile before the job is written keeps it: for
// ARGV[4] ms, and for good once the job is written (a submission cut off
// in between leaves a mark that expires, and the next reconcile of each
// set drops the id: the caps' places are not held for ever). It
// returns {0, 0} when it did, else {1, count} for a full KEYS[1] or
// {2, count} for KEYS[2].
var admitScript = redis.NewScript(`
local n = redis.call('SCARD', KEYS[1])
if tonumber(ARGV[2]) > 0 and n >= tonumber(ARGV[2]) then return {1, n} end
if tonumber(ARGV[3]) > 0 then
  local c = redis.call('SCARD', KEYS[2])
  if c >= tonumber(ARGV[3]) then return {2, c} end
  redis.call('SADD', KEYS[2], ARGV[1])
end
redis.call('SADD', KEYS[1], ARGV[1])
redis.call('HSET', KEYS[3], 'status', 'queued')
redis.call('PEXPIRE', KEYS[3], ARGV[4])
return {0, 0}
`)

// admit runs admitScript: nil when the job is in, else which cap is full.
func (r *RedisStore) admit(ctx context.Context, s state, lim limits) (*tooManyError, error) {
	v, err := admitScript.Run(ctx, r.client, []string{activeKey, clientKey(s.Client), jobKey(s.ID)}, s.ID, lim.all, lim.client, r.admitHold.Milliseconds()).Int64Slice()
	if err != nil {
		return nil, fmt.Errorf("jobs: admit: %w", err)
	}
	if len(v) != 2 {
		return nil, fmt.Errorf("jobs: admit: the script returned %d values", len(v))
	}
	if v[0] == 0 {
		return nil, nil
	}
	return &tooManyError{active: int(v[1]), client: v[0] == 2}, nil
}

// reconcileScript keeps the set of unfinished jobs and the jobs' windows
// true whoever else wrote: an id whose job is gone or final leaves the
// set (and its units hash goes); a job with fewer than ARGV[1] units in
// flight (queued, not finished) gets the next ones from its units hash
// (a server of an earlier version finished its units without queuing
// more). At most ARGV[2] jobs a call, from a random place in the set;
// then the same many of client set KEYS[4] lose the ids of jobs gone or
// final. An admission's mark without expiry (admitScript before marks
// expired) counts as gone, and goes. Then those of the ARGV[4] finished
// jobs that ended first (KEYS[5]) past their expiry at ARGV[3] (unix ms)
// are forgotten, and those whose hash is gone: a job's end forgets them
// too, but without a later end they stayed for ever. (Not only up to the
// first unexpired: the jobs are in the order of their ends, and a job may
// have a TTL of its own.) A job an earlier version ended has no expiry
// but a Redis TTL on its keys: it stays until then.
var reconcileScript = redis.NewScript(refillLua + forgetLua + `
local prefix, stream, window = KEYS[1], KEYS[2], tonumber(ARGV[1])
local queued = 0
-- gone: no job, a final one, or an admission's mark that will never be
-- written (one made before marks expired: no type, no expiry).
local function gone(job)
  local st = redis.call('HGET', job, 'status')
  if not st or (st ~= 'queued' and st ~= 'running') then return true end
  if redis.call('HEXISTS', job, 'type') == 0 and redis.call('PTTL', job) == -1 then
    redis.call('DEL', job)
    return true
  end
  return false
end
for _, id in ipairs(redis.call('SRANDMEMBER', KEYS[4], tonumber(ARGV[2]))) do
  if gone(prefix .. id) then
    redis.call('SREM', KEYS[4], id)
  end
end
for _, id in ipairs(redis.call('SRANDMEMBER', KEYS[3], tonumber(ARGV[2]))) do
  local job = prefix .. id
  if gone(job) then
    redis.call('SREM', KEYS[3], id)
    redis.call('DEL', job .. ':units')
  else
    queued = queued + refill(job, id, stream, window)
  end
end
for _, id in ipairs(redis.call('ZRANGE', KEYS[5], 0, tonumber(ARGV[4]) - 1)) do
  local exp = redis.call('HGET', prefix .. id, 'expires')
  -- No expiry: gone, or ended by an earlier version (a Redis TTL on its
  -- keys, no "expires"), which stays until its TTL.
  if exp and tonumber(exp) <= tonumber(ARGV[3]) or not exp and redis.call('EXISTS', prefix .. id) == 0 then
    forgetJob(prefix, KEYS[5], id)
  end
end
return queued
`)

// reconcileBatch bounds the jobs one reconcile looks at; expireBatch the
// finished jobs it looks at for their expiry (a reconcile a second at
// most, for each process with an idle worker).
const (
	reconcileBatch = 200
	expireBatch    = 20
)

// reconcile runs reconcileScript (see there), on client's set too (""
// names a set never written: none).
func (r *RedisStore) reconcile(ctx context.Context, client string) error {
	if err := r.ensureGroup(ctx); err != nil {
		return err
	}
	return reconcileScript.Run(ctx, r.client, []string{keyPrefix, streamKey, activeKey, clientKey(client), finishedKey}, r.window, reconcileBatch, time.Now().UnixMilli(), expireBatch).Err()
}

func (r *RedisStore) load(ctx context.Context, id string) (state, bool, error) {
	var h *redis.MapStringStringCmd
	var done *redis.IntCmd
	var nodes *redis.StringSliceCmd
	// A plain pipeline, not a transaction (Redis refuses every MULTI once
	// past maxmemory: an audit's full Redis failed even GET /v1/jobs/{id}),
	// in an order that reads no mix of two states: the units' counts
	// first, then the job, whose end (finishScript) moves them into it at
	// once. A job that ended between the reads is read as ended.
	_, err := r.client.Pipelined(ctx, func(p redis.Pipeliner) error {
		nodes = p.HVals(ctx, nodesKey(id))
		done = p.HLen(ctx, resultsKey(id))
		h = p.HGetAll(ctx, jobKey(id))
		return nil
	})
	if err != nil {
		return state{}, false, err
	}
	f := h.Val()
	if f["type"] == "" {
		// No job, or only its admission's mark (admitScript): a
		// submission not written (yet, or ever).
		return state{}, false, nil
	}
	if exp, ok := f["expires"]; ok && !time.Now().Before(msTime(exp)) {
		return state{}, false, nil // expired: the next job's end forgets it
	}
	s := state{
		ID: id, Type: f["type"], Status: Status(f["status"]),
		Created: msTime(f["created"]), Started: msTime(f["started"]), Finished: msTime(f["finished"]),
		Total: atoi(f["total"]), Done: int(done.Val()), Error: f["error"],
	}
	if n, ok := f["done"]; ok {
		s.Done = atoi(n) // finished: the units' results are gone
	}
	if v, ok := f["request"]; ok {
		s.Request = json.RawMessage(v)
	}
	if v, ok := f["result"]; ok && v != "" {
		s.Result = json.RawMessage(v)
	}
	if n, ok := f["nodes"]; ok {
		s.Nodes, _ = strconv.ParseInt(n, 10, 64) // finished: the units' added up
		return s, true, nil
	}
	for _, n := range nodes.Val() {
		v, _ := strconv.ParseInt(n, 10, 64)
		s.Nodes += v
	}
	return s, true, nil
}

// claimScript takes the first pending entry idle for ARGV[3] ms with
// XAUTOCLAIM, paging through the pending list, and returns it with its
// delivery count (which XAUTOCLAIM just raised).
var claimScript = redis.NewScript(`
local cursor = '0-0'
for i = 1, tonumber(ARGV[4]) do
  local r = redis.call('XAUTOCLAIM', KEYS[1], ARGV[1], ARGV[2], ARGV[3], cursor, 'COUNT', 1)
  local e = r[2][1]
  if e then
    local p = redis.call('XPENDING', KEYS[1], ARGV[1], e[1], e[1], 1)
    return {e[1], e[2], p[1][4]}
  end
  cursor = r[1]
  if cursor == '0-0' then return false end
end
return false
`)

func (r *RedisStore) claim(ctx context.Context, consumer string, minIdle, block time.Duration, express bool) (*delivery, error) {
	// A blocking read cut short by ctx could leave an entry delivered to us
	// but unseen, pending until ReclaimAfter; so the calls outlive ctx and
	// the worker hands back what arrives after it ended.
	ctx = context.WithoutCancel(ctx)
	if err := r.ensureGroup(ctx); err != nil {
		return nil, err
	}
	if !express {
		// An express slot reads only new entries: those handed back (by
		// an express slot, too slow) are for the other slots.
		d, err := r.reclaim(ctx, consumer, minIdle)
		if isNoGroup(err) {
			r.hasGroup.Store(false)
		}
		if err != nil || d != nil {
			return d, err
		}
	}
	res, err := r.client.XReadGroup(ctx, &redis.XReadGroupArgs{
		Group: groupName, Consumer: consumer, Streams: []string{streamKey, ">"}, Count: 1, Block: block,
	}).Result()
	switch {
	case errors.Is(err, redis.Nil):
		// Idle: a job's window may have run dry (see reconcileScript).
		if r.lastReconcile.Load()+int64(time.Second) < time.Now().UnixNano() {
			r.lastReconcile.Store(time.Now().UnixNano())
			if err := r.reconcile(ctx, ""); err != nil {
				return nil, err
			}
		}
		return nil, nil
	case isNoGroup(err):
		r.hasGroup.Store(false)
		return nil, err
	case err != nil:
		return nil, err
	}
	for _, st := range res {
		for _, msg := range st.Messages {
			return parseEntry(msg.ID, msg.Values, 1, false)
		}
	}
	return nil, nil
}

func (r *RedisStore) reclaim(ctx context.Context, consumer string, minIdle time.Duration) (*delivery, error) {
	v, err := claimScript.Run(ctx, r.client, []string{streamKey},
		groupName, consumer, minIdle.Milliseconds(), claimScans).Slice()
	if errors.Is(err, redis.Nil) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if len(v) != 3 {
		return nil, fmt.Errorf("jobs: claim script returned %d values", len(v))
	}
	id, _ := v[0].(string)
	flat, _ := v[1].([]any)
	count, _ := v[2].(int64)
	values := make(map[string]any, len(flat)/2)
	for i := 0; i+1 < len(flat); i += 2 {
		k, _ := flat[i].(string)
		values[k] = flat[i+1]
	}
	return parseEntry(id, values, count, true)
}

func parseEntry(id string, values map[string]any, deliveries int64, reclaimed bool) (*delivery, error) {
	job, _ := values["job"].(string)
	unit, _ := values["unit"].(string)
	payload, _ := values["payload"].(string)
	d := &delivery{EntryID: id, JobID: job, Payload: json.RawMessage(payload), Deliveries: deliveries, Reclaimed: reclaimed}
	var err error
	if d.Unit, err = strconv.Atoi(unit); err != nil || job == "" {
		// Not one of ours; its job is unknown, so the worker skips and acks it.
		d.JobID, d.Unit = "", -1
	}
	return d, nil
}

// beginScript marks a queued job running and returns status, type,
// request, total, whether the unit has a result, whether the job is slow,
// its creation, its unit format ("" before formats were kept) and its
// start (its first unit's begin); nil for no job. A job whose submission
// was undone (KEYS[3]) but which an earlier version wrote after the undo
// is deleted then, hash, units (KEYS[4]), results, nodes (KEYS[5]) and
// places in the sets of unfinished jobs (KEYS[6], and its client's), and
// is no job: its client was told 503.
var beginScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[3]) == 1 then
  local client = redis.call('HGET', KEYS[1], 'client')
  redis.call('DEL', KEYS[1], KEYS[2], KEYS[4], KEYS[5])
  redis.call('SREM', KEYS[6], ARGV[3])
  if client and client ~= '' then redis.call('SREM', KEYS[6] .. ':' .. client, ARGV[3]) end
  return false
end
local h = redis.call('HMGET', KEYS[1], 'status', 'type', 'request', 'total', 'slow', 'created', 'format', 'started')
if not h[1] then return false end
local st = h[1]
if st == 'queued' then
  redis.call('HSET', KEYS[1], 'status', 'running', 'started', ARGV[2])
  st = 'running'
  h[8] = ARGV[2]
end
return {st, h[2], h[3], h[4], redis.call('HEXISTS', KEYS[2], ARGV[1]), h[5] or '', h[6] or '', h[7] or '', h[8] or ''}
`)

func (r *RedisStore) begin(ctx context.Context, d *delivery, now time.Time) (unitStart, error) {
	if d.JobID == "" {
		return unitStart{}, nil
	}
	v, err := beginScript.Run(ctx, r.client, []string{jobKey(d.JobID), resultsKey(d.JobID), undoneKey(d.JobID), unitsKey(d.JobID), nodesKey(d.JobID), activeKey},
		d.Unit, now.UnixMilli(), d.JobID).Slice()
	if errors.Is(err, redis.Nil) {
		return unitStart{}, nil
	}
	if err != nil {
		return unitStart{}, err
	}
	if len(v) != 9 {
		return unitStart{}, fmt.Errorf("jobs: begin script returned %d values", len(v))
	}
	st, _ := v[0].(string)
	typ, _ := v[1].(string)
	req, _ := v[2].(string)
	total, _ := v[3].(string)
	has, _ := v[4].(int64)
	slow, _ := v[5].(string)
	created, _ := v[6].(string)
	format, _ := v[7].(string)
	started, _ := v[8].(string)
	return unitStart{Found: true, Status: Status(st), Type: typ, Request: json.RawMessage(req), Total: atoi(total), HasResult: has == 1, Slow: slow == "1",
		Created: msTime(created), Started: msTime(started), Format: atoi(format)}, nil
}

// heartbeatScript: if ARGV[2] still owns entry ARGV[3], reset its idle time
// and, while the job is unfinished and the unit has no result, record its
// nodes when more than the unit's earlier runs reported (Progress.Nodes).
// Returns {owned, status}.
var heartbeatScript = redis.NewScript(`
local owned = 0
local p = redis.call('XPENDING', KEYS[1], ARGV[1], ARGV[3], ARGV[3], 1)
if #p == 1 and p[1][2] == ARGV[2] then
  owned = 1
  redis.call('XCLAIM', KEYS[1], ARGV[1], ARGV[2], 0, ARGV[3], 'JUSTID')
end
local st = redis.call('HGET', KEYS[2], 'status') or ''
if owned == 1 and (st == 'queued' or st == 'running') and redis.call('HEXISTS', KEYS[3], ARGV[4]) == 0
  and tonumber(ARGV[5]) > tonumber(redis.call('HGET', KEYS[4], ARGV[4]) or '0') then
  redis.call('HSET', KEYS[4], ARGV[4], ARGV[5])
end
return {owned, st}
`)

func (r *RedisStore) heartbeat(ctx context.Context, d *delivery, consumer string, nodes int64) (bool, Status, error) {
	v, err := heartbeatScript.Run(ctx, r.client,
		[]string{streamKey, jobKey(d.JobID), resultsKey(d.JobID), nodesKey(d.JobID)},
		groupName, consumer, d.EntryID, d.Unit, nodes).Slice()
	if isNoGroup(err) {
		// Redis lost the stream (a restart without its data): the unit's
		// entry is gone with it, and so is its claim.
		r.hasGroup.Store(false)
		return false, "", nil
	}
	if err != nil {
		return false, "", err
	}
	if len(v) != 2 {
		return false, "", fmt.Errorf("jobs: heartbeat script returned %d values", len(v))
	}
	owned, _ := v[0].(int64)
	st, _ := v[1].(string)
	return owned == 1, Status(st), nil
}

// forgetLua defines forgetJob(prefix, finished, id), shared by the
// scripts that forget finished jobs: it deletes job id's keys (prefix ..
// id and its results, nodes and passed hashes) and its entries in the
// finished jobs' sorted set (finished) and sizes (finished .. ':bytes',
// its sum finished .. ':total'), and returns that sum after.
const forgetLua = `
local function forgetJob(prefix, finished, id)
  redis.call('DEL', prefix .. id, prefix .. id .. ':results', prefix .. id .. ':nodes', prefix .. id .. ':passed')
  redis.call('ZREM', finished, id)
  local total = redis.call('DECRBY', finished .. ':total', tonumber(redis.call('HGET', finished .. ':bytes', id) or '0'))
  redis.call('HDEL', finished .. ':bytes', id)
  return total
end
`

// refillLua defines refill(job, id, stream, window), shared by the
// scripts that keep a job's window full: while fewer than window units of
// job id (its hash key job) are in flight (queued, no result yet), its
// next unit moves from its units hash to the stream. Jobs created without
// a window (no "queued" field) have every unit in the stream already.
const refillLua = `
local function refill(job, id, stream, window)
  local q = tonumber(redis.call('HGET', job, 'queued') or '-1')
  if q < 0 then return 0 end
  local total = tonumber(redis.call('HGET', job, 'total') or '0')
  local done = redis.call('HLEN', job .. ':results')
  local n = 0
  while q < total and q - done < window do
    local p = redis.call('HGET', job .. ':units', q)
    if p then
      redis.call('XADD', stream, '*', 'job', id, 'unit', q, 'payload', p)
      redis.call('HDEL', job .. ':units', q)
      n = n + 1
    end
    q = q + 1
  end
  redis.call('HSET', job, 'queued', q)
  return n
end
`

// completeScript writes a unit's result and nodes (unless an earlier run
// of the unit reported more: Progress.Nodes) once (ARGV[4] = "1"),
// then refills the job's window (the unit just finished leaves a place),
// and returns, while the job is unfinished, {status, count, the unit's
// result} when the job has ARGV[7] results (the caller's expectation:
// those it has read, and this unit's), else {status, the indexes of the
// units with a result}; {status} after. (It returned every result: a job
// of n units moved n²/2 of them through Redis; complete fetches those it
// has not seen.)
var completeScript = redis.NewScript(refillLua + `
local st = redis.call('HGET', KEYS[1], 'status')
if not st then return {''} end
if st ~= 'queued' and st ~= 'running' then return {st} end
if ARGV[4] == '1' and redis.call('HSETNX', KEYS[2], ARGV[1], ARGV[2]) == 1 then
  if tonumber(ARGV[3]) > tonumber(redis.call('HGET', KEYS[3], ARGV[1]) or '0') then
    redis.call('HSET', KEYS[3], ARGV[1], ARGV[3])
  end
  refill(KEYS[1], ARGV[5], KEYS[4], tonumber(ARGV[6]))
end
local n = redis.call('HLEN', KEYS[2])
if n == tonumber(ARGV[7]) then return {st, n, redis.call('HGET', KEYS[2], ARGV[1])} end
return {st, redis.call('HKEYS', KEYS[2])}
`)

func (r *RedisStore) complete(ctx context.Context, d *delivery, result json.RawMessage, nodes int64) (Status, map[int]json.RawMessage, error) {
	write := "0"
	if result != nil {
		write = "1"
	}
	want, kept := r.seen.expect(d.JobID, d.Unit)
	v, err := completeScript.Run(ctx, r.client,
		[]string{jobKey(d.JobID), resultsKey(d.JobID), nodesKey(d.JobID), streamKey},
		d.Unit, []byte(result), nodes, write, d.JobID, r.window, want).Slice()
	if err != nil {
		return "", nil, err
	}
	st, _ := v[0].(string)
	if len(v) < 2 {
		r.seen.forget(d.JobID) // over, or gone
		return Status(st), nil, nil
	}
	if len(v) == 3 {
		// The results read before and this unit's, no other.
		own, ok := v[2].(string)
		if !ok {
			return "", nil, fmt.Errorf("jobs: unit %d of job %s has no result after its completion", d.Unit, LoggedID(d.JobID))
		}
		return Status(st), r.seen.sameAnd(d.JobID, kept, d.Unit, json.RawMessage(own)), nil
	}
	keys, _ := v[1].([]any)
	indexes := make([]int, len(keys))
	for i, k := range keys {
		s, _ := k.(string)
		idx, err := strconv.Atoi(s)
		if err != nil {
			return "", nil, fmt.Errorf("jobs: result field %q of job %s is not a unit index", s, LoggedID(d.JobID))
		}
		indexes[i] = idx
	}
	fetched := map[int]json.RawMessage{}
	if missing := r.seen.missing(kept, indexes); len(missing) > 0 {
		fields := make([]string, len(missing))
		for i, idx := range missing {
			fields[i] = strconv.Itoa(idx)
		}
		vals, err := r.client.HMGet(ctx, resultsKey(d.JobID), fields...).Result()
		if err != nil {
			return "", nil, err
		}
		for i, val := range vals {
			// nil: deleted since, its job over (its end deletes the
			// results); Combine then sees fewer, and the end is the
			// other worker's.
			if s, ok := val.(string); ok {
				fetched[missing[i]] = json.RawMessage(s)
			}
		}
	}
	return Status(st), r.seen.add(d.JobID, kept, indexes, fetched), nil
}

// finishScript ends a queued or running job: status, finished, result or
// error, and when it expires (ARGV[5] ms after its end). Returns {1,
// status} when it ended it, {0, status} otherwise (an empty status when
// there is no job).
//
// Its keys get no Redis TTL: under the volatile-lru policy the deploy
// files give Redis (only keys with a TTL, the cached answers, may be
// evicted), a TTL made finished jobs evictable too (an audit filled a 4 MB
// Redis with cache entries and a finished job was gone within minutes,
// still counted in the finished set). A job is forgotten by this script
// (past its expiry, or the caps) and read as gone once expired (load).
//
// It lets the units' results go (their number stays, as the job hash's
// "done"), files the job in the finished set with its size, and forgets
// the oldest finished jobs past ARGV[7] jobs or ARGV[8] bytes (the latest
// kept), and those past their TTL, at most evictBatch of them a call.
var finishScript = redis.NewScript(forgetLua + `
local total
local function forget(id)
  total = forgetJob(ARGV[10], KEYS[6], id)
end
local st = redis.call('HGET', KEYS[1], 'status')
local exp = redis.call('HGET', KEYS[1], 'expires')
if st and exp and tonumber(exp) <= tonumber(ARGV[2]) then
  -- Expired (load reads it as gone): forgotten now, and no job.
  forget(ARGV[6])
  st = nil
end
if not st then
  redis.call('SREM', KEYS[5], ARGV[6])
  return {0, ''}
end
if st ~= 'queued' and st ~= 'running' then return {0, st} end
redis.call('HSET', KEYS[1], 'status', ARGV[1], 'finished', ARGV[2], 'done', redis.call('HLEN', KEYS[2]), 'expires', tonumber(ARGV[2]) + tonumber(ARGV[5]))
local client = redis.call('HGET', KEYS[1], 'client')
if client and client ~= '' then redis.call('SREM', KEYS[5] .. ':' .. client, ARGV[6]) end
if ARGV[3] ~= '' then redis.call('HSET', KEYS[1], 'result', ARGV[3]) end
if ARGV[4] ~= '' then redis.call('HSET', KEYS[1], 'error', ARGV[4]) end
-- The units' nodes, added up into the job (their hash, about 50 bytes a
-- unit, outlived the job uncounted by the finished jobs' bytes), and
-- their hash made one field of that sum (which an earlier version's
-- reader adds up as it did: its watchers refused a count gone to 0).
local nodes = 0
for _, v in ipairs(redis.call('HVALS', KEYS[3])) do nodes = nodes + (tonumber(v) or 0) end
nodes = string.format('%.0f', nodes)
redis.call('HSET', KEYS[1], 'nodes', nodes)
redis.call('DEL', KEYS[2], KEYS[3], KEYS[4])
redis.call('HSET', KEYS[3], 'all', nodes)
redis.call('SREM', KEYS[5], ARGV[6])
local size = redis.call('HSTRLEN', KEYS[1], 'request') + #ARGV[3] + #ARGV[4] + 200
redis.call('ZADD', KEYS[6], ARGV[2], ARGV[6])
redis.call('HSET', KEYS[7], ARGV[6], size)
total = redis.call('INCRBY', KEYS[8], size)
local n = 0
local old = redis.call('ZRANGEBYSCORE', KEYS[6], '-inf', tonumber(ARGV[2]) - tonumber(ARGV[5]), 'LIMIT', 0, tonumber(ARGV[9]))
for _, id in ipairs(old) do forget(id); n = n + 1 end
while n < tonumber(ARGV[9]) do
  local count = redis.call('ZCARD', KEYS[6])
  if count <= tonumber(ARGV[7]) and (count <= 1 or total <= tonumber(ARGV[8])) then break end
  forget(redis.call('ZRANGE', KEYS[6], 0, 0)[1])
  n = n + 1
end
return {1, ARGV[1]}
`)

func (r *RedisStore) finish(ctx context.Context, id string, e ending) (bool, Status, error) {
	v, err := finishScript.Run(ctx, r.client,
		[]string{jobKey(id), resultsKey(id), nodesKey(id), unitsKey(id), activeKey, finishedKey, finishedKey + ":bytes", finishedKey + ":total"},
		string(e.Status), e.At.UnixMilli(), []byte(e.Result), e.Error, max(e.TTL.Milliseconds(), 1), id,
		r.maxFinished, r.maxFinishedBytes, evictBatch, keyPrefix).Slice()
	if err != nil {
		return false, "", err
	}
	if len(v) != 2 {
		return false, "", fmt.Errorf("jobs: finish script returned %d values", len(v))
	}
	r.seen.forget(id) // over (or gone): its results are no more combined
	won, _ := v[0].(int64)
	st, _ := v[1].(string)
	return won == 1, Status(st), nil
}

// ack deletes the unit's entry, then acknowledges it: a plain pipeline,
// not a transaction (Redis refuses every MULTI once past maxmemory, and
// XDEL and XACK it still takes: an audit's full Redis left units pending,
// run again and counted as deliveries). An acknowledgement lost after the
// deletion leaves only the entry's id pending, which the next XAUTOCLAIM
// drops (Redis 7 returns deleted entries apart).
func (r *RedisStore) ack(ctx context.Context, d *delivery) error {
	_, err := r.client.Pipelined(ctx, func(p redis.Pipeliner) error {
		p.XDel(ctx, streamKey, d.EntryID)
		p.XAck(ctx, streamKey, groupName, d.EntryID)
		return nil
	})
	return err // the first command's error
}

// releaseScript hands entry ARGV[3] back if ARGV[2] owns it: a huge idle
// time makes it claimable at once, and the delivery count is set to
// ARGV[5] so that the next XAUTOCLAIM (which adds one) counts or does not
// count this delivery. With a second key (a job's hash that exists) it
// first marks the job slow.
var releaseScript = redis.NewScript(`
if KEYS[2] and redis.call('EXISTS', KEYS[2]) == 1 then
  redis.call('HSET', KEYS[2], 'slow', '1')
end
local p = redis.call('XPENDING', KEYS[1], ARGV[1], ARGV[3], ARGV[3], 1)
if #p == 1 and p[1][2] == ARGV[2] then
  redis.call('XCLAIM', KEYS[1], ARGV[1], ARGV[2], 0, ARGV[3], 'IDLE', ARGV[4], 'RETRYCOUNT', ARGV[5], 'JUSTID')
  return 1
end
return 0
`)

// passedScript records, unless recorded before, that unit ARGV[1] was
// first handed back for its format at ARGV[2] (ms), and returns when that
// was.
var passedScript = redis.NewScript(`
redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return redis.call('HGET', KEYS[1], ARGV[1])
`)

func (r *RedisStore) passed(ctx context.Context, d *delivery, now time.Time) (time.Time, error) {
	v, err := passedScript.Run(ctx, r.client, []string{passedKey(d.JobID)}, d.Unit, now.UnixMilli(), passedTTL.Milliseconds()).Text()
	if err != nil {
		return time.Time{}, err
	}
	return msTime(v), nil
}

func (r *RedisStore) release(ctx context.Context, d *delivery, consumer string, count bool) error {
	return r.handBack(ctx, d, consumer, count, []string{streamKey})
}

func (r *RedisStore) slow(ctx context.Context, d *delivery, consumer string) error {
	return r.handBack(ctx, d, consumer, false, []string{streamKey, jobKey(d.JobID)})
}

func (r *RedisStore) handBack(ctx context.Context, d *delivery, consumer string, count bool, keys []string) error {
	retries := d.Deliveries
	if !count {
		retries--
	}
	return releaseScript.Run(ctx, r.client, keys,
		groupName, consumer, d.EntryID, handBackIdle.Milliseconds(), max(retries, 0)).Err()
}

// forgetScript deletes the consumers of the group with no pending entry
// that have been idle for ARGV[2] ms. A live worker's consumers touch the
// group at every poll, so only dead workers' consumers go; and since the
// check and the deletion are one script, no unit is lost with them.
var forgetScript = redis.NewScript(`
local removed = 0
for _, c in ipairs(redis.call('XINFO', 'CONSUMERS', KEYS[1], ARGV[1])) do
  local f = {}
  for i = 1, #c, 2 do f[c[i]] = c[i + 1] end
  if f['pending'] == 0 and f['idle'] >= tonumber(ARGV[2]) then
    redis.call('XGROUP', 'DELCONSUMER', KEYS[1], ARGV[1], f['name'])
    removed = removed + 1
  end
end
return removed
`)

// adoptScript hands back, counted, every unit pending with a consumer of
// the worker named ARGV[3] (ARGV[3] .. "/" and a slot) idle for ARGV[4] ms
// or more (no heartbeat for that long: its holder is dead, not a live
// namesake), but for the entry ids ARGV[5] and after (the caller's own)
// and those already handed back (idle for ARGV[2] ms or more): a huge
// idle time (ARGV[2] ms) makes each claimable at once,
// and its delivery count stays, so that the next XAUTOCLAIM counts the
// delivery its dead holder did not finish. It pages through each
// consumer's pending list by entry id.
var adoptScript = redis.NewScript(`
local prefix = ARGV[3] .. '/'
local except = {}
for i = 5, #ARGV do except[ARGV[i]] = true end
local n = 0
for _, c in ipairs(redis.call('XINFO', 'CONSUMERS', KEYS[1], ARGV[1])) do
  local f = {}
  for i = 1, #c, 2 do f[c[i]] = c[i + 1] end
  if f['pending'] > 0 and string.sub(f['name'], 1, #prefix) == prefix then
    local start = '-'
    while true do
      local p = redis.call('XPENDING', KEYS[1], ARGV[1], start, '+', 100, f['name'])
      for _, e in ipairs(p) do
        if e[3] >= tonumber(ARGV[4]) and e[3] < tonumber(ARGV[2]) and not except[e[1]] then
          redis.call('XCLAIM', KEYS[1], ARGV[1], f['name'], 0, e[1], 'IDLE', ARGV[2], 'RETRYCOUNT', e[4], 'JUSTID')
          n = n + 1
        end
      end
      if #p < 100 then break end
      start = '(' .. p[#p][1]
    end
  end
end
return n
`)

func (r *RedisStore) adopt(ctx context.Context, worker string, minIdle time.Duration, except []string) (int, error) {
	if err := r.ensureGroup(ctx); err != nil {
		return 0, err
	}
	args := []any{groupName, handBackIdle.Milliseconds(), worker, minIdle.Milliseconds()}
	for _, id := range except {
		args = append(args, id)
	}
	return adoptScript.Run(ctx, r.client, []string{streamKey}, args...).Int()
}

func (r *RedisStore) shared() bool { return true }

// countActive counts the active set (reconciled with the jobs' records when a
// submission finds a cap reached).
func (r *RedisStore) countActive(ctx context.Context) (int, error) {
	n, err := r.client.SCard(ctx, activeKey).Result()
	return int(n), err
}

// unitsScript counts the units of the stream KEYS[3] (its length, and
// its group ARGV[2]'s pending entries) and those the active jobs (set
// KEYS[2], job hashes under prefix KEYS[1]) hold back in their units
// hashes beyond their window (total - queued); beyond ARGV[1] jobs it
// reads that many chosen at random and scales their count.
var unitsScript = redis.NewScript(`
local prefix, limit = KEYS[1], tonumber(ARGV[1])
local n = redis.call('SCARD', KEYS[2])
local ids
if n > limit then
  ids = redis.call('SRANDMEMBER', KEYS[2], limit)
else
  ids = redis.call('SMEMBERS', KEYS[2])
end
local held = 0
for _, id in ipairs(ids) do
  local v = redis.call('HMGET', prefix .. id, 'status', 'total', 'queued')
  local t, q = tonumber(v[2]), tonumber(v[3])
  if t and q and t > q and (v[1] == 'queued' or v[1] == 'running') then held = held + t - q end
end
if n > limit then held = math.floor(held * n / limit) end
local len = redis.call('XLEN', KEYS[3])
local p = redis.pcall('XPENDING', KEYS[3], ARGV[2])
local pending = 0
if type(p) == 'table' and not p.err then pending = tonumber(p[1]) or 0 end
return {len, pending, held}
`)

// units counts the stream's units not yet delivered (an acknowledged
// unit is deleted from the stream) and pending, and adds to those waiting
// the units the jobs' windows hold back (--job-window: a job's units
// enter the stream a few at a time).
func (r *RedisStore) units(ctx context.Context) (waiting, delivered int, err error) {
	v, err := unitsScript.Run(ctx, r.client, []string{keyPrefix, activeKey, streamKey}, oldestBatch, groupName).Int64Slice()
	if err != nil || len(v) != 3 {
		return 0, 0, cmp.Or(err, fmt.Errorf("units: %d values", len(v)))
	}
	return int(max(0, v[0]-v[1]) + v[2]), int(v[1]), nil
}

// oldestScript returns the submission times (unix ms, -1 for none) of
// the oldest queued and the oldest running job of the active set KEYS[2]
// (job hashes under prefix KEYS[1]); beyond ARGV[1] ids it looks at that
// many chosen at random.
var oldestScript = redis.NewScript(`
local prefix, limit = KEYS[1], tonumber(ARGV[1])
local ids
if redis.call('SCARD', KEYS[2]) > limit then
  ids = redis.call('SRANDMEMBER', KEYS[2], limit)
else
  ids = redis.call('SMEMBERS', KEYS[2])
end
local q, r = -1, -1
for _, id in ipairs(ids) do
  local v = redis.call('HMGET', prefix .. id, 'status', 'created')
  local c = tonumber(v[2])
  if c then
    if v[1] == 'queued' and (q < 0 or c < q) then q = c end
    if v[1] == 'running' and (r < 0 or c < r) then r = c end
  end
end
return {q, r}
`)

// oldestBatch bounds the jobs oldestScript reads, at each scrape of each
// process (the active set is bounded by --max-active-jobs, 100 by
// default, unless it is 0): 10,000 held Redis for 36 ms, longer than the
// cache's timeout; 1,000 take about 4 ms. Beyond them the ages are those
// of a random sample.
const oldestBatch = 1000

func (r *RedisStore) oldest(ctx context.Context) (queued, running time.Time, err error) {
	v, err := oldestScript.Run(ctx, r.client, []string{keyPrefix, activeKey}, oldestBatch).Int64Slice()
	if err != nil || len(v) != 2 {
		return time.Time{}, time.Time{}, cmp.Or(err, fmt.Errorf("oldest: %d values", len(v)))
	}
	at := func(ms int64) time.Time {
		if ms < 0 {
			return time.Time{}
		}
		return time.UnixMilli(ms).UTC()
	}
	return at(v[0]), at(v[1]), nil
}

func (r *RedisStore) forget(ctx context.Context, idle time.Duration) (int, error) {
	if err := r.ensureGroup(ctx); err != nil {
		return 0, err
	}
	n, err := forgetScript.Run(ctx, r.client, []string{streamKey}, groupName, idle.Milliseconds()).Int()
	return n, err
}

func msTime(s string) time.Time {
	if s == "" {
		return time.Time{}
	}
	ms, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return time.Time{}
	}
	return time.UnixMilli(ms).UTC()
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}
