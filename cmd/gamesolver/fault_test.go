package main

import (
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gamesolver/gamesolver/service/redistest"
)

// TestRedisFaultUnderLoad kills Redis while clients hammer the server and
// restarts it: no answer is a 5xx, and afterwards the cache is in use again.
func TestRedisFaultUnderLoad(t *testing.T) {
	srv := redistest.Start(t)
	base := startApp(t, map[string]string{"REDIS_URL": srv.URL(), "GAMESOLVER_REDIS_TIMEOUT": redisTestTimeout, "GAMESOLVER_RATE_LIMIT": "off"})
	bodies := []struct{ path, body string }{
		{"/v1/teeko/analyze", `{"moves":["13","7"]}`},
		{"/v1/polyomino/tilings", `{"width":10,"height":6}`},
		{"/v1/polyomino/tilings", `{"width":12,"height":5,"limit":2}`},
		{"/v1/polyomino/analyze", `{"game":"tetrominoes"}`},
		{"/v1/polyomino/moves", `{}`},
	}
	ctx, cancel := context.WithCancel(context.Background())
	var total, bad atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < 6; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := w; ctx.Err() == nil; i++ {
				b := bodies[i%len(bodies)]
				resp, err := http.Post(base+b.path, "application/json", strings.NewReader(b.body))
				if err != nil {
					bad.Add(1)
					continue
				}
				problem, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				total.Add(1)
				// A busy refusal is load shedding (six clients on a
				// loaded machine), not Redis's failure: any other 5xx is.
				if resp.StatusCode >= 500 && !(resp.StatusCode == 503 && strings.Contains(string(problem), `"/problems/busy"`)) {
					bad.Add(1)
					t.Errorf("%s %s: %d %s", b.path, b.body, resp.StatusCode, problem)
				}
			}
		}(w)
	}
	time.Sleep(time.Second)
	srv.Kill()
	time.Sleep(1500 * time.Millisecond)
	srv.Restart()
	time.Sleep(1500 * time.Millisecond)
	cancel()
	wg.Wait()
	if bad.Load() != 0 || total.Load() < 50 {
		t.Errorf("%d requests, %d failed or 5xx", total.Load(), bad.Load())
	}
	waitUntil(t, func() bool { _, rb := getReady(t, base); return rb.Cache.Reachable })
	// The cache is used again: a new answer worth caching lands in Redis.
	resp, err := http.Post(base+"/v1/polyomino/tilings", "application/json", strings.NewReader(`{"width":10,"height":6,"limit":7}`))
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("after restart: %v", err)
	}
	resp.Body.Close()
	keys := redisClient(t, srv.URL()).Keys(context.Background(), "gs:tiling:*limit=7*").Val()
	if len(keys) != 1 {
		t.Errorf("the answer after Redis came back is not in Redis: %v", keys)
	}
}
