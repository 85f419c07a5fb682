// Package cache stores solved positions: an in-memory LRU bounded in bytes,
// Redis behind a circuit breaker, the two stacked, and a loader that merges
// concurrent identical misses into one computation.
//
// A cache never decides an answer. Every failure of a backend (timeout,
// refused connection, open breaker) is reported as a miss plus an error for
// the metrics, so a dead Redis costs speed, not correctness.
package cache

import (
	"context"
	"errors"
	"strings"
	"time"
)

// ErrUnavailable is returned while a backend cannot be reached (for Redis:
// while its circuit breaker is open).
var ErrUnavailable = errors.New("cache backend unavailable")

// Cache is the one interface every backend implements.
type Cache interface {
	// Get returns the value stored under key. A missing key is
	// (nil, false, nil); a backend failure is (nil, false, err).
	Get(ctx context.Context, key string) ([]byte, bool, error)
	// Set stores value under key for ttl (0 means the backend's default).
	Set(ctx context.Context, key string, value []byte, ttl time.Duration) error
	// Health says which backend serves and whether it is reachable.
	Health(ctx context.Context) Health
	// Close releases connections and stops background work.
	Close() error
}

// Health describes a cache for /readyz.
type Health struct {
	// The cache backend: "memory", "redis" or "redis+memory".
	Backend string `json:"backend" example:"redis+memory"`
	// False while a remote backend cannot be reached.
	Reachable bool `json:"reachable" example:"true"`
	// Explains a failure ("circuit open since 12:00:01: dial tcp ...").
	Detail string `json:"detail,omitempty" example:""`
	// Number of entries in the in-memory layer, when there is one.
	Entries int `json:"entries,omitempty" example:"1240"`
	// Total size in bytes of the in-memory layer's entries, when there is
	// one.
	Bytes int64 `json:"bytes,omitempty" example:"5310000"`
}

// Key builds a cache key from its parts: the key space, the engine version,
// the game variant and the canonical position, e.g.
// Key("teeko", "v1", "advanced/standard", "....b...") ->
// "gs:teeko:v1:advanced/standard:....b...". Versioning by engine version
// means a new engine never reads answers of an old one.
func Key(game, engineVersion, variant, position string) string {
	return strings.Join([]string{"gs", game, engineVersion, variant, position}, ":")
}
