package jobs

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestRedisStoreCreateCutOffAfterAUnit: a worker may finish a unit of a
// submission cut off before its undoing; the undoing leaves no results
// or nodes hash behind (no expiry: never evicted, never deleted).
func TestRedisStoreCreateCutOffAfterAUnit(t *testing.T) {
	rdb, store := newWindowedStore(t)
	other := redis.NewClient(&redis.Options{Addr: rdb.Options().Addr, MaxRetries: -1})
	t.Cleanup(func() { _ = other.Close() })
	worker := NewRedisStore(other)
	ctx := context.Background()
	s := state{ID: newID(), Type: "toy.squares", Status: StatusQueued, Created: time.Now().UTC().Truncate(time.Millisecond),
		Request: json.RawMessage(`{}`), Total: 3}
	rdb.AddHook(lostTxReply{after: func() {
		if _, _, err := worker.complete(ctx, &delivery{JobID: s.ID, Unit: 0}, json.RawMessage(`{"n":0}`), 5); err != nil {
			t.Error(err)
		}
	}})
	units := []json.RawMessage{json.RawMessage(`{}`), json.RawMessage(`{}`), json.RawMessage(`{}`)}
	if err := store.create(ctx, s, units, limits{}); err == nil {
		t.Fatal("create: no error, though the transaction's answer was lost")
	}
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if n, _ := rdb.Exists(ctx, jobKey(s.ID)).Result(); n == 0 {
			break
		}
	}
	time.Sleep(50 * time.Millisecond)
	for _, k := range []string{jobKey(s.ID), unitsKey(s.ID), resultsKey(s.ID), nodesKey(s.ID)} {
		if n, _ := rdb.Exists(ctx, k).Result(); n != 0 {
			ttl, _ := rdb.PTTL(ctx, k).Result()
			t.Errorf("key %s left behind (ttl %v)", k, ttl)
		}
	}
}

// TestRedisUndoneBeforeItsWrite: a stalled Redis may run the undoing of a
// submission cut off before the submission's own write (each came on a
// connection of its own): the job was then created after all, and ran
// though its client was told 503 and submits it again (a review). The
// write, which looks at the undone mark, writes nothing; and a job written
// so by an earlier version (a MULTI/EXEC, which could not look) is deleted
// by its first unit begun, with its places in the caps.
func TestRedisUndoneBeforeItsWrite(t *testing.T) {
	rdb, store := newWindowedStore(t)
	ctx := context.Background()
	units := []json.RawMessage{json.RawMessage(`{}`), json.RawMessage(`{}`), json.RawMessage(`{}`)}
	newState := func() state {
		return state{ID: newID(), Type: "toy.squares", Status: StatusQueued, Created: time.Now().UTC().Truncate(time.Millisecond),
			Request: json.RawMessage(`{}`), Total: 3, Client: "ip:192.0.2.1"}
	}
	// What is left of a job: its mark only (it expires), no unit, no
	// place in the caps.
	onlyMark := func(s state) {
		t.Helper()
		keys, err := rdb.Keys(ctx, keyPrefix+"*").Result()
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range keys {
			switch {
			case strings.HasSuffix(k, ":undone"): // this job's, an earlier one's
			case k == streamKey:
				if n, _ := rdb.XLen(ctx, k).Result(); n != 0 {
					t.Errorf("%d units in the stream", n)
				}
			case k == activeKey || k == clientKey(s.Client):
				if ok, _ := rdb.SIsMember(ctx, k, s.ID).Result(); ok {
					t.Errorf("%s still holds the job", k)
				}
			default:
				t.Errorf("%s left", k)
			}
		}
	}
	s := newState()
	if err := store.undo(ctx, s, 2); err != nil {
		t.Fatal(err)
	}
	if err := store.create(ctx, s, units, limits{}); err == nil {
		t.Fatal("a job undone before its write was written")
	}
	onlyMark(s)
	// An earlier version's write, after the mark.
	s = newState()
	if err := store.create(ctx, s, units, limits{all: 10, client: 10}); err != nil {
		t.Fatal(err)
	}
	if err := rdb.Set(ctx, undoneKey(s.ID), "1", undoneTTL).Err(); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		d, err := store.claim(ctx, "w/0", time.Minute, 10*time.Millisecond, false)
		if err != nil || d == nil || d.JobID != s.ID {
			t.Fatalf("claim: %v %+v", err, d)
		}
		if start, err := store.begin(ctx, d, time.Now()); err != nil || start.Found {
			t.Fatalf("begin of the undone job: %v, found %v", err, start.Found)
		}
		if err := rdb.XDel(ctx, streamKey, d.EntryID).Err(); err != nil { // the worker's ack
			t.Fatal(err)
		}
	}
	onlyMark(s)
}
