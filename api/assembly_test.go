package api

import (
	"context"
	"encoding/json"
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
