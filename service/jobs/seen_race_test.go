package jobs

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/gamesolver/gamesolver/service/redistest"
)

// onCommand is a go-redis hook that runs f once, after the first command
// named name is answered: between the store's call and its use of the
// answer, as another slot of the process would.
type onCommand struct {
	name string
	f    func()
	done *bool
}

func (h onCommand) DialHook(next redis.DialHook) redis.DialHook { return next }
func (h onCommand) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		if !*h.done && cmd.Name() == h.name {
			*h.done = true
			h.f()
		}
		return err
	}
}
func (h onCommand) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

// TestRedisCompleteKeptResultsDroppedMeanwhile: another slot of the
// process may push a job's kept results out (the bound: a newer job's
// results) while a completion of the job waits for Redis's answer; the
// completion still answers every result the store holds, or the last
// unit's Combine sees a few, does not end the job, and nobody does.
func TestRedisCompleteKeptResultsDroppedMeanwhile(t *testing.T) {
	for _, cmd := range []string{"evalsha", "hmget"} {
		t.Run(cmd, func(t *testing.T) {
			srv := redistest.Start(t)
			ctx := context.Background()
			rdb := redis.NewClient(&redis.Options{Addr: srv.Addr(), MaxRetries: -1})
			t.Cleanup(func() { _ = rdb.Close() })
			other := redis.NewClient(&redis.Options{Addr: srv.Addr(), MaxRetries: -1})
			t.Cleanup(func() { _ = other.Close() })
			store := NewRedisStore(rdb)
			store.seen = newSeenResults(20 << 10)
			otherStore := NewRedisStore(other)
			const n = 5
			s := createEmptyJob(t, store, n)
			result := func(i int) json.RawMessage { return paddedResult(i, 1000) }
			for i := range n - 2 {
				if _, results, err := store.complete(ctx, &delivery{JobID: s.ID, Unit: i}, result(i), 1); err != nil || len(results) != i+1 {
					t.Fatalf("unit %d: %v, %d results", i, err, len(results))
				}
			}
			if cmd == "hmget" {
				// Another process's result: the completion reads it.
				if _, _, err := otherStore.complete(ctx, &delivery{JobID: s.ID, Unit: n - 2}, result(n-2), 1); err != nil {
					t.Fatal(err)
				}
			} else if _, _, err := store.complete(ctx, &delivery{JobID: s.ID, Unit: n - 2}, result(n-2), 1); err != nil {
				t.Fatal(err)
			}
			// A newer job's results, read by another slot, push this one's out.
			done := false
			rdb.AddHook(onCommand{name: cmd, done: &done, f: func() {
				store.seen.add("newer", nil, []int{0}, map[int]json.RawMessage{0: json.RawMessage(strings.Repeat("y", 19<<10))})
			}})
			_, results, err := store.complete(ctx, &delivery{JobID: s.ID, Unit: n - 1}, result(n-1), 1)
			if err != nil {
				t.Fatal(err)
			}
			if !done {
				t.Fatalf("no %s command", cmd)
			}
			if len(results) != n {
				t.Errorf("the last unit's completion: %d results of %d", len(results), n)
			}
		})
	}
}
