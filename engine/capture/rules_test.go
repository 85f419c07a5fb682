package capture

import (
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"
)

// step is one turn of a hand-built sequence and what must follow: an
// error kind, or the pieces captured, the markers and the board after it.
type step struct {
	turn     string
	err      error
	captured []string
	markers  map[string]string // nil: not checked
	board    []string          // nil: not checked
}

func runSteps(t *testing.T, pos *Position, steps []step) *Position {
	t.Helper()
	for i, s := range steps {
		next, err := pos.PlayString(s.turn)
		if s.err != nil {
			if !errors.Is(err, s.err) {
				t.Fatalf("step %d %q: error %v, want %v", i+1, s.turn, err, s.err)
			}
			if !errors.Is(err, ErrIllegalTurn) && s.err != ErrBadNotation {
				t.Errorf("step %d %q: error %v does not wrap ErrIllegalTurn", i+1, s.turn, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("step %d %q: %v\n%s", i+1, s.turn, err, pos)
		}
		pos = next
		if got := pos.Captured(); !slices.Equal(got, orEmpty(s.captured)) {
			t.Errorf("step %d %q: captured %v, want %v", i+1, s.turn, got, s.captured)
		}
		if s.markers != nil && !maps.Equal(pos.Markers(), s.markers) {
			t.Errorf("step %d %q: markers %v, want %v", i+1, s.turn, pos.Markers(), s.markers)
		}
		if s.board != nil && !slices.Equal(pos.Board(), s.board) {
			t.Errorf("step %d %q: board\n%s\nwant\n%s", i+1, s.turn, strings.Join(pos.Board(), "\n"), strings.Join(s.board, "\n"))
		}
	}
	return pos
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func mustPosition(t *testing.T, cfg Config, board []string, markers map[string]string, pool []string, toMove string, turns []string) *Position {
	t.Helper()
	pos, err := NewPosition(cfg, board, markers, pool, toMove, turns)
	if err != nil {
		t.Fatal(err)
	}
	return pos
}

func TestCaptures(t *testing.T) {
	start := mustPosition(t, DefaultConfig(), nil, nil, nil, "", nil)
	tests := []struct {
		name  string
		steps []step
	}{
		{"single capture", []step{
			{turn: "I:b1,c1,d1,e1,f1", markers: map[string]string{}},
			// L shares b1-b2, c1-c2, d1-d2 and a1-b1 with I: 4 edges.
			{turn: "L:a1,a2,b2,c2,d2", captured: []string{"I"}, markers: map[string]string{"I": "second"}},
		}},
		{"two edges do not capture", []step{
			{turn: "I:b1,c1,d1,e1,f1"},
			{turn: "L:b2,c2,b3,b4,b5", markers: map[string]string{}},
		}},
		{"double capture of the mover's own piece and the opponent's", []step{
			{turn: "I:b1,c1,d1,e1,f1"},
			{turn: "T:a3,b3,c3,b4,b5"},
			// L touches I by 4 edges and T by 3: both get first's marker,
			// I although first placed it.
			{turn: "L:a1,a2,b2,c2,d2", captured: []string{"I", "T"}, markers: map[string]string{"I": "first", "T": "first"},
				board: []string{"LIIIII.", "LLLL...", "TTT....", ".T.....", ".T.....", ".......", "......."}},
		}},
		{"recapture flips the marker", []step{
			{turn: "I:b1,c1,d1,e1,f1"},
			{turn: "L:a1,a2,b2,c2,d2", captured: []string{"I"}, markers: map[string]string{"I": "second"}},
			// Z shares e1-e2, f1-f2 and f1-g1 with I.
			{turn: "Z:g1,e2,f2,g2,e3", captured: []string{"I"}, markers: map[string]string{"I": "first"}},
			// P shares f2-f3, e3-f3 and g2-g3 with Z.
			{turn: "P:f3,g3,f4,g4,f5", captured: []string{"Z"}, markers: map[string]string{"I": "first", "Z": "second"}},
		}},
		{"capturing a piece already carrying the mover's marker keeps it", []step{
			{turn: "I:b1,c1,d1,e1,f1"},
			{turn: "L:a1,a2,b2,c2,d2", captured: []string{"I"}},
			{turn: "P:a6,b6,a7,b7,c7"},
			{turn: "Z:g1,e2,f2,g2,e3", captured: []string{"I"}, markers: map[string]string{"I": "second"}},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { runSteps(t, start, tc.steps) })
	}
}

func TestRemovals(t *testing.T) {
	// First carries L's marker and second I's; first to move.
	board := []string{
		"IIIII..",
		"LLLL...",
		"L......",
		".......",
		".......",
		".......",
		".......",
	}
	markers := map[string]string{"L": "first", "I": "second"}
	pos := mustPosition(t, DefaultConfig(), board, markers, nil, "first", nil)
	tests := []struct {
		name  string
		steps []step
	}{
		{"removal then placement into the freed cells", []step{
			// P covers a2, b2, c2 and a3 of L, and shares a1-a2, b1-b2,
			// c1-c2 with I.
			{turn: "~L P:a2,b2,c2,a3,b3", captured: []string{"I"}, markers: map[string]string{"I": "first"},
				board: []string{"IIIII..", "PPP....", "PP.....", ".......", ".......", ".......", "......."}},
		}},
		{"a placement on a marked piece without removing it", []step{
			{turn: "P:a2,b2,a3,b3,a4", err: ErrOccupied},
		}},
		{"removal of a piece carrying the opponent's marker", []step{
			{turn: "~I P:a4,b4,a5,b5,a6", err: ErrNotYourMarker},
		}},
		{"removal of an unmarked piece", []step{
			{turn: "X:b4,a5,b5,c5,b6"},
			{turn: "~X P:a4,b4,a5,b5,a6", err: ErrNotYourMarker},
		}},
		{"removal of a piece not on the board", []step{
			{turn: "~T P:a4,b4,a5,b5,a6", err: ErrNotYourMarker},
		}},
		{"the removed piece cannot be placed on the same turn", []step{
			{turn: "~L L:a2,b2,c2,d2,d3", err: ErrBannedPiece},
			{turn: "~L L:a4,b4,c4,d4,d5", err: ErrBannedPiece},
		}},
		{"the opponent may place the removed piece at once", []step{
			{turn: "~L P:a4,b4,a5,b5,a6", markers: map[string]string{"I": "second"}},
			// L touches I by 4 edges (already second's) and P by one.
			{turn: "L:a2,b2,c2,d2,a3", captured: []string{"I"}, markers: map[string]string{"I": "second"}},
		}},
		{"removal without need hands the piece to the pool", []step{
			{turn: "~L X:e4,d5,e5,f5,e6",
				board: []string{"IIIII..", ".......", ".......", "....X..", "...XXX.", "....X..", "......."}},
		}},
		{"a removed piece leaves its marker behind", []step{
			{turn: "~L P:a2,b2,a3,b3,a4"},
			{turn: "L:c2,d2,e2,f2,f3", captured: []string{"I"}, markers: map[string]string{"I": "second"}},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { runSteps(t, pos, tc.steps) })
	}
	// The pool after a removal holds the removed piece; the notation of
	// removals is canonical whatever the order written.
	next, err := pos.PlayString("~l  p:a4,b2,a2,b3,a3")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(next.Pool(), "L") || slices.Contains(next.Pool(), "P") {
		t.Errorf("pool after ~L P: %v", next.Pool())
	}
}

func TestIllegalTurns(t *testing.T) {
	pos := mustPosition(t, Config{Width: 7, Height: 7, Order: 5, Blocked: []string{"d4"}}, nil, nil, []string{"F", "I", "L", "N", "P", "T", "U", "V", "W", "X", "Y"}, "", []string{"I:a1,b1,c1,d1,e1"})
	tests := []struct {
		turn string
		err  error
		msg  string
	}{
		{"I:a2,b2,c2,d2,e2", ErrPieceUnavailable, "on the board"},
		{"Z:a3,b3,b4,b5,c5", ErrPieceUnavailable, "out of play"},
		{"Q:a3,b3,b4,b5,c5", ErrUnknownPiece, "no piece"},
		{"L:a3,b3,c3,d3,h3", ErrOffBoard, "h3 is off the 7x7 board"},
		{"L:a3,b3,c3,d3,e5", ErrWrongShape, "do not form piece L"},
		{"L:a3,b3,c3,d3", ErrWrongShape, "covers 5 cells"},
		{"L:a4,b4,c4,d4,d5", ErrBlockedCell, "d4 is blocked"},
		{"L:a1,a2,a3,a4,b4", ErrOccupied, "a1 is covered by I, which carries no marker"},
		{"~I L:a1,a2,a3,a4,b4", ErrNotYourMarker, "removal of I: it carries no marker"},
		{"L:", ErrBadNotation, "cell"},
	}
	for _, tc := range tests {
		_, err := pos.PlayString(tc.turn)
		if !errors.Is(err, tc.err) || !strings.Contains(fmtErr(err), tc.msg) {
			t.Errorf("%q: %v, want %v containing %q", tc.turn, err, tc.err, tc.msg)
		}
	}
	// NewPosition names the turn at fault.
	_, err := NewPosition(DefaultConfig(), nil, nil, nil, "", []string{"I:b1,c1,d1,e1,f1", "L:a1,a2,b2,c2,d2", "~I T:a3,b3,c3,b4,b5"})
	var te *TurnError
	if !errors.As(err, &te) || te.Index != 3 || !errors.Is(err, ErrNotYourMarker) ||
		!strings.Contains(err.Error(), "turn 3") || !strings.Contains(err.Error(), "removal of I: it carries second's marker, not first's") {
		t.Errorf("turn 3 error: %v", err)
	}
	_, err = NewPosition(DefaultConfig(), nil, nil, nil, "", []string{"I:b1,c1,d1,e1,f1", "L:a1,a2,b2,c2,d2", "Z:g1,e2,f2,g2,e3", "P:a6,b6,a7,b7,c7", "~I I:a4,b4,c4,d4,e4"})
	if !errors.As(err, &te) || te.Index != 5 || !errors.Is(err, ErrBannedPiece) ||
		!strings.Contains(err.Error(), "I was removed this turn and cannot be placed on the same turn") {
		t.Errorf("turn 5 error: %v", err)
	}
}

func fmtErr(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestStuckPlayerLoses(t *testing.T) {
	// 5 x 2 board, tetrominoes I, O and L; I is the only piece in the
	// pool. With O carrying his marker, first can remove it and lay I along
	// row 1 (capturing L by c1-c2, d1-d2, d1-e1); second is then stuck: O
	// needs a 2 x 2 hole.
	cfg := Config{Width: 5, Height: 2, Order: 4, Pieces: []string{"I", "O", "L"}}
	board := []string{"OO..L", "OOLLL"}
	pos := mustPosition(t, cfg, board, map[string]string{"O": "first"}, nil, "first", nil)
	if pos.Stuck() || pos.Over() {
		t.Fatal("first can place after removing O")
	}
	if got := turnStrings(pos.LegalTurns()); !slices.Equal(got, []string{"~O I:a1,b1,c1,d1"}) {
		t.Errorf("legal turns %v", got)
	}
	res, err := Solve(t.Context(), pos, Options{})
	if err != nil || res.Outcome != Win || !res.Proven || len(res.BestTurns) != 1 {
		t.Errorf("solve: %v %+v", err, res)
	}
	next := runSteps(t, pos, []step{{turn: "~O I:a1,b1,c1,d1", captured: []string{"L"}, markers: map[string]string{"L": "first"}}})
	if !next.Stuck() || !next.Over() || next.Winner() != "first" || next.Drawn() {
		t.Fatalf("second should be stuck:\n%s", next)
	}
	if _, err := next.PlayString("O:a2,b2,a1,b1"); !errors.Is(err, ErrGameOver) {
		t.Errorf("turn after the end: %v", err)
	}
	if next.LegalTurns() != nil || next.CountTurns() != 0 {
		t.Error("a stuck player has turns")
	}
	// A finished game's (empty) list of best turns is complete, as in the
	// other polyomino games.
	if res, err := Solve(t.Context(), next, Options{}); err != nil || !res.Over || !res.Proven || res.Outcome != Loss || !res.BestComplete || len(res.BestTurns) != 0 {
		t.Errorf("solve after the end: %v %+v", err, res)
	}
	res, _ = Solve(t.Context(), next, Options{})
	if !res.Over || res.Outcome != Loss || !res.Proven {
		t.Errorf("solve of a finished game: %+v", res)
	}
	// Without his marker on O (unmarked, or second's) first cannot make
	// room: he is stuck at once.
	for _, m := range []map[string]string{nil, {"O": "second"}, {"L": "first"}} {
		pos := mustPosition(t, cfg, board, m, nil, "first", nil)
		if !pos.Stuck() || pos.Winner() != "second" {
			t.Errorf("markers %v: first should be stuck", m)
		}
	}
}

func turnStrings(ts []Turn) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.String()
	}
	return out
}

// cycleBoard is a position on the capture preset where four pieces can
// chase each other round: each turn removes one of the mover's pieces and
// places the piece the opponent just removed... see TestRepetition.
var cycleBoard = []string{
	"FF.....",
	"IFF....",
	"IF.....",
	"IPP....",
	"IPP....",
	"IP.....",
	".......",
}

var cycleMarkers = map[string]string{"I": "second", "P": "first"}

// cycleTurns go round once: F, I, P and the Y pentomino each capture the
// next (F takes I, I takes P, P takes Y, Y takes F by 3 or more edges)
// and every turn removes the mover's piece that the next one will need.
var cycleTurns = []string{
	"~P Y:d2,c3,d3,d4,d5", // captures F
	"~I P:b4,c4,b5,c5,b6", // captures Y
	"~F I:a2,a3,a4,a5,a6", // captures P
	"~Y F:a1,b1,b2,c2,b3", // captures I: back to the start
}

func TestRepetition(t *testing.T) {
	pos := mustPosition(t, DefaultConfig(), cycleBoard, cycleMarkers, nil, "first", nil)
	if pos.Occurrences() != 1 {
		t.Fatalf("start occurs %d times", pos.Occurrences())
	}
	captured := []string{"F", "Y", "P", "I"}
	for round := 1; round <= 2; round++ {
		for i, turn := range cycleTurns {
			if pos.Over() {
				t.Fatalf("round %d turn %d: over early", round, i+1)
			}
			var err error
			if pos, err = pos.PlayString(turn); err != nil {
				t.Fatalf("round %d %q: %v", round, turn, err)
			}
			if got := pos.Captured(); !slices.Equal(got, []string{captured[i]}) {
				t.Errorf("round %d %q captured %v, want %s", round, turn, got, captured[i])
			}
			if got, want := pos.Occurrences(), round+btoi(i == 3); got != want {
				t.Errorf("round %d turn %d: occurrences %d, want %d", round, i+1, got, want)
			}
		}
	}
	if !slices.Equal(pos.Board(), cycleBoard) || !maps.Equal(pos.Markers(), cycleMarkers) {
		t.Fatalf("the cycle does not come back:\n%s", pos)
	}
	if !pos.Drawn() || !pos.Over() || pos.Winner() != "" {
		t.Fatalf("third occurrence: drawn %v over %v", pos.Drawn(), pos.Over())
	}
	if _, err := pos.PlayString(cycleTurns[0]); !errors.Is(err, ErrGameOver) {
		t.Errorf("turn after the draw: %v", err)
	}
	res, _ := Solve(t.Context(), pos, Options{})
	if !res.Over || res.Outcome != Draw || !res.Proven {
		t.Errorf("solve of the drawn position: %+v", res)
	}

	// One turn before the third occurrence, the turn that completes it is
	// a draw for the analysis (the search sees the game's history).
	turns := append(append([]string{}, cycleTurns...), cycleTurns[:3]...)
	pos = mustPosition(t, DefaultConfig(), cycleBoard, cycleMarkers, nil, "second", turns)
	res, err := Solve(t.Context(), pos, Options{AllMoves: true, MaxNodes: 20000})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, tr := range res.Turns {
		if tr.Turn.String() == cycleTurns[3] {
			found = true
			if tr.Outcome != Draw {
				t.Errorf("%s: %s, want draw", tr.Turn, tr.Outcome)
			}
		}
	}
	if !found {
		t.Errorf("%s is not among the %d legal turns", cycleTurns[3], len(res.Turns))
	}
	// The same board without the history: the turn is no draw.
	fresh := mustPosition(t, DefaultConfig(), pos.Board(), pos.Markers(), nil, "second", nil)
	next, err := fresh.PlayString(cycleTurns[3])
	if err != nil || next.Over() {
		t.Errorf("fresh position: %v, over %v", err, next != nil && next.Over())
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestKnownCounts: the placements on empty boards, the rule book's 2308 on
// 8 x 8 (RULES.md) and the reference enumeration's count on the preset.
func TestKnownCounts(t *testing.T) {
	for _, tc := range []struct {
		cfg  Config
		want int
	}{
		{Config{Width: 8, Height: 8, Order: 5}, 2308},
		{DefaultConfig(), -1},
		{Config{Width: 5, Height: 5, Order: 4, Blocked: []string{"c3"}}, -1},
	} {
		pos := mustPosition(t, tc.cfg, nil, nil, nil, "", nil)
		want := tc.want
		if want < 0 {
			want = len(refFrom(t, newRefGame(t, tc.cfg), pos).turns())
		}
		if got := pos.CountTurns(); got != want || len(pos.LegalTurns()) != want {
			t.Errorf("%+v: %d turns, want %d", tc.cfg, got, want)
		}
	}
}
