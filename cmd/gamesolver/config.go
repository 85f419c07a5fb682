package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net"
	"net/url"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gamesolver/gamesolver/api"
	"github.com/gamesolver/gamesolver/service"
)

// config is the server configuration. Every setting is a flag and an
// environment variable; a flag given on the command line wins over the
// environment, which wins over the default.
type config struct {
	Addr           string
	DataDir        string
	RedisURL       string
	LogLevel       string
	LogFormat      string
	MaxBodyBytes   int64
	DefaultBudget  time.Duration
	MaxBudget      time.Duration
	SolverSlots    int
	SolverWorkers  int
	JobWorkers     int
	SolverQueue    int
	QueueWait      time.Duration
	CORSOrigins    string
	TrustedProxies string
	CacheBytes     int64
	CacheTTL       time.Duration
	RedisTimeout   time.Duration
	ShutdownGrace  time.Duration
	Worker         bool
	RateLimit      string
	JobRateLimit   string
	// MaxClientRequests caps one client's /v1 requests in flight.
	MaxClientRequests int
	// MaxConnections and MaxClientConnections cap the TCP connections
	// held in all (0: three quarters of the open-file limit; -1: no cap)
	// and from one address (0: no cap).
	MaxConnections       int
	MaxClientConnections int
	APIKeys              string
	MaxJobDuration       time.Duration
	MaxActiveJobs        int
	MaxClientJobs        int
	JobWindow            int
	WorkerSlots          int
	ExpressLimit         time.Duration
	WorkerName           string
	MetricsAddr          string
	Pprof                bool
	BookTableMB          int

	// Set by the solve command, never by a flag or the environment.
	noJournal bool // jobs are not journalled to the data directory
	noTeeko   bool // the Teeko tables are neither loaded nor built
}

// errHelpShown is returned after -h printed the usage.
var errHelpShown = errors.New("help requested")

// setting binds one field to a flag and an environment variable.
type setting struct {
	flag, env, usage string
	secret           bool
	value            flag.Value
}

func (c *config) settings() []setting {
	return []setting{
		{flag: "addr", env: "GAMESOLVER_ADDR", usage: "listen address host:port", value: (*stringValue)(&c.Addr)},
		{flag: "data-dir", env: "GAMESOLVER_DATA_DIR", usage: "directory for tablebases and other built data, and without Redis the jobs' log (unfinished jobs resume after a restart; one process at a time)", value: (*stringValue)(&c.DataDir)},
		{flag: "redis-url", env: "REDIS_URL", usage: "Redis URL (redis:// or rediss:// for TLS); empty: in-memory cache", secret: true, value: (*stringValue)(&c.RedisURL)},
		{flag: "log-level", env: "GAMESOLVER_LOG_LEVEL", usage: "debug, info, warn or error", value: (*stringValue)(&c.LogLevel)},
		{flag: "log-format", env: "GAMESOLVER_LOG_FORMAT", usage: "json or console", value: (*stringValue)(&c.LogFormat)},
		{flag: "max-body", env: "GAMESOLVER_MAX_BODY", usage: "largest request body in bytes (suffixes KiB, MiB)", value: (*bytesValue)(&c.MaxBodyBytes)},
		{flag: "default-budget", env: "GAMESOLVER_DEFAULT_BUDGET", usage: "search time budget when a request gives none", value: (*durationValue)(&c.DefaultBudget)},
		{flag: "max-budget", env: "GAMESOLVER_MAX_BUDGET", usage: "server-side cap on any request's search budget", value: (*durationValue)(&c.MaxBudget)},
		{flag: "solver-slots", env: "GAMESOLVER_SOLVER_SLOTS", usage: "searches running at once, and big answers (thousands of moves) assembled at once (default: one core is left to cheap requests)", value: (*intValue)(&c.SolverSlots)},
		{flag: "solver-workers", env: "GAMESOLVER_SOLVER_WORKERS", usage: "goroutines of one request's search", value: (*intValue)(&c.SolverWorkers)},
		{flag: "job-workers", env: "GAMESOLVER_JOB_WORKERS", usage: "goroutines of one job unit's search (0: every core; serve's in-process worker defaults to solver-workers)", value: (*intValue)(&c.JobWorkers)},
		{flag: "solver-queue", env: "GAMESOLVER_SOLVER_QUEUE", usage: "searches waiting for a slot before 503", value: (*intValue)(&c.SolverQueue)},
		{flag: "queue-wait", env: "GAMESOLVER_QUEUE_WAIT", usage: "longest wait for a solver slot before 503", value: (*durationValue)(&c.QueueWait)},
		{flag: "trusted-proxies", env: "GAMESOLVER_TRUSTED_PROXIES", usage: "comma-separated addresses or CIDRs of the proxies whose X-Forwarded-For names the client (rate limits, caps, logs): none (the default) for no proxy, the peer's address names the client; private for any peer on a loopback, private or link-local address (an ingress: only where nothing else on those networks reaches the server, since any such peer can forge the header); * for any peer (a client can then forge it). X-Forwarded-For from a peer not trusted is logged, at most hourly", value: (*stringValue)(&c.TrustedProxies)},
		{flag: "cors-origins", env: "GAMESOLVER_CORS_ORIGINS", usage: "comma-separated origins allowed by CORS (or /regexp/, which the whole origin must match), * for any, empty for none", value: (*stringValue)(&c.CORSOrigins)},
		{flag: "cache-bytes", env: "GAMESOLVER_CACHE_BYTES", usage: "size of the in-memory cache (suffixes KiB, MiB, GiB)", value: (*bytesValue)(&c.CacheBytes)},
		{flag: "cache-ttl", env: "GAMESOLVER_CACHE_TTL", usage: "lifetime of cached answers", value: (*durationValue)(&c.CacheTTL)},
		{flag: "redis-timeout", env: "GAMESOLVER_REDIS_TIMEOUT", usage: "timeout of every Redis call", value: (*durationValue)(&c.RedisTimeout)},
		{flag: "shutdown-grace", env: "GAMESOLVER_SHUTDOWN_GRACE", usage: "time to finish requests in flight on SIGTERM (above max-budget, or the longest searches are cut without an answer)", value: (*durationValue)(&c.ShutdownGrace)},
		{flag: "rate-limit", env: "GAMESOLVER_RATE_LIMIT", usage: "requests per client (API key, else address) per period on /v1: 100-S, 3000-M, ...; off to disable", value: (*stringValue)(&c.RateLimit)},
		{flag: "max-client-requests", env: "GAMESOLVER_MAX_CLIENT_REQUESTS", usage: "requests of one client (API key, else address) under /v1 in flight at once in this process, each until its answer is written, job event streams aside; 429 with Retry-After beyond (0: no cap)", value: (*intValue)(&c.MaxClientRequests)},
		{flag: "max-connections", env: "GAMESOLVER_MAX_CONNECTIONS", usage: "TCP connections the server holds open at once, each a file descriptor; beyond, a new one is answered 503 and closed as soon as accepted (0: three quarters of the process's open-file limit, so that job logs, tables and Redis keep theirs; -1: no cap)", value: (*intValue)(&c.MaxConnections)},
		{flag: "max-client-connections", env: "GAMESOLVER_MAX_CLIENT_CONNECTIONS", usage: "TCP connections from one peer address (an IPv6 address's /64) held open at once, trusted proxies aside; beyond, a new one is answered 429 and closed as soon as accepted (0: no cap)", value: (*intValue)(&c.MaxClientConnections)},
		{flag: "api-keys", env: "GAMESOLVER_API_KEYS", usage: "comma-separated API keys; when set, the jobs endpoints (and analyze with background) require X-API-Key", secret: true, value: (*stringValue)(&c.APIKeys)},
		{flag: "worker", env: "GAMESOLVER_WORKER", usage: "run a job worker in this process (serve only)", value: (*boolValue)(&c.Worker)},
		{flag: "max-job-duration", env: "GAMESOLVER_MAX_JOB_DURATION", usage: "longest a job unit may search", value: (*durationValue)(&c.MaxJobDuration)},
		{flag: "max-active-jobs", env: "GAMESOLVER_MAX_ACTIVE_JOBS", usage: "unfinished jobs (queued or running) beyond which POST /v1/jobs answers 503 with Retry-After (0: no cap)", value: (*intValue)(&c.MaxActiveJobs)},
		{flag: "job-rate-limit", env: "GAMESOLVER_JOB_RATE_LIMIT", usage: "job submissions per client (API key, else address) per period, background analyses included: 60-M, 600-H, ...; off to disable", value: (*stringValue)(&c.JobRateLimit)},
		{flag: "max-client-jobs", env: "GAMESOLVER_MAX_CLIENT_JOBS", usage: "unfinished jobs of one client (API key, else address) beyond which its POST /v1/jobs answers 429 with Retry-After (0: no cap)", value: (*intValue)(&c.MaxClientJobs)},
		{flag: "job-window", env: "GAMESOLVER_JOB_WINDOW", usage: "with Redis: units of one job queued at once (jobs take turns: a later job waits behind at most this many units of each earlier one; more lets one job use more worker slots)", value: (*intValue)(&c.JobWindow)},
		{flag: "worker-slots", env: "GAMESOLVER_WORKER_SLOTS", usage: "job units a worker runs at once (each unit's search uses job-workers goroutines)", value: (*intValue)(&c.WorkerSlots)},
		{flag: "express-limit", env: "GAMESOLVER_EXPRESS_LIMIT", usage: "a worker's express slot, besides its worker-slots, runs each unit for at most this long; one that outlasts it goes back to the other slots and its job is marked slow (the slot takes none of its units again): a small job waits at most this long behind a long job's units, not their whole time (0: no express slot; at most half of max-job-duration)", value: (*durationValue)(&c.ExpressLimit)},
		{flag: "worker-name", env: "GAMESOLVER_WORKER_NAME", usage: "worker name in Redis (default: host name and process id)", value: (*stringValue)(&c.WorkerName)},
		{flag: "metrics-addr", env: "GAMESOLVER_METRICS_ADDR", usage: "HOST:PORT serving /metrics and /healthz apart from the API (default: none, /metrics on --addr; when set, serve answers /metrics here only)", value: (*stringValue)(&c.MetricsAddr)},
		{flag: "pprof", env: "GAMESOLVER_PPROF", usage: "serve the Go runtime's profiles (/debug/pprof/: heap, goroutines, CPU) on metrics-addr, which it needs; never on the API's port", value: (*boolValue)(&c.Pprof)},
		{flag: "book-table-mb", env: "GAMESOLVER_BOOK_TABLE_MB", usage: "transposition table (MB) shared by a worker's polyomino.book units, made at the first such unit", value: (*intValue)(&c.BookTableMB)},
	}
}

func defaultConfig() config {
	return config{
		Addr:                 ":8080",
		DataDir:              "./data",
		LogLevel:             "info",
		LogFormat:            "json",
		MaxBodyBytes:         64 << 10,
		DefaultBudget:        2 * time.Second,
		MaxBudget:            30 * time.Second,
		SolverSlots:          max(1, runtime.GOMAXPROCS(0)-1),
		SolverWorkers:        1,
		JobWorkers:           -1,
		SolverQueue:          4 * runtime.GOMAXPROCS(0),
		QueueWait:            2 * time.Second,
		CacheBytes:           256 << 20,
		CacheTTL:             7 * 24 * time.Hour,
		RedisTimeout:         20 * time.Millisecond,
		ShutdownGrace:        35 * time.Second, // above MaxBudget: a search in flight answers
		Worker:               true,
		MaxJobDuration:       time.Hour,
		MaxActiveJobs:        100,
		MaxClientJobs:        10,
		JobWindow:            8,
		WorkerSlots:          1,
		ExpressLimit:         10 * time.Second,
		BookTableMB:          256,
		RateLimit:            "100-S",
		MaxClientRequests:    64,
		MaxClientConnections: 256,
		JobRateLimit:         "60-M",
		TrustedProxies:       "none",
	}
}

// parseConfig reads the environment, then the flags in args.
func parseConfig(name string, args []string, getenv func(string) string) (config, error) {
	c, rest, err := parseConfigArgs(name, args, getenv, defaultConfig(), nil)
	if err == nil && len(rest) > 0 {
		err = fmt.Errorf("unexpected argument %q", rest[0])
	}
	return c, err
}

// parseConfigArgs reads the environment, then the flags in args over the
// defaults c, and returns the arguments after the flags. The flag
// package's messages go to out (nil: standard error).
func parseConfigArgs(name string, args []string, getenv func(string) string, c config, out io.Writer) (config, []string, error) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	if out != nil {
		fs.SetOutput(out)
	}
	for _, s := range c.settings() {
		if v := getenv(s.env); v != "" {
			if err := s.value.Set(v); err != nil {
				return c, nil, fmt.Errorf("%s=%q: %w", s.env, redactIf(s.secret, v), err)
			}
		}
		fs.Var(s.value, s.flag, fmt.Sprintf("%s (env %s)", s.usage, s.env))
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return c, nil, errHelpShown
		}
		return c, nil, err
	}
	return c, fs.Args(), c.validate(name)
}

func (c *config) validate(name string) error {
	var errs []string
	if name == "serve" && c.MetricsAddr != "" && sameListener(c.Addr, c.MetricsAddr) {
		errs = append(errs, fmt.Sprintf("metrics-addr %s is the port of addr %s: serve has /metrics and /healthz there already (leave metrics-addr unset, or give it a port of its own)", c.MetricsAddr, c.Addr))
	}
	if c.Pprof && c.MetricsAddr == "" && (name == "serve" || name == "worker") {
		errs = append(errs, "pprof serves the profiles on metrics-addr only (not on the API's port): give metrics-addr too")
	}
	if c.MaxBodyBytes < 1024 {
		errs = append(errs, "max-body must be at least 1KiB")
	}
	if c.SolverWorkers < 1 {
		errs = append(errs, "solver-workers must be at least 1")
	}
	if c.SolverSlots < 1 {
		errs = append(errs, "solver-slots must be at least 1")
	}
	if c.BookTableMB < 1 || c.BookTableMB > 1<<16 {
		errs = append(errs, "book-table-mb must be between 1 and 65536")
	}
	if c.WorkerSlots < 1 {
		errs = append(errs, "worker-slots must be at least 1")
	}
	if c.ExpressLimit < 0 {
		errs = append(errs, "express-limit must not be negative")
	}
	if c.MaxJobDuration <= 0 {
		errs = append(errs, "max-job-duration must be positive")
	}
	if c.SolverQueue < 0 {
		errs = append(errs, "solver-queue must not be negative")
	}
	if c.MaxBudget <= 0 || c.DefaultBudget <= 0 || c.DefaultBudget > c.MaxBudget {
		errs = append(errs, "budgets must be positive with default-budget <= max-budget")
	}
	// Values that started a server which then misbehaved (an operator's
	// audit): a negative cache TTL wrote Redis keys that never expire (not
	// evictable under volatile-lru), 0 a memory cache that never expires.
	for _, d := range []struct {
		flag     string
		value    time.Duration
		positive bool // else not negative
	}{{"cache-ttl", c.CacheTTL, true}, {"redis-timeout", c.RedisTimeout, true}, {"queue-wait", c.QueueWait, false}, {"shutdown-grace", c.ShutdownGrace, false}} {
		switch {
		case d.positive && d.value <= 0:
			errs = append(errs, d.flag+" must be positive")
		case d.value < 0:
			errs = append(errs, d.flag+" must not be negative")
		}
	}
	for _, n := range []struct {
		flag       string
		value, min int
	}{{"job-window", c.JobWindow, 1}, {"max-active-jobs", c.MaxActiveJobs, 0}, {"max-client-jobs", c.MaxClientJobs, 0}, {"max-client-requests", c.MaxClientRequests, 0}, {"max-connections", c.MaxConnections, -1}, {"max-client-connections", c.MaxClientConnections, 0}, {"job-workers", c.JobWorkers, -1}} {
		if n.value < n.min {
			errs = append(errs, fmt.Sprintf("%s must be at least %d", n.flag, n.min))
		}
	}
	if c.WorkerName != "" && strings.TrimSpace(c.WorkerName) == "" {
		errs = append(errs, "worker-name is blank: give a name, or leave it unset for the host name and process id")
	}
	// In any case, and "warning", as zap reads them (INFO started a
	// server before); not dpanic, panic or fatal.
	if c.LogLevel = strings.ToLower(strings.TrimSpace(c.LogLevel)); c.LogLevel == "warning" {
		c.LogLevel = "warn"
	}
	switch c.LogLevel {
	case "debug", "info", "warn", "error":
	default:
		errs = append(errs, fmt.Sprintf("log-level %q: expected debug, info, warn or error", c.LogLevel))
	}
	if _, err := c.trustedProxies(); err != nil {
		errs = append(errs, err.Error())
	}
	if _, err := api.OriginMatcher(c.corsOrigins()); err != nil {
		errs = append(errs, "cors-origins: "+err.Error())
	}
	for _, rate := range []struct{ flag, value string }{{"rate-limit", c.RateLimit}, {"job-rate-limit", c.JobRateLimit}} {
		if rate.value != "" && rate.value != "off" {
			if err := service.CheckRate(rate.value); err != nil {
				errs = append(errs, rate.flag+": "+err.Error())
			}
		}
	}
	switch c.LogFormat {
	case "json", "console":
	default:
		errs = append(errs, fmt.Sprintf("log-format %q: expected json or console", c.LogFormat))
	}
	if len(errs) > 0 {
		return fmt.Errorf("invalid configuration: %s", strings.Join(errs, "; "))
	}
	return nil
}

// unknownEnv lists the GAMESOLVER_ variables of environ ("NAME=value")
// that name no setting: misspelt ones were ignored silently (the tests'
// own, GAMESOLVER_TEST_* and GAMESOLVER_REQUIRE_REDIS, aside).
func unknownEnv(environ []string) []string {
	known := map[string]bool{"GAMESOLVER_REQUIRE_REDIS": true}
	for _, s := range (&config{}).settings() {
		known[s.env] = true
	}
	var out []string
	for _, kv := range environ {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "GAMESOLVER_") && !strings.HasPrefix(k, "GAMESOLVER_TEST_") && !known[k] {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// sameListener says whether listening on a and on b would take the same
// port: the same port on the same host, or on all hosts for either.
func sameListener(a, b string) bool {
	ha, pa, errA := net.SplitHostPort(a)
	hb, pb, errB := net.SplitHostPort(b)
	if errA != nil || errB != nil {
		return a == b
	}
	if pa != pb || pa == "0" || pa == "" {
		return false
	}
	wildcard := func(h string) bool { return h == "" || h == "0.0.0.0" || h == "::" }
	return ha == hb || wildcard(ha) || wildcard(hb)
}

// effective lists every setting with its value, secrets redacted, for the
// start-up log.
func (c *config) effective() map[string]string {
	out := make(map[string]string)
	for _, s := range c.settings() {
		out[s.flag] = redactIf(s.secret, s.value.String())
	}
	return out
}

func (c *config) corsOrigins() []string { return splitList(c.CORSOrigins) }

// privateNets are the peers --trusted-proxies private trusts: loopback,
// private (RFC 1918, RFC 4193) and link-local addresses, where an ingress
// or a sidecar proxy lives and a client on the internet does not.
var privateNets = []string{"127.0.0.0/8", "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "169.254.0.0/16", "::1/128", "fc00::/7", "fe80::/10"}

// trustedProxies is api.Config.TrustedProxies: nil for "*", empty for
// "none", privateNets for "private", else the checked list.
func (c *config) trustedProxies() ([]string, error) {
	switch v := strings.TrimSpace(c.TrustedProxies); v {
	case "", "*":
		return nil, nil
	case "none":
		return []string{}, nil
	case "private":
		return slices.Clone(privateNets), nil
	}
	list := splitList(c.TrustedProxies)
	for _, p := range list {
		if net.ParseIP(p) != nil {
			continue
		}
		if _, _, err := net.ParseCIDR(p); err != nil {
			return nil, fmt.Errorf("--trusted-proxies: %q is neither an address nor a CIDR", p)
		}
	}
	return list, nil
}

func (c *config) apiKeys() []string { return splitList(c.APIKeys) }

func splitList(s string) []string {
	var out []string
	for _, o := range strings.Split(s, ",") {
		if o = strings.TrimSpace(o); o != "" {
			out = append(out, o)
		}
	}
	return out
}

// redactIf hides the password of a URL-like secret, and any other secret.
func redactIf(secret bool, v string) string {
	if !secret || v == "" {
		return v
	}
	if !strings.Contains(v, "://") {
		return "(hidden)"
	}
	u, err := url.Parse(v)
	if err != nil {
		return "(unparsable, hidden)"
	}
	if _, has := u.User.Password(); strings.Count(v, "@") > 1 || !has && strings.Contains(v, "@") {
		// A password with an unencoded / ? # or @ is parsed as the path
		// or the query, where Redacted leaves it (redis://:ab/cd@host was
		// logged whole): everything before the last @ is hidden.
		return u.Scheme + "://xxxxx@" + hideQuery(v[strings.LastIndex(v, "@")+1:])
	}
	return hideQuery(u.Redacted())
}

// hideQuery hides a URL's query, which may name a password
// (redis://host/0?password=..., a form go-redis refuses only after the
// start-up line logged it).
func hideQuery(v string) string {
	if i := strings.IndexByte(v, '?'); i >= 0 {
		return v[:i] + "?xxxxx"
	}
	return v
}

type stringValue string

func (v *stringValue) Set(s string) error { *v = stringValue(s); return nil }
func (v *stringValue) String() string     { return string(*v) }

type intValue int

func (v *intValue) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil {
		return fmt.Errorf("expected an integer")
	}
	*v = intValue(n)
	return nil
}
func (v *intValue) String() string { return strconv.Itoa(int(*v)) }

type durationValue time.Duration

func (v *durationValue) Set(s string) error {
	d, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("expected a duration such as 500ms or 2s")
	}
	*v = durationValue(d)
	return nil
}
func (v *durationValue) String() string { return time.Duration(*v).String() }

type boolValue bool

func (v *boolValue) Set(s string) error {
	b, err := strconv.ParseBool(s)
	if err != nil {
		return fmt.Errorf("expected true or false")
	}
	*v = boolValue(b)
	return nil
}
func (v *boolValue) String() string   { return strconv.FormatBool(bool(*v)) }
func (v *boolValue) IsBoolFlag() bool { return true }

type bytesValue int64

var byteSuffixes = []struct {
	suffix string
	mult   int64
}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"GB", 1e9}, {"MB", 1e6}, {"KB", 1e3}, {"B", 1}}

func (v *bytesValue) Set(s string) error {
	mult := int64(1)
	num := strings.TrimSpace(s)
	for _, bs := range byteSuffixes {
		if strings.HasSuffix(num, bs.suffix) {
			num, mult = strings.TrimSpace(strings.TrimSuffix(num, bs.suffix)), bs.mult
			break
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n < 0 {
		return fmt.Errorf("expected a size such as 65536, 64KiB or 256MiB")
	}
	if n > math.MaxInt64/mult {
		return fmt.Errorf("%s is too large", strings.TrimSpace(s))
	}
	*v = bytesValue(n * mult)
	return nil
}

func (v *bytesValue) String() string {
	n := int64(*v)
	for _, bs := range byteSuffixes[:3] {
		if n >= bs.mult && n%bs.mult == 0 {
			return strconv.FormatInt(n/bs.mult, 10) + bs.suffix
		}
	}
	return strconv.FormatInt(n, 10)
}
