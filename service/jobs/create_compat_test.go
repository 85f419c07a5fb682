package jobs

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// createMultiExec is the job's write of the version before createScript
// (a MULTI/EXEC), kept to check that the script writes the same.
func createMultiExec(ctx context.Context, r *RedisStore, s state, units []json.RawMessage) error {
	w := min(len(units), r.window)
	_, err := r.client.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.HSet(ctx, jobKey(s.ID),
			"id", s.ID, "type", s.Type, "status", string(s.Status),
			"created", s.Created.UnixMilli(), "request", []byte(s.Request), "total", s.Total, "queued", w,
			"client", s.Client, "format", s.Format)
		p.Persist(ctx, jobKey(s.ID))
		for i, u := range units[:w] {
			p.XAdd(ctx, &redis.XAddArgs{Stream: streamKey, Values: []any{"job", s.ID, "unit", i, "payload", []byte(u)}})
		}
		if len(units) > w {
			rest := make([]any, 0, 2*(len(units)-w))
			for i, u := range units[w:] {
				rest = append(rest, w+i, []byte(u))
			}
			p.HSet(ctx, unitsKey(s.ID), rest...)
		}
		p.SAdd(ctx, activeKey, s.ID)
		if s.Client != "" {
			p.SAdd(ctx, clientKey(s.Client), s.ID)
		}
		return nil
	})
	return err
}

// jobDump is everything a job's write leaves in Redis, its id replaced.
func jobDump(t *testing.T, rdb *redis.Client, s state) string {
	t.Helper()
	ctx := context.Background()
	var b strings.Builder
	h, err := rdb.HGetAll(ctx, jobKey(s.ID)).Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range slices.Sorted(maps.Keys(h)) {
		v := h[k]
		if k == "id" && v == s.ID {
			v = "ID"
		}
		fmt.Fprintf(&b, "job %q=%q\n", k, v)
	}
	ttl, _ := rdb.PTTL(ctx, jobKey(s.ID)).Result()
	fmt.Fprintf(&b, "job ttl %v\n", ttl)
	u, err := rdb.HGetAll(ctx, unitsKey(s.ID)).Result()
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&b, "units %d\n", len(u))
	for _, k := range slices.Sorted(maps.Keys(u)) {
		fmt.Fprintf(&b, "unit %q=%q\n", k, u[k])
	}
	es, err := rdb.XRange(ctx, streamKey, "-", "+").Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range es {
		// XRange's map loses the order: read it raw.
		raw, err := rdb.Do(ctx, "XRANGE", streamKey, e.ID, e.ID).Slice()
		if err != nil {
			t.Fatal(err)
		}
		f := raw[0].([]any)[1].([]any)
		if len(f) < 2 || f[1] != s.ID {
			continue
		}
		f[1] = "ID"
		fmt.Fprintf(&b, "entry %q\n", f)
	}
	for _, k := range []string{activeKey, clientKey(s.Client)} {
		ok, _ := rdb.SIsMember(ctx, k, s.ID).Result()
		fmt.Fprintf(&b, "member %s %v\n", strings.TrimPrefix(k, keyPrefix), ok)
	}
	if ex, _ := rdb.Exists(ctx, undoneKey(s.ID)).Result(); ex != 0 {
		b.WriteString("undone\n")
	}
	return b.String()
}

// TestRedisCreateScriptWritesAsMultiExec: createScript leaves in Redis
// exactly what the MULTI/EXEC before it left (workers of that version
// read the jobs it writes), for jobs within the window and larger ones
// (the units hash is written in chunks), with payloads of any bytes, with
// and without a client, admitted (the admission's mark expires) or not.
func TestRedisCreateScriptWritesAsMultiExec(t *testing.T) {
	rdb, _ := newWindowedStore(t)
	ctx := context.Background()
	big := strings.Repeat("\x00\xff\"\\{}", 1<<17) // 896 KiB
	payload := func(n, i int) json.RawMessage {
		switch {
		case i%7 == 3:
			return json.RawMessage{} // empty
		case i%11 == 5:
			return json.RawMessage("\x00\x01\xfe\xff\r\n*1\r\n$-1\r\n")
		case n <= 9 && i == 1:
			return json.RawMessage(big)
		}
		return json.RawMessage(fmt.Sprintf(`{"unit":%d}`, i))
	}
	for _, window := range []int{1, 8, 2000, 2001} {
		for _, n := range []int{1, 2, 8, 9, 1000, 1001, 1002, 2001, 2009, 4003, 12000} {
			for _, client := range []string{"", "ip:192.0.2.1"} {
				for _, admitted := range []bool{false, true} {
					name := fmt.Sprintf("window %d units %d client %q admitted %v", window, n, client, admitted)
					units := make([]json.RawMessage, n)
					for i := range units {
						units[i] = payload(n, i)
					}
					dumps := make([]string, 2)
					for v := range 2 {
						if err := rdb.Del(ctx, streamKey).Err(); err != nil {
							t.Fatal(err)
						}
						store := NewRedisStore(rdb).Window(window)
						s := state{ID: newID(), Type: "toy.squares", Status: StatusQueued, Created: time.Now().UTC(),
							Request: json.RawMessage("{\"n\":\x00\xff}"), Total: n, Client: client}
						s.Format = n % 3
						var lim limits
						if admitted {
							lim = limits{all: 1 << 30, client: 1 << 20}
						}
						if v == 0 {
							if admitted {
								if full, err := store.admit(ctx, s, lim); err != nil || full != nil {
									t.Fatal(err, full)
								}
							}
							if err := createMultiExec(ctx, store, s, units); err != nil {
								t.Fatal(err)
							}
						} else if err := store.create(ctx, s, units, lim); err != nil {
							t.Fatalf("%s: %v", name, err)
						}
						dumps[v] = strings.ReplaceAll(jobDump(t, rdb, s), fmt.Sprint(s.Created.UnixMilli()), "CREATED")
					}
					if dumps[0] != dumps[1] {
						t.Errorf("%s: the script wrote\n%.3000s\nthe MULTI/EXEC\n%.3000s", name, dumps[1], dumps[0])
					}
				}
			}
		}
	}
}
