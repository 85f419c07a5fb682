package tiling_test

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/gamesolver/gamesolver/engine/tiling"
)

// The twelve pentominoes fill a 20 x 3 rectangle in two ways up to symmetry.
func Example() {
	region, err := tiling.ParseRegion(20, 3, nil)
	if err != nil {
		panic(err)
	}
	res, err := tiling.Solve(context.Background(), tiling.Problem{Region: region}, tiling.Options{Limit: 5})
	if err != nil {
		panic(err)
	}
	fmt.Println("distinct:", res.Count, "in all:", res.CountAll, "complete:", res.Complete)
	for _, rows := range res.Solutions {
		fmt.Println(strings.Join(rows, "\n"))
		fmt.Println()
	}
	// Output:
	// distinct: 2 in all: 8 complete: true
	// UUXIIIIINNNFTWYYYYZV
	// UXXXPPLNNFFFTWWYZZZV
	// UUXPPPLLLLFTTTWWZVVV
	//
	// UUXIIIIIZWWTTTFLLLLV
	// UXXXPPZZZYWWTFFFNNLV
	// UUXPPPZYYYYWTFNNNVVV
}

// A region with a blocked cell, given as rows, and four pieces; then the
// kind of error a bad request gets.
func ExampleParseBoard() {
	region, err := tiling.ParseBoard([]string{
		".......",
		"...#...",
		".......",
	})
	if err != nil {
		panic(err)
	}
	pieces, err := tiling.ParsePieces("I,L,P,T", 0)
	if err != nil {
		panic(err)
	}
	res, err := tiling.Solve(context.Background(), tiling.Problem{Region: region, Pieces: pieces}, tiling.Options{Limit: 1})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Symmetries, "symmetries,", res.Count, "distinct,", res.CountAll, "in all")
	fmt.Println(strings.Join(res.Solutions[0], "\n"))

	_, err = tiling.ParseBoard([]string{"....", "..."})
	fmt.Println(err, errors.Is(err, tiling.ErrBadRegion))
	_, err = tiling.ParsePieces("FILE", 0)
	fmt.Println(err)
	// Output:
	// 4 symmetries, 1 distinct, 4 in all
	// PIIIIIT
	// PPL#TTT
	// PPLLLLT
	// bad region: board row 2 has 3 cells, expected 4 like row 1 true
	// unknown piece: "E" is not one of the pentominoes (F I L N P T U V W X Y Z)
}
