package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"
)

// Why a unit's context was canceled other than by its worker's shutdown.
var (
	errJobOver   = errors.New("the job was canceled or finished")
	errJobGone   = errors.New("the job's record is gone from the store")
	errLeaseLost = errors.New("another worker took the unit over")
	errShutdown  = errors.New("the worker is shutting down")
	errSlow      = errors.New("the unit outlasted the express slot's limit")
)

// panicError is a recovered panic of a kind's method.
type panicError struct {
	value any
	stack []byte
}

func (p *panicError) Error() string { return fmt.Sprintf("panicked: %v", p.value) }

// RunWorker processes units, up to concurrency at once, until ctx ends;
// then it hands its running units back (see the package documentation) and
// returns. name names the worker in the store (its slots are the
// consumers name/0, name/1, ...): give each worker process its own, e.g.
// host and pid; a restarted worker may take its old name again. At start
// it forgets the consumers of workers gone for a day (with no units).
//
// With Options.Express it also runs an express slot (consumer
// name/express): it takes only new units of jobs not marked slow, and
// runs each for at most Options.Express; a unit that outlasts it is
// handed back, uncounted, to the other slots, and its job is marked slow.
// A small job so waits for a slow job's running unit at most
// Options.Express (the time the express slot gives a new job's unit), not
// up to the unit's whole time; each express slot spends at most that much
// once per slow job.
func (m *Manager) RunWorker(ctx context.Context, name string, concurrency int) error {
	if name == "" {
		return errors.New("jobs: a worker needs a name")
	}
	concurrency = max(concurrency, 1)
	log := m.log.With(zap.String("worker", name))
	log.Info("worker started", zap.Int("concurrency", concurrency), zap.Duration("express", m.opts.Express))
	// No reclaim of a live worker's unit before it could heartbeat
	// (reclaimAfter).
	m.holdReclaims.Store(time.Now().Add(m.opts.ReclaimAfter).UnixNano())
	if n, err := m.store.forget(ctx, m.opts.forgetAfter); err != nil {
		log.Warn("could not forget dead workers", zap.Error(err))
	} else if n > 0 {
		log.Info("forgot dead workers", zap.Int("consumers", n))
	}
	// A worker of this name that died (a restarted container keeps its
	// host name and pid) left its units pending: those without a heartbeat
	// for adoptIdle are handed back, counted, not left to the others'
	// reclaims after ReclaimAfter; once now and once more when the units
	// it heartbeated last before dying have gone that long without (the
	// units this worker's slots run are left out, however late their
	// heartbeats). A live worker of the same name (a misconfiguration)
	// keeps its units: it heartbeats them.
	adoptIdle := 3 * m.opts.Heartbeat
	adopt := func() {
		var own []string
		m.running.Range(func(id, _ any) bool {
			own = append(own, id.(string))
			return true
		})
		if n, err := m.store.adopt(ctx, name, adoptIdle, own); err != nil && ctx.Err() == nil {
			log.Warn("could not take back the units of an earlier worker of this name", zap.Error(err))
		} else if n > 0 {
			log.Info("took back the units of an earlier worker of this name", zap.Int("units", n))
		}
	}
	adopt()
	var wg sync.WaitGroup
	for i := range concurrency {
		// One consumer per slot, so that a unit one slot reclaims from
		// another slot of the same worker (whose heartbeats stalled) stops
		// the stalled run at its next heartbeat.
		consumer := fmt.Sprintf("%s/%d", name, i)
		wg.Go(func() { m.slot(ctx, consumer, log.With(zap.String("consumer", consumer)), 0) })
	}
	if m.opts.Express > 0 {
		consumer := name + "/express"
		wg.Go(func() { m.slot(ctx, consumer, log.With(zap.String("consumer", consumer)), m.opts.Express) })
	}
	wg.Go(func() {
		if sleep(ctx, adoptIdle+m.opts.Heartbeat); ctx.Err() == nil {
			adopt()
		}
	})
	wg.Wait()
	log.Info("worker stopped")
	return nil
}

// slot runs one unit at a time until ctx ends; an express slot (limit >
// 0) each for at most limit.
func (m *Manager) slot(ctx context.Context, consumer string, log *zap.Logger, limit time.Duration) {
	var backoff time.Duration
	for ctx.Err() == nil {
		d, err := m.store.claim(ctx, consumer, m.reclaimAfter(), m.opts.Poll, limit > 0)
		if err != nil {
			m.storeFailed(err)
			backoff = min(max(2*backoff, 100*time.Millisecond), 5*time.Second)
			log.Warn("could not claim a unit", zap.Error(err), zap.Duration("retry_in", backoff))
			sleep(ctx, backoff)
			continue
		}
		backoff = 0
		if d == nil {
			continue
		}
		if ctx.Err() != nil {
			// Claimed as the worker stopped: give it back untouched.
			m.release(withoutCancel(ctx), d, consumer, false, log.With(zap.String("job", LoggedID(d.JobID)), zap.Int("unit", d.Unit)))
			return
		}
		m.running.Store(d.EntryID, true)
		foreign := m.process(ctx, d, consumer, log, limit)
		m.running.Delete(d.EntryID)
		if foreign {
			// Leave the unit to the workers that know its type for a while.
			sleep(ctx, m.opts.Poll)
		}
	}
}

// process takes one delivered unit to its end: skipped, run and combined,
// failed, or handed back. Whatever the store does not confirm is left
// pending, for a reclaim after ReclaimAfter. A unit of an express slot
// (limit > 0) runs for at most limit.
// It reports whether it handed the unit back because its job type is not
// one of this manager's (on a shared store, another worker's).
func (m *Manager) process(ctx context.Context, d *delivery, consumer string, log *zap.Logger, limit time.Duration) (foreign bool) {
	bg := withoutCancel(ctx) // store calls still run while shutting down
	log = log.With(zap.String("job", LoggedID(d.JobID)), zap.Int("unit", d.Unit), zap.Int64("delivery", d.Deliveries))
	var start unitStart
	if m.retry(bg, log, "read the unit's job", func(ctx context.Context) (err error) {
		start, err = m.store.begin(ctx, d, time.Now().UTC())
		return err
	}) != nil {
		return
	}
	typ := start.Type
	switch {
	case d.Reclaimed && d.Deliveries > 1:
		// A try of it did not end: its worker died or stalled past
		// ReclaimAfter, or the unit panicked (this one or an earlier
		// one: a hand-back after it cannot be told apart).
		m.opts.Metrics.reclaimed(typ)
		log.Info("unit reclaimed: delivered before, its try did not end")
	case d.Reclaimed:
		// Handed back uncounted (a shutdown, an express slot's limit,
		// another process's type): routine, counted by its outcome.
		log.Debug("unit taken after a hand-back")
	}
	if !start.Found || start.Status.Final() {
		m.opts.Metrics.unit(typ, "skipped")
		m.ack(bg, d, log)
		return
	}
	kind := m.kinds[typ]
	if kind == nil {
		if m.store.shared() {
			// Workers of other processes (a book worker and the servers,
			// say) share the queue: give the unit back uncounted.
			m.release(bg, d, consumer, false, log.With(zap.String("type", typ)))
			return true
		}
		m.fail(bg, start, d, log, fmt.Sprintf("no worker runs job type %q", typ))
		return
	}
	if f := unitFormat(kind); start.Format > f {
		// Planned by a later version (Versioned): this worker would
		// misread the unit. On a shared store workers of that version
		// may be at hand (a rolling upgrade): leave it to them, uncounted,
		// for ReclaimAfter from this unit's first hand-back for its format
		// (not from the job's submission, when a job that waited behind
		// others was failed at once, nor from its first unit begun, when
		// a job that later workers had run for ReclaimAfter was); then
		// fail it, saying why.
		if m.store.shared() {
			var first time.Time
			if m.retry(bg, log, "record the unit's hand-back for its format", func(ctx context.Context) (err error) {
				first, err = m.store.passed(ctx, d, time.Now().UTC())
				return err
			}) != nil {
				return // left pending, reclaimed after ReclaimAfter
			}
			if time.Since(first) < m.opts.ReclaimAfter {
				m.opts.Metrics.unit(typ, "passed")
				m.release(bg, d, consumer, false, log.With(zap.Int("format", start.Format)))
				return true
			}
		}
		m.opts.Metrics.unit(typ, "failed")
		m.fail(bg, start, d, log, fmt.Sprintf("the job was planned by a later version of gamesolver (%s units of format %d; this worker reads format %d and earlier): replace the workers with that version, then submit the job again", typ, start.Format, f))
		return
	}
	if limit > 0 && start.Slow && !start.HasResult {
		// The Redis stream cannot skip a slow job's units: leave them to
		// the other slots (routine: no Info line, not "deferred").
		m.opts.Metrics.unit(typ, "passed")
		if m.retry(bg, log, "hand the slow job's unit back", func(ctx context.Context) error { return m.store.release(ctx, d, consumer, false) }) == nil {
			log.Debug("unit of a slow job left to the other slots")
		}
		return
	}
	if d.Deliveries > int64(m.opts.MaxDeliveries) {
		m.opts.Metrics.unit(typ, "failed")
		m.fail(bg, start, d, log, fmt.Sprintf("unit %d was delivered %d times without finishing: the workers running it died or stalled", d.Unit, d.Deliveries-1))
		return
	}

	var result json.RawMessage // nil: the unit was finished before, only combine
	var nodes int64
	if !start.HasResult {
		var err error
		began := time.Now()
		if !start.Created.IsZero() {
			m.opts.Metrics.waited(typ, began.Sub(start.Created))
		}
		result, nodes, err = m.run(ctx, d, kind, start.Request, consumer, log, limit)
		took := time.Since(began)
		m.opts.Metrics.ran(typ, runOutcome(err), took)
		// Which worker ran which unit, how long (debug: a line a unit).
		log.Debug("unit ran", zap.String("type", typ), zap.String("outcome", runOutcome(err)), zap.Duration("took", took), zap.Int64("nodes", nodes))
		var p *panicError
		switch {
		case errors.As(err, &p):
			m.opts.Metrics.unit(typ, "panicked")
			log.Error("unit panicked", zap.Any("panic", p.value), zap.ByteString("stack", p.stack))
			if d.Deliveries >= int64(m.opts.MaxDeliveries) {
				m.fail(bg, start, d, log, fmt.Sprintf("unit %d panicked on %d deliveries: %v", d.Unit, d.Deliveries, p.value))
				return
			}
			m.release(bg, d, consumer, true, log)
			return
		case errors.Is(err, errShutdown):
			m.opts.Metrics.unit(typ, "returned")
			m.release(bg, d, consumer, false, log)
			return
		case errors.Is(err, errSlow):
			m.opts.Metrics.unit(typ, "deferred")
			if m.retry(bg, log, "hand the slow unit back", func(ctx context.Context) error { return m.store.slow(ctx, d, consumer) }) == nil {
				log.Info("unit outlasted the express slot's limit: handed back, its job marked slow", zap.Duration("limit", limit))
			}
			return
		case errors.Is(err, errJobOver):
			m.opts.Metrics.unit(typ, "skipped")
			m.ack(bg, d, log)
			return
		case errors.Is(err, errLeaseLost):
			m.opts.Metrics.unit(typ, "lost")
			log.Warn("unit taken over by another worker; dropping this run")
			return
		case errors.Is(err, errJobGone):
			m.orphaned(bg, d, typ, log)
			return
		case err != nil:
			m.opts.Metrics.unit(typ, "failed")
			m.fail(bg, start, d, log, fmt.Sprintf("unit %d: %v", d.Unit, err))
			return
		}
		if result == nil {
			result = json.RawMessage("null")
		}
	}

	var status Status
	var results map[int]json.RawMessage
	// A result is worth waiting for: a store that comes back (a Redis
	// restart) takes it, instead of the unit running again after a
	// reclaim. The other workers reclaim nothing until ReclaimAfter after
	// the store is back (reclaimAfter), so the worker tries for up to
	// resultPatience; shutting down, for a third of ReclaimAfter.
	if m.retryFor(bg, log, "store the unit's result", func(elapsed time.Duration, err error) bool {
		return elapsed < m.opts.ReclaimAfter/3 || ctx.Err() == nil && storeDown(err) && elapsed < resultPatience
	}, func(ctx context.Context) (err error) {
		status, results, err = m.store.complete(ctx, d, result, nodes)
		return err
	}) != nil {
		return
	}
	if status == "" {
		m.orphaned(bg, d, typ, log)
		return
	}
	if !start.HasResult {
		// Counted once its result is stored: one outcome per delivery (a
		// run whose job was then gone counted done and orphaned, one
		// whose store failed done twice, with its rerun).
		m.opts.Metrics.unit(typ, "done")
	}
	if status.Final() {
		m.ack(bg, d, log)
		return
	}
	// The unit stays claimed while the results are combined (a kind's
	// Combine may search: a polyomino.analyze job's final length search),
	// or another slot would reclaim it after ReclaimAfter; the heartbeat
	// cancels Combine as it cancels a run.
	combineCtx, cancel := context.WithCancelCause(ctx)
	var nodes0 atomic.Int64 // recorded with the result already
	stopBeat := m.beat(bg, d, consumer, &nodes0, cancel, log)
	combined, done, err := combine(combineCtx, kind, start.Request, start.Total, results)
	cause := context.Cause(combineCtx) // nil: Combine ended uncanceled
	stopBeat()
	cancel(nil)
	switch cause {
	case nil:
	case errJobOver:
		m.ack(bg, d, log)
		return
	case errLeaseLost:
		log.Warn("unit taken over by another worker while its job's results were combined")
		return
	case errJobGone:
		m.orphaned(bg, d, typ, log)
		return
	default:
		// Shutting down: the result is stored, and whatever Combine
		// answered may be cut short. The next worker (after a restart,
		// the memory store's) combines again. (Counted done: its
		// result is stored.)
		m.release(bg, d, consumer, false, log)
		return
	}
	var p *panicError
	if errors.As(err, &p) {
		// As a panic in Run: its stack logged, the unit handed back (its
		// result is stored: the next delivery combines again) until its
		// MaxDeliveries-th delivery.
		m.opts.Metrics.unit(typ, "panicked")
		log.Error("combining the job's results panicked", zap.Any("panic", p.value), zap.ByteString("stack", p.stack))
		if d.Deliveries >= int64(m.opts.MaxDeliveries) {
			m.fail(bg, start, d, log, fmt.Sprintf("combining %d results panicked on %d deliveries: %v", len(results), d.Deliveries, p.value))
			return
		}
		m.release(bg, d, consumer, true, log)
		return
	}
	if err != nil {
		m.fail(bg, start, d, log, fmt.Sprintf("combining %d results: %v", len(results), err))
		return
	}
	if !done && len(results) == start.Total {
		m.fail(bg, start, d, log, fmt.Sprintf("every unit finished but job type %s did not combine them into a result", typ))
		return
	}
	if done {
		if m.end(bg, start, d.JobID, ending{Status: StatusDone, Result: combined}, log) != nil {
			return
		}
	}
	m.ack(bg, d, log)
	return false
}

// outageIdle is the idle time a unit must have for a reclaim while the
// store was unreachable moments ago: more than any outage, less than a
// handed-back unit's (handBackIdle, which stays claimable).
const outageIdle = 30 * 24 * time.Hour

// storeFailed records a worker's failed call: when it could not reach
// the store, or the store refused the work for a time (storeDown; not
// another error it answered), the workers hold their reclaims for
// ReclaimAfter (reclaimAfter).
func (m *Manager) storeFailed(err error) {
	if storeDown(err) {
		m.holdReclaims.Store(time.Now().Add(m.opts.ReclaimAfter).UnixNano())
	}
}

// reclaimAfter is the idle time after which a slot reclaims a unit:
// ReclaimAfter, unless this process failed to reach the store, or started
// a worker, within the last ReclaimAfter. A store that was down or frozen
// (a Redis restart) saw no heartbeat meanwhile, so every running unit
// looks idle when it is back; their live workers renew their claims
// within a Heartbeat, while a reclaim would run the units again and count
// a delivery (three outages failed a job: "delivered 3 times without
// finishing"). A worker starting (perhaps just after such an outage, its
// first calls blocked rather than failed) holds its reclaims the same
// way. Units handed back stay claimable; a dead worker's are reclaimed up
// to ReclaimAfter later.
func (m *Manager) reclaimAfter() time.Duration {
	if time.Now().UnixNano() < m.holdReclaims.Load() {
		return outageIdle
	}
	return m.opts.ReclaimAfter
}

// runOutcome labels a run's time by how the run ended (Metrics.Run).
func runOutcome(err error) string {
	var p *panicError
	switch {
	case err == nil:
		return "done"
	case errors.As(err, &p), errors.Is(err, errShutdown), errors.Is(err, errSlow), errors.Is(err, errJobOver),
		errors.Is(err, errLeaseLost), errors.Is(err, errJobGone):
		return "stopped"
	}
	return "failed"
}

// run runs one unit with a heartbeat beside it, for at most limit when
// limit > 0. The error says why a run that did not finish stopped:
// errShutdown, errJobOver, errLeaseLost, errSlow, a *panicError, or the
// kind's own error.
func (m *Manager) run(ctx context.Context, d *delivery, kind Kind, request json.RawMessage, consumer string, log *zap.Logger, limit time.Duration) (json.RawMessage, int64, error) {
	unitCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	if limit > 0 {
		t := time.AfterFunc(limit, func() { cancel(errSlow) })
		defer t.Stop()
	}
	var nodes atomic.Int64
	stopBeat := m.beat(context.WithoutCancel(ctx), d, consumer, &nodes, cancel, log)

	m.opts.Metrics.running(kind.Name(), 1)
	result, err := safeRun(unitCtx, kind, request, d.Payload, func(n int64) { nodes.Store(n) })
	m.opts.Metrics.running(kind.Name(), -1)
	cause := context.Cause(unitCtx) // read before the deferred cancel sets one
	stopBeat()

	var p *panicError
	switch {
	case errors.As(err, &p):
	case cause == errSlow:
		// Whatever the kind returned (a search stopped by its context may
		// answer "unknown"), the unit did not finish: it runs again
		// elsewhere, without the limit (also when the worker stopped
		// after the limit, so that its job is marked slow).
		result, err = nil, errSlow
	case err == nil:
	case ctx.Err() != nil:
		err = errShutdown
	case cause == errJobOver || cause == errLeaseLost || cause == errJobGone:
		err = cause
	}
	return result, nodes.Load(), err
}

// beat runs heartbeat beside the caller until the returned function is
// called (and has returned).
func (m *Manager) beat(ctx context.Context, d *delivery, consumer string, nodes *atomic.Int64, cancel context.CancelCauseFunc, log *zap.Logger) (stop func()) {
	done := make(chan struct{})
	var hb sync.WaitGroup
	hb.Go(func() { m.heartbeat(ctx, d, consumer, nodes, cancel, done, log) })
	return func() {
		close(done)
		hb.Wait()
	}
}

// heartbeat renews the unit's claim every Heartbeat until stop closes, and
// cancels the run when the job is over or the unit was taken over.
func (m *Manager) heartbeat(ctx context.Context, d *delivery, consumer string, nodes *atomic.Int64, cancel context.CancelCauseFunc, stop <-chan struct{}, log *zap.Logger) {
	t := time.NewTicker(m.opts.Heartbeat)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		hctx, hcancel := context.WithTimeout(ctx, m.opts.OpTimeout)
		owned, status, err := m.store.heartbeat(hctx, d, consumer, nodes.Load())
		hcancel()
		switch {
		case err != nil:
			// Keep running: the result is still wanted, and the other
			// workers, who cannot reach the store either, reclaim nothing
			// until ReclaimAfter after it is back (reclaimAfter); if the
			// unit is run again anyway, a result is written once.
			m.storeFailed(err)
			log.Warn("heartbeat failed", zap.Error(err))
		case status == "":
			// Checked first: a store that lost its data lost the claim too.
			cancel(errJobGone)
			return
		case !owned:
			cancel(errLeaseLost)
			return
		case status.Final():
			cancel(errJobOver)
			return
		}
	}
}

// orphaned drops a unit whose job's record is gone from the store: it
// expired, or the store lost its data (Redis restarted without
// persistence); its job is lost, and GET /v1/jobs/{id} answers 404.
func (m *Manager) orphaned(ctx context.Context, d *delivery, typ string, log *zap.Logger) {
	m.opts.Metrics.unit(typ, "orphaned")
	log.Warn("the unit's job is gone from the jobs store (its record expired, or the store lost its data: a Redis restart without persistence?): the job is lost, this unit dropped")
	// Once, quietly: a store that lost its data lost the unit's entry too.
	actx, cancel := context.WithTimeout(ctx, m.opts.OpTimeout)
	defer cancel()
	_ = m.store.ack(actx, d)
}

// fail ends the unit's job as failed with msg, then acknowledges the unit.
func (m *Manager) fail(ctx context.Context, start unitStart, d *delivery, log *zap.Logger, msg string) {
	if m.end(ctx, start, d.JobID, ending{Status: StatusFailed, Error: msg}, log) == nil {
		m.ack(ctx, d, log)
	}
}

// end finishes a job unless it is finished already.
func (m *Manager) end(ctx context.Context, start unitStart, id string, e ending, log *zap.Logger) error {
	e.At, e.TTL = time.Now().UTC(), m.opts.TTL
	var won bool
	err := m.retry(ctx, log, "finish the job", func(ctx context.Context) (err error) {
		won, _, err = m.store.finish(ctx, id, e)
		return err
	})
	if err == nil && won {
		m.opts.Metrics.job(start.Type, e.Status)
		log.Info("job finished", zap.String("type", start.Type), zap.String("status", string(e.Status)), zap.String("error", e.Error))
	}
	return err
}

func (m *Manager) ack(ctx context.Context, d *delivery, log *zap.Logger) {
	_ = m.retry(ctx, log, "acknowledge the unit", func(ctx context.Context) error { return m.store.ack(ctx, d) })
}

func (m *Manager) release(ctx context.Context, d *delivery, consumer string, count bool, log *zap.Logger) {
	if m.retry(ctx, log, "hand the unit back", func(ctx context.Context) error { return m.store.release(ctx, d, consumer, count) }) == nil {
		log.Info("unit handed back", zap.Bool("counts_as_delivery", count))
	}
}

// workerContext is the key of a worker's own context (cancelled when it
// shuts down) in the contexts of its store calls (withoutCancel).
type workerContext struct{}

// withoutCancel is context.WithoutCancel(ctx), for store calls that still
// run while the worker shuts down, which keeps ctx for shuttingDown.
func withoutCancel(ctx context.Context) context.Context {
	return context.WithValue(context.WithoutCancel(ctx), workerContext{}, ctx)
}

// shuttingDown tells whether ctx is a store call's (withoutCancel) of a
// worker shutting down.
func shuttingDown(ctx context.Context) bool {
	w, _ := ctx.Value(workerContext{}).(context.Context)
	return w != nil && w.Err() != nil
}

// retry runs a store call a few times with growing pauses (under a second
// in all, beside the calls' own time: with a store that does not answer,
// each of the 5 tries waits OpTimeout, 25 s in all by default). A call
// that still fails leaves the unit pending in the store, where another
// worker reclaims it after ReclaimAfter. A worker shutting down
// (shuttingDown) makes one try of a store it cannot reach (storeDown), not
// five: the unit it leaves pending is reclaimed ReclaimAfter after the
// store is back either way, and the process has a grace to keep (a frozen
// Redis held a shutdown for 25 s).
func (m *Manager) retry(ctx context.Context, log *zap.Logger, what string, op func(context.Context) error) error {
	return m.retryFor(ctx, log, what, func(time.Duration, error) bool { return false }, op)
}

// resultPatience is how long a live worker tries to store a finished
// unit's result while the store cannot be reached.
const resultPatience = 10 * time.Minute

// retryFor is retry, trying on (pauses of at most a second) while
// patient(the time since the first try, the next pause included; the
// last error) holds.
func (m *Manager) retryFor(ctx context.Context, log *zap.Logger, what string, patient func(elapsed time.Duration, err error) bool, op func(context.Context) error) error {
	const attempts = 5
	delay := 50 * time.Millisecond
	start := time.Now()
	var err error
	for i := 1; ; i++ {
		opCtx, cancel := context.WithTimeout(ctx, m.opts.OpTimeout)
		err = op(opCtx)
		cancel()
		if err != nil {
			m.storeFailed(err)
		}
		if err == nil || (i >= attempts || storeDown(err) && shuttingDown(ctx)) && !patient(time.Since(start)+delay, err) {
			break
		}
		time.Sleep(delay)
		delay = min(2*delay, time.Second)
	}
	if err != nil {
		log.Warn("could not "+what+"; the unit stays pending for a reclaim", zap.Error(err))
	}
	return err
}

// safeRun calls kind.Run, turning a panic into a *panicError.
func safeRun(ctx context.Context, kind Kind, request, unit json.RawMessage, report func(int64)) (result json.RawMessage, err error) {
	defer func() {
		if r := recover(); r != nil {
			result, err = nil, &panicError{value: r, stack: debug.Stack()}
		}
	}()
	return kind.Run(ctx, request, unit, report)
}

// combine calls kind.Combine, turning a panic into an error.
func combine(ctx context.Context, kind Kind, request json.RawMessage, total int, results map[int]json.RawMessage) (result json.RawMessage, done bool, err error) {
	defer func() {
		if r := recover(); r != nil {
			result, done, err = nil, false, &panicError{value: r, stack: debug.Stack()}
		}
	}()
	return kind.Combine(ctx, request, total, results)
}

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
