package jobs

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// lostTxReplyAfter is lostTxReply running f (a worker, meanwhile) before
// the client hears of its lost answer.
type lostTxReplyAfter struct{ f func() }

func (lostTxReplyAfter) DialHook(next redis.DialHook) redis.DialHook          { return next }
func (lostTxReplyAfter) ProcessHook(next redis.ProcessHook) redis.ProcessHook { return next }
func (h lostTxReplyAfter) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		if err := next(ctx, cmds); err != nil {
			return err
		}
		if len(cmds) > 0 && cmds[0].Name() == "multi" {
			h.f()
			return fmt.Errorf("read tcp: i/o timeout: %w", context.DeadlineExceeded)
		}
		return nil
	}
}

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
	rdb.AddHook(lostTxReplyAfter{func() {
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

// TestRedisUndoneBeforeItsTransaction: a stalled Redis may run the undoing
// of a submission cut off before the submission's own transaction (each
// came on a connection of its own): the job is then created after all,
// and would run though its client was told 503 and submits it again (a
// review). Its first unit begun deletes it instead, and its places in the
// caps.
func TestRedisUndoneBeforeItsTransaction(t *testing.T) {
	rdb, store := newWindowedStore(t)
	ctx := context.Background()
	s := state{ID: newID(), Type: "toy.squares", Status: StatusQueued, Created: time.Now().UTC().Truncate(time.Millisecond),
		Request: json.RawMessage(`{}`), Total: 3, Client: "ip:192.0.2.1"}
	units := []json.RawMessage{json.RawMessage(`{}`), json.RawMessage(`{}`), json.RawMessage(`{}`)}
	if err := store.undo(ctx, s, 2); err != nil {
		t.Fatal(err)
	}
	if err := store.create(ctx, s, units, limits{all: 10, client: 10}); err != nil {
		t.Fatal(err)
	}
	d, err := store.claim(ctx, "w/0", time.Minute, 10*time.Millisecond, false)
	if err != nil || d == nil || d.JobID != s.ID {
		t.Fatalf("claim: %v %+v", err, d)
	}
	if start, err := store.begin(ctx, d, time.Now()); err != nil || start.Found {
		t.Fatalf("begin of the undone job: %v, found %v", err, start.Found)
	}
	keys, err := rdb.Keys(ctx, keyPrefix+"*").Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		switch k {
		case streamKey, undoneKey(s.ID):
		case activeKey, clientKey(s.Client):
			if ok, _ := rdb.SIsMember(ctx, k, s.ID).Result(); ok {
				t.Errorf("%s still holds the job", k)
			}
		default:
			t.Errorf("%s left", k)
		}
	}
}
