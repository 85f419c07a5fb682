package tiling

// Dancing Links (Knuth, "Dancing Links", 2000), kept here as the other
// candidate algorithm: the benchmarks compare it with the engine's bitboard
// search, and the tests use it as a second, independent counter.

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/gamesolver/gamesolver/engine/polyomino"
)

// dlx is an exact-cover matrix in Knuth's array form: node 0 is the root,
// nodes 1..columns the column headers, then the row nodes.
type dlx struct {
	left, right, up, down, col []int32
	size                       []int32 // per column header
	nodes, count               int64
}

func newDLX(columns int, rows [][]int32) *dlx {
	d := &dlx{}
	add := func(l, r, u, dn, c int32) int32 {
		d.left = append(d.left, l)
		d.right = append(d.right, r)
		d.up = append(d.up, u)
		d.down = append(d.down, dn)
		d.col = append(d.col, c)
		return int32(len(d.left) - 1)
	}
	d.size = make([]int32, columns+1)
	for i := int32(0); i <= int32(columns); i++ {
		add((i+int32(columns))%int32(columns+1), (i+1)%int32(columns+1), i, i, i)
	}
	for _, row := range rows {
		first := int32(-1)
		for _, c := range row {
			h := c + 1
			n := add(0, 0, d.up[h], h, h)
			d.down[d.up[h]] = n
			d.up[h] = n
			d.size[h]++
			if first < 0 {
				first = n
				d.left[n], d.right[n] = n, n
			} else {
				d.left[n], d.right[n] = d.left[first], first
				d.right[d.left[first]] = n
				d.left[first] = n
			}
		}
	}
	return d
}

func (d *dlx) cover(c int32) {
	d.right[d.left[c]], d.left[d.right[c]] = d.right[c], d.left[c]
	for i := d.down[c]; i != c; i = d.down[i] {
		for j := d.right[i]; j != i; j = d.right[j] {
			d.down[d.up[j]], d.up[d.down[j]] = d.down[j], d.up[j]
			d.size[d.col[j]]--
		}
	}
}

func (d *dlx) uncover(c int32) {
	for i := d.up[c]; i != c; i = d.up[i] {
		for j := d.left[i]; j != i; j = d.left[j] {
			d.size[d.col[j]]++
			d.down[d.up[j]], d.up[d.down[j]] = j, j
		}
	}
	d.right[d.left[c]], d.left[d.right[c]] = c, c
}

// search counts the exact covers, branching on the column with the
// fewest rows.
func (d *dlx) search() {
	d.nodes++
	if d.right[0] == 0 {
		d.count++
		return
	}
	best := d.right[0]
	for c := d.right[best]; c != 0; c = d.right[c] {
		if d.size[c] < d.size[best] {
			best = c
		}
	}
	if d.size[best] == 0 {
		return
	}
	d.cover(best)
	for r := d.down[best]; r != best; r = d.down[r] {
		for j := d.right[r]; j != r; j = d.right[j] {
			d.cover(d.col[j])
		}
		d.search()
		for j := d.left[r]; j != r; j = d.left[j] {
			d.uncover(d.col[j])
		}
	}
	d.uncover(best)
}

// dlxRows builds the exact-cover rows of a problem whose pieces are all
// different and cover the region exactly: a column per piece, then one per
// cell. keep, if set, filters the placements.
func dlxRows(p Problem, keep func(piece string, cells []polyomino.Cell) bool) (columns int, rows [][]int32) {
	r := p.Region
	pieces := piecesOf(p)
	for k, pc := range pieces {
		for _, o := range pc.Orientations {
			w, h := o.Bounds()
			for dy := 0; dy+h <= r.Height(); dy++ {
			shift:
				for dx := 0; dx+w <= r.Width(); dx++ {
					row := []int32{int32(k)}
					var cells []polyomino.Cell
					for _, c := range o {
						x, y := c.X+dx, c.Y+dy
						if !r.Open(x, y) {
							continue shift
						}
						row = append(row, int32(len(pieces)+y*r.Width()+x))
						cells = append(cells, polyomino.Cell{X: x, Y: y})
					}
					if keep == nil || keep(pc.Name, cells) {
						rows = append(rows, row)
					}
				}
			}
		}
	}
	// Blocked cells get no rows; give them a row of their own so that
	// every column can be covered.
	for y := 0; y < r.Height(); y++ {
		for x := 0; x < r.Width(); x++ {
			if !r.Open(x, y) {
				rows = append(rows, []int32{int32(len(pieces) + y*r.Width() + x)})
			}
		}
	}
	return len(pieces) + r.Width()*r.Height(), rows
}

// xInQuadrant keeps the X pentomino's centre in the top-left quarter of
// the rectangle, the middle lines included when closed: the classic
// symmetry breaking, exact when both sides are even.
func xInQuadrant(r Region, closed bool) func(string, []polyomino.Cell) bool {
	return func(piece string, cells []polyomino.Cell) bool {
		if piece != "X" {
			return true
		}
		x, y := 2*cells[2].X, 2*cells[2].Y // the centre, doubled
		if closed {
			return x <= r.Width()-1 && y <= r.Height()-1
		}
		return x < r.Width()-1 && y < r.Height()-1
	}
}

func dlxCount(p Problem, keep func(string, []polyomino.Cell) bool) int64 {
	d := newDLX(dlxRows(p, keep))
	d.search()
	return d.count
}

// TestDLXAgrees checks the engine's CountAll against Dancing Links on
// random problems with every piece once and no leftover.
func TestDLXAgrees(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 9356))
	checked := 0
	for checked < 150 {
		p := randomProblem(rng)
		if p.AllowLeftover {
			continue
		}
		seen := map[*polyomino.Piece]bool{}
		once := true
		for _, pc := range p.Pieces {
			once = once && !seen[pc]
			seen[pc] = true
		}
		if !once {
			continue
		}
		checked++
		d := newDLX(dlxRows(p, nil))
		d.search()
		res, err := Solve(context.Background(), p, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if res.CountAll != d.count {
			t.Fatalf("%s by %s: engine %d tilings, Dancing Links %d", p.Region, p.Pieces, res.CountAll, d.count)
		}
	}
}

// TestQuadrantTrap4x15 shows the quadrant trap at full size: on 4 x 15 the
// X pentomino can sit on the middle column. Keeping its centre in the open
// top-left quarter misses those tilings; keeping it in the closed quarter
// counts each of them twice (it and its mirror image). The engine's 368
// classes (and 4 x 368 tilings) must lie exactly in between.
func TestQuadrantTrap4x15(t *testing.T) {
	p := Problem{Region: mustRegion(t, 15, 4)}
	open := dlxCount(p, xInQuadrant(p.Region, false))
	closed := dlxCount(p, xInQuadrant(p.Region, true))
	res, err := Solve(context.Background(), p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !(open < res.Count && res.Count < closed && open+closed == 2*res.Count && res.CountAll == 4*res.Count) {
		t.Errorf("open quarter %d, closed quarter %d, engine %d classes of %d tilings", open, closed, res.Count, res.CountAll)
	}
	if res.Count != 368 {
		t.Errorf("4 x 15: %d classes, want 368", res.Count)
	}
}

// BenchmarkDLX counts the 6 x 10 rectangle with Dancing Links, X kept in a
// quarter (the same symmetry breaking as the engine's on this rectangle),
// for comparison with BenchmarkSolve/6x10/workers=1.
func BenchmarkDLX(b *testing.B) {
	for _, br := range benchRegions[:1] {
		b.Run(br.name, func(b *testing.B) {
			p := Problem{Region: mustRegion(b, br.w, br.h)}
			columns, rows := dlxRows(p, xInQuadrant(p.Region, false))
			var nodes int64
			for b.Loop() {
				d := newDLX(columns, rows)
				d.search()
				if br.name == "6x10" && d.count != 2339 {
					b.Fatalf("Dancing Links on 6 x 10: %d tilings with X in a quarter, want 2339", d.count)
				}
				nodes += d.nodes
			}
			b.ReportMetric(float64(nodes)/float64(b.N), "nodes/op")
		})
	}
}
