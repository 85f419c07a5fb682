package teeko

import (
	"context"
	"math/rand/v2"
	"sync"
	"testing"
)

// The full tablebases, built once per test binary for every test that needs
// them.
var shared struct {
	once sync.Once
	tb   [2]*Tablebase
	err  error
}

func testTablebase(t testing.TB, r Rules) *Tablebase {
	t.Helper()
	shared.once.Do(func() {
		for _, rules := range AllRules() {
			tb, err := Build(context.Background(), rules, 0, nil)
			if err != nil {
				shared.err = err
				return
			}
			shared.tb[rules] = tb
		}
	})
	if shared.err != nil {
		t.Fatalf("building the tablebases: %v", shared.err)
	}
	return shared.tb[r]
}

// randomPosition returns a random valid position with k pieces (8: move
// phase, either side to move).
func randomPosition(rng *rand.Rand, r Rules, k int) Position {
	for {
		perm := rng.Perm(NumSquares)
		var b Board
		for i := 0; i < k; i++ {
			if i%2 == 0 {
				b.Black |= SquareBit(perm[i] + 1)
			} else {
				b.Red |= SquareBit(perm[i] + 1)
			}
		}
		toMove := NoColor
		if k == DropPlies {
			toMove = Black + Color(rng.IntN(2))
		}
		if p, err := NewPosition(r, b, toMove); err == nil {
			return p
		}
	}
}

func mustBoard(t testing.TB, s string) Board {
	t.Helper()
	b, err := ParseBoard(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustPosition(t testing.TB, r Rules, board string, toMove Color) Position {
	t.Helper()
	p, err := NewPosition(r, mustBoard(t, board), toMove)
	if err != nil {
		t.Fatalf("%s %s: %v", board, toMove, err)
	}
	return p
}
