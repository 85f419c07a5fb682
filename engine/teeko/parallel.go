package teeko

import (
	"context"
	"sync"
	"sync/atomic"
)

// parallelFor calls fn(w, lo, hi) for consecutive chunks [lo, hi) of [0, n)
// on the given number of goroutines; w (0..workers-1) names the goroutine so
// that fn can use per-worker buffers. It stops early, returning the
// context's error, when ctx is cancelled.
func parallelFor(ctx context.Context, workers, n, chunk int, fn func(w, lo, hi int)) error {
	if chunk < 1 {
		chunk = 1
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				lo := int(next.Add(int64(chunk))) - chunk
				if lo >= n {
					return
				}
				fn(w, lo, min(lo+chunk, n))
			}
		}()
	}
	wg.Wait()
	return ctx.Err()
}

// Progress reports how far a Build has come. Done and Total count units of
// work (positions visited) over the whole build of one rule set; Phase names
// the current step ("move-init", "move-retrograde", "drop", "done").
type Progress struct {
	Rules       Rules
	Phase       string
	Done, Total int64
}

// progressMeter counts work from many goroutines and calls the user's
// callback, serialized, at most about every 1% of the total.
type progressMeter struct {
	fn    func(Progress)
	rules Rules
	total int64
	done  atomic.Int64
	mu    sync.Mutex
	phase string
	last  atomic.Int64
}

func newProgressMeter(fn func(Progress), rules Rules, total int64) *progressMeter {
	return &progressMeter{fn: fn, rules: rules, total: total}
}

// setPhase starts a new phase and reports it.
func (m *progressMeter) setPhase(phase string) {
	if m.fn == nil {
		return
	}
	m.mu.Lock()
	m.phase = phase
	m.mu.Unlock()
	m.report(true)
}

// add counts n more units of work.
func (m *progressMeter) add(n int64) {
	if m.fn == nil {
		return
	}
	m.done.Add(n)
	m.report(false)
}

func (m *progressMeter) report(force bool) {
	done := min(m.done.Load(), m.total)
	if !force && done-m.last.Load() < m.total/100 {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if !force && done-m.last.Load() < m.total/100 {
		return
	}
	m.last.Store(done)
	m.fn(Progress{Rules: m.rules, Phase: m.phase, Done: done, Total: m.total})
}
