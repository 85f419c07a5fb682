package service

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"
	"time"
	"unsafe"

	"github.com/gamesolver/gamesolver/service/cache"
)

// Searcher runs solver work for requests: from the cache when it has the
// answer, else in a bounded solver slot under the request's budget, merging
// identical concurrent requests, and caching what was proven and was worth
// caching.
type Searcher struct {
	Loader  *cache.Loader
	Slots   *Slots
	Budgets Budgets
	Metrics *Metrics
	// Workers is the number of goroutines of one search (0: every core).
	// Searches for requests default to one each, so that a flood of
	// expensive requests leaves cores to the cheap ones.
	Workers int
	// MinCacheTime: answers found faster than this are not cached (they
	// are cheaper to recompute than to store).
	MinCacheTime time.Duration
	// MinLengthTime: the polyomino length search after a proof (plies)
	// may take three times the proof's time and at least this long, within
	// the budget (0: 200 ms); in a job's unit a quarter of the proof's
	// time and at least this long (0: no minimum).
	MinLengthTime time.Duration
	// Assembly bounds the decoding, mapping and encoding of big answers
	// outside the slots (nil: unbounded).
	Assembly *Assembly

	// shared is the last big search answer decoded, for the other
	// requests of its flight.
	shared sharedDecode
}

// sharedDecode holds the last big search answer decoded, by the address
// of its bytes: the requests that share a flight's search receive the same
// bytes, and the first of them to decode them serves the others. The value
// is then shared: read-only.
type sharedDecode struct {
	mu  sync.Mutex
	raw *byte
	v   any
}

func (d *sharedDecode) get(raw []byte) (any, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.raw == nil || d.raw != unsafe.SliceData(raw) {
		return nil, false
	}
	return d.v, true
}

func (d *sharedDecode) put(raw []byte, v any) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.raw, d.v = unsafe.SliceData(raw), v
}

// searchOutcome is what a computation reports besides its answer.
type searchOutcome struct {
	nodes  int64
	proven bool
}

// Source of an answer, as the API names it.
const (
	SourceSearch = "search"
	SourceCache  = "cache"
)

// runCached answers key from the cache or by compute. compute runs with a
// slot taken and ctx bounded by the budget; it returns its answer, the
// nodes searched and whether the answer is final (proven and complete).
// A big answer may be shared with the other requests of its flight: its
// slices are read-only.
func runCached[T any](ctx context.Context, s *Searcher, game, key string, budget time.Duration,
	compute func(ctx context.Context) (T, int64, bool, error)) (T, string, error) {
	var zero T
	// Concurrent requests share a search only with the same budget: its
	// answer, when not proven, is what that budget found.
	flight := key + "|budget=" + budget.String()
	// A cache hit is decoded once, by the check that vets it (this
	// goroutine's only: LoadChecked calls it before any flight).
	var hit T
	vetHit := func(raw []byte) bool {
		release, err := s.Assembly.Enter(ctx, len(raw) >= BigAnswerBytes)
		if err != nil {
			release = func() {} // the request is ending; its error comes next
		}
		defer release()
		v, ok := validCached[T](s, raw)
		hit = v
		return ok
	}
	raw, origin, err := s.Loader.LoadChecked(ctx, key, flight, vetHit, func(ctx context.Context) ([]byte, bool, error) {
		release, err := s.Slots.Acquire(ctx)
		if err != nil {
			return nil, false, err
		}
		defer release()
		// Another budget's search may have proven it while this one
		// waited for the slot.
		if v, ok, _ := s.Loader.Cache().Get(ctx, key); ok {
			if _, valid := validCached[T](s, v); valid {
				return v, false, nil
			}
		}
		bctx, cancel := context.WithTimeout(ctx, budget)
		defer cancel()
		start := time.Now()
		v, nodes, proven, err := compute(bctx)
		took := time.Since(start)
		if s.Metrics != nil {
			s.Metrics.SolverNodes.WithLabelValues(game).Add(float64(nodes))
			s.Metrics.Searches.WithLabelValues(game, strconv.FormatBool(proven)).Observe(took.Seconds())
		}
		if err != nil {
			return nil, false, err
		}
		b, err := json.Marshal(v)
		if err != nil {
			return nil, false, fmt.Errorf("encode %s answer: %w", game, err)
		}
		return b, proven && took >= s.MinCacheTime, nil
	})
	if err != nil {
		return zero, "", err
	}
	if origin == cache.Cached {
		return hit, SourceCache, nil
	}
	big := len(raw) >= BigAnswerBytes
	release, err := s.Assembly.Enter(ctx, big)
	if err != nil {
		return zero, "", err
	}
	defer release()
	if big {
		if v, ok := s.shared.get(raw); ok {
			if v, ok := v.(T); ok {
				return v, SourceSearch, nil
			}
		}
	}
	var v T
	if err := json.Unmarshal(raw, &v); err != nil {
		return zero, "", fmt.Errorf("decode %s answer: %w", game, err)
	}
	if big {
		s.shared.put(raw, v)
	}
	return v, SourceSearch, nil
}

// validCached decodes raw as a cached answer of type T, and reports
// whether it is one (counted in the cache metrics as outcome invalid when
// not).
func validCached[T any](s *Searcher, raw []byte) (T, bool) {
	v, ok := decodeFinal[T](raw)
	if !ok && s.Metrics != nil {
		s.Metrics.CacheResults.WithLabelValues("answer", "invalid").Inc()
	}
	return v, ok
}

// validAnswer is validCached for the polyomino and capture answers of
// job units.
func (s *Searcher) validAnswer(raw []byte) bool {
	_, ok := validCached[PolyominoAnswer](s, raw)
	return ok
}

// finalAnswer is an answer type that says whether a value of it may come
// from the cache: the cache only ever stores final answers, so one that
// is not (an empty object, a null) was not written by this code.
type finalAnswer interface{ final() bool }

// decodeFinal decodes a cached answer: false when it does not decode as
// T, or is not final.
func decodeFinal[T any](raw []byte) (T, bool) {
	var v T
	if err := json.Unmarshal(raw, &v); err != nil {
		return v, false
	}
	if f, ok := any(&v).(finalAnswer); ok && !f.final() {
		return v, false
	}
	return v, true
}
