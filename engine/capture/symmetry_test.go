package capture_test

import (
	"testing"

	"github.com/gamesolver/gamesolver/engine/capture"
	"github.com/gamesolver/gamesolver/engine/polyomino"
)

// TestDistinctTurns: without removals the classes of turns are those the
// placement game counts on the same board (computed by engine/polyomino);
// an asymmetric position has as many classes as turns; a position whose
// marked pieces give removals has fewer classes than turns only through
// its symmetries; the limit is kept.
func TestDistinctTurns(t *testing.T) {
	std, _ := polyomino.Preset("pentominoes")
	std.Width, std.Height = 7, 7
	for _, moves := range [][]string{nil, {"X:d3,c4,d4,e4,d5"}, {"I:a4,b4,c4,d4,e4"}} {
		pos, err := capture.NewPosition(capture.DefaultConfig(), nil, nil, nil, "", moves)
		if err != nil {
			t.Fatal(err)
		}
		ref, err := polyomino.NewPosition(std, nil, moves, polyomino.DefaultToMove)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := pos.DistinctTurns(100000), ref.DistinctUpToSymmetry(); got != want || pos.CountTurns() != len(ref.LegalMoves()) {
			t.Errorf("%v: %d classes of %d turns, the placement game %d of %d", moves, got, pos.CountTurns(), want, len(ref.LegalMoves()))
		}
	}
	// The 7 x 7 region beside a blocked column of an 8 x 7 board (moves
	// shifted one column right): the same classes, the region's symmetries.
	wide := capture.Config{Width: 8, Height: 7, Order: 5, Blocked: []string{"a1", "a2", "a3", "a4", "a5", "a6", "a7"}}
	for _, tc := range []struct{ moves, shifted []string }{{nil, nil}, {[]string{"X:d3,c4,d4,e4,d5"}, []string{"X:e3,d4,e4,f4,e5"}}} {
		small, err := capture.NewPosition(capture.DefaultConfig(), nil, nil, nil, "", tc.moves)
		if err != nil {
			t.Fatal(err)
		}
		pos, err := capture.NewPosition(wide, nil, nil, nil, "", tc.shifted)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := pos.DistinctTurns(100000), small.DistinctTurns(100000); got != want || pos.CountTurns() != small.CountTurns() {
			t.Errorf("%v beside a blocked column: %d classes of %d turns, on 7 x 7 %d of %d", tc.shifted, got, pos.CountTurns(), want, small.CountTurns())
		}
	}
	// Symmetric under the left-right flip, with removals among the turns:
	// a class holds one or two turns.
	pos, err := capture.NewPosition(capture.DefaultConfig(), nil, nil, nil, "", []string{"I:b1,c1,d1,e1,f1", "T:c2,d2,e2,d3,d4", "X:d5,c6,d6,e6,d7"})
	if err != nil {
		t.Fatal(err)
	}
	removals := 0
	for _, tu := range pos.LegalTurns() {
		removals += len(tu.Removals)
	}
	n, d := pos.CountTurns(), pos.DistinctTurns(100000)
	if removals == 0 || d >= n || 2*d < n {
		t.Errorf("flip-symmetric position (markers %v): %d classes of %d turns, %d removals", pos.Markers(), d, n, removals)
	}
	// Asymmetric, with removals among the turns.
	pos, err = capture.NewPosition(capture.DefaultConfig(), nil, nil, nil, "", []string{"I:b1,c1,d1,e1,f1", "L:d2,c2,b2,a2,a1", "Z:g1,e2,f2,g2,e3"})
	if err != nil {
		t.Fatal(err)
	}
	if got := pos.DistinctTurns(100000); got != pos.CountTurns() || got == 0 {
		t.Errorf("asymmetric position: %d classes of %d turns", got, pos.CountTurns())
	}
	if got := pos.DistinctTurns(pos.CountTurns() - 1); got != -1 {
		t.Errorf("over the limit: %d, want -1", got)
	}
}
