package polyomino

import "math/bits"

// The solver sees a position as a conflict graph. Its vertices are the
// placements still playable by either player; two placements conflict when
// they share a cell or use the same piece, and every vertex conflicts with
// itself. A state of the search is the set L of vertices still playable;
// playing v leaves L &^ adj[v]. With a common pool the game is thus Node
// Kayles on the conflict graph; with hands a player may only pick the
// vertices of his own pieces.
//
// The set L is a bitset of K = words 64-bit words. When a state has no more
// than a quarter of the graph's vertices left the search compacts it into a
// new, smaller graph, so that deep in the tree a state is a single uint64
// and a move a single AND NOT (search1).

// cgraph is a conflict graph; vertex v has row adj[v*words : (v+1)*words].
type cgraph struct {
	n, words int
	adj      []uint64
	place    []int32  // placement index in the game
	m64      []uint64 // cells of the placement (boards of at most 64 cells)
	pbit     []uint64 // 1 << set index of the piece
	// own[p] are the vertices player p may play (K words each); in a
	// common pool both are every vertex.
	own [2][]uint64
	// cover[c*words:] holds the vertices covering cell c, prow[p*words:]
	// those of piece p (set index); not kept up to date by build1,
	// compact1 (one-word graphs) and compactK (the search does not read
	// them).
	cover, prow []uint64
	// lazy, when set, is the game of a graph without adj (buildLazy).
	lazy *Game
}

// build makes g the conflict graph of the given placements, reusing g's
// buffers. Vertex order follows the list.
func (g *cgraph) build(game *Game, list []int32) {
	if len(list) <= 64 && game.small {
		g.build1(game, list)
		return
	}
	g.buildDense(game, list)
}

// buildDense is build with the cover sets of every cell and piece, whatever
// the graph's size (build1 keeps none).
func (g *cgraph) buildDense(game *Game, list []int32) {
	g.buildSets(game, list)
	g.lazy = nil
	n, k := g.n, g.words
	g.adj = grow(g.adj, max(n*k, 64))[:n*k] // a one-word graph's rows: adj64
	order := game.set.Order
	for v, pi := range list {
		row := g.adj[v*k : (v+1)*k]
		p := game.placements[pi].piece
		copy(row, g.prow[p*k:(p+1)*k])
		for _, c := range game.cellIdx[int(pi)*order : int(pi+1)*order] {
			cv := g.cover[int(c)*k : (int(c)+1)*k]
			for i := range row {
				row[i] |= cv[i]
			}
		}
	}
}

// denseLimit is the largest adjacency matrix (in words) buildLazy makes:
// 32 MB. The hexomino opening (about 29,000 placements) would take 106 MB.
// (A variable so that tests can make small graphs lazy.)
var denseLimit = 4 << 20

// buildLazy is buildDense, except that a graph whose adjacency matrix
// would exceed denseLimit words (or any, with alwaysLazy, but the one-word
// graph of a small board) keeps only the cover sets and computes each row when asked
// (rowOf): the heuristic player touches each row once or
// twice, so that computing it costs less than storing it. Either way the
// graph has its cover sets, which the heuristic player reads.
func (g *cgraph) buildLazy(game *Game, list []int32, alwaysLazy bool) {
	n := len(list)
	if k := max((n+63)/64, 1); !alwaysLazy && n*k <= denseLimit || (n <= 64 && game.small) {
		g.buildDense(game, list)
		return
	}
	g.buildSets(game, list)
	g.adj = nil
	g.lazy = game
}

// rowOf is the row of vertex v: a slice of adj, or, in a lazy graph,
// computed into buf (words long).
func (g *cgraph) rowOf(v int, buf []uint64) []uint64 {
	k := g.words
	if g.lazy == nil {
		return g.adj[v*k : (v+1)*k]
	}
	game := g.lazy
	pi := g.place[v]
	p := game.placements[pi].piece
	row := buf[:k]
	copy(row, g.prow[p*k:(p+1)*k])
	order := game.set.Order
	for _, c := range game.cellIdx[int(pi)*order : int(pi+1)*order] {
		cv := g.cover[int(c)*k : (int(c)+1)*k]
		for i := range row {
			row[i] |= cv[i]
		}
	}
	return row
}

// buildSets sets everything of build but the rows: the vertices, their
// owners, and the cover sets of every cell and piece.
func (g *cgraph) buildSets(game *Game, list []int32) {
	n := len(list)
	k := (n + 63) / 64
	if k == 0 {
		k = 1
	}
	g.n, g.words = n, k
	g.place = append(g.place[:0], list...)
	g.pbit = g.pbit[:0]
	g.m64 = g.m64[:0]
	for _, pi := range list {
		pl := &game.placements[pi]
		g.pbit = append(g.pbit, 1<<pl.piece)
		if game.small {
			g.m64 = append(g.m64, pl.mask[0])
		}
	}
	for p := range g.own {
		g.own[p] = grow(g.own[p], k)
		clear(g.own[p])
	}
	for v, pi := range list {
		pl := &game.placements[pi]
		for p := range 2 {
			if game.hands[p]&(1<<pl.piece) != 0 {
				g.own[p][v>>6] |= 1 << (uint(v) & 63)
			}
		}
	}
	// Rows from cover sets: cover[c] holds the vertices covering cell c,
	// prow[p] those of piece p; the row of v is the union of the cover
	// sets of its cells and the set of its piece.
	cells := game.geo.Cells()
	g.cover = grow(g.cover, cells*k)
	clear(g.cover)
	np := len(game.set.Pieces)
	g.prow = grow(g.prow, np*k)
	clear(g.prow)
	order := game.set.Order
	for v, pi := range list {
		w, bit := v>>6, uint64(1)<<(uint(v)&63)
		for _, c := range game.cellIdx[int(pi)*order : int(pi+1)*order] {
			g.cover[int(c)*k+w] |= bit
		}
		g.prow[game.placements[pi].piece*k+w] |= bit
	}
}

// compact builds into dst the graph of the vertices in L (a state of g);
// scratch is reused for the list of placements and returned.
func (g *cgraph) compact(game *Game, L []uint64, dst *cgraph, scratch []int32) []int32 {
	list := scratch[:0]
	for w, word := range L {
		for ; word != 0; word &= word - 1 {
			list = append(list, g.place[w*64+bits.TrailingZeros64(word)])
		}
	}
	dst.build(game, list)
	return list
}

// full returns the state with every vertex playable.
func (g *cgraph) full(dst []uint64) []uint64 {
	dst = grow(dst, g.words)
	for i := range dst {
		dst[i] = ^uint64(0)
	}
	if r := uint(g.n) & 63; len(dst) > 0 && (r != 0 || g.n == 0) {
		dst[len(dst)-1] = 1<<r - 1
	}
	return dst
}

func grow(s []uint64, n int) []uint64 {
	if cap(s) < n {
		return make([]uint64, n, n+n/4)
	}
	return s[:n]
}

func popcount(s []uint64) int {
	n := 0
	for _, w := range s {
		n += bits.OnesCount64(w)
	}
	return n
}

// andNotCount stores a &^ b in dst and returns its population count.
func andNotCount(dst, a, b []uint64) int {
	n := 0
	b = b[:len(a)]
	dst = dst[:len(a)]
	for i, w := range a {
		x := w &^ b[i]
		dst[i] = x
		n += bits.OnesCount64(x)
	}
	return n
}

// andNotCountOwn returns popcount(a &^ b) and popcount(a &^ b & own).
func andNotCountOwn(a, b, own []uint64) (all, mine int) {
	b = b[:len(a)]
	own = own[:len(a)]
	for i, w := range a {
		x := w &^ b[i]
		all += bits.OnesCount64(x)
		mine += bits.OnesCount64(x & own[i])
	}
	return all, mine
}

func intersects(a, b []uint64) bool {
	b = b[:len(a)]
	for i, w := range a {
		if w&b[i] != 0 {
			return true
		}
	}
	return false
}

// cliqueCountK is cliqueCount for a state of k words; tmp needs k words.
func cliqueCountK(g *cgraph, L, tmp []uint64) (int, bool) {
	k := g.words
	n := 0
	r := tmp[:k]
	copy(r, L)
	for w := 0; w < k; {
		if r[w] == 0 {
			w++
			continue
		}
		v := w*64 + bits.TrailingZeros64(r[w])
		s := g.adj[v*k : (v+1)*k]
		// every u in s ∩ L must have the same row restricted to L
		for i := range k {
			for t := s[i] & L[i]; t != 0; t &= t - 1 {
				u := i*64 + bits.TrailingZeros64(t)
				if u == v {
					continue
				}
				su := g.adj[u*k : (u+1)*k]
				for j := range k {
					if (su[j]^s[j])&L[j] != 0 {
						return 0, false
					}
				}
			}
		}
		for i := range k {
			r[i] &^= s[i]
		}
		n++
	}
	return n, true
}

// build1 is build for at most 64 placements on a board of at most 64
// cells: every set is one word.
func (g *cgraph) build1(game *Game, list []int32) {
	n := len(list)
	g.n, g.words = n, 1
	g.lazy = nil
	g.adj = grow(g.adj, 64)[:n] // adj64
	g.place = append(g.place[:0], list...)
	g.m64 = grow(g.m64, n)
	g.pbit = grow(g.pbit, n)
	var cover [64]uint64
	var prow [64]uint64
	var own [2]uint64
	h0, h1 := game.hands[0], game.hands[1]
	order := game.set.Order
	for v, pi := range list {
		bit := uint64(1) << uint(v)
		for _, c := range game.cellIdx[int(pi)*order : int(pi+1)*order] {
			cover[c&63] |= bit
		}
		p := game.placements[pi].piece
		prow[p&63] |= bit
		pb := uint64(1) << uint(p)
		g.pbit[v] = pb
		g.m64[v] = game.mask64[pi]
		if h0&pb != 0 {
			own[0] |= bit
		}
		if h1&pb != 0 {
			own[1] |= bit
		}
	}
	for v, pi := range list {
		row := prow[game.placements[pi].piece&63]
		for _, c := range game.cellIdx[int(pi)*order : int(pi+1)*order] {
			row |= cover[c&63]
		}
		g.adj[v] = row
	}
	for p := range g.own {
		g.own[p] = grow(g.own[p], 1)
		g.own[p][0] = own[p]
	}
}

// adj64 is the rows of a one-word graph of a board of at most 64 cells as
// an array (build1, buildDense and compact1 give adj a capacity of 64 at
// least), so that a row is read without a bounds check.
func (g *cgraph) adj64() *[64]uint64 { return (*[64]uint64)(g.adj[:64]) }

// compact1 is compact for a state of at most 64 vertices of a graph on a
// board of at most 64 cells, into a one-word graph: the rows are g's,
// restricted to L and packed (pextRows), not rebuilt from the cells.
func (g *cgraph) compact1(L []uint64, dst *cgraph) {
	dst.adj = grow(dst.adj, 64)
	n := pextRows(&dst.adj[0], &g.adj[0], g.words, &L[0])
	dst.n, dst.words, dst.lazy = n, 1, nil
	dst.adj = dst.adj[:n]
	if cap(dst.place) < 64 {
		dst.place = make([]int32, 64)
	}
	place, m64, pbit := dst.place[:64], grow(dst.m64, 64), grow(dst.pbit, 64)
	i := 0
	for w, word := range L {
		for ; word != 0; word &= word - 1 {
			u := w*64 + bits.TrailingZeros64(word)
			place[i&63], m64[i&63], pbit[i&63] = g.place[u], g.m64[u], g.pbit[u]
			i++
		}
	}
	dst.place, dst.m64, dst.pbit = place[:n], m64[:n], pbit[:n]
	for p := range dst.own {
		dst.own[p] = grow(dst.own[p], 1)
		dst.own[p][0] = pextWords(g.own[p], L)
	}
}

// compactK is compact for a state of more than 64 vertices of a graph on a
// board of at most 64 cells (cnt: its vertices): the rows are g's,
// restricted to L and packed (pextPack), as compact1 does, not rebuilt
// from the cells. The graph is the one compact builds, without the cover
// sets (the search does not read them).
func (g *cgraph) compactK(L []uint64, cnt int, dst *cgraph) {
	k, k2 := g.words, (cnt+63)/64
	dst.n, dst.words, dst.lazy = cnt, k2, nil
	dst.adj = grow(dst.adj, cnt*k2)
	dst.cover, dst.prow = dst.cover[:0], dst.prow[:0]
	place, m64, pbit := dst.place[:0], dst.m64[:0], dst.pbit[:0]
	i := 0
	for w, word := range L {
		for ; word != 0; word &= word - 1 {
			u := w*64 + bits.TrailingZeros64(word)
			pextPack(&dst.adj[i*k2], &g.adj[u*k], &L[0], k)
			place = append(place, g.place[u])
			m64 = append(m64, g.m64[u])
			pbit = append(pbit, g.pbit[u])
			i++
		}
	}
	dst.place, dst.m64, dst.pbit = place, m64, pbit
	for p := range dst.own {
		dst.own[p] = grow(dst.own[p], k2)
		pextPack(&dst.own[p][0], &g.own[p][0], &L[0], k)
	}
}
