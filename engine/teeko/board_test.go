package teeko

import (
	"errors"
	"slices"
	"testing"
)

func TestConfigurations(t *testing.T) {
	for _, tc := range []struct {
		rules Rules
		want  int
	}{{Standard, 44}, {Advanced, 58}} {
		got := tc.rules.Configurations()
		if len(got) != tc.want {
			t.Errorf("%s: %d configurations, want %d", tc.rules, len(got), tc.want)
		}
		// The reference model recognises configurations by shape.
		var want []Bitboard
		for _, s := range refConfigs(tc.rules == Advanced) {
			var m Bitboard
			for _, i := range s {
				m |= 1 << i
			}
			want = append(want, m)
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s: configurations differ from the reference model's", tc.rules)
		}
		for _, w := range got {
			if w.Count() != 4 {
				t.Errorf("%s: configuration %v has %d squares", tc.rules, w.Squares(), w.Count())
			}
			for s := 0; s < NumSymmetries; s++ {
				if !tc.rules.IsConfiguration(w.Transform(s)) {
					t.Errorf("%s: image of %v under symmetry %d is not a configuration", tc.rules, w.Squares(), s)
				}
			}
		}
	}
}

func TestAdjacency(t *testing.T) {
	for _, tc := range []struct {
		sq   int
		want []int
	}{
		{1, []int{2, 6, 7}},
		{3, []int{2, 4, 7, 8, 9}},
		{13, []int{7, 8, 9, 12, 14, 17, 18, 19}},
		{25, []int{19, 20, 24}},
		{11, []int{6, 7, 12, 16, 17}},
	} {
		if got := neighbours[tc.sq-1].Squares(); !slices.Equal(got, tc.want) {
			t.Errorf("neighbours of %d: %v, want %v", tc.sq, got, tc.want)
		}
	}
	for a := 1; a <= NumSquares; a++ {
		for b := 1; b <= NumSquares; b++ {
			if Adjacent(a, b) != Adjacent(b, a) {
				t.Errorf("adjacency of %d and %d is not symmetric", a, b)
			}
		}
	}
}

func TestSymmetries(t *testing.T) {
	// Each symmetry is a permutation preserving adjacency; the 8 images of
	// an asymmetric set are distinct.
	for s := 0; s < NumSymmetries; s++ {
		seen := Bitboard(0)
		for sq := 1; sq <= NumSquares; sq++ {
			seen |= SquareBit(TransformSquare(sq, s))
			for _, n := range neighbours[sq-1].Squares() {
				if !Adjacent(TransformSquare(sq, s), TransformSquare(n, s)) {
					t.Errorf("symmetry %d breaks the adjacency of %d and %d", s, sq, n)
				}
			}
		}
		if seen != allSquares {
			t.Errorf("symmetry %d is not a permutation", s)
		}
	}
	set := SquareBit(1) | SquareBit(2) | SquareBit(8)
	images := map[Bitboard]bool{}
	for s := 0; s < NumSymmetries; s++ {
		img := set.Transform(s)
		var bySquare Bitboard
		for _, sq := range set.Squares() {
			bySquare |= SquareBit(TransformSquare(sq, s))
		}
		if img != bySquare {
			t.Errorf("symmetry %d: row tables give %v, square map %v", s, img.Squares(), bySquare.Squares())
		}
		images[img] = true
	}
	if len(images) != NumSymmetries {
		t.Errorf("%d distinct images of an asymmetric set, want 8", len(images))
	}
}

func TestBoardString(t *testing.T) {
	for _, tc := range []struct {
		in, want, err string
	}{
		{in: ".........................", want: "........................."},
		{in: "B...R...........r......rb", want: "b...r...........r......rb"},
		{in: "...........br.rb.r.b..b..", want: "...........br.rb.r.b..b.."},
		{in: "........................", err: "board has 24 characters, expected 25"},
		{in: "..........................", err: "board has 26 characters, expected 25"},
		{in: "......x..................", err: "character 'x' at square 7: expected b, r or ."},
		{in: "........................é", err: "character 'é' at square 25: expected b, r or ."},
		{in: "", err: "board has 0 characters, expected 25"},
	} {
		b, err := ParseBoard(tc.in)
		if tc.err != "" {
			if err == nil || err.Error() != tc.err || !errorsIs(err, ErrBadBoard) {
				t.Errorf("ParseBoard(%q): error %v, want %q (ErrBadBoard)", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseBoard(%q): %v", tc.in, err)
			continue
		}
		if got := b.String(); got != tc.want {
			t.Errorf("ParseBoard(%q).String() = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestBoardFromSquares(t *testing.T) {
	// side: the SideError's, NoColor for none (a fault of both lists).
	for _, tc := range []struct {
		black, red []int
		want, err  string
		side       Color
	}{
		{black: []int{13, 1}, red: []int{25}, want: "b...........b...........r"},
		{black: nil, red: nil, want: "........................."},
		{black: []int{26}, err: "black square 26 is off the board (1..25)", side: Black},
		{red: []int{0}, err: "red square 0 is off the board (1..25)", side: Red},
		{black: []int{3, 3}, err: "square 3 is listed twice for black", side: Black},
		{red: []int{4, 4}, err: "square 4 is listed twice for red", side: Red},
		{black: []int{7}, red: []int{7}, err: "square 7 is listed for both black and red", side: NoColor},
	} {
		b, err := BoardFromSquares(tc.black, tc.red)
		if tc.err != "" {
			if err == nil || err.Error() != tc.err || !errorsIs(err, ErrBadBoard) {
				t.Errorf("BoardFromSquares(%v, %v): error %v, want %q", tc.black, tc.red, err, tc.err)
			}
			side := NoColor
			if se := (*SideError)(nil); errors.As(err, &se) {
				side = se.Side
			}
			if side != tc.side {
				t.Errorf("BoardFromSquares(%v, %v): the fault of side %v, want %v", tc.black, tc.red, side, tc.side)
			}
			continue
		}
		if err != nil || b.String() != tc.want {
			t.Errorf("BoardFromSquares(%v, %v) = %q, %v; want %q", tc.black, tc.red, b, err, tc.want)
		}
		if !slices.Equal(b.Black.Squares(), sortedCopy(tc.black)) {
			t.Errorf("black squares %v, want %v", b.Black.Squares(), tc.black)
		}
	}
}

func sortedCopy(s []int) []int {
	c := append([]int{}, s...)
	slices.Sort(c)
	return c
}
