package polyomino

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"unicode"
)

// Cell is one unit square: X is the column (0 = left), Y the row (0 = top).
type Cell struct{ X, Y int }

// Shape is a set of cells normalised so that the smallest X and the smallest
// Y are both 0, sorted in reading order (by Y, then X). Two shapes are the
// same orientation exactly when their cell lists are equal.
type Shape []Cell

// Piece is one free polyomino of a set: every rotation and reflection of it
// is the same piece.
type Piece struct {
	// Name is the conventional name: a letter for tetrominoes and
	// pentominoes, H01..H35 for hexominoes.
	Name string
	// Index is the piece's position in its Set (0-based).
	Index int
	// Shape is the piece's canonical orientation (the one drawn in pictures).
	Shape Shape
	// Orientations are the distinct orientations (1, 2, 4 or 8), the
	// canonical one first.
	Orientations []Shape
}

// Size is the number of cells of the piece.
func (p *Piece) Size() int { return len(p.Shape) }

// Picture draws the canonical orientation as rows of 'X' and '.'.
func (p *Piece) Picture() []string { return p.Shape.Picture() }

// Set is the complete set of free polyominoes of one order, each once.
type Set struct {
	Order  int
	Pieces []*Piece
	byName map[string]*Piece
}

// Piece returns the piece with the given name (case-insensitive).
func (s *Set) Piece(name string) (*Piece, bool) {
	p, ok := s.byName[strings.ToUpper(name)]
	return p, ok
}

// Names lists the piece names in set order.
func (s *Set) Names() []string {
	names := make([]string, len(s.Pieces))
	for i, p := range s.Pieces {
		names[i] = p.Name
	}
	return names
}

// setNames name the whole set of each order.
var setNames = map[int]string{4: "tetrominoes", 5: "pentominoes", 6: "hexominoes"}

// SetOrder is the order of the whole set name stands for: "tetrominoes",
// "pentominoes" or "hexominoes", in any case, spaces around ignored.
func SetOrder(name string) (int, bool) {
	name = strings.ToLower(strings.TrimSpace(name)) // ASCII: no Unicode folding ("pentominoeſ")
	for n, s := range setNames {
		if name == s {
			return n, true
		}
	}
	return 0, false
}

// EmptyPieceName says where the piece list spec (names separated by
// commas or spaces, or run together; tilings take semicolons as commas)
// has an empty name between commas ("I,,L", "I,L,"); "" when it has
// none.
func EmptyPieceName(spec string) string {
	if strings.ContainsAny(spec, ",;") {
		for _, part := range strings.Split(strings.ReplaceAll(spec, ";", ","), ",") {
			if strings.TrimSpace(part) == "" {
				return fmt.Sprintf("an empty piece name (an element \"\", or two commas in a row, or one at an end) in %q", spec)
			}
		}
	}
	return ""
}

// MisspeltSetName says which word of the piece list spec is a set's name
// misspelt ("hexomino", "pentominos", "tetro"), which read letter by
// letter would name pieces that do not exist; "" when none is.
func MisspeltSetName(spec string) string {
	for _, w := range strings.FieldsFunc(spec, func(r rune) bool { return r == ',' || r == ';' || unicode.IsSpace(r) }) {
		lw := strings.ToLower(w)
		if _, ok := SetOrder(lw); ok || len(lw) < 4 {
			continue
		}
		for _, order := range orders {
			name := setNames[order]
			// Every set's name begins with a letter and E, which names
			// no piece: such a word is no list of names.
			if strings.HasPrefix(name, lw) || strings.HasPrefix(lw, strings.TrimSuffix(name, "es")) {
				return fmt.Sprintf("%q is not a set's name: did you mean %q?", w, name)
			}
		}
	}
	return ""
}

// SetName names the whole set of the given order ("" for an order the
// engine does not know).
func SetName(order int) string { return setNames[order] }

// Orders are the polyomino orders the engine knows.
var orders = [...]int{4, 5, 6}

// letterPictures are the conventional names of tetrominoes (I O T S L) and
// pentominoes (Golomb's F I L N P T U V W X Y Z). They only name the shapes
// that Generate finds; the sets themselves are enumerated, not typed in.
var letterPictures = map[int][][2]string{
	4: {
		{"I", "XXXX"},
		{"O", "XX/XX"},
		{"T", "XXX/.X."},
		{"S", ".XX/XX."},
		{"L", "X./X./XX"},
	},
	5: {
		{"F", ".XX/XX./.X."},
		{"I", "XXXXX"},
		{"L", "X./X./X./XX"},
		{"N", "XX../.XXX"},
		{"P", "XX/XX/X."},
		{"T", "XXX/.X./.X."},
		{"U", "X.X/XXX"},
		{"V", "X../X../XXX"},
		{"W", "X../XX./.XX"},
		{"X", ".X./XXX/.X."},
		{"Y", "XXXX/.X.."},
		{"Z", "XX./.X./.XX"},
	},
}

var (
	setsOnce sync.Once
	sets     map[int]*Set
	setsErr  error
)

// Pieces returns the set of free polyominoes of the given order (4, 5 or 6).
// The returned set is shared and must not be modified.
func Pieces(order int) (*Set, error) {
	setsOnce.Do(func() {
		sets = make(map[int]*Set, len(orders))
		for _, n := range orders {
			s, err := buildSet(n)
			if err != nil {
				setsErr = err
				return
			}
			sets[n] = s
		}
	})
	if setsErr != nil {
		return nil, setsErr
	}
	s, ok := sets[order]
	if !ok {
		return nil, fmt.Errorf("%w: order %d (expected 4, 5 or 6)", ErrUnknownPieceSet, order)
	}
	return s, nil
}

// Generate enumerates the free polyominoes of order n by growing every
// polyomino of order n-1 by one cell and keeping one representative per
// class under rotation and reflection. The shapes come back in canonical
// orientation, in no particular order.
func Generate(n int) []Shape {
	if n < 1 {
		return nil
	}
	level := map[string]Shape{Shape{{0, 0}}.key(): {{0, 0}}}
	for k := 2; k <= n; k++ {
		next := make(map[string]Shape)
		for _, s := range level {
			in := make(map[Cell]bool, len(s))
			for _, c := range s {
				in[c] = true
			}
			for _, c := range s {
				for _, d := range [...]Cell{{1, 0}, {-1, 0}, {0, 1}, {0, -1}} {
					nc := Cell{c.X + d.X, c.Y + d.Y}
					if in[nc] {
						continue
					}
					grown := append(append(Shape{}, s...), nc)
					canon := grown.Canonical()
					next[canon.key()] = canon
				}
			}
		}
		level = next
	}
	out := make([]Shape, 0, len(level))
	for _, s := range level {
		out = append(out, s)
	}
	return out
}

func buildSet(order int) (*Set, error) {
	shapes := Generate(order)
	set := &Set{Order: order, byName: make(map[string]*Piece, len(shapes))}
	names := make(map[string]string, len(shapes)) // canonical key -> name
	rank := make(map[string]int, len(shapes))     // name -> position in the set
	if pics, ok := letterPictures[order]; ok {
		for _, np := range pics {
			s, err := ParsePicture(np[1])
			if err != nil {
				return nil, fmt.Errorf("picture of %s: %w", np[0], err)
			}
			names[s.Canonical().key()] = np[0]
			rank[np[0]] = len(rank)
		}
	} else {
		// Hexominoes (and any order without letter names) are numbered
		// H01, H02, ... in a fixed order: by the width of the canonical
		// orientation, widest first, then by its picture read row by row
		// with 'X' before '.'.
		sort.Slice(shapes, func(i, j int) bool {
			wi, _ := shapes[i].Bounds()
			wj, _ := shapes[j].Bounds()
			if wi != wj {
				return wi > wj
			}
			return shapes[i].key() > shapes[j].key()
		})
		for i, s := range shapes {
			names[s.key()] = fmt.Sprintf("H%02d", i+1)
			rank[names[s.key()]] = i
		}
	}
	for _, s := range shapes {
		name, ok := names[s.key()]
		if !ok {
			return nil, fmt.Errorf("order %d: generated shape %q has no name", order, s.key())
		}
		set.Pieces = append(set.Pieces, &Piece{Name: name, Shape: s, Orientations: s.Orientations()})
	}
	if len(set.Pieces) != len(names) {
		return nil, fmt.Errorf("order %d: %d shapes generated but %d named", order, len(set.Pieces), len(names))
	}
	sort.Slice(set.Pieces, func(i, j int) bool { return rank[set.Pieces[i].Name] < rank[set.Pieces[j].Name] })
	for i, p := range set.Pieces {
		p.Index = i
		set.byName[p.Name] = p
	}
	return set, nil
}

// ParsePicture reads a shape drawn as rows separated by '/', 'X' (or '#')
// for a cell and '.' for a gap, e.g. "XX./.XX".
func ParsePicture(pic string) (Shape, error) {
	var s Shape
	for y, row := range strings.Split(pic, "/") {
		for x, ch := range row {
			switch ch {
			case 'X', 'x', '#':
				s = append(s, Cell{x, y})
			case '.':
			default:
				return nil, fmt.Errorf("%w: character %q in picture %q (expected X or .)", ErrBadShape, ch, pic)
			}
		}
	}
	if len(s) == 0 {
		return nil, fmt.Errorf("%w: empty picture", ErrBadShape)
	}
	return s.Normalize(), nil
}
