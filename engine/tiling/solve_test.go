package tiling

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gamesolver/gamesolver/engine/polyomino"
)

func mustRegion(t testing.TB, w, h int, blocked ...string) Region {
	t.Helper()
	r, err := ParseRegion(w, h, blocked)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func mustBoard(t testing.TB, rows ...string) Region {
	t.Helper()
	r, err := ParseBoard(rows)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func mustPieces(t testing.TB, spec string, order int) Pieces {
	t.Helper()
	p, err := ParsePieces(spec, order)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestKnownCounts reproduces the published counts of pentomino
// rectangles (RULES.md section 3; the counts are well known, e.g. from
// Haselgrove 1960 and Knuth's "Dancing Links").
func TestKnownCounts(t *testing.T) {
	tests := []struct {
		name            string
		region          Region
		count, countAll int64
		symmetries      int
	}{
		{"6x10", mustRegion(t, 10, 6), 2339, 9356, 4},
		{"10x6", mustRegion(t, 6, 10), 2339, 9356, 4},
		{"5x12", mustRegion(t, 12, 5), 1010, 4040, 4},
		{"4x15", mustRegion(t, 15, 4), 368, 1472, 4},
		{"3x20", mustRegion(t, 20, 3), 2, 8, 4},
		{"20x3", mustRegion(t, 3, 20), 2, 8, 4},
		{"8x8 hole", mustRegion(t, 8, 8, "d4", "e4", "d5", "e5"), 65, 520, 8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := Problem{Region: tt.region}
			res, err := Solve(context.Background(), p, Options{Limit: 40, Workers: 2})
			if err != nil {
				t.Fatal(err)
			}
			if res.Count != tt.count || res.CountAll != tt.countAll || !res.Complete || res.Symmetries != tt.symmetries {
				t.Errorf("count %d, all %d, complete %v, %d symmetries; want %d, %d, true, %d",
					res.Count, res.CountAll, res.Complete, res.Symmetries, tt.count, tt.countAll, tt.symmetries)
			}
			if want := min(40, int(tt.count)); len(res.Solutions) != want || len(res.Placements) != want {
				t.Fatalf("%d solutions listed, want %d", len(res.Solutions), want)
			}
			classes := map[string]bool{}
			for i := range res.Solutions {
				verifySolution(t, p, res.Solutions[i], res.Placements[i])
				c, _ := classKey(p.Region, tilingKey(res.Placements[i]))
				if classes[c] {
					t.Errorf("solution %d repeats a class:\n%s", i, strings.Join(res.Solutions[i], "\n"))
				}
				classes[c] = true
			}
		})
	}
}

// TestSymmetryCounting checks hand-made problems whose counts are easy to
// see, on regions with 1, 2, 4 and 8 symmetries, including tilings that are
// themselves symmetric.
func TestSymmetryCounting(t *testing.T) {
	tests := []struct {
		name            string
		problem         Problem
		symmetries      int
		count, countAll int64
	}{
		// One X in its own shape: the tiling has all 8 symmetries.
		{"X alone", Problem{Region: mustBoard(t, "#.#", "...", "#.#"), Pieces: mustPieces(t, "X", 5)}, 8, 1, 1},
		// Five straight pieces fill 5 x 5 all across or all down: one
		// class of two tilings, each fixed by 4 of the 8 symmetries.
		{"5x5 by I", Problem{Region: mustRegion(t, 5, 5), Pieces: mustPieces(t, "IIIII", 5), Multiset: true}, 8, 1, 2},
		{"4x4 by I", Problem{Region: mustRegion(t, 4, 4), Pieces: mustPieces(t, "IIII", 4), Multiset: true}, 8, 1, 2},
		{"4x4 by O", Problem{Region: mustRegion(t, 4, 4), Pieces: mustPieces(t, "OOOO", 4), Multiset: true}, 8, 1, 1},
		// Regions one cell wide.
		{"10x1 by I", Problem{Region: mustRegion(t, 10, 1), Pieces: mustPieces(t, "II", 5), Multiset: true}, 4, 1, 1},
		{"1x8 by I and L", Problem{Region: mustRegion(t, 1, 8), Pieces: mustPieces(t, "IL", 4), Multiset: true}, 4, 0, 0},
		{"1x9 by I, leftover", Problem{Region: mustRegion(t, 1, 9), Pieces: mustPieces(t, "II", 4), Multiset: true, AllowLeftover: true}, 4, 2, 3},
		// Two I side by side: one tiling with all 4 symmetries of 5 x 2.
		{"5x2 by I", Problem{Region: mustRegion(t, 5, 2), Pieces: mustPieces(t, "II", 5), Multiset: true}, 4, 1, 1},
		// The same, with a corner blocked and one cell spare: the
		// region has no symmetry left.
		{"5x2 corner", Problem{Region: mustRegion(t, 5, 2, "a1"), Pieces: mustPieces(t, "I", 5), AllowLeftover: true}, 1, 1, 1},
		// Opposite corners blocked: only the half turn is left.
		{"6x2 half turn", Problem{Region: mustRegion(t, 6, 2, "a1", "f2"), Pieces: mustPieces(t, "II", 5), Multiset: true}, 2, 1, 1},
		// A pinwheel of blocked cells keeps the quarter turns but no
		// mirror: 4 symmetries on a square. Four T turn around the
		// centre: the one tiling has all 4.
		{"pinwheel", Problem{Region: mustRegion(t, 5, 5, "b1", "e2", "d5", "a4", "c3"), Pieces: mustPieces(t, "TTTT", 5), Multiset: true}, 4, 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Solve(context.Background(), tt.problem, Options{Limit: 100, EveryTiling: true})
			if err != nil {
				t.Fatal(err)
			}
			if res.Symmetries != tt.symmetries || res.Count != tt.count || res.CountAll != tt.countAll {
				t.Errorf("%d symmetries, count %d, all %d; want %d, %d, %d",
					res.Symmetries, res.Count, res.CountAll, tt.symmetries, tt.count, tt.countAll)
			}
			if len(res.Solutions) != int(tt.countAll) {
				t.Errorf("%d tilings listed, want %d", len(res.Solutions), tt.countAll)
			}
			for i := range res.Solutions {
				verifySolution(t, tt.problem, res.Solutions[i], res.Placements[i])
			}
			if got := len(regionSymmetries(tt.problem.Region)); got != tt.symmetries {
				t.Errorf("the test's own symmetry count is %d, want %d", got, tt.symmetries)
			}
		})
	}
}

// checkAgainstBrute solves p every way the API allows and compares with the
// brute force: the counts, every tiling listed once with EveryTiling, one
// tiling per class without it, and the same answers on 1 and 2 workers.
func checkAgainstBrute(t *testing.T, p Problem) (symmetries int, symmetric bool, count int) {
	t.Helper()
	wantCount, wantAll, symmetric, keys := bruteCounts(p)
	ctx := context.Background()
	every, err := Solve(ctx, p, Options{Limit: 1 << 20, EveryTiling: true, Workers: 1})
	if err != nil {
		t.Fatalf("%v\n%s", err, p.Region)
	}
	desc := fmt.Sprintf("region %s pieces %s leftover %v", p.Region, piecesOf(p), p.AllowLeftover)
	if every.Count != int64(wantCount) || every.CountAll != int64(wantAll) || !every.Complete {
		t.Fatalf("%s: count %d all %d complete %v; brute force %d, %d", desc, every.Count, every.CountAll, every.Complete, wantCount, wantAll)
	}
	var listed []string
	for i := range every.Solutions {
		verifySolution(t, p, every.Solutions[i], every.Placements[i])
		listed = append(listed, tilingKey(every.Placements[i]))
	}
	slices.Sort(listed)
	slices.Sort(keys)
	if !slices.Equal(listed, keys) {
		t.Fatalf("%s: the tilings listed differ from the brute force's\n%v\n%v", desc, listed, keys)
	}

	distinct, err := Solve(ctx, p, Options{Limit: 1 << 20, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if distinct.Count != every.Count || distinct.CountAll != every.CountAll || len(distinct.Solutions) != wantCount {
		t.Fatalf("%s: one per class: count %d all %d, %d listed; want %d, %d, %d",
			desc, distinct.Count, distinct.CountAll, len(distinct.Solutions), wantCount, wantAll, wantCount)
	}
	classes := map[string]bool{}
	for i := range distinct.Solutions {
		verifySolution(t, p, distinct.Solutions[i], distinct.Placements[i])
		c, _ := classKey(p.Region, tilingKey(distinct.Placements[i]))
		if classes[c] {
			t.Fatalf("%s: two listed tilings in one class", desc)
		}
		classes[c] = true
	}
	one, err := Solve(ctx, p, Options{Limit: 1 << 20, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.EqualFunc(one.Solutions, distinct.Solutions, slices.Equal) {
		t.Fatalf("%s: 1 and 2 workers list different solutions", desc)
	}
	return every.Symmetries, symmetric, wantCount
}

// TestAgainstBruteForce compares the engine with the brute force on many
// random small problems: regions closed under a random group of
// symmetries (so that all of 1, 2, 4 and 8 symmetries occur), random
// multisets of tetrominoes, pentominoes and hexominoes, some with cells
// left over.
func TestAgainstBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 2339))
	seenSyms := map[int]int{}
	symmetricBySyms := map[int]int{}
	var symmetricCases, leftoverCases, solvedCases, hexCases, wideCases int
	n := 1500
	if testing.Short() {
		n = 100
	}
	for i := 0; i < n; i++ {
		p := randomProblem(rng)
		syms, symmetric, count := checkAgainstBrute(t, p)
		seenSyms[syms]++
		if symmetric {
			symmetricCases++
			symmetricBySyms[syms]++
		}
		if count > 0 {
			solvedCases++
			if p.AllowLeftover {
				leftoverCases++
			}
			if p.Pieces[0].Size() == 6 {
				hexCases++
			}
			if min(p.Region.Width(), p.Region.Height())*p.Pieces[0].Size() > 64 {
				wideCases++
			}
		}
	}
	t.Logf("regions by number of symmetries %v, with a symmetric tiling %v; %d solvable, %d of them with leftover cells, %d with hexominoes, %d with pieces spanning over 64 cells",
		seenSyms, symmetricBySyms, solvedCases, leftoverCases, hexCases, wideCases)
	for _, s := range []int{1, 2, 4, 8} {
		if seenSyms[s] == 0 || (s > 1 && symmetricBySyms[s] == 0) {
			t.Errorf("no random region had %d symmetries and a symmetric tiling", s)
		}
	}
	if symmetricCases == 0 || solvedCases < n/4 || leftoverCases == 0 || hexCases == 0 || wideCases == 0 {
		t.Errorf("the random problems miss a kind of case")
	}
}

// TestSplitTwice covers roots split by a second piece: the first breaker
// (X) on the centre of a square keeps all 8 symmetries, so the engine
// places a second piece on each orbit of its placements.
func TestSplitTwice(t *testing.T) {
	for _, p := range []Problem{
		{Region: mustRegion(t, 5, 5), Pieces: mustPieces(t, "XI", 5), AllowLeftover: true},
		{Region: mustRegion(t, 5, 5), Pieces: mustPieces(t, "XLV", 5), AllowLeftover: true},
		{Region: mustRegion(t, 4, 4), Pieces: mustPieces(t, "OL", 4), AllowLeftover: true},
	} {
		c, err := compile(p)
		if err != nil {
			t.Fatal(err)
		}
		twice := false
		for _, rt := range c.roots {
			twice = twice || len(rt.placed) >= 2
		}
		if !twice {
			t.Errorf("%s by %s: no root holds two pieces", p.Region, p.Pieces)
		}
		checkAgainstBrute(t, p)
	}
}

// randomProblem makes a small random problem with a region closed under
// a random group of symmetries.
func randomProblem(rng *rand.Rand) Problem {
	for {
		w, h := 2+rng.IntN(5), 2+rng.IntN(5)
		if rng.IntN(3) == 0 {
			h = w
		}
		if w*h > 25 {
			continue
		}
		// Generators of the group the blocked cells are closed under.
		var gens []int
		for range rng.IntN(3) {
			gens = append(gens, rng.IntN(8))
		}
		blocked := map[polyomino.Cell]bool{}
		for range rng.IntN(4) {
			blocked[polyomino.Cell{X: rng.IntN(w), Y: rng.IntN(h)}] = true
		}
		for changed := true; changed; {
			changed = false
			for c := range blocked {
				for _, g := range gens {
					if g%2 == 1 && w != h {
						continue
					}
					if d := mapCell(g, c, w, h); !blocked[d] {
						blocked[d] = true
						changed = true
					}
				}
			}
		}
		var names []string
		for c := range blocked {
			names = append(names, c.String())
		}
		r, err := ParseRegion(w, h, names)
		if err != nil {
			panic(err)
		}
		order := 4 + rng.IntN(2)
		if rng.IntN(8) == 0 {
			order = 6
		}
		set, _ := polyomino.Pieces(order)
		area := r.Area()
		count := area / order
		if count == 0 || (order == 6 && count > 3) || (area%order != 0 && rng.IntN(3) > 0) {
			continue
		}
		p := Problem{Region: r, AllowLeftover: area%order != 0 || rng.IntN(8) == 0}
		if p.AllowLeftover && area%order == 0 {
			count--
		}
		for range count {
			var pc *polyomino.Piece
			if len(p.Pieces) > 0 && rng.IntN(3) == 0 {
				pc = p.Pieces[rng.IntN(len(p.Pieces))]
			} else {
				pc = set.Pieces[rng.IntN(len(set.Pieces))]
			}
			p.Pieces = append(p.Pieces, pc)
		}
		if len(p.Pieces) == 0 {
			continue
		}
		p.Multiset = true
		if rng.IntN(4) == 0 {
			p.Region = embed(rng, p.Region)
		}
		return p
	}
}

// embed puts a region into a larger rectangle, every other cell blocked,
// so that lines are long (pieces span more than 64 cells in scan order) and
// long runs of blocked cells lie between open ones. Centred, it keeps the
// region's symmetries.
func embed(rng *rand.Rand, r Region) Region {
	w, h := 13+rng.IntN(4), 13+rng.IntN(4)
	if r.Width() == r.Height() && rng.IntN(2) == 0 {
		h = w
	}
	dx, dy := rng.IntN(w-r.Width()+1), rng.IntN(h-r.Height()+1)
	if rng.IntN(2) == 0 && (w-r.Width())%2 == 0 && (h-r.Height())%2 == 0 {
		dx, dy = (w-r.Width())/2, (h-r.Height())/2
	}
	var blocked []string
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			if !r.Open(x-dx, y-dy) {
				blocked = append(blocked, cellName(x, y))
			}
		}
	}
	big, err := ParseRegion(w, h, blocked)
	if err != nil {
		panic(err)
	}
	return big
}

// TestQuadrantDoubleCount is the trap of the usual symmetry breaking:
// keeping the X pentomino's centre in one quarter of the rectangle (axes
// included) counts a tiling twice when X sits on an axis, because its
// mirror image keeps X on the same spot. In a 3-high rectangle X always
// sits on the middle row; in 5 x 5 it can sit on the middle column or row.
// The naive count (computed here by brute force) is too high, and the
// engine must agree with the true count.
func TestQuadrantDoubleCount(t *testing.T) {
	tests := []struct {
		region          Region
		pieces          string
		count, countAll int
	}{
		{mustRegion(t, 10, 3), "XINPUY", 2, 8},
		{mustRegion(t, 5, 5), "XFLPU", 1, 8},
	}
	for _, tt := range tests {
		p := Problem{Region: tt.region, Pieces: mustPieces(t, tt.pieces, 5)}
		count, countAll, _, keys := bruteCounts(p)
		naive := 0
		for _, k := range keys {
			for _, q := range parseKey(k) {
				if q.Piece != "X" {
					continue
				}
				cx, cy := q.Cells[2].X, q.Cells[2].Y // the middle cell in reading order
				if 2*cx <= p.Region.Width()-1 && 2*cy <= p.Region.Height()-1 {
					naive++
				}
			}
		}
		if count != tt.count || countAll != tt.countAll || naive <= count {
			t.Fatalf("%s by %s: brute force finds %d classes, %d tilings, naive %d: no trap", tt.region, tt.pieces, count, countAll, naive)
		}
		res, err := Solve(context.Background(), p, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Count != int64(count) || res.CountAll != int64(countAll) {
			t.Errorf("%s by %s: count %d, all %d; want %d, %d (a quadrant would give %d)",
				tt.region, tt.pieces, res.Count, res.CountAll, count, countAll, naive)
		}
	}
}

// TestHexominoes solves small hexomino puzzles and checks the symbols.
func TestHexominoes(t *testing.T) {
	set, err := polyomino.Pieces(6)
	if err != nil {
		t.Fatal(err)
	}
	for i, pc := range set.Pieces {
		want := "123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"[i]
		if Symbol(pc) != want {
			t.Errorf("Symbol(%s) = %q, want %q", pc.Name, Symbol(pc), want)
		}
	}
	p := Problem{Region: mustRegion(t, 6, 2), Pieces: mustPieces(t, "H01,H01", 0), Multiset: true}
	res, err := Solve(context.Background(), p, Options{Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	if res.CountAll != 1 || res.Count != 1 || len(res.Solutions) != 1 || res.Solutions[0][0] != "111111" {
		t.Errorf("6x2 by two H01: %+v", res)
	}
	// All 35 hexominoes in a 15 x 14 box: too many tilings to count, so a
	// small node budget must stop the search cleanly.
	big := Problem{Region: mustRegion(t, 15, 14), Pieces: mustPieces(t, "hexominoes", 0)}
	res, err = Solve(context.Background(), big, Options{MaxNodes: 20000, Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Complete || res.Nodes < 20000 {
		t.Errorf("35 hexominoes: complete %v after %d nodes, want a stop after 20000", res.Complete, res.Nodes)
	}
}

// TestStopping checks the context, the budgets and progress reports.
func TestStopping(t *testing.T) {
	p := Problem{Region: mustRegion(t, 10, 6)}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := Solve(ctx, p, Options{})
	if err != nil || res.Complete {
		t.Errorf("canceled context: complete %v, error %v", res.Complete, err)
	}

	res, err = Solve(context.Background(), p, Options{MaxNodes: 50000, Workers: 2})
	if err != nil || res.Complete || res.CountAll >= 9356 || res.Nodes < 50000 || res.Nodes > 50000+2*pollEvery+1000 {
		t.Errorf("node budget: complete %v, %d tilings after %d nodes, error %v", res.Complete, res.CountAll, res.Nodes, err)
	}

	res, err = Solve(context.Background(), p, Options{Budget: time.Microsecond})
	if err != nil || res.Complete {
		t.Errorf("time budget: complete %v, error %v", res.Complete, err)
	}

	var calls, inCall atomic.Int32
	var last Progress
	res, err = Solve(context.Background(), p, Options{Workers: 2, Progress: func(pr Progress) {
		if inCall.Add(1) != 1 {
			t.Error("progress called concurrently")
		}
		if pr.Done < last.Done || pr.CountAll < last.CountAll || pr.Nodes < last.Nodes || pr.Total <= 0 {
			t.Errorf("progress went from %+v to %+v", last, pr)
		}
		last = pr
		calls.Add(1)
		inCall.Add(-1)
	}})
	if err != nil {
		t.Fatal(err)
	}
	if int(calls.Load()) < res.Subtrees || last.Done != last.Total || last.Total != res.Subtrees || last.CountAll != res.CountAll || last.Count != res.Count {
		t.Errorf("%d progress calls for %d subtrees, last %+v, result %d/%d", calls.Load(), res.Subtrees, last, res.Count, res.CountAll)
	}

	// A long subtree still reports: 35 hexominoes in 15 x 14 (too many
	// tilings to count) on one worker for half a second.
	big := Problem{Region: mustRegion(t, 15, 14), Pieces: mustPieces(t, "hexominoes", 0)}
	calls.Store(0)
	res, err = Solve(context.Background(), big, Options{Workers: 1, Budget: 500 * time.Millisecond, Progress: func(pr Progress) {
		calls.Add(1)
		last = pr
	}})
	if err != nil || res.Complete || calls.Load() < 2 || last.Nodes == 0 {
		t.Errorf("hexominoes: complete %v, %d progress calls, last %+v, error %v", res.Complete, calls.Load(), last, err)
	}
}

// TestDeterministic: the listed solutions do not depend on the number of
// workers, and a larger limit extends a smaller one.
func TestDeterministic(t *testing.T) {
	p := Problem{Region: mustRegion(t, 15, 4)}
	var first [][]string
	for _, opt := range []Options{{Limit: 30, Workers: 1}, {Limit: 30, Workers: 2}, {Limit: 30, Workers: 7}, {Limit: 100, Workers: 2}} {
		res, err := Solve(context.Background(), p, opt)
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = res.Solutions
			continue
		}
		if !slices.EqualFunc(res.Solutions[:30], first, slices.Equal) {
			t.Errorf("options %+v list other solutions", opt)
		}
	}
}

func TestErrors(t *testing.T) {
	tests := []struct {
		name string
		err  func() error
		want error
		text string
	}{
		{"zero width", func() error { _, err := ParseRegion(0, 5, nil); return err }, ErrBadRegion, "at least 1"},
		{"too wide", func() error { _, err := ParseRegion(27, 2, nil); return err }, ErrRegionTooLarge, "at most 256 cells"},
		{"too many cells", func() error { _, err := ParseRegion(17, 16, nil); return err }, ErrRegionTooLarge, "17 x 16"},
		{"cell outside", func() error { _, err := ParseRegion(10, 6, []string{"k1"}); return err }, ErrBadRegion, "columns a..j, rows 1..6"},
		{"row outside", func() error { _, err := ParseRegion(10, 6, []string{"a7"}); return err }, ErrBadRegion, "outside the 10 x 6 region"},
		{"bad cell", func() error { _, err := ParseRegion(10, 6, []string{"4d"}); return err }, ErrBadRegion, `"4d"`},
		{"row zero", func() error { _, err := ParseRegion(10, 6, []string{"a0"}); return err }, ErrBadRegion, "row number"},
		{"cell twice", func() error { _, err := ParseRegion(8, 8, []string{"d4", "D4", "d5"}); return err }, ErrBadRegion, "blocked cell d4 listed twice"},
		{"no rows", func() error { _, err := ParseBoard(nil); return err }, ErrBadRegion, "no rows"},
		{"ragged", func() error { _, err := ParseBoard([]string{"....", "...", "...."}); return err }, ErrBadRegion, "row 2 has 3 cells, expected 4"},
		{"bad char", func() error { _, err := ParseBoard([]string{"..", ".x"}); return err }, ErrBadRegion, "cell b2"},
		{"non-ASCII cell", func() error { _, err := ParseBoard([]string{"....é"}); return err }, ErrBadRegion, "cell e1: character 'é'"},
		{"rows counted in characters", func() error { _, err := ParseBoard([]string{".....", "é...."}); return err }, ErrBadRegion, "cell a2"},
		{"big board", func() error { _, err := ParseBoard(slices.Repeat([]string{"..."}, 30)); return err }, ErrRegionTooLarge, "3 x 30"},
		{"unknown piece", func() error { _, err := ParsePieces("FILE", 0); return err }, ErrUnknownPiece, `"E" is not one of the pentominoes`},
		{"unknown hexomino", func() error { _, err := ParsePieces("H36", 0); return err }, ErrUnknownPiece, "H36"},
		{"not a tetromino", func() error { _, err := ParsePieces("F", 4); return err }, ErrUnknownPiece, "tetrominoes (I O T S L)"},
		{"mixed orders", func() error { _, err := ParsePieces("OF", 0); return err }, ErrBadPieces, "one order"},
		{"a set's name misspelt", func() error { _, err := ParsePieces("hexomino", 0); return err }, ErrBadPieces, `did you mean "hexominoes"`},
		{"a tetromino and no piece", func() error { _, err := ParsePieces("OE", 0); return err }, ErrUnknownPiece, `"E" is not one of the tetrominoes`},
		{"hexomino and letter", func() error { _, err := ParsePieces("H01,F", 0); return err }, ErrBadPieces, "one order"},
		{"bad character", func() error { _, err := ParsePieces("F-I", 0); return err }, ErrBadPieces, `'-'`},
		{"bad order", func() error { _, err := ParsePieces("F", 7); return err }, ErrBadPieces, "order 7"},
		{"set of other order", func() error { _, err := ParsePieces("hexominoes", 5); return err }, ErrBadPieces, "order 6"},
		{"too many", func() error { _, err := ParsePieces(strings.Repeat("I", 65), 0); return err }, ErrBadPieces, "at most 64"},
		{"only commas", func() error { _, err := ParsePieces(",,", 0); return err }, ErrBadPieces, "no piece names"},
		{"a set's name in a list", func() error { _, err := ParsePieces("tetrominoes,F", 0); return err }, ErrBadPieces, `"tetrominoes" names a whole set`},
		{"a set's name twice", func() error { _, err := ParsePieces("pentominoes pentominoes", 0); return err }, ErrBadPieces, `"pentominoes" names a whole set`},
		{"repeated", func() error {
			_, err := Solve(context.Background(), Problem{Region: mustRegion(t, 5, 2), Pieces: mustPieces(t, "II", 5)}, Options{})
			return err
		}, ErrRepeatedPiece, "I is listed more than once"},
		{"area too small", func() error {
			_, err := Solve(context.Background(), Problem{Region: mustRegion(t, 10, 6, "a1")}, Options{})
			return err
		}, ErrAreaMismatch, "only 59 cells open; remove pieces or unblock 1 cell"},
		{"area too small, unblocking not enough", func() error {
			_, err := Solve(context.Background(), Problem{Region: mustRegion(t, 5, 5, "a1", "b1", "c1", "d1", "e1")}, Options{})
			return err
		}, ErrAreaMismatch, "the 12 pieces cover 60 cells but the region has only 20 cells open; remove pieces or use a larger region (unblocking all 5 cells would not be enough)"},
		{"area too small, nothing blocked", func() error {
			_, err := Solve(context.Background(), Problem{Region: mustRegion(t, 4, 1), Pieces: mustPieces(t, "I", 5)}, Options{})
			return err
		}, ErrAreaMismatch, "the piece covers 5 cells but the region has only 4 cells open; remove pieces or use a larger region"},
		{"area too large, one piece", func() error {
			_, err := Solve(context.Background(), Problem{Region: mustRegion(t, 3, 2), Pieces: mustPieces(t, "I", 4)}, Options{})
			return err
		}, ErrAreaMismatch, "the region has 6 cells open but the piece covers 4 cells; block 2 cells"},
		{"area too large", func() error {
			_, err := Solve(context.Background(), Problem{Region: mustRegion(t, 8, 8)}, Options{})
			return err
		}, ErrAreaMismatch, "block 4 cells, or allow leftover cells"},
		{"leftover too small", func() error {
			_, err := Solve(context.Background(), Problem{Region: mustRegion(t, 5, 5), AllowLeftover: true}, Options{})
			return err
		}, ErrAreaMismatch, "cover 60 cells"},
		{"mixed orders in problem", func() error {
			set4, _ := polyomino.Pieces(4)
			p := Problem{Region: mustRegion(t, 3, 3), Pieces: Pieces{DefaultPieces()[0], set4.Pieces[0]}}
			_, err := Solve(context.Background(), p, Options{})
			return err
		}, ErrBadPieces, "F has 5 cells but I has 4"},
		{"empty region", func() error { _, err := Solve(context.Background(), Problem{}, Options{}); return err }, ErrBadRegion, "empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.err()
			if !errors.Is(err, tt.want) || !strings.Contains(fmt.Sprint(err), tt.text) {
				t.Errorf("error %v, want %v containing %q", err, tt.want, tt.text)
			}
		})
	}
}

func TestParsePieces(t *testing.T) {
	tests := []struct {
		spec  string
		order int
		want  string
	}{
		{"", 0, "FILNPTUVWXYZ"},
		{"pentominoes", 0, "FILNPTUVWXYZ"},
		{"Tetrominoes", 4, "IOTSL"},
		{"filnptuvwxyz", 5, "FILNPTUVWXYZ"},
		{"F, I ,L", 0, "FIL"},
		{"ILT", 0, "ILT"},
		{"ILT", 4, "ILT"},
		{"ILTO", 0, "ILTO"},
		{"IIX", 0, "IIX"},
		{"H01,H35", 0, "H01,H35"},
		{"h1h2 H3", 0, "H01,H02,H03"},
	}
	for _, tt := range tests {
		p, err := ParsePieces(tt.spec, tt.order)
		if err != nil {
			t.Errorf("ParsePieces(%q, %d): %v", tt.spec, tt.order, err)
			continue
		}
		if p.String() != tt.want {
			t.Errorf("ParsePieces(%q, %d) = %s, want %s", tt.spec, tt.order, p, tt.want)
		}
	}
	four, _ := ParsePieces("ILT", 4)
	five, _ := ParsePieces("ILT", 0)
	if four[0].Size() != 4 || five[0].Size() != 5 {
		t.Errorf("ILT: order 4 gives size %d, order 0 size %d", four[0].Size(), five[0].Size())
	}
	hex, _ := ParsePieces("hexominoes", 0)
	if len(hex) != 35 || hex.Area() != 210 {
		t.Errorf("hexominoes: %d pieces, area %d", len(hex), hex.Area())
	}
}

func TestRegion(t *testing.T) {
	r := mustRegion(t, 8, 8, "D4", "e4", " d5", "e5")
	b := mustBoard(t, r.Rows()...)
	if r != b || r.Area() != 60 || r.String() != "......../......../......../...##.../...##.../......../......../........" {
		t.Errorf("region %s (area %d) and its board %s differ", r, r.Area(), b)
	}
	if got := strings.Join(r.Blocked(), ","); got != "d4,e4,d5,e5" {
		t.Errorf("Blocked() = %s", got)
	}
	if r.Open(3, 3) || !r.Open(0, 0) || r.Open(-1, 0) || r.Open(8, 0) {
		t.Error("Open is wrong")
	}
	if cellName(3, 3) != "d4" || cellName(0, 15) != "a16" {
		t.Error("cellName is wrong")
	}
}

func TestPlacementString(t *testing.T) {
	p := Placement{Piece: "L", Cells: []polyomino.Cell{{X: 0, Y: 0}, {X: 0, Y: 1}, {X: 0, Y: 2}, {X: 0, Y: 3}, {X: 1, Y: 3}}}
	if p.String() != "L:a1,a2,a3,a4,b4" {
		t.Errorf("got %s", p)
	}
}

// TestSymmetriesOfOpenCells: a region's symmetries are those of its open
// cells wherever they lie in the rectangle: a 5 x 5 square beside a
// blocked column has the square's 8 (it had the rectangle's 2).
func TestSymmetriesOfOpenCells(t *testing.T) {
	square, err := ParseBoard([]string{".....", ".....", ".....", ".....", "....."})
	if err != nil {
		t.Fatal(err)
	}
	beside, err := ParseBoard([]string{"#.....", "#.....", "#.....", "#.....", "#....."})
	if err != nil {
		t.Fatal(err)
	}
	pieces := mustPieces(t, "TWPYL", 5)
	a, err := Solve(context.Background(), Problem{Region: square, Pieces: pieces}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Solve(context.Background(), Problem{Region: beside, Pieces: pieces}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(beside.Symmetries()) != 8 || b.Symmetries != 8 || b.Count != a.Count || b.CountAll != a.CountAll || a.CountAll == 0 {
		t.Errorf("beside a blocked column: %d symmetries, %d / %d tilings; the square alone: %d, %d / %d",
			b.Symmetries, b.Count, b.CountAll, a.Symmetries, a.Count, a.CountAll)
	}
}

// TestPartialListing: a search cut short lists the classes it found, one
// tiling each, also those whose first tiling it had not reached (a review
// saw 19,738 classes found and none listed: 48 L pentominoes on 20 x 12,
// where every tiling found first has its mirror image later in the
// search).
func TestPartialListing(t *testing.T) {
	reg := mustRegion(t, 20, 12)
	p := Problem{Region: reg, Pieces: mustPieces(t, strings.Repeat("L", 48), 5), Multiset: true}
	res, err := Solve(context.Background(), p, Options{Limit: 40, Workers: 1, MaxNodes: 200_000})
	if err != nil {
		t.Fatal(err)
	}
	if res.Complete || res.Count == 0 {
		t.Fatalf("complete %v, %d classes: the test needs a search cut short that found some", res.Complete, res.Count)
	}
	if want := min(40, int(res.Count)); len(res.Solutions) != want || len(res.Placements) != want {
		t.Fatalf("%d classes found, %d tilings listed; want %d", res.Count, len(res.Solutions), want)
	}
	classes := map[string]bool{}
	for i, pl := range res.Placements {
		cells := map[polyomino.Cell]bool{}
		for _, q := range pl {
			for _, c := range q.Cells {
				cells[c] = true
			}
		}
		if len(pl) != 48 || len(cells) != 240 {
			t.Fatalf("tiling %d: %d pieces covering %d cells", i, len(pl), len(cells))
		}
		k, _ := classKey(reg, tilingKey(pl))
		if classes[k] {
			t.Errorf("tiling %d: its class is listed twice", i)
		}
		classes[k] = true
	}
}

// TestParts: the parts of a search (Options.Parts) add up to the whole
// search, their solutions listed part after part are the whole search's,
// whatever the workers, on regions with 1, 2, 4 and 8 symmetries, with
// leftover cells, listing every tiling, and parts more than the subtrees.
func TestParts(t *testing.T) {
	tests := []struct {
		name  string
		p     Problem
		parts int
		opts  Options
	}{
		{"6 x 10", Problem{Region: mustRegion(t, 10, 6)}, 16, Options{Limit: 40}},
		{"8 x 8 centre hole", Problem{Region: mustRegion(t, 8, 8, "d4", "e4", "d5", "e5")}, 7, Options{Limit: 30}},
		{"8 x 8 corners, every tiling", Problem{Region: mustRegion(t, 8, 8, "a1", "h1", "a8", "h8")}, 5, Options{Limit: 50, EveryTiling: true}},
		{"5 x 5, five pieces", Problem{Region: mustRegion(t, 5, 5), Pieces: mustPieces(t, "ILNPU", 5)}, 3, Options{Limit: 10}},
		{"asymmetric", Problem{Region: mustRegion(t, 7, 5, "a1", "g5", "b1"), Pieces: mustPieces(t, "FILNPT", 5), AllowLeftover: true}, 9, Options{Limit: 20}},
		{"more parts than subtrees (one)", Problem{Region: mustRegion(t, 5, 3), Pieces: mustPieces(t, "LPV", 5)}, 3, Options{Limit: 5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			whole, err := Solve(context.Background(), tt.p, tt.opts)
			if err != nil || !whole.Complete || whole.CountAll == 0 {
				t.Fatalf("whole: %v %+v", err, whole)
			}
			var sum Result
			for k := range tt.parts {
				opts := tt.opts
				opts.Parts, opts.Part, opts.Workers = tt.parts, k, 1+k%3
				part, err := Solve(context.Background(), tt.p, opts)
				if err != nil || !part.Complete {
					t.Fatalf("part %d: %v %+v", k, err, part)
				}
				sum.CountAll += part.CountAll
				sum.Fixed += part.Fixed
				for _, s := range part.Solutions {
					if len(sum.Solutions) < tt.opts.Limit {
						sum.Solutions = append(sum.Solutions, s)
					}
				}
			}
			if sum.Fixed/int64(whole.Symmetries) != whole.Count || sum.CountAll != whole.CountAll || sum.Fixed != whole.Fixed {
				t.Errorf("parts: count %d, all %d, fixed %d; whole: %d, %d, %d", sum.Fixed/int64(whole.Symmetries), sum.CountAll, sum.Fixed, whole.Count, whole.CountAll, whole.Fixed)
			}
			if !slices.EqualFunc(sum.Solutions, whole.Solutions, slices.Equal) {
				t.Errorf("parts list %d solutions, other than the whole search's %d", len(sum.Solutions), len(whole.Solutions))
			}
		})
	}
	if _, err := Solve(context.Background(), Problem{Region: mustRegion(t, 10, 6)}, Options{Parts: 4, Part: 4}); err == nil {
		t.Error("part 4 of 4: no error")
	}
}

// TestShape: congruent regions (rotated, reflected, moved within a larger
// rectangle) have one Shape, others not; and their counts agree.
func TestShape(t *testing.T) {
	same := [][]Region{
		{mustRegion(t, 8, 8, "a1", "h8"), mustRegion(t, 8, 8, "h1", "a8")},
		{mustRegion(t, 10, 6), mustRegion(t, 6, 10), mustBoard(t, "############", "#..........#", "#..........#", "#..........#", "#..........#", "#..........#", "#..........#", "############")},
		{mustBoard(t, "#.....", "......", "......", "......", "......"), mustBoard(t, ".....", ".....", ".....", ".....", ".....", "....#"), mustBoard(t, "......", "......", "......", "......", ".....#")},
	}
	var shapes []string
	for i, group := range same {
		s := group[0].Shape()
		for _, r := range group[1:] {
			if r.Shape() != s {
				t.Errorf("group %d: %s has shape %s, %s has %s", i, group[0], s, r, r.Shape())
			}
		}
		if slices.Contains(shapes, s) {
			t.Errorf("group %d: shape %s of another group", i, s)
		}
		shapes = append(shapes, s)
	}
	// Not congruent: one blocked corner against one blocked cell beside it.
	if a, b := mustRegion(t, 5, 5, "a1").Shape(), mustRegion(t, 5, 5, "b1").Shape(); a == b {
		t.Errorf("a1 and b1 blocked: one shape %s", a)
	}
	var counts [][2]int64
	for _, r := range same[1] {
		res, err := Solve(context.Background(), Problem{Region: r}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		counts = append(counts, [2]int64{res.Count, res.CountAll})
	}
	if counts[0] != counts[1] || counts[0] != counts[2] {
		t.Errorf("congruent regions, other counts: %v", counts)
	}
}

// TestTilingClass: every tiling of two regions, listed with their images,
// falls into as many classes as the count says, each holding as many
// tilings as its images.
func TestTilingClass(t *testing.T) {
	for _, r := range []Region{mustRegion(t, 8, 8, "d4", "e4", "d5", "e5"), mustRegion(t, 20, 3), mustRegion(t, 10, 6)} {
		res, err := Solve(context.Background(), Problem{Region: r}, Options{EveryTiling: true, Limit: 1000})
		if err != nil || !res.Complete {
			t.Fatal(err)
		}
		classes := map[string]int{}
		for _, p := range res.Placements {
			classes[r.TilingClass(p)]++
		}
		if res.CountAll <= 1000 && (len(res.Placements) != int(res.CountAll) || len(classes) != int(res.Count)) {
			t.Errorf("%s: %d tilings in %d classes; counted %d in %d", r, len(res.Placements), len(classes), res.CountAll, res.Count)
		}
		for k, n := range classes {
			if n > len(r.Symmetries()) {
				t.Errorf("%s: class %s holds %d tilings, more than the %d symmetries", r, k, n, len(r.Symmetries()))
			}
		}
		if len(res.Placements) > 1 && r.TilingClass(res.Placements[0]) == "" {
			t.Errorf("%s: empty class", r)
		}
	}
}

// TestPlacementJSON: a placement is written as its move notation and read
// back the same; anything else is refused.
func TestPlacementJSON(t *testing.T) {
	p := Placement{Piece: "H07", Cells: []polyomino.Cell{{X: 0, Y: 0}, {X: 1, Y: 0}, {X: 1, Y: 1}, {X: 2, Y: 1}, {X: 2, Y: 2}, {X: 25, Y: 9}}}
	b, err := json.Marshal([]Placement{p})
	if err != nil || string(b) != `["H07:a1,b1,b2,c2,c3,z10"]` {
		t.Fatalf("marshal: %s %v", b, err)
	}
	var back []Placement
	if err := json.Unmarshal(b, &back); err != nil || len(back) != 1 || back[0].String() != p.String() || !slices.Equal(back[0].Cells, p.Cells) {
		t.Errorf("unmarshal: %+v %v", back, err)
	}
	// The form of earlier versions (job results, cached answers) is read.
	var old []Placement
	if err := json.Unmarshal([]byte(`[{"Piece":"H07","Cells":[{"X":0,"Y":0},{"X":1,"Y":0},{"X":1,"Y":1},{"X":2,"Y":1},{"X":2,"Y":2},{"X":25,"Y":9}]}]`), &old); err != nil || len(old) != 1 || old[0].String() != p.String() {
		t.Errorf("earlier form: %+v %v", old, err)
	}
	for _, bad := range []string{`"L"`, `":a1"`, `"L:a1,zz"`, `"L:"`, `5`, `{"Piece":"L"}`, `{"Cells":[{"X":0,"Y":0}]}`,
		`{"Piece":"L","Cells":[{"X":-1,"Y":0}]}`, `{"Piece":"L:x","Cells":[{"X":3,"Y":0}]}`, `{"Piece":"L","Cells":[{"X":0,"Y":-5}]}`} {
		var q Placement
		if err := json.Unmarshal([]byte(bad), &q); err == nil {
			t.Errorf("%s: read as %+v", bad, q)
		}
	}
}
