package tiling

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/gamesolver/gamesolver/engine/polyomino"
)

// TestCheck: Solve's complete answers pass Check (one per class and every
// tiling, multisets, leftover cells, hexominoes); each edit of one fails it
// (an audit's edited Redis entry, counts 7 and 3 with a row "garbage", was
// served).
func TestCheck(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name string
		p    Problem
		o    Options
	}{
		{"6x10 classes", Problem{Region: mustRegion(t, 10, 6)}, Options{Limit: 20}},
		{"5x12 every tiling", Problem{Region: mustRegion(t, 12, 5)}, Options{Limit: 30, EveryTiling: true}},
		{"8x8 centre", Problem{Region: mustRegion(t, 8, 8, "d4", "e4", "d5", "e5")}, Options{Limit: 1000}},
		{"leftover", Problem{Region: mustBoard(t, "#......", "......#", ".......", "......."), Pieces: mustPieces(t, "ILNPU", 0), AllowLeftover: true}, Options{Limit: 50}},
		{"multiset", Problem{Region: mustRegion(t, 5, 4), Pieces: mustPieces(t, "LLLL", 5), Multiset: true}, Options{Limit: 10, EveryTiling: true}},
		{"hexominoes", Problem{Region: mustRegion(t, 6, 4), Pieces: mustPieces(t, "H01,H02,H03", 0), AllowLeftover: true}, Options{Limit: 5}},
		{"no limit", Problem{Region: mustRegion(t, 10, 6)}, Options{}},
	}
	for _, tc := range cases {
		r, err := Solve(ctx, tc.p, Options{Limit: tc.o.Limit, EveryTiling: tc.o.EveryTiling, Workers: 2})
		if err != nil || !r.Complete {
			t.Fatalf("%s: %v, complete %v", tc.name, err, r.Complete)
		}
		if err := tc.p.Check(r, tc.o); err != nil {
			t.Errorf("%s: Solve's answer fails: %v", tc.name, err)
		}
		if len(r.Placements) < 2 {
			if tc.o.Limit > 0 {
				t.Errorf("%s: %d tilings listed: the edits below need two", tc.name, len(r.Placements))
			}
			continue
		}
		clone := func() Result {
			c := r
			c.Solutions = slices.Clone(r.Solutions)
			c.Placements = slices.Clone(r.Placements)
			for i := range c.Placements {
				c.Placements[i] = slices.Clone(r.Placements[i])
				c.Solutions[i] = slices.Clone(r.Solutions[i])
			}
			return c
		}
		moved := func(pl Placement, dx int) Placement {
			out := Placement{Piece: pl.Piece, Cells: slices.Clone(pl.Cells)}
			for i := range out.Cells {
				out.Cells[i].X += dx
			}
			return out
		}
		edits := map[string]func(*Result){
			"incomplete":       func(c *Result) { c.Complete = false },
			"count up":         func(c *Result) { c.Count++ },
			"count all down":   func(c *Result) { c.CountAll = c.Count - 1 },
			"symmetries":       func(c *Result) { c.Symmetries *= 2; c.Fixed *= 2 },
			"a tiling dropped": func(c *Result) { c.Placements, c.Solutions = c.Placements[1:], c.Solutions[1:] },
			"a tiling twice": func(c *Result) {
				c.Placements[len(c.Placements)-1], c.Solutions[len(c.Solutions)-1] = c.Placements[0], c.Solutions[0]
			},
			"a row garbled":     func(c *Result) { c.Solutions[0][0] = "garbage" },
			"a piece renamed":   func(c *Result) { c.Placements[0][0].Piece = "Q" },
			"a piece moved off": func(c *Result) { c.Placements[0][0] = moved(c.Placements[0][0], 40) },
			"a cell changed":    func(c *Result) { c.Placements[0][0].Cells[0] = c.Placements[0][1].Cells[0] },
			"a piece dropped":   func(c *Result) { c.Placements[0] = c.Placements[0][1:] },
			"a symmetric image": func(c *Result) {
				// The last tiling replaced by an image of the first (a
				// tiling of its class; itself when the region has no
				// symmetry but the identity: listed twice).
				x0, y0, w, h := tc.p.Region.openBox()
				syms := tc.p.Region.Symmetries()
				img := make([]Placement, len(c.Placements[0]))
				for j, pl := range c.Placements[0] {
					img[j] = Placement{Piece: pl.Piece}
					for _, cell := range pl.Cells {
						img[j].Cells = append(img[j].Cells, polyomino.MapInBox(syms[len(syms)-1], cell, x0, y0, w, h))
					}
					slices.SortFunc(img[j].Cells, cellOrder)
				}
				rows := tc.p.Region.Rows()
				for _, pl := range img {
					for _, cell := range pl.Cells {
						b := []byte(rows[cell.Y])
						b[cell.X] = polyomino.Symbol(pl.Piece)
						rows[cell.Y] = string(b)
					}
				}
				last := len(c.Placements) - 1
				if tc.o.EveryTiling {
					img, rows = c.Placements[0], c.Solutions[0] // every tiling: listed twice
				}
				c.Placements[last], c.Solutions[last] = img, rows
			},
			"a misshapen piece": func(c *Result) {
				// A cell of the first piece moved a row down: covered
				// twice, or the piece misshapen.
				c.Placements[0][0].Cells[0] = polyomino.Cell{X: c.Placements[0][0].Cells[0].X, Y: c.Placements[0][0].Cells[0].Y + 1}
			},
		}
		for name, edit := range edits {
			c := clone()
			edit(&c)
			if err := tc.p.Check(c, tc.o); err == nil {
				t.Errorf("%s: edited (%s): passes", tc.name, name)
			}
		}
	}
}

// BenchmarkCheck: the check of a cached answer listing 1000 tilings of
// the 6 x 10 rectangle, against decoding its JSON, which every cache hit
// pays anyway.
func BenchmarkCheck(b *testing.B) {
	p := Problem{Region: mustRegion(b, 10, 6)}
	o := Options{Limit: 1000}
	r, err := Solve(context.Background(), p, o)
	if err != nil || len(r.Placements) != 1000 {
		b.Fatalf("%v, %d tilings", err, len(r.Placements))
	}
	raw, err := json.Marshal(r)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("check", func(b *testing.B) {
		for b.Loop() {
			if err := p.Check(r, o); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("decode", func(b *testing.B) {
		for b.Loop() {
			var back Result
			if err := json.Unmarshal(raw, &back); err != nil {
				b.Fatal(err)
			}
		}
	})
}
