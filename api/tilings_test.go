package api

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"

	"github.com/gamesolver/gamesolver/service"
	"github.com/gamesolver/gamesolver/service/cache"
)

func newSearcher(reg *prometheus.Registry, maxBudget time.Duration) *service.Searcher {
	m := service.NewMetrics(reg)
	return &service.Searcher{
		Loader:  cache.NewLoader(cache.NewMemory(1<<24, 0), 0),
		Slots:   service.NewSlots(2, 4, time.Second, m),
		Budgets: service.Budgets{Default: maxBudget, Max: maxBudget},
		Metrics: m,
	}
}

func newTilingServer(t *testing.T) *gin.Engine {
	t.Helper()
	gin.SetMode(gin.TestMode)
	reg := prometheus.NewRegistry()
	return New(Config{MaxBodyBytes: 64 << 10}, Deps{
		Log: zap.NewNop(), Registry: reg,
		Readiness: service.NewReadiness(cache.NewMemory(1<<20, 0)), Catalogue: &service.Catalogue{},
		Tilings: service.NewTilings(newSearcher(reg, 30*time.Second)),
	})
}

func TestTilings(t *testing.T) {
	r := newTilingServer(t)
	tests := []struct {
		name, body      string
		count, countAll int64
		symmetries      int
	}{
		{"6x10", `{"width":10,"height":6,"limit":3}`, 2339, 9356, 4},
		{"3x20", `{"width":20,"height":3,"limit":3}`, 2, 8, 4},
		{"4x15 with an empty board list (taken as absent)", `{"width":15,"height":4,"board":[],"limit":3}`, 368, 1472, 4},
		{"8x8 centre hole as board", `{"board":["........","........","........","...##...","...##...","........","........","........"],"limit":2}`, 65, 520, 8},
		{"pieces as a list", `{"width":4,"height":2,"pieces":["I","I"],"order":4,"multiset":true}`, 1, 1, 4},
		{"hexomino pair as a list", `{"width":6,"height":2,"pieces":["H01","H01"],"multiset":true}`, 1, 1, 4},
		{"tetromino 4x5 with leftover", `{"width":5,"height":4,"pieces":"tetrominoes","allow_leftover":true}`, 0, 0, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := do(r, "POST", "/v1/polyomino/tilings", "application/json", tt.body)
			if w.Code != 200 {
				t.Fatalf("status %d: %s", w.Code, w.Body)
			}
			var res TilingsResponse
			if err := json.Unmarshal(w.Body.Bytes(), &res); err != nil {
				t.Fatal(err)
			}
			if res.Count != tt.count || res.CountAll != tt.countAll || res.Symmetries != tt.symmetries || !res.Complete {
				t.Errorf("count %d/%d sym %d complete %v; want %d/%d sym %d", res.Count, res.CountAll, res.Symmetries, res.Complete, tt.count, tt.countAll, tt.symmetries)
			}
			var req TilingsRequest
			_ = json.Unmarshal([]byte(tt.body), &req)
			if want := min(int64(req.Limit), tt.count); int64(len(res.Solutions)) != want || len(res.Placements) != len(res.Solutions) {
				t.Errorf("%d solutions and %d placements, want %d", len(res.Solutions), len(res.Placements), want)
			}
			for _, sol := range res.Solutions {
				if len(sol) != len(res.Region) || strings.Contains(strings.Join(sol, ""), ".") {
					t.Errorf("solution %v does not cover region %v", sol, res.Region)
				}
			}
			if res.Source != "search" || res.Stats.Nodes == nil {
				t.Errorf("first answer source %q nodes %v", res.Source, res.Stats.Nodes)
			}
		})
	}
	// The 6x10 count took long enough to be cached.
	w := do(r, "POST", "/v1/polyomino/tilings", "application/json", `{"width":10,"height":6,"limit":3}`)
	if !strings.Contains(w.Body.String(), `"source":"cache"`) {
		t.Errorf("second 6x10 answer not from the cache: %.300s", w.Body)
	}
	// Counts alone depend on the region up to congruence: 10 x 6 answers
	// 6 x 10 from the cache, with its own region; with solutions it
	// searches (they are drawn in its frame).
	do(r, "POST", "/v1/polyomino/tilings", "application/json", `{"width":10,"height":6}`)
	w = do(r, "POST", "/v1/polyomino/tilings", "application/json", `{"width":6,"height":10}`)
	var turned TilingsResponse
	if err := json.Unmarshal(w.Body.Bytes(), &turned); err != nil || turned.Source != "cache" || turned.Count != 2339 || len(turned.Region) != 10 || turned.Region[0] != "......" {
		t.Errorf("10 x 6, counts only, after 6 x 10: %.300s", w.Body)
	}
	w = do(r, "POST", "/v1/polyomino/tilings", "application/json", `{"width":6,"height":10,"limit":3}`)
	if turned = (TilingsResponse{}); json.Unmarshal(w.Body.Bytes(), &turned) != nil || turned.Source != "search" || len(turned.Solutions) != 3 || len(turned.Solutions[0]) != 10 {
		t.Errorf("10 x 6 with solutions: %.300s", w.Body)
	}
}

func TestTilingsBudget(t *testing.T) {
	gin.SetMode(gin.TestMode)
	reg := prometheus.NewRegistry()
	r := New(Config{MaxBodyBytes: 64 << 10}, Deps{
		Registry: reg, Readiness: service.NewReadiness(cache.NewMemory(1<<20, 0)), Catalogue: &service.Catalogue{},
		Tilings: service.NewTilings(newSearcher(reg, 20*time.Millisecond)),
	})
	start := time.Now()
	// An enormous budget is capped by the server (20 ms here).
	w := do(r, "POST", "/v1/polyomino/tilings", "application/json", `{"width":15,"height":15,"pieces":"hexominoes","allow_leftover":true,"budget_ms":100000000}`)
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("budget-capped search took %v", took)
	}
	var res TilingsResponse
	if err := json.Unmarshal(w.Body.Bytes(), &res); err != nil || w.Code != 200 || res.Complete {
		t.Errorf("budget-capped answer %d complete=%v: %.300s", w.Code, res.Complete, w.Body)
	}
}

func TestTilingsBadInput(t *testing.T) {
	r := newTilingServer(t)
	tests := []struct {
		name, body, field, detail string
	}{
		{"area mismatch", `{"width":10,"height":7}`, "blocked", "70 cells open but the 12 pieces cover 60 cells; block 10 cells"},
		// A region too small: the field the message asks to change.
		{"region too small", `{"width":5,"height":1}`, "width", "the region has only 5 cells open"},
		{"pieces too many", `{"width":4,"height":1,"pieces":"I"}`, "pieces", "remove pieces or use a larger region"},
		{"a cell blocked too many", `{"width":5,"height":5,"blocked":["a1"],"pieces":"FILNP"}`, "blocked", "only 24 cells open"},
		{"unblocking not enough", `{"width":5,"height":2,"blocked":["a1"],"pieces":"FILNP"}`, "pieces", "would not be enough"},
		{"unknown piece", `{"width":10,"height":6,"pieces":"FILNPTUVWXYQ"}`, "pieces", "Q"},
		{"an empty name", `{"width":10,"height":1,"pieces":"I,,I","multiset":true}`, "pieces", "an empty piece name"},
		{"an empty element", `{"width":10,"height":1,"pieces":["I",""]}`, "pieces", "an empty piece name"},
		{"a set's name misspelt", `{"width":10,"height":6,"pieces":"pentomino"}`, "pieces", `did you mean "pentominoes"`},
		{"repeated piece", `{"width":5,"height":2,"pieces":"II"}`, "pieces", "more than once"},
		{"too wide", `{"width":27,"height":6}`, "width", "26"},
		{"too many cells", `{"width":20,"height":20}`, "height", "256"},
		{"zero height", `{"width":10,"height":0}`, "height", "height is missing"},
		{"width alone", `{"width":9}`, "height", "height is missing or 0: give both width and height (width alone is not a region)"},
		{"width alone, too large", `{"width":99}`, "width", "width 99: expected 1..26 (and height is missing or 0)"},
		{"height alone", `{"height":10}`, "width", "width is missing"},
		{"no region", `{}`, "width", "no region: give width and height"},
		{"negative width", `{"width":-3,"height":5}`, "width", "-3 x 5"},
		{"area mismatch, blocked cells not enough", `{"board":["#.....","#.....","#.....","#.....","#....."]}`, "board", "use a larger region (unblocking all 5 cells would not be enough)"},
		{"unknown piece in a list", `{"width":10,"height":6,"pieces":["F","Q"]}`, "pieces", "Q"},
		{"pieces of another type", `{"width":10,"height":6,"pieces":5}`, "pieces", "or an array of piece names"},
		{"bad blocked cell", `{"width":10,"height":6,"blocked":["z99"]}`, "blocked", "z99"},
		{"both board and size", `{"width":10,"height":6,"board":[".........."]}`, "board", "not both"},
		{"limit too big", `{"width":10,"height":6,"limit":100000}`, "limit", "0..1000"},
		{"ragged board", `{"board":["....","..."]}`, "board", ""},
		{"negative budget", `{"width":10,"height":6,"budget_ms":-5}`, "budget_ms", ""},
		{"wrong type", `{"width":"ten","height":6}`, "width", "expected an integer"},
		{"empty board", `{"board":[]}`, "board", "no rows"},
		{"order out of range", `{"width":10,"height":6,"order":7}`, "order", "order 7"},
		{"empty pieces", `{"width":10,"height":6,"pieces":""}`, "pieces", "pieces is empty"},
		{"empty list of pieces", `{"width":10,"height":6,"pieces":[]}`, "pieces", "pieces is empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := do(r, "POST", "/v1/polyomino/tilings", "application/json", tt.body)
			if w.Code != 400 {
				t.Fatalf("status %d: %s", w.Code, w.Body)
			}
			p := decodeProblem(t, w)
			if len(p.Errors) == 0 || p.Errors[0].Field != tt.field || !strings.Contains(p.Detail, tt.detail) {
				t.Errorf("problem %+v, want field %q and detail containing %q", p, tt.field, tt.detail)
			}
		})
	}
}
