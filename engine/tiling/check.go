package tiling

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gamesolver/gamesolver/engine/polyomino"
)

// Check reports whether r can be the complete answer of Solve for p with
// o's Limit and EveryTiling (an answer read back from a cache or a store,
// which may have been edited): its counts agree with each other
// (Burnside: Fixed is Count times the region's symmetries, at least
// CountAll, which is at least Count), it lists as many tilings as the
// limit and the count allow, and each is a tiling of the region by the
// pieces, every piece placed as often as listed, in its rows and its
// placements alike, one per class of tilings (each tiling once with
// EveryTiling). A count changed in a way that keeps all this is beyond
// such a check.
func (p Problem) Check(r Result, o Options) error {
	if !r.Complete {
		return fmt.Errorf("the count is not complete")
	}
	syms := p.Region.Symmetries()
	if r.Symmetries != len(syms) {
		return fmt.Errorf("%d symmetries; the region has %d", r.Symmetries, len(syms))
	}
	if r.Count < 0 || r.CountAll < r.Count || r.Fixed != r.Count*int64(len(syms)) || r.CountAll > r.Fixed {
		return fmt.Errorf("counts %d, %d and %d (fixed) disagree", r.Count, r.CountAll, r.Fixed)
	}
	listable := r.Count
	if o.EveryTiling {
		listable = r.CountAll
	}
	want := min(int64(max(o.Limit, 0)), listable)
	if int64(len(r.Placements)) != want || len(r.Solutions) != len(r.Placements) {
		return fmt.Errorf("%d tilings and %d rows listed; want %d", len(r.Placements), len(r.Solutions), want)
	}
	pieces := p.Pieces
	if len(pieces) == 0 {
		pieces = DefaultPieces()
	}
	times := map[string]int{}
	byName := map[string]*polyomino.Piece{}
	for _, pc := range pieces {
		times[pc.Name]++
		byName[pc.Name] = pc
	}
	// Without a piece listed twice a tiling's rows name it (each symbol
	// one piece), and its class is the least of its rows' images, a
	// quarter of the cost of TilingClass.
	distinct := len(byName) == len(pieces)
	x0, y0, w, h := p.Region.openBox()
	seen := make(map[string]bool, len(r.Placements))
	for i, t := range r.Placements {
		if err := p.checkTiling(t, r.Solutions[i], times, byName); err != nil {
			return fmt.Errorf("tiling %d: %w", i+1, err)
		}
		var name string
		switch {
		case o.EveryTiling && distinct:
			name = strings.Join(r.Solutions[i], "/")
		case o.EveryTiling:
			name = tilingName(t, nil)
		case distinct:
			name = rowsClass(r.Solutions[i], syms, x0, y0, w, h)
		default:
			name = p.Region.TilingClass(t)
		}
		if seen[name] {
			return fmt.Errorf("tiling %d: listed before", i+1)
		}
		seen[name] = true
	}
	return nil
}

// checkTiling reports whether t, drawn as rows, places every piece of
// times (names and how often) on open cells of the region, each cell once,
// in one of its piece's orientations.
func (p Problem) checkTiling(t []Placement, rows []string, times map[string]int, byName map[string]*polyomino.Piece) error {
	want := p.Region.Rows()
	grid := make([][]byte, len(want))
	for y, row := range want {
		grid[y] = []byte(row)
	}
	used := map[string]int{}
	for _, pl := range t {
		pc, ok := byName[pl.Piece]
		if !ok {
			return fmt.Errorf("%s: no such piece in the problem", pl)
		}
		used[pl.Piece]++
		if len(pl.Cells) != pc.Size() {
			return fmt.Errorf("%s: %d cells, the piece has %d", pl, len(pl.Cells), pc.Size())
		}
		for _, c := range pl.Cells {
			if !p.Region.Open(c.X, c.Y) || grid[c.Y][c.X] != '.' {
				return fmt.Errorf("%s: cell %s is not open or is covered twice", pl, c)
			}
			grid[c.Y][c.X] = Symbol(pc)
		}
		shape := polyomino.Shape(pl.Cells).Normalize()
		if !slices.ContainsFunc(pc.Orientations, func(s polyomino.Shape) bool { return slices.Equal(s, shape) }) {
			return fmt.Errorf("%s: not a shape of %s", pl, pc.Name)
		}
	}
	for name, n := range times { // (a piece not listed was refused above)
		if used[name] != n {
			return fmt.Errorf("%s placed %d times, listed %d", name, used[name], n)
		}
	}
	if len(rows) != len(grid) {
		return fmt.Errorf("%d rows; the region has %d", len(rows), len(grid))
	}
	for y, row := range grid {
		if rows[y] != string(row) {
			return fmt.Errorf("row %d is %q; its placements draw %q", y+1, rows[y], row)
		}
	}
	return nil
}

// rowsClass names the class of a tiling drawn as rows, its pieces told
// apart by their symbols, under the region's symmetries syms of its open
// cells' box: the least of the box's images.
func rowsClass(rows []string, syms []polyomino.Transform, x0, y0, w, h int) string {
	best, img := "", make([]byte, w*h)
	for i, t := range syms {
		for y := y0; y < y0+h; y++ {
			for x := x0; x < x0+w; x++ {
				c := polyomino.MapInBox(t, polyomino.Cell{X: x, Y: y}, x0, y0, w, h)
				img[(c.Y-y0)*w+c.X-x0] = rows[y][x]
			}
		}
		if i == 0 || string(img) < best {
			best = string(img)
		}
	}
	return best
}
