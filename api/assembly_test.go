package api

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"go.uber.org/zap"

	"github.com/gamesolver/gamesolver/service"
	"github.com/gamesolver/gamesolver/service/cache"
)

// A big answer (the hexominoes opening with all_moves: 14,589 moves, or
// its move list) is assembled only with a place in the assembly gate,
// while small answers pass: a flood of big answers cannot take every core
// from the cheap requests. (Before the gate, 100 clients of the big
// answer multiplied a cheap request's p99 latency by 300-400:
// BENCHMARKS.md "Big answers".)
func TestBigAnswersWaitForAssembly(t *testing.T) {
	r, s := newGatedServer()
	for _, tc := range []struct {
		path, body string
		moves      func(body []byte) int
	}{
		{"/v1/polyomino/analyze", `{"game":"hexominoes","all_moves":true,"budget_ms":3000}`, func(b []byte) int {
			var a PolyominoAnalysis
			_ = json.Unmarshal(b, &a)
			if a.Moves == nil {
				return 0
			}
			return len(*a.Moves)
		}},
		{"/v1/polyomino/moves", `{"game":"hexominoes"}`, func(b []byte) int {
			var m PolyominoMovesResponse
			_ = json.Unmarshal(b, &m)
			return len(m.Moves)
		}},
	} {
		t.Run(tc.path, func(t *testing.T) {
			// Another big answer holds the only place.
			release, err := s.Assembly.Enter(context.Background(), true)
			if err != nil {
				t.Fatal(err)
			}
			big := make(chan int, 1)
			go func() {
				w := do(r, "POST", tc.path, "application/json", tc.body)
				if w.Code != 200 {
					t.Errorf("big answer: status %d %s", w.Code, w.Body)
				}
				big <- tc.moves(w.Body.Bytes())
			}()
			deadline := time.Now().Add(10 * time.Second)
			for testutil.ToFloat64(s.Metrics.AssemblyWaiting) != 1 {
				if time.Now().After(deadline) {
					t.Fatal("the big answer never waited for the gate")
				}
				time.Sleep(time.Millisecond)
			}
			// A small answer passes meanwhile.
			small := analyze(t, r, `{"width":5,"height":5,"pieces":"I,L","all_moves":true}`)
			if !small.Proven || small.Moves == nil || len(*small.Moves) == 0 {
				t.Errorf("small answer: %+v", small)
			}
			select {
			case n := <-big:
				t.Fatalf("the big answer (%d moves) was assembled without a place", n)
			default:
			}
			release()
			if n := <-big; n != 14589 {
				t.Errorf("big answer: %d moves, want 14589", n)
			}
		})
	}
}

// newGatedServer is a polyomino server whose assembly gate has one place.
func newGatedServer() (*gin.Engine, *service.Searcher) {
	gin.SetMode(gin.TestMode)
	reg := prometheus.NewRegistry()
	s := newSearcher(reg, 5*time.Second)
	s.Assembly = service.NewAssembly(1, s.Metrics)
	return New(Config{MaxBodyBytes: 64 << 10}, Deps{
		Log: zap.NewNop(), Registry: reg,
		Readiness: service.NewReadiness(cache.NewMemory(1<<20, 0)), Catalogue: &service.Catalogue{},
		Polyomino: service.NewPolyomino(s),
	}), s
}

// A job's big result (a tilings job listing 1,000 solutions: about 300
// KB) is converted and encoded, for GET /v1/jobs/{id} and for its event
// stream's final event, only with a place in the assembly gate, as the
// synchronous answer is; a job's small view passes meanwhile. (16 clients
// reading a 310 KB result had a cheap request's median latency at 163 ms.)
func TestBigJobResultsWaitForAssembly(t *testing.T) {
	srv, s := newJobServerOf(t, nil, zap.NewNop())
	create := func(request string) string {
		t.Helper()
		r := postJSON(t, srv.URL+"/v1/jobs", `{"type":"polyomino.tilings","request":`+request+`}`)
		defer r.Body.Close()
		var c JobCreated
		if err := json.NewDecoder(r.Body).Decode(&c); err != nil || r.StatusCode != http.StatusAccepted {
			t.Fatalf("create: %d %v", r.StatusCode, err)
		}
		return srv.URL + c.Href
	}
	get := func(url string) (status string, body []byte) {
		t.Helper()
		r, err := http.Get(url)
		if err != nil {
			t.Error(err)
			return "", nil
		}
		defer r.Body.Close()
		body, _ = io.ReadAll(r.Body)
		var j struct {
			Status string `json:"status"`
		}
		_ = json.Unmarshal(body, &j)
		return j.Status, body
	}
	done := func(url string) []byte {
		t.Helper()
		for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			if status, body := get(url); status == "done" {
				return body
			}
		}
		t.Fatalf("%s not done", url)
		return nil
	}
	bigURL := create(`{"width":10,"height":6,"limit":1000}`)
	if b := done(bigURL); len(b) < service.BigAnswerBytes {
		t.Fatalf("the big job's view: %d bytes", len(b))
	}
	smallURL := create(`{"width":5,"height":4,"pieces":"FILN"}`)
	done(smallURL)

	// Another big answer holds the only place.
	release, err := s.Assembly.Enter(context.Background(), true)
	if err != nil {
		t.Fatal(err)
	}
	answered := make(chan string, 2)
	go func() {
		_, body := get(bigURL)
		answered <- fmt.Sprintf("GET: %d bytes", len(body))
	}()
	go func() {
		r, err := http.Get(bigURL + "/events")
		if err != nil {
			t.Error(err)
			answered <- "events: " + err.Error()
			return
		}
		defer r.Body.Close()
		evs := readEvents(r.Body)
		answered <- fmt.Sprintf("events: %d", len(evs))
	}()
	deadline := time.Now().Add(10 * time.Second)
	for testutil.ToFloat64(s.Metrics.AssemblyWaiting) != 2 {
		if time.Now().After(deadline) {
			t.Fatalf("%v waiting for the gate, want the job's view and its event", testutil.ToFloat64(s.Metrics.AssemblyWaiting))
		}
		time.Sleep(time.Millisecond)
	}
	if status, _ := get(smallURL); status != "done" {
		t.Errorf("a small job's view while the gate is held: %q", status)
	}
	select {
	case a := <-answered:
		t.Fatalf("the big result was encoded without a place: %s", a)
	default:
	}
	release()
	for range 2 {
		select {
		case a := <-answered:
			t.Log(a)
		case <-time.After(10 * time.Second):
			t.Fatal("the big result never came after the gate was free")
		}
	}
}
