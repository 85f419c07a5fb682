package service

import (
	"context"
	"slices"
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

// bestMoveLengths solves the Pentominoes position after moves with all
// moves, wanting it outcome, and returns it, the result, each best move's
// plies after it, and the fewest and most of those (which must differ,
// or a test of their order could not fail).
func bestMoveLengths(t *testing.T, moves string, outcome polyomino.Outcome) (*polyomino.Position, polyomino.Result, map[string]int, int, int) {
	t.Helper()
	cfg, _ := polyomino.Preset("pentominoes")
	pos, err := polyomino.NewPosition(cfg, nil, strings.Fields(moves), polyomino.DefaultToMove)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	res, err := polyomino.Solve(ctx, pos, polyomino.Options{AllMoves: true, Workers: 1})
	if err != nil || !res.Proven || res.Outcome != outcome {
		t.Fatalf("%v: proven %v, %s; want a proven %s", err, res.Proven, res.Outcome, outcome)
	}
	var best []polyomino.MoveResult // a win's winning moves, a loss's every move
	for _, mr := range res.Moves {
		if outcome == polyomino.Loss || mr.Outcome == polyomino.Win {
			best = append(best, mr)
		}
	}
	plies := map[string]int{}
	fewest, most := 1<<30, 0
	for i, l := range polyomino.MoveLengths(ctx, pos, best, polyomino.LengthOptions{}) {
		if !l.Proven {
			t.Fatalf("move %s: no length", best[i].Move)
		}
		plies[best[i].Move.String()] = l.Plies
		fewest, most = min(fewest, l.Plies), max(most, l.Plies)
	}
	if fewest == most {
		t.Fatalf("every best move lasts %d plies: their order is not tested", most)
	}
	return pos, res, plies, fewest, most
}

// TestFinalLengthPutsPerfectPlayFirst: a finished job's length search
// (finalLength) gives the position its plies, puts a fastest win first
// among best moves listed slowest first, marks it perfect_first, and gives
// that move its plies when the units did not.
func TestFinalLengthPutsPerfectPlayFirst(t *testing.T) {
	// 13 winning moves: 12 last 4 plies after them, 1 lasts 6.
	pos, res, plies, fastest, _ := bestMoveLengths(t, "V:d2,e2,f2,d3,d4 I:h2,h3,h4,h5,h6 F:e4,f4,f5,g5,f6 Y:b5,b6,c6,b7,b8", polyomino.Win)
	// The best moves slowest first, as a job's results could list them;
	// no move with its plies.
	slices.SortStableFunc(res.BestMoves, func(x, y polyomino.Move) int { return plies[y.String()] - plies[x.String()] })
	slices.SortStableFunc(res.Moves, func(x, y polyomino.MoveResult) int { return plies[y.Move.String()] - plies[x.Move.String()] })
	a := answerOf(res, func(m polyomino.Move) polyomino.Move { return m })
	PolyominoAnalyzeJob{MaxDuration: time.Minute}.finalLength(context.Background(), &a, pos, res)
	if a.Plies == nil || *a.Plies != fastest+1 {
		t.Fatalf("plies %v, want %d", a.Plies, fastest+1)
	}
	// Canceled (the job's end, a cancel, a shutdown): no search, no plies.
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	b := answerOf(res, func(m polyomino.Move) polyomino.Move { return m })
	PolyominoAnalyzeJob{MaxDuration: time.Minute}.finalLength(canceled, &b, pos, res)
	if b.Plies != nil || b.PerfectFirst {
		t.Errorf("with its context canceled: plies %d, perfect_first %v; want neither (-1: none)", derefOr(b.Plies, -1), b.PerfectFirst)
	}
	if !a.PerfectFirst || plies[a.BestMoves[0]] != fastest {
		t.Errorf("perfect_first %v, best_moves[0] %s lasting %d after it, want a fastest win (%d)", a.PerfectFirst, a.BestMoves[0], plies[a.BestMoves[0]], fastest)
	}
	for _, m := range a.Moves {
		if m.Move == a.BestMoves[0] && (m.Plies == nil || *m.Plies != fastest) {
			t.Errorf("move %s: plies %v, want %d", m.Move, m.Plies, fastest)
		}
	}
	if a.Moves[0].Move != a.BestMoves[0] {
		t.Errorf("moves[0] %s, best_moves[0] %s: perfect play's move leads both", a.Moves[0].Move, a.BestMoves[0])
	}

	// A job stopped at its first win, a slow one: the fastest win the
	// length search finds joins the best moves, first.
	slow := res.BestMoves[0] // the slowest, sorted above
	first := polyomino.Result{Outcome: polyomino.Win, Proven: true, BestMoves: []polyomino.Move{slow}}
	a = answerOf(first, func(m polyomino.Move) polyomino.Move { return m })
	PolyominoAnalyzeJob{MaxDuration: time.Minute}.finalLength(context.Background(), &a, pos, first)
	if a.Plies == nil || *a.Plies != fastest+1 || !a.PerfectFirst || plies[a.BestMoves[0]] != fastest || !slices.Contains(a.BestMoves, slow.String()) {
		t.Errorf("after a first win lasting %d: plies %d, perfect_first %v, best_moves %v; want %d plies and a fastest win first", plies[slow.String()], derefOr(a.Plies, -1), a.PerfectFirst, a.BestMoves, fastest+1)
	}
}

// TestFinalLengthLostWithoutAllMoves: in a lost position without all
// moves, finalLength puts a slowest loss first among best moves listed in
// another order than the search's (a review found the move at the slowest
// loss's index in the search's list put first, a loss in 3 of a position
// whose slowest loss lasts 5, marked perfect_first).
func TestFinalLengthLostWithoutAllMoves(t *testing.T) {
	pos, res, plies, fastest, slowest := bestMoveLengths(t, "V:d2,e2,f2,d3,d4 I:h2,h3,h4,h5,h6 F:e4,f4,f5,g5,f6 L:e5,e6,e7,d8,e8", polyomino.Loss)
	res.Moves = nil // no all_moves
	a := answerOf(res, func(m polyomino.Move) polyomino.Move { return m })
	// The answer lists a fastest loss where the search's list has the
	// slowest loss a length search picks: the two lists differ in order.
	lx := polyomino.NewLengths(context.Background(), pos, polyomino.LengthOptions{})
	i, _ := lx.Slowest(res.BestMoves, slowest+1)
	lx.Close()
	j := slices.IndexFunc(a.BestMoves, func(m string) bool { return plies[m] == fastest })
	if i < 0 || j < 0 {
		t.Fatalf("no slowest loss found (%d) or no fastest (%d)", i, j)
	}
	a.BestMoves[i], a.BestMoves[j] = a.BestMoves[j], a.BestMoves[i]
	PolyominoAnalyzeJob{MaxDuration: time.Minute}.finalLength(context.Background(), &a, pos, res)
	if a.Plies == nil || *a.Plies != slowest+1 {
		t.Fatalf("plies %v, want %d", a.Plies, slowest+1)
	}
	if !a.PerfectFirst || plies[a.BestMoves[0]] != slowest {
		t.Errorf("perfect_first %v, best_moves[0] %s lasting %d after it, want a slowest loss (%d)", a.PerfectFirst, a.BestMoves[0], plies[a.BestMoves[0]], slowest)
	}
	if len(a.BestMoves) != len(res.BestMoves) {
		t.Errorf("%d best moves, want %d", len(a.BestMoves), len(res.BestMoves))
	}
}

// derefOr is *p, or none when p is nil.
func derefOr(p *int, none int) int {
	if p == nil {
		return none
	}
	return *p
}
