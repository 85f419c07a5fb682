package teeko

import (
	"errors"
	"strings"
	"testing"
)

func TestParseMove(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Move
		err  string
	}{
		{in: "13", want: Drop(13)},
		{in: " 1 ", want: Drop(1)},
		{in: "14-9", want: Slide(14, 9)},
		{in: "14 - 9", want: Slide(14, 9)},
		{in: "07", want: Drop(7)},
		{in: "", err: "empty move: expected a square such as 13 or a slide such as 14-9"},
		{in: "26", err: `"26": square 26 is off the board (1..25)`},
		{in: "0", err: `"0": square 0 is off the board (1..25)`},
		{in: "14-26", err: `"14-26": square 26 is off the board (1..25)`},
		{in: "a1", err: `"a1" is not a move: expected a square such as 13 or a slide such as 14-9`},
		{in: "14-", err: `"14-" is not a move: expected a square such as 13 or a slide such as 14-9`},
		{in: "-9", err: `"-9" is not a move: expected a square such as 13 or a slide such as 14-9`},
		{in: "1-2-3", err: `"1-2-3" is not a move: expected a square such as 13 or a slide such as 14-9`},
		{in: "9-9", err: `"9-9" slides to the square it starts from`},
		{in: "99999999999999999999", err: `"99999999999999999999": square 99999999999999999999 is off the board (1..25)`},
	} {
		m, err := ParseMove(tc.in)
		if tc.err != "" {
			if !errors.Is(err, ErrBadNotation) || err.Error() != tc.err {
				t.Errorf("ParseMove(%q): %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || m != tc.want {
			t.Errorf("ParseMove(%q) = %v, %v; want %v", tc.in, m, err, tc.want)
		}
		if back, err := ParseMove(m.String()); err != nil || back != m {
			t.Errorf("round trip of %v: %v, %v", m, back, err)
		}
	}
}

func TestParseSquare(t *testing.T) {
	for _, tc := range []struct {
		in  string
		err string
	}{
		{"26", "square 26 is off the board (1..25)"},
		{"x", `square "x" is not a number (1..25)`},
		{"", `square "" is not a number (1..25)`},
	} {
		if _, err := ParseSquare(tc.in); !errors.Is(err, ErrBadNotation) || err.Error() != tc.err {
			t.Errorf("ParseSquare(%q): %v, want %q", tc.in, err, tc.err)
		}
	}
	for sq := 1; sq <= NumSquares; sq++ {
		if got, err := ParseSquare(Drop(sq).String()); err != nil || got != sq {
			t.Errorf("round trip of square %d: %d, %v", sq, got, err)
		}
	}
}

// Every legal move of many positions prints and parses back to itself, and
// every board string round-trips.
func TestNotationRoundTrips(t *testing.T) {
	for _, r := range AllRules() {
		p := Start(r)
		var moves []string
		for ply := 0; ply < 40; ply++ {
			legal := p.LegalMoves()
			if len(legal) == 0 {
				break
			}
			for _, m := range legal {
				back, err := ParseMove(m.String())
				if err != nil || back != m {
					t.Fatalf("%v: %v prints as %q and parses as %v, %v", p, m, m, back, err)
				}
			}
			b, err := ParseBoard(p.Board().String())
			if err != nil || b != p.Board() {
				t.Fatalf("board %q parses as %q, %v", p.Board(), b, err)
			}
			m := legal[(ply*7)%len(legal)]
			moves = append(moves, m.String())
			if p, err = p.Play(m); err != nil {
				t.Fatal(err)
			}
			q, err := ParseGame(r, moves)
			if err != nil || q != p {
				t.Fatalf("ParseGame(%v) = %v, %v; want %v", moves, q, err, p)
			}
		}
	}
}

func FuzzParseBoard(f *testing.F) {
	for _, s := range []string{".........................", "B...R...........r......rb", "bbbb", "......x..................", "........................é"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b, err := ParseBoard(s)
		if err != nil {
			if !errors.Is(err, ErrBadBoard) {
				t.Fatalf("ParseBoard(%q): error %v is not ErrBadBoard", s, err)
			}
			return
		}
		if !strings.EqualFold(b.String(), s) {
			t.Fatalf("ParseBoard(%q).String() = %q", s, b)
		}
		if b.Black&b.Red != 0 || b.Occupied()&^allSquares != 0 {
			t.Fatalf("ParseBoard(%q) gave overlapping or stray bits", s)
		}
		for _, r := range AllRules() {
			for _, c := range []Color{NoColor, Black, Red} {
				p, err := NewPosition(r, b, c)
				if err != nil {
					if !errors.Is(err, ErrImpossiblePosition) && !errors.Is(err, ErrToMoveRequired) {
						t.Fatalf("NewPosition(%q, %v): unexpected error kind %v", s, c, err)
					}
					continue
				}
				for _, m := range p.LegalMoves() {
					if _, err := p.Play(m); err != nil {
						t.Fatalf("%v: legal move %v refused: %v", p, m, err)
					}
				}
			}
		}
	})
}

func FuzzParseMove(f *testing.F) {
	for _, s := range []string{"13", "14-9", " 1 ", "26", "9-9", "-", "a-b", "1-2-3", "007"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := ParseMove(s)
		if err != nil {
			if !errors.Is(err, ErrBadNotation) {
				t.Fatalf("ParseMove(%q): error %v is not ErrBadNotation", s, err)
			}
			return
		}
		if m.To < 1 || m.To > NumSquares || m.From < 0 || m.From > NumSquares || m.From == m.To {
			t.Fatalf("ParseMove(%q) = %+v, off the board", s, m)
		}
		back, err := ParseMove(m.String())
		if err != nil || back != m {
			t.Fatalf("ParseMove(%q) = %v, which parses back as %v, %v", s, m, back, err)
		}
	})
}

func FuzzParseSquares(f *testing.F) {
	f.Add([]byte{1, 2, 3}, []byte{4, 5})
	f.Add([]byte{26}, []byte{})
	f.Add([]byte{7}, []byte{7})
	f.Fuzz(func(t *testing.T, black, red []byte) {
		toInts := func(b []byte) []int {
			out := make([]int, len(b))
			for i, x := range b {
				out[i] = int(int8(x))
			}
			return out
		}
		b, err := BoardFromSquares(toInts(black), toInts(red))
		if err != nil {
			if !errors.Is(err, ErrBadBoard) {
				t.Fatalf("error %v is not ErrBadBoard", err)
			}
			return
		}
		if b.Black.Count() != len(black) || b.Red.Count() != len(red) || b.Black&b.Red != 0 {
			t.Fatalf("BoardFromSquares(%v, %v) = %v", black, red, b)
		}
	})
}

func FuzzParseGame(f *testing.F) {
	f.Add("13 7 12 8 18 19 1 25 1-2")
	f.Add("13 7 12 8 14 9 11 6")
	f.Add("13 13")
	f.Add("1 2 3 4 5 6 7 8 1-6 2-7")
	f.Fuzz(func(t *testing.T, s string) {
		moves := strings.Fields(s)
		for _, r := range AllRules() {
			p, err := ParseGame(r, moves)
			if err != nil {
				if !errors.Is(err, ErrBadNotation) && !errors.Is(err, ErrIllegalMove) {
					t.Fatalf("ParseGame(%q): unexpected error kind %v", s, err)
				}
				if !strings.HasPrefix(err.Error(), "move ") {
					t.Fatalf("ParseGame(%q): error %q does not name the move", s, err)
				}
				continue
			}
			// A position reached by play is valid.
			toMove := NoColor
			if p.Phase() == MovePhase {
				toMove = p.ToMove()
			}
			q, err := NewPosition(r, p.Board(), toMove)
			if err != nil || q != p {
				t.Fatalf("ParseGame(%q) reached %v, which NewPosition gives as %v, %v", s, p, q, err)
			}
		}
	})
}

func FuzzParseNames(f *testing.F) {
	for _, s := range []string{"standard", "advanced", "one-move-alternate", "Black", "red", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if r, err := ParseRules(s); err == nil {
			if back, _ := ParseRules(r.String()); back != r {
				t.Fatalf("rules %q do not round-trip", s)
			}
		} else if !errors.Is(err, ErrBadRules) {
			t.Fatal(err)
		}
		if d, err := ParseDropStyle(s); err == nil {
			if back, _ := ParseDropStyle(d.String()); back != d {
				t.Fatalf("drop style %q does not round-trip", s)
			}
		} else if !errors.Is(err, ErrBadDropStyle) {
			t.Fatal(err)
		}
		if c, err := ParseColor(s); err == nil {
			if back, _ := ParseColor(c.String()); back != c && c != NoColor {
				t.Fatalf("colour %q does not round-trip", s)
			}
		} else if !errors.Is(err, ErrBadColor) {
			t.Fatal(err)
		}
	})
}
