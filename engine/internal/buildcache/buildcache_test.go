package buildcache

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// value is what the tests build: its size is its weight.
type value struct {
	key    string
	weight int64
}

func newTest(limits Limits, slots int) *Cache[*value] {
	return New(limits, make(Slots, slots), func(v *value) int64 { return v.weight })
}

// builder builds keys of the given weight, counting its builds.
type builder struct {
	weight int64
	builds atomic.Int64
}

func (b *builder) of(key string) func() (*value, error) {
	return func() (*value, error) {
		b.builds.Add(1)
		return &value{key: key, weight: b.weight}, nil
	}
}

// hold takes every slot of c until the test ends or release is called.
func hold(t *testing.T, c *Cache[*value]) (release func()) {
	for range cap(c.slots) {
		c.slots <- struct{}{}
	}
	var once sync.Once
	release = func() {
		once.Do(func() {
			for range cap(c.slots) {
				<-c.slots
			}
		})
	}
	t.Cleanup(release)
	return release
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("not within 10 s: %s", what)
		}
	}
}

// checkSizes: the counted bytes are the built entries' sizes.
func checkSizes(t *testing.T, c *Cache[*value]) {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	var sum int64
	built := 0
	for _, e := range c.m {
		if e.size > 0 {
			sum += e.size
			built++
		}
	}
	if sum != c.bytes || built != c.built {
		t.Errorf("%d entries of %d bytes built, counted %d of %d", built, sum, c.built, c.bytes)
	}
}

// TestBuiltOnce: concurrent first callers of a key wait for one build,
// later callers find it built.
func TestBuiltOnce(t *testing.T) {
	c := newTest(Limits{Bytes: 1 << 20, Entries: 8, Pending: 4}, 1)
	b := &builder{weight: 10}
	var wg sync.WaitGroup
	got := make([]*value, 20)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v, err := c.Get(context.Background(), "k", true, b.of("k"))
			if err != nil {
				t.Error(err)
			}
			got[i] = v
		}()
	}
	wg.Wait()
	v, _ := c.Get(context.Background(), "k", true, b.of("k"))
	for _, g := range got {
		if g != v {
			t.Fatal("callers got different values")
		}
	}
	if n := b.builds.Load(); n != 1 {
		t.Errorf("%d builds, want 1", n)
	}
	if s := c.Stats(); s != (Stats{Bytes: 10, Built: 1}) {
		t.Errorf("stats %+v", s)
	}
}

// TestLeftByItsCallers: a caller whose context ends stops waiting, and a
// build nobody waits for leaves the queue unbuilt; a later caller builds
// it afresh.
func TestLeftByItsCallers(t *testing.T) {
	c := newTest(Limits{Bytes: 1 << 20, Entries: 8, Pending: 4}, 1)
	b := &builder{weight: 10}
	release := hold(t, c)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 2)
	for range 2 {
		go func() {
			_, err := c.Get(ctx, "k", true, b.of("k"))
			errc <- err
		}()
	}
	waitFor(t, "one build queued", func() bool { return c.Stats().Pending == 1 })
	cancel()
	for range 2 {
		if err := <-errc; !errors.Is(err, context.Canceled) {
			t.Fatalf("a caller canceled while the build waits: %v", err)
		}
	}
	if s := c.Stats(); s.Pending != 0 || c.Has("k") {
		t.Errorf("the abandoned key still queued once its callers returned: %+v", s)
	}
	if c.Has("k") {
		t.Error("the abandoned key is still in the cache")
	}
	release()
	if v, err := c.Get(context.Background(), "k", true, b.of("k")); err != nil || v == nil {
		t.Fatalf("built again: %v", err)
	}
	if n := b.builds.Load(); n != 1 {
		t.Errorf("%d builds, want 1 (the abandoned one never ran)", n)
	}
}

// TestStartedBuildKept: a build that has its slot goes on when its
// callers leave, and is kept.
func TestStartedBuildKept(t *testing.T) {
	c := newTest(Limits{Bytes: 1 << 20, Entries: 8, Pending: 4}, 1)
	started, finish := make(chan struct{}), make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := c.Get(ctx, "k", true, func() (*value, error) {
			close(started)
			<-finish
			return &value{weight: 5}, nil
		})
		errc <- err
	}()
	<-started
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("the caller left: %v", err)
	}
	close(finish)
	waitFor(t, "the build kept", func() bool { return c.Stats().Built == 1 })
	if v, err := c.Get(context.Background(), "k", true, func() (*value, error) { return nil, errors.New("built twice") }); err != nil || v.weight != 5 {
		t.Errorf("the kept build: %v, %v", v, err)
	}
}

// TestQueueBounded: beyond Limits.Pending keys waiting, a new key is
// refused at once when bounded (ErrFull); a key already waiting or built
// is not, and an unbounded caller waits beyond the bound.
func TestQueueBounded(t *testing.T) {
	const pending = 4
	c := newTest(Limits{Bytes: 1 << 20, Entries: 16, Pending: pending}, 1)
	b := &builder{weight: 10}
	built, err := c.Get(context.Background(), "built", true, b.of("built"))
	if err != nil {
		t.Fatal(err)
	}
	release := hold(t, c)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errc := make(chan error, pending)
	for i := range pending {
		key := fmt.Sprint(i)
		go func() {
			_, err := c.Get(ctx, key, true, b.of(key))
			errc <- err
		}()
	}
	waitFor(t, "the queue full", func() bool { return c.Stats().Pending == pending })
	if _, err := c.Get(context.Background(), "new", true, b.of("new")); !errors.Is(err, ErrFull) {
		t.Errorf("a key beyond the queue: %v", err)
	}
	if v, err := c.Get(context.Background(), "built", true, b.of("built")); err != nil || v != built {
		t.Errorf("a built key while the queue is full: %v", err)
	}
	short, stop := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer stop()
	if _, err := c.Get(short, "0", true, b.of("0")); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a key already queued: %v", err)
	}
	ownErr := make(chan error, 1)
	go func() {
		_, err := c.Get(context.Background(), "own", false, b.of("own"))
		ownErr <- err
	}()
	waitFor(t, "an unbounded caller queued beyond the bound", func() bool { return c.Stats().Pending == pending+1 })
	cancel()
	for range pending {
		if err := <-errc; !errors.Is(err, context.Canceled) {
			t.Errorf("a queued caller canceled: %v", err)
		}
	}
	release()
	if err := <-ownErr; err != nil {
		t.Errorf("unbounded beyond the bound: %v", err)
	}
	waitFor(t, "the queue empty", func() bool { return c.Stats().Pending == 0 })
	checkSizes(t, c)
}

// TestBytesAndEntries: the built values kept stay within Limits, the
// least recently used leaving first; a value bigger than the budget alone
// is kept.
func TestBytesAndEntries(t *testing.T) {
	c := newTest(Limits{Bytes: 100, Entries: 5, Pending: 4}, 1)
	b := &builder{weight: 30}
	first, _ := c.Get(context.Background(), "first", true, b.of("first"))
	for i := range 10 {
		key := fmt.Sprint(i)
		if _, err := c.Get(context.Background(), key, true, b.of(key)); err != nil {
			t.Fatal(err)
		}
		if v, _ := c.Get(context.Background(), "first", true, b.of("first")); v != first {
			t.Fatalf("the value used most recently left the cache (after %d others)", i+1)
		}
		if s := c.Stats(); s.Bytes > 100 || s.Built > 5 {
			t.Fatalf("%+v beyond the limits", s)
		}
		checkSizes(t, c)
	}
	if c.Has("0") || !c.Has("9") {
		t.Error("not the least recently used left")
	}
	few := newTest(Limits{Bytes: 1 << 20, Entries: 2, Pending: 4}, 1)
	for i := range 5 {
		key := fmt.Sprint(i)
		few.Get(context.Background(), key, true, b.of(key))
	}
	if s := few.Stats(); s.Built != 2 || s.Bytes != 60 {
		t.Errorf("two entries at most: %+v", s)
	}
	big := &builder{weight: 500}
	if _, err := c.Get(context.Background(), "big", true, big.of("big")); err != nil || !c.Has("big") {
		t.Errorf("a value bigger than the budget: %v, kept %v", err, c.Has("big"))
	}
	if s := c.Stats(); s.Built != 1 {
		t.Errorf("beside a value bigger than the budget: %+v", s)
	}
}

// TestFailedBuildNotKept: a build's error (or panic) is its callers', and
// the next caller builds again.
func TestFailedBuildNotKept(t *testing.T) {
	c := newTest(Limits{Bytes: 1 << 20, Entries: 8, Pending: 4}, 1)
	boom := errors.New("boom")
	if _, err := c.Get(context.Background(), "k", true, func() (*value, error) { return nil, boom }); !errors.Is(err, boom) {
		t.Errorf("the build's error: %v", err)
	}
	if _, err := c.Get(context.Background(), "k", true, func() (*value, error) { panic("bad") }); err == nil || err.Error() != "building the game: bad" {
		t.Errorf("a panicking build: %v", err)
	}
	if c.Has("k") || c.Stats() != (Stats{}) {
		t.Errorf("a failed build kept: %+v", c.Stats())
	}
	if v, err := c.Get(context.Background(), "k", true, func() (*value, error) { return &value{weight: 1}, nil }); err != nil || v == nil {
		t.Errorf("built after the failures: %v", err)
	}
}

// TestSlotsBound: builds run only with a slot, at most cap(slots) at once.
func TestSlotsBound(t *testing.T) {
	c := newTest(Limits{Bytes: 1 << 20, Entries: 32, Pending: 32}, 2)
	var running, most atomic.Int64
	var wg sync.WaitGroup
	for i := range 12 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.Get(context.Background(), fmt.Sprint(i), true, func() (*value, error) {
				n := running.Add(1)
				for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
				}
				time.Sleep(2 * time.Millisecond)
				running.Add(-1)
				return &value{weight: 1}, nil
			})
		}()
	}
	wg.Wait()
	if m := most.Load(); m > 2 {
		t.Errorf("%d builds at once with 2 slots", m)
	}
	if s := c.Stats(); s.Built != 12 || s.Pending != 0 {
		t.Errorf("%+v", s)
	}
}
