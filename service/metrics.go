package service

import (
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
)

// Metrics are what an operator watches of the use cases: cache results,
// solver work, admission and jobs. HTTP metrics live in package api.
type Metrics struct {
	CacheResults *prometheus.CounterVec // layer, outcome (hit, miss, error, set_error; layer answer: invalid)
	SolverNodes  *prometheus.CounterVec // game
	Searches     *prometheus.HistogramVec
	SlotsInUse   prometheus.Gauge
	SlotsWaiting prometheus.Gauge
	SlotsRefused prometheus.Counter
	// Slots: the solver slots there are (--solver-slots); SlotWait: how
	// long each request waited for one (0 when one was free; not those
	// refused at once, the queue full).
	Slots    prometheus.Gauge
	SlotWait prometheus.Histogram
	// AssemblyWaiting: big answers waiting to be assembled (Assembly).
	AssemblyWaiting prometheus.Gauge
	RedisUp         prometheus.Gauge
	// RedisOpens counts the Redis circuit breaker's openings (a flapping
	// breaker between two scrapes shows here, not in redis_up).
	RedisOpens prometheus.Counter
	Jobs       *prometheus.CounterVec // type, status
	// Background: analyses asked to go on in the background, by what
	// became of the request (backgroundOutcomes).
	Background *prometheus.CounterVec // outcome
	// RateChecks counts the rate limiters' checks by limiter (requests,
	// jobs) and by the counters that answered: shared (Redis) or local
	// (no Redis, or Redis failing: the limit is then per process).
	RateChecks *prometheus.CounterVec // limiter, counters
}

// What became of an analysis with background: true whose answer left work
// (Metrics.Background): a job started, an unfinished job of the same
// request shared, or no job: the jobs store down, a cap of the server or
// of the client reached, or a position beyond any search (job_error says
// which).
var backgroundOutcomes = []string{"started", "shared", "store_down", "capped", "beyond_search"}

// NewMetrics registers the service metrics on reg.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		CacheResults: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "gamesolver", Name: "cache_lookups_total",
			Help: "Cache lookups by layer (memory, redis) and outcome (hit, miss, error, set_error); layer answer, outcome invalid: an entry refused by the check against its position (searched again and replaced).",
		}, []string{"layer", "outcome"}),
		SolverNodes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "gamesolver", Name: "solver_nodes_total",
			Help: "Positions visited by the solvers, by game: requests' searches and job units'.",
		}, []string{"game"}),
		Searches: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: "gamesolver", Name: "solver_search_seconds",
			Help:    "Wall time of the requests' solver searches (not job units'), by game and whether they proved the value.",
			Buckets: prometheus.ExponentialBuckets(0.0005, 4, 10),
		}, []string{"game", "proven"}),
		AssemblyWaiting: prometheus.NewGauge(prometheus.GaugeOpts{
			Namespace: "gamesolver", Name: "assembly_waiting",
			Help: "Big answers (megabytes of JSON, thousands of moves) waiting for a place to be decoded, mapped and encoded.",
		}),
		SlotsInUse: prometheus.NewGauge(prometheus.GaugeOpts{
			Namespace: "gamesolver", Name: "solver_slots_in_use", Help: "Solver slots taken now.",
		}),
		SlotsWaiting: prometheus.NewGauge(prometheus.GaugeOpts{
			Namespace: "gamesolver", Name: "solver_slots_waiting", Help: "Requests queued for a solver slot.",
		}),
		SlotsRefused: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: "gamesolver", Name: "solver_slots_refused_total", Help: "Requests refused a solver slot: every slot and the queue full, or the wait in the queue too long.",
		}),
		Slots: prometheus.NewGauge(prometheus.GaugeOpts{
			Namespace: "gamesolver", Name: "solver_slots", Help: "Solver slots there are (--solver-slots): solver_slots_in_use against it is the saturation.",
		}),
		SlotWait: prometheus.NewHistogram(prometheus.HistogramOpts{
			Namespace: "gamesolver", Name: "solver_slot_wait_seconds",
			Help:    "How long each request for a solver slot waited: 0 when one was free, else its time in the queue, however it ended (a slot, refused after --queue-wait, or canceled); requests refused at once, the queue full, are in solver_slots_refused_total only, and work that takes a slot only when one is free is not counted.",
			Buckets: []float64{0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5},
		}),
		RedisOpens: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: "gamesolver", Name: "redis_circuit_opens_total", Help: "Times the Redis circuit breaker opened (the cache skipped Redis), absent without Redis.",
		}),
		RedisUp: prometheus.NewGauge(prometheus.GaugeOpts{
			Namespace: "gamesolver", Name: "redis_up", Help: "1 while the Redis circuit breaker is closed, 0 while open, absent without Redis.",
		}),
		Jobs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "gamesolver", Name: "jobs_total", Help: "Jobs by type and final or initial status.",
		}, []string{"type", "status"}),
		Background: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "gamesolver", Name: "background_analyses_total",
			Help: "Analyses with background: true that left work, by outcome: started (a job), shared (the same request's unfinished job), store_down, capped (a cap on jobs, the build queue full, or the job's planning longer than a second) or beyond_search (no job; job_error says why).",
		}, []string{"outcome"}),
		RateChecks: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "gamesolver", Name: "rate_limit_checks_total",
			Help: "Rate-limit checks by limiter (requests, jobs) and by the counters that answered: shared (in Redis, one limit across replicas) or local (no Redis, or Redis failing: each process counts its own, so the limit is per replica).",
		}, []string{"limiter", "counters"}),
	}
	for _, o := range backgroundOutcomes {
		m.Background.WithLabelValues(o) // each outcome exported from the start, at 0
	}
	reg.MustRegister(m.CacheResults, m.SolverNodes, m.Searches, m.SlotsInUse, m.SlotsWaiting, m.SlotsRefused, m.Slots, m.SlotWait, m.AssemblyWaiting, m.Jobs, m.Background, m.RateChecks)
	return m
}

// RegisterRedis adds the redis_up gauge and the breaker's openings; only a
// process with Redis has them.
func (m *Metrics) RegisterRedis(reg prometheus.Registerer) { reg.MustRegister(m.RedisUp, m.RedisOpens) }

// RegisterMemoryCache registers gauges of the in-memory cache's entries
// and bytes (of its encoding, against --cache-bytes), read from size at
// each scrape.
func (m *Metrics) RegisterMemoryCache(reg prometheus.Registerer, size func() (entries int, bytes int64)) {
	reg.MustRegister(
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Namespace: "gamesolver", Name: "cache_memory_entries",
			Help: "Answers held by the in-memory cache.",
		}, func() float64 { n, _ := size(); return float64(n) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Namespace: "gamesolver", Name: "cache_memory_bytes",
			Help: "Bytes held by the in-memory cache (its encoding of the answers), against --cache-bytes.",
		}, func() float64 { _, b := size(); return float64(b) }),
	)
}

// CacheObserver feeds cache lookups into CacheResults.
func (m *Metrics) CacheObserver(layer, outcome string) {
	m.CacheResults.WithLabelValues(layer, outcome).Inc()
}

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }
