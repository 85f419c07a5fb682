package polyomino

import (
	"context"
	"math/bits"
	"testing"
	"time"
)

// newHeuristic is the heuristic of a position on a graph of its own.
func newHeuristic(pos *Position) *heuristic { return newHeuristicOn(pos, nil, time.Time{}) }

// hexominoMidgame is a hexomino position after plies random moves of the
// deal of the given seed.
func hexominoMidgame(t testing.TB, seed uint64, plies int) *Position {
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
// placements); wherever the deadline falls, in the one-ply scan, the
// two-ply look-ahead or the playouts, it stops within the moves evaluated
// between two looks at the clock (64 in the scan, 256 after), with a legal
// move. The clock is the count of moves evaluated, so the test does not
// depend on the machine's speed.
func TestHeuristicPlayoutDeadline(t *testing.T) {
	pos := hexominoMidgame(t, 3, 6)
	h := newHeuristic(pos)
	if _, ok := h.best(nil, func() bool { return false }); !ok {
		t.Fatal("no move")
	}
	all := h.evals
	scan := popcount(andAll(h.L, h.g.own[h.side]))
	if all < 4*scan {
		t.Fatalf("a whole decision evaluated %d moves, %d of them in the scan: no playouts?", all, scan)
	}
	for _, due := range []int{1, 100, scan / 2, scan + 1000, all / 3, all / 2, all * 9 / 10} {
		h := newHeuristic(pos)
		m, ok := h.best(nil, func() bool { return h.evals >= due })
		if !ok {
			t.Fatalf("deadline at move %d: no move", due)
		}
		if _, err := pos.Play(m); err != nil {
			t.Fatalf("deadline at move %d: %v", due, err)
		}
		if past := h.evals - due; past > 256+64 {
			t.Errorf("deadline at move %d of %d: %d more evaluated past it", due, all, past)
		}
	}
}

// TestHeuristicPlayoutNormalPlay: with hands under normal play (the
// player who cannot place loses) a playout ends with a winner, +1 or -1,
// not with a difference of pieces placed (which the score rule counts).
func TestHeuristicPlayoutNormalPlay(t *testing.T) {
	cfg := mustPreset(t, "pentominoes")
	cfg.Pool = false
	cfg.EndRule = NormalPlay
	for _, seed := range []uint64{1, 2, 3} {
		g, err := NewGame(cfg)
		if err != nil {
			t.Fatal(err)
		}
		rng := splitmix64(seed)
		pos := g.Start()
		for range 3 {
			moves := pos.LegalMoves()
			if pos, err = pos.Play(moves[rng.next()%uint64(len(moves))]); err != nil {
				t.Fatal(err)
			}
		}
		h := newHeuristic(pos)
		L1 := make([]uint64, h.g.words)
		for i, word := range h.L {
			word &= h.g.own[h.side][i]
			for ; word != 0; word &= word - 1 {
				v := i*64 + bits.TrailingZeros64(word)
				c1 := h.count
				h.play(L1, h.L, &c1, v)
				end, ok := h.playout(L1, c1, 1-h.side, func() bool { return false })
				if !ok || end != 1 && end != -1 {
					t.Fatalf("seed %d, move %v: playout ended %d, %v", seed, g.move(h.g.place[v]), end, ok)
				}
			}
		}
	}
}

// TestShortBudgetSkipsTheGraph: with a budget far shorter than the dense
// conflict graph of a big position takes to build (7,000 hexomino
// placements: 30-60 ms), the search does not build it and the heuristic
// computes rows lazily (a 1 ms budget took 25-70 ms, all of it graphs);
// given time, both build it dense.
func TestShortBudgetSkipsTheGraph(t *testing.T) {
	pos := hexominoMidgame(t, 3, 5)
	n := pos.LegalMoveCount()
	if !bigGraph(n) || tooBig(n) {
		t.Fatalf("%d placements: not a big graph that fits", n)
	}
	if h := newHeuristicOn(pos, nil, time.Now().Add(time.Millisecond)); h.g.lazy == nil {
		t.Error("the heuristic built a dense graph with 1 ms left")
	}
	if h := newHeuristicOn(pos, nil, time.Time{}); h.g.lazy != nil {
		t.Error("the heuristic built a lazy graph without a deadline")
	}
	cost := 4 * graphCost(n, pos.game.set.Order)
	short, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	if s := newSolver(short, pos.game, Options{TableMB: 1}); !s.deadlineWithin(cost) {
		t.Errorf("1 ms left is not within %v", cost)
	}
	if s := newSolver(context.Background(), pos.game, Options{TableMB: 1}); s.deadlineWithin(cost) {
		t.Error("no deadline is within the graph's cost")
	}
	res, err := Solve(short, pos, Options{Workers: 1, TableMB: 1})
	if err != nil || !res.Heuristic || res.Nodes != 0 || len(res.BestMoves) != 1 {
		t.Errorf("Solve with 1 ms: heuristic %v, %d nodes, best %v, %v", res.Heuristic, res.Nodes, res.BestMoves, err)
	}
}
