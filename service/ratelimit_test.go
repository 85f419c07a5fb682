package service

import (
	"context"
	"crypto/pbkdf2"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/redis/go-redis/v9"

	"github.com/gamesolver/gamesolver/service/redistest"
)

// countingHook counts the commands a client sends (pipelines and scripts
// included).
type countingHook struct{ calls atomic.Int64 }

func (h *countingHook) DialHook(next redis.DialHook) redis.DialHook { return next }
func (h *countingHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error { h.calls.Add(1); return next(ctx, cmd) }
}
func (h *countingHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error { h.calls.Add(1); return next(ctx, cmds) }
}

// With Redis gone, the limiter tries the shared counters once, then counts
// locally for sharedBackoff without calling Redis (each call used to wait
// for the Redis timeout on every request), and tries again after it.
func TestRateLimiterBacksOffFromDeadRedis(t *testing.T) {
	srv := redistest.Start(t)
	// Generous timeouts: a killed Redis refuses at once, and a loaded
	// machine must not make the live call fail.
	client := redis.NewClient(&redis.Options{Addr: srv.Addr(), MaxRetries: -1, DialTimeout: time.Second,
		ReadTimeout: time.Second, WriteTimeout: time.Second})
	t.Cleanup(func() { _ = client.Close() })
	hook := &countingHook{}
	client.AddHook(hook)
	rl, err := NewRateLimiter("1000-S", client, time.Second, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rl.Close)
	met := NewMetrics(prometheus.NewRegistry())
	rl.Observe(met, "requests")
	checks := func(counters string) float64 {
		return testutil.ToFloat64(met.RateChecks.WithLabelValues("requests", counters))
	}
	clock := time.Now()
	rl.now = func() time.Time { return clock }
	deadline := time.Now().Add(10 * time.Second)
	for rl.shared.Load() == nil {
		if time.Now().After(deadline) {
			t.Fatal("the shared store never connected")
		}
		time.Sleep(10 * time.Millisecond)
	}
	ctx := context.Background()
	live := hook.calls.Load()
	if d := rl.Allow(ctx, "ip:a"); !d.Allowed || d.Limit != 1000 || hook.calls.Load() == live || rl.downUntil.Load() != 0 {
		t.Fatalf("with Redis: %+v, %d calls, down until %d", d, hook.calls.Load()-live, rl.downUntil.Load())
	}
	if checks("shared") != 1 || checks("local") != 0 {
		t.Errorf("with Redis: %v checks shared, %v local; want 1 and 0", checks("shared"), checks("local"))
	}
	srv.Kill()
	before := hook.calls.Load()
	if d := rl.Allow(ctx, "ip:a"); !d.Allowed {
		t.Fatalf("first request after Redis died: %+v, want it allowed (counted locally)", d)
	}
	tried := hook.calls.Load()
	if tried == before {
		t.Fatal("the first request after Redis died did not try Redis")
	}
	for range 20 {
		if d := rl.Allow(ctx, "ip:a"); !d.Allowed || d.Limit != 1000 {
			t.Fatalf("counted locally: %+v", d)
		}
	}
	if n := hook.calls.Load(); n != tried {
		t.Errorf("%d calls to a dead Redis within the backoff, want 0", n-tried)
	}
	clock = clock.Add(sharedBackoff + time.Millisecond)
	rl.Allow(ctx, "ip:a")
	retried := hook.calls.Load()
	if retried == tried {
		t.Error("after the backoff the limiter did not try Redis again")
	}
	// The retry failed: counting locally again, without Redis.
	rl.Allow(ctx, "ip:a")
	if n := hook.calls.Load(); n != retried {
		t.Errorf("%d calls right after a failed retry, want 0", n-retried)
	}
	// The metric shows the fallback: every check since Redis died local;
	// a peek (a job submission's, before it counts) is no check.
	rl.Peek(ctx, "ip:a")
	if checks("shared") != 1 || checks("local") != 23 {
		t.Errorf("after Redis died: %v checks shared, %v local; want 1 and 23", checks("shared"), checks("local"))
	}
}

// After a failure, once the backoff is over, one request takes the lease
// to try the shared counters; the others count locally meanwhile.
func TestRateLimiterLease(t *testing.T) {
	rl := &RateLimiter{timeout: time.Second, start: time.Now(), now: time.Now}
	clock := time.Now()
	rl.now = func() time.Time { return clock }
	//lint:ignore SA4000 two calls, each counted
	if !rl.tryShared() || !rl.tryShared() {
		t.Fatal("while the shared counters answer, every request uses them")
	}
	rl.downUntil.Store(rl.since() + int64(sharedBackoff))
	if rl.tryShared() {
		t.Fatal("within the backoff a request used the shared counters")
	}
	clock = clock.Add(sharedBackoff)
	if !rl.tryShared() {
		t.Fatal("after the backoff no request tried the shared counters")
	}
	if rl.tryShared() {
		t.Error("a second request tried the shared counters while the first held the lease")
	}
}

// A client refused waits until the decision's Reset and is served: the
// reset it is told is not before the period's end (ulule's Reset is the
// end rounded down to the second; an audit's retry after Retry-After was
// refused again, the period ending 0.8 s later).
func TestRateLimiterResetNotEarly(t *testing.T) {
	for try := range 2 {
		rl, err := NewRateLimiter("1-S", nil, time.Second, nil)
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		if d := rl.Allow(ctx, "c"); !d.Allowed {
			t.Fatal("the first request refused")
		}
		d := rl.Allow(ctx, "c")
		if d.Allowed {
			t.Fatal("the second request in a second allowed")
		}
		time.Sleep(time.Until(d.Reset))
		if again := rl.Allow(ctx, "c"); !again.Allowed {
			t.Fatalf("try %d: refused again at the Reset told (%v)", try, d.Reset)
		}
		rl.Close()
	}
}

// TestClientID: a client is its valid API key (hashed), else its IPv4
// address or its IPv6 address's /64 network (a host with a /64 was a new
// client at each address, past every per-client rate and cap).
func TestClientID(t *testing.T) {
	keys := NewAPIKeys([]string{"s3cret"})
	for _, tc := range []struct{ key, addr, want string }{
		{"", "192.0.2.7", "ip:192.0.2.7"},
		{"wrong", "192.0.2.7", "ip:192.0.2.7"},
		{"", "::ffff:192.0.2.7", "ip:192.0.2.7"},
		{"", "2001:db8:1:2:3:4:5:6", "ip:2001:db8:1:2::/64"},
		{"", "2001:db8:1:2::ffff", "ip:2001:db8:1:2::/64"},
		{"", "fe80::1%eth0", "ip:fe80::/64"},
		{"", "not an address", "ip:not an address"},
		// Translated IPv4 clients are not one /64 (a review).
		{"", "64:ff9b::c000:207", "ip:192.0.2.7"},
		{"", "64:ff9b::cb00:7101", "ip:203.0.113.1"},
		{"", "64:ff9b:1:2::c000:207", "ip:64:ff9b:1:2::c000:207"},
		{"", "2001:0:4136:e378:8000:63bf:3fff:fdd2", "ip:2001:0:4136:e378:8000:63bf:3fff:fdd2"},
	} {
		if got := keys.ClientID(tc.key, tc.addr); got != tc.want {
			t.Errorf("ClientID(%q, %q) = %q, want %q", tc.key, tc.addr, got, tc.want)
		}
	}
	if got := keys.ClientID("s3cret", "2001:db8::1"); !strings.HasPrefix(got, "key:") || strings.Contains(got, "s3cret") {
		t.Errorf("a valid key: %q", got)
	}
}

// TestClientIDOfKey: a key's client id, which Redis and the job logs keep,
// is no fast hash of the key (a security review: a weak key could be
// guessed offline from it at a GPU's pace), names one key alike in every
// process (replicas share the per-client counters), and keys apart.
func TestClientIDOfKey(t *testing.T) {
	a, b := NewAPIKeys([]string{"s3cret", "other"}), NewAPIKeys([]string{"other", "s3cret"})
	id := a.ClientID("s3cret", "192.0.2.7")
	fast := sha256.Sum256([]byte("s3cret"))
	if id == "key:"+hex.EncodeToString(fast[:8]) {
		t.Errorf("the client id %s is the key's SHA-256", id)
	}
	if want, err := pbkdf2.Key(sha256.New, "s3cret", []byte(clientIDSalt), clientIDRounds, 8); err != nil || id != "key:"+hex.EncodeToString(want) {
		t.Errorf("the client id %s is not the key's PBKDF2 (%x, %v)", id, want, err)
	}
	if clientIDRounds < 1<<16 {
		t.Errorf("%d rounds", clientIDRounds)
	}
	if got := b.ClientID("s3cret", "198.51.100.1"); got != id {
		t.Errorf("one key, two processes: %s and %s", id, got)
	}
	if other := a.ClientID("other", "192.0.2.7"); other == id || other != b.ClientID("other", "192.0.2.7") {
		t.Errorf("ids of s3cret and other: %s, %s", id, other)
	}
}

// TestRateLimiterPeek: Peek tells whether the next request would be
// allowed, without counting one, in memory and on Redis (the jobs look
// before they plan a submission and count it after).
func TestRateLimiterPeek(t *testing.T) {
	srv := redistest.Start(t)
	client := redis.NewClient(&redis.Options{Addr: srv.Addr(), DialTimeout: time.Second, ReadTimeout: time.Second, WriteTimeout: time.Second})
	t.Cleanup(func() { _ = client.Close() })
	for name, c := range map[string]*redis.Client{"memory": nil, "redis": client} {
		rl, err := NewRateLimiter("2-M", c, 5*time.Second, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(rl.Close)
		for deadline := time.Now().Add(10 * time.Second); c != nil && rl.shared.Load() == nil; time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatal("the shared store never connected")
			}
		}
		ctx := context.Background()
		key := "peek:" + name
		for i := range 2 {
			for range 5 {
				if d := rl.Peek(ctx, key); !d.Allowed || d.Remaining != int64(2-i) {
					t.Fatalf("%s: peek before request %d: %+v", name, i+1, d)
				}
			}
			if d := rl.Allow(ctx, key); !d.Allowed {
				t.Fatalf("%s: request %d refused: %+v", name, i+1, d)
			}
		}
		if d := rl.Peek(ctx, key); d.Allowed {
			t.Errorf("%s: peek past the rate: %+v", name, d)
		}
		if d := rl.Allow(ctx, key); d.Allowed {
			t.Errorf("%s: a third request allowed: %+v", name, d)
		}
	}
}
