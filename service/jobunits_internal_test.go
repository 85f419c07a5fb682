package service

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/gamesolver/gamesolver/service/cache"
)

// TestJobUnitsLeaveOutRequest: a polyomino.analyze job's units carry their
// class of moves, not the job's request (an audit's 60 KB request for a
// 16 x 16 board was stored in each of its 12,392 units: 711 MB); Run reads
// the job's request, and a unit planned before, which carries it, runs the
// same.
func TestJobUnitsLeaveOutRequest(t *testing.T) {
	pad := strings.Repeat(" ", 60_000)
	big := json.RawMessage(`{"game":"pentominoes","width":16,"height":16,"blocked":["a1","b1"],"to_move":"` + pad + `first"}`)
	units, err := PolyominoAnalyzeJob{}.Plan(context.Background(), big)
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, u := range units {
		total += len(u)
	}
	if len(units) < 12000 || total > 64*len(units) {
		t.Fatalf("%d units of %d bytes in all", len(units), total)
	}

	s := &Searcher{Loader: cache.NewLoader(cache.NewMemory(1<<24, time.Minute), time.Minute), Slots: NewSlots(2, 4, time.Second, nil),
		Budgets: Budgets{Default: time.Minute, Max: time.Minute}, Workers: 1}
	kind := PolyominoAnalyzeJob{Search: s, MaxDuration: time.Minute, Workers: 1}
	request := json.RawMessage(combineRequest)
	units, err = kind.Plan(context.Background(), request)
	if err != nil {
		t.Fatal(err)
	}
	var u polyUnit
	if err := json.Unmarshal(units[0], &u); err != nil || u.Query != nil || u.Move == "" {
		t.Fatalf("unit %s: %+v, %v", units[0], u, err)
	}
	now, err := kind.Run(context.Background(), request, units[0], func(int64) {})
	if err != nil {
		t.Fatal(err)
	}
	u.Query = request // as planned before 2026-11-28
	old, _ := json.Marshal(u)
	before, err := kind.Run(context.Background(), nil, old, func(int64) {})
	if err != nil {
		t.Fatal(err)
	}
	var a, b PolyominoAnswer
	if json.Unmarshal(now, &a) != nil || json.Unmarshal(before, &b) != nil || !a.Proven || a.Outcome != b.Outcome || a.Value != b.Value || len(a.BestMoves) != len(b.BestMoves) {
		t.Errorf("the unit with the job's request: %s %v; carrying it: %s %v", a.Outcome, a.BestMoves, b.Outcome, b.BestMoves)
	}
	if _, err := kind.Run(context.Background(), nil, units[0], func(int64) {}); err == nil {
		t.Error("a unit run without any request")
	}
}
