package cache

import (
	"bytes"
	"context"
	"fmt"
	"runtime/debug"
	"sync"
	"time"
)

// Loader answers from a cache and otherwise computes, merging concurrent
// identical misses into one computation (single flight).
//
// Unlike golang.org/x/sync/singleflight, the shared computation is canceled
// when every caller waiting for it has gone away (each caller's context), so
// a search nobody waits for stops; and it is not canceled while one caller
// still waits.
type Loader struct {
	cache Cache
	ttl   time.Duration

	mu    sync.Mutex
	calls map[string]*call
}

// Compute produces the value for a key; cacheable false keeps an answer
// (for example an unproven one) out of the cache.
type Compute func(ctx context.Context) (value []byte, cacheable bool, err error)

// Origin says where a value came from.
type Origin int

// Origins of a value.
const (
	Computed Origin = iota // this caller's computation ran
	Shared                 // another caller's identical computation ran
	Cached                 // the cache had it
)

type call struct {
	key     string
	done    chan struct{}
	cancel  context.CancelFunc
	waiters int
	value   []byte
	err     error
	// settled is a final value another flight of the key found while
	// this one ran: this one is canceled and answers it.
	settled []byte
	// abandoned: every caller left; the call is canceled and forgotten.
	abandoned bool
}

// NewLoader returns a loader over c storing values for ttl (0: the
// backend's default).
func NewLoader(c Cache, ttl time.Duration) *Loader {
	return &Loader{cache: c, ttl: ttl, calls: make(map[string]*call)}
}

// Cache returns the cache the loader reads and fills.
func (l *Loader) Cache() Cache { return l.cache }

// Replace stores a better value for a key already cached (with the
// loader's ttl), such as an answer completed after it was first stored.
func (l *Loader) Replace(ctx context.Context, key string, value []byte) error {
	return l.cache.Set(ctx, key, value, l.ttl)
}

// Load returns the value for key from the cache, from a computation already
// under way for the same key, or by running compute.
func (l *Loader) Load(ctx context.Context, key string, compute Compute) ([]byte, Origin, error) {
	return l.LoadFlight(ctx, key, key, compute)
}

// LoadFlight is Load where only callers with the same flight join one
// computation: a final value is the same for every caller of a key, but a
// partial one depends on what the flight names besides the key (a time
// budget: a caller with a longer budget must not get a shorter one's
// partial answer, nor a caller with a shorter one wait for a longer).
func (l *Loader) LoadFlight(ctx context.Context, key, flight string, compute Compute) ([]byte, Origin, error) {
	return l.LoadChecked(ctx, key, flight, nil, compute)
}

// Valid vets a value found in the cache.
type Valid func(value []byte) bool

// LoadChecked is LoadFlight where valid (nil: every value) vets what the
// cache holds: a value it refuses (corrupt, or written by other code)
// counts as a miss, and the computed value, when final, replaces it.
func (l *Loader) LoadChecked(ctx context.Context, key, flight string, valid Valid, compute Compute) ([]byte, Origin, error) {
	if v, ok, _ := l.cache.Get(ctx, key); ok {
		if valid == nil || valid(v) {
			return v, Cached, nil
		}
		// Refused: another process may have stored better (a partial
		// answer completed), which a near layer hides.
		if fv, ok, _ := l.cache.Get(Uncounted(Fresh(ctx)), key); ok && !bytes.Equal(fv, v) && valid(fv) {
			return fv, Cached, nil
		}
	}
	l.mu.Lock()
	c, joined := l.calls[flight]
	if joined {
		c.waiters++
	} else {
		// The computation outlives the first caller when others join,
		// so it gets its own cancellation, keeping the caller's values.
		cctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
		if d, ok := ctx.Deadline(); ok {
			cctx, cancel = withDeadline(cctx, cancel, d)
		}
		c = &call{key: key, done: make(chan struct{}), cancel: cancel, waiters: 1}
		l.calls[flight] = c
		go l.run(cctx, key, flight, c, compute)
	}
	l.mu.Unlock()

	select {
	case <-c.done:
		if joined {
			return c.value, Shared, c.err
		}
		return c.value, Computed, c.err
	case <-ctx.Done():
		l.mu.Lock()
		c.waiters--
		if c.waiters == 0 {
			c.cancel()
			// A caller arriving while the canceled computation unwinds
			// starts a new one rather than getting its cancellation (a
			// job unit handed back and run again at once, a client
			// that retries).
			c.abandoned = true
			if l.calls[flight] == c {
				delete(l.calls, flight)
			}
		}
		l.mu.Unlock()
		return nil, Computed, ctx.Err()
	}
}

func withDeadline(ctx context.Context, cancel context.CancelFunc, d time.Time) (context.Context, context.CancelFunc) {
	dctx, dcancel := context.WithDeadline(ctx, d)
	return dctx, func() { dcancel(); cancel() }
}

func (l *Loader) run(ctx context.Context, key, flight string, c *call, compute Compute) {
	defer c.cancel()
	value, cacheable, err := safeCompute(ctx, compute)
	final := err == nil && cacheable
	l.mu.Lock()
	// Abandoned by its callers (and forgotten, so that a newer call of
	// the flight may have stored, and a caller completed, the value since),
	// a computation stores nothing and settles nothing; settled by another
	// flight's final value (stored already), it stores nothing either: it
	// was stopped, and what it made of its stop must not overwrite that
	// value.
	final = final && !c.abandoned && c.settled == nil
	l.mu.Unlock()
	if final {
		// Stored before the call is forgotten, so that a caller arriving
		// in between finds it in the cache.
		_ = l.cache.Set(context.WithoutCancel(ctx), key, value, l.ttl)
	}
	l.mu.Lock()
	if c.settled != nil {
		value, err = c.settled, nil
	}
	c.value, c.err = value, err
	if l.calls[flight] == c {
		delete(l.calls, flight)
	}
	if final {
		// Other flights of the key (other budgets) need not search on:
		// they stop and answer the final value.
		for _, o := range l.calls {
			if o.key == key && o.settled == nil {
				o.settled = value
				o.cancel()
			}
		}
	}
	l.mu.Unlock()
	close(c.done)
}

// PanicError carries a panic out of a computation that ran on the loader's
// goroutine, where no HTTP recovery could catch it.
type PanicError struct {
	Value any
	Stack []byte
}

func (p *PanicError) Error() string { return fmt.Sprintf("panic in computation: %v", p.Value) }

func safeCompute(ctx context.Context, compute Compute) (value []byte, cacheable bool, err error) {
	defer func() {
		if r := recover(); r != nil {
			value, cacheable, err = nil, false, &PanicError{Value: r, Stack: debug.Stack()}
		}
	}()
	return compute(ctx)
}
