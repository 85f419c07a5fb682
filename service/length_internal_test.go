package service

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gamesolver/gamesolver/engine/polyomino"
)

// TestAllMovesLengthUsesTheBudget: with all_moves the length search may
// take half of what is left of the budget to give every move its plies,
// not only its share of the proof's time (a review saw 8 s offered, 0.2 s
// used, 650 moves without plies).
func TestAllMovesLengthUsesTheBudget(t *testing.T) {
	cfg, _ := polyomino.Preset("pentominoes")
	pos, err := polyomino.NewPosition(cfg, nil, strings.Fields("V:d2,e2,f2,d3,d4 I:h2,h3,h4,h5,h6 F:e4,f4,f5,g5,f6"), polyomino.DefaultToMove)
	if err != nil {
		t.Fatal(err)
	}
	tt := polyomino.NewTable(solveTableMB)
	defer tt.Release()
	res, err := polyomino.Solve(context.Background(), pos, polyomino.Options{AllMoves: true, Workers: 1, Table: tt})
	if err != nil || !res.Proven {
		t.Fatalf("%v: proven %v", err, res.Proven)
	}
	res.Elapsed = time.Millisecond // the share of a quick proof: least
	s := &Searcher{MinLengthTime: 50 * time.Millisecond}
	const budget = 2 * time.Second
	ctx, cancel := context.WithTimeout(context.Background(), budget)
	defer cancel()
	a := answerOf(res, pos.Frame().ToCanonical)
	start := time.Now()
	s.withLength(ctx, &a, pos, res, tt, lengthShare, s.minLengthTime())
	took := time.Since(start)
	with := 0
	for _, m := range a.Moves {
		if m.Plies != nil {
			with++
		}
	}
	t.Logf("%d of %d moves with plies in %v", with, len(a.Moves), took)
	if with < len(a.Moves) && took < budget/4 {
		t.Errorf("the length search stopped after %v with %d of %d moves' plies: the budget allows %v", took, with, len(a.Moves), budget/allMovesLengthDiv)
	}
	if took > budget*3/4 {
		t.Errorf("the length search took %v of a %v budget", took, budget)
	}
}
