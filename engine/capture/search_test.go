package capture

import (
	"context"
	"fmt"
	"slices"
	"testing"
)

// TestTableFilter checks the filter that keeps table values out of reach
// of the history: an entry is refused when a position of the path could
// lie in its proof (pieces on the board within [kmin, kmax], the core
// pieces where the entry's position has them).
func TestTableFilter(t *testing.T) {
	g, err := NewGame(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	place := func(s *state, turn string) {
		tt, err := ParseTurn(turn)
		if err != nil {
			t.Fatal(err)
		}
		r, err := g.resolve(s, tt)
		if err != nil {
			t.Fatal(err)
		}
		s.play(g, r)
	}
	x := g.emptyState()
	place(&x, "I:a1,b1,c1,d1,e1")
	place(&x, "X:b3,a4,b4,c4,b5")
	z := x
	place(&z, "L:a7,b7,c7,d7,d6")
	moved := g.emptyState()
	place(&moved, "I:a2,b2,c2,d2,e2")
	place(&moved, "X:b4,a5,b5,c5,b6")
	i, xp, l := pieceSet(1)<<uint(g.byName["I"]), pieceSet(1)<<uint(g.byName["X"]), pieceSet(1)<<uint(g.byName["L"])

	s := newSearcher(context.Background(), g, []histEntry{entryOf(&x)}, 0, newTable(4))
	tests := []struct {
		name string
		e    ttEntry
		safe bool
	}{
		{"the path's position may be in the proof", ttEntry{core: i | xp, kmin: 2, kmax: 3}, false},
		{"an empty core admits any position of the right size", ttEntry{core: 0, kmin: 0, kmax: 3}, false},
		{"a core piece missing from the path's position", ttEntry{core: i | xp | l, kmin: 2, kmax: 3}, true},
		{"too few pieces on the path's position", ttEntry{core: i, kmin: 3, kmax: 4}, true},
		{"too many pieces on the path's position", ttEntry{core: i, kmin: 0, kmax: 1}, true},
	}
	for _, tc := range tests {
		if got := s.safe(&tc.e, &z); got != tc.safe {
			t.Errorf("%s: safe %v, want %v", tc.name, got, tc.safe)
		}
	}
	// The same pieces elsewhere on the board cannot be in the proof.
	s.path = []histEntry{entryOf(&moved)}
	if e := (ttEntry{core: i | xp, kmin: 2, kmax: 3}); !s.safe(&e, &z) {
		t.Error("pieces placed elsewhere: refused")
	}
}

// TestSolveProgress: a long search reports its node count about every
// million nodes, in increasing order, never beyond the result's count.
func TestSolveProgress(t *testing.T) {
	pos, err := NewPosition(DefaultConfig(), nil, nil, nil, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	var seen []int64
	res, err := Solve(context.Background(), pos, Options{MaxNodes: 2_500_000, Progress: func(n int64) { seen = append(seen, n) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) < 2 || seen[0] < 1<<20 || res.Nodes < seen[len(seen)-1] {
		t.Fatalf("progress %v, result %d nodes", seen, res.Nodes)
	}
	for i := 1; i < len(seen); i++ {
		if seen[i]-seen[i-1] < 1<<20 {
			t.Fatalf("progress %v: calls closer than 2^20 nodes", seen)
		}
	}
}

// TestUnprovenAllMovesHeuristicFirst: when the position is not proven,
// the list of every turn starts with the heuristic player's turn
// (Turns[0] is BestTurns[0]), as in the other polyomino games.
func TestUnprovenAllMovesHeuristicFirst(t *testing.T) {
	for _, turns := range [][]string{
		{"I:a1,b1,c1,d1,e1"},
		{"I:a1,b1,c1,d1,e1", "L:a2,b2,c2,d2,a3"},
	} {
		pos := mustPosition(t, DefaultConfig(), nil, nil, nil, "", turns)
		res, err := Solve(t.Context(), pos, Options{AllMoves: true, MaxNodes: 300000})
		if err != nil {
			t.Fatal(err)
		}
		if res.Proven || len(res.BestTurns) != 1 || len(res.Turns) != res.LegalTurns {
			t.Fatalf("%v: proven %v, %d best turns, %d of %d turns listed", turns, res.Proven, len(res.BestTurns), len(res.Turns), res.LegalTurns)
		}
		if res.Turns[0].Turn.String() != res.BestTurns[0].String() {
			t.Errorf("%v: first listed %s, heuristic turn %s", turns, res.Turns[0].Turn, res.BestTurns[0])
		}
	}
}

// TestExactModeHorizon checks the length search's use of the table: in
// exact mode an entry decides a node only if its proof's depth fits in
// what is left of the horizon, so that a shallower horizon does not
// borrow a deeper proof; the proof search uses any entry.
func TestExactModeHorizon(t *testing.T) {
	pos, err := NewPosition(Config{Width: 6, Height: 4, Order: 4}, nil, nil, nil, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	want := Length(t.Context(), pos, Options{})
	if !want.Known || want.Outcome != Win || want.Plies < 3 {
		t.Fatalf("length of the empty 6 x 4 board: %+v", want)
	}
	for _, exact := range []bool{true, false} {
		// No history: the root itself reads and writes the table.
		s := newSearcher(t.Context(), pos.game, nil, 0, newTable(16))
		s.exact = true
		s.horizon = want.Plies + 4
		if r := s.search(&pos.st, 0); r.val != valWin || int(r.plies) > s.horizon {
			t.Fatalf("horizon %d: %+v", s.horizon, r)
		}
		s.exact = exact
		for h := 1; h <= want.Plies; h++ {
			s.horizon = h
			r := s.search(&pos.st, 0)
			switch {
			case exact && h < want.Plies && r.val != valUnknown:
				t.Errorf("exact, horizon %d: %+v, want unknown (a win in %d)", h, r, want.Plies)
			case exact && h == want.Plies && (r.val != valWin || int(r.plies) != h):
				t.Errorf("exact, horizon %d: %+v, want a win in %d", h, r, h)
			case !exact && r.val != valWin:
				t.Errorf("proof search, horizon %d: %+v, want the table's win", h, r)
			}
		}
	}
}

// TestLengthIgnoresDeeperProofs gives Length a table full of proofs found
// under long horizons (wins that are not the fastest): the lengths and
// perfect turns must be those of a fresh table, with and without every
// turn's length.
func TestLengthIgnoresDeeperProofs(t *testing.T) {
	pos, err := NewPosition(Config{Width: 6, Height: 4, Order: 4}, nil, nil, nil, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	want := Length(t.Context(), pos, Options{AllMoves: true})
	table := NewTable(pos.game, 16)
	s := newSearcher(t.Context(), pos.game, pos.history, 0, table.t)
	newRoot(t.Context(), s, pos).deepen(9, func(int) bool { return false })
	for _, all := range []bool{false, true} {
		got := Length(t.Context(), pos, Options{AllMoves: all, Table: table})
		if !got.Known || got.Plies != want.Plies || !slices.Equal(turnStrings(got.Perfect), turnStrings(want.Perfect)) {
			t.Errorf("all moves %v: %s in %d plies, perfect %v; on a fresh table %s in %d, perfect %v",
				all, got.Outcome, got.Plies, turnStrings(got.Perfect), want.Outcome, want.Plies, turnStrings(want.Perfect))
		}
		if all && fmt.Sprint(got.Turns) != fmt.Sprint(want.Turns) {
			t.Errorf("every turn's length:\n got %v\nwant %v", got.Turns, want.Turns)
		}
	}
}

// TestDeepenHonoursBudget: a root of many turns checks the budget as it
// goes, though the horizon cuts each turn without a node (a position of
// 845,056 turns took 0.3 s of a 1 ms budget): with the context ended,
// one horizon searches at most 256 of the 440 turns.
func TestDeepenHonoursBudget(t *testing.T) {
	pos, err := NewPosition(DefaultConfig(), nil, nil, nil, "", benchGame[:8])
	if err != nil {
		t.Fatal(err)
	}
	for _, ended := range []bool{false, true} {
		ctx, cancel := context.WithCancel(context.Background())
		if ended {
			cancel()
		}
		s := newSearcher(ctx, pos.game, pos.history, 0, newTable(10))
		rt := newRoot(ctx, s, pos)
		if len(rt.turns) < 400 {
			t.Fatalf("%d turns: the test wants hundreds", len(rt.turns))
		}
		rt.deepen(1, func(int) bool { return false })
		if ended && rt.searched > 256 || !ended && rt.searched != len(rt.turns) {
			t.Errorf("context ended %v: %d of %d turns searched at horizon 1", ended, rt.searched, len(rt.turns))
		}
		cancel()
	}
}
