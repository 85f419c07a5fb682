package teeko_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/gamesolver/gamesolver/engine/teeko"
)

// Building takes a few seconds per rule set, so this example is compiled
// but not run.
func Example() {
	ctx := context.Background()
	dir := filepath.Join(os.TempDir(), "teeko-tables")
	path := teeko.TablePath(dir, teeko.Advanced)
	tb, err := teeko.LoadFile(path, teeko.Advanced)
	if err != nil {
		// Missing or corrupt (errors.Is(err, teeko.ErrCorruptTable)):
		// build it again.
		if tb, err = teeko.Build(ctx, teeko.Advanced, 0, nil); err != nil {
			log.Fatal(err)
		}
		if err := os.MkdirAll(dir, 0o755); err == nil {
			_ = tb.SaveFile(path)
		}
	}
	pos, err := teeko.ParseGame(teeko.Advanced, []string{"13", "7"})
	if err != nil {
		log.Fatal(err)
	}
	a, err := tb.Analyze(pos, teeko.StandardDrops)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(a.Phase, a.ToMove, a.Decides, a.Value, a.Result, a.BestMoves)
	for _, mv := range a.Moves {
		fmt.Println(mv.Move, mv.Value.Outcome, mv.Value.Plies, mv.Result)
	}
}

func ExampleParseBoard() {
	b, err := teeko.ParseBoard("...........br.rb.r.b..b..")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(b.Black.Squares(), b.Red.Squares())
	fmt.Print(b.Picture())
	_, err = teeko.ParseBoard("......x..................")
	fmt.Println(err, errors.Is(err, teeko.ErrBadBoard))
	// Output:
	// [12 16 20 23] [13 15 18]
	// . . . . .
	// . . . . .
	// . b r . r
	// b . r . b
	// . . b . .
	// character 'x' at square 7: expected b, r or . true
}

func ExampleNewPosition() {
	b, _ := teeko.BoardFromSquares([]int{12, 16, 20, 23}, []int{13, 15, 18, 25})
	_, err := teeko.NewPosition(teeko.Standard, b, teeko.NoColor)
	fmt.Println(err)
	p, err := teeko.NewPosition(teeko.Standard, b, teeko.Red)
	fmt.Println(p, p.Phase(), err)
	fmt.Println(p.LegalMoves()[:4])
	// Output:
	// all 8 pieces are down, so the board does not tell whose turn it is: give the side to move (black or red)
	// ...........br.rb.r.b..b.r red move <nil>
	// [13-7 13-8 13-9 13-14]
}

func ExampleParseGame() {
	p, err := teeko.ParseGame(teeko.Standard, []string{"13", "7", "12", "8", "14", "9", "11"})
	fmt.Println(p, err)
	fmt.Println(p.Over())
	_, err = teeko.ParseGame(teeko.Standard, []string{"13", "7", "13"})
	var me *teeko.MoveError
	fmt.Println(err, errors.Is(err, teeko.ErrIllegalMove), errors.As(err, &me) && me.Index == 3)
	// Output:
	// ......rrr.bbbb........... red <nil>
	// black true
	// move 3 (13): square 13 is occupied true true
}

func ExampleDropStyle_Decides() {
	style, _ := teeko.ParseDropStyle("two-move-alternate")
	for k := 0; k < teeko.DropPlies; k++ {
		fmt.Printf("ply %d: %s piece, %s decides\n", k+1, teeko.DropColor(k), style.Decides(k))
	}
	// Output:
	// ply 1: black piece, red decides
	// ply 2: red piece, black decides
	// ply 3: black piece, red decides
	// ply 4: red piece, black decides
	// ply 5: black piece, black decides
	// ply 6: red piece, red decides
	// ply 7: black piece, black decides
	// ply 8: red piece, red decides
}
