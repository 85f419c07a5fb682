package capture

import (
	"errors"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// longGame reads testdata/long_game_8x8.txt: 2,820 legal turns on an
// 8 x 8 board with the twelve pentominoes.
func longGame(t testing.TB) []string {
	t.Helper()
	raw, err := os.ReadFile("testdata/long_game_8x8.txt")
	if err != nil {
		t.Fatal(err)
	}
	var turns []string
	for _, l := range strings.Split(string(raw), "\n") {
		if l != "" && !strings.HasPrefix(l, "#") {
			turns = append(turns, l)
		}
	}
	return turns
}

// TestReplayLinear: NewPosition replays a game's turns in memory linear in
// their number (it copied the history at each turn: the audit's 2,820
// turns cost half a second of CPU and 685 MB, before any solver slot),
// and reaches the position Play does, repetitions counted alike.
func TestReplayLinear(t *testing.T) {
	turns := longGame(t)
	g, err := NewGame(Config{Width: 8, Height: 8, Order: 5})
	if err != nil {
		t.Fatal(err)
	}
	replay := func(n int) (*Position, uint64) {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		pos, err := g.NewPosition(Setup{Turns: turns[:n]})
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatalf("%d turns: %v", n, err)
		}
		return pos, after.TotalAlloc - before.TotalAlloc
	}
	_, half := replay(len(turns) / 2)
	pos, whole := replay(len(turns))
	if whole > 3*half || whole > 16<<20 {
		t.Errorf("replaying %d turns allocated %d bytes, %d turns %d: not linear", len(turns), whole, len(turns)/2, half)
	}
	// Play, one turn at a time, reaches the same position.
	step := g.Start()
	for i, text := range turns {
		if step, err = step.PlayString(text); err != nil {
			t.Fatalf("turn %d: %v", i+1, err)
		}
	}
	if step.Key() != pos.Key() || step.TurnsPlayed() != pos.TurnsPlayed() || step.Occurrences() != pos.Occurrences() ||
		strings.Join(step.Captured(), ",") != strings.Join(pos.Captured(), ",") {
		t.Errorf("NewPosition and Play differ after %d turns", len(turns))
	}
}

// TestReplayThirdOccurrence: NewPosition counts repetitions as Play does
// (TestRepetition's cycle): after two rounds the position occurs for the
// third time, and a turn after it is refused (the game is drawn).
func TestReplayThirdOccurrence(t *testing.T) {
	turns := slices.Concat(cycleTurns, cycleTurns)
	pos := mustPosition(t, DefaultConfig(), cycleBoard, cycleMarkers, nil, "first", turns)
	if pos.Occurrences() != 3 || !pos.Drawn() {
		t.Errorf("after two rounds: %d occurrences, drawn %v", pos.Occurrences(), pos.Drawn())
	}
	_, err := NewPosition(DefaultConfig(), cycleBoard, cycleMarkers, nil, "second", append(turns, cycleTurns[0]))
	var te *TurnError
	if !errors.As(err, &te) || te.Index != len(turns)+1 || !errors.Is(err, ErrGameOver) {
		t.Errorf("the turn after the third occurrence: %v", err)
	}
}

// BenchmarkReplayLongGame: NewPosition replaying the 2,820 turns of
// testdata/long_game_8x8.txt (a request's position before any slot).
func BenchmarkReplayLongGame(b *testing.B) {
	turns := longGame(b)
	g, err := NewGame(Config{Width: 8, Height: 8, Order: 5})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := g.NewPosition(Setup{Turns: turns}); err != nil {
			b.Fatal(err)
		}
	}
}
