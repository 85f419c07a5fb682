package service

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/gamesolver/gamesolver/service/cache"
)

// TestTilingsJobParts: a tilings job without a budget is tilingParts
// units whose combined answer is the synchronous search's (counts and
// solutions in order), kept in the cache; a job with a budget, or whose
// count the cache holds, is one unit.
func TestTilingsJobParts(t *testing.T) {
	ctx := context.Background()
	for _, body := range []string{
		`{"width":8,"height":8,"blocked":["d4","e4","d5","e5"],"limit":30}`,
		`{"width":10,"height":6,"limit":7,"every_tiling":true}`,
		`{"board":["#......","......#",".......","......."],"pieces":"ILNPU","allow_leftover":true,"limit":1000}`,
	} {
		c := cache.NewMemory(1<<24, time.Minute)
		s := &Searcher{Loader: cache.NewLoader(c, time.Minute), Slots: NewSlots(2, 4, time.Second, nil),
			Budgets: Budgets{Default: time.Minute, Max: time.Minute}, Workers: 2}
		job := TilingsJob{Tilings: NewTilings(s), MaxDuration: time.Minute, Workers: 1}
		units, err := job.Plan(ctx, json.RawMessage(body))
		if err != nil || len(units) != tilingParts {
			t.Fatalf("%s: %d units, %v", body, len(units), err)
		}
		results := map[int]json.RawMessage{}
		for k, u := range units {
			if results[k], err = job.Run(ctx, u, func(int64) {}); err != nil {
				t.Fatalf("%s: unit %d: %v", body, k, err)
			}
			if _, done, err := job.Combine(ctx, json.RawMessage(body), len(units), results); done != (k == len(units)-1) || err != nil {
				t.Fatalf("%s: after unit %d: done %t, %v", body, k, done, err)
			}
		}
		raw, _, err := job.Combine(ctx, json.RawMessage(body), len(units), results)
		var got TilingAnswer
		if err != nil || json.Unmarshal(raw, &got) != nil {
			t.Fatalf("%s: combine: %v", body, err)
		}
		// The synchronous search, in a service without the job's cache.
		var r tilingsJobRequest
		_ = json.Unmarshal([]byte(body), &r)
		fresh := &Searcher{Loader: cache.NewLoader(cache.NewMemory(1<<24, time.Minute), time.Minute), Slots: NewSlots(2, 4, time.Second, nil),
			Budgets: Budgets{Default: time.Minute, Max: time.Minute}, Workers: 2}
		want, err := NewTilings(fresh).Solve(ctx, r.query())
		if err != nil || !want.Result.Complete || want.Result.CountAll == 0 {
			t.Fatalf("%s: synchronous: %v %+v", body, err, want.Result)
		}
		g, w := got.Result, want.Result
		if !g.Complete || g.Count != w.Count || g.CountAll != w.CountAll || g.Symmetries != w.Symmetries ||
			!slices.EqualFunc(g.Solutions, w.Solutions, slices.Equal) || len(g.Placements) != len(w.Placements) {
			t.Errorf("%s: job %d/%d, %d solutions; search %d/%d, %d solutions", body, g.Count, g.CountAll, len(g.Solutions), w.Count, w.CountAll, len(w.Solutions))
		}
		// Kept for the requests: a second job is one unit, answered from
		// the cache.
		units, err = job.Plan(ctx, json.RawMessage(body))
		if err != nil || len(units) != 1 {
			t.Fatalf("%s: second job: %d units, %v", body, len(units), err)
		}
		raw, err = job.Run(ctx, units[0], func(int64) {})
		var again TilingAnswer
		if err != nil || json.Unmarshal(raw, &again) != nil || again.Source != SourceCache || again.Result.Count != w.Count {
			t.Errorf("%s: second job's unit: %v %+v", body, err, again)
		}
	}
	// With a budget: one unit, whose search may stop.
	s := &Searcher{Loader: cache.NewLoader(cache.NewMemory(1<<20, time.Minute), time.Minute), Budgets: Budgets{Default: time.Minute, Max: time.Minute}}
	units, err := TilingsJob{Tilings: NewTilings(s), MaxDuration: time.Minute}.Plan(ctx, json.RawMessage(`{"width":10,"height":6,"budget_ms":500}`))
	if err != nil || len(units) != 1 {
		t.Errorf("with a budget: %d units, %v", len(units), err)
	}
}
