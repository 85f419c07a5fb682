package cache

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/sony/gobreaker/v2"
)

// RedisOptions configures the Redis backend. Zero values take the defaults
// in brackets.
type RedisOptions struct {
	// URL is a redis:// or rediss:// (TLS) URL, with user, password and
	// database as go-redis understands them.
	URL string
	// Timeout bounds every call, dial included [20ms]. With the breaker
	// it is what a dead or slow Redis costs a request at most.
	Timeout time.Duration
	// TTL is the default expiry of a stored value [7 days].
	TTL time.Duration
	// FailuresToOpen consecutive failures open the breaker [3].
	FailuresToOpen uint32
	// ConfirmTimeout bounds each PING of the confirmation a timeout
	// needs before it may open the breaker (see Redis) [10 x Timeout, at
	// least 200ms].
	ConfirmTimeout time.Duration
	// ProbeInterval is how often a closed breaker is probed in the
	// background with PING, an open one four times as often [1s].
	ProbeInterval time.Duration
	// OnStateChange, when set, is told when the breaker opens (with the
	// failure that opened it) or closes (cause nil).
	OnStateChange func(open bool, cause error)

	// unconfirmed counts timeouts at once, as before confirmations: the
	// overload harness's baseline, for tests only.
	unconfirmed bool
}

// Redis stores values in Redis. Every call runs through a circuit breaker:
// after FailuresToOpen consecutive failures calls fail at once with
// ErrUnavailable, and a background goroutine probes Redis until it answers,
// then closes the breaker so requests use it again.
//
// A timeout that would open the breaker is confirmed first. A timeout says
// that Redis, the network or this process was slow, and on a host whose
// CPU is overloaded it is mostly this process: the calling goroutine not
// scheduled in time (every P busy with searches, so the network is polled
// only every 10 ms; the threads preempted by other processes) while the
// reply waits in the socket. Three such in a row opened the breaker with
// Redis answering in well under a millisecond, and the service stopped
// using its cache when it most needed it (BENCHMARKS.md "The cache's
// breaker under CPU overload"). So that timeout does not count: a
// background confirmation PINGs Redis on a connection of its own, up to
// confirmPings times, ConfirmTimeout/4 apart, each PING given
// ConfirmTimeout, and counts as a success (the timeouts forgiven) as soon
// as one answers, as a failure (which opens the breaker) when none does or
// one is refused: a Redis down, frozen or slower than ConfirmTimeout still
// opens it, about 3 x ConfirmTimeout later. One slower than Timeout but
// faster than ConfirmTimeout does not: each call then costs its Timeout,
// as while the breaker confirms. (A PING's round trip cannot tell a slow
// Redis from a late process: on the overloaded host the best of three
// PINGs, 50 ms apart, took over 20 ms.) Other failures (refused, reset,
// Redis's errors) count at once.
type Redis struct {
	client  *redis.Client
	breaker *gobreaker.CircuitBreaker[any]
	opts    RedisOptions
	stop    chan struct{}
	wg      sync.WaitGroup

	// confirmClient has one connection, its timeouts ConfirmTimeout.
	confirmClient *redis.Client
	// closing ends when Close begins, and with it a confirmation's PING.
	closing    context.Context
	endClosing context.CancelFunc
	// confirming is set while a confirmation runs.
	confirming atomic.Bool
	// timeoutsMu serialises the check of whether a timeout would open
	// the breaker; countingTimeouts are the timeouts that check let
	// through whose failure the breaker may not have counted yet.
	timeoutsMu       sync.Mutex
	countingTimeouts uint32

	mu        sync.Mutex
	closed    bool // Close was called: no confirmation starts
	lastError error
	openSince time.Time
}

// NewRedis connects lazily: it never fails because Redis is down, only
// because the URL is malformed.
func NewRedis(opts RedisOptions) (*Redis, error) {
	if opts.Timeout <= 0 {
		opts.Timeout = 20 * time.Millisecond
	}
	if opts.TTL <= 0 {
		opts.TTL = 7 * 24 * time.Hour
	}
	if opts.FailuresToOpen == 0 {
		opts.FailuresToOpen = 3
	}
	if opts.ProbeInterval <= 0 {
		opts.ProbeInterval = time.Second
	}
	if opts.ConfirmTimeout <= 0 {
		opts.ConfirmTimeout = max(10*opts.Timeout, 200*time.Millisecond)
	}
	ro, err := ParseRedisURL(opts.URL)
	if err != nil {
		return nil, err
	}
	ro.DialTimeout = opts.Timeout
	ro.ReadTimeout = opts.Timeout
	ro.WriteTimeout = opts.Timeout
	ro.PoolTimeout = opts.Timeout
	ro.ContextTimeoutEnabled = true
	ro.MaxRetries = -1 // the breaker and the caller decide about retries
	co := *ro
	co.DialTimeout, co.ReadTimeout, co.WriteTimeout, co.PoolTimeout = opts.ConfirmTimeout, opts.ConfirmTimeout, opts.ConfirmTimeout, opts.ConfirmTimeout
	co.PoolSize, co.MaxIdleConns = 1, 1
	r := &Redis{client: redis.NewClient(ro), confirmClient: redis.NewClient(&co), opts: opts, stop: make(chan struct{})}
	r.closing, r.endClosing = context.WithCancel(context.Background())
	r.breaker = gobreaker.NewCircuitBreaker[any](gobreaker.Settings{
		Name:        "redis",
		MaxRequests: 1,
		Timeout:     opts.ProbeInterval,
		ReadyToTrip: func(c gobreaker.Counts) bool { return c.ConsecutiveFailures >= opts.FailuresToOpen },
		// A caller that gave up, or whose deadline came first, says
		// nothing about Redis; a timeout under confirmation says
		// nothing yet.
		IsExcluded: func(err error) bool {
			return errors.Is(err, context.Canceled) || errors.Is(err, errCallerEnded) || errors.Is(err, errUnconfirmed) ||
				errors.Is(err, errClosed)
		},
		OnStateChange: func(_ string, from, to gobreaker.State) {
			r.mu.Lock()
			if to == gobreaker.StateOpen && from == gobreaker.StateClosed {
				r.openSince = time.Now()
			}
			r.mu.Unlock()
			if opts.OnStateChange == nil {
				return
			}
			switch {
			case from == gobreaker.StateClosed && to == gobreaker.StateOpen:
				opts.OnStateChange(true, r.lastErr())
			case to == gobreaker.StateClosed:
				opts.OnStateChange(false, nil)
			}
		},
	})
	r.wg.Add(1)
	go r.probe()
	return r, nil
}

// errCallerEnded marks a call's error when the caller's context ended
// first: the breaker does not count it (an optional read given a few
// milliseconds, say).
var errCallerEnded = errors.New("the caller's context ended")

// Client exposes the connection for other Redis users of the service (jobs,
// rate limits), so that one process keeps one pool.
func (r *Redis) Client() *redis.Client { return r.client }

// do runs one call under the per-call timeout and the breaker.
func (r *Redis) do(ctx context.Context, call func(ctx context.Context) (any, error)) (any, error) {
	counting := false // a timeout let through to the breaker's count
	defer func() {
		if counting { // (its failure counted now: Execute returned)
			r.timeoutsMu.Lock()
			r.countingTimeouts--
			r.timeoutsMu.Unlock()
		}
	}()
	v, err := r.breaker.Execute(func() (any, error) {
		callCtx, cancel := context.WithTimeout(ctx, r.opts.Timeout)
		defer cancel()
		callerDeadline, binding := ctx.Deadline()
		if d, _ := callCtx.Deadline(); binding && callerDeadline.After(d) {
			binding = false // the call's timeout comes first
		}
		v, err := call(callCtx)
		if err != nil && (ctx.Err() != nil || binding && !time.Now().Before(callerDeadline)) {
			// The caller's own deadline (shorter than the call's
			// timeout) or cancel ended it: nothing said about Redis.
			// (The socket's deadline, set from the caller's, may fire
			// before the context's timer marks it done: a call failed
			// so was counted under load, and opened the breaker.)
			return v, fmt.Errorf("%w: %w", errCallerEnded, err)
		}
		if err != nil && !r.opts.unconfirmed && isTimeout(err) {
			if !r.countTimeout() {
				r.confirm()
				return v, fmt.Errorf("%w: %w", errUnconfirmed, err)
			}
			counting = true
		}
		if err != nil && !errors.Is(err, context.Canceled) {
			// Before the breaker counts it: the failure that opens it
			// is the one OnStateChange reports.
			r.mu.Lock()
			r.lastError = err
			r.mu.Unlock()
		}
		return v, err
	})
	if errors.Is(err, gobreaker.ErrOpenState) || errors.Is(err, gobreaker.ErrTooManyRequests) {
		return nil, fmt.Errorf("%w: %v", ErrUnavailable, r.lastErr())
	}
	return v, err
}

// errUnconfirmed marks a timeout that would have opened the breaker: the
// breaker does not count it, a confirmation decides (see Redis).
var errUnconfirmed = errors.New("timeout under confirmation")

// errClosed marks a confirmation that Close ended: the breaker does not
// count it.
var errClosed = errors.New("closed while confirming a timeout")

// confirmPings is the most PINGs a confirmation sends.
const confirmPings = 3

// isTimeout reports whether err is a call's own timeout: the socket's
// deadline, the call's context, or the wait for a pooled connection.
func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, redis.ErrPoolTimeout) ||
		errors.As(err, &ne) && ne.Timeout()
}

// countTimeout reports whether a timeout may be counted as a failure: not
// when it would open the breaker, counting with the timeouts let through
// that the breaker has not counted yet (several calls timing out together,
// as a late process's do, each saw the breaker a failure or two short of
// opening and together opened it unconfirmed). Counted, it is one of them
// until its call's Execute returns.
func (r *Redis) countTimeout() bool {
	r.timeoutsMu.Lock()
	defer r.timeoutsMu.Unlock()
	switch r.breaker.State() {
	case gobreaker.StateHalfOpen:
		return false
	case gobreaker.StateClosed:
		if r.breaker.Counts().ConsecutiveFailures+r.countingTimeouts+1 >= r.opts.FailuresToOpen {
			return false
		}
	}
	r.countingTimeouts++
	return true
}

// confirm starts a confirmation unless one runs: a call through the
// breaker, a success or a failure of its own (see Redis).
func (r *Redis) confirm() {
	// Under mu, which Close takes to close stop: an Add after Close's
	// Wait began would be a misuse of the WaitGroup.
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed || !r.confirming.CompareAndSwap(false, true) {
		return
	}
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		defer r.confirming.Store(false)
		_, _ = r.breaker.Execute(func() (any, error) {
			err := r.pingWithin()
			if err != nil && r.closing.Err() != nil {
				// Close ended it: nothing said about Redis.
				return nil, fmt.Errorf("%w: %w", errClosed, err)
			}
			if err != nil {
				r.mu.Lock()
				r.lastError = err
				r.mu.Unlock()
			}
			return nil, err
		})
	}()
}

// pingWithin PINGs Redis up to confirmPings times, ConfirmTimeout/4
// apart, each given ConfirmTimeout: nil as soon as one answers, an error
// that is no timeout at once (refused, reset: Redis's doing), else the
// last timeout.
func (r *Redis) pingWithin() error {
	var err error
	for i := range confirmPings {
		if i > 0 {
			// Apart, so that one burst of lateness does not delay
			// them all.
			select {
			case <-r.closing.Done():
				return errClosed
			case <-time.After(r.opts.ConfirmTimeout / 4):
			}
		}
		ctx, cancel := context.WithTimeout(r.closing, r.opts.ConfirmTimeout)
		err = r.confirmClient.Ping(ctx).Err()
		cancel()
		if err == nil {
			return nil
		}
		if !isTimeout(err) {
			return fmt.Errorf("a PING confirming a timeout: %w", err)
		}
	}
	return fmt.Errorf("%d PINGs confirming a timeout timed out: %w", confirmPings, err)
}

func (r *Redis) lastErr() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.lastError
}

// Get implements Cache.
func (r *Redis) Get(ctx context.Context, key string) ([]byte, bool, error) {
	v, err := r.do(ctx, func(ctx context.Context) (any, error) {
		b, err := r.client.Get(ctx, key).Bytes()
		if errors.Is(err, redis.Nil) {
			return nil, nil
		}
		return b, err
	})
	if err != nil || v == nil {
		return nil, false, err
	}
	b, _ := v.([]byte)
	return b, b != nil, nil
}

// Set implements Cache.
func (r *Redis) Set(ctx context.Context, key string, value []byte, ttl time.Duration) error {
	if ttl == 0 {
		ttl = r.opts.TTL
	}
	_, err := r.do(ctx, func(ctx context.Context) (any, error) {
		return nil, r.client.Set(ctx, key, value, ttl).Err()
	})
	return err
}

// SetMany stores several values in one round trip (a pipeline).
func (r *Redis) SetMany(ctx context.Context, values map[string][]byte, ttl time.Duration) error {
	if ttl == 0 {
		ttl = r.opts.TTL
	}
	_, err := r.do(ctx, func(ctx context.Context) (any, error) {
		_, err := r.client.Pipelined(ctx, func(p redis.Pipeliner) error {
			for k, v := range values {
				p.Set(ctx, k, v, ttl)
			}
			return nil
		})
		return nil, err
	})
	return err
}

// Open reports whether the breaker currently refuses calls.
func (r *Redis) Open() bool { return r.breaker.State() != gobreaker.StateClosed }

// probe pings Redis in the background: four times a ProbeInterval while
// the breaker is not closed, so that requests do not pay for finding out
// that Redis is back; once a ProbeInterval while it is closed, so that a
// Redis gone dead or frozen opens it (and redis_up says so) in a process
// with no traffic too.
func (r *Redis) probe() {
	defer r.wg.Done()
	t := time.NewTicker(r.opts.ProbeInterval / 4)
	defer t.Stop()
	for tick := 1; ; tick++ {
		select {
		case <-r.stop:
			return
		case <-t.C:
			if r.breaker.State() == gobreaker.StateClosed && tick%4 != 0 {
				continue
			}
			_, _ = r.do(context.Background(), func(ctx context.Context) (any, error) {
				return nil, r.client.Ping(ctx).Err()
			})
		}
	}
}

// Health implements Cache. It pings Redis unless the breaker is open.
func (r *Redis) Health(ctx context.Context) Health {
	h := Health{Backend: "redis", Reachable: true}
	if r.Open() {
		h.Reachable = false
		r.mu.Lock()
		h.Detail = fmt.Sprintf("circuit open since %s: %s", r.openSince.UTC().Format(time.RFC3339), publicError(r.lastError))
		r.mu.Unlock()
		return h
	}
	if _, err := r.do(ctx, func(ctx context.Context) (any, error) { return nil, r.client.Ping(ctx).Err() }); err != nil {
		h.Reachable, h.Detail = false, publicError(err)
	}
	return h
}

// publicError is err said without the network's addresses, for /readyz,
// which anyone reaching the API reads (a dial's error named Redis's
// address, a name resolution the cluster's DNS server): the breaker's log
// line (OnStateChange) keeps the whole error.
func publicError(err error) string {
	var dns *net.DNSError
	var op *net.OpError
	switch {
	case err == nil:
		return "unknown error"
	case errors.As(err, &dns):
		return "Redis's host name did not resolve"
	case errors.As(err, &op) && op.Err != nil:
		return op.Op + ": " + op.Err.Error()
	}
	return err.Error()
}

// Close implements Cache.
func (r *Redis) Close() error {
	r.mu.Lock()
	r.closed = true
	close(r.stop)
	r.mu.Unlock()
	// A confirmation's PING ends now, not ConfirmTimeout later: its
	// dial with the context, its read with the connection.
	r.endClosing()
	_ = r.confirmClient.Close()
	r.wg.Wait()
	return r.client.Close()
}

// afterHost is the path, query and fragment of a URL's text.
func afterHost(raw string) string {
	_, rest, _ := strings.Cut(raw, "://")
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		return rest[i:]
	}
	return ""
}

// ParseRedisURL is redis.ParseURL with errors that never show the URL: a
// URL that does not parse (a password with an unencoded '/' or '#') made
// net/url's error quote it whole, password included, into the logs and
// the terminal.
func ParseRedisURL(raw string) (*redis.Options, error) {
	o, err := redis.ParseURL(raw)
	var ue *url.Error
	switch {
	case errors.As(err, &ue), err != nil && strings.Contains(afterHost(raw), "@"):
		// (An @ after the host: a password with an unencoded / or ?
		// parsed as the path or the query, which go-redis's errors quote.)
		return nil, errors.New("REDIS_URL is not a valid URL (its text is not shown: it may hold a password); characters such as / # ? @ : in a user name or password must be percent-encoded (%2F %23 %3F %40 %3A)")
	case err != nil:
		return nil, fmt.Errorf("REDIS_URL: %w", err) // go-redis's own: scheme, database, options
	}
	return o, nil
}
