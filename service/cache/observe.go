package cache

import (
	"context"
	"time"
)

// Observer is told the outcome of every lookup of a layer: "hit", "miss" or
// "error", and of every failed write: "set_error".
type Observer func(layer, outcome string)

// Observe decorates a cache so that its lookups are counted under layer.
func Observe(c Cache, layer string, obs Observer) Cache {
	if obs == nil {
		return c
	}
	return &observed{Cache: c, layer: layer, obs: obs}
}

type observed struct {
	Cache
	layer string
	obs   Observer
}

// uncountedKey marks a context whose lookups Observe does not count as
// hits or misses.
type uncountedKey struct{}

// Uncounted is ctx for a lookup that re-reads a key its request looked up
// already (to check what it is about to write, or what another search
// stored meanwhile): counted, it would make the hit ratio lie. Its errors
// are counted.
func Uncounted(ctx context.Context) context.Context {
	return context.WithValue(ctx, uncountedKey{}, true)
}

func (o *observed) Get(ctx context.Context, key string) ([]byte, bool, error) {
	v, ok, err := o.Cache.Get(ctx, key)
	switch {
	case err != nil:
		o.obs(o.layer, "error")
	case ctx.Value(uncountedKey{}) != nil:
	case ok:
		o.obs(o.layer, "hit")
	default:
		o.obs(o.layer, "miss")
	}
	return v, ok, err
}

func (o *observed) Set(ctx context.Context, key string, value []byte, ttl time.Duration) error {
	err := o.Cache.Set(ctx, key, value, ttl)
	if err != nil {
		o.obs(o.layer, "set_error")
	}
	return err
}
