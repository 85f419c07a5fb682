package polyomino

import (
	"context"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// TestSolveReleasesItsTable: a search that makes its own table (mapped
// outside the Go heap) unmaps it before returning, so that searches in a
// row do not pile up memory the collector cannot see. The collector is
// off for the test: only the explicit release can bring the count back.
func TestSolveReleasesItsTable(t *testing.T) {
	// The tables earlier tests left are collected first, and their
	// mappings released (by cleanups, in a goroutine of their own), not
	// during the count: since a used table is collected at the first
	// collection after its use, CI saw one released mid-test.
	runtime.GC()
	for prev := int64(-1); prev != mapped.Load(); {
		prev = mapped.Load()
		time.Sleep(50 * time.Millisecond)
	}
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	cfg, _ := Preset("tetrominoes")
	pos, _ := NewPosition(cfg, nil, []string{"I:a1,b1,c1,d1"}, DefaultToMove)
	before := mapped.Load()
	for range 40 {
		if _, err := Solve(context.Background(), pos, Options{Workers: 1, TableMB: 16}); err != nil {
			t.Fatal(err)
		}
	}
	if after := mapped.Load(); after != before {
		t.Fatalf("%d bytes mapped after 40 searches, %d before", after, before)
	}
	tt := NewTable(16)
	if mapped.Load() <= before {
		t.Fatal("a 16 MB table is not mapped")
	}
	tt.release()
	tt.release() // twice is harmless
	if after := mapped.Load(); after != before {
		t.Fatalf("%d bytes mapped after release, %d before", after, before)
	}
}
