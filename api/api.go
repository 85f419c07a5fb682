// Package api is the HTTP face of gamesolver: gin handlers, request and
// response types, middleware and problem+json errors. Handlers decode and
// check the shape of a request, call package service, and convert its
// answer; they hold no game logic.
//
//	@title						gamesolver
//	@version					1.0
//	@description				Exact analysis of classic abstract games: Teeko (all 16 of Scarne's forms, by tablebase), the polyomino placement games (Golomb's Pentominoes and relatives) and pentomino tiling puzzles.
//	@description				Values are given for the player who decides the current ply (`result`) and in absolute terms (`outcome`). Errors are application/problem+json (RFC 9457).
//	@description				Every response carries an X-Request-ID header, also in the logs and in problem bodies: the client's own X-Request-ID when it sent one of printable ASCII without spaces and at most 128 characters, else a new UUID (an id that could break a log line is replaced, not echoed).
//	@description				Under /v1, when the server limits request rates (per API key, else per client address: an IPv4 address, or an IPv6 address's /64 network), every answer of an operation (not a 404, 405 or trailing-slash redirect, which are not counted) carries X-RateLimit-Limit, X-RateLimit-Remaining and X-RateLimit-Reset (Unix seconds), and a refused request gets 429 with Retry-After. A client with too many requests under /v1 in flight at once in one server process (--max-client-requests, 64 by default; each counts until its answer is written, job event streams aside) gets 429 /problems/rate-limited with Retry-After too (counted against the rate like any request). A new connection past the server's caps on open connections (--max-client-connections per address, 256 by default, trusted proxies aside; --max-connections in all) is answered at once, before its request is read, with 429 /problems/rate-limited (or 503 /problems/busy for the server's cap) and Retry-After: 1, and closed. A request the HTTP server cannot read gets a problem too, then the connection is closed: 400 /problems/malformed-request (a malformed request line or header line, a missing or malformed Host header), 431 /problems/headers-too-large (request line and headers past about 32 KiB), 501 /problems/not-implemented (a Transfer-Encoding other than chunked), 417 /problems/expectation-failed (an Expect header other than 100-continue), 505 /problems/http-version. Every 503 carries Retry-After too. A method a path does not take gets 405 /problems/method-not-allowed with an Allow header (OPTIONS too, but for a CORS preflight from an origin --cors-origins allows: 204 with Access-Control-Allow-Origin, -Methods, -Headers and -Max-Age); an unknown path 404 /problems/not-found. Words (presets, rules, players, end rules, drop styles, job types) are matched without regard to case or to spaces around them. In a request body, a field sent as null, or as an empty string where the field takes one of a list of words, is the same as the field left out (a required one is then missing); so is an empty query parameter. Where an integer is expected, a number with a fraction or an exponent and an integer value is taken (8.0, 1e3), as JSON Schema's integer takes it; 8.5 is refused.
//	@description				Every GET operation but the job event stream answers HEAD too (its status and headers, no body). A path with a trailing slash too many or too few is redirected to the operation's own (301 for GET and HEAD; 307 for other methods, which send their body again). A request body is JSON (Content-Type application/json, or any application/*+json type); one larger than the server's limit (--max-body, 64 KiB by default) gets 413 /problems/body-too-large, whatever the method. A field a request schema does not name gets 400 (the schemas say additionalProperties: false), as does a body whose objects and arrays nest more than 64 deep, as does a query parameter an operation under /v1 does not list, or one given twice (the service's own endpoints, /healthz, /readyz, /metrics, /openapi.json, /problems and /swagger, ignore query strings: probes and uptime checkers add their own). Problems and event streams are sent with Cache-Control: no-store. An answer of 2 KiB or more is sent gzip-compressed (Content-Encoding: gzip) when the request's Accept-Encoding takes gzip (named gzip or x-gzip, or as * when gzip is not named; every answer carries Vary: Accept-Encoding, but an event stream, which is never compressed, and a CORS preflight's); a compressed answer's ETag ends in -gzip, and If-None-Match compares the tag of the representation the request gets. HEAD answers are never compressed (their headers are the uncompressed answer's). A client that reads nothing of an answer (or of an event) for a minute is disconnected.
//	@BasePath					/
//	@accept						json
//	@produce					json
//	@tag.name					teeko
//	@tag.description			Teeko (Scarne): analysis, game annotation, tablebase statistics.
//	@tag.name					polyomino
//	@tag.description			Polyomino placement games and tiling puzzles.
//	@tag.name					jobs
//	@tag.description			Long computations run in the background.
//	@tag.name					service
//	@tag.description			Health, readiness, metrics, documentation and the game catalogue.
//	@securityDefinitions.apikey	APIKey
//	@in							header
//	@name						X-API-Key
package api

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/gin-contrib/cors"
	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"

	"github.com/gamesolver/gamesolver/service"
	"github.com/gamesolver/gamesolver/service/jobs"
)

// Config is what the HTTP layer needs from the server configuration.
type Config struct {
	// MaxBodyBytes bounds every request body (413 beyond).
	MaxBodyBytes int64
	// RateLimiter, when set, limits each client's /v1 requests.
	RateLimiter *service.RateLimiter
	// APIKeys, when any is configured, are required by the jobs endpoints
	// and identify clients for rate limiting.
	APIKeys *service.APIKeys
	// CORSOrigins lists the origins browsers may call from; "*" allows
	// any; empty disables CORS.
	CORSOrigins []string
	// TrustedProxies are the addresses or CIDRs whose X-Forwarded-For and
	// X-Real-IP name the client (for rate limits and logs); nil trusts
	// every peer (gin's default), an empty list none.
	TrustedProxies []string
	// MetricsApart: /metrics is served on a listener of its own (serve's
	// --metrics-addr), not on the API's, which the public reaches.
	MetricsApart bool
	// MaxClientRequests caps one client's /v1 requests in flight in this
	// process, from their arrival until their answer is written (job event
	// streams have a cap of their own); 429 beyond. 0: no cap.
	MaxClientRequests int
}

// Deps are the services the handlers call. A nil game service leaves its
// routes out.
type Deps struct {
	Log       *zap.Logger
	Registry  *prometheus.Registry
	Readiness *service.Readiness
	Catalogue *service.Catalogue
	Gatherer  prometheus.Gatherer
	Version   string
	StartedAt time.Time
	// Teeko answers the Teeko routes.
	Teeko *service.Teeko
	// Polyomino answers the placement games.
	Polyomino *service.Polyomino
	// Tilings answers the tiling puzzles.
	Tilings *service.Tilings
	// Jobs runs long computations.
	Jobs *jobs.Manager
	// Assembly is the gate of big answers (service.Searcher's): a job's
	// big result is converted and encoded with a place in it, as the
	// synchronous answers are. Nil: no gate.
	Assembly *service.Assembly
	// Draining, when closed, tells long-lived responses (job event
	// streams) that the server is shutting down: they end with a hint to
	// reconnect rather than hold the shutdown. Nil: never.
	Draining <-chan struct{}
}

// New builds the router with every middleware and route.
func New(cfg Config, d Deps) *gin.Engine {
	if d.Log == nil {
		d.Log = zap.NewNop()
	}
	if d.Gatherer == nil {
		d.Gatherer = d.Registry
	}
	r := gin.New()
	if cfg.TrustedProxies != nil {
		// The command's config checks the list first; a list gin still
		// refuses trusts no proxy (gin would keep the entries before the
		// bad one).
		if err := r.SetTrustedProxies(cfg.TrustedProxies); err != nil {
			d.Log.Error("trusted proxies refused: trusting none", zap.Error(err))
			_ = r.SetTrustedProxies([]string{})
		}
	}
	r.HandleMethodNotAllowed = true
	// gin's own redirect answers a trailing slash before any middleware
	// (no request id, no log): NoRoute redirects instead.
	r.RedirectTrailingSlash = false
	r.ContextWithFallback = true // c.Done() and c.Err() follow the request's context
	m := newHTTPMetrics(d.Registry)
	r.Use(withRequestID(d.Log), accessLog(), m.middleware(), recovery(), securityHeaders())
	if cfg.TrustedProxies != nil {
		trusted, _ := trustedPrefixes(cfg.TrustedProxies) // a list gin refused trusts none (above)
		r.Use(untrustedForwarding(trusted))
	}
	if len(cfg.CORSOrigins) > 0 {
		r.Use(corsFor(cfg.CORSOrigins))
	}
	if cfg.RateLimiter != nil {
		// Before the body's checks: a 413 or 415 is counted, and carries
		// the X-RateLimit-* headers, as every answer of an operation under /v1 does.
		r.Use(under("/v1/", rateLimit(cfg.RateLimiter, cfg.APIKeys)))
	}
	if cfg.MaxClientRequests > 0 {
		r.Use(under("/v1/", inFlight(cfg.MaxClientRequests, cfg.APIKeys)))
	}
	r.Use(limitBody(cfg.MaxBodyBytes), requireJSON())

	r.NoRoute(func(c *gin.Context) {
		path := c.Request.URL.Path
		other := strings.TrimSuffix(path, "/")
		if other == path {
			other += "/"
		}
		routes := r.Routes()
		if strings.HasPrefix(other, "//") {
			routes = nil // no redirect to another host
		}
		if c.Request.URL.Query().Has(queryAPIKey) {
			routes = nil // no redirect repeating a key in its Location (cached, logged by proxies)
		}
		for _, rt := range routes {
			if rt.Method != c.Request.Method || !routeMatches(rt.Path, other) {
				continue
			}
			// The same path with or without its trailing slash: GET and
			// HEAD move for good, other methods are sent on with their
			// body (307), as gin did.
			u := url.URL{Path: other, RawQuery: c.Request.URL.RawQuery}
			code := http.StatusTemporaryRedirect
			if c.Request.Method == http.MethodGet || c.Request.Method == http.MethodHead {
				code = http.StatusMovedPermanently
			}
			c.Redirect(code, u.String())
			return
		}
		writeProblem(c, newProblem(c, "not-found", "no route for "+clipAt(c.Request.Method, maxLoggedMethod)+" "+clipAt(path, maxLoggedPath)))
	})
	r.NoMethod(func(c *gin.Context) {
		for _, rt := range r.Routes() {
			if routeMatches(rt.Path, c.Request.URL.Path) {
				c.Set(ctxRoute, rt.Path) // for the metrics and the log
				break
			}
		}
		writeProblem(c, newProblem(c, "method-not-allowed", clipAt(c.Request.Method, maxLoggedMethod)+" is not allowed on "+clipAt(c.Request.URL.Path, maxLoggedPath)+"; allowed: "+c.Writer.Header().Get("Allow")))
	})

	h := &handlers{deps: d, keys: cfg.APIKeys}
	r.GET("/healthz", h.healthz)
	r.GET("/readyz", h.readyz)
	// HEAD too, for load balancers and uptime probes that send it.
	r.HEAD("/healthz", h.healthz)
	r.HEAD("/readyz", h.readyz)
	if !cfg.MetricsApart {
		r.GET("/metrics", metrics(d.Gatherer))
		r.HEAD("/metrics", metrics(d.Gatherer))
	}
	r.GET("/problems/:name", describeProblem)
	r.HEAD("/problems/:name", describeProblem)
	registerDocs(r)

	v1 := r.Group("/v1")
	v1.Use(withClient(cfg.APIKeys))
	v1.GET("/games", noQuery, h.games)
	v1.HEAD("/games", noQuery, h.games)
	if d.Jobs != nil {
		jobsGroup := v1.Group("/jobs")
		if cfg.APIKeys.Enabled() {
			jobsGroup.Use(requireAPIKey(cfg.APIKeys))
		}
		jobsGroup.POST("", h.createJob)
		jobsGroup.GET("/:id", noQuery, h.getJob)
		jobsGroup.HEAD("/:id", noQuery, h.getJob)
		jobsGroup.DELETE("/:id", noQuery, h.cancelJob)
		jobsGroup.GET("/:id/events", func(c *gin.Context) {
			if knownQuery(c, queryAPIKey) {
				c.Next()
			}
		}, h.jobEvents)
	}
	if d.Polyomino != nil {
		v1.POST("/polyomino/analyze", h.polyominoAnalyze)
		v1.POST("/polyomino/moves", h.polyominoMoves)
		v1.POST("/polyomino/annotate", h.polyominoAnnotate)
	}
	if d.Tilings != nil {
		v1.POST("/polyomino/tilings", h.tilings)
	}
	if d.Teeko != nil {
		v1.POST("/teeko/analyze", h.teekoAnalyze)
		v1.POST("/teeko/annotate", h.teekoAnnotate)
		v1.GET("/teeko/tablebase", h.teekoTablebase)
		v1.HEAD("/teeko/tablebase", h.teekoTablebase)
	}
	return r
}

type handlers struct {
	deps Deps
	// keys, when enabled, guard the jobs, including those that analyze's
	// background option would start.
	keys *service.APIKeys
	// streams counts the open job event streams.
	streams streamCount
}

func corsFor(origins []string) gin.HandlerFunc {
	cc := cors.Config{
		AllowMethods:  []string{http.MethodGet, http.MethodPost, http.MethodDelete, http.MethodOptions},
		AllowHeaders:  []string{"Content-Type", "X-Request-ID", "X-API-Key", "Last-Event-ID", "If-None-Match"},
		ExposeHeaders: []string{"X-Request-ID", "Location", "Retry-After", "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "ETag"},
		MaxAge:        time.Hour,
	}
	for _, o := range origins {
		if o == "*" {
			cc.AllowAllOrigins = true
			break
		}
	}
	if cc.AllowAllOrigins {
		return cors.New(cc)
	}
	allowed, _ := OriginMatcher(origins) // checked by the config
	cc.AllowOriginFunc = allowed
	withCORS := cors.New(cc)
	// cors refuses any other origin with a bare 403, outside the problem
	// contract. Such a request is served as any request without CORS
	// headers instead, so a browser keeps the answer from the page (and a
	// preflight, OPTIONS, is a 405 problem): the way CORS is meant to work.
	// Every answer varies by Origin, so a cache shared by several origins
	// keeps them apart.
	return func(c *gin.Context) {
		h := c.Writer.Header()
		vary := h.Values("Vary") // Compress's Accept-Encoding
		addVary(h, "Origin")
		if o := c.GetHeader("Origin"); o != "" && !allowed(o) {
			return
		}
		withCORS(c) // which sets Vary: Origin, over what was there
		for _, v := range vary {
			addVary(h, v)
		}
	}
}

// OriginMatcher tells whether an origin is one of origins, each an origin
// compared without regard to case ("https://app.example") or, between
// slashes, a regular expression the whole origin must match
// ("/https://[a-z]+\.app\.example/": anchored at both ends whether or not
// it says ^ and $, so that https://x.app.example.evil.com does not match).
// It fails on an expression that does not compile.
func OriginMatcher(origins []string) (func(string) bool, error) {
	exact := map[string]bool{}
	var patterns []*regexp.Regexp
	for _, o := range origins {
		o = strings.TrimSpace(o)
		if len(o) > 2 && strings.HasPrefix(o, "/") && strings.HasSuffix(o, "/") {
			re, err := regexp.Compile(`^(?:` + o[1:len(o)-1] + `)$`)
			if err != nil {
				return nil, fmt.Errorf("origin pattern %s: %w", o, err)
			}
			patterns = append(patterns, re)
			continue
		}
		exact[strings.ToLower(o)] = true
	}
	return func(origin string) bool {
		if exact[strings.ToLower(origin)] {
			return true
		}
		for _, re := range patterns {
			if re.MatchString(origin) {
				return true
			}
		}
		return false
	}, nil
}

// routeMatches reports whether path fits gin's route pattern (":name" a
// segment, "*name" the rest).
func routeMatches(pattern, path string) bool {
	ps, qs := strings.Split(pattern, "/"), strings.Split(path, "/")
	for i, p := range ps {
		switch {
		case strings.HasPrefix(p, "*"):
			return true
		case i >= len(qs):
			return false
		case strings.HasPrefix(p, ":"):
			if qs[i] == "" {
				return false
			}
		case p != qs[i]:
			return false
		}
	}
	return len(ps) == len(qs)
}
