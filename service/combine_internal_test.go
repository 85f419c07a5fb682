package service

import (
	"context"
	"encoding/json"
	"testing"
)

// combineRequest is a position of 524 moves, each a unit of its job.
const combineRequest = `{"game":"pentominoes","width":8,"height":8,"pieces":"YNZTV","pool":true,"end_rule":"normal","board":["........","..VVV...","..V.....","..V.....","........","........","........","....#..."],"to_move":"second"}`

// BenchmarkCombineUnfinished times a polyomino.analyze job's Combine with
// every result but one in (unproven children: the job is not done), as a
// worker calls it after each unit; with all_moves it returns at once.
func BenchmarkCombineUnfinished(b *testing.B) {
	for _, allMoves := range []bool{false, true} {
		name := "first-win"
		req := json.RawMessage(combineRequest)
		if allMoves {
			name = "all-moves"
			req = json.RawMessage(combineRequest[:len(combineRequest)-1] + `,"all_moves":true}`)
		}
		b.Run(name, func(b *testing.B) {
			j := PolyominoAnalyzeJob{}
			units, err := j.Plan(context.Background(), req)
			if err != nil {
				b.Fatal(err)
			}
			raw, _ := json.Marshal(PolyominoAnswer{Outcome: "unknown", Nodes: 100})
			results := map[int]json.RawMessage{}
			for i := range len(units) - 1 {
				results[i] = raw
			}
			for b.Loop() {
				if _, done, err := j.Combine(context.Background(), req, len(units), results); done || err != nil {
					b.Fatal(done, err)
				}
			}
		})
	}
}

// BenchmarkPlanBigJob plans a polyomino.analyze job with all_moves on a
// 16 x 16 board one move in (a request of 91 bytes), the kind of job a
// black-box review found holding every later job back for hours, and
// reports its units.
func BenchmarkPlanBigJob(b *testing.B) {
	req := json.RawMessage(`{"game":"pentominoes","width":16,"height":16,"moves":["I:a1,a2,a3,a4,a5"],"all_moves":true}`)
	var units int
	for b.Loop() {
		u, err := PolyominoAnalyzeJob{}.Plan(context.Background(), req)
		if err != nil {
			b.Fatal(err)
		}
		units = len(u)
	}
	b.ReportMetric(float64(units), "units")
}
