package polyomino

import (
	"context"
	"math/bits"
	"testing"
	"time"
)

// hexominoMidgame is a hexomino position after plies random moves of the
// deal of the given seed.
func hexominoMidgame(t *testing.T, seed uint64, plies int) *Position {
	t.Helper()
	cfg := mustPreset(t, "hexominoes")
	cfg.Seed = seed
	g, err := NewGame(cfg)
	if err != nil {
		t.Fatal(err)
	}
	rng := splitmix64(seed)
	pos := g.Start()
	for range plies {
		moves := pos.LegalMoves()
		if len(moves) == 0 {
			break
		}
		if pos, err = pos.Play(moves[rng.next()%uint64(len(moves))]); err != nil {
			t.Fatal(err)
		}
	}
	return pos
}

// TestHeuristicCounts: the live and safe counts that play keeps per
// piece (a popcount per piece segment of a word) stay those of the state,
// on the lazy graph of the hexomino opening and on the dense graphs of
// two midgames, to the end of a random game. The safe set is checked
// first at the root: a vertex is in it when no opposing vertex conflicts
// with it (there are none in the opening; 39 of the 76 live placements
// after 20 plies).
func TestHeuristicCounts(t *testing.T) {
	sanctuaries := 0
	for _, plies := range []int{0, 6, 20} {
		h := newHeuristic(hexominoMidgame(t, 7, plies))
		g := &h.g
		k := g.words
		for v := range g.n {
			p := bits.TrailingZeros64(g.pbit[v])
			opp := g.own[1-h.owner[p]]
			safe := popcount(andAll(g.rowOf(v, h.buf), opp)) == 0
			if in := h.safe[v>>6]&(1<<uint(v&63)) != 0; in != safe {
				t.Fatalf("%d plies: vertex %d: in the safe set %v, safe %v", plies, v, in, safe)
			}
		}
		sanctuaries += popcount(h.safe)
		L := append([]uint64(nil), h.L...)
		count := h.count
		rng := splitmix64(plies)
		for {
			for p := range len(g.prow) / k {
				live := andAll(L, g.prow[p*k:(p+1)*k])
				if want := popcount(live); count.live[p] != want {
					t.Fatalf("%d plies: piece %d: count %d, live %d", plies, p, count.live[p], want)
				}
				if want := popcount(andAll(live, h.safe)); count.safe[p] != want {
					t.Fatalf("%d plies: piece %d: safe count %d, live sanctuaries %d", plies, p, count.safe[p], want)
				}
			}
			n := popcount(L)
			if n == 0 {
				break
			}
			// a random live vertex
			r := int(rng.next() % uint64(n))
			v := -1
			for i, w := range L {
				if c := bits.OnesCount64(w); r >= c {
					r -= c
					continue
				}
				for ; r > 0; r-- {
					w &= w - 1
				}
				v = i*64 + bits.TrailingZeros64(w)
				break
			}
			h.play(L, L, &count, v)
		}
	}
	if sanctuaries == 0 {
		t.Error("no sanctuaries: the safe counts were not tested")
	}
}

// TestHeuristicPlayoutDeadline: past the opening the player plays the
// game out from its best candidates (here from about 12,000 live
// placements, about 0.1 s without a deadline); it still stops at its
// deadline, with a legal move.
func TestHeuristicPlayoutDeadline(t *testing.T) {
	pos := hexominoMidgame(t, 3, 6)
	budget := 20 * time.Millisecond
	slack := 100 * time.Millisecond
	if raceEnabled {
		slack *= 10
	}
	best := time.Hour
	for range 3 {
		ctx, cancel := context.WithTimeout(t.Context(), budget)
		t0 := time.Now()
		m, ok := heuristicMove(ctx, pos, nil, nil)
		best = min(best, time.Since(t0))
		cancel()
		if !ok {
			t.Fatal("no move")
		}
		if _, err := pos.Play(m); err != nil {
			t.Fatal(err)
		}
	}
	if best > budget+slack {
		t.Errorf("a %v budget took %v at best", budget, best)
	}
}
