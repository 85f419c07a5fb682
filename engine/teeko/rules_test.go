package teeko

import (
	"errors"
	"testing"
)

func errorsIs(err, target error) bool { return errors.Is(err, target) }

func TestParseRules(t *testing.T) {
	for _, r := range AllRules() {
		got, err := ParseRules(r.String())
		if err != nil || got != r {
			t.Errorf("ParseRules(%q) = %v, %v", r.String(), got, err)
		}
	}
	if r, err := ParseRules("Advanced"); err != nil || r != Advanced {
		t.Errorf("ParseRules(Advanced) = %v, %v", r, err)
	}
	_, err := ParseRules("simple")
	if !errors.Is(err, ErrBadRules) || err.Error() != `unknown rules "simple": expected standard or advanced` {
		t.Errorf("ParseRules(simple): %v", err)
	}
}

func TestDropStyles(t *testing.T) {
	// Who places each colour's pieces 1..4, as in the table of RULES.md:
	// o the owner, x the opponent.
	table := []struct {
		name    string
		pattern string
	}{
		{"standard", "oooo"},
		{"alternate", "xxxx"},
		{"one-move-alternate", "xooo"},
		{"two-move-alternate", "xxoo"},
		{"three-move-alternate", "xxxo"},
		{"one-move-standard", "oxxx"},
		{"two-move-standard", "ooxx"},
		{"three-move-standard", "ooox"},
	}
	if len(AllDropStyles()) != len(table) {
		t.Fatalf("%d drop styles, want %d", len(AllDropStyles()), len(table))
	}
	for i, tc := range table {
		s, err := ParseDropStyle(tc.name)
		if err != nil || s != AllDropStyles()[i] || s.String() != tc.name {
			t.Errorf("ParseDropStyle(%q) = %v, %v", tc.name, s, err)
		}
		for k := 0; k < DropPlies; k++ {
			owner := Black
			if k%2 == 1 {
				owner = Red
			}
			if DropColor(k) != owner {
				t.Errorf("DropColor(%d) = %v, want %v", k, DropColor(k), owner)
			}
			want := owner
			if tc.pattern[k/2] == 'x' {
				want = owner.Other()
			}
			if got := s.Decides(k); got != want {
				t.Errorf("%s: ply index %d (%s piece %d) decided by %v, want %v", tc.name, k, owner, k/2+1, got, want)
			}
		}
	}
	if s, err := ParseDropStyle(""); err != nil || s != StandardDrops {
		t.Errorf("ParseDropStyle(\"\") = %v, %v; want the default, standard", s, err)
	}
	if _, err := ParseDropStyle("four-move-alternate"); !errors.Is(err, ErrBadDropStyle) {
		t.Errorf("ParseDropStyle(four-move-alternate): %v", err)
	}
}

func TestParseColor(t *testing.T) {
	for in, want := range map[string]Color{"black": Black, "RED": Red, "b": Black, "r": Red, "": NoColor} {
		if got, err := ParseColor(in); err != nil || got != want {
			t.Errorf("ParseColor(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	if _, err := ParseColor("green"); !errors.Is(err, ErrBadColor) {
		t.Errorf("ParseColor(green): %v", err)
	}
}
