package capture_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/gamesolver/gamesolver/engine/capture"
)

// Example shows the calls an HTTP layer makes: a position from turns, its
// markers and board, an illegal turn, and an analysis.
func Example() {
	cfg := capture.DefaultConfig()
	pos, err := capture.NewPosition(cfg, nil, nil, nil, "", []string{
		"I:b1,c1,d1,e1,f1",
		"L:d2,c2,b2,a2,a1", // any cell order; L touches I by 4 edges: captured
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(pos.ToMove(), pos.Markers(), pos.Captured())
	fmt.Println(pos.Board()[0], pos.Board()[1])

	// First may not remove I: it carries second's marker.
	_, err = pos.PlayString("~I Z:g1,e2,f2,g2,e3")
	fmt.Println(errors.Is(err, capture.ErrNotYourMarker), err)

	// Z takes I back.
	pos, _ = pos.PlayString("Z:g1,e2,f2,g2,e3")
	fmt.Println(pos.Markers(), pos.CountTurns())

	// A small game solved exactly: 4 x 4 board, the five tetrominoes.
	small, _ := capture.NewPosition(capture.Config{Width: 4, Height: 4, Order: 4}, nil, nil, nil, "", []string{"I:a1,b1,c1,d1"})
	res, _ := capture.Solve(context.Background(), small, capture.Options{AllMoves: true})
	fmt.Println(small.ToMove(), res.Outcome, res.Proven, res.LegalTurns, len(res.Turns))
	// Output:
	// first map[I:second] [I]
	// LIIIII. LLLL...
	// true removal of I: it carries second's marker, not first's
	// map[I:first] 687
	// second win true 62 62
}
