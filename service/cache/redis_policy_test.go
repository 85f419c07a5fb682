package cache

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gamesolver/gamesolver/service/redistest"
)

// TestMemoryPolicyWarning: a Redis without a limit, or whose policy would
// evict jobs or refuse every write once full, is warned about; the
// deployments' volatile-lru under a limit is not.
func TestMemoryPolicyWarning(t *testing.T) {
	srv := redistest.Start(t)
	r, err := NewRedis(RedisOptions{URL: srv.URL(), Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ctx := context.Background()
	for _, tc := range []struct {
		limit, policy, want string
	}{
		{"0", "volatile-lru", "no memory limit"},
		{"100mb", "volatile-lru", ""},
		{"100mb", "volatile-ttl", ""},
		{"100mb", "allkeys-lru", "evicts any key"},
		{"100mb", "noeviction", "evicts nothing"},
	} {
		if err := r.Client().ConfigSet(ctx, "maxmemory", tc.limit).Err(); err != nil {
			t.Fatal(err)
		}
		if err := r.Client().ConfigSet(ctx, "maxmemory-policy", tc.policy).Err(); err != nil {
			t.Fatal(err)
		}
		got := MemoryPolicyWarning(ctx, r.Client())
		if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
			t.Errorf("maxmemory %s, %s: %q, want %q", tc.limit, tc.policy, got, tc.want)
		}
	}
	// A Redis that answers no CONFIG (its client closed here): nothing said.
	_ = r.Client().Close()
	if got := MemoryPolicyWarning(ctx, r.Client()); got != "" {
		t.Errorf("no answer: %q", got)
	}
}
