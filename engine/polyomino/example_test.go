package polyomino_test

import (
	"context"
	"fmt"

	"github.com/gamesolver/gamesolver/engine/polyomino"
)

// Example shows the calls a service makes: a preset, a position from
// moves, its legal moves, and an analysis.
func Example() {
	cfg, _ := polyomino.Preset("pentominoes")
	start, _ := polyomino.NewPosition(cfg, nil, nil, polyomino.DefaultToMove)
	fmt.Println(start.LegalMoveCount(), start.DistinctUpToSymmetry())

	m, _ := polyomino.ParseMove("l:b4,a1,a2,a3,a4")
	fmt.Println(m)

	cfg, _ = polyomino.Preset("tetrominoes")
	pos, _ := polyomino.NewPosition(cfg, nil, []string{"I:a1,b1,c1,d1"}, polyomino.DefaultToMove)
	res, _ := polyomino.Solve(context.Background(), pos, polyomino.Options{AllMoves: true, TableMB: 1})
	fmt.Println(pos.ToMove(), res.Outcome, res.Proven, res.LegalMoves, len(res.Moves))
	// Output:
	// 2308 296
	// L:a1,a2,a3,a4,b4
	// second win true 152 152
}
