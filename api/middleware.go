package api

import (
	"context"
	"fmt"
	"mime"
	"net/http"
	"net/netip"
	"net/url"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"
	"go.uber.org/zap"

	"github.com/gamesolver/gamesolver/service"
	"github.com/gamesolver/gamesolver/service/jobs"
)

const (
	headerRequestID = "X-Request-ID"
	ctxRequestID    = "gamesolver.request_id"
	ctxLogger       = "gamesolver.logger"
	maxRequestIDLen = 128
)

// withRequestID echoes a client's X-Request-ID when it is reasonable
// (printable ASCII, at most 128 characters) or makes a new one, and puts a
// logger carrying it into the context.
func withRequestID(log *zap.Logger) gin.HandlerFunc {
	return func(c *gin.Context) {
		id := c.GetHeader(headerRequestID)
		if !validRequestID(id) {
			id = uuid.NewString()
		}
		c.Set(ctxRequestID, id)
		c.Request = c.Request.WithContext(service.WithRequestID(c.Request.Context(), id))
		c.Set(ctxLogger, log.With(zap.String("request_id", id)))
		c.Header(headerRequestID, id)
		c.Next()
	}
}

func validRequestID(id string) bool {
	if id == "" || len(id) > maxRequestIDLen {
		return false
	}
	for i := 0; i < len(id); i++ {
		if id[i] < 0x21 || id[i] > 0x7e {
			return false
		}
	}
	return true
}

func requestID(c *gin.Context) string { return c.GetString(ctxRequestID) }

// logger returns the request's logger (with its request id).
func logger(c *gin.Context) *zap.Logger {
	if l, ok := c.Get(ctxLogger); ok {
		return l.(*zap.Logger)
	}
	return zap.NewNop()
}

// writeStall bounds a stall of an answer's writing: a client that reads
// nothing of it (a big answer, an event) for this long is cut off, so that
// it does not hold a goroutine, a connection and the kernel's buffers for
// ever (a load audit kept 200 answers of 1.3 MB unread: 235 MB of socket
// buffers, nothing ending them). An answer is written writeChunk bytes at
// a time, each with its own deadline, so a client that reads slowly but
// steadily gets it whole, and an event stream may stay idle longer
// (net/http clears the deadline after the answer: a kept connection's
// next request starts without one).
var writeStall = time.Minute // (a test shortens it)

// writeChunk: the bytes of an answer written under one deadline.
const writeChunk = 64 << 10

// timedWriter writes the answer under its deadlines (writeStall) and
// records whether the client left before or while it was written.
type timedWriter struct {
	gin.ResponseWriter
	ctx  context.Context // the request's
	rc   *http.ResponseController
	left atomic.Bool // the request ended before or during a write
}

func (w *timedWriter) Write(b []byte) (int, error) {
	return w.write(len(b), func(i, j int) (int, error) { return w.ResponseWriter.Write(b[i:j]) })
}

func (w *timedWriter) WriteString(s string) (int, error) {
	return w.write(len(s), func(i, j int) (int, error) { return w.ResponseWriter.WriteString(s[i:j]) })
}

// write writes n bytes, writeChunk at a time, each under a deadline.
func (w *timedWriter) write(n int, part func(i, j int) (int, error)) (int, error) {
	if w.ctx.Err() != nil {
		w.left.Store(true)
	}
	done := 0
	for {
		// (A test's recorder takes no deadline: ErrNotSupported.)
		_ = w.rc.SetWriteDeadline(time.Now().Add(writeStall))
		k, err := part(done, min(done+writeChunk, n))
		done += k
		if err != nil {
			w.left.Store(true)
			return done, err
		}
		if done >= n {
			return done, nil
		}
	}
}

// Unwrap lets http.ResponseController reach the connection (closeUnread's
// read deadline).
func (w *timedWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// forwardedLogEvery is the least time between two warnings about
// forwarding headers from peers that are not trusted proxies.
const forwardedLogEvery = time.Hour

// untrustedForwarding warns, at most every forwardedLogEvery, when a
// request carries X-Forwarded-For or X-Real-IP from a peer that is not a
// trusted proxy: the header is ignored, which is right for a client that
// forges it, and wrong for the operator's own proxy, behind which every
// client then shares one address for the rate limits and caps (the
// default trusts no proxy).
func untrustedForwarding(trusted []netip.Prefix) gin.HandlerFunc {
	var warned atomic.Int64 // Unix nanoseconds of the last warning
	return func(c *gin.Context) {
		h := c.Request.Header
		header := "X-Forwarded-For"
		if h.Get(header) == "" {
			if header = "X-Real-IP"; h.Get(header) == "" {
				return
			}
		}
		last := warned.Load()
		if last != 0 && time.Since(time.Unix(0, last)) < forwardedLogEvery {
			return // (no lock: behind an untrusted proxy every request comes here)
		}
		ap, err := netip.ParseAddrPort(c.Request.RemoteAddr)
		if err != nil || trustedPeer(trusted, ap.Addr()) || !warned.CompareAndSwap(last, time.Now().UnixNano()) {
			return // (a failed swap: another request warned meanwhile)
		}
		logger(c).Warn(header+" from a peer that is not a trusted proxy: ignored, the peer's address names the client for rate limits, caps and logs; if the peer is your proxy or load balancer, name it in --trusted-proxies (this line at most hourly)",
			zap.String("peer", ap.Addr().Unmap().String()))
	}
}

// accessLog writes one line per request: never the body, never headers that
// may hold secrets.
func accessLog() gin.HandlerFunc {
	return func(c *gin.Context) {
		start := time.Now()
		tw := &timedWriter{ResponseWriter: c.Writer, ctx: c.Request.Context(), rc: http.NewResponseController(c.Writer)}
		c.Writer = tw
		c.Next()
		status := c.Writer.Status()
		fields := []zap.Field{
			zap.String("method", clipAt(c.Request.Method, maxLoggedMethod)),
			zap.String("route", routeOf(c)),
			zap.String("path", clipAt(loggedPath(c), maxLoggedPath)),
			zap.Int("status", status),
			zap.Duration("latency", time.Since(start)),
			zap.Int("bytes", c.Writer.Size()),
			zap.String("client", c.ClientIP()),
		}
		if c.Writer.Header().Get("Content-Encoding") == "gzip" {
			// Sent compressed (Compress): bytes is the answer's size
			// before compression.
			fields = append(fields, zap.Bool("gzip", true))
		}
		if p := c.GetString(ctxProblem); p != "" {
			// Which 503 (busy, not-ready, unavailable), which 429 (the
			// request rate, the jobs cap): the status alone does not say.
			fields = append(fields, zap.String("problem", p))
		}
		if d := c.GetString(ctxProblemDetail); d != "" {
			fields = append(fields, zap.String("detail", d))
		}
		if (tw.left.Load() || !c.Writer.Written() && c.Request.Context().Err() != nil) && status != statusClientClosed {
			// The client left (or its deadline passed) before the answer
			// was written whole: status is what was sent, or would have
			// been, not what it read. (One that closed the connection
			// after the answer's last write had read it: an operator's
			// audit found whole answers of 35 KB-1.5 MB logged as left.)
			fields = append(fields, zap.Bool("client_left", true))
		}
		log := logger(c)
		switch {
		// 503 is load shedding or a table still building: expected, and
		// answered with Retry-After; an error is anything else of 5xx. A
		// 4xx is the client's (a scan of unknown paths, a bad body, a rate
		// limit): information, counted in the metrics by status.
		case status >= 500 && status != http.StatusServiceUnavailable:
			log.Error("request", fields...)
		case status == http.StatusServiceUnavailable && routeOf(c) != "/readyz":
			// (Not ready is a readiness probe's answer while tables
			// build or Redis is away, every few seconds: information.)
			log.Warn("request", fields...)
		case status < 300 && isProbe(routeOf(c)):
			// Probes and scrapes, every few seconds from each prober:
			// routine (about 18 lines a minute per pod at info).
			log.Debug("request", fields...)
		case status == http.StatusTooManyRequests:
			// A client over its rate: one curl loop logged 950 lines a
			// second at info. Counted by route and status in the metrics.
			log.Debug("request", fields...)
		default:
			log.Info("request", fields...)
		}
	}
}

// isProbe tells the routes that liveness and readiness probes and metric
// scrapers call.
func isProbe(route string) bool {
	return route == "/healthz" || route == "/readyz" || route == "/metrics"
}

// loggedPath is the request's path as the access log shows it: a job's id
// cut to what the job logs show (jobs.LoggedID), since the id is the
// job's only credential. A 405's path has no params (gin matched no
// route): its id is the segment its route template (ctxRoute) names :id.
func loggedPath(c *gin.Context) string {
	p := c.Request.URL.Path
	id := c.Param("id")
	if r := c.GetString(ctxRoute); id == "" && r != "" {
		segs := strings.Split(p, "/")
		for i, s := range strings.Split(r, "/") {
			if s == ":id" && i < len(segs) {
				id = segs[i]
			}
		}
	}
	if id != "" {
		if i := strings.Index(p, id); i >= 0 {
			p = p[:i] + jobs.LoggedID(id) + p[i+len(id):]
		}
	}
	return p
}

// routeOf is the route template ("/v1/jobs/:id"; for a 405, the template
// its path matched), or "unmatched" for paths no route knows, so that
// metrics and logs cannot be flooded with labels.
func routeOf(c *gin.Context) string {
	if r := c.FullPath(); r != "" {
		return r
	}
	if r := c.GetString(ctxRoute); r != "" {
		return r
	}
	return "unmatched"
}

// ctxRoute holds the route template a 405 answer's path matched (gin
// knows none for it).
const ctxRoute = "gamesolver.route"

// ctxProblem holds the name of the problem a request was answered with
// (writeProblem), for its access line.
const ctxProblem = "gamesolver.problem"

// ctxProblemDetail holds a refusal's detail (429, 503), for its access line.
const ctxProblemDetail = "gamesolver.problem_detail"

// methodLabel is the method as metrics label it: any method outside
// HTTP's own is OTHER (Go's server takes any token as a method, up to the
// header limit: one label value each would flood the metrics).
func methodLabel(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions, http.MethodConnect, http.MethodTrace:
		return m
	}
	return "OTHER"
}

// What the access log and problem answers quote of a request's method and
// path (a path may be tens of kilobytes).
const (
	maxLoggedMethod = 16
	maxLoggedPath   = 512
)

// recovery answers a panic with a 500 problem and logs its stack. A panic is
// always a bug: user input must never cause one.
func recovery() gin.HandlerFunc {
	return func(c *gin.Context) {
		defer func() {
			if r := recover(); r != nil {
				if r == http.ErrAbortHandler {
					panic(r)
				}
				logger(c).Error("panic", zap.Any("panic", r), zap.ByteString("stack", debug.Stack()))
				if !c.Writer.Written() {
					writeProblem(c, newProblem(c, "internal", "the request could not be completed"))
				}
				c.Abort()
			}
		}()
		c.Next()
	}
}

// limitBody refuses bodies over max bytes: at once when Content-Length says
// so, and while reading otherwise (decodeJSON then answers 413).
func limitBody(max int64) gin.HandlerFunc {
	return func(c *gin.Context) {
		if c.FullPath() == "" { // no route: 404 or 405 answers, not 413
			c.Next()
			return
		}
		if c.Request.ContentLength > max {
			closeUnread(c)
			writeProblem(c, newProblem(c, "body-too-large", fmt.Sprintf("the request body has %d bytes; the limit is %d", c.Request.ContentLength, max)))
			return
		}
		if c.Request.Body != nil {
			c.Request.Body = http.MaxBytesReader(c.Writer, c.Request.Body, max)
		}
		c.Next()
	}
}

// closeUnread marks the connection to be closed after the answer: the
// rest of the request's body is not read (net/http would read it first to
// keep the connection, and a body that never arrives whole held the
// answer until the read timeout, 30 s). Its read deadline passes at once,
// so that the server does not wait for the rest either (it read up to
// 256 KiB of it after the answer, holding the connection 30 s).
func closeUnread(c *gin.Context) {
	c.Header("Connection", "close")
	_ = http.NewResponseController(c.Writer).SetReadDeadline(time.Now())
}

// requireJSON answers 415 to a request with a body that is not JSON.
func requireJSON() gin.HandlerFunc {
	return func(c *gin.Context) {
		switch c.Request.Method {
		case http.MethodPost, http.MethodPut, http.MethodPatch:
			if c.FullPath() == "" { // no route: 404 or 405 answers, not 415
				c.Next()
				return
			}
		default:
			c.Next()
			return
		}
		ct := c.GetHeader("Content-Type")
		mt, params, err := mime.ParseMediaType(ct)
		if err != nil || !(mt == "application/json" || (strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+json"))) {
			got := "no Content-Type"
			if ct != "" {
				got = "Content-Type " + strconv.Quote(clip(ct))
			}
			writeProblem(c, newProblem(c, "unsupported-media", "expected Content-Type application/json, got "+got))
			return
		}
		if cs, ok := params["charset"]; ok && !strings.EqualFold(cs, "utf-8") && !strings.EqualFold(cs, "utf8") {
			writeProblem(c, newProblem(c, "unsupported-media", "charset "+strconv.Quote(clip(cs))+": JSON bodies are UTF-8"))
			return
		}
		if ce := c.GetHeader("Content-Encoding"); ce != "" && !strings.EqualFold(ce, "identity") {
			writeProblem(c, newProblem(c, "unsupported-media", "Content-Encoding "+strconv.Quote(clip(ce))+" is not supported: send the body uncompressed"))
			return
		}
		// Every field of these endpoints is in the body: a query
		// parameter would be silently ignored.
		if raw := c.Request.URL.RawQuery; raw != "" {
			name, _, _ := strings.Cut(raw, "=")
			if q, err := url.ParseQuery(raw); err == nil {
				for n := range q {
					name = n
					break
				}
			}
			fail(c, service.Invalid(name, nil, "query parameter %q: this endpoint takes its fields in the JSON body only", clip(name)))
			return
		}
		c.Next()
	}
}

// swaggerCSP is the Swagger UI's content security policy: its scripts,
// styles and images from this server only (no inline script: the page
// has none; inline styles and data: images, which the UI sets), requests
// to this server only (the document, "Try it out"), no framing.
const swaggerCSP = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; " +
	"connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// securityHeaders sets the headers every answer carries: the strict
// content policy, or the Swagger UI's (swaggerCSP).
func securityHeaders() gin.HandlerFunc {
	return func(c *gin.Context) {
		h := c.Writer.Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "no-referrer")
		if strings.HasPrefix(c.Request.URL.Path, "/swagger/") {
			h.Set("Content-Security-Policy", swaggerCSP)
		} else {
			h.Set("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'")
		}
		c.Next()
	}
}

// withClient puts the client's id (its API key's hash, else its address)
// in the request's context: the jobs it starts count against its cap.
func withClient(keys *service.APIKeys) gin.HandlerFunc {
	return func(c *gin.Context) {
		id := keys.ClientID(apiKeyOf(c), c.ClientIP())
		c.Request = c.Request.WithContext(service.WithClient(c.Request.Context(), id))
		c.Next()
	}
}

// under runs h for the routes whose path starts with prefix only (none
// for a request no route takes).
func under(prefix string, h gin.HandlerFunc) gin.HandlerFunc {
	return func(c *gin.Context) {
		if strings.HasPrefix(c.FullPath(), prefix) {
			h(c)
			return
		}
		c.Next()
	}
}

// rateLimit refuses a client's requests beyond its rate with 429 and
// Retry-After; every answer carries the X-RateLimit-* headers.
func rateLimit(rl *service.RateLimiter, keys *service.APIKeys) gin.HandlerFunc {
	return func(c *gin.Context) {
		d := rl.Allow(c.Request.Context(), keys.ClientID(apiKeyOf(c), c.ClientIP()))
		if d.Limit > 0 {
			h := c.Writer.Header()
			h.Set("X-RateLimit-Limit", strconv.FormatInt(d.Limit, 10))
			h.Set("X-RateLimit-Remaining", strconv.FormatInt(d.Remaining, 10))
			h.Set("X-RateLimit-Reset", strconv.FormatInt(d.Reset.Unix(), 10))
		}
		if !d.Allowed {
			wait := max(time.Until(d.Reset), time.Second)
			fail(c, &service.Error{Kind: service.KindRateLimited, RetryAfter: wait,
				Message: fmt.Sprintf("more than %d requests in this period; retry after %ds", d.Limit, service.RetrySeconds(wait))})
			return
		}
		c.Next()
	}
}

// inFlight answers 429 to a client (API key, else address) with max
// requests under /v1 in flight already in this process: each holds a
// goroutine and its answer until the answer is written (all but the
// connection's send buffer read by the client), so a client that sends
// many and reads slowly (never stalling long enough for writeStall)
// pinned 400 answers of 2.5 MB, about 1 GB of socket buffers, within its
// rate limit. Job event streams, capped on their own, are not counted.
func inFlight(max int, keys *service.APIKeys) gin.HandlerFunc {
	var held clientCount
	return func(c *gin.Context) {
		if c.FullPath() == eventsRoute {
			c.Next()
			return
		}
		release, full, _ := held.take(keys.ClientID(apiKeyOf(c), c.ClientIP()), max, 0)
		if full {
			fail(c, &service.Error{Kind: service.KindRateLimited, RetryAfter: time.Second,
				Message: fmt.Sprintf("%d requests of this client are in flight, the most it may have at once: read their answers before sending more", max)})
			return
		}
		defer release()
		c.Next()
	}
}

const headerAPIKey = "X-API-Key"

// eventsRoute is the job events stream's route, the one that also takes
// its API key in the query (queryAPIKey): a browser's EventSource cannot
// send a header, and with API keys on it could not follow a job.
const (
	eventsRoute = "/v1/jobs/:id/events"
	queryAPIKey = "api_key"
)

// apiKeyOf is the request's API key: its X-API-Key header, or on the
// events stream without one, its api_key query parameter. (The access log
// writes paths without their query; a proxy in front may log URLs.)
func apiKeyOf(c *gin.Context) string {
	if k := c.GetHeader(headerAPIKey); k != "" || c.FullPath() != eventsRoute {
		return k
	}
	return c.Query(queryAPIKey)
}

// requireAPIKey answers 401 unless the request carries a valid X-API-Key.
func requireAPIKey(keys *service.APIKeys) gin.HandlerFunc {
	return func(c *gin.Context) {
		if !keys.Valid(apiKeyOf(c)) {
			msg := "this endpoint needs a valid API key in the X-API-Key header"
			if c.FullPath() == eventsRoute {
				msg += " (or, for an EventSource, which cannot send headers, in the api_key query parameter)"
			}
			refuseKey(c, msg)
			return
		}
		c.Next()
	}
}

// refuseKey answers 401 for a missing or unknown API key.
func refuseKey(c *gin.Context, msg string) {
	c.Header("WWW-Authenticate", `APIKey header="X-API-Key"`)
	fail(c, &service.Error{Kind: service.KindUnauthorized, Message: msg})
}

// noQuery is the middleware of the GET routes that take no query
// parameter: one would be silently ignored.
func noQuery(c *gin.Context) {
	if knownQuery(c) {
		c.Next()
	}
}

// knownQuery answers 400 when the query string has a parameter the route
// does not know, as unknown JSON fields are refused, or one given twice.
func knownQuery(c *gin.Context, known ...string) bool {
	for name, values := range c.Request.URL.Query() {
		if len(values) > 1 {
			fail(c, service.Invalid(name, nil, "query parameter %q is given %d times", name, len(values)))
			return false
		}
		ok := slices.Contains(known, name)
		switch {
		case !ok && len(known) == 0:
			fail(c, service.Invalid(name, nil, "unknown query parameter %q: this endpoint takes none", name))
			return false
		case !ok:
			fail(c, service.Invalid(name, nil, "unknown query parameter %q; known: %s", name, strings.Join(known, ", ")))
			return false
		}
	}
	return true
}
