package service_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/gamesolver/gamesolver/service"
	"github.com/gamesolver/gamesolver/service/cache"
)

// jobUnitsRequest is the second job of BENCHMARKS.md "Jobs and small
// searches": all_moves on a 3-ply suite position, 420 units.
const jobUnitsRequest = `{"game":"pentominoes","moves":["Z:f3,d4,e4,f4,d5","P:c6,d6,e6,c7,d7","Y:g5,g6,g7,h7,g8"],"all_moves":true}`

// BenchmarkJobUnits runs a polyomino.analyze job's 420 units one after
// another (kind.Run in a loop after kind.Plan, a fresh cache each op) and
// reports how many found their child's plies: with the least time of a
// unit's length search (Searcher.MinLengthTime; 1ns: its share of the
// proof's time only) on the kept table of the searcher's pool, and with
// a fresh searcher, so a fresh 64 MB table, for each unit (fresh-table).
func BenchmarkJobUnits(b *testing.B) {
	req := json.RawMessage(jobUnitsRequest)
	// The first unit loads the opening book (1-3 s), before any timing.
	warm := service.PolyominoAnalyzeJob{Search: &service.Searcher{Loader: cache.NewLoader(cache.NewMemory(1<<20, time.Hour), time.Hour), Workers: 1}, MaxDuration: time.Minute, Workers: 1}
	if plan, err := warm.Plan(context.Background(), req); err != nil {
		b.Fatal(err)
	} else if _, err := warm.Run(context.Background(), req, plan[0], func(int64) {}); err != nil {
		b.Fatal(err)
	}
	run := func(b *testing.B, floor time.Duration, fresh bool) {
		var withPlies, units int
		for b.Loop() {
			c := cache.NewMemory(1<<30, time.Hour)
			searcher := func() *service.Searcher {
				return &service.Searcher{Loader: cache.NewLoader(c, time.Hour), Workers: 1, MinLengthTime: floor}
			}
			kind := service.PolyominoAnalyzeJob{Search: searcher(), MaxDuration: time.Minute, Workers: 1}
			plan, err := kind.Plan(context.Background(), req)
			if err != nil {
				b.Fatal(err)
			}
			units, withPlies = len(plan), 0
			for _, u := range plan {
				if fresh {
					kind.Search = searcher()
				}
				raw, err := kind.Run(context.Background(), req, u, func(int64) {})
				if err != nil {
					b.Fatal(err)
				}
				var a struct{ Plies *int }
				if err := json.Unmarshal(raw, &a); err != nil {
					b.Fatal(err)
				}
				if a.Plies != nil {
					withPlies++
				}
			}
		}
		b.ReportMetric(float64(withPlies), "with-plies")
		b.ReportMetric(float64(units), "units")
	}
	for _, floor := range []time.Duration{time.Nanosecond, 5 * time.Millisecond, 20 * time.Millisecond, 50 * time.Millisecond} {
		b.Run(fmt.Sprintf("floor=%v", floor), func(b *testing.B) { run(b, floor, false) })
	}
	b.Run("fresh-table", func(b *testing.B) { run(b, time.Nanosecond, true) })
}
