package service

import (
	"context"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Slots bounds solver work: at most n searches run at once and at most
// queue more wait for a slot, each no longer than maxWait. Beyond that a
// request is refused at once with KindBusy and a Retry-After, instead of
// queueing forever behind work that may take the whole budget.
type Slots struct {
	run     chan struct{}
	wait    chan struct{}
	maxWait time.Duration
	inUse   prometheus.Gauge
	waiting prometheus.Gauge
	refused prometheus.Counter
	waited  prometheus.Observer

	mu    sync.Mutex
	holds map[uint64]holdTime // each holder with a known time
	seq   uint64
	// typical is a moving average of how long holders with a known time
	// held their slot (0: none yet): most searches end long before their
	// budget (hexomino analyses held a 30 s slot for 0.3 s, and refusals
	// said to retry after 28-30 s).
	typical time.Duration
}

// holdTime is when a holder took its slot and the most it expects to hold
// it.
type holdTime struct {
	start  time.Time
	budget time.Duration
}

// end is when a holder should release its slot: within twice the typical
// hold when it is not past that yet (most are), else by its budget.
func (h holdTime) end(typical time.Duration) time.Time {
	if typical > 0 && 2*typical < h.budget {
		if e := h.start.Add(2 * typical); time.Now().Before(e) {
			return e
		}
	}
	return h.start.Add(h.budget)
}

// NewSlots returns n slots with a queue of the given length. The gauges
// may be nil.
func NewSlots(n, queue int, maxWait time.Duration, m *Metrics) *Slots {
	if n < 1 {
		n = 1
	}
	if queue < 0 {
		queue = 0
	}
	s := &Slots{run: make(chan struct{}, n), wait: make(chan struct{}, queue), maxWait: maxWait, holds: map[uint64]holdTime{}}
	if m != nil {
		s.inUse, s.waiting, s.refused, s.waited = m.SlotsInUse, m.SlotsWaiting, m.SlotsRefused, m.SlotWait
		m.Slots.Set(float64(n))
	}
	return s
}

// Size returns the number of slots.
func (s *Slots) Size() int { return cap(s.run) }

// Acquire takes a slot, waiting in the bounded queue when all are busy. The
// returned release must be called exactly once.
func (s *Slots) Acquire(ctx context.Context) (release func(), err error) {
	return s.AcquireFor(ctx, 0)
}

// AcquireFor is Acquire for work expected to hold the slot for about
// expect (its budget; 0: unknown): a request refused meanwhile is told to
// retry when the first such holder should be done (Retry-After), not
// after a second whatever the budgets.
func (s *Slots) AcquireFor(ctx context.Context, expect time.Duration) (release func(), err error) {
	select {
	case s.run <- struct{}{}:
		if s.waited != nil {
			s.waited.Observe(0)
		}
		return s.taken(expect), nil
	default:
	}
	select {
	case s.wait <- struct{}{}:
	default:
		return nil, s.busy("all %d solver slots are busy and the queue is full", cap(s.run))
	}
	if s.waited != nil { // a wait in the queue, however it ends
		start := time.Now()
		defer func() { s.waited.Observe(time.Since(start).Seconds()) }()
	}
	gaugeAdd(s.waiting, 1)
	defer func() { <-s.wait; gaugeAdd(s.waiting, -1) }()
	timer := time.NewTimer(s.maxWait)
	defer timer.Stop()
	select {
	case s.run <- struct{}{}:
		return s.taken(expect), nil
	case <-timer.C:
		return nil, s.busy("no solver slot became free within %v", s.maxWait)
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// TryAcquire takes a slot only if one is free now (work that may be
// skipped, never queued); release must then be called exactly once.
func (s *Slots) TryAcquire() (release func(), ok bool) {
	select {
	case s.run <- struct{}{}:
		return s.taken(0), true
	default:
		return nil, false
	}
}

// taken counts a slot taken for about expect (0: unknown) and returns its
// release.
func (s *Slots) taken(expect time.Duration) func() {
	gaugeAdd(s.inUse, 1)
	var id uint64
	if expect > 0 {
		s.mu.Lock()
		s.seq++
		id = s.seq
		s.holds[id] = holdTime{start: time.Now(), budget: expect}
		s.mu.Unlock()
	}
	return func() {
		if id != 0 {
			s.mu.Lock()
			held := time.Since(s.holds[id].start)
			delete(s.holds, id)
			if s.typical == 0 {
				s.typical = held
			} else {
				s.typical += (held - s.typical) / 5
			}
			s.mu.Unlock()
		}
		<-s.run
		gaugeAdd(s.inUse, -1)
	}
}

// Retry-After of a refusal: when the first holder with a known time
// should release its slot (holdTime.end), within these bounds.
const (
	minRetry = time.Second
	maxRetry = 30 * time.Second
)

func (s *Slots) busy(format string, args ...any) *Error {
	if s.refused != nil {
		s.refused.Inc()
	}
	retry := minRetry
	s.mu.Lock()
	if len(s.holds) == s.Size() {
		// Every slot's end is known: the first of them.
		first := time.Time{}
		for _, h := range s.holds {
			if end := h.end(s.typical); first.IsZero() || end.Before(first) {
				first = end
			}
		}
		retry = min(max(time.Until(first), minRetry), maxRetry)
	}
	s.mu.Unlock()
	e := &Error{Kind: KindBusy, RetryAfter: retry}
	e.Message = sprintf(format, args...)
	return e
}

func gaugeAdd(g prometheus.Gauge, v float64) {
	if g != nil {
		g.Add(v)
	}
}

// Assembly bounds the goroutines that assemble big answers outside the
// solver slots: decoding a shared or cached answer of megabytes of JSON,
// mapping its tens of thousands of moves onto the position asked about,
// encoding it. A flood of such answers (the hexominoes opening with
// all_moves: 1 MB, 14,589 moves, cheap to compute once and share) would
// otherwise keep every core busy with assembly and starve the cheap
// requests and the health checks, which the solver slots alone protect
// from a flood of searches. A big answer waits for a place as long as its
// request lives (the work is done; refusing it would waste it); small
// answers never wait. A nil *Assembly never waits.
type Assembly struct {
	run     chan struct{}
	waiting prometheus.Gauge
}

// Answers at least this big (bytes of JSON, or moves) are assembled in
// the gate.
const (
	BigAnswerBytes = 64 << 10
	BigAnswerMoves = 1000
)

// NewAssembly returns a gate of n places (at least one); m may be nil.
func NewAssembly(n int, m *Metrics) *Assembly {
	a := &Assembly{run: make(chan struct{}, max(n, 1))}
	if m != nil {
		a.waiting = m.AssemblyWaiting
	}
	return a
}

// Enter returns when an answer may be assembled: at once when it is not
// big, else when a place is free (ctx's error if it ends first). release
// must be called exactly once, after the assembly.
func (a *Assembly) Enter(ctx context.Context, big bool) (release func(), err error) {
	if a == nil || !big {
		return func() {}, nil
	}
	if h := holdOf(ctx); h != nil {
		// The request keeps its place to its end: entered once, released
		// by HoldAssembly's done.
		if h.release == nil {
			r, err := a.enter(ctx)
			if err != nil {
				return nil, err
			}
			h.release = r
		}
		return func() {}, nil
	}
	return a.enter(ctx)
}

func (a *Assembly) enter(ctx context.Context) (release func(), err error) {
	select {
	case a.run <- struct{}{}:
		return a.leave, nil
	default:
	}
	gaugeAdd(a.waiting, 1)
	defer gaugeAdd(a.waiting, -1)
	select {
	case a.run <- struct{}{}:
		return a.leave, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (a *Assembly) leave() { <-a.run }

type holdKey struct{}

// hold is a request's place in the assembly gate, once it has one.
type hold struct{ release func() }

// HoldAssembly returns a context in which a request's steps with a big
// answer (decoding it, mapping it, encoding it) take the assembly gate once
// and keep their place until done is called (at the latest at the end of
// the request; done may be called more than once): the requests waiting
// then finish in turn, instead of all queuing again at each step and
// finishing together, late. Work of another kind in between (a search, a
// job submission) gives the place up first (PauseAssembly).
func HoldAssembly(ctx context.Context) (context.Context, func()) {
	h := &hold{}
	return context.WithValue(ctx, holdKey{}, h), func() { h.drop() }
}

// PauseAssembly gives up the place the request of ctx holds in the
// assembly gate, if any, before work that is not assembly (a search, a
// job submission): its next big step takes a place again.
func PauseAssembly(ctx context.Context) {
	if h := holdOf(ctx); h != nil {
		h.drop()
	}
}

// withoutHold is ctx without the request's hold: for work that outlives
// the request or is shared with others (a flight's search).
func withoutHold(ctx context.Context) context.Context {
	if holdOf(ctx) != nil {
		return context.WithValue(ctx, holdKey{}, (*hold)(nil))
	}
	return ctx
}

// holdOf is the request's hold in ctx (nil: none).
func holdOf(ctx context.Context) *hold {
	h, _ := ctx.Value(holdKey{}).(*hold)
	return h
}

func (h *hold) drop() {
	if h.release != nil {
		h.release()
		h.release = nil
	}
}
