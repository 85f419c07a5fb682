package cache

import (
	"context"

	"github.com/redis/go-redis/v9"
)

// prefixGetter is a cache that reads the first bytes of many values at
// once (Redis: GETRANGE, pipelined).
type prefixGetter interface {
	getPrefixes(ctx context.Context, keys []string, n int) ([][]byte, error)
}

// prefixBatch is the most keys one round trip asks for.
const prefixBatch = 512

// GetPrefixes returns the first n bytes (at most) of the values c holds
// under keys, in their order (nil where a key is missing): what a reader
// of a value's first fields needs, without the bytes of the rest (answers
// of tens of kilobytes: whole, a few thousand of them held Redis up past
// its timeout). A backend that can reads them in round trips of up to
// prefixBatch keys (Redis: GETRANGE, pipelined); the others read each
// value (the memory layer: no copy). A tiered cache reads its near layer,
// then its far one for what the near one lacks, and copies nothing into
// the near one (these are not values). It stops at the first error, or
// when ctx ends, returning what it read so far with the error: a cache
// failure is a miss, as for Get.
func GetPrefixes(ctx context.Context, c Cache, keys []string, n int) ([][]byte, error) {
	out := make([][]byte, len(keys))
	err := getPrefixes(ctx, c, keys, n, out)
	return out, err
}

// getPrefixes fills out (len(keys)) with the prefixes of c's values.
func getPrefixes(ctx context.Context, c Cache, keys []string, n int, out [][]byte) error {
	g, ok := c.(prefixGetter)
	if !ok {
		for i, k := range keys {
			if err := ctx.Err(); err != nil {
				return err
			}
			v, ok, err := c.Get(ctx, k)
			if err != nil {
				return err
			}
			if ok {
				out[i] = v[:min(n, len(v)):min(n, len(v))]
			}
		}
		return nil
	}
	for lo := 0; lo < len(keys); lo += prefixBatch {
		if err := ctx.Err(); err != nil {
			return err
		}
		hi := min(lo+prefixBatch, len(keys))
		vs, err := g.getPrefixes(ctx, keys[lo:hi], n)
		if err != nil {
			return err
		}
		copy(out[lo:hi], vs)
	}
	return nil
}

// getPrefixes implements prefixGetter: GETRANGE key 0 n-1 for each key,
// pipelined (an empty string is a missing key: no value is empty).
func (r *Redis) getPrefixes(ctx context.Context, keys []string, n int) ([][]byte, error) {
	v, err := r.do(ctx, func(ctx context.Context) (any, error) {
		cmds, err := r.client.Pipelined(ctx, func(p redis.Pipeliner) error {
			for _, k := range keys {
				p.GetRange(ctx, k, 0, int64(n-1))
			}
			return nil
		})
		return cmds, err
	})
	if err != nil {
		return nil, err
	}
	cmds, _ := v.([]redis.Cmder)
	out := make([][]byte, len(keys))
	for i, c := range cmds {
		if s, ok := c.(*redis.StringCmd); ok && i < len(out) && s.Val() != "" {
			out[i] = []byte(s.Val())
		}
	}
	return out, nil
}

// getPrefixes implements prefixGetter: the near layer, then the far one
// for what it lacks; nothing is copied into the near layer (prefixes are
// not values).
func (t *Tiered) getPrefixes(ctx context.Context, keys []string, n int) ([][]byte, error) {
	out := make([][]byte, len(keys))
	if err := getPrefixes(ctx, t.Near, keys, n, out); err != nil {
		return out, err
	}
	var missing []string
	var at []int
	for i, v := range out {
		if v == nil {
			missing, at = append(missing, keys[i]), append(at, i)
		}
	}
	if len(missing) == 0 {
		return out, nil
	}
	vs := make([][]byte, len(missing))
	err := getPrefixes(ctx, t.Far, missing, n, vs)
	for j, v := range vs {
		if v != nil {
			out[at[j]] = v
		}
	}
	return out, err
}

// getPrefixes implements prefixGetter: the decorated cache's, its errors
// counted (its hits and misses not: these are no look-ups of answers).
func (o *observed) getPrefixes(ctx context.Context, keys []string, n int) ([][]byte, error) {
	out := make([][]byte, len(keys))
	err := getPrefixes(ctx, o.Cache, keys, n, out)
	if err != nil {
		o.obs(o.layer, "error")
	}
	return out, err
}
