package capture

import (
	"errors"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestParseTurn(t *testing.T) {
	good := []struct{ in, want string }{
		{"Z:b3,c3,c4,c5,d5", "Z:b3,c3,c4,c5,d5"},
		{"~Y Z:b3,c3,c4,c5,d5", "~Y Z:b3,c3,c4,c5,d5"},
		{"~y z:d5,c5,c4,c3,b3", "~Y Z:b3,c3,c4,c5,d5"},
		{"  ~P   ~L\tX : b2 , a3,b3, c3,b4 ", "~L ~P X:b2,a3,b3,c3,b4"},
		{"~Y~P Z:b3,c3,c4,c5,d5", "~P ~Y Z:b3,c3,c4,c5,d5"},
		{"~ Y Z:b3,c3,c4,c5,d5", "~Y Z:b3,c3,c4,c5,d5"},
		{"H07:p16,a1", "H07:a1,p16"},
	}
	for _, tc := range good {
		turn, err := ParseTurn(tc.in)
		if err != nil {
			t.Errorf("%q: %v", tc.in, err)
			continue
		}
		if got := turn.String(); got != tc.want {
			t.Errorf("%q: %q, want %q", tc.in, got, tc.want)
		}
		again, err := ParseTurn(turn.String())
		if err != nil || again.String() != tc.want {
			t.Errorf("%q: round trip %q, %v", tc.in, again, err)
		}
	}
	bad := []struct{ in, msg string }{
		{"", "places no piece"},
		{"~", "without a piece name"},
		{"~Y", "places no piece"},
		{"~Y ~P", "places no piece"},
		{"Z", "expected [~P ...] <piece>:<cells>"},
		{"Z:", "cell"},
		{":b3", "expected [~P ...] <piece>:<cells>"},
		{"Z:b3,b3,c4,c5,d5", "lists cell b3 twice"},
		{"~Y ~y Z:b3", "removes Y twice"},
		{"~Y:b3 Z:b3", "followed by a colon"},
		{"~ O:a4", "the removal mark ~ is followed by a placement (O:...)"},
		{"~Y ~\tO:a4", "the removal mark ~ is followed by a placement (O:...)"},
		{"Z:b0", "cell"},
		{"Z:3b", "cell"},
		{"Z-1:b3", "letters and digits only"},
		{"~Ä Z:b3", "letters and digits only"},
		{strings.Repeat("~Y ", 200) + "Z:b3", "characters"},
	}
	for _, tc := range bad {
		_, err := ParseTurn(tc.in)
		if !errors.Is(err, ErrBadNotation) || !strings.Contains(fmtErr(err), tc.msg) {
			t.Errorf("%q: %v, want ErrBadNotation containing %q", tc.in, err, tc.msg)
		}
	}
}

// TestRoundTrips plays random games: every legal turn prints, parses back
// and plays to the same position; every position rebuilt from its board,
// markers, pool and player to move is the same position.
func TestRoundTrips(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for _, cfg := range []Config{DefaultConfig(), {Width: 6, Height: 5, Order: 4, Blocked: []string{"c3", "d3"}}, {Width: 9, Height: 9, Order: 6, Pieces: []string{"H01", "H07", "H20", "H35"}}} {
		g, err := NewGame(cfg)
		if err != nil {
			t.Fatal(err)
		}
		for game := 0; game < 5; game++ {
			pos := randomSetup(rng, g, rng.IntN(5))
			for !pos.Over() && pos.TurnsPlayed() < 12 {
				checkRebuild(t, g, pos)
				ts := pos.LegalTurns()
				if len(ts) != pos.CountTurns() {
					t.Fatalf("%d legal turns, CountTurns %d", len(ts), pos.CountTurns())
				}
				for _, i := range []int{0, len(ts) - 1, rng.IntN(len(ts))} {
					parsed, err := ParseTurn(ts[i].String())
					if err != nil {
						t.Fatalf("%s: %v", ts[i], err)
					}
					a, err1 := pos.Play(ts[i])
					b, err2 := pos.Play(parsed)
					if err1 != nil || err2 != nil || a.Key() != b.Key() {
						t.Fatalf("%s: %v %v", ts[i], err1, err2)
					}
				}
				pos, _ = pos.Play(ts[rng.IntN(len(ts))])
			}
		}
	}
}

func checkRebuild(t *testing.T, g *Game, pos *Position) {
	t.Helper()
	again, err := g.NewPosition(Setup{Board: pos.Board(), Markers: pos.Markers(), Pool: pos.Pool(), ToMove: pos.ToMove()})
	if err != nil {
		t.Fatalf("rebuild: %v\n%s", err, pos)
	}
	if again.st.key != pos.st.key || !slices.Equal(again.Board(), pos.Board()) || !maps.Equal(again.Markers(), pos.Markers()) ||
		!slices.Equal(again.Pool(), pos.Pool()) || again.ToMove() != pos.ToMove() {
		t.Fatalf("rebuilt\n%s\nfrom\n%s", again, pos)
	}
}

func TestSetup(t *testing.T) {
	cfg := DefaultConfig()
	board := []string{"IIIII..", "LLLL...", "L......", ".......", ".......", ".......", "......."}
	bad := []struct {
		name string
		su   Setup
		err  error
		msg  string
	}{
		{"rows", Setup{Board: board[:6]}, ErrBadBoard, "6 rows, expected 7"},
		{"row width", Setup{Board: append([]string{"IIIII."}, board[1:]...)}, ErrBadBoard, "row 1 has 6 cells (characters), expected 7"},
		{"shape", Setup{Board: append([]string{"IIII..I"}, board[1:]...)}, ErrBadBoard, "do not form a piece"},
		{"label", Setup{Board: append([]string{"PPPPP.."}, board[1:]...)}, ErrBadBoard, "form piece I, not P"},
		{"space", Setup{Board: append([]string{"IIIII. "}, board[1:]...)}, ErrBadBoard, "space"},
		{"marker of a piece off the board", Setup{Board: board, Markers: map[string]string{"X": "first"}}, ErrBadPosition, "X is not on the board"},
		{"marker value", Setup{Board: board, Markers: map[string]string{"I": "black"}}, ErrBadPosition, "expected first or second"},
		{"marker value of a piece off the board", Setup{Board: board, Markers: map[string]string{"X": "third"}}, ErrBadPosition, `piece X has marker "third" (expected first or second)`},
		{"marker piece", Setup{Board: board, Markers: map[string]string{"Q": "first"}}, ErrBadPosition, "no piece"},
		{"marker twice", Setup{Board: board, Markers: map[string]string{"I": "first", "i": "second"}}, ErrBadPosition, `markers: piece I listed twice (keys "I" and "i")`},
		{"marker twice, spaced", Setup{Board: board, Markers: map[string]string{"I": "first", " I ": "first"}}, ErrBadPosition, "markers: piece I listed twice"},
		{"pool with a piece on the board", Setup{Board: board, Pool: []string{"I", "X"}}, ErrBadPosition, "I is on the board"},
		{"pool twice", Setup{Pool: []string{"X", "x"}}, ErrBadPosition, "listed twice"},
		{"banned not in the pool", Setup{Board: board, Pool: []string{"X"}, Banned: []string{"P"}}, ErrBadPosition, "not in the pool"},
		{"banned twice", Setup{Board: board, Pool: []string{"X", "P"}, Banned: []string{"P", "P"}}, ErrBadPosition, "banned: piece P listed twice"},
		{"banned, more than the empty cells held", Setup{Banned: []string{"F", "I", "L", "N", "P", "T", "U", "V", "W", "X", "Y", "Z"}}, ErrBadPosition, "covered 60 cells a moment ago, but only 49 cells are empty now"},
		{"banned, fitting nowhere", Setup{Board: []string{"IIIII.#", "LLLL.##", "L.#.#.#", "##.#.#.", ".#.#.#.", "#.#.#.#", ".#.#.#."}, Banned: []string{"P"}}, ErrBadPosition, "piece P was removed from the board on this turn, but it fits nowhere"},
		{"to move", Setup{ToMove: "black"}, ErrBadPosition, "expected first or second"},
		{"turn", Setup{Turns: []string{"X:a1"}}, ErrWrongShape, "turn 1"},
	}
	g, _ := NewGame(cfg)
	for _, tc := range bad {
		_, err := g.NewPosition(tc.su)
		if !errors.Is(err, tc.err) || !strings.Contains(fmtErr(err), tc.msg) {
			t.Errorf("%s: %v, want %v containing %q", tc.name, err, tc.err, tc.msg)
		}
	}
	for _, c := range []Config{{Width: 0, Height: 7, Order: 5}, {Width: 17, Height: 7, Order: 5}, {Width: 7, Height: 7, Order: 3},
		{Width: 7, Height: 7, Order: 5, Pieces: []string{"O"}}, {Width: 7, Height: 7, Order: 5, Pieces: []string{"X", "X"}},
		{Width: 7, Height: 7, Order: 5, Blocked: []string{"h1"}}, {Width: 7, Height: 7, Order: 5, Blocked: []string{"a1", "A1"}}} {
		if _, err := NewGame(c); !errors.Is(err, ErrBadConfig) {
			t.Errorf("config %+v: %v", c, err)
		}
	}

	// Defaults: from board rows the player to move follows the parity of
	// the pieces on the board; the pool is every other piece; markers
	// absent mean unmarked.
	pos, err := g.NewPosition(Setup{Board: board, Markers: map[string]string{"l": "First", "I": " "}})
	if err != nil {
		t.Fatal(err)
	}
	if pos.ToMove() != "first" || len(pos.Pool()) != 10 || !maps.Equal(pos.Markers(), map[string]string{"L": "first"}) {
		t.Errorf("defaults: %s", pos)
	}
	pos, _ = g.NewPosition(Setup{Board: board, Turns: []string{"X:b4,a5,b5,c5,b6"}})
	if pos.ToMove() != "second" {
		t.Errorf("after one turn from a board with two pieces: %s to move", pos.ToMove())
	}
	pos, _ = g.NewPosition(Setup{Board: board, ToMove: "second", Turns: []string{"X:b4,a5,b5,c5,b6"}})
	if pos.ToMove() != "second" || !slices.Contains(pos.OnBoard(), "X") {
		t.Errorf("ToMove names the player after the turns: %s", pos)
	}
	// A restricted pool leaves the other pieces out of play; '#' cells are
	// covered for good.
	pos, _ = g.NewPosition(Setup{Board: []string{"#######", "#######", "#######", "#######", "#######", "......#", "......#"}, Pool: []string{"I", "L"}})
	if got := turnStrings(pos.LegalTurns()); len(got) != 4+12 {
		t.Errorf("turns on two rows of six with I and L: %v", got)
	}
	// In the middle of a turn: first removed P and must place something
	// else.
	pos, err = g.NewPosition(Setup{Board: board, Markers: map[string]string{"L": "first"}, Banned: []string{"P"}, ToMove: "first"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pos.PlayString("P:a4,b4,a5,b5,a6"); !errors.Is(err, ErrBannedPiece) {
		t.Errorf("banned piece: %v", err)
	}
	if pos.Occurrences() != 0 || !slices.Equal(pos.Banned(), []string{"P"}) {
		t.Errorf("a turn in progress is no position of the history")
	}
	next, err := pos.PlayString("~L X:b4,a5,b5,c5,b6")
	if err != nil || len(next.Banned()) != 0 || next.Occurrences() != 1 {
		t.Errorf("completing the turn: %v", err)
	}
	// With turns, the first of them completes the turn in progress.
	var te *TurnError
	if _, err := g.NewPosition(Setup{Board: board, Markers: map[string]string{"L": "first"}, Banned: []string{"P"}, ToMove: "second", Turns: []string{"P:a4,b4,a5,b5,a6"}}); !errors.Is(err, ErrBannedPiece) || !errors.As(err, &te) || te.Index != 1 {
		t.Errorf("banned piece placed by the first turn: %v", err)
	}
	if p2, err := g.NewPosition(Setup{Board: board, Markers: map[string]string{"L": "first"}, Banned: []string{"P"}, ToMove: "first", Turns: []string{"~L X:b4,a5,b5,c5,b6", "P:e5,f5,e6,f6,e7"}}); err != nil || len(p2.Banned()) != 0 {
		t.Errorf("the ban ends with the first turn: %v", err)
	}
	// Hexomino boards label pieces 1..9, A..Z and read them by shape.
	hg, _ := NewGame(Config{Width: 8, Height: 8, Order: 6})
	hp, err := hg.NewPosition(Setup{Turns: []string{"H01:a1,b1,c1,d1,e1,f1"}})
	if err != nil || hp.Board()[0] != "111111.." {
		t.Errorf("hexomino board %v %v", err, hp)
	}
}

func FuzzParseTurn(f *testing.F) {
	for _, s := range []string{"~Y Z:b3,c3,c4,c5,d5", "Z:d5,c3", "~p~l x: b2,a3", "~", "H35:p16,a1,b2", "Z:b3,b3", ":", "~Y:"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		turn, err := ParseTurn(s)
		if err != nil {
			if !errors.Is(err, ErrBadNotation) {
				t.Fatalf("%q: error %v is not ErrBadNotation", s, err)
			}
			return
		}
		again, err := ParseTurn(turn.String())
		if err != nil || again.String() != turn.String() {
			t.Fatalf("%q: %q does not round-trip: %v", s, turn, err)
		}
	})
}

// FuzzPlay plays fuzzed turns on a position with markers for both
// players: a turn is legal or refused with a rule error, never a panic.
func FuzzPlay(f *testing.F) {
	for _, s := range []string{"~L P:a2,b2,c2,a3,b3", "~I X:c4,b5,c5,d5,c6", "L:a4,b4,c4,d4,d5", "~L L:a4,b4,c4,d4,d5", "P:a1,b1,a2,b2,a3", "Q:a1"} {
		f.Add(s)
	}
	board := []string{"IIIII..", "LLLL...", "L......", ".......", ".......", ".......", "......."}
	pos, err := NewPosition(DefaultConfig(), board, map[string]string{"L": "first", "I": "second"}, nil, "first", nil)
	if err != nil {
		f.Fatal(err)
	}
	legal := map[string]bool{}
	for _, t := range pos.LegalTurns() {
		legal[t.String()] = true
	}
	f.Fuzz(func(t *testing.T, s string) {
		turn, err := ParseTurn(s)
		if err != nil {
			return
		}
		next, err := pos.Play(turn)
		switch {
		case err == nil && !legal[turn.String()]:
			t.Fatalf("%q played but is not among the legal turns", s)
		case err != nil && legal[turn.String()]:
			t.Fatalf("%q refused (%v) but is legal", s, err)
		case err != nil && !errors.Is(err, ErrIllegalTurn) && !errors.Is(err, ErrBadNotation):
			t.Fatalf("%q: error %v names no rule", s, err)
		case err == nil && next.Occurrences() != 1:
			t.Fatalf("%q: occurrences %d", s, next.Occurrences())
		}
	})
}

// FuzzBoard reads fuzzed board rows (separated by '/') on a 5 x 4
// tetromino game with markers: an error or a position that rebuilds from
// its own description.
func FuzzBoard(f *testing.F) {
	for _, s := range []string{"IIII./OO.../OO.../.....", "...../...../...../.....", "#####/#...#/#...#/#####", "lll../l..../...../....T", "IIII/OO/OO/....", "é..../...../...../....."} {
		f.Add(s, "I", "first")
	}
	g, err := NewGame(Config{Width: 5, Height: 4, Order: 4})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, rows, piece, side string) {
		pos, err := g.NewPosition(Setup{Board: strings.Split(rows, "/"), Markers: map[string]string{piece: side}})
		if err != nil {
			if !errors.Is(err, ErrBadBoard) && !errors.Is(err, ErrBadPosition) {
				t.Fatalf("%q: error %v", rows, err)
			}
			return
		}
		checkRebuild(t, g, pos)
		_ = pos.LegalTurns()
	})
}
