package cache

import (
	"context"
)

// manyGetter is a cache that reads many keys at once (Redis: MGET).
type manyGetter interface {
	getMany(ctx context.Context, keys []string) ([][]byte, error)
}

// manyBatch is the most keys one round trip asks for: a batch's values
// (answers of up to tens of kilobytes) arrive whole.
const manyBatch = 256

// GetMany returns the values c holds under keys, in their order (nil
// where a key is missing), reading a backend that can in round trips of
// up to manyBatch keys (Redis: MGET), the others key by key. It stops at
// the first error, or when ctx ends, returning what it read so far with
// the error: a cache failure is a miss, as for Get.
func GetMany(ctx context.Context, c Cache, keys []string) ([][]byte, error) {
	out := make([][]byte, len(keys))
	err := getMany(ctx, c, keys, out)
	return out, err
}

// getMany fills out (len(keys)) with c's values.
func getMany(ctx context.Context, c Cache, keys []string, out [][]byte) error {
	m, ok := c.(manyGetter)
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
				out[i] = v
			}
		}
		return nil
	}
	for lo := 0; lo < len(keys); lo += manyBatch {
		if err := ctx.Err(); err != nil {
			return err
		}
		hi := min(lo+manyBatch, len(keys))
		vs, err := m.getMany(ctx, keys[lo:hi])
		if err != nil {
			return err
		}
		copy(out[lo:hi], vs)
	}
	return nil
}

// getMany implements manyGetter: one MGET.
func (r *Redis) getMany(ctx context.Context, keys []string) ([][]byte, error) {
	v, err := r.do(ctx, func(ctx context.Context) (any, error) {
		return r.client.MGet(ctx, keys...).Result()
	})
	if err != nil {
		return nil, err
	}
	vals, _ := v.([]any)
	out := make([][]byte, len(keys))
	for i, x := range vals {
		if s, ok := x.(string); ok && i < len(out) {
			out[i] = []byte(s)
		}
	}
	return out, nil
}

// getMany implements manyGetter, as Get for each key: the near layer,
// then the far one for what it lacks (copied into the near one); with
// Fresh, the far one first (copied into the near one), then the near
// one for what the far one lacks or when it fails.
func (t *Tiered) getMany(ctx context.Context, keys []string) ([][]byte, error) {
	out := make([][]byte, len(keys))
	if ctx.Value(freshKey{}) != nil {
		err := getMany(ctx, t.Far, keys, out)
		for i, v := range out {
			if v != nil {
				_ = t.Near.Set(ctx, keys[i], v, 0)
			}
		}
		near, _ := t.fill(ctx, t.Near, keys, out, false)
		if near > 0 {
			return out, nil
		}
		return out, err
	}
	if err := getMany(ctx, t.Near, keys, out); err != nil {
		return out, err
	}
	_, err := t.fill(ctx, t.Far, keys, out, true)
	return out, err
}

// fill reads from c the keys out lacks, copying them into the near layer
// when keep; it returns how many it found.
func (t *Tiered) fill(ctx context.Context, c Cache, keys []string, out [][]byte, keep bool) (int, error) {
	var missing []string
	var at []int
	for i, v := range out {
		if v == nil {
			missing, at = append(missing, keys[i]), append(at, i)
		}
	}
	if len(missing) == 0 {
		return 0, nil
	}
	vs := make([][]byte, len(missing))
	err := getMany(ctx, c, missing, vs)
	found := 0
	for j, v := range vs {
		if v == nil {
			continue
		}
		found++
		out[at[j]] = v
		if keep {
			_ = t.Near.Set(ctx, missing[j], v, 0)
		}
	}
	return found, err
}

// getMany implements manyGetter: the decorated cache's, each key counted.
func (o *observed) getMany(ctx context.Context, keys []string) ([][]byte, error) {
	out := make([][]byte, len(keys))
	err := getMany(ctx, o.Cache, keys, out)
	switch {
	case err != nil:
		o.obs(o.layer, "error")
	case ctx.Value(uncountedKey{}) != nil:
	default:
		for _, v := range out {
			if v != nil {
				o.obs(o.layer, "hit")
			} else {
				o.obs(o.layer, "miss")
			}
		}
	}
	return out, err
}
