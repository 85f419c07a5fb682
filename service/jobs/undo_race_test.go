package jobs

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/gamesolver/gamesolver/service/redistest"
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
	srv := redistest.Start(t)
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr(), MaxRetries: -1})
	t.Cleanup(func() { _ = rdb.Close() })
	worker := NewRedisStore(redis.NewClient(&redis.Options{Addr: srv.Addr(), MaxRetries: -1}))
	ctx := context.Background()
	store := NewRedisStore(rdb).Window(2)
	if err := store.ensureGroup(ctx); err != nil {
		t.Fatal(err)
	}
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
