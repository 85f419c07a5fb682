package service

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/gamesolver/gamesolver/service/cache"
)

// TestEmptyPieceNameOldUnits: a piece list with an empty name ("I,,L", a
// null in a list) is refused when asked or planned, but a unit stored by
// the version before the check runs as it did (the empty name dropped).
func TestEmptyPieceNameOldUnits(t *testing.T) {
	ctx := context.Background()
	raw := json.RawMessage(`{"game":"tetrominoes","width":4,"height":4,"pieces":["I","L",null,"T"]}`)
	s := &Searcher{Loader: cache.NewLoader(cache.NewMemory(1<<24, time.Minute), time.Minute), Slots: NewSlots(2, 4, time.Second, nil),
		Budgets: Budgets{Default: time.Second, Max: time.Second}, Workers: 1}
	p := NewPolyomino(s)
	var q PolyominoQuery
	if err := DecodeRequest(raw, &q); err != nil {
		t.Fatal(err)
	}
	for name, err := range map[string]error{
		"analyze": func() error { _, err := p.Analyze(ctx, q); return err }(),
		"moves":   func() error { _, err := p.Moves(ctx, q); return err }(),
		"plan":    func() error { _, err := (PolyominoAnalyzeJob{Search: s}).Plan(ctx, raw); return err }(),
	} {
		if KindOf(err) != KindInvalid || !strings.Contains(err.Error(), "an empty piece name") {
			t.Errorf("%s: %v, want the empty name refused", name, err)
		}
	}
	// A stored capture job's settings (its result stored without them)
	// are read as they were.
	if _, ok := RequestSettings(json.RawMessage(`{"game":"capture","width":5,"height":5,"pieces":"I,O,,T,S,L"}`)); !ok {
		t.Error("a stored capture job with an empty piece name: no settings")
	}
	pos, err := q.position()
	if err != nil {
		t.Fatalf("a stored unit's position: %v", err)
	}
	child := pos.Children()[0]
	u, _ := json.Marshal(polyUnit{Index: 0, Move: child.Moves[0].String(), Query: raw})
	out, err := (PolyominoAnalyzeJob{Search: s, MaxDuration: time.Minute, Workers: 1}).Run(ctx, nil, u, func(int64) {})
	var a PolyominoAnswer
	if err != nil || json.Unmarshal(out, &a) != nil || !a.Proven {
		t.Errorf("a stored unit: %v, proven %v", err, a.Proven)
	}
}
