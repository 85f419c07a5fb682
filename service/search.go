package service

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/gamesolver/gamesolver/engine/polyomino"
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
	// time and at least this long (0: 50 ms).
	MinLengthTime time.Duration
	// Assembly bounds the decoding, mapping and encoding of big answers
	// outside the slots (nil: unbounded).
	Assembly *Assembly
	// QuickTime bounds a quick try without a slot (runOptions.Quick;
	// 0: quickTime).
	QuickTime time.Duration

	// shared is the last big search answer decoded, for the other
	// requests of its flight.
	shared sharedDecode
	// tables lends the polyomino searches their transposition tables.
	tables tablePool
	// quickBusy: a quick try (runCached's quick) is under way; one at a
	// time, so that tries cost at most a core's sliver.
	quickBusy atomic.Bool
	// combine is what PolyominoAnalyzeJob.Combine keeps between the
	// calls of the last few jobs.
	combine combineCache
}

// tablePool lends polyomino transposition tables (solveTableMB) to
// searches, each to one search at a time, and keeps up to maxIdleTables
// for the next ones. A table made for each search cost the zeroing of its
// pages as the search first touched them (64 MB, 5 to 10 ms: more than a
// small search itself, and most of a job's unit); a table kept also keeps
// what its searches learnt, which holds for any later search of the same
// game (a search of another game clears it first: Table's own rule).
type tablePool struct {
	mu   sync.Mutex
	idle []*polyomino.Table
}

// maxIdleTables bounds the tables kept between searches (64 MB each,
// resident once touched): as many as search at once on a default server,
// its solver slot and its worker's slot. More searches at once get
// tables of their own, released after.
const maxIdleTables = 2

// get lends a table for a search of game g: one that holds g's positions
// when one is idle (a table of another game is cleared first, 5-10 ms
// for 64 MB, while the search holds its slot), else one that holds none,
// else the one idle longest.
func (p *tablePool) get(g *polyomino.Game) *polyomino.Table {
	p.mu.Lock()
	defer p.mu.Unlock()
	if n := len(p.idle); n > 0 {
		pick := 0
		for i := n - 1; i >= 0; i-- {
			if p.idle[i].Holds(g) {
				pick = i
				break
			}
			if p.idle[i].Holds(nil) {
				pick = i
			}
		}
		t := p.idle[pick]
		p.idle = slices.Delete(p.idle, pick, pick+1)
		return t
	}
	return polyomino.NewTable(solveTableMB)
}

// WarmTables makes the tables the pool keeps (maxIdleTables) in the
// background and touches their memory (Table.Prefault), so that a
// process's first searches do not pay for it: the first touch of a
// table's 64 MB took a cold tetrominoes request with a budget of 0.1 s
// 0.5 s on this project's VM. The process then holds them (128 MB) from
// its start, as it did after its first searches.
func (s *Searcher) WarmTables() {
	go func() {
		for range maxIdleTables {
			t := polyomino.NewTable(solveTableMB)
			t.Prefault()
			s.tables.put(t)
		}
	}()
}

// idleTables is how many tables the pool keeps now (tests).
func (p *tablePool) idleTables() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.idle)
}

func (p *tablePool) put(t *polyomino.Table) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.idle) < maxIdleTables {
		p.idle = append(p.idle, t)
		return
	}
	t.Release()
}

// sharedDecode holds the last big search answer decoded, by the address
// of its bytes: the requests that share a flight's search receive the same
// bytes, and the first of them to decode them serves the others (who wait
// for it rather than decode them too). The value is then shared:
// read-only. It is kept until another big answer replaces it.
type sharedDecode struct {
	mu  sync.Mutex
	cur *decoding
}

// decoding is one decoding of a flight's answer.
type decoding struct {
	raw  *byte
	once sync.Once
	v    any
	err  error
}

// of returns the decoding of raw, a new one unless raw is the last one's.
func (d *sharedDecode) of(raw []byte) *decoding {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.cur == nil || d.cur.raw != unsafe.SliceData(raw) {
		d.cur = &decoding{raw: unsafe.SliceData(raw)}
	}
	return d.cur
}

// runOptions are runCached's options.
type runOptions[T any] struct {
	// Quick, when set, first tries without a slot (unless another try
	// is under way): a search bounded to quickTime, whose answer serves
	// when it is final (ok), so that a position with nothing to search (a
	// game over, a tiny board) does not wait behind a long search for the
	// slot (it waited 2 s, then was refused 503).
	Quick func(ctx context.Context) (v T, nodes int64, ok bool)
	// Consistent, when set, checks a cached answer against the request's
	// position (its moves legal there, its figures coherent): an entry
	// another version, a bug or a hand wrote that fails it is a miss,
	// computed again and replaced, rather than an answer.
	Consistent func(v T) bool
	// Asked, when set, is the budget the request asked for (clamped),
	// which names its flight when what is left of it, budget, is less (a
	// book look-up of 100-330 ms taken off made ten identical requests
	// six to eight flights: one 200 and nine 503).
	Asked time.Duration
}

// quickTime bounds a quick try of runCached (its search and its length
// search): a position proven this fast is cheaper to answer than to queue.
const quickTime = 20 * time.Millisecond

// quickTime is Searcher.QuickTime, or its default.
func (s *Searcher) quickTime() time.Duration { return cmp.Or(s.QuickTime, quickTime) }

// Source of an answer, as the API names it.
const (
	SourceSearch = "search"
	SourceCache  = "cache"
	// SourceHeuristic: the heuristic player's move alone, nothing proven
	// (the API's name for an unproven answer with the heuristic's move).
	SourceHeuristic = "heuristic"
)

// runCached answers key from the cache or by compute. compute runs with a
// slot taken and ctx bounded by the budget; it returns its answer, the
// nodes searched and whether the answer is final (proven and complete).
// opts (nil: none) may add a quick try and a check of cached answers
// (runOptions).
// A big answer may be shared with the other requests of its flight: its
// slices are read-only.
func runCached[T any](ctx context.Context, s *Searcher, game, key string, budget time.Duration,
	opts *runOptions[T], compute func(ctx context.Context) (T, int64, bool, error)) (T, string, error) {
	var zero T
	var quick func(ctx context.Context) (T, int64, bool)
	var consistent func(T) bool
	named := budget
	if opts != nil {
		quick, consistent = opts.Quick, opts.Consistent
		if opts.Asked > 0 {
			named = opts.Asked
		}
	}
	// Concurrent requests share a search only with the same budget: its
	// answer, when not proven, is what that budget found.
	flight := key + "|budget=" + named.String()
	// usable: a cached answer that serves this request. A valid answer
	// that does not serve this budget is kept as a fallback (stale): the
	// search for a better one may prove less.
	var stale T
	haveStale := false
	keptStale := false // this request's search knew less than stale
	refused := false   // counted once a request (the entry is read again after the slot)
	usable := func(raw []byte) (T, bool) {
		v, ok := decodeFinal[T](raw)
		if !ok || consistent != nil && !consistent(v) {
			// Refused: computed again, and replaced.
			if s.Metrics != nil && !refused {
				s.Metrics.CacheResults.WithLabelValues("answer", "invalid").Inc()
			}
			refused = true
			return v, false
		}
		if b, isB := any(&v).(budgetedAnswer); ok && isB && !b.serves(budget) {
			stale, haveStale = v, true
			ok = false // a longer budget may do better: search again
		}
		return v, ok
	}
	// A cache hit is decoded once, by the check that vets it (this
	// goroutine's only: LoadChecked calls it before any flight).
	var hit T
	vetHit := func(raw []byte) bool {
		release, err := s.Assembly.Enter(ctx, len(raw) >= BigAnswerBytes)
		if err != nil {
			release = func() {} // the request is ending; its error comes next
		}
		defer release()
		v, ok := usable(raw)
		hit = v
		if !ok {
			PauseAssembly(ctx) // a search comes next
		}
		return ok
	}
	raw, origin, err := s.Loader.LoadChecked(ctx, key, flight, vetHit, func(ctx context.Context) ([]byte, bool, error) {
		// The flight's search is not the first request's: it holds no
		// place in the assembly gate.
		ctx = withoutHold(ctx)
		budget := budget // what the quick try leaves
		if quick != nil && s.quickBusy.CompareAndSwap(false, true) {
			start := time.Now()
			v, nodes, ok := func() (T, int64, bool) {
				defer s.quickBusy.Store(false)
				qctx, cancel := context.WithTimeout(ctx, min(s.quickTime(), budget))
				defer cancel()
				return quick(qctx)
			}()
			if took := time.Since(start); ok {
				s.observe(game, nodes, true, took)
				b, err := json.Marshal(v)
				return b, took >= s.MinCacheTime, err // final: cached as the slot's search's answers
			}
			s.observeNodes(game, nodes) // a try, no search of its own
			budget = max(budget-time.Since(start), time.Millisecond)
		}
		release, err := s.Slots.AcquireFor(ctx, budget)
		if err != nil {
			return nil, false, err
		}
		defer release()
		// Another budget's search may have proven it while this one
		// waited for the slot.
		if v, ok, _ := s.Loader.Cache().Get(cache.Fresh(cache.Uncounted(ctx)), key); ok {
			if _, ok := usable(v); ok {
				return v, false, nil
			}
		}
		bctx, cancel := context.WithTimeout(ctx, budget)
		defer cancel()
		start := time.Now()
		v, nodes, proven, err := compute(bctx)
		took := time.Since(start)
		s.observe(game, nodes, proven, took)
		if err != nil {
			return nil, false, err
		}
		if haveStale && knowsMore(&stale, &v) {
			// The search (cut short under load, or by its budget) knew
			// less than the cache: the cached answer stands, in the
			// cache too.
			keptStale = true
			b, err := json.Marshal(stale)
			return b, false, err
		}
		b, err := json.Marshal(v)
		if err != nil {
			return nil, false, fmt.Errorf("encode %s answer: %w", game, err)
		}
		if k, ok := any(&v).(keptAnswer); ok && took >= s.MinCacheTime && !proven {
			k.keep(ctx, s, key)
		}
		return b, proven && took >= s.MinCacheTime, nil
	})
	if err != nil {
		return zero, "", err
	}
	if origin == cache.Cached {
		return hit, SourceCache, nil
	}
	decode := func() (T, error) {
		release, err := s.Assembly.Enter(ctx, len(raw) >= BigAnswerBytes)
		if err != nil {
			return zero, err
		}
		defer release()
		var v T
		if err := json.Unmarshal(raw, &v); err != nil {
			return zero, fmt.Errorf("decode %s answer: %w", game, err)
		}
		return v, nil
	}
	var v T
	if len(raw) < BigAnswerBytes {
		if v, err = decode(); err != nil {
			return zero, "", err
		}
	} else {
		d := s.shared.of(raw)
		d.once.Do(func() { d.v, d.err = decode() })
		var ok bool
		if v, ok = d.v.(T); d.err != nil || !ok {
			// This request's own try: the first one's request may have
			// ended (its error is its own), or the type differs.
			if v, err = decode(); err != nil {
				return zero, "", err
			}
		}
	}
	if keptStale || haveStale && knowsMore(&stale, &v) {
		// The search knew less than the cache (this request's, above; or
		// another's flight): the cached answer stands.
		return stale, SourceCache, nil
	}
	return v, SourceSearch, nil
}

// knowsMore reports whether the answer a knows more than b, two answers
// of one position (budgetedAnswer.rank).
func knowsMore[T any](a, b *T) bool {
	ra, ok := any(a).(budgetedAnswer)
	rb, okb := any(b).(budgetedAnswer)
	return ok && okb && slices.Compare(ra.rank(), rb.rank()) > 0
}

// observeNodes counts a job unit's search in the metrics: its nodes (the
// searches' histogram is the requests': a unit may run for an hour).
func (s *Searcher) observeNodes(game string, nodes int64) {
	if s.Metrics != nil {
		s.Metrics.SolverNodes.WithLabelValues(game).Add(float64(nodes))
	}
}

// observe counts a search in the metrics.
func (s *Searcher) observe(game string, nodes int64, proven bool, took time.Duration) {
	if s.Metrics != nil {
		s.Metrics.SolverNodes.WithLabelValues(game).Add(float64(nodes))
		s.Metrics.Searches.WithLabelValues(game, strconv.FormatBool(proven)).Observe(took.Seconds())
	}
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

// validFor is validCached for the polyomino and capture answers of job
// units that search up to budget: a kept partial answer serves a
// polyomino unit (it has the value the unit needs), and a capture unit
// only when its search was about as long (PolyominoAnswer.serves).
func (s *Searcher) validFor(budget time.Duration) func([]byte) bool {
	return func(raw []byte) bool {
		a, ok := validCached[PolyominoAnswer](s, raw)
		return ok && a.serves(budget)
	}
}

// finalAnswer is an answer type that says whether a value of it may come
// from the cache: the cache only ever stores final answers and kept
// partial ones (keptAnswer), so one that is neither (an empty object, a
// null) was not written by this code.
type finalAnswer interface{ final() bool }

// keptAnswer is an answer type with answers that are not final but worth
// keeping (a proven value whose best moves are not all known): keep
// stores such an answer under key unless the cache holds a better one.
// Kept answers settle no other search of their key (a longer budget may
// complete them).
type keptAnswer interface {
	keep(ctx context.Context, s *Searcher, key string)
}

// budgetedAnswer is an answer type whose cached answers serve only
// requests of some budgets (a partial answer, those not much longer than
// the search that made it); the others search again.
type budgetedAnswer interface {
	serves(budget time.Duration) bool
	// rank orders the answers of one position by what they know: the
	// greater (slices.Compare) knows more.
	rank() []int
}

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
