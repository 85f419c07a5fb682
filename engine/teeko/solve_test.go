package teeko

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestKnownFacts checks the published results (RULES.md): standard Teeko is
// a draw, advanced Teeko a win for Black, both with standard drops.
func TestKnownFacts(t *testing.T) {
	for _, tc := range []struct {
		rules Rules
		want  Outcome
	}{
		{Standard, Draw},
		{Advanced, BlackWins},
	} {
		tb := testTablebase(t, tc.rules)
		v, err := tb.Value(Start(tc.rules), StandardDrops)
		if err != nil {
			t.Fatal(err)
		}
		if v.Outcome != tc.want {
			t.Errorf("%s rules, standard drops: empty board is %v, want %v", tc.rules, v, tc.want)
		}
		t.Logf("%s rules, standard drops: %v", tc.rules, v)
	}
}

// checkConsistent checks that the stored value of pos is the best value of
// its children for the player who decides, one ply further, and that the 8
// symmetric images have the same value.
func checkConsistent(t *testing.T, tb *Tablebase, pos Position, style DropStyle) {
	t.Helper()
	v := tb.value(pos, style)
	for s := 1; s < NumSymmetries; s++ {
		if w := tb.value(pos.Transform(s), style); w != v {
			t.Fatalf("%v (%s drops): %v, but its image under symmetry %d is %v", pos, style, v, s, w)
		}
	}
	if winner, over := pos.Over(); over {
		if v != (Value{Outcome: WinFor(winner)}) {
			t.Fatalf("%v: game over, %s won, but the table says %v", pos, winner, v)
		}
		return
	}
	decider := pos.Decides(style)
	var best Value
	bestScore := -1 << 30
	for _, m := range pos.LegalMoves() {
		child, err := pos.Play(m)
		if err != nil {
			t.Fatal(err)
		}
		cv := tb.value(child, style)
		if cv.Outcome != Draw {
			cv.Plies++
		}
		if sc := cv.score(decider); sc > bestScore {
			best, bestScore = cv, sc
		}
	}
	if v != best {
		t.Fatalf("%v (%s drops, %s decides): table says %v, best child gives %v", pos, style, decider, v, best)
	}
}

// TestRetrogradeConsistency samples random positions of both phases.
func TestRetrogradeConsistency(t *testing.T) {
	n := 100_000 // per rule set
	if testing.Short() {
		n = 10_000
	}
	for _, r := range AllRules() {
		tb := testTablebase(t, r)
		rng := rand.New(rand.NewPCG(1, uint64(r)))
		for i := 0; i < n; i++ {
			// Half in the move phase, half spread over the drop levels
			// and styles.
			k := DropPlies
			if i%2 == 1 {
				k = rng.IntN(DropPlies)
			}
			checkConsistent(t, tb, randomPosition(rng, r, k), AllDropStyles()[rng.IntN(len(AllDropStyles()))])
		}
	}
}

// TestAgainstReferenceSearch compares table values with the reference
// model's depth-limited search: a value within the depth must be found
// exactly, anything else must stay beyond it.
func TestAgainstReferenceSearch(t *testing.T) {
	cases := []struct {
		k, depth, count int
	}{
		{DropPlies, 5, 150},
		{DropPlies, 3, 1000},
		{7, 4, 150},
		{6, 3, 40},
	}
	for _, r := range AllRules() {
		tb := testTablebase(t, r)
		rng := rand.New(rand.NewPCG(2, uint64(r)))
		for _, tc := range cases {
			short := 0
			for i := 0; i < tc.count; i++ {
				style := AllDropStyles()[rng.IntN(len(AllDropStyles()))]
				var pos Position
				// For two samples in three, prefer positions that end
				// within the depth, which the search checks exactly.
				for try := 0; try < 20 && i%3 != 0; try++ {
					pos = randomPosition(rng, r, tc.k)
					if v := tb.value(pos, style); v.Outcome != Draw && v.Plies <= tc.depth {
						break
					}
				}
				v := tb.value(pos, style)
				g := newRefGame(r, style)
				rp := refFromPosition(pos)
				n, ok := g.exact(&rp, tc.depth)
				inDepth := v.Outcome != Draw && v.Plies <= tc.depth
				if inDepth {
					short++
				}
				if ok != inDepth || (ok && n != v.Plies) {
					t.Fatalf("%s rules, %v (%s drops): table %v, search to depth %d: %d plies (found %v)",
						r, pos, style, v, tc.depth, n, ok)
				}
				if ok && (v.Outcome.Winner() == pos.ToMove()) != (n%2 == 1) {
					t.Fatalf("%v: table %v, but the search's parity says otherwise", pos, v)
				}
			}
			t.Logf("%s rules, %d pieces, depth %d: %d of %d positions end within the depth", r, tc.k, tc.depth, short, tc.count)
		}
	}
}

// TestHandPositions checks small move-phase positions (Black to move,
// standard rules) against the table and the reference search.
func TestHandPositions(t *testing.T) {
	tb := testTablebase(t, Standard)
	g := newRefGame(Standard, StandardDrops)
	for _, tc := range []struct {
		name, board string
		want        Value
		best        []string // the best moves, when they matter
	}{
		// Black 1 2 3 slides 9-4 to complete the top row.
		{"win in 1", "bbb.....b.r.r.r.........r", Value{BlackWins, 1}, []string{"9-4"}},
		// 6-12 threatens 16-17 completing the column 2-7-12-17; no red
		// piece can reach 17 and red has no threat of its own.
		{"win in 3", "rbr..bbr.......b...r.....", Value{BlackWins, 3}, []string{"6-12"}},
		// Found with the solver: only 12-18 wins this fast.
		{"win in 5", "...r.......br.r...br...bb", Value{BlackWins, 5}, []string{"12-18"}},
		// Red threatens 7-1 (top row) and 4-8 (square 2 3 7 8); no black
		// piece is near.
		{"loss in 2", ".rrr..r........b.b...b.b.", Value{RedWins, 2}, nil},
		// Found with the solver: every black move loses in 4.
		{"loss in 4", "bb...b.r....rr......b..r.", Value{RedWins, 4}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pos := mustPosition(t, Standard, tc.board, Black)
			a, err := tb.Analyze(pos, StandardDrops)
			if err != nil {
				t.Fatal(err)
			}
			if a.Value != tc.want {
				t.Errorf("table: %v, want %v", a.Value, tc.want)
			}
			rp := refFromPosition(pos)
			n, ok := g.exact(&rp, tc.want.Plies)
			if !ok || n != tc.want.Plies {
				t.Errorf("reference search: %d plies (found %v), want %d", n, ok, tc.want.Plies)
			}
			if tc.best != nil {
				var got []string
				for _, m := range a.BestMoves {
					got = append(got, m.String())
				}
				if !slices.Equal(got, tc.best) {
					t.Errorf("best moves %v, want %v", got, tc.best)
				}
			}
		})
	}
}

// TestSingleDrawingMove: red threatens 24-19 (column 4 9 14 19); only 15-19
// blocks it, every other move loses at once.
func TestSingleDrawingMove(t *testing.T) {
	tb := testTablebase(t, Standard)
	g := newRefGame(Standard, StandardDrops)
	pos := mustPosition(t, Standard, "b.br...br....rb........r.", Black)
	a, err := tb.Analyze(pos, StandardDrops)
	if err != nil {
		t.Fatal(err)
	}
	if a.Value.Outcome != Draw || len(a.BestMoves) != 1 || a.BestMoves[0] != Slide(15, 19) {
		t.Fatalf("value %v, best moves %v: want a draw by 15-19 alone", a.Value, a.BestMoves)
	}
	for _, mv := range a.Moves {
		child, _ := pos.Play(mv.Move)
		rc := refFromPosition(child)
		n, ok := g.exact(&rc, 6)
		if mv.Move == Slide(15, 19) {
			// The search cannot prove a draw; it must at least not
			// find a result within its depth.
			if ok {
				t.Errorf("15-19: reference search ends in %d plies", n)
			}
			continue
		}
		if !ok || n != 1 || mv.Value != (Value{RedWins, 1}) {
			t.Errorf("%s: table %v, reference search %d plies (found %v), want red wins in 1", mv.Move, mv.Value, n, ok)
		}
	}
}

// TestAdvancedLine follows the best drops of advanced Teeko to six pieces,
// where the reference search (drops included) can confirm the distance the
// table gives, and checks that the distance falls by one ply per best ply
// from the empty board.
func TestAdvancedLine(t *testing.T) {
	tb := testTablebase(t, Advanced)
	p := Start(Advanced)
	start := tb.value(p, StandardDrops)
	var line []string
	for p.Pieces() < 6 {
		a, err := tb.Analyze(p, StandardDrops)
		if err != nil {
			t.Fatal(err)
		}
		p = p.playLegal(a.BestMoves[0])
		line = append(line, a.BestMoves[0].String())
		if v := tb.value(p, StandardDrops); v.Outcome != BlackWins || v.Plies != start.Plies-p.Pieces() {
			t.Fatalf("after %v: %v, from %v at the start", line, v, start)
		}
	}
	v := tb.value(p, StandardDrops)
	rp := refFromPosition(p)
	if n, ok := newRefGame(Advanced, StandardDrops).exact(&rp, v.Plies); !ok || n != v.Plies {
		t.Errorf("after %v: table %v, reference search %d plies (found %v)", line, v, n, ok)
	}
	t.Logf("advanced Teeko, standard drops: %v; after %v: %v", start, line, v)
}
