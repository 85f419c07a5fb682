package api

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"

	"github.com/gamesolver/gamesolver/service"
	"github.com/gamesolver/gamesolver/service/cache"
)

// TestClientRequestsInFlight: a client (here an address) with
// MaxClientRequests requests under /v1 in flight gets 429 with
// Retry-After for the next, until one of them is answered; another client
// is not held back, nor are paths outside /v1, nor job event streams
// (capped on their own).
func TestClientRequestsInFlight(t *testing.T) {
	gin.SetMode(gin.TestMode)
	r := New(Config{MaxBodyBytes: 64 << 10, MaxClientRequests: 2}, Deps{
		Log: zap.NewNop(), Registry: prometheus.NewRegistry(), Readiness: service.NewReadiness(cache.NewMemory(1<<20, 0)), Catalogue: &service.Catalogue{},
	})
	release := make(chan struct{})
	entered := make(chan struct{}, 8)
	block := func(c *gin.Context) {
		entered <- struct{}{}
		<-release
		c.String(http.StatusOK, "done")
	}
	r.GET("/v1/test/block", block)
	r.GET("/test/block", block)
	r.GET(eventsRoute, block) // stands in for the stream
	serve := func(path, client string) *httptest.ResponseRecorder {
		req := httptest.NewRequest("GET", path, nil)
		req.RemoteAddr = client + ":1234"
		w := httptest.NewRecorder()
		r.ServeHTTP(w, req)
		return w
	}
	held := make(chan *httptest.ResponseRecorder, 8)
	hold := func(path, client string) {
		go func() { held <- serve(path, client) }()
		select {
		case <-entered:
		case <-time.After(5 * time.Second):
			t.Fatalf("%s from %s never reached its handler", path, client)
		}
	}
	hold("/v1/test/block", "192.0.2.1")
	hold("/v1/test/block", "192.0.2.1")
	third := make(chan *httptest.ResponseRecorder, 1)
	go func() { third <- serve("/v1/test/block", "192.0.2.1") }()
	var w *httptest.ResponseRecorder
	select {
	case w = <-third:
	case <-entered:
		close(release)
		t.Fatal("a third request in flight reached its handler")
	}
	var p Problem
	if err := json.Unmarshal(w.Body.Bytes(), &p); w.Code != http.StatusTooManyRequests || err != nil || p.Type != "/problems/rate-limited" || w.Header().Get("Retry-After") != "1" {
		t.Fatalf("a third request in flight: %d %s, Retry-After %q", w.Code, w.Body, w.Header().Get("Retry-After"))
	}
	// Not counted: another client, a path outside /v1, an event stream.
	hold("/v1/test/block", "192.0.2.2")
	hold("/test/block", "192.0.2.1")
	hold("/v1/jobs/x/events", "192.0.2.1")
	close(release)
	for range 5 {
		if w := <-held; w.Code != http.StatusOK {
			t.Errorf("a request held: %d %s", w.Code, w.Body)
		}
	}
	// Answered, they leave the count.
	if w := serve("/v1/test/block", "192.0.2.1"); w.Code != http.StatusOK {
		t.Errorf("after the answers: %d %s", w.Code, w.Body)
	}
}
