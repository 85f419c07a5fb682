package api

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/gamesolver/gamesolver/openapi"
	"github.com/gamesolver/gamesolver/service"
	"github.com/gamesolver/gamesolver/service/cache"
)

type echoRequest struct {
	Name  string   `json:"name"`
	Count int      `json:"count"`
	Tags  []string `json:"tags"`
	Inner *struct {
		Depth int `json:"depth"`
	} `json:"inner"`
}

// newTestServer builds the real router, plus test-only routes that decode
// a body and that panic, with logs captured.
func newTestServer(t *testing.T, cfg Config) (*gin.Engine, *observer.ObservedLogs, *prometheus.Registry) {
	t.Helper()
	gin.SetMode(gin.TestMode)
	core, logs := observer.New(zap.DebugLevel)
	reg := prometheus.NewRegistry()
	if cfg.MaxBodyBytes == 0 {
		cfg.MaxBodyBytes = 64 << 10
	}
	r := New(cfg, Deps{
		Log: zap.New(core), Registry: reg,
		Readiness: service.NewReadiness(cache.NewMemory(1<<20, 0)),
		Catalogue: &service.Catalogue{}, Version: "test", StartedAt: time.Now(),
	})
	r.POST("/test/echo", func(c *gin.Context) {
		var req echoRequest
		if decodeJSON(c, &req) {
			c.JSON(http.StatusOK, req)
		}
	})
	r.GET("/test/panic", func(c *gin.Context) { panic("boom") })
	r.GET("/test/invalid", func(c *gin.Context) {
		fail(c, service.Invalid("board", nil, "board row 3 has 9 cells, expected 8"))
	})
	r.GET("/test/busy", func(c *gin.Context) {
		fail(c, &service.Error{Kind: service.KindBusy, Message: "all slots busy", RetryAfter: 1500 * time.Millisecond})
	})
	r.GET("/test/limited", func(c *gin.Context) {
		fail(c, &service.Error{Kind: service.KindRateLimited, Message: "too many requests", RetryAfter: time.Second})
	})
	r.GET("/test/unavailable", func(c *gin.Context) {
		fail(c, &service.Error{Kind: service.KindUnavailable, Message: "jobs store unavailable: could not save the job", Cause: errors.New("i/o timeout")})
	})
	return r, logs, reg
}

func do(r http.Handler, method, path, contentType, body string, headers ...string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	sent := req.Clone(req.Context())
	sent.Body = http.NoBody
	w := httptest.NewRecorder()
	r.ServeHTTP(w, req)
	conform(sent, []byte(body), w.Code, w.Header(), w.Body.Bytes())
	return w
}

func decodeProblem(t *testing.T, w *httptest.ResponseRecorder) Problem {
	t.Helper()
	if ct := w.Header().Get("Content-Type"); ct != "application/problem+json" {
		t.Fatalf("Content-Type = %q, want application/problem+json (body %s)", ct, w.Body)
	}
	var p Problem
	if err := json.Unmarshal(w.Body.Bytes(), &p); err != nil {
		t.Fatalf("problem body %q: %v", w.Body, err)
	}
	if p.Status != w.Code || p.Type == "" || p.Title == "" || p.RequestID == "" {
		t.Fatalf("incomplete problem %+v for status %d", p, w.Code)
	}
	return p
}

func TestProblems(t *testing.T) {
	r, _, _ := newTestServer(t, Config{MaxBodyBytes: 2048})
	const js = "application/json"
	tests := []struct {
		name, method, path, ct, body string
		status                       int
		typ                          string
		field                        string // errors[0].field, when set
		detail                       string // substring of detail
	}{
		{"malformed JSON", "POST", "/test/echo", js, `{"name": }`, 400, "/problems/malformed-json", "", "malformed JSON at byte 10"},
		{"truncated JSON", "POST", "/test/echo", js, `{"name": "x"`, 400, "/problems/malformed-json", "", "ends too early"},
		{"empty body", "POST", "/test/echo", js, ``, 400, "/problems/malformed-json", "", "body is empty"},
		{"not an object", "POST", "/test/echo", js, `[1,2]`, 400, "/problems/malformed-json", "", "must be a JSON object, not an array"},
		{"unknown field", "POST", "/test/echo", js, `{"name":"a","colour":"red"}`, 400, "/problems/validation", "colour", `unknown field "colour"; known fields: name, count, tags, inner`},
		{"field name in another case", "POST", "/test/echo", js, `{"Name":"a"}`, 400, "/problems/validation", "Name", `field names are case-sensitive, did you mean "name"?`},
		{"nested field name in another case", "POST", "/test/echo", js, `{"inner":{"DEPTH":1}}`, 400, "/problems/validation", "inner.DEPTH", `did you mean "depth"?`},
		{"null body", "POST", "/test/echo", js, `null`, 400, "/problems/malformed-json", "", "must be a JSON object, not null"},
		{"string body", "POST", "/test/echo", js, ` "x"`, 400, "/problems/malformed-json", "", "must be a JSON object, not a string"},
		{"wrong type", "POST", "/test/echo", js, `{"count":"three"}`, 400, "/problems/validation", "count", "expected an integer, got a string"},
		{"wrong element type", "POST", "/test/echo", js, `{"tags":[1]}`, 400, "/problems/validation", "tags", "expected a string, got a number"},
		{"wrong nested type", "POST", "/test/echo", js, `{"inner":{"depth":1.5}}`, 400, "/problems/validation", "inner.depth", "expected an integer, got a number 1.5"},
		{"key twice", "POST", "/test/echo", js, `{"name":"a","count":1,"name":"b"}`, 400, "/problems/validation", "name", `"name" is given twice`},
		{"nested key twice", "POST", "/test/echo", js, `{"tags":["x"],"inner":{"depth":1,"depth":2}}`, 400, "/problems/validation", "inner.depth", "given twice"},
		{"null in a list", "POST", "/test/echo", js, `{"tags":["x",null]}`, 400, "/problems/validation", "tags", "element 2 is null"},
		{"trailing data", "POST", "/test/echo", js, `{"name":"a"} {"name":"b"}`, 400, "/problems/malformed-json", "", "after the JSON object"},
		{"trailing garbage", "POST", "/test/echo", js, `{"name":"a"}x`, 400, "/problems/malformed-json", "", "after the JSON object"},
		{"invalid UTF-8", "POST", "/test/echo", js, "{\"name\":\"a\xffb\"}", 400, "/problems/malformed-json", "", "not valid UTF-8 at byte 11 (0xFF)"},
		{"lone high surrogate", "POST", "/test/echo", js, `{"name":"\ud800x"}`, 400, "/problems/malformed-json", "", `\ud800 is half of a surrogate pair`},
		{"lone low surrogate", "POST", "/test/echo", js, `{"name":"\udc00"}`, 400, "/problems/malformed-json", "", `\udc00 is the second half`},
		{"oversized body", "POST", "/test/echo", js, `{"name":"` + strings.Repeat("a", 4096) + `"}`, 413, "/problems/body-too-large", "", "limit is 2048"},
		{"wrong content type", "POST", "/test/echo", "text/plain", `{}`, 415, "/problems/unsupported-media", "", `got Content-Type "text/plain"`},
		{"no content type", "POST", "/test/echo", "", `{}`, 415, "/problems/unsupported-media", "", "got no Content-Type"},
		{"query parameter on a GET without any", "GET", "/v1/games?foo=1", "", ``, 400, "/problems/validation", "foo", `unknown query parameter "foo": this endpoint takes none`},
		{"unknown route", "GET", "/v1/nothing", "", ``, 404, "/problems/not-found", "", "no route for GET /v1/nothing"},
		{"unknown route with body", "POST", "/v1/nothing", "text/plain", `x`, 404, "/problems/not-found", "", "no route"},
		{"long path", "GET", "/v1/" + strings.Repeat("x", 5000), "", ``, 404, "/problems/not-found", "", "…(5004 bytes)"},
		{"wrong method", "DELETE", "/healthz", "", ``, 405, "/problems/method-not-allowed", "", "DELETE is not allowed on /healthz; allowed: GET, HEAD"},
		{"wrong method with body", "POST", "/v1/games", "text/plain", `x`, 405, "/problems/method-not-allowed", "", "allowed: GET"},
		{"panic", "GET", "/test/panic", "", ``, 500, "/problems/internal", "", "could not be completed"},
		{"validation from service", "GET", "/test/invalid", "", ``, 400, "/problems/validation", "board", "row 3 has 9 cells"},
		{"busy", "GET", "/test/busy", "", ``, 503, "/problems/busy", "", "all slots busy"},
		{"store unavailable", "GET", "/test/unavailable", "", ``, 503, "/problems/unavailable", "", "jobs store unavailable"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := do(r, tt.method, tt.path, tt.ct, tt.body)
			if w.Code != tt.status {
				t.Fatalf("status = %d, want %d (body %s)", w.Code, tt.status, w.Body)
			}
			p := decodeProblem(t, w)
			if p.Type != tt.typ {
				t.Errorf("type = %q, want %q", p.Type, tt.typ)
			}
			if !strings.Contains(p.Detail, tt.detail) {
				t.Errorf("detail = %q, want it to contain %q", p.Detail, tt.detail)
			}
			if tt.field != "" && (len(p.Errors) == 0 || p.Errors[0].Field != tt.field) {
				t.Errorf("errors = %+v, want field %q", p.Errors, tt.field)
			}
			if path, _, _ := strings.Cut(tt.path, "?"); p.Instance != clipAt(path, maxLoggedPath) {
				t.Errorf("instance = %q, want %q", p.Instance, path)
			}
		})
	}
}

func TestStrictDecodeAcceptsGoodBody(t *testing.T) {
	r, _, _ := newTestServer(t, Config{})
	w := do(r, "POST", "/test/echo", "application/json; charset=utf-8", `{"name":"a","count":3,"tags":["x"],"inner":{"depth":2}}`+"\n")
	if w.Code != 200 {
		t.Fatalf("status %d: %s", w.Code, w.Body)
	}
	// null for a whole list is an absent field (null in a list is not).
	if w := do(r, "POST", "/test/echo", "application/json", `{"name":"a","tags":null}`); w.Code != 200 {
		t.Fatalf("tags null: status %d: %s", w.Code, w.Body)
	}
}

func TestRetryAfterOnBusy(t *testing.T) {
	r, _, _ := newTestServer(t, Config{})
	w := do(r, "GET", "/test/busy", "", "")
	if w.Header().Get("Retry-After") != "2" {
		t.Errorf("Retry-After = %q, want 2 (1.5s rounded up)", w.Header().Get("Retry-After"))
	}
	if p := decodeProblem(t, w); p.RetryAfterSeconds != 2 {
		t.Errorf("retry_after_seconds = %d", p.RetryAfterSeconds)
	}
}

func TestRequestID(t *testing.T) {
	r, logs, _ := newTestServer(t, Config{})
	tests := []struct {
		name, sent string
		echoed     bool
	}{
		{"echoed", "client-id-42", true},
		{"created when absent", "", false},
		{"replaced when too long", strings.Repeat("x", 200), false},
		{"replaced when it has spaces", "a b", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var h []string
			if tt.sent != "" {
				h = []string{"X-Request-ID", tt.sent}
			}
			w := do(r, "GET", "/healthz", "", "", h...)
			got := w.Header().Get("X-Request-ID")
			if tt.echoed && got != tt.sent {
				t.Errorf("X-Request-ID = %q, want %q", got, tt.sent)
			}
			if !tt.echoed && (got == "" || got == tt.sent) {
				t.Errorf("X-Request-ID = %q, want a new id", got)
			}
			entries := logs.FilterMessage("request").FilterField(zap.String("request_id", got)).All()
			if len(entries) != 1 {
				t.Fatalf("%d access log lines with request id %q, want 1", len(entries), got)
			}
		})
	}
}

func TestAccessLogFields(t *testing.T) {
	r, logs, _ := newTestServer(t, Config{})
	do(r, "POST", "/test/echo", "application/json", `{"name":"secret-body"}`, "X-API-Key", "k123")
	entries := logs.FilterMessage("request").All()
	if len(entries) != 1 {
		t.Fatalf("%d access log lines", len(entries))
	}
	f := entries[0].ContextMap()
	for _, k := range []string{"request_id", "method", "route", "path", "status", "latency", "bytes"} {
		if _, ok := f[k]; !ok {
			t.Errorf("access log lacks %q: %v", k, f)
		}
	}
	if f["route"] != "/test/echo" || f["status"] != int64(200) {
		t.Errorf("route/status = %v/%v", f["route"], f["status"])
	}
	line, _ := json.Marshal(f)
	if bytes.Contains(line, []byte("secret-body")) || bytes.Contains(line, []byte("k123")) {
		t.Errorf("access log leaks the body or the API key: %s", line)
	}
}

// TestAccessLogLevels: a 503 (load shed, table building) is a warning, a
// 500 an error, a 4xx information (the client's fault, not the server's);
// a probe or a scrape answered is routine: debug, and so is a 429 (a
// client's loop over its rate logged 950 lines a second). A problem's
// line names it (which 503, which 429).
func TestAccessLogLevels(t *testing.T) {
	r, logs, _ := newTestServer(t, Config{})
	for path, want := range map[string]zapcore.Level{"/test/busy": zapcore.WarnLevel, "/test/panic": zapcore.ErrorLevel, "/test/invalid": zapcore.InfoLevel, "/no/such/path": zapcore.InfoLevel, "/healthz": zapcore.DebugLevel, "/metrics": zapcore.DebugLevel, "/v1/games": zapcore.InfoLevel, "/test/limited": zapcore.DebugLevel} {
		do(r, "GET", path, "", "")
		e := logs.FilterMessage("request").FilterField(zap.String("path", path)).All()
		if len(e) != 1 || e[0].Level != want {
			t.Errorf("%s: %d lines, level %v, want %v", path, len(e), e, want)
		}
	}
	for path, want := range map[string][2]string{"/test/busy": {"busy", "all slots busy"}, "/test/unavailable": {"unavailable", "jobs store unavailable: could not save the job"},
		"/test/limited": {"rate-limited", "too many requests"}, "/test/invalid": {"validation", ""}, "/v1/games": {"", ""}} {
		do(r, "GET", path, "", "")
		e := logs.FilterMessage("request").FilterField(zap.String("path", path)).All()
		f := e[len(e)-1].ContextMap()
		// (A refusal's detail says which limit or queue; a 4xx's quotes
		// the client and stays out.)
		if problem, _ := f["problem"].(string); problem != want[0] {
			t.Errorf("%s: problem %q in the access line, want %q", path, problem, want[0])
		}
		if detail, _ := f["detail"].(string); detail != want[1] {
			t.Errorf("%s: detail %q in the access line, want %q", path, detail, want[1])
		}
	}
}

// TestAccessLogClientLeft: an answer whose client left before it was
// written says so in its access line (it read as a 200 served).
func TestAccessLogClientLeft(t *testing.T) {
	r, logs, _ := newTestServer(t, Config{})
	for _, left := range []bool{false, true} {
		ctx, cancel := context.WithCancel(context.Background())
		if left {
			cancel()
		}
		req := httptest.NewRequestWithContext(ctx, "GET", "/v1/games", nil)
		w := httptest.NewRecorder()
		r.ServeHTTP(w, req)
		cancel()
		e := logs.FilterMessage("request").All()
		if len(e) == 0 {
			t.Fatal("no access line")
		}
		f := e[len(e)-1].ContextMap()
		if got, _ := f["client_left"].(bool); got != left || f["status"] != int64(200) {
			t.Errorf("client left %v: access line %v", left, f)
		}
	}
	// A client that read the whole answer and closed the connection
	// before the line was written did not leave early (an operator's
	// audit found whole answers logged as left).
	written := make(chan struct{})
	r.GET("/test/read-then-closed", func(c *gin.Context) {
		c.String(http.StatusOK, "the whole answer")
		close(written)
		<-c.Request.Context().Done()
	})
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-written; cancel() }()
	r.ServeHTTP(httptest.NewRecorder(), httptest.NewRequestWithContext(ctx, "GET", "/test/read-then-closed", nil))
	f := logs.FilterMessage("request").FilterField(zap.String("path", "/test/read-then-closed")).All()[0].ContextMap()
	if _, ok := f["client_left"]; ok {
		t.Errorf("an answer read whole: access line %v", f)
	}
	// A handler that answers when its client left: left, every time (a
	// reviewer's: the end recorded by a goroutine of its own came after
	// the answer 2 times in 300).
	r.GET("/test/answers-when-left", func(c *gin.Context) {
		<-c.Request.Context().Done()
		c.String(http.StatusServiceUnavailable, "too late")
	})
	for range 100 {
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(time.Millisecond, cancel)
		r.ServeHTTP(httptest.NewRecorder(), httptest.NewRequestWithContext(ctx, "GET", "/test/answers-when-left", nil))
	}
	for _, e := range logs.FilterMessage("request").FilterField(zap.String("path", "/test/answers-when-left")).All() {
		if left, _ := e.ContextMap()["client_left"].(bool); !left {
			t.Fatalf("an answer written after its client left: access line %v", e.ContextMap())
		}
	}
}

// TestTrustedProxies: X-Forwarded-For names the client only when the peer
// is a trusted proxy (every peer by default, as gin does).
func TestTrustedProxies(t *testing.T) {
	for _, tc := range []struct {
		proxies []string
		want    string
	}{{nil, "203.0.113.7"}, {[]string{}, "192.0.2.1"}, {[]string{"192.0.2.0/24"}, "203.0.113.7"}, {[]string{"10.0.0.0/8"}, "192.0.2.1"}} {
		r, logs, _ := newTestServer(t, Config{TrustedProxies: tc.proxies})
		do(r, "GET", "/healthz", "", "", "X-Forwarded-For", "203.0.113.7")
		e := logs.FilterMessage("request").All()
		if len(e) != 1 || e[0].ContextMap()["client"] != tc.want {
			t.Errorf("proxies %v: client %v, want %s", tc.proxies, e, tc.want)
		}
	}
}

func TestPanicIsLoggedWithStack(t *testing.T) {
	r, logs, _ := newTestServer(t, Config{})
	do(r, "GET", "/test/panic", "", "")
	e := logs.FilterMessage("panic").All()
	if len(e) != 1 || !strings.Contains(e[0].ContextMap()["stack"].(string), "api_test.go") {
		t.Fatalf("panic log = %+v", e)
	}
}

func TestCORS(t *testing.T) {
	r, _, _ := newTestServer(t, Config{CORSOrigins: []string{"https://app.example"}})
	req := httptest.NewRequest("OPTIONS", "/v1/games", nil)
	req.Header.Set("Origin", "https://app.example")
	req.Header.Set("Access-Control-Request-Method", "POST")
	w := httptest.NewRecorder()
	r.ServeHTTP(w, req)
	if w.Code != http.StatusNoContent || w.Header().Get("Access-Control-Allow-Origin") != "https://app.example" {
		t.Errorf("preflight: %d %v", w.Code, w.Header())
	}
	// A revalidation (If-None-Match) passes the preflight, and the ETag
	// can be read.
	w = do(r, "OPTIONS", "/v1/games", "", "", "Origin", "https://app.example", "Access-Control-Request-Method", "GET", "Access-Control-Request-Headers", "if-none-match")
	if w.Code != http.StatusNoContent || !strings.Contains(strings.ToLower(w.Header().Get("Access-Control-Allow-Headers")), "if-none-match") {
		t.Errorf("preflight with If-None-Match: %d %v", w.Code, w.Header())
	}
	if w := do(r, "GET", "/v1/games", "", "", "Origin", "https://app.example"); !strings.Contains(w.Header().Get("Access-Control-Expose-Headers"), "Etag") {
		t.Errorf("ETag not exposed: %v", w.Header())
	}
	// Another origin is answered without CORS headers (a browser withholds
	// the answer), not with a bare 403 outside the problem contract; its
	// preflight is refused.
	w = do(r, "GET", "/healthz", "", "", "Origin", "https://evil.example")
	if w.Code != http.StatusOK || w.Header().Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("foreign origin: %d %v", w.Code, w.Header())
	}
	if w.Header().Get("Vary") != "Origin" {
		t.Errorf("foreign origin: Vary %q", w.Header().Get("Vary"))
	}
	w = do(r, "OPTIONS", "/v1/games", "", "", "Origin", "https://evil.example", "Access-Control-Request-Method", "GET")
	if w.Code != http.StatusMethodNotAllowed || w.Header().Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("foreign preflight: %d %v", w.Code, w.Header())
	} else {
		decodeProblem(t, w)
	}
	// Origins compare without case; an entry between slashes is a regular
	// expression the whole origin must match, anchored or not (a security
	// review's unanchored pattern allowed https://x.example.org.evil.com).
	rx, _, _ := newTestServer(t, Config{CORSOrigins: []string{"https://App.Example", `/^https://[a-z]+\.apps\.example$/`, `/https://[a-z]+\.other\.example/`}})
	for origin, want := range map[string]bool{"https://app.example": true, "https://x.apps.example": true, "https://x.apps.example.evil": false, "https://apps.example": false,
		"https://x.other.example": true, "https://x.other.example.evil.com": false, "http://evil/https://x.other.example": false} {
		w := do(rx, "GET", "/healthz", "", "", "Origin", origin)
		if got := w.Header().Get("Access-Control-Allow-Origin") == origin; got != want || w.Code != http.StatusOK {
			t.Errorf("origin %s: %d, allowed %v, want %v", origin, w.Code, got, want)
		}
	}
	w = do(r, "GET", "/healthz", "", "", "Origin", "https://app.example")
	if w.Header().Get("Access-Control-Allow-Origin") != "https://app.example" || !strings.Contains(w.Header().Get("Access-Control-Expose-Headers"), "X-Request-Id") {
		t.Errorf("allowed origin headers: %v", w.Header())
	}
	r2, _, _ := newTestServer(t, Config{})
	if w := do(r2, "GET", "/healthz", "", "", "Origin", "https://app.example"); w.Header().Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("CORS on without origins configured")
	}
}

func TestSecurityHeaders(t *testing.T) {
	r, _, _ := newTestServer(t, Config{})
	w := do(r, "GET", "/healthz", "", "")
	for h, want := range map[string]string{"X-Content-Type-Options": "nosniff", "X-Frame-Options": "DENY", "Referrer-Policy": "no-referrer"} {
		if got := w.Header().Get(h); got != want {
			t.Errorf("%s = %q, want %q", h, got, want)
		}
	}
	// The Swagger UI's own policy: its files and this server only.
	if w := do(r, "GET", "/swagger/index.html", "", ""); w.Code != 200 || w.Header().Get("Content-Security-Policy") != swaggerCSP {
		t.Errorf("swagger UI: %d, CSP %q", w.Code, w.Header().Get("Content-Security-Policy"))
	}
	for path, want := range map[string]int{"/swagger/index.html": 200, "/openapi.json": 200, "/swagger": 301, "/metrics": 200, "/swagger/doc.json": 200, "/v1/games": 200} {
		if w := do(r, "HEAD", path, "", ""); w.Code != want {
			t.Errorf("HEAD %s: %d, want %d", path, w.Code, want)
		}
	}
}

func TestMetrics(t *testing.T) {
	r, _, _ := newTestServer(t, Config{})
	do(r, "GET", "/healthz", "", "")
	do(r, "GET", "/no/such/route/1", "", "")
	do(r, "GET", "/no/such/route/2", "", "")
	// Methods outside HTTP's are one label (any token is a method to Go's
	// server); a 405 is labelled with the route its path matched.
	for i := range 3 {
		do(r, fmt.Sprintf("M%d", i), "/healthz", "", "")
	}
	do(r, "DELETE", "/healthz", "", "")
	w := do(r, "GET", "/metrics", "", "")
	body := w.Body.String()
	if strings.Contains(body, `method="M`) {
		t.Errorf("a method of the client's is a label: %s", body)
	}
	for _, want := range []string{
		`gamesolver_http_requests_total{method="GET",route="/healthz",status="200"} 1`,
		`gamesolver_http_requests_total{method="GET",route="unmatched",status="404"} 2`,
		`gamesolver_http_requests_total{method="OTHER",route="/healthz",status="405"} 3`,
		`gamesolver_http_requests_total{method="DELETE",route="/healthz",status="405"} 1`,
		`gamesolver_http_request_duration_seconds_bucket{method="GET",route="/healthz",status="200"`,
		`gamesolver_http_request_duration_seconds_count{method="GET",route="unmatched",status="404"} 2`,
		`gamesolver_http_requests_in_flight{route="/metrics"} 1`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
}

func TestServiceEndpoints(t *testing.T) {
	r, _, _ := newTestServer(t, Config{})
	tests := []struct {
		path, contains string
	}{
		{"/healthz", `"status":"ok"`},
		{"/readyz", `"backend":"memory"`},
		{"/v1/games", `"games":[]`},
		{"/openapi.json", `"swagger": "2.0"`},
		{"/swagger/index.html", "swagger-ui"},
		{"/problems/validation", `"status":400`},
	}
	for _, tt := range tests {
		w := do(r, "GET", tt.path, "", "")
		body, _ := io.ReadAll(w.Body)
		if w.Code != 200 || !strings.Contains(string(body), tt.contains) {
			t.Errorf("GET %s = %d %.200s; want 200 containing %s", tt.path, w.Code, body, tt.contains)
		}
	}
	for _, path := range []string{"/swagger", "/swagger/"} {
		if w := do(r, "GET", path, "", ""); w.Code != 301 || w.Header().Get("Location") != "/swagger/index.html" {
			t.Errorf("GET %s = %d to %q", path, w.Code, w.Header().Get("Location"))
		}
	}
	for _, path := range []string{"/healthz", "/readyz", "/problems/busy"} {
		if w := do(r, "HEAD", path, "", ""); w.Code != 200 {
			t.Errorf("HEAD %s = %d", path, w.Code)
		}
	}
	if w := do(r, "GET", "/problems/nope", "", ""); w.Code != 404 {
		t.Errorf("unknown problem type: %d", w.Code)
	}
	// A missing Swagger UI asset is a problem, as any unknown path is.
	for _, path := range []string{"/swagger/nonexist.js", "/swagger/../../etc/passwd", "/swagger/x/"} {
		w := do(r, "GET", path, "", "")
		var p Problem
		if err := json.Unmarshal(w.Body.Bytes(), &p); w.Code != 404 || err != nil || p.Type != "/problems/not-found" ||
			!strings.HasPrefix(w.Header().Get("Content-Type"), "application/problem+json") {
			t.Errorf("GET %s = %d %s %.200s", path, w.Code, w.Header().Get("Content-Type"), w.Body)
		}
	}
	// The served document is the committed one, without the empty host
	// and schemes of swag's template (invalid Swagger 2.0).
	w := do(r, "GET", "/openapi.json", "", "")
	var doc map[string]any
	if err := json.Unmarshal(w.Body.Bytes(), &doc); err != nil || !bytes.Equal(w.Body.Bytes(), openapi.JSON) {
		t.Errorf("served document differs from openapi/swagger.json (%v)", err)
	}
	if w := do(r, "GET", "/swagger/doc.json", "", ""); w.Code != 200 || !bytes.Equal(w.Body.Bytes(), openapi.JSON) {
		t.Errorf("/swagger/doc.json: %d, not the committed document", w.Code)
	}
	if _, ok := doc["host"]; ok {
		t.Errorf("host %q in the served document", doc["host"])
	}
}

func TestReadyzNotReady(t *testing.T) {
	// A router with a component still building.
	rd := service.NewReadiness(cache.NewMemory(1<<20, 0))
	p := 0.25
	rd.Add(func() service.Component { return service.Component{Name: "teeko", State: "building", Progress: &p} })
	r := New(Config{MaxBodyBytes: 1 << 16}, Deps{Registry: prometheus.NewRegistry(), Readiness: rd, Catalogue: &service.Catalogue{}})
	w := do(r, "GET", "/readyz", "", "")
	if w.Code != 503 || !strings.Contains(w.Body.String(), `"progress":0.25`) || w.Header().Get("Retry-After") == "" {
		t.Errorf("readyz while building = %d %s", w.Code, w.Body)
	}
}

// A key may repeat in different objects, and as a value; only a key given
// twice in one object is refused.
func TestDuplicateKeysOnlyWithinAnObject(t *testing.T) {
	r, _, _ := newTestServer(t, Config{MaxBodyBytes: 2048})
	for _, body := range []string{`{"name":"name","inner":{"depth":1},"tags":["depth","depth"]}`, `{"inner":{},"name":"x"}`, `{"tags":[],"inner":{"depth":2}}`} {
		if w := do(r, "POST", "/test/echo", "application/json", body); w.Code != 200 {
			t.Errorf("%s: %d %s", body, w.Code, w.Body)
		}
	}
}

// TestRequestShapeProblems: what a review found accepted or answered badly
// (each case now a clear problem): a query string on a JSON endpoint (it
// was silently ignored), a charset other than UTF-8, a compressed body
// (it was "malformed JSON"), a trailing slash (a bare 307), and a huge
// field name (repeated in full, three times).
func TestRequestShapeProblems(t *testing.T) {
	r, _, _ := newTestServer(t, Config{MaxBodyBytes: 1 << 20})
	const js = "application/json"
	long := strings.Repeat("x", 60000)
	tests := []struct {
		name, method, path, ct, body string
		headers                      []string
		status                       int
		typ, field, detail           string
	}{
		{"query parameter", "POST", "/test/echo?rules=advanced", js, `{}`, nil, 400, "/problems/validation", "rules", `query parameter "rules": this endpoint takes its fields in the JSON body only`},
		{"latin1", "POST", "/test/echo", js + "; charset=latin1", `{}`, nil, 415, "/problems/unsupported-media", "", `charset "latin1": JSON bodies are UTF-8`},
		{"gzip", "POST", "/test/echo", js, `{}`, []string{"Content-Encoding", "gzip"}, 415, "/problems/unsupported-media", "", `Content-Encoding "gzip" is not supported`},
		{"malformed query", "POST", "/test/echo?%zz", js, `{}`, nil, 400, "/problems/validation", "%zz", `query parameter "%zz"`},
		{"huge field name", "POST", "/test/echo", js, `{"` + long + `":1}`, nil, 400, "/problems/validation", "", `unknown field "xxxx`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := do(r, tt.method, tt.path, tt.ct, tt.body, tt.headers...)
			if w.Code != tt.status {
				t.Fatalf("status = %d, want %d (body %.300s)", w.Code, tt.status, w.Body)
			}
			if w.Body.Len() > 2000 {
				t.Errorf("a problem of %d bytes", w.Body.Len())
			}
			p := decodeProblem(t, w)
			if p.Type != tt.typ || !strings.Contains(p.Detail, tt.detail) {
				t.Errorf("%s %q, want %s containing %q", p.Type, p.Detail, tt.typ, tt.detail)
			}
			if tt.field != "" && (len(p.Errors) == 0 || p.Errors[0].Field != tt.field) {
				t.Errorf("errors = %+v, want field %q", p.Errors, tt.field)
			}
			if p.RequestID == "" {
				t.Error("no request id")
			}
		})
	}
	// A charset of UTF-8 is fine. A trailing slash is redirected, with a
	// request id now: GET for good, POST with its body (307).
	if w := do(r, "POST", "/test/echo", js+"; charset=UTF-8", `{"name":"a"}`); w.Code != 200 {
		t.Errorf("charset UTF-8: %d %s", w.Code, w.Body)
	}
	for _, tc := range []struct {
		method, path string
		code         int
		location     string
	}{
		{"GET", "/healthz/?x=1", http.StatusMovedPermanently, "/healthz?x=1"},
		{"POST", "/test/echo/", http.StatusTemporaryRedirect, "/test/echo"},
		{"GET", "//healthz/", http.StatusNotFound, ""},
		// An API key in the query is not repeated in a Location (a
		// review: cacheable, logged by proxies).
		{"GET", "/healthz/?api_key=secret", http.StatusNotFound, ""},
	} {
		w := do(r, tc.method, tc.path, js, `{}`)
		if w.Code != tc.code || w.Header().Get("Location") != tc.location || w.Header().Get("X-Request-ID") == "" {
			t.Errorf("%s %s: %d, Location %q, request id %q; want %d to %q", tc.method, tc.path, w.Code, w.Header().Get("Location"), w.Header().Get("X-Request-ID"), tc.code, tc.location)
		}
	}
}

func TestRouteMatches(t *testing.T) {
	for _, tc := range []struct {
		pattern, path string
		want          bool
	}{
		{"/v1/jobs/:id", "/v1/jobs/abc", true},
		{"/v1/jobs/:id", "/v1/jobs/", false},
		{"/v1/jobs/:id/events", "/v1/jobs/abc/events", true},
		{"/v1/jobs/:id/events", "/v1/jobs/abc", false},
		{"/swagger/*any", "/swagger/index.html", true},
		{"/healthz", "/healthz", true},
		{"/healthz", "/healthz/", false},
	} {
		if got := routeMatches(tc.pattern, tc.path); got != tc.want {
			t.Errorf("routeMatches(%q, %q) = %v", tc.pattern, tc.path, got)
		}
	}
}

func TestClipQuoted(t *testing.T) {
	long := strings.Repeat("é", 100) // 200 bytes
	tests := []struct{ in, want string }{
		{`short "abc" stays`, `short "abc" stays`},
		{fmt.Sprintf("unknown field %q; known: a, b; %q again", long, long),
			`unknown field "` + strings.Repeat("é", 32) + `…" (200 bytes); known: a, b; "` + strings.Repeat("é", 32) + `…" (200 bytes) again`},
		// Cut after a backslash: the escape is dropped, not left open.
		{fmt.Sprintf("%q", strings.Repeat(`"a`, 60)), `"` + strings.Repeat(`\"a`, 21) + `…" (180 bytes)`},
	}
	prose := strings.Repeat("x", 80)
	tests = append(tests, []struct{ in, want string }{
		// The text between two quoted strings is not a quoted string.
		{`field "a" then ` + prose + ` "b"`, `field "a" then ` + prose + ` "b"`},
		// A cut never splits an escape.
		{fmt.Sprintf("%q", strings.Repeat("a", 62)+"\x01"+strings.Repeat("a", 70)), `"` + strings.Repeat("a", 62) + `…" (136 bytes)`},
		{fmt.Sprintf("%q", strings.Repeat("a", 60)+"\u2028"+strings.Repeat("a", 70)), `"` + strings.Repeat("a", 60) + `…" (136 bytes)`},
	}...)
	for _, tt := range tests {
		if got := clipQuoted(tt.in); got != tt.want {
			t.Errorf("clipQuoted(%.80q...) =\n%s\nwant\n%s", tt.in, got, tt.want)
		}
	}
	if got := clip(long); got != strings.Repeat("é", 32)+"…(200 bytes)" {
		t.Errorf("clip = %q", got)
	}
}

// TestStalledBody: a client that sends part of its body and stalls gets,
// once the server's read timeout passes, a 408 problem that does not show
// the server's addresses (a black-box review found a 400 quoting them).
func TestStalledBody(t *testing.T) {
	r, _, _ := newTestServer(t, Config{})
	srv := httptest.NewUnstartedServer(r)
	srv.Config.ReadTimeout = 300 * time.Millisecond
	srv.Start()
	defer srv.Close()
	// Part of an object, or a whole one before the rest of the announced
	// length (a review found that one answered 400).
	for _, part := range []string{`{"name":`, `{"name":"a"}`} {
		conn, err := net.Dial("tcp", srv.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		fmt.Fprintf(conn, "POST /test/echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n%s", part)
		_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusRequestTimeout || !strings.Contains(string(body), "/problems/request-timeout") ||
			strings.Contains(string(body), "127.0.0.1") || !resp.Close {
			t.Errorf("%s: status %d, close %t, body %s", part, resp.StatusCode, resp.Close, body)
		}
	}
}

// TestRevalidation: the OpenAPI document and the games carry an ETag and
// Cache-Control: no-cache; a request with that ETag in If-None-Match is
// answered 304 without a body, one with another ETag gets the document.
func TestRevalidation(t *testing.T) {
	r, _, _ := newTestServer(t, Config{})
	for _, path := range []string{"/openapi.json", "/v1/games"} {
		w := do(r, "GET", path, "", "")
		etag := w.Header().Get("ETag")
		if w.Code != 200 || len(etag) < 10 || w.Header().Get("Cache-Control") != "no-cache" || w.Body.Len() == 0 {
			t.Fatalf("GET %s = %d, ETag %q, Cache-Control %q, %d bytes", path, w.Code, etag, w.Header().Get("Cache-Control"), w.Body.Len())
		}
		if !strings.HasPrefix(w.Header().Get("Content-Type"), "application/json") {
			t.Errorf("GET %s Content-Type %q", path, w.Header().Get("Content-Type"))
		}
		if again := do(r, "GET", path, "", ""); again.Header().Get("ETag") != etag {
			t.Errorf("GET %s: ETag changed from %s to %s", path, etag, again.Header().Get("ETag"))
		}
		if w := do(r, "GET", path, "", "", "If-None-Match", etag); w.Code != 304 || w.Body.Len() != 0 || w.Header().Get("ETag") != etag {
			t.Errorf("GET %s If-None-Match current = %d, %d bytes, ETag %q; want 304, empty", path, w.Code, w.Body.Len(), w.Header().Get("ETag"))
		}
		if w := do(r, "GET", path, "", "", "If-None-Match", `"stale", `+etag); w.Code != 304 {
			t.Errorf("GET %s If-None-Match list = %d, want 304", path, w.Code)
		}
		if w := do(r, "GET", path, "", "", "If-None-Match", `"stale"`); w.Code != 200 || w.Body.Len() == 0 {
			t.Errorf("GET %s If-None-Match stale = %d, %d bytes; want 200 with the body", path, w.Code, w.Body.Len())
		}
		if w := do(r, "HEAD", path, "", ""); w.Code != 200 || w.Header().Get("ETag") != etag {
			t.Errorf("HEAD %s = %d, ETag %q", path, w.Code, w.Header().Get("ETag"))
		}
		if w := do(r, "GET", path, "", "", "If-None-Match", "W/"+etag); w.Code != 304 {
			t.Errorf("GET %s If-None-Match weak = %d, want 304", path, w.Code)
		}
		// Ranges and other preconditions are not served: the whole
		// document (never a 206, 412 or 416 outside the API's problems).
		for _, h := range [][2]string{{"Range", "bytes=0-9"}, {"Range", "bytes=999999999-"}, {"If-Match", `"zzz"`}} {
			if w := do(r, "GET", path, "", "", h[0], h[1]); w.Code != 200 || w.Body.Len() == 0 || w.Header().Get("Content-Length") != strconv.Itoa(w.Body.Len()) {
				t.Errorf("GET %s %s: %s = %d, %d bytes (Content-Length %q); want 200 with the whole document", path, h[0], h[1], w.Code, w.Body.Len(), w.Header().Get("Content-Length"))
			}
		}
	}
}

// TestUnavailableLogsCause: a 503 for a store that failed logs why (the
// access line alone said 503, with the cause nowhere).
func TestUnavailableLogsCause(t *testing.T) {
	r, logs, _ := newTestServer(t, Config{})
	w := do(r, "GET", "/test/unavailable", "", "")
	if w.Code != http.StatusServiceUnavailable {
		t.Fatalf("status %d", w.Code)
	}
	found := logs.FilterMessage("unavailable").All()
	if len(found) != 1 || found[0].Level != zap.WarnLevel || !strings.Contains(fmt.Sprint(found[0].ContextMap()["error"]), "i/o timeout") || found[0].ContextMap()["request_id"] == nil {
		t.Fatalf("log entries %+v", found)
	}
}

// TestResponseControllerReachesConnection: through the access log's writer
// a handler still reaches the connection (closeUnread sets its read
// deadline so that a refused body is not waited for).
func TestResponseControllerReachesConnection(t *testing.T) {
	r, _, _ := newTestServer(t, Config{})
	r.GET("/test/deadline", func(c *gin.Context) {
		err := http.NewResponseController(c.Writer).SetReadDeadline(time.Now().Add(time.Minute))
		c.String(http.StatusOK, "%v", err)
	})
	srv := httptest.NewServer(r)
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/test/deadline")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if body, _ := io.ReadAll(resp.Body); string(body) != "<nil>" {
		t.Errorf("SetReadDeadline: %s", body)
	}
}

// TestUnreadAnswerCutOff: a client that does not read a big answer is cut
// off once a write has stalled for writeStall (a load audit kept 200
// answers of 1.3 MB unread: their goroutines and socket buffers held for
// ever); the next request on a kept connection is not cut by the deadline
// the last answer had.
func TestUnreadAnswerCutOff(t *testing.T) {
	defer func(d time.Duration) { writeStall = d }(writeStall)
	writeStall = 300 * time.Millisecond
	r, _, _ := newTestServer(t, Config{})
	ended := make(chan error, 1)
	r.GET("/test/big", func(c *gin.Context) {
		_, err := c.Writer.Write(bytes.Repeat([]byte("x"), 64<<20))
		ended <- err
	})
	r.GET("/test/small", func(c *gin.Context) { c.String(http.StatusOK, "ok") })
	r.GET("/test/none", func(c *gin.Context) { c.Status(http.StatusNoContent) })
	srv := httptest.NewServer(r)
	defer srv.Close()
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "GET /test/big HTTP/1.1\r\nHost: x\r\n\r\n") // and nothing read
	select {
	case err := <-ended:
		if err == nil {
			t.Error("64 MB written to a client that reads nothing")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the write to a client that reads nothing is still blocked")
	}
	// A client that reads slowly but steadily gets the whole answer,
	// though it takes many times writeStall (a reviewer's: one deadline
	// for the whole write cut it off).
	r.GET("/test/steady", func(c *gin.Context) { _, _ = c.Writer.Write(bytes.Repeat([]byte("y"), 16<<20)) })
	resp, err := http.Get(srv.URL + "/test/steady")
	if err != nil {
		t.Fatal(err)
	}
	got, buf := 0, make([]byte, 256<<10)
	for {
		n, err := io.ReadFull(resp.Body, buf)
		got += n
		if err != nil {
			break
		}
		time.Sleep(writeStall / 10)
	}
	resp.Body.Close()
	if got != 16<<20 {
		t.Errorf("a steady reader got %d bytes of %d", got, 16<<20)
	}
	// A kept connection: its second request, an answer without a body
	// (no write of its own sets a deadline), comes after the first
	// answer's deadline passed (net/http clears it).
	client := srv.Client()
	for _, path := range []string{"/test/small", "/test/none"} {
		resp, err := client.Get(srv.URL + path)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		_, _ = io.ReadAll(resp.Body)
		resp.Body.Close()
		time.Sleep(2 * writeStall)
	}
}
