package service

import (
	"context"
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
	s := &Slots{run: make(chan struct{}, n), wait: make(chan struct{}, queue), maxWait: maxWait}
	if m != nil {
		s.inUse, s.waiting, s.refused = m.SlotsInUse, m.SlotsWaiting, m.SlotsRefused
	}
	return s
}

// Size returns the number of slots.
func (s *Slots) Size() int { return cap(s.run) }

// Acquire takes a slot, waiting in the bounded queue when all are busy. The
// returned release must be called exactly once.
func (s *Slots) Acquire(ctx context.Context) (release func(), err error) {
	select {
	case s.run <- struct{}{}:
		return s.taken(), nil
	default:
	}
	select {
	case s.wait <- struct{}{}:
	default:
		return nil, s.busy("all %d solver slots are busy and the queue is full", cap(s.run))
	}
	gaugeAdd(s.waiting, 1)
	defer func() { <-s.wait; gaugeAdd(s.waiting, -1) }()
	timer := time.NewTimer(s.maxWait)
	defer timer.Stop()
	select {
	case s.run <- struct{}{}:
		return s.taken(), nil
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
		return s.taken(), true
	default:
		return nil, false
	}
}

func (s *Slots) taken() func() {
	gaugeAdd(s.inUse, 1)
	return func() { <-s.run; gaugeAdd(s.inUse, -1) }
}

func (s *Slots) busy(format string, args ...any) *Error {
	if s.refused != nil {
		s.refused.Inc()
	}
	e := &Error{Kind: KindBusy, RetryAfter: time.Second}
	e.Message = sprintf(format, args...)
	return e
}

func gaugeAdd(g prometheus.Gauge, v float64) {
	if g != nil {
		g.Add(v)
	}
}
