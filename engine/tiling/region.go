package tiling

import (
	"fmt"
	"math/bits"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/gamesolver/gamesolver/engine/polyomino"
)

// Size limits of a region: every rectangle up to 16 x 16 fits, and so do
// long ones such as 3 x 20, up to 26 cells (the column letters a..z) on a
// side and 256 cells in all.
const (
	MaxCells = 256
	MaxSide  = 26
)

// Region is a rectangle of at most MaxCells cells and MaxSide on a side,
// some of them blocked. The zero Region is empty and cannot be solved;
// build one with ParseRegion or ParseBoard. Regions are values: they can be
// copied and compared with ==.
type Region struct {
	width, height int
	// blocked has bit y*width+x set for each blocked cell (x, y).
	blocked [MaxCells / 64]uint64
}

// ParseRegion builds a width x height rectangle with the named cells
// blocked. A cell name is a column letter from 'a' (left) and a row number
// from 1 (top), so "a1" is the top-left cell; upper case is accepted.
// Naming a cell twice is an error (as for the placement games' boards): a
// list with a slip in it would otherwise surface as an area mismatch.
func ParseRegion(width, height int, blocked []string) (Region, error) {
	r, err := newRegion(width, height)
	if err != nil {
		return Region{}, err
	}
	for _, name := range blocked {
		c, err := polyomino.ParseCell(name)
		if err != nil {
			return Region{}, fmt.Errorf("%w: blocked cells: %w", ErrBadRegion, err)
		}
		if c.X >= width || c.Y >= height {
			return Region{}, fmt.Errorf("%w: blocked cell %s is outside the %d x %d region (columns a..%c, rows 1..%d)",
				ErrBadRegion, strings.ToLower(strings.TrimSpace(name)), width, height, 'a'+width-1, height)
		}
		if !r.Open(c.X, c.Y) {
			return Region{}, fmt.Errorf("%w: blocked cell %s listed twice", ErrBadRegion, strings.ToLower(strings.TrimSpace(name)))
		}
		r.block(c.X, c.Y)
	}
	return r, nil
}

// ParseBoard builds a region from its rows, top row first: '.' is an open
// cell and '#' a blocked one. All rows must have the same length.
func ParseBoard(rows []string) (Region, error) {
	if len(rows) == 0 {
		return Region{}, fmt.Errorf("%w: the board has no rows", ErrBadRegion)
	}
	width := utf8.RuneCountInString(rows[0]) // cells are characters, not bytes
	r, err := newRegion(width, len(rows))
	if err != nil {
		return Region{}, err
	}
	for y, row := range rows {
		if n := utf8.RuneCountInString(row); n != width {
			return Region{}, fmt.Errorf("%w: board row %d has %d cells, expected %d like row 1",
				ErrBadRegion, y+1, n, width)
		}
		x := 0
		for _, ch := range row {
			switch ch {
			case '.':
			case '#':
				r.block(x, y)
			default:
				return Region{}, fmt.Errorf("%w: board row %d, cell %s: character %q (expected '.' for open or '#' for blocked)",
					ErrBadRegion, y+1, cellName(x, y), ch)
			}
			x++
		}
	}
	return r, nil
}

func newRegion(width, height int) (Region, error) {
	if width < 1 || height < 1 {
		return Region{}, fmt.Errorf("%w: size %d x %d (width and height must be at least 1)", ErrBadRegion, width, height)
	}
	if width > MaxSide || height > MaxSide || width*height > MaxCells {
		return Region{}, fmt.Errorf("%w: %d x %d (width x height); regions have at most %d cells and %d on a side (16 x 16 fits)",
			ErrRegionTooLarge, width, height, MaxCells, MaxSide)
	}
	return Region{width: width, height: height}, nil
}

// cellName names the cell in column x (0 = left) and row y (0 = top),
// e.g. "d4" for (3, 3).
func cellName(x, y int) string { return polyomino.Cell{X: x, Y: y}.String() }

func (r *Region) block(x, y int) {
	i := y*r.width + x
	r.blocked[i/64] |= 1 << (i % 64)
}

// Width is the number of columns.
func (r Region) Width() int { return r.width }

// Height is the number of rows.
func (r Region) Height() int { return r.height }

// Open reports whether the cell in column x and row y is inside the
// rectangle and not blocked.
func (r Region) Open(x, y int) bool {
	if x < 0 || y < 0 || x >= r.width || y >= r.height {
		return false
	}
	i := y*r.width + x
	return r.blocked[i/64]&(1<<(i%64)) == 0
}

// Area is the number of open cells.
func (r Region) Area() int {
	n := 0
	for _, w := range r.blocked {
		n += bits.OnesCount64(w)
	}
	return r.width*r.height - n
}

// Blocked lists the names of the blocked cells in reading order.
func (r Region) Blocked() []string {
	var out []string
	for y := 0; y < r.height; y++ {
		for x := 0; x < r.width; x++ {
			if !r.Open(x, y) {
				out = append(out, cellName(x, y))
			}
		}
	}
	return out
}

// Rows draws the region as ParseBoard reads it: '.' open, '#' blocked.
func (r Region) Rows() []string {
	rows := make([]string, r.height)
	line := make([]byte, r.width)
	for y := range rows {
		for x := range line {
			line[x] = '#'
			if r.Open(x, y) {
				line[x] = '.'
			}
		}
		rows[y] = string(line)
	}
	return rows
}

// String is the rows joined by '/'.
func (r Region) String() string { return strings.Join(r.Rows(), "/") }

// Symmetries returns the symmetries of the region: the symmetries of the
// bounding box of its open cells (8 for a square, 4 otherwise) that map
// the open cells onto themselves, wherever the box lies in the rectangle
// (a 5 x 5 square of open cells beside a blocked column has all 8). The
// identity comes first. Tilings that one of them maps onto each other count
// once in Result.Count.
func (r Region) Symmetries() []polyomino.Transform {
	x0, y0, w, h := r.openBox()
	if w == 0 {
		return []polyomino.Transform{polyomino.RectSymmetries(1, 1)[0]}
	}
	return polyomino.BoxSymmetries(x0, y0, w, h, func(c, d polyomino.Cell) bool { return r.Open(c.X, c.Y) == r.Open(d.X, d.Y) })
}

// Shape names the open cells up to congruence: the same string for two
// regions whose open cells one rotation, reflection or translation maps
// onto each other, a different one otherwise. (What depends on the open
// cells alone, such as the counts of tilings, is the same for both.) It
// is the least of the eight images of the open cells' bounding box, as
// rows joined by '/'.
func (r Region) Shape() string {
	x0, y0, w, h := r.openBox()
	best := ""
	grid := make([]byte, w*h)
	for _, t := range polyomino.Transforms() {
		outW := w
		if t.SwapsAxes() {
			outW = h
		}
		for y := range h {
			for x := range w {
				d := t.ApplyInRect(polyomino.Cell{X: x, Y: y}, w, h)
				grid[d.Y*outW+d.X] = '#'
				if r.Open(x0+x, y0+y) {
					grid[d.Y*outW+d.X] = '.'
				}
			}
		}
		var b strings.Builder
		for row := 0; row < len(grid); row += outW {
			if row > 0 {
				b.WriteByte('/')
			}
			b.Write(grid[row : row+outW])
		}
		if s := b.String(); t == 0 || s < best {
			best = s
		}
	}
	return best
}

// TilingClass names a tiling of the region up to its symmetries: the same
// string for two tilings that one of Symmetries maps onto each other, a
// different one otherwise. (Parts of a search cut short may each list a
// tiling of one class; this tells them apart.)
func (r Region) TilingClass(tiling []Placement) string {
	x0, y0, w, h := r.openBox()
	best := ""
	for i, t := range r.Symmetries() {
		s := tilingName(tiling, func(c polyomino.Cell) polyomino.Cell { return polyomino.MapInBox(t, c, x0, y0, w, h) })
		if i == 0 || s < best {
			best = s
		}
	}
	return best
}

// tilingName names the image of a tiling under mapCell (nil: the tiling
// itself): its placements' names, each with its cells in reading order,
// sorted.
func tilingName(tiling []Placement, mapCell func(polyomino.Cell) polyomino.Cell) string {
	names := make([]string, len(tiling))
	for j, p := range tiling {
		img := Placement{Piece: p.Piece, Cells: slices.Clone(p.Cells)}
		if mapCell != nil {
			for k, c := range img.Cells {
				img.Cells[k] = mapCell(c)
			}
		}
		slices.SortFunc(img.Cells, cellOrder)
		names[j] = img.String()
	}
	slices.Sort(names)
	return strings.Join(names, " ")
}

// openBox is the bounding box of the open cells: its top-left corner and
// size (0 x 0 when no cell is open).
func (r Region) openBox() (x0, y0, w, h int) {
	x0, y0, x1, y1 := r.width, r.height, -1, -1
	for y := 0; y < r.height; y++ {
		for x := 0; x < r.width; x++ {
			if r.Open(x, y) {
				x0, y0, x1, y1 = min(x0, x), min(y0, y), max(x1, x), max(y1, y)
			}
		}
	}
	if x1 < 0 {
		return 0, 0, 0, 0
	}
	return x0, y0, x1 - x0 + 1, y1 - y0 + 1
}
