package jobs

import (
	"context"
	"encoding/json"
	"time"
)

// A Store keeps jobs, their units and the units' results: NewMemoryStore or
// NewRedisStore. Its methods are unexported so that the two stores are the
// only ones: the Manager and the workers hold every rule, a store only
// makes each step atomic.
type Store interface {
	// create stores a queued job and enqueues its units, atomically; it
	// refuses (a *tooManyError) a job beyond the caps of lim, checked and
	// counted in the same step.
	create(ctx context.Context, s state, units []json.RawMessage, lim limits) error
	// load returns a job's state; found is false for unknown or expired
	// jobs.
	load(ctx context.Context, id string) (s state, found bool, err error)
	// claim hands consumer one unit: first a pending unit idle for at least
	// minIdle (its worker died or handed it back), else a new one, waiting
	// up to block for it. It returns nil when there is none. For an
	// express slot (see Options.Express) it hands out only new units, and
	// may skip those of jobs marked slow (the memory store does; the Redis
	// stream cannot, and the worker hands them back).
	claim(ctx context.Context, consumer string, minIdle, block time.Duration, express bool) (*delivery, error)
	// begin reads the unit's job and marks a queued job running.
	begin(ctx context.Context, d *delivery, now time.Time) (unitStart, error)
	// heartbeat tells whether consumer still owns the unit and, if so,
	// resets its idle time and records its node count while the job is
	// unfinished. It returns the job's status ("" when the job is gone).
	heartbeat(ctx context.Context, d *delivery, consumer string, nodes int64) (owned bool, status Status, err error)
	// complete stores the unit's result and node count unless it has one
	// (result nil: only read), and returns every result so far, while the
	// job is unfinished; once it is final (or gone) it writes nothing and
	// returns the status and no results.
	complete(ctx context.Context, d *delivery, result json.RawMessage, nodes int64) (Status, map[int]json.RawMessage, error)
	// finish ends a queued or running job. It reports whether this call
	// ended it and the job's status after the call ("" when unknown).
	finish(ctx context.Context, id string, e ending) (won bool, status Status, err error)
	// ack removes a unit from the queue for good.
	ack(ctx context.Context, d *delivery) error
	// release hands a unit owned by consumer back, claimable at once. With
	// count false the delivery does not count towards MaxDeliveries.
	release(ctx context.Context, d *delivery, consumer string, count bool) error
	// passed records that the unit is handed back for being of a later
	// format than its worker reads (unless recorded before) and returns
	// when that first happened.
	passed(ctx context.Context, d *delivery, now time.Time) (first time.Time, err error)
	// slow marks the unit's job slow (its units are not for express slots
	// any more) and hands the unit, owned by consumer, back uncounted.
	slow(ctx context.Context, d *delivery, consumer string) error
	// forget deletes the consumers that own no unit and have been idle for
	// idle, and returns how many.
	forget(ctx context.Context, idle time.Duration) (int, error)
	// adopt hands back, counted, the units that the consumers of a worker
	// named worker (its slots) hold and have not heartbeated for minIdle,
	// but for the entries in except (the caller's own, running): a worker
	// starting under the name of one that died takes them back at once,
	// instead of after ReclaimAfter (a live namesake's units, heartbeated,
	// stay its own). It returns how many.
	adopt(ctx context.Context, worker string, minIdle time.Duration, except []string) (int, error)
	// shared tells whether other processes' workers take units from this
	// store (and may know job types this one does not).
	shared() bool
	// countActive counts the unfinished jobs (queued or running).
	countActive(ctx context.Context) (int, error)
	// oldest returns when the oldest queued job and the oldest running
	// job were submitted (zero when there is none).
	oldest(ctx context.Context) (queued, running time.Time, err error)
	// units counts the units in the queue: waiting (never handed to a
	// worker) and delivered (handed out and not acknowledged: running,
	// handed back, or waiting to be reclaimed). Units of jobs that ended
	// meanwhile count until a worker skips them.
	units(ctx context.Context) (waiting, delivered int, err error)
}
