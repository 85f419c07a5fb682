package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/gamesolver/gamesolver/service"
)

// Options tunes a Manager. Zero values take the defaults in brackets.
type Options struct {
	// Heartbeat is how often a running unit renews its claim, reports its
	// nodes and learns whether its job was canceled [2s]. A canceled job's
	// running units stop within one heartbeat.
	Heartbeat time.Duration
	// ReclaimAfter is how long a unit may go without a heartbeat before
	// another worker takes it over [30s]; at least twice Heartbeat.
	ReclaimAfter time.Duration
	// Poll is the longest a worker waits for new units before it looks for
	// units to reclaim again, and so also how long a worker may take to
	// notice its context ended while idle [1s].
	Poll time.Duration
	// MaxDeliveries is how many times a unit is delivered before a panic
	// in it, or the death of its workers, fails the job [3].
	MaxDeliveries int
	// TTL is how long a finished job is kept [7 days].
	TTL time.Duration
	// WatchEvery is how often Watch polls a job [500ms].
	WatchEvery time.Duration
	// OpTimeout bounds each store call [5s].
	OpTimeout time.Duration
	// Logger receives worker events; never request bodies [nop].
	Logger *zap.Logger
	// Metrics, when set, counts jobs and units.
	Metrics *Metrics
	// MaxActive caps the unfinished (queued or running) jobs of the
	// store: Submit refuses a job beyond it with KindBusy (503 and
	// Retry-After) [0: no cap].
	MaxActive int
	// MaxPerClient caps the unfinished jobs of one client (the
	// service.Client of Submit's context; none: no cap): Submit refuses
	// a job beyond it with KindRateLimited (429 and Retry-After), so that
	// one client cannot take every place under MaxActive [0: no cap].
	MaxPerClient int
	// Submissions, when set, counts each client's submissions (the
	// service.Client of Submit's context; none: not counted), valid or
	// not, but not those refused for the server's load; a client past its
	// rate is refused before its job is planned: Submit
	// refuses a job beyond its rate with KindRateLimited (429 and
	// Retry-After), so that one client cannot push every other client's
	// finished jobs out of the store (MaxFinishedJobs) [nil: no limit].
	Submissions SubmitLimiter
	// Express, when positive, gives each RunWorker an express slot
	// besides its others: it runs only units of jobs none of whose units
	// outlasted it, each for at most Express, so that a small job never
	// waits behind a slow job's running unit (see RunWorker) [0: none].
	Express time.Duration

	// forgetAfter is how long a consumer without pending units must have
	// been idle before a starting worker deletes it [24h].
	forgetAfter time.Duration
}

func (o *Options) defaults() error {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&o.Heartbeat, 2*time.Second)
	def(&o.ReclaimAfter, 30*time.Second)
	def(&o.Poll, time.Second)
	def(&o.TTL, 7*24*time.Hour)
	def(&o.WatchEvery, 500*time.Millisecond)
	def(&o.OpTimeout, 5*time.Second)
	def(&o.forgetAfter, 24*time.Hour)
	if o.MaxDeliveries <= 0 {
		o.MaxDeliveries = 3
	}
	if o.Logger == nil {
		o.Logger = zap.NewNop()
	}
	if o.ReclaimAfter < 2*o.Heartbeat {
		return fmt.Errorf("jobs: ReclaimAfter %v must be at least twice Heartbeat %v, or live units get reclaimed", o.ReclaimAfter, o.Heartbeat)
	}
	return nil
}

// Manager submits, reads and cancels jobs, and runs workers, over one Store.
// It is safe for concurrent use; several Managers (in several processes)
// may share a Redis store.
type Manager struct {
	store Store
	kinds map[string]Kind
	opts  Options
	log   *zap.Logger
	gate  storeGate // the API's calls while the store is down
	// scrapeWait bounds the count of unfinished jobs for a /metrics
	// scrape (a second): a scrape may be the gate's probe of a store that
	// could not be reached, and a count cut short closes nothing (NaN).
	scrapeWait time.Duration
	// holdReclaims is until when (unix ns) the workers reclaim no unit a
	// live worker may hold: ReclaimAfter after a worker's call failed to
	// reach the store, or a worker started (reclaimAfter).
	holdReclaims atomic.Int64
	// running holds the entry ids of the units this manager's slots are
	// taking to their end (a set): adopt leaves them alone, whatever
	// their heartbeats' delay.
	running sync.Map
	// watches are the jobs being watched, by id (Watch).
	watches watchHub
}

// NewManager returns a Manager for the given job kinds over store.
func NewManager(store Store, kinds []Kind, opts Options) (*Manager, error) {
	if store == nil {
		return nil, errors.New("jobs: nil store")
	}
	if err := opts.defaults(); err != nil {
		return nil, err
	}
	m := &Manager{store: store, kinds: make(map[string]Kind, len(kinds)), opts: opts, log: opts.Logger, scrapeWait: time.Second}
	for _, k := range kinds {
		name := k.Name()
		if name == "" {
			return nil, errors.New("jobs: a kind has an empty name")
		}
		if _, dup := m.kinds[name]; dup {
			return nil, fmt.Errorf("jobs: kind %q registered twice", name)
		}
		m.kinds[name] = k
	}
	if opts.Metrics != nil {
		count := func() float64 {
			var n int
			if !m.scrape("count the unfinished jobs", func(ctx context.Context) (err error) {
				n, err = m.store.countActive(ctx)
				return err
			}) {
				return math.NaN()
			}
			return float64(n)
		}
		opts.Metrics.unfinished.Store(&count)
		oldest := func() (queued, running time.Time, ok bool) {
			ok = m.scrape("read the oldest unfinished jobs", func(ctx context.Context) (err error) {
				queued, running, err = m.store.oldest(ctx)
				return err
			})
			return queued, running, ok
		}
		opts.Metrics.oldest.Store(&oldest)
		units := func() (waiting, delivered int, ok bool) {
			ok = m.scrape("count the queued units", func(ctx context.Context) (err error) {
				waiting, delivered, err = m.store.units(ctx)
				return err
			})
			return waiting, delivered, ok
		}
		opts.Metrics.units.Store(&units)
	}
	return m, nil
}

// scrape runs read, a store read for a /metrics scrape, through the
// store's gate within scrapeWait, and reports whether it succeeded.
func (m *Manager) scrape(what string, read func(ctx context.Context) error) bool {
	ctx, cancel := context.WithTimeout(context.Background(), m.scrapeWait)
	defer cancel()
	return m.gated(ctx, what, read) == nil
}

// Types returns the registered job types, sorted.
func (m *Manager) Types() []string {
	names := make([]string, 0, len(m.kinds))
	for n := range m.kinds {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Submit plans a job of type typ and queues its units. It fails with
// KindInvalid for an unknown type or a request the kind rejects.
func (m *Manager) Submit(ctx context.Context, typ string, request json.RawMessage) (Job, error) {
	typ = strings.ToLower(typ) // words are matched without regard to case
	kind, ok := m.kinds[typ]
	if !ok {
		return Job{}, service.Invalid("type", nil, "unknown job type %q; known types: %s", typ, strings.Join(m.Types(), ", "))
	}
	// The client's rate is looked at before planning, which may build a
	// game (tens of milliseconds, on the build slots requests share) that
	// a client past its rate must not make the server do (a review found
	// refused submissions building 16 x 16 games); the submission is
	// counted after, valid or not, unless the server refused it for its
	// own load (a build queue full) or the client left: a client told to
	// retry in a second does not spend its rate doing so.
	client := service.Client(ctx)
	limit := client != "" && m.opts.Submissions != nil
	if limit {
		if d := m.opts.Submissions.Peek(ctx, "jobs:"+client); !d.Allowed {
			return Job{}, submissionsRefused(d)
		}
	}
	units, err := plan(ctx, kind, request)
	if limit && service.KindOf(err) != service.KindBusy && ctx.Err() == nil {
		if d := m.opts.Submissions.Allow(ctx, "jobs:"+client); !d.Allowed {
			return Job{}, submissionsRefused(d)
		}
	}
	if err != nil {
		var se *service.Error
		if errors.As(err, &se) {
			return Job{}, inRequest(se)
		}
		if ctx.Err() != nil {
			return Job{}, err
		}
		return Job{}, service.Invalid("request", err, "%s: %v", typ, err)
	}
	if len(units) == 0 {
		return Job{}, &service.Error{Kind: service.KindInternal, Message: fmt.Sprintf("job type %s planned no units", typ)}
	}
	s := state{
		ID: newID(), Type: typ, Status: StatusQueued, Created: time.Now().UTC(),
		Request: slices.Clone(request), Total: len(units), Client: client, Format: unitFormat(kind),
	}
	lim := limits{all: m.opts.MaxActive}
	if s.Client != "" {
		lim.client = m.opts.MaxPerClient
	}
	if err := m.gated(ctx, "store the job", func(ctx context.Context) error { return m.store.create(ctx, s, units, lim) }); err != nil {
		var full *tooManyError
		switch {
		case errors.As(err, &full) && full.client:
			return Job{}, &service.Error{Kind: service.KindRateLimited, RetryAfter: busyRetry,
				Message: fmt.Sprintf("you have %d unfinished jobs, the server's cap for one client: retry when some have ended (or cancel one)", full.active)}
		case errors.As(err, &full):
			return Job{}, &service.Error{Kind: service.KindBusy, RetryAfter: busyRetry,
				Message: fmt.Sprintf("%d jobs are unfinished, the server's cap: retry when some have ended", full.active)}
		}
		return Job{}, storeError("store the job", err)
	}
	m.opts.Metrics.job(typ, StatusQueued)
	fields := []zap.Field{zap.String("job", LoggedID(s.ID)), zap.String("type", typ), zap.Int("units", len(units))}
	if rid := service.RequestID(ctx); rid != "" {
		fields = append(fields, zap.String("request_id", rid))
	}
	m.log.Info("job submitted", fields...)
	return s.view(time.Now()), nil
}

// submissionsRefused is the error of a submission past its client's rate.
func submissionsRefused(d service.RateDecision) error {
	wait := max(time.Until(d.Reset), time.Second)
	return &service.Error{Kind: service.KindRateLimited, RetryAfter: wait,
		Message: fmt.Sprintf("more than %d job submissions from you in this period, the server's cap: retry after %ds", d.Limit, service.RetrySeconds(wait))}
}

// SubmitLimiter counts a client's submissions under key (a
// service.RateLimiter); Peek tells whether the client is past its rate
// already, without counting.
type SubmitLimiter interface {
	Allow(ctx context.Context, key string) service.RateDecision
	Peek(ctx context.Context, key string) service.RateDecision
}

// busyRetry is the Retry-After of a job refused by Options.MaxActive or
// Options.MaxPerClient.
const busyRetry = 30 * time.Second

// limits are the caps a store's create enforces (0: none; Submit leaves
// client 0 for a job without a client).
type limits struct {
	all    int // Options.MaxActive
	client int // Options.MaxPerClient, for the job's client
}

// tooManyError is a store's refusal of a job beyond its limits: active
// unfinished jobs, the client's own when client.
type tooManyError struct {
	active int
	client bool
}

func (e *tooManyError) Error() string {
	return fmt.Sprintf("jobs: %d unfinished jobs already", e.active)
}

// plan calls kind.Plan, turning a panic into an error.
func plan(ctx context.Context, kind Kind, request json.RawMessage) (units []json.RawMessage, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &service.Error{Kind: service.KindInternal, Message: fmt.Sprintf("planning the job panicked: %v", r)}
		}
	}()
	return kind.Plan(ctx, request)
}

// Get returns a job; KindNotFound for unknown and expired ids.
func (m *Manager) Get(ctx context.Context, id string) (Job, error) {
	if !validID(id) {
		return Job{}, notFound(id)
	}
	var s state
	var found bool
	if err := m.gated(ctx, "read the job", func(ctx context.Context) (err error) {
		s, found, err = m.store.load(ctx, id)
		return err
	}); err != nil {
		return Job{}, storeError("read the job", err)
	}
	if !found {
		return Job{}, notFound(id)
	}
	return s.view(time.Now()), nil
}

// Cancel cancels a queued or running job: its queued units are skipped and
// its running units stop within a heartbeat. Canceling a canceled job is
// not an error; a done or failed job answers KindConflict.
func (m *Manager) Cancel(ctx context.Context, id string) (Job, error) {
	if !validID(id) {
		return Job{}, notFound(id)
	}
	var won bool
	var status Status
	if err := m.gated(ctx, "cancel the job", func(ctx context.Context) (err error) {
		won, status, err = m.store.finish(ctx, id, ending{Status: StatusCanceled, At: time.Now().UTC(), TTL: m.opts.TTL})
		return err
	}); err != nil {
		return Job{}, storeError("cancel the job", err)
	}
	switch {
	case status == "":
		return Job{}, notFound(id)
	case !won && status != StatusCanceled:
		return Job{}, &service.Error{Kind: service.KindConflict, Message: fmt.Sprintf("job %s is already %s", id, status)}
	}
	j, err := m.Get(ctx, id)
	if err == nil && won {
		m.opts.Metrics.job(j.Type, StatusCanceled)
		fields := []zap.Field{zap.String("job", LoggedID(id)), zap.String("type", j.Type)}
		if rid := service.RequestID(ctx); rid != "" {
			fields = append(fields, zap.String("request_id", rid))
		}
		m.log.Info("job canceled", fields...)
	}
	return j, err
}

func notFound(id string) error {
	if len(id) > 64 {
		id = id[:64] + "..."
	}
	return service.NotFound("no job %q (unknown, or expired)", id)
}

// inRequest names the fields of a request's fault as the job's body has
// them: under "request." (the kind validates the request as its
// synchronous endpoint would, naming "width" for request.width).
func inRequest(se *service.Error) error {
	if len(se.Fields) == 0 {
		return se
	}
	e := *se
	e.Fields = make([]service.FieldError, len(se.Fields))
	for i, f := range se.Fields {
		if f.Field != "request" && !strings.HasPrefix(f.Field, "request.") {
			f.Field = "request." + f.Field
		}
		e.Fields[i] = f
	}
	return &e
}

// storeError reports a store that failed: Redis down or slow, or a data
// directory that cannot be written. It is KindUnavailable (503 with
// Retry-After) because trying again later is the right answer for the
// caller. The gate's own error (a *service.Error) passes as it is.
func storeError(what string, err error) error {
	if se := (*service.Error)(nil); errors.As(err, &se) {
		return se
	}
	return &service.Error{Kind: service.KindUnavailable, Message: "jobs store unavailable: could not " + what, Cause: err, RetryAfter: time.Second}
}
