package tiling

// A brute-force tiler and checks that share nothing with the engine but
// the piece shapes: they read regions through Region.Open, place pieces
// cell by cell in reading order, and compute symmetry classes by mapping
// every tiling through every symmetry, with transforms written out here.

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/gamesolver/gamesolver/engine/polyomino"
)

// piecesOf returns the problem's pieces, the default when empty.
func piecesOf(p Problem) Pieces {
	if len(p.Pieces) == 0 {
		return DefaultPieces()
	}
	return p.Pieces
}

// bruteTilings lists the keys (see tilingKey) of every tiling: it fills
// the first empty cell in reading order with each piece left in each
// orientation, or leaves it uncovered while cells may stay over.
func bruteTilings(p Problem) []string {
	r := p.Region
	w, h := r.Width(), r.Height()
	pieces := piecesOf(p)
	left := map[*polyomino.Piece]int{}
	var kinds []*polyomino.Piece
	for _, pc := range pieces {
		if left[pc] == 0 {
			kinds = append(kinds, pc)
		}
		left[pc]++
	}
	spare := r.Area() - pieces.Area()
	used := make([]bool, w*h) // covered or left uncovered
	var placed []Placement
	var keys []string
	var rec func()
	rec = func() {
		if len(placed) == len(pieces) {
			keys = append(keys, tilingKey(placed))
			return
		}
		first := -1
		for i := 0; i < w*h; i++ {
			if r.Open(i%w, i/w) && !used[i] {
				first = i
				break
			}
		}
		if first < 0 {
			return
		}
		x0, y0 := first%w, first/w
		for _, pc := range kinds {
			if left[pc] == 0 {
				continue
			}
			for _, o := range pc.Orientations {
				// o[0] is the orientation's first cell in reading order:
				// it must land on the first empty cell.
				dx, dy := x0-o[0].X, y0-o[0].Y
				cells := make([]polyomino.Cell, len(o))
				fits := true
				for i, c := range o {
					x, y := c.X+dx, c.Y+dy
					if !r.Open(x, y) || used[y*w+x] {
						fits = false
						break
					}
					cells[i] = polyomino.Cell{X: x, Y: y}
				}
				if !fits {
					continue
				}
				for _, c := range cells {
					used[c.Y*w+c.X] = true
				}
				left[pc]--
				placed = append(placed, Placement{Piece: pc.Name, Cells: cells})
				rec()
				placed = placed[:len(placed)-1]
				left[pc]++
				for _, c := range cells {
					used[c.Y*w+c.X] = false
				}
			}
		}
		if spare > 0 {
			spare--
			used[first] = true
			rec()
			used[first] = false
			spare++
		}
	}
	rec()
	return keys
}

// tilingKey writes a tiling as its pieces sorted by their first cell in
// reading order, e.g. "I:a1,b1,c1,d1,e1 I:a2,b2,c2,d2,e2": equal keys are
// equal tilings, whatever the order of the pieces and cells given.
func tilingKey(pl []Placement) string {
	parts := make([]string, len(pl))
	for i, p := range pl {
		cells := slices.Clone(p.Cells)
		slices.SortFunc(cells, cellOrder)
		parts[i] = Placement{Piece: p.Piece, Cells: cells}.String()
	}
	sort.Slice(parts, func(i, j int) bool {
		return firstCell(parts[i]) < firstCell(parts[j])
	})
	return strings.Join(parts, " ")
}

// firstCell orders key parts by their first cell in reading order.
func firstCell(part string) int {
	name := strings.SplitN(strings.SplitN(part, ":", 2)[1], ",", 2)[0]
	c, err := polyomino.ParseCell(name)
	if err != nil {
		panic(err)
	}
	return c.Y*100 + c.X
}

// parseKey reads a tiling key back.
func parseKey(key string) []Placement {
	var out []Placement
	for _, part := range strings.Fields(key) {
		name, cells, _ := strings.Cut(part, ":")
		p := Placement{Piece: name}
		for _, c := range strings.Split(cells, ",") {
			cell, err := polyomino.ParseCell(c)
			if err != nil {
				panic(err)
			}
			p.Cells = append(p.Cells, cell)
		}
		out = append(out, p)
	}
	return out
}

// mapCell applies symmetry t of a w x h rectangle, written out: t is a
// rotation by t%4 quarter turns clockwise, then a mirror image left to
// right when t >= 4. Quarter turns are symmetries of squares only.
func mapCell(t int, c polyomino.Cell, w, h int) polyomino.Cell {
	for range t % 4 {
		c = polyomino.Cell{X: h - 1 - c.Y, Y: c.X}
		w, h = h, w
	}
	if t >= 4 {
		c.X = w - 1 - c.X
	}
	return c
}

// box is the bounding box of the region's open cells, found here by a
// plain scan: its corner and size.
func box(r Region) (x0, y0, w, h int) {
	x0, y0, x1, y1 := r.Width(), r.Height(), -1, -1
	for y := 0; y < r.Height(); y++ {
		for x := 0; x < r.Width(); x++ {
			if r.Open(x, y) {
				x0, y0, x1, y1 = min(x0, x), min(y0, y), max(x1, x), max(y1, y)
			}
		}
	}
	return x0, y0, x1 - x0 + 1, y1 - y0 + 1
}

// mapInRegion applies symmetry t of the box of the region's open cells.
func mapInRegion(t int, c polyomino.Cell, r Region) polyomino.Cell {
	x0, y0, w, h := box(r)
	d := mapCell(t, polyomino.Cell{X: c.X - x0, Y: c.Y - y0}, w, h)
	return polyomino.Cell{X: d.X + x0, Y: d.Y + y0}
}

// regionSymmetries are the symmetries (as mapCell numbers) of the bounding
// box of the region's open cells that map them onto open cells: the
// region's own symmetries, wherever it lies in its rectangle.
func regionSymmetries(r Region) []int {
	var out []int
	x0, y0, w, h := box(r)
	for t := range 8 {
		if t%2 == 1 && w != h {
			continue
		}
		ok := true
		for y := y0; y < y0+h && ok; y++ {
			for x := x0; x < x0+w; x++ {
				c := mapInRegion(t, polyomino.Cell{X: x, Y: y}, r)
				if r.Open(x, y) != r.Open(c.X, c.Y) {
					ok = false
					break
				}
			}
		}
		if ok {
			out = append(out, t)
		}
	}
	return out
}

// classKey is the smallest key among a tiling's images under the region's
// symmetries, and stab the number of symmetries fixing the tiling.
func classKey(r Region, key string) (class string, stab int) {
	class = key
	for _, t := range regionSymmetries(r) {
		var img []Placement
		for _, p := range parseKey(key) {
			q := Placement{Piece: p.Piece}
			for _, c := range p.Cells {
				q.Cells = append(q.Cells, mapInRegion(t, c, r))
			}
			img = append(img, q)
		}
		k := tilingKey(img)
		if k == key {
			stab++
		}
		class = min(class, k)
	}
	return class, stab
}

// bruteCounts counts tilings in all and up to symmetry, and says whether
// one of them is symmetric.
func bruteCounts(p Problem) (count, countAll int, symmetric bool, keys []string) {
	keys = bruteTilings(p)
	classes := map[string]bool{}
	for _, k := range keys {
		c, stab := classKey(p.Region, k)
		classes[c] = true
		symmetric = symmetric || stab > 1
	}
	return len(classes), len(keys), symmetric, keys
}

// rotations returns the normalised cell sets of the 8 images of a shape,
// computed here rather than taken from the polyomino package.
func rotations(s polyomino.Shape) map[string]bool {
	out := map[string]bool{}
	for t := range 8 {
		var cells []polyomino.Cell
		for _, c := range s {
			cells = append(cells, mapCell(t, c, 8, 8))
		}
		out[normKey(cells)] = true
	}
	return out
}

func normKey(cells []polyomino.Cell) string {
	minX, minY := cells[0].X, cells[0].Y
	for _, c := range cells {
		minX, minY = min(minX, c.X), min(minY, c.Y)
	}
	var parts []string
	for _, c := range cells {
		parts = append(parts, fmt.Sprintf("%d,%d", c.X-minX, c.Y-minY))
	}
	sort.Strings(parts)
	return strings.Join(parts, " ")
}

// verifySolution checks one listed tiling cell by cell: the rows draw the
// region, each open cell is covered once (or left '.' when leftover cells
// are allowed, as many as the areas say), every piece is used as often as
// listed, and the cells of each placement form that piece's shape.
func verifySolution(t *testing.T, p Problem, rows []string, pl []Placement) {
	t.Helper()
	r := p.Region
	w, h := r.Width(), r.Height()
	pieces := piecesOf(p)
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("%s in solution\n%s\n%v", fmt.Sprintf(format, args...), strings.Join(rows, "\n"), pl)
	}
	if len(rows) != h {
		fail("%d rows, want %d", len(rows), h)
	}
	want := map[string]int{}
	byName := map[string]*polyomino.Piece{}
	for _, pc := range pieces {
		want[pc.Name]++
		byName[pc.Name] = pc
	}
	covered := make([]bool, w*h)
	got := map[string]int{}
	for _, q := range pl {
		pc, ok := byName[q.Piece]
		if !ok {
			fail("piece %s is not in the problem", q.Piece)
		}
		got[q.Piece]++
		if len(q.Cells) != pc.Size() {
			fail("%v has %d cells", q, len(q.Cells))
		}
		for _, c := range q.Cells {
			if !r.Open(c.X, c.Y) {
				fail("%v covers a cell that is not open", q)
			}
			if covered[c.Y*w+c.X] {
				fail("%v covers %s twice", q, c.String())
			}
			covered[c.Y*w+c.X] = true
			if rows[c.Y][c.X] != Symbol(pc) {
				fail("row %d has %q at %s, want %q of %v", c.Y+1, rows[c.Y][c.X], c.String(), Symbol(pc), q)
			}
		}
		if !rotations(pc.Shape)[normKey(q.Cells)] {
			fail("the cells of %v are not the shape of %s", q, pc.Name)
		}
	}
	for name, n := range want {
		if got[name] != n {
			fail("%s used %d times, want %d", name, got[name], n)
		}
	}
	if len(pl) != len(pieces) {
		fail("%d pieces placed, want %d", len(pl), len(pieces))
	}
	uncovered := 0
	for y := 0; y < h; y++ {
		if len(rows[y]) != w {
			fail("row %d has %d cells, want %d", y+1, len(rows[y]), w)
		}
		for x := 0; x < w; x++ {
			switch {
			case !r.Open(x, y):
				if rows[y][x] != '#' {
					fail("blocked cell %s drawn %q", cellName(x, y), rows[y][x])
				}
			case !covered[y*w+x]:
				uncovered++
				if rows[y][x] != '.' {
					fail("uncovered cell %s drawn %q", cellName(x, y), rows[y][x])
				}
			}
		}
	}
	if spare := r.Area() - pieces.Area(); uncovered != spare {
		fail("%d cells uncovered, want %d", uncovered, spare)
	}
}
