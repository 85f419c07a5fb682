package jobs

import (
	"math"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Metrics are the jobs' counters and gauges. A nil *Metrics counts nothing.
type Metrics struct {
	// Jobs counts jobs by type and status: "queued" when submitted, the
	// final status when they end.
	Jobs *prometheus.CounterVec
	// Units counts processed units by type and outcome: done, failed,
	// panicked, skipped (job already over), returned (handed back on
	// shutdown), lost (another worker took the unit over), deferred (it
	// outlasted an express slot's limit: handed back, its job marked
	// slow), passed (a slow job's unit an express slot read from the Redis
	// stream and left to the other slots), orphaned (its job's record was
	// gone from the store: expired, or lost with Redis's data).
	Units *prometheus.CounterVec
	// Reclaimed counts the deliveries of units that had a try that did
	// not end (a worker that died or stalled past ReclaimAfter, a unit
	// that panicked), by type: once such a unit is taken over, and again
	// at each later delivery of it. Units handed back without such a try
	// (a shutdown, an express slot's limit, another process's type) are
	// not counted: their outcomes (returned, deferred, passed) are.
	Reclaimed *prometheus.CounterVec
	// Running is the number of units running now in this process, by type.
	Running *prometheus.GaugeVec
	// Wait is the time from a job's submission to the start of each run
	// of one of its units, by type: the queue's latency (a job's later
	// units wait behind its earlier ones; a rerun after a hand-back or a
	// reclaim is observed again).
	Wait *prometheus.HistogramVec
	// Run is the time of each run of a unit in this process, by type and
	// outcome: done (a result), failed (the kind's error), stopped
	// (handed back, cut, panicked, or its job over).
	Run *prometheus.HistogramVec
	// unfinished counts the store's unfinished jobs (set by NewManager).
	unfinished atomic.Pointer[func() float64]
	// oldest reads the submission times of the store's oldest queued and
	// running jobs (set by NewManager).
	oldest atomic.Pointer[func() (queued, running time.Time, ok bool)]
	// units counts the store's queued units (set by NewManager).
	units atomic.Pointer[func() (waiting, delivered int, ok bool)]
}

// oldestDesc describes gamesolver_jobs_oldest_seconds.
var oldestDesc = prometheus.NewDesc("gamesolver_jobs_oldest_seconds",
	"Seconds since the oldest unfinished job of the store was submitted, by status (queued: no unit of it started yet; running), 0 when there is none, NaN when the store cannot say; with Redis beyond 1,000 unfinished jobs, the oldest of 1,000 chosen at random; every process reports the store's figure.",
	[]string{"status"}, nil)

// oldestCollector reports gamesolver_jobs_oldest_seconds at each scrape.
type oldestCollector struct{ m *Metrics }

func (c oldestCollector) Describe(ch chan<- *prometheus.Desc) { ch <- oldestDesc }

func (c oldestCollector) Collect(ch chan<- prometheus.Metric) {
	queued, running := 0.0, 0.0
	if f := c.m.oldest.Load(); f != nil {
		q, r, ok := (*f)()
		age := func(t time.Time) float64 {
			switch {
			case !ok:
				return math.NaN()
			case t.IsZero():
				return 0
			}
			return max(0, time.Since(t).Seconds())
		}
		queued, running = age(q), age(r)
	}
	ch <- prometheus.MustNewConstMetric(oldestDesc, prometheus.GaugeValue, queued, string(StatusQueued))
	ch <- prometheus.MustNewConstMetric(oldestDesc, prometheus.GaugeValue, running, string(StatusRunning))
}

// unitsDesc describes gamesolver_job_units_queued.
var unitsDesc = prometheus.NewDesc("gamesolver_job_units_queued",
	"Job units in the store's queue, by state: waiting (not yet handed to a worker: the backlog more workers would take; with Redis, the units a job's window holds back out of the stream included, from up to 1,000 jobs, scaled beyond) and delivered (handed out and not yet acknowledged: running, handed back, or waiting to be reclaimed); units of jobs canceled meanwhile count until a worker skips them; NaN when the store cannot say; every process reports the store's figure.",
	[]string{"state"}, nil)

// unitsCollector reports gamesolver_job_units_queued at each scrape.
type unitsCollector struct{ m *Metrics }

func (c unitsCollector) Describe(ch chan<- *prometheus.Desc) { ch <- unitsDesc }

func (c unitsCollector) Collect(ch chan<- prometheus.Metric) {
	waiting, delivered := 0.0, 0.0
	if f := c.m.units.Load(); f != nil {
		w, d, ok := (*f)()
		waiting, delivered = float64(w), float64(d)
		if !ok {
			waiting, delivered = math.NaN(), math.NaN()
		}
	}
	ch <- prometheus.MustNewConstMetric(unitsDesc, prometheus.GaugeValue, waiting, "waiting")
	ch <- prometheus.MustNewConstMetric(unitsDesc, prometheus.GaugeValue, delivered, "delivered")
}

// unitBuckets span a unit's times: from 10 ms to beyond the hour of
// --max-job-duration (10 ms x 4^k: ..., 2621 s, 10486 s).
var unitBuckets = prometheus.ExponentialBuckets(0.01, 4, 11)

// NewMetrics registers the jobs metrics on reg. jobs, when not nil, is the
// service's gamesolver_jobs_total counter (service.Metrics.Jobs, labels
// type and status), already registered; else one is made and registered.
func NewMetrics(reg prometheus.Registerer, jobs *prometheus.CounterVec) *Metrics {
	m := &Metrics{
		Jobs: jobs,
		Units: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "gamesolver", Name: "job_units_total",
			Help: "Job units processed, by type and outcome (done, failed, panicked, skipped, returned, lost, deferred, passed, orphaned).",
		}, []string{"type", "outcome"}),
		Reclaimed: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "gamesolver", Name: "job_units_reclaimed_total",
			Help: "Deliveries of job units that had a try that did not end (a worker that died or stalled, a unit that panicked), by type; units handed back otherwise are counted by their outcome in gamesolver_job_units_total.",
		}, []string{"type"}),
		Running: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Namespace: "gamesolver", Name: "job_units_running",
			Help: "Job units running now in this process, by type.",
		}, []string{"type"}),
		Wait: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: "gamesolver", Name: "job_unit_wait_seconds",
			Help:    "Seconds from a job's submission to the start of each run of one of its units, by type (a job's later units wait behind its earlier ones).",
			Buckets: unitBuckets,
		}, []string{"type"}),
		Run: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: "gamesolver", Name: "job_unit_run_seconds",
			Help:    "Seconds of each run of a job unit in this process, by type and outcome (done, failed, stopped: handed back, cut, panicked or its job over).",
			Buckets: unitBuckets,
		}, []string{"type", "outcome"}),
	}
	if m.Jobs == nil {
		m.Jobs = prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "gamesolver", Name: "jobs_total", Help: "Jobs by type and final or initial status.",
		}, []string{"type", "status"})
		reg.MustRegister(m.Jobs)
	}
	reg.MustRegister(m.Units, m.Reclaimed, m.Running, m.Wait, m.Run, oldestCollector{m}, unitsCollector{m}, prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Namespace: "gamesolver", Name: "jobs_unfinished",
		Help: "Jobs queued or running in the store (all processes sharing it; with Redis, a little high until the active set is reconciled), against --max-active-jobs; NaN when the store cannot say.",
	}, func() float64 {
		if f := m.unfinished.Load(); f != nil {
			return (*f)()
		}
		return 0
	}))
	return m
}

func (m *Metrics) job(typ string, s Status) {
	if m != nil {
		m.Jobs.WithLabelValues(typ, string(s)).Inc()
	}
}

func (m *Metrics) unit(typ, outcome string) {
	if m != nil {
		m.Units.WithLabelValues(typ, outcome).Inc()
	}
}

func (m *Metrics) reclaimed(typ string) {
	if m != nil {
		m.Reclaimed.WithLabelValues(typ).Inc()
	}
}

func (m *Metrics) running(typ string, delta float64) {
	if m != nil {
		m.Running.WithLabelValues(typ).Add(delta)
	}
}

func (m *Metrics) waited(typ string, d time.Duration) {
	if m != nil {
		m.Wait.WithLabelValues(typ).Observe(max(d, 0).Seconds())
	}
}

func (m *Metrics) ran(typ, outcome string, d time.Duration) {
	if m != nil {
		m.Run.WithLabelValues(typ, outcome).Observe(d.Seconds())
	}
}
