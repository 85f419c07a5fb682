package verify

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/gamesolver/gamesolver/engine/polyomino"
)

// TestKnownCounts: the checker's own placements reproduce the known counts
// of the empty board (RULES.md): 2308 moves, 296 up to symmetry.
func TestKnownCounts(t *testing.T) {
	g := mustGame(t)
	if n := g.Placements(); n != 2308 {
		t.Fatalf("%d placements, want 2308", n)
	}
	classes := map[uint64]bool{}
	for _, m := range g.Moves(State{}) {
		classes[classOf(State{}, m)] = true
	}
	if len(classes) != 296 {
		t.Fatalf("%d classes, want 296", len(classes))
	}
}

func TestParseMove(t *testing.T) {
	g := mustGame(t)
	m, err := g.ParseMove("l:c6,c5,d5,e5,f5")
	if err != nil {
		t.Fatal(err)
	}
	if s := g.String(m); s != "L:c5,d5,e5,f5,c6" {
		t.Fatalf("String = %s", s)
	}
	for _, bad := range []string{"L:c5,d5,e5,f5", "L:c5,d5,e5,f5,g5", "Q:a1,a2,a3,a4,a5", "I:a1,a2,a3,a4,a9", "I a1"} {
		if _, err := g.ParseMove(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// TestSolverAgreesWithEngine plays random games to 5 or 6 pieces and compares
// the checker's value with the engine's: two solvers sharing no search
// code.
func TestSolverAgreesWithEngine(t *testing.T) {
	g := mustGame(t)
	cfg, _ := polyomino.Preset("pentominoes")
	pg, err := polyomino.NewGame(cfg)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(6, 1996))
	v := NewSolver(g, 18)
	wins := 0
	const games = 40
	for i := range games {
		pos := pg.Start()
		s := State{}
		for range 5 + i%2 {
			moves := pos.LegalMoves()
			if len(moves) == 0 {
				break
			}
			m := moves[rng.IntN(len(moves))]
			vm, err := g.ParseMove(m.String())
			if err != nil {
				t.Fatal(err)
			}
			if !s.Legal(vm) {
				t.Fatalf("%s legal for the engine, not for the checker", m)
			}
			s = s.Play(vm)
			if pos, err = pos.Play(m); err != nil {
				t.Fatal(err)
			}
		}
		if got, want := len(g.Moves(s)), pos.LegalMoveCount(); got != want {
			t.Fatalf("%v: %d moves, engine %d", pos, got, want)
		}
		win, err := v.Wins(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		res, err := polyomino.Solve(context.Background(), pos, polyomino.Options{FirstWin: true, TableMB: 16, Workers: 1})
		if err != nil || !res.Proven {
			t.Fatal(err, res.Proven)
		}
		if win != (res.Outcome == polyomino.Win) {
			t.Fatalf("%v\nchecker says win=%v, engine %s", pos, win, res.Outcome)
		}
		if win {
			wins++
		}
	}
	if wins == 0 || wins == games {
		t.Fatalf("%d of %d positions won: the sample does not test both outcomes", wins, games)
	}
}

func mustGame(t testing.TB) *Game {
	t.Helper()
	g, err := NewGame()
	if err != nil {
		t.Fatal(err)
	}
	return g
}
