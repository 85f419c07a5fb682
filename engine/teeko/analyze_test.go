package teeko

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// golden compares got with the golden file, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file (run go test -update and review the diff):\n%s", name, got)
	}
}

func formatAnnotation(plies []AnnotatedPly) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "%-4s %-6s %-7s %-6s %-4s %-17s %-17s %s\n", "ply", "player", "decides", "move", "mark", "before", "after", "best moves")
	for _, p := range plies {
		best := make([]string, len(p.BestMoves))
		for i, m := range p.BestMoves {
			best[i] = m.String()
		}
		fmt.Fprintf(&sb, "%-4d %-6s %-7s %-6s %-4s %-17s %-17s %s\n", p.Ply, p.Player, p.Decides, p.Move, p.Mark,
			p.Before, p.After, strings.Join(best, " "))
	}
	return sb.String()
}

// annotatedGame is a short standard game (standard drops) chosen with the
// solver to show every mark: 2 ?? (draw to loss), 3 ??? (win to loss),
// 4 ?= (win to draw), 5 !! (the only drawing drop), 9 ! (the only win in 3),
// and no mark for the first drop and for best moves among several.
var annotatedGame = []string{"14", "17", "23", "7", "12", "11", "18", "24", "12-13", "7-1", "14-8"}

func TestAnnotate(t *testing.T) {
	tb := testTablebase(t, Standard)
	plies, err := tb.Annotate(StandardDrops, annotatedGame)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "annotate_standard.golden", formatAnnotation(plies))
	seen := map[Mark]bool{}
	for _, p := range plies {
		seen[p.Mark] = true
		if p.IsBest != (p.Mark == UniqueBest || p.Mark == OnlySaving || p.Before.score(p.Decides) == afterScore(p)) {
			t.Errorf("ply %d: IsBest %v disagrees with the values", p.Ply, p.IsBest)
		}
	}
	for _, m := range []Mark{NoMark, UniqueBest, OnlySaving, WinToDraw, DrawToLoss, WinToLoss} {
		if !seen[m] {
			t.Errorf("mark %q does not occur in the game", m)
		}
	}
	if last := plies[len(plies)-1]; last.After != (Value{Outcome: BlackWins}) {
		t.Errorf("the game should end with black's win, got %v", last.After)
	}

	_, err = tb.Annotate(StandardDrops, []string{"14", "14"})
	if !errors.Is(err, ErrIllegalMove) || !strings.HasPrefix(err.Error(), "move 2 (14): ") {
		t.Errorf("illegal game: %v", err)
	}
}

// afterScore is the score of the value after the ply, seen as the value of
// the position before it (one ply more).
func afterScore(p AnnotatedPly) int {
	v := p.After
	if v.Outcome != Draw {
		v.Plies++
	}
	return v.score(p.Decides)
}

func TestMarks(t *testing.T) {
	mv := func(m Move, o Outcome, n int, decider Color) MoveValue {
		v := Value{o, n}
		return MoveValue{Move: m, Value: v, Result: v.ResultFor(decider)}
	}
	a, b, c := Drop(1), Drop(2), Drop(3)
	for _, tc := range []struct {
		name    string
		before  Value
		moves   []MoveValue // best first
		played  Move
		want    Mark
		decider Color // Black when not given
	}{
		{"unique fastest win", Value{BlackWins, 3}, []MoveValue{mv(a, BlackWins, 2, Black), mv(b, BlackWins, 4, Black), mv(c, Draw, 0, Black)}, a, UniqueBest, NoColor},
		{"slower win", Value{BlackWins, 3}, []MoveValue{mv(a, BlackWins, 2, Black), mv(b, BlackWins, 4, Black), mv(c, Draw, 0, Black)}, b, NoMark, NoColor},
		{"one of two fastest", Value{BlackWins, 3}, []MoveValue{mv(a, BlackWins, 2, Black), mv(b, BlackWins, 2, Black), mv(c, Draw, 0, Black)}, a, NoMark, NoColor},
		{"only winning move", Value{BlackWins, 3}, []MoveValue{mv(a, BlackWins, 2, Black), mv(b, RedWins, 4, Black), mv(c, RedWins, 2, Black)}, a, OnlySaving, NoColor},
		{"win to draw", Value{BlackWins, 3}, []MoveValue{mv(a, BlackWins, 2, Black), mv(b, Draw, 0, Black), mv(c, RedWins, 2, Black)}, b, WinToDraw, NoColor},
		{"win to loss", Value{BlackWins, 3}, []MoveValue{mv(a, BlackWins, 2, Black), mv(b, Draw, 0, Black), mv(c, RedWins, 2, Black)}, c, WinToLoss, NoColor},
		{"only drawing move", Value{}, []MoveValue{mv(a, Draw, 0, Black), mv(b, RedWins, 4, Black)}, a, OnlySaving, NoColor},
		{"one of two draws", Value{}, []MoveValue{mv(a, Draw, 0, Black), mv(b, Draw, 0, Black), mv(c, RedWins, 4, Black)}, a, NoMark, NoColor},
		{"draw to loss", Value{}, []MoveValue{mv(a, Draw, 0, Black), mv(b, Draw, 0, Black), mv(c, RedWins, 4, Black)}, c, DrawToLoss, NoColor},
		{"unique slowest loss", Value{RedWins, 6}, []MoveValue{mv(a, RedWins, 5, Black), mv(b, RedWins, 3, Black)}, a, UniqueBest, NoColor},
		{"faster loss", Value{RedWins, 6}, []MoveValue{mv(a, RedWins, 5, Black), mv(b, RedWins, 3, Black)}, b, NoMark, NoColor},
		// Red decides Black's drop (alternate styles): Red's win is the
		// decider's win.
		{"opponent decides", Value{RedWins, 5}, []MoveValue{mv(a, RedWins, 4, Red), mv(b, Draw, 0, Red)}, b, WinToDraw, Red},
	} {
		dec := tc.decider
		if dec == NoColor {
			dec = Black
		}
		an := Analysis{Decides: dec, Value: tc.before, Result: tc.before.ResultFor(dec), Moves: tc.moves}
		best := tc.moves[0].Value.score(dec)
		for _, m := range tc.moves {
			if m.Value.score(dec) == best {
				an.BestMoves = append(an.BestMoves, m.Move)
			}
		}
		var played MoveValue
		for _, m := range tc.moves {
			if m.Move == tc.played {
				played = m
			}
		}
		if got := markFor(an, played); got != tc.want {
			t.Errorf("%s: mark %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestAnalyze(t *testing.T) {
	tb := testTablebase(t, Advanced)
	// Game over: no moves, plies 0.
	over := mustPosition(t, Advanced, "bbbb.r.r.r...............", NoColor)
	a, err := tb.Analyze(over, StandardDrops)
	if err != nil {
		t.Fatal(err)
	}
	if !a.Over || a.Value != (Value{Outcome: BlackWins}) || len(a.Moves) != 0 || a.Result != Loss {
		t.Errorf("game over: %+v", a)
	}
	// The empty board with alternate drops: Red places Black's first
	// piece, so Red decides.
	a, err = tb.Analyze(Start(Advanced), AlternateDrops)
	if err != nil {
		t.Fatal(err)
	}
	if a.Phase != DropPhase || a.ToMove != Black || a.Decides != Red || len(a.Moves) != 25 {
		t.Errorf("alternate drops from the empty board: %+v", a)
	}
	for i := 1; i < len(a.Moves); i++ {
		x, y := a.Moves[i-1], a.Moves[i]
		sx, sy := x.Value.score(Red), y.Value.score(Red)
		if sx < sy || (sx == sy && !x.Move.less(y.Move)) {
			t.Errorf("moves out of order: %v (%v) before %v (%v)", x.Move, x.Value, y.Move, y.Value)
		}
	}
	if _, err := tb.Analyze(Start(Standard), StandardDrops); !errors.Is(err, ErrRulesMismatch) {
		t.Errorf("standard position in the advanced table: %v", err)
	}
	// Every best move keeps the value: one ply less.
	a, _ = tb.Analyze(Start(Advanced), StandardDrops)
	for _, m := range a.BestMoves {
		child, _ := Start(Advanced).Play(m)
		v, _ := tb.Value(child, StandardDrops)
		if v.Outcome != a.Value.Outcome || v.Plies != a.Value.Plies-1 {
			t.Errorf("best drop %v leads to %v from %v", m, v, a.Value)
		}
	}
	t.Logf("advanced Teeko: %v; best first drops %v", a.Value, a.BestMoves)
}
