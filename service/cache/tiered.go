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

// Get implements Cache.
func (t *Tiered) Get(ctx context.Context, key string) ([]byte, bool, error) {
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
