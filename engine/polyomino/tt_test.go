package polyomino

import (
	"runtime"
	"testing"
)

// TestTableSizes stores and finds entries in tables small enough for the
// Go heap and large enough to be mapped from the kernel, across Clear and
// after an unreachable table's mapping is released.
func TestTableSizes(t *testing.T) {
	for _, mb := range []int{1, 16, 64} {
		tt := NewTable(mb)
		if got, want := tt.Entries(), mb<<20/16; got != want {
			t.Fatalf("%d MB: %d entries, want %d", mb, got, want)
		}
		keys := []ttKey{{1, 2}, {3, 4}, {0xdeadbeef, 7}, {^uint64(0), 9}}
		for i, k := range keys {
			tt.store(k, 1-2*(i%2), boundExact, 1000)
		}
		for i, k := range keys {
			v, bound, ok := tt.probe(k)
			if !ok || bound != boundExact || v != 1-2*(i%2) {
				t.Errorf("%d MB: key %v: %d %d %v", mb, k, v, bound, ok)
			}
		}
		tt.Clear()
		for _, k := range keys {
			if _, _, ok := tt.probe(k); ok {
				t.Errorf("%d MB: key %v found after Clear", mb, k)
			}
		}
		// Every word of the table is writable.
		for i := range tt.words {
			tt.words[i].Store(uint64(i))
		}
	}
	runtime.GC() // the tables above are released; the next must work
	tt := NewTable(64)
	tt.store(ttKey{5, 6}, 1, boundExact, 1)
	if _, _, ok := tt.probe(ttKey{5, 6}); !ok {
		t.Fatal("entry lost")
	}
}
