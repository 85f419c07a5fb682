// Package buildcache keeps the engines' compiled games: built once per
// configuration, a few at once, within a memory budget, the most recently
// used kept first. The polyomino and capture engines share its build
// slots, so that new boards of either game never take every core from the
// searches.
package buildcache

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
)

// ErrFull is what Get's error for a new key is (errors.Is) when
// Limits.Pending keys already wait for their build (and the caller asked
// to be bounded).
var ErrFull = errors.New("build queue full")

// fullError is Get's ErrFull, saying how many wait.
type fullError struct{ pending int }

func (e fullError) Error() string {
	return fmt.Sprintf("%d game configurations are waiting to be built, the most at once: retry in a moment", e.pending)
}

func (e fullError) Is(target error) bool { return target == ErrFull }

// GameLimits bound each engine's cache of compiled games: the built games
// kept, by their estimated size (a 16 x 16 hexomino board is about 11 MB:
// 64 of them, each with a blocked cell of its own, held 770 MB of a server
// whose memory limit was 640 MiB) and by number; and the configurations
// waiting for a build.
var GameLimits = Limits{Bytes: 64 << 20, Entries: 64, Pending: 32}

// Games returns a cache of an engine's compiled games: GameLimits, the
// shared build slots, size the estimate of a game's bytes.
func Games[V any](size func(V) int64) *Cache[V] { return New(GameLimits, shared, size) }

// Slots bounds the builds that run at once: a build runs while it holds
// one of the channel's places.
type Slots chan struct{}

// shared are the build slots of every cache made with Games: every core
// but one (at least one). A build takes up to a few tenths of a second
// (the 16 x 16 hexomino board with a new blocked cell), and twenty new
// boards at once took every core from the searches and the cheap
// requests for seconds.
var shared = make(Slots, max(1, runtime.GOMAXPROCS(0)-1))

// Shared returns the build slots the engines share.
func Shared() Slots { return shared }

// Limits bounds a cache.
type Limits struct {
	// Bytes and Entries bound the built values kept (by their size
	// function's estimate, and by number); the least recently used leave
	// first. A value bigger than Bytes alone is kept.
	Bytes   int64
	Entries int
	// Pending bounds the keys waiting for their build (queued or
	// building) beyond which a bounded Get of a new key fails (ErrFull).
	Pending int
}

// Cache builds values by key, once, and keeps them within its Limits. It
// is safe for concurrent use.
type Cache[V any] struct {
	limits Limits
	slots  Slots
	size   func(V) int64

	mu      sync.Mutex
	m       map[string]*entry[V]
	bytes   int64  // the built values' sizes
	built   int    // the built values
	pending int    // entries not built yet (queued or building)
	tick    uint64 // the last use's
}

// entry is a value of the cache, built once; its fields but done are
// guarded by the cache's mutex, v and err are set before done closes.
type entry[V any] struct {
	key     string
	done    chan struct{}
	cancel  context.CancelFunc // drops the build while it waits for a slot
	v       V
	err     error
	size    int64  // size(v), once built
	used    uint64 // the cache's tick at its last use
	waiters int    // callers waiting for the build
	started bool   // the build has its slot
}

// New returns an empty cache whose builds take slots, and whose values
// weigh size(v) bytes each.
func New[V any](limits Limits, slots Slots, size func(V) int64) *Cache[V] {
	return &Cache[V]{limits: limits, slots: slots, size: size, m: map[string]*entry[V]{}}
}

// Get returns key's value, built (by build, with a slot) if the cache does
// not hold it. Concurrent first callers of a key wait for one build (a
// hundred clients arriving at once used to build it a hundred times,
// stalling every other request for most of a second). A caller whose ctx
// ends stops waiting (ctx.Err()), and a build no caller waits for any
// more leaves the queue unbuilt (a hundred abandoned requests were built
// one after the other, ahead of every new configuration). When bounded, a
// new key while Limits.Pending wait is refused at once (ErrFull); the
// unbounded callers (an engine's own: a job's units, the opening book,
// whose requests were admitted) wait however long the queue. A build that
// fails is not kept: the next caller builds again. A build that panics
// fails with the panic's value.
func (c *Cache[V]) Get(ctx context.Context, key string, bounded bool, build func() (V, error)) (V, error) {
	var zero V
	c.mu.Lock()
	e, ok := c.m[key]
	if !ok {
		if bounded && c.pending >= c.limits.Pending {
			c.mu.Unlock()
			return zero, fullError{c.limits.Pending}
		}
		bctx, cancel := context.WithCancel(context.Background())
		e = &entry[V]{key: key, done: make(chan struct{}), cancel: cancel}
		c.m[key] = e
		c.pending++
		go c.build(bctx, e, build)
	}
	c.tick++
	e.used = c.tick
	e.waiters++
	c.mu.Unlock()
	select {
	case <-e.done:
	case <-ctx.Done():
		select {
		case <-e.done: // built meanwhile: served
		default:
			c.mu.Lock()
			e.waiters--
			if e.waiters == 0 && !e.started {
				// Nobody wants it any more: it leaves the queue, at
				// once (its build's goroutine ends when it sees ctx
				// canceled).
				e.cancel()
				if c.m[key] == e {
					delete(c.m, key)
				}
				c.pending--
			}
			c.mu.Unlock()
			return zero, ctx.Err()
		}
	}
	c.mu.Lock()
	e.waiters--
	c.mu.Unlock()
	return e.v, e.err
}

// build makes e's value when a slot is free, unless every caller left
// first (ctx canceled: Get took it out of the queue), and keeps it.
func (c *Cache[V]) build(ctx context.Context, e *entry[V], build func() (V, error)) {
	defer close(e.done)
	defer e.cancel()
	select {
	case c.slots <- struct{}{}:
	case <-ctx.Done():
		e.err = ctx.Err()
		return
	}
	c.mu.Lock()
	if ctx.Err() != nil { // the last caller left as the slot came
		c.mu.Unlock()
		<-c.slots
		e.err = ctx.Err()
		return
	}
	e.started = true
	c.mu.Unlock()
	func() {
		defer func() {
			if v := recover(); v != nil {
				e.err = fmt.Errorf("building the game: %v", v)
			}
		}()
		defer func() { <-c.slots }()
		e.v, e.err = build()
	}()
	var size int64
	if e.err == nil {
		size = max(1, c.size(e.v)) // outside the lock: it may walk the value
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pending--
	if e.err != nil {
		// Not kept: the cache holds built values only.
		if c.m[e.key] == e {
			delete(c.m, e.key)
		}
		return
	}
	e.size = size
	c.bytes += e.size
	c.built++
	for c.bytes > c.limits.Bytes || c.built > c.limits.Entries {
		var old *entry[V]
		for _, o := range c.m {
			if o != e && o.size > 0 && (old == nil || o.used < old.used) {
				old = o
			}
		}
		if old == nil {
			break // e alone (a value bigger than the budget is kept)
		}
		c.drop(old)
	}
}

// drop removes a built entry; the cache's mutex is held.
func (c *Cache[V]) drop(e *entry[V]) {
	delete(c.m, e.key)
	c.bytes -= e.size
	c.built--
}

// Stats describes a cache's content.
type Stats struct {
	Bytes   int64 // the built values' sizes
	Built   int   // the built values
	Pending int   // keys waiting for their build (queued or building)
}

// Stats reports what the cache holds.
func (c *Cache[V]) Stats() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return Stats{Bytes: c.bytes, Built: c.built, Pending: c.pending}
}

// Has reports whether key is in the cache, built or waiting for its build.
func (c *Cache[V]) Has(key string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.m[key]
	return ok
}

// Forget drops key's value if it is built (tests use it to start afresh).
func (c *Cache[V]) Forget(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.m[key]; ok && e.size > 0 {
		c.drop(e)
	}
}
