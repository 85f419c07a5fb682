package book

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"
)

// TestEmbeddedWithin: in a fresh process (the test binary run again, the
// book not loaded), a wait shorter than the load returns without the
// book, a long one returns it loaded, and EmbeddedStatus follows.
func TestEmbeddedWithin(t *testing.T) {
	if os.Getenv("BOOK_EMBEDDED_WITHIN_CHILD") == "" {
		cmd := exec.Command(os.Args[0], "-test.run", "^TestEmbeddedWithin$", "-test.count", "1")
		cmd.Env = append(os.Environ(), "BOOK_EMBEDDED_WITHIN_CHILD=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("the fresh process: %v\n%s", err, out)
		}
		return
	}
	if done, _ := EmbeddedStatus(); done {
		t.Fatal("loaded before any call")
	}
	// Loading takes about 2 s of a core: a millisecond is not enough.
	if b, ok := EmbeddedWithin(context.Background(), time.Millisecond); ok || b != nil {
		t.Fatal("loaded within a millisecond")
	}
	if _, ok := EmbeddedLoaded(); ok {
		t.Fatal("EmbeddedLoaded while loading")
	}
	// A request that went away stops waiting.
	gone, cancel := context.WithCancel(context.Background())
	cancel()
	if _, ok := EmbeddedWithin(gone, time.Minute); ok {
		t.Fatal("waited for the load with its context ended")
	}
	b, ok := EmbeddedWithin(context.Background(), time.Minute) // the load begun above, not a second one
	if !ok || b == nil {
		t.Fatal("not loaded within a minute")
	}
	if done, err := EmbeddedStatus(); !done || err != nil {
		t.Fatalf("status %v, %v after the load", done, err)
	}
	if again, ok := EmbeddedWithin(context.Background(), 0); !ok || again != b {
		t.Fatal("a loaded book not returned at once")
	}
}
