package cache

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gamesolver/gamesolver/service/redistest"
)

// manyKeys are keys k0..k(n-1), the even ones stored in each of cs (value
// "v<i>").
func manyKeys(t *testing.T, n int, cs ...Cache) []string {
	keys := make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprintf("k%d", i)
		for _, c := range cs {
			if i%2 == 0 {
				if err := c.Set(context.Background(), keys[i], fmt.Appendf(nil, "v%d", i), 0); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	return keys
}

// checkMany: vs holds "v<i>" for the even keys, nil for the odd ones.
func checkMany(t *testing.T, name string, vs [][]byte, n int) {
	t.Helper()
	if len(vs) != n {
		t.Fatalf("%s: %d values for %d keys", name, len(vs), n)
	}
	for i, v := range vs {
		want := ""
		if i%2 == 0 {
			want = fmt.Sprintf("v%d", i)
		}
		if string(v) != want || (want == "") != (v == nil) {
			t.Fatalf("%s: key %d = %q, want %q", name, i, v, want)
		}
	}
}

// TestGetMany: the values of many keys, in order, nil where missing, from
// every kind of cache: key by key (memory), in batches (Redis MGET, more
// keys than one batch), through both layers (the far one's copied into
// the near one), counted by Observe; an ended context stops it.
func TestGetMany(t *testing.T) {
	ctx := context.Background()
	n := manyBatch*2 + 17
	mem := NewMemory(1<<20, time.Hour)
	keys := manyKeys(t, n, mem)
	vs, err := GetMany(ctx, mem, keys)
	if err != nil {
		t.Fatal(err)
	}
	checkMany(t, "memory", vs, n)

	srv := redistest.Start(t)
	r, err := NewRedis(RedisOptions{URL: srv.URL(), Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	manyKeys(t, n, r)
	vs, err = GetMany(ctx, r, keys)
	if err != nil {
		t.Fatal(err)
	}
	checkMany(t, "redis", vs, n)

	counts := map[string]int{}
	near := NewMemory(1<<20, time.Hour)
	for i := 0; i < n; i += 4 {
		_ = near.Set(ctx, keys[i], fmt.Appendf(nil, "v%d", i), 0) // half of the values in the near layer
	}
	tiered := &Tiered{Near: near, Far: Observe(r, "redis", func(layer, outcome string) { counts[layer+" "+outcome]++ })}
	vs, err = GetMany(ctx, tiered, keys)
	if err != nil {
		t.Fatal(err)
	}
	checkMany(t, "tiered", vs, n)
	far := (n + 1) / 2
	if near := (n + 3) / 4; counts["redis hit"] != far-near || counts["redis miss"] != n-far {
		t.Errorf("the far layer counted %v: want %d hits (the near layer had %d of %d) and %d misses", counts, far-near, near, far, n-far)
	}
	for i := 0; i < n; i += 2 {
		if _, ok, _ := near.Get(ctx, keys[i]); !ok {
			t.Fatalf("%s not copied into the near layer", keys[i])
		}
	}
	fresh, err := GetMany(Fresh(ctx), tiered, keys)
	if err != nil {
		t.Fatal(err)
	}
	checkMany(t, "tiered, fresh", fresh, n)

	clear(counts)
	if _, err := GetMany(Uncounted(ctx), tiered, keys); err != nil || len(counts) != 0 {
		t.Errorf("uncounted: %v, counted %v", err, counts)
	}
	done, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := GetMany(done, mem, keys); err == nil {
		t.Error("an ended context read every key")
	}
	if _, err := GetMany(ctx, failing{mem}, keys); err == nil || !strings.Contains(err.Error(), "refused") {
		t.Errorf("a failing cache: %v", err)
	}
}
