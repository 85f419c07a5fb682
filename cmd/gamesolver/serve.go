package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/redis/go-redis/v9"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/gamesolver/gamesolver/api"
	"github.com/gamesolver/gamesolver/service"
	"github.com/gamesolver/gamesolver/service/cache"
	"github.com/gamesolver/gamesolver/service/jobs"
)

// app is a wired server: everything serve starts and stops.
type app struct {
	cfg     config
	log     *zap.Logger
	reg     *prometheus.Registry
	handler http.Handler
	cache   cache.Cache
	jobs    *jobs.Manager
	closers []func()
	// draining is closed when shutdown starts: event streams end then,
	// instead of holding the shutdown for its whole grace period.
	draining chan struct{}
	// teekoDone is closed when the Teeko tables are loaded or built, or
	// their first build failed (retried later); nil when they are not
	// wanted.
	teekoDone <-chan struct{}
}

func serve(args []string, getenv func(string) string) error {
	cfg, log, err := start("serve", args, getenv)
	if err != nil || log == nil {
		return err
	}
	return withApp(cfg, log, func(ctx context.Context, a *app) error {
		ln, err := net.Listen("tcp", cfg.Addr)
		if err != nil {
			return fmt.Errorf("listen on %s: %w", cfg.Addr, err)
		}
		return a.serve(ctx, ln)
	})
}

// withApp builds the app of cfg and runs f with it and a context that
// SIGINT or SIGTERM cancels; then it closes the app and syncs the log.
func withApp(cfg config, log *zap.Logger, f func(ctx context.Context, a *app) error) error {
	defer func() { _ = log.Sync() }()
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	a, err := build(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer a.close()
	return f(ctx, a)
}

// build constructs every layer from the configuration.
func build(ctx context.Context, cfg config, log *zap.Logger) (*app, error) {
	log.Info("starting", zap.String("version", versionString()), zap.Any("config", cfg.effective()))
	if cfg.ShutdownGrace < cfg.MaxBudget && !cfg.noJournal { // a server (solve has no shutdown to wait for)
		log.Warn("shutdown-grace is shorter than max-budget: on SIGTERM a search with the longest budget is cut without an answer",
			zap.Duration("shutdown_grace", cfg.ShutdownGrace), zap.Duration("max_budget", cfg.MaxBudget))
	}
	if cfg.noTeeko && cfg.noJournal {
		// nothing is read or written there
	} else if err := os.MkdirAll(cfg.DataDir, 0o755); err != nil {
		return nil, fmt.Errorf("data dir: %w", err)
	}
	reg := newRegistry()
	metrics := service.NewMetrics(reg)
	a := &app{cfg: cfg, log: log, reg: reg, draining: make(chan struct{})}

	c, rdb, err := newCache(cfg, metrics, reg, log)
	if err != nil {
		return nil, err
	}
	a.cache = c
	a.closers = append(a.closers, func() { _ = c.Close() })
	readiness := service.NewReadiness(c)
	catalogue := &service.Catalogue{}

	searcher := newSearcher(cfg, c, metrics)
	searcher.WarmTables()
	tilings := service.NewTilings(searcher)
	poly := service.NewPolyomino(searcher)
	service.PreloadBook()
	readiness.Add(service.BookComponent)
	catalogue.Register(service.PolyominoInfo())
	catalogue.Register(service.TilingInfo())

	// The in-process worker shares the machine with requests.
	jobWorkers := cfg.JobWorkers
	if jobWorkers < 0 {
		jobWorkers = cfg.SolverWorkers
	}
	var submissions jobs.SubmitLimiter
	if cfg.JobRateLimit != "" && cfg.JobRateLimit != "off" {
		rl, err := service.NewRateLimiter(cfg.JobRateLimit, rdb, cfg.RedisTimeout, log.Named("jobratelimit"))
		if err != nil {
			return nil, err
		}
		rl.Observe(metrics, "jobs")
		submissions = rl
		a.closers = append(a.closers, rl.Close)
	}
	jm, closeJobs, err := newJobs(cfg, metrics, reg, log, submissions, jobKinds(cfg, searcher, jobWorkers)...)
	if err != nil {
		return nil, err
	}
	a.jobs = jm
	poly.SetJobs(func(ctx context.Context, typ string, req json.RawMessage) (string, error) {
		if cfg.noJournal && cfg.RedisURL == "" {
			// One request in process: no worker would ever run the job.
			return "", &service.Error{Kind: service.KindUnavailable, Message: "no job: without REDIS_URL nothing would run it after this command (POST the request to a server, or set REDIS_URL to queue it for the workers)"}
		}
		j, err := jm.Submit(ctx, typ, req)
		return j.ID, err
	})
	poly.SetJobActive(func(ctx context.Context, id string) bool {
		j, err := jm.Get(ctx, id)
		return err == nil && !j.Status.Final()
	})
	a.closers = append(a.closers, closeJobs)

	teeko := service.NewTeeko(service.TeekoOptions{DataDir: cfg.DataDir, Log: log.Named("teeko"), Assembly: searcher.Assembly})
	if !cfg.noTeeko {
		a.teekoDone = teeko.Start(ctx)
	}
	readiness.Add(teeko.Component)
	reg.MustRegister(teeko.Collector())
	catalogue.Register(service.TeekoInfo())

	proxies, _ := cfg.trustedProxies() // checked by validate
	apiCfg := api.Config{MaxBodyBytes: cfg.MaxBodyBytes, CORSOrigins: cfg.corsOrigins(), TrustedProxies: proxies, APIKeys: service.NewAPIKeys(cfg.apiKeys()),
		MetricsApart: cfg.MetricsAddr != "", MaxClientRequests: cfg.MaxClientRequests}
	if cfg.RateLimit != "" && cfg.RateLimit != "off" {
		rl, err := service.NewRateLimiter(cfg.RateLimit, rdb, cfg.RedisTimeout, log.Named("ratelimit"))
		if err != nil {
			return nil, err
		}
		rl.Observe(metrics, "requests")
		apiCfg.RateLimiter = rl
		a.closers = append(a.closers, rl.Close)
	}
	if cfg.MetricsAddr != "" { // last: nothing after it fails and leaves it open
		closeMetrics, err := listenMetrics(cfg.MetricsAddr, reg, log, cfg.Pprof)
		if err != nil {
			return nil, err
		}
		a.closers = append(a.closers, closeMetrics)
	}
	gin.SetMode(gin.ReleaseMode)
	a.handler = api.New(apiCfg, api.Deps{
		Log: log, Registry: reg, Readiness: readiness, Catalogue: catalogue,
		Version: versionString(), StartedAt: time.Now(), Teeko: teeko, Tilings: tilings, Polyomino: poly, Jobs: jm, Assembly: searcher.Assembly,
		Draining: a.draining,
	})
	return a, nil
}

// start reads the configuration and makes the logger; a nil logger with
// a nil error means -h printed the usage.
func start(name string, args []string, getenv func(string) string) (config, *zap.Logger, error) {
	cfg, err := parseConfig(name, args, getenv)
	if err != nil {
		if errors.Is(err, errHelpShown) {
			return cfg, nil, nil
		}
		return cfg, nil, err
	}
	log, err := newLogger(cfg)
	if names := unknownEnv(os.Environ()); err == nil && len(names) > 0 {
		log.Warn("environment variables that name no setting were ignored: misspelt? (--help lists the settings)", zap.Strings("names", names))
	}
	return cfg, log, err
}

// newRegistry is a process's metrics registry: the Go runtime's, the
// process's, and gamesolver_build_info (1, labelled with the version: which
// versions run side by side during a rollout).
func newRegistry() *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Namespace: "gamesolver", Name: "build_info", Help: "1, labelled with the running version and its Go release.",
			ConstLabels: prometheus.Labels{"version": versionString(), "go_version": runtime.Version()},
		}, func() float64 { return 1 }))
	return reg
}

// newSearcher runs request searches over the cache c.
func newSearcher(cfg config, c cache.Cache, m *service.Metrics) *service.Searcher {
	return &service.Searcher{
		Loader: cache.NewLoader(c, cfg.CacheTTL),
		Slots:  service.NewSlots(cfg.SolverSlots, cfg.SolverQueue, cfg.QueueWait, m),
		// Big answers are assembled as many at once as searches run,
		// leaving the other cores to the cheap requests too.
		Assembly:     service.NewAssembly(cfg.SolverSlots, m),
		Budgets:      service.Budgets{Default: cfg.DefaultBudget, Max: cfg.MaxBudget},
		Metrics:      m,
		Workers:      cfg.SolverWorkers,
		MinCacheTime: 20 * time.Millisecond,
	}
}

// newCache picks Redis (with an in-memory layer in front) when REDIS_URL is
// set, the in-memory LRU otherwise.
func newCache(cfg config, m *service.Metrics, reg prometheus.Registerer, log *zap.Logger) (cache.Cache, *redis.Client, error) {
	near := cache.NewMemory(cfg.CacheBytes, cfg.CacheTTL)
	m.RegisterMemoryCache(reg, near.Len)
	mem := cache.Observe(near, "memory", m.CacheObserver)
	if cfg.RedisURL == "" {
		return mem, nil, nil
	}
	m.RegisterRedis(reg)
	m.RedisUp.Set(1)
	r, err := cache.NewRedis(cache.RedisOptions{
		URL: cfg.RedisURL, Timeout: cfg.RedisTimeout, TTL: cfg.CacheTTL,
		OnStateChange: func(open bool, cause error) {
			if open {
				m.RedisUp.Set(0)
				m.RedisOpens.Inc()
				log.Warn("redis failing: circuit open, going on without its cache", zap.Error(cause))
			} else {
				m.RedisUp.Set(1)
				log.Info("redis reachable again: circuit closed")
			}
		},
	})
	if err != nil {
		return nil, nil, err
	}
	go func() { // a Redis down at start says nothing, and holds nothing up
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if w := cache.MemoryPolicyWarning(ctx, r.Client()); w != "" {
			log.Warn(w)
		}
	}()
	return &cache.Tiered{Near: mem, Far: cache.Observe(r, "redis", m.CacheObserver)}, r.Client(), nil
}

// sendBuffer is the send buffer of each connection the API accepts (the
// kernel reserves twice as much). Left to itself, the kernel grew a slow
// reader's buffer until it held the whole of a 2.5 MB answer: 400 such
// readers took 1.3 GB of kernel memory, and their answers, written,
// no longer counted against --max-client-requests. 256 KiB still sends
// 2.5 MB/s to a client 100 ms away.
const sendBuffer = 256 << 10

// sendBuffered sets the send buffer of every connection it accepts.
type sendBuffered struct {
	net.Listener
	size int
}

func (l sendBuffered) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetWriteBuffer(l.size) // a failure leaves the kernel's default
	}
	return c, err
}

// maxConnections is --max-connections as api.ConnLimits.All takes it:
// n, or for 0 three quarters of the open-file limit (files, the tables,
// job logs, Redis's connections keep the rest; none known: no cap); -1:
// no cap.
func maxConnections(n int, openFiles uint64) int {
	switch {
	case n > 0:
		return n
	case n < 0 || openFiles == 0 || openFiles > math.MaxInt32:
		return 0
	}
	return max(1, int(openFiles/4*3))
}

// serve runs the HTTP server until ctx ends, then shuts down gracefully:
// stop accepting, let requests in flight finish within the grace period.
func (a *app) serve(ctx context.Context, ln net.Listener) error {
	proxies, _ := a.cfg.trustedProxies() // checked by validate
	all := maxConnections(a.cfg.MaxConnections, openFileLimit())
	ln, err := api.LimitConns(sendBuffered{ln, sendBuffer}, api.ConnLimits{
		PerClient: a.cfg.MaxClientConnections, All: all,
		TrustedProxies: proxies, Registry: a.reg, Log: a.log.Named("http"),
	})
	if err != nil {
		return err
	}
	srv := &http.Server{
		Handler:           api.Compress(a.handler),
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       30 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    api.MaxHeaderBytes,
		ErrorLog:          zap.NewStdLog(a.log.Named("http")),
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	a.log.Info("serving", zap.String("addr", ln.Addr().String()),
		zap.Int("max_connections", all), zap.Int("max_client_connections", a.cfg.MaxClientConnections))
	// The in-process worker stops with ctx and hands its running units
	// back to the queue before serve returns.
	workerDone := make(chan struct{})
	if a.cfg.Worker {
		go func() {
			defer close(workerDone)
			if err := a.jobs.RunWorker(ctx, workerName(a.cfg), a.cfg.WorkerSlots); err != nil && ctx.Err() == nil {
				a.log.Error("job worker stopped", zap.Error(err))
			}
		}()
	} else {
		close(workerDone)
	}
	defer func() { <-workerDone }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	a.log.Info("shutting down", zap.Duration("grace", a.cfg.ShutdownGrace))
	began := time.Now()
	sctx, cancel := context.WithTimeout(context.Background(), a.cfg.ShutdownGrace)
	defer cancel()
	close(a.draining)
	cut := false
	if err := srv.Shutdown(sctx); err != nil {
		a.log.Warn("shutdown: requests still in flight were cut", zap.Error(err))
		_ = srv.Close()
		cut = true
	}
	<-workerDone
	// The drain is over (an operator's audit found no line after
	// "shutting down"; closing the stores may still log).
	a.log.Info("stopped", zap.Duration("drained_in", time.Since(began)), zap.Bool("requests_cut", cut))
	return nil
}

func (a *app) close() {
	for i := len(a.closers) - 1; i >= 0; i-- {
		a.closers[i]()
	}
}

func newLogger(cfg config) (*zap.Logger, error) {
	zc, err := loggerConfig(cfg)
	if err != nil {
		return nil, err
	}
	log, err := zc.Build()
	if err == nil {
		// go-redis's own messages (failed dials, pool trouble) join the
		// JSON log instead of plain text lines on stderr.
		redis.SetLogger(redisLogger{log.Named("redis").WithOptions(zap.AddCallerSkip(1))})
	}
	return log, err
}

// loggerConfig is the logger's configuration: JSON (or console) at the
// configured level, without stack traces and without sampling (zap's
// production default keeps 100 lines a second of each message, then 1 in
// 100: above 100 requests a second most access lines, panics too, were
// dropped without a trace).
func loggerConfig(cfg config) (zap.Config, error) {
	var level zapcore.Level
	if err := level.UnmarshalText([]byte(cfg.LogLevel)); err != nil {
		return zap.Config{}, fmt.Errorf("log-level %q: expected debug, info, warn or error", cfg.LogLevel)
	}
	zc := zap.NewProductionConfig()
	if cfg.LogFormat == "console" {
		zc = zap.NewDevelopmentConfig()
	}
	zc.Level = zap.NewAtomicLevelAt(level)
	zc.DisableStacktrace = true
	zc.Sampling = nil
	return zc, nil
}

// redisLogger writes go-redis's messages as warnings.
type redisLogger struct{ log *zap.Logger }

func (l redisLogger) Printf(_ context.Context, format string, v ...any) {
	l.log.Warn(strings.TrimSpace(fmt.Sprintf(format, v...)))
}
