package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/redis/go-redis/v9"
	"go.uber.org/zap"

	"github.com/gamesolver/gamesolver/api"
	"github.com/gamesolver/gamesolver/service"
	"github.com/gamesolver/gamesolver/service/cache"
	"github.com/gamesolver/gamesolver/service/jobs"
)

// jobKinds are the job types every process knows.
func jobKinds(cfg config, s *service.Searcher, workers int) []jobs.Kind {
	kinds := []service.JobKind{
		service.TilingsJob{Tilings: service.NewTilings(s), MaxDuration: cfg.MaxJobDuration, Workers: workers},
		service.PolyominoAnalyzeJob{Search: s, MaxDuration: cfg.MaxJobDuration, Workers: workers},
		service.NewBookJob(cfg.MaxJobDuration, workers, cfg.BookTableMB),
	}
	out := make([]jobs.Kind, len(kinds))
	for i, k := range kinds {
		out[i] = k
	}
	return out
}

// newJobs builds the job manager: on Redis (its own client, with timeouts
// fit for submitting a whole job in one transaction) when REDIS_URL is set,
// in process with a journal in the data directory otherwise.
func newJobs(cfg config, m *service.Metrics, reg prometheus.Registerer, log *zap.Logger, submissions jobs.SubmitLimiter, kinds ...jobs.Kind) (*jobs.Manager, func(), error) {
	dir := filepath.Join(cfg.DataDir, "jobs")
	if cfg.noJournal {
		dir = "" // one request: no job of it would ever run
	}
	store, closeStore, err := openJobStore(cfg.RedisURL, dir, cfg.JobWindow, func(opt *redis.Options) {
		opt.DialTimeout, opt.ReadTimeout, opt.WriteTimeout = 2*time.Second, 5*time.Second, 5*time.Second
		// A caller's deadline (a background job's submission: 1 s) cuts
		// a call short, not only the timeouts above.
		opt.ContextTimeoutEnabled = true
	})
	if err != nil {
		return nil, nil, err
	}
	jm, err := jobs.NewManager(store, kinds, jobs.Options{
		Logger:       log.Named("jobs"),
		Metrics:      jobs.NewMetrics(reg, m.Jobs),
		MaxActive:    cfg.MaxActiveJobs,
		MaxPerClient: cfg.MaxClientJobs,
		Submissions:  submissions,
		Express:      cfg.expressLimit(),
	})
	if err != nil {
		closeStore()
		return nil, nil, err
	}
	return jm, closeStore, nil
}

// openJobStore opens a job store: on Redis (its own client, its options
// set by tune, the given window of units) when redisURL is set, else in
// process with its journal in dir ("": none).
func openJobStore(redisURL, dir string, window int, tune func(*redis.Options)) (jobs.Store, func(), error) {
	if redisURL != "" {
		opt, err := cache.ParseRedisURL(redisURL)
		if err != nil {
			return nil, nil, err
		}
		if tune != nil {
			tune(opt)
		}
		client := redis.NewClient(opt)
		return jobs.NewRedisStore(client).Window(window), func() { _ = client.Close() }, nil
	}
	ms, err := jobs.NewMemoryStore(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("job journal: %w", err)
	}
	return ms, func() { _ = ms.Close() }, nil
}

// expressLimit is the express slot's limit: --express-limit, at most half
// of --max-job-duration (a shorter --max-job-duration keeps an express slot
// that still hands a unit back before it would end).
func (c config) expressLimit() time.Duration {
	return min(c.ExpressLimit, c.MaxJobDuration/2)
}

func workerName(cfg config) string {
	if cfg.WorkerName != "" {
		return cfg.WorkerName
	}
	host, _ := os.Hostname()
	return fmt.Sprintf("%s-%d", host, os.Getpid())
}

// listenMetrics serves /metrics (from reg) and /healthz on addr, apart
// from the API: a worker has no other listener, and a server's operators
// may keep its metrics off the port the clients reach. With profiles, Go's
// /debug/pprof/ too (a soak audit saw the heap grow and could not say
// with what).
func listenMetrics(addr string, reg *prometheus.Registry, log *zap.Logger, profiles bool) (func(), error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("metrics-addr: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	started := time.Now()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		// The API's liveness answer (its OpenAPI schema, api.Health).
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		_ = json.NewEncoder(w).Encode(api.Health{Status: "ok", Version: versionString(), UptimeSeconds: time.Since(started).Seconds()})
	})
	if profiles {
		// Not /debug/pprof/cmdline: the command line may carry secrets
		// (--redis-url's password, --api-keys), which a profile need not
		// give to whoever reaches this port.
		mux.HandleFunc("GET /debug/pprof/", pprof.Index)
		mux.HandleFunc("GET /debug/pprof/profile", pprof.Profile)
		mux.HandleFunc("GET /debug/pprof/symbol", pprof.Symbol)
		mux.HandleFunc("GET /debug/pprof/trace", pprof.Trace)
	}
	// (A CPU profile or trace answers after its seconds: no write timeout.)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
	go func() { _ = srv.Serve(ln) }()
	log.Info("metrics listening", zap.String("addr", ln.Addr().String()))
	return func() { _ = srv.Close() }, nil
}

// worker runs `gamesolver worker`: a job worker without the API (its metrics
// and a liveness check on --metrics-addr when set), for other machines
// sharing the same Redis.
func worker(args []string, getenv func(string) string) error {
	cfg, log, err := start("worker", args, getenv)
	if err != nil || log == nil {
		return err
	}
	defer func() { _ = log.Sync() }()
	if cfg.RedisURL == "" {
		return errors.New("worker needs REDIS_URL: without Redis the server runs its jobs in process")
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	return runWorker(ctx, cfg, log)
}

// runWorker runs a job worker until ctx ends, with its metrics and a
// liveness check on --metrics-addr when set.
func runWorker(ctx context.Context, cfg config, log *zap.Logger) error {
	reg := newRegistry()
	metrics := service.NewMetrics(reg)
	if cfg.MetricsAddr != "" {
		closeMetrics, err := listenMetrics(cfg.MetricsAddr, reg, log, cfg.Pprof)
		if err != nil {
			return err
		}
		defer closeMetrics()
	}
	// The same cache as the servers: sub-results proven by one worker are
	// found by the others (and by the servers) in Redis.
	c, _, err := newCache(cfg, metrics, reg, log)
	if err != nil {
		return err
	}
	defer c.Close()
	searcher := newSearcher(cfg, c, metrics)
	searcher.WarmTables()
	// A worker process has the machine to itself: every core per unit.
	workers := max(cfg.JobWorkers, 0)
	jm, closeJobs, err := newJobs(cfg, metrics, reg, log, nil, jobKinds(cfg, searcher, workers)...)
	if err != nil {
		return err
	}
	defer closeJobs()
	name := workerName(cfg)
	log.Info("worker starting", zap.String("name", name), zap.Int("slots", cfg.WorkerSlots), zap.Strings("types", jm.Types()), zap.Any("config", cfg.effective()))
	err = jm.RunWorker(ctx, name, cfg.WorkerSlots)
	// (A unit the store did not take back, Redis hanging, say, was
	// logged as "left pending for a reclaim": not handed back.)
	log.Info("worker stopped; running units handed back, or left pending for a reclaim where the store did not answer")
	if ctx.Err() != nil {
		return nil
	}
	return err
}
