package polyomino

import (
	"context"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"
)

// packRows is pextRows written plainly: each row of a vertex of L, bit by
// bit, restricted to L and packed.
func packRows(adj []uint64, k int, L []uint64) []uint64 {
	var out []uint64
	for w := range k {
		for m := L[w]; m != 0; m &= m - 1 {
			u := w*64 + bits.TrailingZeros64(m)
			out = append(out, packWord(adj[u*k:(u+1)*k], L))
		}
	}
	return out
}

func packWord(x, L []uint64) uint64 {
	var r uint64
	i := 0
	for j := range L {
		for m := L[j]; m != 0; m &= m - 1 {
			if x[j]>>uint(bits.TrailingZeros64(m))&1 != 0 {
				r |= 1 << uint(i)
			}
			i++
		}
	}
	return r
}

// TestPextRows: the assembly agrees with the plain version on random rows
// and states of 1 to 6 words with 0 to 64 vertices.
func TestPextRows(t *testing.T) {
	if !havePext {
		t.Skip("no fast PEXT on this processor: compact1 is not used")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for it := range 3000 {
		k := 1 + rng.IntN(6)
		adj := make([]uint64, 64*k*k)
		for i := range adj {
			adj[i] = rng.Uint64()
		}
		L := make([]uint64, k)
		for range rng.IntN(65) {
			v := rng.IntN(64 * k)
			L[v/64] |= 1 << (v % 64)
		}
		if it%7 == 0 && k > 1 { // all 64 in the first word, or in the last
			clear(L)
			L[(it/7)%2*(k-1)] = ^uint64(0)
		}
		want := packRows(adj, k, L)
		dst := make([]uint64, 64)
		if n := pextRows(&dst[0], &adj[0], k, &L[0]); n != len(want) || !slices.Equal(dst[:n], want) {
			t.Fatalf("k %d, L %x: %d rows %x, want %d %x", k, L, n, dst[:n], len(want), want)
		}
		x := adj[:k]
		if got, want := pextWords(x, L), packWord(x, L); got != want {
			t.Fatalf("pextWords(%x, %x) = %x, want %x", x, L, got, want)
		}
	}
}

// compactCase is a root graph of every legal placement of a real game
// (pool and hands), for the compaction tests.
type compactCase struct {
	preset string
	hands  bool
	game   *Game
	root   *cgraph
}

func compactCases(t *testing.T) []compactCase {
	t.Helper()
	var out []compactCase
	for _, c := range []struct {
		preset string
		hands  bool
		moves  []string
	}{
		{"pentominoes", false, nil},
		{"pentominoes", true, nil},
		{"pentominoes", false, []string{"X:d4,c5,d5,e5,d6"}},
		{"tetrominoes", false, nil},
	} {
		cfg := mustPreset(t, c.preset)
		if c.hands {
			cfg.Pool = false
		}
		pos, err := NewPosition(cfg, nil, c.moves, DefaultToMove)
		if err != nil {
			t.Fatal(err)
		}
		all := pos.appendLegal(First, nil)
		if c.hands {
			all = pos.appendLegal(Second, all)
		}
		root := &cgraph{}
		root.build(pos.game, all)
		out = append(out, compactCase{preset: c.preset, hands: c.hands, game: pos.game, root: root})
	}
	return out
}

// TestCompact1SameGraph: the rows packed from the parent graph are those
// build1 makes from the cells, with the same placements, masks, pieces and
// owners, on random states of real games (pool and hands).
func TestCompact1SameGraph(t *testing.T) {
	if !havePext {
		t.Skip("no fast PEXT on this processor: compact1 is not used")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for _, c := range compactCases(t) {
		g, root := c.game, c.root
		for range 300 {
			L := make([]uint64, root.words)
			for range rng.IntN(65) {
				v := rng.IntN(root.n)
				L[v/64] |= 1 << (v % 64)
			}
			if popcount(L) > 64 {
				continue
			}
			var want, got cgraph
			root.compact(g, L, &want, nil)
			root.compact1(L, &got)
			if got.n != want.n || got.words != 1 || !slices.Equal(got.adj, want.adj[:want.n]) ||
				!slices.Equal(got.place, want.place) || !slices.Equal(got.m64, want.m64[:want.n]) ||
				!slices.Equal(got.pbit, want.pbit[:want.n]) ||
				got.own[0][0] != want.own[0][0] || got.own[1][0] != want.own[1][0] {
				t.Fatalf("%s hands %v, state %x: compact1 and compact differ", c.preset, c.hands, L)
			}
		}
	}
}

// TestSolveWithoutPext: the search gives the same values and visits the
// same nodes whichever way its one-word graphs are compacted.
func TestSolveWithoutPext(t *testing.T) {
	if !pextFast() {
		t.Skip("no fast PEXT on this processor: both runs would take the same path")
	}
	defer func(v bool) { havePext = v }(havePext)
	positions, lines := suitePositions(t, 3)
	for j, pos := range positions {
		sp := suitePos{moves: lines[j]}
		var err error
		var res [2]Result
		for i, p := range []bool{false, true} {
			havePext = p
			res[i], err = Solve(context.Background(), pos, Options{AllMoves: true, Workers: 1, TableMB: 16})
			if err != nil || !res[i].Proven {
				t.Fatalf("%v: %v proven %v", sp.moves, err, res[i].Proven)
			}
		}
		if res[0].Value != res[1].Value || res[0].Nodes != res[1].Nodes || len(res[0].Moves) != len(res[1].Moves) {
			t.Fatalf("%v: value %d / %d, nodes %d / %d", sp.moves, res[0].Value, res[1].Value, res[0].Nodes, res[1].Nodes)
		}
		for i, a := range res[0].Moves {
			b := res[1].Moves[i]
			if a.Move.String() != b.Move.String() || a.Value != b.Value || a.Proven != b.Proven {
				t.Errorf("%v: move %d: %v %d %v / %v %d %v", sp.moves, i, a.Move, a.Value, a.Proven, b.Move, b.Value, b.Proven)
			}
		}
	}
}

// TestPextPack: the assembly agrees with the plain packing on random rows
// and states of 1 to 8 words with any number of vertices.
func TestPextPack(t *testing.T) {
	if !havePext {
		t.Skip("no fast PEXT on this processor: compactK is not used")
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for it := range 5000 {
		k := 1 + rng.IntN(8)
		x, L := make([]uint64, k), make([]uint64, k)
		for i := range k {
			x[i] = rng.Uint64()
			switch rng.IntN(4) {
			case 0:
			case 1:
				L[i] = ^uint64(0)
			default:
				L[i] = rng.Uint64() & rng.Uint64()
			}
		}
		if it == 0 {
			clear(L)
			L[0] = 1
		}
		n := popcount(L)
		if n == 0 {
			continue
		}
		want := make([]uint64, (n+63)/64)
		i := 0
		for j := range k {
			for m := L[j]; m != 0; m &= m - 1 {
				if x[j]>>uint(bits.TrailingZeros64(m))&1 != 0 {
					want[i/64] |= 1 << uint(i%64)
				}
				i++
			}
		}
		got := make([]uint64, len(want)+1)
		got[len(want)] = 0xdead
		pextPack(&got[0], &x[0], &L[0], k)
		if !slices.Equal(got[:len(want)], want) || got[len(want)] != 0xdead {
			t.Fatalf("k %d, x %x, L %x: %x, want %x", k, x, L, got, want)
		}
	}
}

// TestCompactKSameGraph: compactK makes the graph compact builds from the
// cells (rows, placements, masks, pieces, owners), on random states of
// more than 64 vertices of real games (pool and hands).
func TestCompactKSameGraph(t *testing.T) {
	if !havePext {
		t.Skip("no fast PEXT on this processor: compactK is not used")
	}
	rng := rand.New(rand.NewPCG(7, 8))
	for _, c := range compactCases(t) {
		g, root := c.game, c.root
		var got cgraph // reused, as a frame's graph is
		for range 300 {
			L := make([]uint64, root.words)
			for range 65 + rng.IntN(root.n) {
				v := rng.IntN(root.n)
				L[v/64] |= 1 << (v % 64)
			}
			cnt := popcount(L)
			if cnt <= 64 {
				continue
			}
			var want cgraph
			root.compact(g, L, &want, nil)
			root.compactK(L, cnt, &got)
			k := want.words
			if got.n != want.n || got.words != k || !slices.Equal(got.adj, want.adj[:want.n*k]) ||
				!slices.Equal(got.place, want.place) || !slices.Equal(got.m64, want.m64[:want.n]) ||
				!slices.Equal(got.pbit, want.pbit[:want.n]) ||
				!slices.Equal(got.own[0], want.own[0]) || !slices.Equal(got.own[1], want.own[1]) {
				t.Fatalf("%s hands %v, state %x: compactK and compact differ", c.preset, c.hands, L)
			}
		}
	}
}

// TestOneWordGraphsHaveRoom: every one-word graph of a small board has
// room for 64 rows, which search1 reads as an array (adj64): build1's,
// and buildDense's, which buildLazy makes for the heuristic player (a
// review: under 64, a future path searching it would panic).
func TestOneWordGraphsHaveRoom(t *testing.T) {
	cfg := mustPreset(t, "tetrominoes")
	cfg.Width, cfg.Height = 3, 3
	pos, err := NewPosition(cfg, nil, nil, DefaultToMove)
	if err != nil {
		t.Fatal(err)
	}
	list := pos.appendLegal(First, nil)
	if len(list) == 0 || len(list) > 64 {
		t.Fatalf("%d placements", len(list))
	}
	var built, dense cgraph
	built.build(pos.game, list)
	dense.buildDense(pos.game, list)
	for _, g := range []*cgraph{&built, &dense} {
		if g.words != 1 || cap(g.adj) < 64 {
			t.Fatalf("a graph of %d words, room for %d rows", g.words, cap(g.adj))
		}
		rows := g.adj64()
		if !slices.Equal(rows[:g.n], g.adj) {
			t.Errorf("adj64 reads other rows")
		}
	}
}
