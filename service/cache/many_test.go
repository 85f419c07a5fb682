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
// "v<i>" and a tail of 100 bytes).
func manyKeys(t *testing.T, n int, cs ...Cache) []string {
	keys := make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprintf("k%d", i)
		for _, c := range cs {
			if i%2 == 0 {
				if err := c.Set(context.Background(), keys[i], fmt.Appendf(nil, "v%d:%s", i, strings.Repeat("x", 100)), 0); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	return keys
}

// checkPrefixes: vs holds the first 3 bytes of "v<i>:..." for the even
// keys, nil for the odd ones.
func checkPrefixes(t *testing.T, name string, vs [][]byte, n int) {
	t.Helper()
	if len(vs) != n {
		t.Fatalf("%s: %d values for %d keys", name, len(vs), n)
	}
	for i, v := range vs {
		want := ""
		if i%2 == 0 {
			want = fmt.Sprintf("v%d:xxxxxx", i)[:3]
		}
		if string(v) != want || (want == "") != (v == nil) {
			t.Fatalf("%s: key %d = %q, want %q", name, i, v, want)
		}
	}
}

// TestGetPrefixes: the first bytes of the values of many keys, in order,
// nil where missing, from every kind of cache: key by key (memory), in
// batches (Redis GETRANGE, more keys than one batch), through both layers
// of a tiered cache (nothing copied into the near one), with Observe
// counting errors only; an ended context stops it.
func TestGetPrefixes(t *testing.T) {
	ctx := context.Background()
	n := prefixBatch*2 + 17
	mem := NewMemory(1<<20, time.Hour)
	keys := manyKeys(t, n, mem)
	vs, err := GetPrefixes(ctx, mem, keys, 3)
	if err != nil {
		t.Fatal(err)
	}
	checkPrefixes(t, "memory", vs, n)
	if v, _, _ := mem.Get(ctx, keys[0]); len(v) < 100 {
		t.Fatalf("the memory layer's value cut: %q", v)
	}

	srv := redistest.Start(t)
	r, err := NewRedis(RedisOptions{URL: srv.URL(), Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	manyKeys(t, n, r)
	vs, err = GetPrefixes(ctx, r, keys, 3)
	if err != nil {
		t.Fatal(err)
	}
	checkPrefixes(t, "redis", vs, n)

	counts := map[string]int{}
	near := NewMemory(1<<20, time.Hour)
	for i := 0; i < n; i += 4 {
		_ = near.Set(ctx, keys[i], fmt.Appendf(nil, "v%d:%s", i, strings.Repeat("x", 100)), 0) // half of the values in the near layer
	}
	tiered := &Tiered{Near: near, Far: Observe(r, "redis", func(layer, outcome string) { counts[layer+" "+outcome]++ })}
	vs, err = GetPrefixes(ctx, tiered, keys, 3)
	if err != nil {
		t.Fatal(err)
	}
	checkPrefixes(t, "tiered", vs, n)
	if len(counts) != 0 {
		t.Errorf("counted %v: prefixes are no look-ups of answers", counts)
	}
	if _, ok, _ := near.Get(ctx, keys[2]); ok {
		t.Errorf("%s's prefix copied into the near layer", keys[2])
	}
	done, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := GetPrefixes(done, mem, keys, 3); err == nil {
		t.Error("an ended context read every key")
	}
	if _, err := GetPrefixes(ctx, failing{mem}, keys, 3); err == nil || !strings.Contains(err.Error(), "refused") {
		t.Errorf("a failing cache: %v", err)
	}
}

// TestRedisCallerDeadlineNotCounted: calls whose caller's deadline ends
// them (shorter than the calls' timeout) do not open the breaker; calls
// Redis itself fails do.
func TestRedisCallerDeadlineNotCounted(t *testing.T) {
	srv := redistest.Start(t)
	r, err := NewRedis(RedisOptions{URL: srv.URL(), Timeout: time.Second, FailuresToOpen: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ctx := context.Background()
	if err := r.Set(ctx, "k", []byte(strings.Repeat("x", 1<<20)), time.Minute); err != nil {
		t.Fatal(err)
	}
	for range 10 {
		short, cancel := context.WithTimeout(ctx, time.Microsecond)
		_, _, err := r.Get(short, "k")
		cancel()
		if err == nil {
			t.Fatal("a read of a megabyte within a microsecond")
		}
	}
	if r.Open() {
		t.Fatal("callers' deadlines opened the breaker")
	}
	if _, ok, err := r.Get(ctx, "k"); !ok || err != nil {
		t.Fatalf("after them: %v %v", ok, err)
	}
}
