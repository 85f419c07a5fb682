package verify

import (
	"errors"
	"fmt"
	"math/bits"
	"sort"
	"strings"

	"github.com/gamesolver/gamesolver/engine/polyomino"
)

// The board is 8 x 8, one bit per cell: bit 8*y + x is column x (0 = a,
// left) of row y (0 = row 1, top).
//
//	bit:  0  1  2  3  4  5  6  7     a1 b1 c1 d1 e1 f1 g1 h1
//	      8  9 10 11 12 13 14 15     a2 b2 ...
//	      ...
//	     56 57 58 59 60 61 62 63     a8 b8 ...          h8
const side = 8

// ErrCertificate is wrapped by every error about the content of a proof: a
// certificate, a refutation or a reply file.
var ErrCertificate = errors.New("proof rejected")

// Game holds every placement of the 12 pentominoes on the empty 8 x 8
// board, made here from the pieces' shapes (their canonical cells only):
// the orientations and placements are the checker's own.
type Game struct {
	names  []string
	byName map[string]int
	// byPiece[p] are the placement masks of piece p.
	byPiece [][]uint64
	// piece[mask] is the piece a placement mask belongs to.
	piece map[uint64]int
}

// NewGame builds the placements from the shapes of polyomino.Pieces(5).
func NewGame() (*Game, error) {
	set, err := polyomino.Pieces(5)
	if err != nil {
		return nil, err
	}
	g := &Game{byName: map[string]int{}, piece: map[uint64]int{}}
	for i, p := range set.Pieces {
		g.names = append(g.names, p.Name)
		g.byName[p.Name] = i
		var cells [][2]int
		for _, c := range p.Shape {
			cells = append(cells, [2]int{c.X, c.Y})
		}
		var masks []uint64
		for _, o := range orientations(cells) {
			w, h := 0, 0
			for _, c := range o {
				w, h = max(w, c[0]+1), max(h, c[1]+1)
			}
			for dy := 0; dy+h <= side; dy++ {
				for dx := 0; dx+w <= side; dx++ {
					var m uint64
					for _, c := range o {
						m |= 1 << uint((c[1]+dy)*side+c[0]+dx)
					}
					masks = append(masks, m)
					g.piece[m] = i
				}
			}
		}
		g.byPiece = append(g.byPiece, masks)
	}
	return g, nil
}

// orientations lists the distinct images of a cell set under the 8
// symmetries of the square, each moved to touch the top and left edges.
func orientations(cells [][2]int) [][][2]int {
	seen := map[string]bool{}
	var out [][][2]int
	for t := range 8 {
		img := make([][2]int, len(cells))
		minX, minY := 1<<20, 1<<20
		for i, c := range cells {
			x, y := c[0], c[1]
			if t&4 != 0 {
				x, y = y, x
			}
			if t&1 != 0 {
				x = -x
			}
			if t&2 != 0 {
				y = -y
			}
			img[i] = [2]int{x, y}
			minX, minY = min(minX, x), min(minY, y)
		}
		for i := range img {
			img[i][0] -= minX
			img[i][1] -= minY
		}
		sort.Slice(img, func(i, j int) bool {
			return img[i][1] < img[j][1] || img[i][1] == img[j][1] && img[i][0] < img[j][0]
		})
		key := fmt.Sprint(img)
		if !seen[key] {
			seen[key] = true
			out = append(out, img)
		}
	}
	return out
}

// Placements is the number of placements on the empty board (2308).
func (g *Game) Placements() int {
	n := 0
	for _, m := range g.byPiece {
		n += len(m)
	}
	return n
}

// State is a position: the covered cells and the pieces placed.
type State struct {
	Occ  uint64
	Used uint16
}

// Move is one placement: a piece and its cells.
type Move struct {
	Piece int
	Mask  uint64
}

// ParseMove reads "<piece>:<cell>,<cell>,...", cells like "c5" (column
// letter, row number from the top), in any order.
func (g *Game) ParseMove(s string) (Move, error) {
	name, list, ok := strings.Cut(strings.TrimSpace(s), ":")
	if !ok {
		return Move{}, fmt.Errorf("move %q: expected <piece>:<cells>", s)
	}
	p, ok := g.byName[strings.ToUpper(name)]
	if !ok {
		return Move{}, fmt.Errorf("move %q: no pentomino %q", s, name)
	}
	var m uint64
	n := 0
	for _, c := range strings.Split(list, ",") {
		c = strings.ToLower(strings.TrimSpace(c))
		if len(c) != 2 || c[0] < 'a' || c[0] > 'h' || c[1] < '1' || c[1] > '8' {
			return Move{}, fmt.Errorf("move %q: cell %q is not on the 8x8 board", s, c)
		}
		m |= 1 << uint(int(c[1]-'1')*side+int(c[0]-'a'))
		n++
	}
	if n != 5 || bits.OnesCount64(m) != 5 {
		return Move{}, fmt.Errorf("move %q: expected 5 distinct cells", s)
	}
	if q, ok := g.piece[m]; !ok || q != p {
		return Move{}, fmt.Errorf("move %q: the cells do not form piece %s", s, g.names[p])
	}
	return Move{Piece: p, Mask: m}, nil
}

// String writes a move in notation, cells in reading order.
func (g *Game) String(m Move) string {
	var sb strings.Builder
	sb.WriteString(g.names[m.Piece] + ":")
	for b, first := m.Mask, true; b != 0; b &= b - 1 {
		i := bits.TrailingZeros64(b)
		if !first {
			sb.WriteByte(',')
		}
		first = false
		sb.WriteByte(byte('a' + i%side))
		sb.WriteByte(byte('1' + i/side))
	}
	return sb.String()
}

// Legal reports whether m may be played in s.
func (s State) Legal(m Move) bool {
	return s.Used&(1<<uint(m.Piece)) == 0 && s.Occ&m.Mask == 0
}

// Play returns the state after m (which must be legal).
func (s State) Play(m Move) State {
	return State{Occ: s.Occ | m.Mask, Used: s.Used | 1<<uint(m.Piece)}
}

// Moves lists the legal moves of s.
func (g *Game) Moves(s State) []Move {
	var out []Move
	for p, masks := range g.byPiece {
		if s.Used&(1<<uint(p)) != 0 {
			continue
		}
		for _, m := range masks {
			if m&s.Occ == 0 {
				out = append(out, Move{p, m})
			}
		}
	}
	return out
}

// transform maps the board by symmetry t of the square (t&4 swaps the
// axes, then t&1 mirrors the columns and t&2 the rows).
func transform(b uint64, t int) uint64 {
	var out uint64
	for ; b != 0; b &= b - 1 {
		i := bits.TrailingZeros64(b)
		x, y := i%side, i/side
		if t&4 != 0 {
			x, y = y, x
		}
		if t&1 != 0 {
			x = side - 1 - x
		}
		if t&2 != 0 {
			y = side - 1 - y
		}
		out |= 1 << uint(y*side+x)
	}
	return out
}

// symmetry maps the board's cells: symmetry t of the square, then a shift
// by (dx, dy).
type symmetry struct{ t, dx, dy int }

func (y symmetry) apply(b uint64) uint64 {
	var out uint64
	for b = transform(b, y.t); b != 0; b &= b - 1 {
		i := bits.TrailingZeros64(b)
		x, r := i%side+y.dx, i/side+y.dy
		if x >= 0 && x < side && r >= 0 && r < side {
			out |= 1 << uint(r*side+x)
		}
	}
	return out
}

// corner is the top-left corner of the bounding box of b (not empty).
func corner(b uint64) (x0, y0 int) {
	x0, y0 = side, side
	for ; b != 0; b &= b - 1 {
		i := bits.TrailingZeros64(b)
		x0, y0 = min(x0, i%side), min(y0, i/side)
	}
	return x0, y0
}

// stabilizer lists the symmetries of the state whose occupied cells are
// occ: the maps carrying its empty cells onto themselves, wherever they
// lie on the board (a symmetry t of the square and the shift that brings
// the image's bounding box back onto theirs). The play depends on the
// empty cells alone, so moves related by one lead to congruent states.
func stabilizer(occ uint64) []symmetry {
	empty := ^occ
	if empty == 0 {
		return []symmetry{{}}
	}
	x0, y0 := corner(empty)
	var out []symmetry
	for t := range 8 {
		ix, iy := corner(transform(empty, t))
		if y := (symmetry{t, x0 - ix, y0 - iy}); y.apply(empty) == empty {
			out = append(out, y)
		}
	}
	return out
}

// classOf names the class of move m of state s under the symmetries that
// map s onto itself: the smallest image mask (moves of one class lead to
// congruent states).
func classOf(s State, m Move) uint64 {
	best := m.Mask
	for _, y := range stabilizer(s.Occ) {
		best = min(best, y.apply(m.Mask))
	}
	return best
}
