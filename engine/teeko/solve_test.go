package teeko

import (
	"math/rand/v2"
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
	for _, r := range AllRules {
		tb := testTablebase(t, r)
		rng := rand.New(rand.NewPCG(1, uint64(r)))
		for i := 0; i < n; i++ {
			// Half in the move phase, half spread over the drop levels
			// and styles.
			k := DropPlies
			if i%2 == 1 {
				k = rng.IntN(DropPlies)
			}
			checkConsistent(t, tb, randomPosition(rng, r, k), AllDropStyles[rng.IntN(len(AllDropStyles))])
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
	for _, r := range AllRules {
		tb := testTablebase(t, r)
		rng := rand.New(rand.NewPCG(2, uint64(r)))
		for _, tc := range cases {
			short := 0
			for i := 0; i < tc.count; i++ {
				style := AllDropStyles[rng.IntN(len(AllDropStyles))]
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
