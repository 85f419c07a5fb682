package polyomino

import (
	"errors"
	"sort"
	"strings"
)

// Errors callers can test with errors.Is.
var (
	ErrUnknownPieceSet = errors.New("unknown piece set")
	ErrBadShape        = errors.New("bad shape")
)

// Transform is one of the 8 symmetries of the square grid, applied to a
// cell about the origin: swap X and Y (a reflection in the main diagonal),
// then negate X and/or Y. The identity is Transform(0).
//
//	bit 0: negate X   bit 1: negate Y   bit 2: swap X and Y first
type Transform uint8

// transforms lists all 8 symmetries of the square, identity first.
var transforms = [8]Transform{0, 1, 2, 3, 4, 5, 6, 7}

// Transforms returns all 8 symmetries of the square, identity first (a
// copy: no caller can change another's).
func Transforms() [8]Transform { return transforms }

// Apply maps a cell.
func (t Transform) Apply(c Cell) Cell {
	if t&4 != 0 {
		c.X, c.Y = c.Y, c.X
	}
	if t&1 != 0 {
		c.X = -c.X
	}
	if t&2 != 0 {
		c.Y = -c.Y
	}
	return c
}

// SwapsAxes reports whether the transform exchanges rows and columns, so that
// it maps a W x H rectangle onto an H x W one.
func (t Transform) SwapsAxes() bool { return t&4 != 0 }

// ApplyInRect maps a cell of a width x height rectangle to the transformed
// rectangle (height x width when the transform swaps axes).
func (t Transform) ApplyInRect(c Cell, width, height int) Cell {
	if t&4 != 0 {
		c.X, c.Y = c.Y, c.X
		width, height = height, width
	}
	if t&1 != 0 {
		c.X = width - 1 - c.X
	}
	if t&2 != 0 {
		c.Y = height - 1 - c.Y
	}
	return c
}

// RectSymmetries returns the transforms that map a width x height rectangle
// onto itself: all 8 for a square, the 4 that keep the axes otherwise.
func RectSymmetries(width, height int) []Transform {
	var out []Transform
	for _, t := range transforms {
		if t.SwapsAxes() && width != height {
			continue
		}
		out = append(out, t)
	}
	return out
}

// Normalize translates the shape so that its smallest X and Y are 0 and sorts
// it in reading order. It returns a new shape.
func (s Shape) Normalize() Shape {
	if len(s) == 0 {
		return nil
	}
	minX, minY := s[0].X, s[0].Y
	for _, c := range s[1:] {
		minX, minY = min(minX, c.X), min(minY, c.Y)
	}
	out := make(Shape, len(s))
	for i, c := range s {
		out[i] = Cell{c.X - minX, c.Y - minY}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Y != out[j].Y {
			return out[i].Y < out[j].Y
		}
		return out[i].X < out[j].X
	})
	return out
}

// Transform applies t and normalises the result.
func (s Shape) Transform(t Transform) Shape {
	out := make(Shape, len(s))
	for i, c := range s {
		out[i] = t.Apply(c)
	}
	return out.Normalize()
}

// Bounds returns the width and height of the shape's bounding box.
func (s Shape) Bounds() (width, height int) {
	for _, c := range s {
		width, height = max(width, c.X+1), max(height, c.Y+1)
	}
	return width, height
}

// Orientations returns the distinct orientations of the shape under the 8
// symmetries, the shape's own (normalised) orientation first.
func (s Shape) Orientations() []Shape {
	seen := make(map[string]bool, 8)
	var out []Shape
	for _, t := range transforms {
		o := s.Transform(t)
		if k := o.key(); !seen[k] {
			seen[k] = true
			out = append(out, o)
		}
	}
	return out
}

// Canonical returns the orientation used to draw and identify the free
// piece: among the orientations at least as wide as they are high, the one
// whose picture (read row by row, 'X' before '.') comes first.
func (s Shape) Canonical() Shape {
	var best Shape
	bestKey := ""
	for _, o := range s.Orientations() {
		w, h := o.Bounds()
		if w < h {
			continue
		}
		if k := o.key(); best == nil || k > bestKey {
			best, bestKey = o, k
		}
	}
	return best
}

// Equal reports whether two normalised shapes are the same orientation.
func (s Shape) Equal(o Shape) bool {
	if len(s) != len(o) {
		return false
	}
	for i := range s {
		if s[i] != o[i] {
			return false
		}
	}
	return true
}

// Picture draws the shape as rows of 'X' and '.'.
func (s Shape) Picture() []string {
	w, h := s.Bounds()
	rows := make([][]byte, h)
	for y := range rows {
		rows[y] = []byte(strings.Repeat(".", w))
	}
	for _, c := range s {
		rows[c.Y][c.X] = 'X'
	}
	out := make([]string, h)
	for y, r := range rows {
		out[y] = string(r)
	}
	return out
}

// key is the picture joined by '/', with 'X' > '.', so that comparing keys
// compares pictures row by row.
func (s Shape) key() string { return strings.Join(s.Normalize().Picture(), "/") }

// MapInBox applies transform t of the box whose top-left cell is (x0, y0)
// and whose size is w x h to a cell of that box.
func MapInBox(t Transform, c Cell, x0, y0, w, h int) Cell {
	d := t.ApplyInRect(Cell{X: c.X - x0, Y: c.Y - y0}, w, h)
	return Cell{X: d.X + x0, Y: d.Y + y0}
}

// BoxSymmetries lists the symmetries of a figure whose bounding box is
// (x0, y0, w, h), wherever the box lies: the transforms of the box
// (RectSymmetries(w, h), the identity first) under which alike(c, image)
// holds for every cell c of the box.
func BoxSymmetries(x0, y0, w, h int, alike func(c, image Cell) bool) []Transform {
	var out []Transform
	for _, t := range RectSymmetries(w, h) {
		ok := true
		for y := y0; y < y0+h && ok; y++ {
			for x := x0; x < x0+w && ok; x++ {
				c := Cell{X: x, Y: y}
				ok = alike(c, MapInBox(t, c, x0, y0, w, h))
			}
		}
		if ok {
			out = append(out, t)
		}
	}
	return out
}
