package service_test

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/gamesolver/gamesolver/engine/polyomino"
	"github.com/gamesolver/gamesolver/service"
)

// TestAnnotateAgainstSolve: games of random moves on small boards (normal
// play with a pool, hands, the score rule with a pass), annotated with
// time to prove every position; each ply's player, values before and
// after, best moves, is_best and marks ???, ?=, ??, !! checked against
// the engine's own search of each position (every move's value), and the
// ! marks against the moves' plies.
func TestAnnotateAgainstSolve(t *testing.T) {
	if service.RaceEnabled {
		t.Skip("every position must be proven within the budget: too slow under the race detector")
	}
	p := service.NewPolyomino(searcherWithBudget(20 * time.Second))
	rng := rand.New(rand.NewPCG(7, 8))
	marks, passes := map[string]int{}, 0
	for _, tc := range []struct {
		name string
		q    service.PolyominoQuery
		cfg  polyomino.Config
		// The first game's first moves: to a position with one winning
		// move (!!), played; or to a pass (the score rule).
		prefix []string
	}{
		{"tetrominoes 5 x 5", service.PolyominoQuery{Game: "tetrominoes"}, polyomino.Config{Preset: "tetrominoes", Width: 5, Height: 5, Order: 4, Pool: true},
			[]string{"I:a3,b3,c3,d3", "S:a1,b1,b2,c2", "L:c4,d4,e4,c5", "O:d1,e1,d2,e2"}},
		{"pentominoes 6 x 6 hands", service.PolyominoQuery{Game: "pentominoes", Width: intp(6), Height: intp(6), Hands: &service.Hands{}, Seed: u64p(3)},
			polyomino.Config{Preset: "pentominoes", Width: 6, Height: 6, Order: 5, Seed: 3},
			[]string{"W:d3,e3,c4,d4,c5", "N:a3,a4,b4,b5,b6", "V:c1,d1,e1,c2,c3", "L:f2,f3,f4,e5,f5"}},
		{"pentominoes 6 x 6 hands, score rule", service.PolyominoQuery{Game: "pentominoes", Width: intp(6), Height: intp(6), EndRule: "score",
			Hands: &service.Hands{First: []string{"F", "I", "L", "N", "P", "T"}, Second: []string{"U", "V", "W", "X", "Y", "Z"}}},
			polyomino.Config{Preset: "pentominoes", Width: 6, Height: 6, Order: 5, EndRule: polyomino.ScoreRule, Hands: [2][]string{{"F", "I", "L", "N", "P", "T"}, {"U", "V", "W", "X", "Y", "Z"}}},
			// TestPassGoesOn's game: the first player is stuck next.
			[]string{"L:f1,f2,f3,e4,f4", "W:d2,c3,d3,b4,c4", "P:d5,e5,f5,d6,e6", "Y:a1,a2,b2,a3,a4"}},
	} {
		g, err := polyomino.NewGame(tc.cfg)
		if err != nil {
			t.Fatal(err)
		}
		tt := polyomino.NewTable(16) // the games' openings are searched once
		for game := range 6 {
			// A game to its end: random moves, mostly best ones.
			pos := g.Start()
			var moves []string
			if game == 0 {
				for _, s := range tc.prefix {
					m, _ := polyomino.ParseMove(s)
					if pos, err = pos.Play(m); err != nil {
						t.Fatal(err)
					}
					moves = append(moves, s)
				}
			}
			for !pos.Over() {
				legal := pos.LegalMoves()
				if len(legal) == 0 { // a pass (score rule): the other moves
					legal = pos.Children()[0].Position.LegalMoves()
				}
				m := legal[rng.IntN(len(legal))]
				if rng.IntN(3) > 0 {
					// Mostly a best move: the marks of good play (!, !!)
					// as well as of blunders.
					at := pos
					if at.MustPass() {
						at = at.Children()[0].Position
					}
					if res, err := polyomino.Solve(context.Background(), at, polyomino.Options{Workers: 1, Table: tt}); err == nil && res.Proven {
						m = res.BestMoves[rng.IntN(len(res.BestMoves))]
					}
				}
				if next, err := pos.Play(m); err == nil {
					pos = next
					moves = append(moves, m.String())
				} else {
					t.Fatal(err)
				}
			}
			q := tc.q
			q.Moves, q.BudgetMs = moves, 20000
			ann, err := p.Annotate(context.Background(), q)
			if err != nil {
				t.Fatalf("%s %v: %v", tc.name, moves, err)
			}
			if len(ann.Plies) != len(moves) || !ann.Final.Over {
				t.Fatalf("%s: %d plies for %d moves, final over %v", tc.name, len(ann.Plies), len(moves), ann.Final.Over)
			}
			pos = g.Start()
			for i, ply := range ann.Plies {
				if ply.AfterPass != pos.MustPass() {
					t.Fatalf("%s game %d ply %d: after pass %v, the player to move stuck %v", tc.name, game, i+1, ply.AfterPass, pos.MustPass())
				}
				if pos.MustPass() {
					passes++
					pos = pos.Children()[0].Position
				}
				res, err := polyomino.Solve(context.Background(), pos, polyomino.Options{AllMoves: true, Workers: 1, Table: tt})
				if err != nil || !res.Proven {
					t.Fatalf("%s ply %d: %v %v", tc.name, i+1, err, res.Proven)
				}
				m, _ := polyomino.ParseMove(moves[i])
				var mv polyomino.MoveResult
				notLosing := 0
				for _, r := range res.Moves {
					if r.Move.String() == m.String() {
						mv = r
					}
					if r.Value >= 0 {
						notLosing++
					}
				}
				want := ""
				switch {
				case res.Value > 0 && mv.Value < 0:
					want = "???"
				case res.Value > 0 && mv.Value == 0:
					want = "?="
				case res.Value == 0 && mv.Value < 0:
					want = "??"
				case mv.Value >= 0 && notLosing == 1: // a forced move too
					want = "!!"
				}
				if ply.Mark == "!" {
					want = "!" // checked below
				}
				if ply.Player != pos.ToMove().String() || ply.Move != m.String() || !ply.Before.Proven || ply.Before.Outcome != string(res.Outcome) ||
					!ply.After.Proven || ply.After.Outcome != string(mv.Outcome) || ply.IsBest != (mv.Value == res.Value) || ply.Mark != want ||
					!ply.BestComplete || len(ply.BestMoves) != len(res.BestMoves) {
					t.Fatalf("%s game %d ply %d %s by %s: %+v; the search: %s (%d), the move %s (%d), %d best moves, want mark %q",
						tc.name, game, i+1, moves[i], pos.ToMove(), ply, res.Outcome, res.Value, mv.Outcome, mv.Value, len(res.BestMoves), want)
				}
				if ply.Mark == "!" {
					// Normal play: a fastest win (slowest loss), its plies one
					// fewer after it; the score rule: the one move of the
					// best score.
					best := 0
					for _, r := range res.Moves {
						if r.Value == res.Value {
							best++
						}
					}
					score := tc.cfg.EndRule == polyomino.ScoreRule
					if !ply.IsBest || score && best != 1 ||
						!score && (ply.Before.Plies == nil || ply.After.Plies == nil || *ply.After.Plies != *ply.Before.Plies-1) {
						t.Errorf("%s ply %d: marked ! but %+v (%d moves of the best value)", tc.name, i+1, ply, best)
					}
				}
				if i > 0 && ann.Plies[i-1].Player != ply.Player && ann.Plies[i-1].After.Outcome != service.Turned(ply.Before.Outcome) {
					t.Errorf("%s ply %d: before %s, the last ply's after %s", tc.name, i+1, ply.Before.Outcome, ann.Plies[i-1].After.Outcome)
				}
				marks[ply.Mark]++
				pos, _ = pos.Play(m)
			}
		}
	}
	for _, m := range []string{"", "???", "?=", "??", "!!", "!"} {
		if marks[m] == 0 {
			t.Errorf("no ply marked %q in %v: the games cover too little", m, marks)
		}
	}
	if passes == 0 {
		t.Error("no ply after a pass: the games cover too little")
	}
}

func u64p(v uint64) *uint64 { return &v }

// TestAnnotateBusy: with the one solver slot held, an annotation keeps to
// its time (budget and grace) and answers, the positions it found no slot
// for left unknown and counted, not a 503 that throws the rest away.
func TestAnnotateBusy(t *testing.T) {
	service.SetAnnotateGrace(t, 200*time.Millisecond)
	s := searcherWithBudget(time.Second)
	s.Slots = service.NewSlots(1, 8, 5*time.Second, nil) // a long queue wait
	release, ok := s.Slots.TryAcquire()
	if !ok {
		t.Fatal("no slot")
	}
	defer release()
	p := service.NewPolyomino(s)
	start := time.Now()
	ann, err := p.Annotate(context.Background(), service.PolyominoQuery{Game: "pentominoes", Width: intp(8), Height: intp(5),
		Moves: []string{"L:a1,b1,c1,d1,a2", "I:a5,b5,c5,d5,e5"}, BudgetMs: 300})
	took := time.Since(start)
	if err != nil || ann.Unanalyzed == 0 || len(ann.Plies) != 2 || ann.Plies[0].Player != "first" || ann.Plies[1].Player != "second" {
		t.Fatalf("%v: %+v", err, ann)
	}
	if took > 2*time.Second {
		t.Errorf("took %v: the budget is 300 ms, the grace 200 ms", took)
	}
	// The capture variant: its positions' players (and the last one's
	// board) known without an analysis.
	ann, err = p.Annotate(context.Background(), service.PolyominoQuery{Game: "capture", Moves: []string{"I:b1,c1,d1,e1,f1", "L:a2,b2,c2,d2,a3"}, BudgetMs: 300})
	if err != nil || len(ann.Plies) != 2 || ann.Plies[0].Player != "first" || ann.Plies[1].Player != "second" || ann.Final.ToMove != "first" || len(ann.Final.Board) != 7 {
		t.Fatalf("capture: %v: %+v", err, ann)
	}
}
