package cache

import (
	"context"
	"time"
)

// Tiered puts a small in-memory LRU in front of a remote cache. Reads try
// the memory first; a remote hit is copied into memory; writes go to both.
// While the remote is unreachable the memory layer keeps serving what this
// process has seen, so a dead Redis costs speed, never answers.
type Tiered struct {
	Near Cache
	Far  Cache
}

// freshKey marks a context whose reads of a Tiered cache go to the far
// layer first.
type freshKey struct{}

// Fresh is ctx for a read of an entry other processes improve (a partial
// answer completed by a request or a job elsewhere): a Tiered cache reads
// its far layer first, and the near one only when the far one fails or
// lost the entry. The near layer keeps what this process saw, and would
// keep serving it after another process stored better (its copy then
// extended and written back over the better one).
func Fresh(ctx context.Context) context.Context {
	return context.WithValue(ctx, freshKey{}, true)
}

// Get implements Cache.
func (t *Tiered) Get(ctx context.Context, key string) ([]byte, bool, error) {
	if ctx.Value(freshKey{}) != nil {
		v, ok, err := t.Far.Get(ctx, key)
		if err == nil && ok {
			_ = t.Near.Set(ctx, key, v, 0)
			return v, true, nil
		}
		if nv, nok, _ := t.Near.Get(ctx, key); nok {
			return nv, true, nil
		}
		return v, ok, err
	}
	if v, ok, _ := t.Near.Get(ctx, key); ok {
		return v, true, nil
	}
	v, ok, err := t.Far.Get(ctx, key)
	if ok {
		_ = t.Near.Set(ctx, key, v, 0)
	}
	return v, ok, err
}

// Set implements Cache.
func (t *Tiered) Set(ctx context.Context, key string, value []byte, ttl time.Duration) error {
	_ = t.Near.Set(ctx, key, value, ttl)
	return t.Far.Set(ctx, key, value, ttl)
}

// Health implements Cache: the remote's health, with the memory layer's
// size,.
func (t *Tiered) Health(ctx context.Context) Health {
	h := t.Far.Health(ctx)
	near := t.Near.Health(ctx)
	h.Entries, h.Bytes = near.Entries, near.Bytes
	h.Backend += "+memory"
	return h
}

// Close implements Cache.
func (t *Tiered) Close() error {
	_ = t.Near.Close()
	return t.Far.Close()
}
