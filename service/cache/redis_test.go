package cache

import (
	"context"
	"errors"
	"net"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gamesolver/gamesolver/service/redistest"
)

func TestRedisRoundTripWithTTL(t *testing.T) {
	srv := redistest.Start(t)
	r, err := NewRedis(RedisOptions{URL: srv.URL(), Timeout: time.Second}) // a loaded CI machine misses 20 ms
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ctx := context.Background()
	if err := r.Set(ctx, "k", []byte("value"), time.Second); err != nil {
		t.Fatal(err)
	}
	if v, ok, err := r.Get(ctx, "k"); err != nil || !ok || string(v) != "value" {
		t.Fatalf("Get = %q, %v, %v", v, ok, err)
	}
	ttl, err := r.Client().PTTL(ctx, "k").Result()
	if err != nil || ttl <= 0 || ttl > time.Second {
		t.Fatalf("PTTL = %v, %v; want in (0, 1s]", ttl, err)
	}
	if _, ok, err := r.Get(ctx, "absent"); ok || err != nil {
		t.Fatalf("Get(absent) = %v, %v", ok, err)
	}
	if err := r.SetMany(ctx, map[string][]byte{"a": []byte("1"), "b": []byte("2")}, time.Minute); err != nil {
		t.Fatal(err)
	}
	if v, _ := r.Client().MGet(ctx, "a", "b").Result(); v[0] != "1" || v[1] != "2" {
		t.Fatalf("pipelined values = %v", v)
	}
}

func TestRedisDeadCostsLittleAndRecovers(t *testing.T) {
	srv := redistest.Start(t)
	var opened, closed atomic.Int32
	var cause atomic.Value
	r, err := NewRedis(RedisOptions{URL: srv.URL(), Timeout: time.Second, ProbeInterval: 200 * time.Millisecond,
		OnStateChange: func(open bool, err error) {
			if open {
				opened.Add(1)
				if err != nil {
					cause.Store(err.Error())
				}
			} else {
				closed.Add(1)
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ctx := context.Background()
	if err := r.Set(ctx, "k", []byte("v"), 0); err != nil {
		t.Fatal(err)
	}
	srv.Kill()

	for i := 0; i < 10; i++ {
		_, ok, err := r.Get(ctx, "k")
		if ok || err == nil {
			t.Fatalf("Get on a dead Redis = %v, %v", ok, err)
		}
	}
	if !r.Open() {
		t.Fatal("breaker still closed after 10 failures")
	}
	// The log says why (a missing password or a wrong database read as
	// "unreachable", without the cause).
	if c, _ := cause.Load().(string); !strings.Contains(c, "refused") {
		t.Errorf("the breaker opened with cause %q, want the dial's refusal", c)
	}
	start := time.Now()
	for i := 0; i < 100; i++ {
		if _, _, err := r.Get(ctx, "k"); !errors.Is(err, ErrUnavailable) {
			t.Fatalf("open breaker error = %v, want ErrUnavailable", err)
		}
	}
	if per := time.Since(start) / 100; per > 5*time.Millisecond {
		t.Errorf("a call with the breaker open costs %v", per)
	}
	// /readyz says why without Redis's address (anyone reaching the API
	// reads it: a security review), the log line with it.
	u, _ := url.Parse(srv.URL())
	if h := r.Health(ctx); h.Reachable || !strings.Contains(h.Detail, "refused") || strings.Contains(h.Detail, u.Port()) {
		t.Errorf("Health while dead = %+v", h)
	}
	if c, _ := cause.Load().(string); !strings.Contains(c, u.Port()) {
		t.Errorf("the breaker's cause %q without the address", c)
	}

	srv.Restart()
	deadline := time.Now().Add(10 * time.Second)
	for r.Open() {
		if time.Now().After(deadline) {
			t.Fatal("breaker did not close after Redis came back")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if v, ok, err := r.Get(ctx, "k"); err != nil || !ok || string(v) != "v" {
		t.Fatalf("after restart Get = %q, %v, %v (append-only file should keep k)", v, ok, err)
	}
	if h := r.Health(ctx); !h.Reachable {
		t.Errorf("Health after restart = %+v", h)
	}
	if opened.Load() != 1 || closed.Load() != 1 {
		t.Errorf("state changes: opened %d, closed %d; want 1 and 1", opened.Load(), closed.Load())
	}
}

// TestRedisFrozenOpensWithoutTraffic: a Redis that accepts connections and
// never answers opens the breaker (and redis_up falls to 0) in a process
// that makes no call of its own, once the PINGs confirming its timeouts
// timed out too.
func TestRedisFrozenOpensWithoutTraffic(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go holdConns(ln)
	opened := make(chan error, 1)
	r, err := NewRedis(RedisOptions{URL: "redis://" + ln.Addr().String(), Timeout: 20 * time.Millisecond, ProbeInterval: 100 * time.Millisecond,
		OnStateChange: func(open bool, cause error) {
			if open {
				select {
				case opened <- cause:
				default:
				}
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	select {
	case cause := <-opened:
		if cause == nil || !strings.Contains(cause.Error(), "3 PINGs confirming a timeout timed out") {
			t.Errorf("opened with cause %v, want the confirmation's", cause)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the breaker stayed closed with a frozen Redis and no calls")
	}
	if h := r.Health(context.Background()); h.Reachable {
		t.Errorf("Health = %+v", h)
	}
}

// holdConns accepts connections and never answers, as a Redis stopped
// with SIGSTOP does.
func holdConns(ln net.Listener) {
	var held []net.Conn
	defer func() {
		for _, c := range held {
			c.Close()
		}
	}()
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		held = append(held, c)
	}
}

func TestTieredServesFromMemoryWhileRedisIsDown(t *testing.T) {
	srv := redistest.Start(t)
	r, err := NewRedis(RedisOptions{URL: srv.URL(), Timeout: time.Second}) // a loaded CI machine misses 20 ms
	if err != nil {
		t.Fatal(err)
	}
	tc := &Tiered{Near: NewMemory(1<<20, 0), Far: r}
	defer tc.Close()
	ctx := context.Background()
	_ = tc.Set(ctx, "k", []byte("v"), 0)
	srv.Kill()
	if v, ok, _ := tc.Get(ctx, "k"); !ok || string(v) != "v" {
		t.Errorf("tiered Get with Redis dead = %q, %v", v, ok)
	}
	if h := tc.Health(ctx); h.Backend != "redis+memory" || h.Reachable || h.Entries != 1 {
		t.Errorf("Health = %+v", h)
	}
}

func TestRedisBadURL(t *testing.T) {
	if _, err := NewRedis(RedisOptions{URL: "http://nope"}); err == nil {
		t.Error("NewRedis accepted a non-redis URL")
	}
}

// A REDIS_URL that does not parse is named in no error: net/url quoted it
// whole, password included (an audit's unencoded '/' in a password).
func TestRedisBadURLHidesPassword(t *testing.T) {
	for _, raw := range []string{"redis://:s3c/retPW@127.0.0.1:6379/0", "redis://user:p#ss@host:6379", "redis://:pa ss@host:6379",
		// Valid URLs whose password went to the path or the query, which
		// go-redis's errors quote.
		"redis://:1234/s3cretPW@127.0.0.1:6379/0", "redis://default:9876?s3cretPW@127.0.0.1:6379", "redis://:p@ss/s3c#x@host:6379"} {
		_, err := NewRedis(RedisOptions{URL: raw})
		if err == nil {
			t.Errorf("%s: accepted", raw)
			continue
		}
		for _, secret := range []string{"s3c", "retPW", "p#ss", "pa ss", "ss@"} {
			if strings.Contains(raw, secret) && strings.Contains(err.Error(), secret) {
				t.Errorf("the error shows %q: %v", secret, err)
			}
		}
	}
	if _, err := ParseRedisURL("redis://127.0.0.1:6379/x"); err == nil || !strings.Contains(err.Error(), "database") {
		t.Errorf("go-redis's own error, kept: %v", err)
	}
}

// lateCall is a Redis call whose goroutine was not scheduled again until
// its timeout had passed, as on a host whose CPU is overloaded: it fails
// with its context's deadline, whatever Redis did.
func lateCall(ctx context.Context) (any, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

// TestRedisLateCallsConfirmed: timeouts of a process too late to read
// Redis's answers do not open the breaker while Redis answers a PING;
// they opened it after three before confirmations.
func TestRedisLateCallsConfirmed(t *testing.T) {
	srv := redistest.Start(t)
	var opened atomic.Int32
	r, err := NewRedis(RedisOptions{URL: srv.URL(), Timeout: 20 * time.Millisecond, ConfirmTimeout: 10 * time.Second, ProbeInterval: time.Hour,
		OnStateChange: func(open bool, _ error) { opened.Add(1) }})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ctx := context.Background()
	for i := range 10 {
		if _, err := r.do(ctx, lateCall); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("late call %d: %v, want its timeout", i, err)
		}
		waitFor(t, func() bool { return !r.confirming.Load() })
	}
	if r.Open() || opened.Load() != 0 {
		t.Fatalf("ten late calls opened the breaker with Redis answering (%d state changes)", opened.Load())
	}
	if err := r.Set(ctx, "k", []byte("v"), 0); err != nil {
		t.Fatal(err)
	}
	if v, ok, err := r.Get(ctx, "k"); !ok || err != nil || string(v) != "v" {
		t.Fatalf("after them: %q %v %v", v, ok, err)
	}
}

// TestRedisLateCallsTogetherConfirmed: late calls that time out together
// (a process descheduled at once: every call in flight late) do not open
// the breaker while Redis answers a PING. Each saw the breaker one
// failure short of opening, none counted against the others' checks, and
// together they opened it unconfirmed.
func TestRedisLateCallsTogetherConfirmed(t *testing.T) {
	srv := redistest.Start(t)
	var opened atomic.Int32
	r, err := NewRedis(RedisOptions{URL: srv.URL(), Timeout: 20 * time.Millisecond, ConfirmTimeout: 10 * time.Second, ProbeInterval: time.Hour,
		OnStateChange: func(open bool, _ error) {
			if open {
				opened.Add(1)
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	const together = 8
	for round := range 20 {
		var late sync.WaitGroup
		late.Add(together)
		release := make(chan struct{})
		var calls sync.WaitGroup
		for range together {
			calls.Add(1)
			go func() {
				defer calls.Done()
				_, _ = r.do(context.Background(), func(ctx context.Context) (any, error) {
					<-ctx.Done()
					late.Done()
					<-release // all of them late at once
					return nil, ctx.Err()
				})
			}()
		}
		late.Wait()
		close(release)
		calls.Wait()
		waitFor(t, func() bool { return !r.confirming.Load() })
		if r.Open() || opened.Load() != 0 {
			t.Fatalf("round %d: %d late calls together opened the breaker with Redis answering", round, together)
		}
	}
}

// TestRedisCloseEndsConfirmation: Close during a confirmation does not
// wait for its PING (ConfirmTimeout, ten times Timeout) and is no failure
// of Redis's: the breaker is not opened by it, nor a cause logged.
func TestRedisCloseEndsConfirmation(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go holdConns(ln)
	var causes []error
	var mu sync.Mutex
	r, err := NewRedis(RedisOptions{URL: "redis://" + ln.Addr().String(), Timeout: 20 * time.Millisecond, ConfirmTimeout: 10 * time.Second, ProbeInterval: time.Hour,
		OnStateChange: func(open bool, cause error) {
			if open {
				mu.Lock()
				causes = append(causes, cause)
				mu.Unlock()
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		_, _ = r.do(context.Background(), lateCall)
	}
	if !r.confirming.Load() {
		t.Fatal("three timeouts started no confirmation")
	}
	time.Sleep(50 * time.Millisecond) // its first PING unanswered
	start := time.Now()
	_ = r.Close()
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("Close took %v, waiting for the confirmation's PING", took)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(causes) != 0 {
		t.Errorf("Close during a confirmation opened the breaker: %v", causes)
	}
}
