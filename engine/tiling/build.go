package tiling

import (
	"fmt"
	"slices"

	"github.com/gamesolver/gamesolver/engine/polyomino"
)

// maxKinds bounds the number of distinct piece kinds (a bit each in the
// search's availability mask); the largest set has 35.
const maxKinds = 64

// Cells are numbered in "scan order": the rectangle is cut into lines
// along its shorter side, and the search always fills the lowest-numbered
// empty cell, so it works its way across short lines. For a 10 x 6
// rectangle the lines are the columns:
//
//	      a  b  c  d  e ... j
//	  1   0  6 12 18 24    54
//	  2   1  7 13 19 25    55
//	  ...
//	  6   5 11 17 23 29    59
//
// A square or a rectangle higher than wide is cut into rows instead.
//
// The search state is a window of 128 bits over the cells from the first
// empty one on: bit i of (lo, hi) is cell c+i, set when the cell is
// filled (blocked, covered, or beyond the last cell). A piece's cells lie
// less than order x line <= 96 cells after its first cell, so the window
// holds everything placed so far; cells beyond it are as the static mask
// says.

// option is one placement seen from its first cell (its anchor): the cells
// as bits of the window starting at the anchor, and the piece kind.
type option struct {
	lo, hi uint64
	id     int32
	kind   int32
}

// placement is one way to put one piece kind on the region.
type placement struct {
	kind   int
	anchor int
	cells  []int16 // scan-order indices, ascending
	lo, hi uint64  // the cells as window bits from the anchor
}

// root is the top of one part of the search: some pieces listed once
// placed to break the symmetry (see buildRoots).
type root struct {
	static []uint64 // filled cells: blocked, the pieces placed, beyond the end
	placed []int32
	// stab are the symmetries (indices into compiled.syms, identity
	// excluded) that fix the placed pieces: the only ones that can fix a
	// tiling of this part. stabSize counts the identity too.
	stab     []int
	stabSize int
	// cosets are symmetries mapping this part's tilings onto every tiling
	// they stand for, each once (one per coset of the stabiliser).
	cosets []int
}

// compiled is a Problem translated for the search.
type compiled struct {
	region Region
	n      int // cells in the rectangle
	line   int // cells per scan line
	cellXY []polyomino.Cell

	kinds  []*polyomino.Piece
	counts []int
	pieces int // pieces to place
	spare  int // open cells that stay uncovered

	placements []placement
	firstAt    []int32    // placements anchored at a are firstAt[a]..firstAt[a+1]-1
	options    [][]option // by anchor<<probeBits | probe, kinds in list order

	syms  []polyomino.Transform
	image [][]int32 // image[g][placement]: the placement syms[g] maps it to

	// edges[c % line] marks the window bits that are the first and the
	// last cells of their lines, for a window starting at cell c.
	edges []struct{ first, last uint64 }

	roots []root
}

func (c *compiled) index(x, y int) int {
	if c.region.width > c.region.height {
		return x*c.line + y
	}
	return y*c.line + x
}

// compile checks a problem and builds the search tables.
func compile(p Problem) (*compiled, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	pieces := p.Pieces
	if len(pieces) == 0 {
		pieces = DefaultPieces()
	}
	r := p.Region
	c := &compiled{region: r, n: r.width * r.height, line: min(r.width, r.height), pieces: len(pieces)}
	c.spare = r.Area() - pieces.Area()
	c.cellXY = make([]polyomino.Cell, c.n)
	for y := 0; y < r.height; y++ {
		for x := 0; x < r.width; x++ {
			c.cellXY[c.index(x, y)] = polyomino.Cell{X: x, Y: y}
		}
	}
	kindOf := map[*polyomino.Piece]int{}
	for _, pc := range pieces {
		k, ok := kindOf[pc]
		if !ok {
			k = len(c.kinds)
			kindOf[pc] = k
			c.kinds = append(c.kinds, pc)
			c.counts = append(c.counts, 0)
		}
		c.counts[k]++
	}

	filled := make([]bool, c.n+256)
	for i := range filled {
		filled[i] = i >= c.n || !r.Open(c.cellXY[i].X, c.cellXY[i].Y)
	}
	c.buildPlacements()
	c.edges = make([]struct{ first, last uint64 }, c.line)
	for off := range c.edges {
		for i := 0; i < 64; i++ {
			if (off+i)%c.line == 0 {
				c.edges[off].first |= 1 << i
			}
			if (off+i)%c.line == c.line-1 {
				c.edges[off].last |= 1 << i
			}
		}
	}
	c.syms = r.Symmetries()
	if len(c.syms) > 1 {
		c.buildImages()
	}
	c.buildRoots(filled)
	return c, nil
}

// buildPlacements lists every placement of every kind, numbered by
// anchor, then kind, then orientation and position, and builds the option
// tables the search reads.
func (c *compiled) buildPlacements() {
	r := c.region
	type raw struct{ kind, anchor, start int }
	var raws []raw
	var flat []int16 // the cells of all placements, each run sorted
	for k, pc := range c.kinds {
		size := pc.Size()
		for _, o := range pc.Orientations {
			w, h := o.Bounds()
			for dy := 0; dy+h <= r.height; dy++ {
			shift:
				for dx := 0; dx+w <= r.width; dx++ {
					start := len(flat)
					for _, cell := range o {
						x, y := cell.X+dx, cell.Y+dy
						if !r.Open(x, y) {
							flat = flat[:start]
							continue shift
						}
						flat = append(flat, int16(c.index(x, y)))
					}
					sortInt16(flat[start : start+size])
					raws = append(raws, raw{kind: k, anchor: int(flat[start]), start: start})
				}
			}
		}
	}
	// Number by anchor: a counting sort, stable, so kinds stay in order.
	c.firstAt = make([]int32, c.n+1)
	for _, rw := range raws {
		c.firstAt[rw.anchor+1]++
	}
	for a := 1; a <= c.n; a++ {
		c.firstAt[a] += c.firstAt[a-1]
	}
	next := slices.Clone(c.firstAt[:c.n])
	c.placements = make([]placement, len(raws))
	for _, rw := range raws {
		size := c.kinds[rw.kind].Size()
		p := placement{kind: rw.kind, anchor: rw.anchor, cells: flat[rw.start : rw.start+size : rw.start+size]}
		p.lo, p.hi = relativeMask(p.cells, rw.anchor)
		c.placements[next[rw.anchor]] = p
		next[rw.anchor]++
	}

	// The search looks options up by anchor and by the probe: which of
	// the cells next to the anchor are filled (see probe). Each list holds
	// only the options that avoid those cells. Count first, then fill.
	nOpts := 0
	for a := 0; a < c.n; a++ {
		for pr := 0; pr < 1<<probeBits; pr++ {
			filled := c.probeCells(pr)
			for id := c.firstAt[a]; id < c.firstAt[a+1]; id++ {
				if c.placements[id].lo&filled == 0 {
					nOpts++
				}
			}
		}
	}
	opts := make([]option, 0, nOpts)
	c.options = make([][]option, c.n<<probeBits)
	for a := 0; a < c.n; a++ {
		for pr := 0; pr < 1<<probeBits; pr++ {
			filled := c.probeCells(pr)
			first := len(opts)
			for id := c.firstAt[a]; id < c.firstAt[a+1]; id++ {
				if p := &c.placements[id]; p.lo&filled == 0 {
					opts = append(opts, option{lo: p.lo, hi: p.hi, id: id, kind: int32(p.kind)})
				}
			}
			c.options[a<<probeBits|pr] = opts[first:len(opts):len(opts)]
		}
	}
}

// relativeMask returns cells as window bits seen from the anchor.
func relativeMask(cells []int16, anchor int) (lo, hi uint64) {
	for _, cell := range cells {
		switch d := int(cell) - anchor; {
		case d < 0 || d >= 128:
			panic(fmt.Sprintf("tiling: a piece spans cell %d from its anchor", d))
		case d < 64:
			lo |= 1 << d
		default:
			hi |= 1 << (d - 64)
		}
	}
	return lo, hi
}

// The probe of a window is 5 bits: whether the two cells after the anchor
// in its line are filled, and the three cells around the anchor's
// neighbour in the next line (offsets line-1, line, line+1). Every option
// holds cell 1 or cell line, so the probe sorts most of them out.
const probeBits = 5

// probe reads the probe of a window at its anchor.
func probe(lo uint64, line uint) int {
	return int(lo>>1&3 | (lo>>(line-1)&7)<<2)
}

// probeCells turns a probe back into the window bits it stands for.
func (c *compiled) probeCells(pr int) uint64 {
	return uint64(pr&3)<<1 | uint64(pr>>2)<<(c.line-1)
}

func sortInt16(s []int16) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// buildImages fills image: where each symmetry sends each placement.
func (c *compiled) buildImages() {
	c.image = make([][]int32, len(c.syms))
	mapped := make([]int16, 0, 8)
	cellMap := make([]int16, c.n)
	x0, y0, w, h := c.region.openBox()
	for g, t := range c.syms {
		for i, xy := range c.cellXY {
			xy = polyomino.MapInBox(t, xy, x0, y0, w, h)
			cellMap[i] = int16(c.index(xy.X, xy.Y))
		}
		c.image[g] = make([]int32, len(c.placements))
		for id, p := range c.placements {
			if t == 0 {
				c.image[g][id] = int32(id)
				continue
			}
			mapped = mapped[:0]
			for _, i := range p.cells {
				mapped = append(mapped, cellMap[i])
			}
			sortInt16(mapped)
			a := int(mapped[0])
			lo, hi := relativeMask(mapped, a)
			img := int32(-1)
			for j := c.firstAt[a]; j < c.firstAt[a+1]; j++ {
				if q := &c.placements[j]; q.lo == lo && q.hi == hi && q.kind == p.kind {
					img = j
					break
				}
			}
			if img < 0 {
				panic("tiling: a region symmetry maps a placement outside the region")
			}
			c.image[g][id] = img
		}
	}
}

// buildRoots chooses how to break the region's symmetry group G. Every
// tiling places each piece listed once (a "breaker") somewhere. The roots
// start with no piece placed and stabiliser H = G; a root whose H is not
// trivial is split by a breaker: H splits the breaker's placements (those
// clear of the pieces already placed) into orbits, and the root becomes
// one root per orbit, the breaker placed on one representative r, with
// stabiliser H' = the symmetries in H that fix r. Repeat while H' is not
// trivial and breakers are left. At the end, a tiling T of a root with
// stabiliser H (it holds the root's pieces where they were placed):
//
//   - stands for |G|/|H| tilings: its images under one symmetry per coset
//     of H (root.cosets), which are all different and hold the root's
//     pieces on different places, so no other root finds them;
//   - is fixed only by symmetries in H (one fixing T fixes the places of
//     the pieces listed once), so by Burnside's lemma for H the classes of
//     tilings up to symmetry number, over all roots, the sum of
//     |Stab(T)| / |H|.
//
// This is exact when a breaker lies on an axis or a diagonal of symmetry,
// or a tiling is itself symmetric: the cases where keeping a piece in one
// quarter counts some tilings twice. Each split uses the breaker with the
// fewest orbits (X for pentominoes), so most roots end with H trivial
// after one split.
func (c *compiled) buildRoots(filled []bool) {
	type partial struct {
		placed []int32
		stab   []int // indices into syms, identity first
	}
	all := make([]int, len(c.syms))
	for g := range all {
		all[g] = g
	}
	var done []partial
	work := []partial{{stab: all}}
	for len(work) > 0 {
		pt := work[0]
		work = work[1:]
		// A piece placed away from where the search starts makes it
		// slower: splitting again pays only when it saves more than
		// half of the work.
		if len(pt.stab) == 1 || (len(pt.placed) > 0 && len(pt.stab) <= 2) {
			done = append(done, pt)
			continue
		}
		taken := make([]bool, c.n)
		used := make([]bool, len(c.kinds))
		for _, id := range pt.placed {
			used[c.placements[id].kind] = true
			for _, i := range c.placements[id].cells {
				taken[i] = true
			}
		}
		var best []int32
		found := false
		for k := range c.kinds {
			if c.counts[k] != 1 || used[k] {
				continue
			}
			if reps := c.orbitReps(k, pt.stab, taken); !found || len(reps) < len(best) {
				best, found = reps, true
			}
		}
		if !found {
			done = append(done, pt)
			continue
		}
		for _, rep := range best {
			next := partial{placed: append(slices.Clip(pt.placed), rep)}
			for _, g := range pt.stab {
				if c.image[g][rep] == rep {
					next.stab = append(next.stab, g)
				}
			}
			work = append(work, next)
		}
	}
	for _, pt := range done {
		rt := root{placed: pt.placed, stab: pt.stab[1:], stabSize: len(pt.stab)}
		seen := map[string]bool{}
		for g := range c.syms {
			key := fmt.Sprint(c.imagesOf(g, pt.placed))
			if !seen[key] {
				seen[key] = true
				rt.cosets = append(rt.cosets, g)
			}
		}
		f := slices.Clone(filled)
		for _, id := range pt.placed {
			for _, i := range c.placements[id].cells {
				f[i] = true
			}
		}
		rt.static = staticWords(f)
		c.roots = append(c.roots, rt)
	}
}

// imagesOf maps placements by symmetry g.
func (c *compiled) imagesOf(g int, ids []int32) []int32 {
	out := make([]int32, len(ids))
	for i, id := range ids {
		out[i] = id
		if c.image != nil {
			out[i] = c.image[g][id]
		}
	}
	return out
}

// orbitReps returns one placement of kind k clear of the taken cells per
// orbit under the symmetries stab: the one whose first cell comes first
// in scan order.
func (c *compiled) orbitReps(k int, stab []int, taken []bool) []int32 {
	done := make([]bool, len(c.placements))
	var reps []int32
next:
	for id := range c.placements {
		p := &c.placements[id]
		if p.kind != k || done[id] {
			continue
		}
		for _, i := range p.cells {
			if taken[i] {
				continue next
			}
		}
		best := int32(id)
		for _, g := range stab {
			img := c.image[g][id]
			done[img] = true
			if c.placements[img].anchor < c.placements[best].anchor {
				best = img
			}
		}
		reps = append(reps, best)
	}
	return reps
}

// staticWords returns w with w[i] holding filled[i..i+63] (bit 0 = cell i).
func staticWords(filled []bool) []uint64 {
	w := make([]uint64, len(filled))
	var acc uint64
	for i := len(filled) - 1; i >= 0; i-- {
		acc <<= 1
		if filled[i] {
			acc |= 1
		}
		w[i] = acc
	}
	// The last 63 words lack bits beyond the slice: count those as filled.
	for i := len(filled) - 63; i < len(filled); i++ {
		if i >= 0 {
			w[i] |= ^uint64(0) << (len(filled) - i)
		}
	}
	return w
}
