package polyomino

import (
	"errors"
	"strings"
	"testing"
)

func TestPieceCounts(t *testing.T) {
	tests := []struct {
		order, pieces, orientations int
		names                       string
	}{
		{4, 5, 19, "I O T S L"},
		{5, 12, 63, "F I L N P T U V W X Y Z"},
		{6, 35, 216, ""},
	}
	for _, tt := range tests {
		set, err := Pieces(tt.order)
		if err != nil {
			t.Fatalf("order %d: %v", tt.order, err)
		}
		if len(set.Pieces) != tt.pieces {
			t.Errorf("order %d: %d pieces, want %d", tt.order, len(set.Pieces), tt.pieces)
		}
		total := 0
		for _, p := range set.Pieces {
			total += len(p.Orientations)
			if p.Size() != tt.order {
				t.Errorf("piece %s has %d cells", p.Name, p.Size())
			}
			if !p.Orientations[0].Equal(p.Shape) {
				t.Errorf("piece %s: first orientation is not the canonical shape", p.Name)
			}
		}
		if total != tt.orientations {
			t.Errorf("order %d: %d orientations, want %d", tt.order, total, tt.orientations)
		}
		if tt.names != "" && strings.Join(set.Names(), " ") != tt.names {
			t.Errorf("order %d names %v, want %s", tt.order, set.Names(), tt.names)
		}
	}
}

func TestHexominoNames(t *testing.T) {
	set, err := Pieces(6)
	if err != nil {
		t.Fatal(err)
	}
	if got := set.Pieces[0].Picture(); len(got) != 1 || got[0] != "XXXXXX" {
		t.Errorf("H01 = %v, want the straight hexomino", got)
	}
	for i, p := range set.Pieces {
		if want := "H" + string(rune('0'+(i+1)/10)) + string(rune('0'+(i+1)%10)); p.Name != want {
			t.Errorf("piece %d named %s, want %s", i, p.Name, want)
		}
		if q, ok := set.Piece(strings.ToLower(p.Name)); !ok || q != p {
			t.Errorf("lookup of %s failed", p.Name)
		}
	}
}

func TestOrientationsPerPentomino(t *testing.T) {
	want := map[string]int{"F": 8, "I": 2, "L": 8, "N": 8, "P": 8, "T": 4, "U": 4, "V": 4, "W": 4, "X": 1, "Y": 8, "Z": 4}
	set, _ := Pieces(5)
	for _, p := range set.Pieces {
		if len(p.Orientations) != want[p.Name] {
			t.Errorf("%s: %d orientations, want %d", p.Name, len(p.Orientations), want[p.Name])
		}
	}
}

func TestUnknownOrder(t *testing.T) {
	if _, err := Pieces(7); !errors.Is(err, ErrUnknownPieceSet) {
		t.Errorf("Pieces(7) error = %v, want ErrUnknownPieceSet", err)
	}
}

func TestRectSymmetries(t *testing.T) {
	for _, tt := range []struct{ w, h, n int }{{8, 8, 8}, {10, 6, 4}, {1, 1, 8}} {
		syms := RectSymmetries(tt.w, tt.h)
		if len(syms) != tt.n {
			t.Errorf("%dx%d: %d symmetries, want %d", tt.w, tt.h, len(syms), tt.n)
		}
		for _, s := range syms {
			seen := map[Cell]bool{}
			for y := 0; y < tt.h; y++ {
				for x := 0; x < tt.w; x++ {
					c := s.ApplyInRect(Cell{x, y}, tt.w, tt.h)
					if c.X < 0 || c.X >= tt.w || c.Y < 0 || c.Y >= tt.h || seen[c] {
						t.Fatalf("%dx%d transform %d maps %v to %v", tt.w, tt.h, s, Cell{x, y}, c)
					}
					seen[c] = true
				}
			}
		}
	}
}

func TestParsePictureErrors(t *testing.T) {
	for _, pic := range []string{"", "X?X", "..."} {
		if _, err := ParsePicture(pic); !errors.Is(err, ErrBadShape) {
			t.Errorf("ParsePicture(%q) error = %v", pic, err)
		}
	}
}

func TestSetNames(t *testing.T) {
	for _, tc := range []struct {
		name  string
		order int
		ok    bool
	}{{"tetrominoes", 4, true}, {" Pentominoes ", 5, true}, {"HEXOMINOES", 6, true}, {"triominoes", 0, false}, {"FILNP", 0, false}} {
		if n, ok := SetOrder(tc.name); n != tc.order || ok != tc.ok {
			t.Errorf("SetOrder(%q) = %d, %v", tc.name, n, ok)
		}
		if tc.ok && SetName(tc.order) != strings.ToLower(strings.TrimSpace(tc.name)) {
			t.Errorf("SetName(%d) = %q", tc.order, SetName(tc.order))
		}
	}
	if SetName(7) != "" {
		t.Error("a name for order 7")
	}
}

// TestPieceListFaults: an empty name between separators and a set's name
// misspelt are said as such (read letter by letter they named pieces of
// two orders, or none); a list of names is not a fault.
func TestPieceListFaults(t *testing.T) {
	for spec, want := range map[string]string{
		"I,,L":        "an empty piece name",
		"I,L,":        "an empty piece name",
		",I":          "an empty piece name",
		"I; ;L":       "an empty piece name",
		"hexomino":    `did you mean "hexominoes"`,
		"Pentominos":  `did you mean "pentominoes"`,
		"tetromino":   `did you mean "tetrominoes"`,
		"F,pento":     `did you mean "pentominoes"`,
		"FILNP":       "",
		"F, I ,L":     "",
		"h1h2 H3":     "",
		"pentominoes": "",
		"TILE":        "", // names (E among them: the parser names it)
		"hex":         "", // too short to say
	} {
		got := EmptyPieceName(spec) + MisspeltSetName(spec)
		if want == "" && got != "" || want != "" && !strings.Contains(got, want) {
			t.Errorf("%q: %q, want %q", spec, got, want)
		}
	}
}
