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

// TestHeuristicCounts: the live counts that play keeps per piece (a
// popcount per piece segment of a word) stay those of the state, on the
// lazy graph of the hexomino opening and on the dense graph of a
// midgame, to the end of a random game.
func TestHeuristicCounts(t *testing.T) {
	for _, plies := range []int{0, 6} {
		h := newHeuristic(hexominoMidgame(t, 7, plies))
		g := &h.g
		k := g.words
		L := append([]uint64(nil), h.L...)
		count := h.count
		rng := splitmix64(plies)
		for {
			for p := range len(g.prow) / k {
				if want := popcount(andAll(L, g.prow[p*k:(p+1)*k])); count[p] != want {
					t.Fatalf("%d plies: piece %d: count %d, live %d", plies, p, count[p], want)
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
