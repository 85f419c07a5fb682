package cache

import (
	"context"
	"errors"
	"testing"
	"time"
)

// failing is a cache that cannot be reached.
type failing struct{ Cache }

func (failing) Get(context.Context, string) ([]byte, bool, error) {
	return nil, false, errors.New("dial tcp: connection refused")
}

// TestTieredFresh: two processes share the far layer. The near layer
// keeps what its process saw, after the other stored better; a Fresh
// read takes the far layer's and refreshes the near one, and falls back
// on the near one when the far one fails or lost the entry.
func TestTieredFresh(t *testing.T) {
	ctx := context.Background()
	far := NewMemory(1<<20, time.Hour)
	one := &Tiered{Near: NewMemory(1<<20, time.Hour), Far: far}
	two := &Tiered{Near: NewMemory(1<<20, time.Hour), Far: far}
	get := func(c Cache, ctx context.Context) string {
		v, ok, err := c.Get(ctx, "k")
		if err != nil || !ok {
			return "(none)"
		}
		return string(v)
	}
	_ = two.Set(ctx, "k", []byte("partial"), 0)
	if got := get(one, ctx); got != "partial" {
		t.Fatalf("first read %q", got)
	}
	_ = two.Set(ctx, "k", []byte("complete"), 0)
	if got := get(one, ctx); got != "partial" {
		t.Fatalf("a plain read %q: the near layer's copy", got)
	}
	if got := get(one, Fresh(ctx)); got != "complete" {
		t.Errorf("a fresh read %q, want the far layer's", got)
	}
	if got := get(one, ctx); got != "complete" {
		t.Errorf("a plain read after the fresh one %q: the near layer was not refreshed", got)
	}
	down := &Tiered{Near: one.Near, Far: failing{far}}
	if got := get(down, Fresh(ctx)); got != "complete" {
		t.Errorf("a fresh read with the far layer down %q, want the near layer's", got)
	}
	lost := &Tiered{Near: one.Near, Far: NewMemory(1<<20, time.Hour)}
	if got := get(lost, Fresh(ctx)); got != "complete" {
		t.Errorf("a fresh read of an entry the far layer lost %q, want the near layer's", got)
	}
}

// TestLoaderRefusedNearReadsFar: a value the loader's check refuses in
// the near layer (a partial answer this process kept) is looked for in
// the far one, where another process may have stored a better one.
func TestLoaderRefusedNearReadsFar(t *testing.T) {
	ctx := context.Background()
	far := NewMemory(1<<20, time.Hour)
	one := &Tiered{Near: NewMemory(1<<20, time.Hour), Far: far}
	_ = one.Set(ctx, "k", []byte("partial"), 0)
	_ = far.Set(ctx, "k", []byte("complete"), 0) // another process's
	l := NewLoader(one, time.Hour)
	computed := false
	v, origin, err := l.LoadChecked(ctx, "k", "k", func(v []byte) bool { return string(v) == "complete" },
		func(context.Context) ([]byte, bool, error) { computed = true; return []byte("computed"), true, nil })
	if err != nil || string(v) != "complete" || origin != Cached || computed {
		t.Errorf("LoadChecked = %q, %v, %v (computed %t), want the far layer's complete value", v, origin, err, computed)
	}
}
