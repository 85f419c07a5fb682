package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/gamesolver/gamesolver/service/redistest"
	"github.com/gamesolver/gamesolver/service/servicetest"
)

func get(t *testing.T, url string, headers ...string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, string(b)
}

// TestRateLimitSharedThroughRedis: two replicas on one Redis count a
// client's requests together; a third request of 2 per minute is refused
// with 429, Retry-After and problem+json. Health checks are not limited.
func TestRateLimitSharedThroughRedis(t *testing.T) {
	srv := redistest.Start(t)
	// Clients are told apart by API key: "probe" waits for the Redis
	// store, "alice" is counted.
	env := map[string]string{"REDIS_URL": srv.URL(), "GAMESOLVER_REDIS_TIMEOUT": redisTestTimeout, "GAMESOLVER_RATE_LIMIT": "2-M", "GAMESOLVER_API_KEYS": "probe,alice"}
	a := startApp(t, env)
	b := startApp(t, env)
	for _, base := range []string{a, b} {
		waitUntil(t, func() bool {
			_ = redisClient(t, srv.URL()).FlushAll(context.Background())
			resp, _ := get(t, base+"/v1/games", "X-API-Key", "probe")
			// Only the shared store writes gs:rate keys.
			return resp.StatusCode == 200 && len(redisClient(t, srv.URL()).Keys(context.Background(), "gs:rate*").Val()) > 0
		})
	}
	var codes []int
	for _, base := range []string{a, b, a, b} {
		resp, body := get(t, base+"/v1/games", "X-API-Key", "alice")
		codes = append(codes, resp.StatusCode)
		if resp.StatusCode == 429 && (resp.Header.Get("Retry-After") == "" || !strings.Contains(body, "/problems/rate-limited")) {
			t.Errorf("429 without Retry-After or problem: %v %s", resp.Header, body)
		}
	}
	if fmt.Sprint(codes) != "[200 200 429 429]" {
		t.Errorf("statuses across two replicas %v, want [200 200 429 429]: the limit is shared", codes)
	}
	if resp, _ := get(t, a+"/healthz"); resp.StatusCode != 200 {
		t.Errorf("healthz limited: %d", resp.StatusCode)
	}
}

// TestRateLimitInMemory: a client's requests beyond the rate get 429;
// a body refused (413, 415) counts too, and carries the X-RateLimit-*
// headers, as every answer under /v1 does.
func TestRateLimitInMemory(t *testing.T) {
	base := startApp(t, map[string]string{"GAMESOLVER_RATE_LIMIT": "5-M", "GAMESOLVER_MAX_BODY": "1024"})
	var codes []int
	check := func(resp *http.Response, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		codes = append(codes, resp.StatusCode)
		if resp.Header.Get("X-RateLimit-Limit") != "5" || resp.Header.Get("X-RateLimit-Remaining") == "" || resp.Header.Get("X-RateLimit-Reset") == "" {
			t.Errorf("%d without the rate limit's headers: %v", resp.StatusCode, resp.Header)
		}
	}
	check(http.Get(base + "/v1/games"))
	check(http.Post(base+"/v1/polyomino/analyze", "text/plain", strings.NewReader(`{}`)))
	check(http.Post(base+"/v1/polyomino/analyze", "application/json", strings.NewReader(`{"game":"`+strings.Repeat("x", 2000)+`"}`)))
	for i := 0; i < 3; i++ {
		check(http.Get(base + "/v1/games"))
	}
	if fmt.Sprint(codes) != "[200 415 413 200 200 429]" {
		t.Errorf("statuses %v", codes)
	}
}

func TestAPIKeysGuardJobs(t *testing.T) {
	base := startApp(t, map[string]string{"GAMESOLVER_API_KEYS": "k1,k2"})
	post := func(key string) int {
		return postWithKey(t, base+"/v1/jobs", `{"type":"polyomino.tilings","request":{"width":5,"height":12}}`, key)
	}
	if c := post(""); c != 401 {
		t.Errorf("no key: %d", c)
	}
	if c := post("wrong"); c != 401 {
		t.Errorf("wrong key: %d", c)
	}
	if c := post("k2"); c != 202 {
		t.Errorf("good key: %d", c)
	}
	if resp, _ := get(t, base+"/v1/games"); resp.StatusCode != 200 {
		t.Errorf("other routes need no key: %d", resp.StatusCode)
	}
	// Analyze's background option starts a job: it needs the key too (a
	// job started without one could not be read), the analysis itself not.
	analyze := `{"game":"pentominoes","width":7,"height":7,"budget_ms":50,"background":true}`
	if c := postWithKey(t, base+"/v1/polyomino/analyze", analyze, ""); c != 401 {
		t.Errorf("background without a key: %d", c)
	}
	if c := postWithKey(t, base+"/v1/polyomino/analyze", analyze, "k1"); c != 200 {
		t.Errorf("background with a key: %d", c)
	}
	if c := postWithKey(t, base+"/v1/polyomino/analyze", strings.Replace(analyze, "true", "false", 1), ""); c != 200 {
		t.Errorf("no background, no key: %d", c)
	}
	// A browser's EventSource cannot send the header: the events stream
	// takes the key in its query too (an audit found it unusable from a
	// page with keys on); no other route does.
	req, _ := http.NewRequest("POST", base+"/v1/jobs", strings.NewReader(`{"type":"polyomino.tilings","request":{"width":5,"height":12}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-API-Key", "k1")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var job struct{ ID string }
	err = json.NewDecoder(resp.Body).Decode(&job)
	resp.Body.Close()
	if err != nil || job.ID == "" {
		t.Fatalf("submit: %v", err)
	}
	for _, tc := range []struct {
		path   string
		status int
	}{
		{"/v1/jobs/" + job.ID + "/events?api_key=k1", 200},
		{"/v1/jobs/" + job.ID + "/events?api_key=wrong", 401},
		{"/v1/jobs/" + job.ID + "/events", 401},
		{"/v1/jobs/" + job.ID + "/events?api_key=k1&other=1", 400},
		{"/v1/jobs/" + job.ID + "?api_key=k1", 401},
	} {
		resp, body := get(t, base+tc.path) // the stream ends with the job
		if resp.StatusCode != tc.status || tc.status == 200 && !strings.Contains(body, "event:done") {
			t.Errorf("GET %s: %d %.300s; want %d", tc.path, resp.StatusCode, body, tc.status)
		}
	}
}

// postWithKey posts a JSON body with an X-API-Key (none when key is empty)
// and returns the status.
func postWithKey(t *testing.T, url, body, key string) int {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("X-API-Key", key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestHostileRequests: each is answered at once with a 4xx problem+json.
func TestHostileRequests(t *testing.T) {
	base := startApp(t, nil, "--max-budget", "2s", "--default-budget", "1s")
	deep := strings.Repeat("[", 30000) + strings.Repeat("]", 30000)
	tests := []struct {
		name, method, path, ct, body string
		status                       int
	}{
		{"huge body", "POST", "/v1/teeko/analyze", "application/json", `{"board":"` + strings.Repeat("b", 1<<20) + `"}`, 413},
		{"deeply nested", "POST", "/v1/teeko/analyze", "application/json", `{"moves":` + deep + `}`, 400},
		{"deeply nested object", "POST", "/v1/polyomino/analyze", "application/json", strings.Repeat(`{"a":`, 10000) + strings.Repeat("}", 10000), 400},
		{"wrong types", "POST", "/v1/polyomino/analyze", "application/json", `{"width":"eight","moves":7}`, 400},
		{"null body", "POST", "/v1/teeko/annotate", "application/json", `null`, 400},
		{"impossible teeko", "POST", "/v1/teeko/analyze", "application/json", `{"black":[1,2,3,4],"red":[21,22,23,24],"to_move":"red"}`, 400},
		{"impossible board", "POST", "/v1/polyomino/analyze", "application/json", `{"board":["LLLL....","L.......","LLLL....","L.......","........","........","........","........"]}`, 400},
		{"enormous numbers", "POST", "/v1/polyomino/tilings", "application/json", `{"width":99999999999999999999,"height":6}`, 400},
		{"enormous board", "POST", "/v1/polyomino/analyze", "application/json", `{"width":1000000,"height":1000000}`, 400},
		{"long move list", "POST", "/v1/teeko/annotate", "application/json", `{"moves":[` + strings.Repeat(`"13",`, 5000) + `"13"]}`, 400},
		{"unknown route", "GET", "/v1/chess/analyze", "", ``, 404},
		{"path traversal", "GET", "/v1/jobs/..%2f..%2fetc%2fpasswd", "", ``, 404},
		{"wrong method", "PUT", "/v1/teeko/analyze", "application/json", `{}`, 405},
		{"form body", "POST", "/v1/teeko/analyze", "application/x-www-form-urlencoded", `rules=standard`, 415},
		{"invalid UTF-8", "POST", "/v1/teeko/analyze", "application/json", "{\"board\":\"\xff\xfe\"}", 400},
		{"control characters", "POST", "/v1/polyomino/moves", "application/json", "{\"moves\":[\"L:\\u0000a1\"]}", 400},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest(tt.method, base+tt.path, strings.NewReader(tt.body))
			if tt.ct != "" {
				req.Header.Set("Content-Type", tt.ct)
			}
			start := time.Now()
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if took := time.Since(start); took > time.Second {
				t.Errorf("answered in %v", took)
			}
			if resp.StatusCode != tt.status || resp.Header.Get("Content-Type") != "application/problem+json" {
				t.Errorf("%d %s: %.300s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
			}
		})
	}
	// A body over the limit that never arrives whole (a Content-Length
	// above the limit, or chunks past it without an end) gets its 413 at
	// once, not after the server's read timeout (30 s: net/http tried to
	// read the rest of the body to keep the connection).
	addr := strings.TrimPrefix(base, "http://")
	for name, head := range map[string]string{
		"a length over the limit": "Content-Length: 100000\r\n\r\n{\"moves\":[",
		"chunks past the limit":   "Transfer-Encoding: chunked\r\n\r\n11170\r\n{\"board\":\"" + strings.Repeat("b", 70000-10),
	} {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(conn, "POST /v1/teeko/analyze HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n%s", head)
		_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
		line, err := io.ReadAll(io.LimitReader(conn, 12))
		if err != nil || string(line) != "HTTP/1.1 413" {
			t.Errorf("%s: %q, %v; want a 413 at once", name, line, err)
		}
		// And the server closes the connection, without waiting for the
		// rest of the body (it read on until its read timeout): an end,
		// or a reset for the chunks it did not read.
		if _, err := io.ReadAll(conn); err != nil && !errors.Is(err, syscall.ECONNRESET) {
			t.Errorf("%s: the connection stays open: %v", name, err)
		}
		conn.Close()
	}
	// An enormous budget is capped: the answer comes within the cap.
	start := time.Now()
	resp, err := http.Post(base+"/v1/polyomino/analyze", "application/json", strings.NewReader(`{"game":"hexominoes","budget_ms":999999999999}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if took := time.Since(start); resp.StatusCode != 200 || took > 5*time.Second {
		t.Errorf("capped budget: %d after %v", resp.StatusCode, took)
	}
}

// TestGracefulShutdown: on shutdown a request in flight finishes with its
// answer, new connections are refused, and the log's last line says the
// drain is over.
func TestGracefulShutdown(t *testing.T) {
	servicetest.Teeko(t)
	cfg, err := parseConfig("serve", []string{"--data-dir", appDataDir(t), "--shutdown-grace", "10s"}, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	core, logs := observer.New(zap.InfoLevel)
	a, err := build(ctx, cfg, zap.New(core))
	if err != nil {
		t.Fatal(err)
	}
	defer a.close()
	a.handler = conforming(t, a.handler)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	done := make(chan error, 1)
	go func() { done <- a.serve(ctx, ln) }()
	waitUntil(t, func() bool { code, _ := getReady(t, base); return code == 200 })

	var wg sync.WaitGroup
	wg.Add(1)
	var status int
	go func() {
		defer wg.Done()
		// A search that takes its whole 1.5 s budget.
		resp, err := http.Post(base+"/v1/polyomino/analyze", "application/json", strings.NewReader(`{"game":"hexominoes","budget_ms":1500}`))
		if err == nil {
			status = resp.StatusCode
			resp.Body.Close()
		}
	}()
	// SIGTERM once the request is in flight (a sleep raced a slow start).
	waitUntil(t, func() bool {
		return strings.Contains(metrics(t, base), `gamesolver_http_requests_in_flight{route="/v1/polyomino/analyze"} 1`)
	})
	cancel() // SIGTERM
	wg.Wait()
	if status != 200 {
		t.Errorf("request in flight during shutdown: status %d", status)
	}
	if err := <-done; err != nil {
		t.Errorf("serve: %v", err)
	}
	if _, err := http.Get(base + "/healthz"); err == nil {
		t.Error("server still accepts connections after shutdown")
	}
	all := logs.All()
	if last := all[len(all)-1]; last.Message != "stopped" || last.ContextMap()["requests_cut"] != false {
		t.Errorf("the log's last line: %q %v; want stopped, no request cut", last.Message, last.ContextMap())
	}
}

// TestWorkerMetrics: a worker process serves its metrics (the job units'
// among them, which only workers run on a deployment whose API pods run
// none) and a liveness check on --metrics-addr; it had no listener, and
// could not be scraped.
func TestWorkerMetrics(t *testing.T) {
	srv := redistest.Start(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	cfg, err := parseConfig("worker", []string{"--data-dir", appDataDir(t), "--metrics-addr", addr}, func(k string) string {
		return map[string]string{"REDIS_URL": srv.URL()}[k]
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- runWorker(ctx, cfg, zap.NewNop()) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("worker: %v", err)
		}
	}()
	base := "http://" + addr
	waitUntil(t, func() bool {
		resp, err := http.Get(base + "/healthz")
		if err == nil {
			resp.Body.Close()
		}
		return err == nil && resp.StatusCode == 200
	})
	_, body := get(t, base+"/metrics")
	for _, name := range []string{"gamesolver_solver_slots_in_use", "go_goroutines", "process_resident_memory_bytes", "gamesolver_build_info{"} {
		if !strings.Contains(body, name) {
			t.Errorf("metrics without %s", name)
		}
	}
}
