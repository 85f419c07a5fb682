package capture

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/gamesolver/gamesolver/engine/internal/buildcache"
)

// hexBoard is the 16 x 16 hexomino capture game with cell i blocked: a
// configuration of its own (about 10 MB built).
func hexBoard(i int) Config {
	return Config{Width: 16, Height: 16, Order: 6, Blocked: []string{fmt.Sprintf("%c%d", 'a'+i%16, 1+i/16)}}
}

// TestGameBuiltOnce: a configuration is built once and served again as
// built; its Config is the one given.
func TestGameBuiltOnce(t *testing.T) {
	cfg := Config{Width: 6, Height: 5, Order: 5, Blocked: []string{"c3", "a1"}, Pieces: []string{"x", "T", "l"}}
	g, err := NewGame(cfg)
	if err != nil {
		t.Fatal(err)
	}
	again, err := NewGameContext(context.Background(), cfg)
	if err != nil || again != g {
		t.Errorf("built again (%v)", err)
	}
	if got := g.Config(); !slices.Equal(got.Blocked, cfg.Blocked) || !slices.Equal(got.Pieces, cfg.Pieces) {
		t.Errorf("Config %+v, built from %+v", got, cfg)
	}
	other := cfg
	other.Blocked = []string{"c3"}
	if h, err := NewGame(other); err != nil || h == g || h.PlacementCount() <= g.PlacementCount() {
		t.Errorf("another configuration: %v (%d placements, %d)", err, h.PlacementCount(), g.PlacementCount())
	}
	// An invalid configuration is refused before it waits for a slot.
	slots := buildcache.Shared()
	for range cap(slots) {
		slots <- struct{}{}
	}
	defer func() {
		for range cap(slots) {
			<-slots
		}
	}()
	if _, err := NewGameContext(context.Background(), Config{Width: 17, Height: 4, Order: 5}); !errors.Is(err, ErrBadConfig) {
		t.Errorf("a board too wide: %v", err)
	}
}

// TestGameBuildQueueBounded: a request's new configuration beyond
// maxPending waiting is refused at once (ErrBusy), a built one is
// served, and a request whose context ends stops waiting.
func TestGameBuildQueueBounded(t *testing.T) {
	maxPending := buildcache.GameLimits.Pending
	games.Forget(gameKey(hexBoard(maxPending))) // built by an earlier run (-count=2)
	built, err := NewGame(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	slots := buildcache.Shared()
	for range cap(slots) {
		slots <- struct{}{}
	}
	released := false
	release := func() {
		if !released {
			released = true
			for range cap(slots) {
				<-slots
			}
		}
	}
	defer release()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errc := make(chan error, maxPending)
	for i := range maxPending {
		go func() {
			_, err := NewGameContext(ctx, hexBoard(i))
			errc <- err
		}()
	}
	for deadline := time.Now().Add(10 * time.Second); games.Stats().Pending < maxPending; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the queue not full within 10 s: %+v", games.Stats())
		}
	}
	if _, err := NewGameContext(context.Background(), hexBoard(maxPending)); !errors.Is(err, ErrBusy) {
		t.Errorf("a configuration beyond the queue: %v", err)
	}
	if g, err := NewGameContext(context.Background(), DefaultConfig()); err != nil || g != built {
		t.Errorf("a built game while the queue is full: %v", err)
	}
	cancel()
	for range maxPending {
		if err := <-errc; !errors.Is(err, context.Canceled) {
			t.Errorf("a queued caller canceled: %v", err)
		}
	}
	release()
	if _, err := NewGameContext(context.Background(), hexBoard(maxPending)); err != nil {
		t.Errorf("built once the queue emptied: %v", err)
	}
}

// TestGameApproxBytes: the estimate the cache's budget counts is near the
// heap a built game takes.
func TestGameApproxBytes(t *testing.T) {
	for _, c := range []Config{hexBoard(250), DefaultConfig()} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		g, err := validate(c)
		if err != nil {
			t.Fatal(err)
		}
		g.build()
		runtime.GC()
		runtime.ReadMemStats(&after)
		heap := int64(after.HeapAlloc) - int64(before.HeapAlloc)
		if est := g.approxBytes(); est < heap*8/10 || est > heap*3/2 {
			t.Errorf("%dx%d order %d: estimated %d bytes, the heap grew by %d", c.Width, c.Height, c.Order, est, heap)
		}
		runtime.KeepAlive(g)
	}
}
