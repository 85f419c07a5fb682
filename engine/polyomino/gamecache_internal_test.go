package polyomino

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/gamesolver/gamesolver/engine/internal/buildcache"
)

// hexBoard is the 16 x 16 hexomino game with cell i blocked: a
// configuration of its own (about 11 MB built).
func hexBoard(t *testing.T, i int) Config {
	t.Helper()
	c := mustPreset(t, "hexominoes")
	c.Width, c.Height = 16, 16
	c.Blocked = []string{fmt.Sprintf("%c%d", 'a'+i%16, 1+i/16)}
	return c
}

// holdBuilds takes every build slot until the test ends or the returned
// func is called.
func holdBuilds(t *testing.T) (release func()) {
	slots := buildcache.Shared()
	for range cap(slots) {
		slots <- struct{}{}
	}
	done := false
	release = func() {
		if !done {
			done = true
			for range cap(slots) {
				<-slots
			}
		}
	}
	t.Cleanup(release)
	return release
}

// forget drops configurations from the game cache: a test that builds
// one runs again (go test -count=2) as the first time.
func forget(t *testing.T, cfgs ...Config) {
	for _, c := range cfgs {
		games.Forget(gameKey(mustResolve(t, c)))
	}
}

func pendingBuilds() int { return games.Stats().Pending }

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("not within 10 s: %s", what)
		}
	}
}

// TestGameBuildQueueBounded: beyond maxPending configurations
// waiting, a new one is refused at once (ErrBusy); a configuration
// already waiting or built is not, and a caller whose context ends stops
// waiting (the cache itself is tested in buildcache).
func TestGameBuildQueueBounded(t *testing.T) {
	maxPending := buildcache.GameLimits.Pending
	built, err := NewGame(mustPreset(t, "tetrominoes"))
	if err != nil {
		t.Fatal(err)
	}
	own := hexBoard(t, maxPending+1)
	forget(t, own)
	release := holdBuilds(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errc := make(chan error, maxPending)
	for i := range maxPending {
		cfg := hexBoard(t, i)
		go func() {
			_, err := NewGameContext(ctx, cfg)
			errc <- err
		}()
	}
	waitFor(t, "the queue full", func() bool { return pendingBuilds() == maxPending })
	if _, err := NewGameContext(context.Background(), hexBoard(t, maxPending)); !errors.Is(err, ErrBusy) {
		t.Errorf("a configuration beyond the queue: %v", err)
	}
	if g, err := NewGameContext(context.Background(), mustPreset(t, "tetrominoes")); err != nil || g != built {
		t.Errorf("a built game while the queue is full: %v", err)
	}
	short, stop := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer stop()
	if _, err := NewGameContext(short, hexBoard(t, 0)); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a configuration already queued: %v", err)
	}
	// The service's own callers (the opening book, a job's units) wait
	// beyond the bound: a full queue of others' configurations made the
	// book's loading panic.
	ownErr := make(chan error, 1)
	go func() {
		_, err := NewGame(own)
		ownErr <- err
	}()
	waitFor(t, "NewGame queued beyond the bound", func() bool { return pendingBuilds() == maxPending+1 })
	cancel()
	for range maxPending {
		if err := <-errc; !errors.Is(err, context.Canceled) {
			t.Errorf("a queued caller canceled: %v", err)
		}
	}
	release()
	if err := <-ownErr; err != nil {
		t.Errorf("NewGame beyond the bound: %v", err)
	}
	waitFor(t, "the queue empty", func() bool { return pendingBuilds() == 0 })
}

// TestGameCacheBytes: the built games kept stay within buildcache.GameLimits.Bytes,
// the least recently used leaving first.
func TestGameCacheBytes(t *testing.T) {
	first, err := NewGame(hexBoard(t, 100))
	if err != nil {
		t.Fatal(err)
	}
	per := first.approxBytes()
	n := int(buildcache.GameLimits.Bytes/per) + 2
	for i := 101; i < 101+n; i++ {
		if _, err := NewGame(hexBoard(t, i)); err != nil {
			t.Fatal(err)
		}
		if g, _ := NewGame(hexBoard(t, 100)); g != first { // used again: kept
			t.Fatalf("the game used most recently left the cache (after %d others)", i-100)
		}
	}
	if s := games.Stats(); s.Bytes > buildcache.GameLimits.Bytes || s.Built > buildcache.GameLimits.Entries {
		t.Errorf("%d games of %d bytes kept, bounds %d bytes, %d games", s.Built, s.Bytes, buildcache.GameLimits.Bytes, buildcache.GameLimits.Entries)
	}
	if g, _ := NewGame(hexBoard(t, 101)); g == nil {
		t.Fatal("rebuilt: nil")
	}
}

// TestGameApproxBytes: the estimate the cache's budget counts is near the
// heap a built game takes.
func TestGameApproxBytes(t *testing.T) {
	for _, c := range []Config{hexBoard(t, 250), mustPreset(t, "pentominoes")} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		g, err := buildGame(mustResolve(t, c))
		if err != nil {
			t.Fatal(err)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		heap := int64(after.HeapAlloc) - int64(before.HeapAlloc)
		if est := g.approxBytes(); est < heap*8/10 || est > heap*3/2 {
			t.Errorf("%s %dx%d: estimated %d bytes, the heap grew by %d", c.Preset, c.Width, c.Height, est, heap)
		}
		runtime.KeepAlive(g)
	}
}

func mustResolve(t *testing.T, c Config) *resolved {
	t.Helper()
	r, err := c.resolve()
	if err != nil {
		t.Fatal(err)
	}
	return r
}
