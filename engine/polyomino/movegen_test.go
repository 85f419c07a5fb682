package polyomino

import (
	"fmt"
	"sync"
	"testing"
)

// Known move counts ("perft" for placement games).
func TestKnownMoveCounts(t *testing.T) {
	tests := []struct {
		preset          string
		moves           []string
		legal, distinct int
	}{
		{"pentominoes", nil, 2308, 296},
		{"tetrominoes", nil, 0, 0},
	}
	for _, tt := range tests {
		cfg, err := Preset(tt.preset)
		if err != nil {
			t.Fatal(err)
		}
		pos, err := NewPosition(cfg, nil, tt.moves, DefaultToMove)
		if err != nil {
			t.Fatalf("%s: %v", tt.preset, err)
		}
		if got := pos.LegalMoveCount(); tt.legal != 0 && got != tt.legal {
			t.Errorf("%s %v: %d legal moves, want %d", tt.preset, tt.moves, got, tt.legal)
		}
		if got := pos.DistinctUpToSymmetry(); tt.distinct != 0 && got != tt.distinct {
			t.Errorf("%s %v: %d distinct moves, want %d", tt.preset, tt.moves, got, tt.distinct)
		}
		t.Logf("%s: %d legal, %d distinct", tt.preset, pos.LegalMoveCount(), pos.DistinctUpToSymmetry())
	}
}

// TestSymmetryOfBlockedAndCovered: a blocked cell and a '#' on the board
// are alike to the play, so the symmetries of a position are those of its
// blocked and covered cells together, however each is written (the count
// was 26 with the blocked cells given apart, 15 written as '#').
func TestSymmetryOfBlockedAndCovered(t *testing.T) {
	tests := []struct {
		name             string
		blocked          []string
		board, moves     []string
		pieces           []string
		order, wantCount int
		wantDistinct     int
	}{
		{"as #", nil, []string{"LLL#", "L..#", "....", "...."}, nil, nil, 4, 26, 15},
		{"as blocked cells", []string{"d1", "d2"}, []string{"LLL.", "L...", "....", "...."}, nil, nil, 4, 26, 15},
		{"hands, blocked a3, a move", []string{"a3"}, nil, []string{"Y:b1,a2,b2,b3,b4"}, []string{"F", "I", "L", "N", "P", "T", "V", "W", "Y", "Z"}, 5, 112, 56},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := Config{Width: 4, Height: 4, Order: tt.order, Pool: true, Blocked: tt.blocked, Pieces: tt.pieces}
			if tt.order == 5 {
				cfg.Width, cfg.Pool = 6, false
				cfg.Hands = [2][]string{{"L", "N", "T", "W", "Y"}, {"F", "I", "P", "V", "Z"}}
			}
			pos, err := NewPosition(cfg, tt.board, tt.moves, DefaultToMove)
			if err != nil {
				t.Fatal(err)
			}
			n, d := len(pos.LegalMoves()), pos.DistinctUpToSymmetry()
			// (the third: symmetric top to bottom once Y covers b1-b4 and
			// a2, with a3 blocked)
			if n != tt.wantCount || d != tt.wantDistinct {
				t.Errorf("%d moves, %d distinct; want %d, %d", n, d, tt.wantCount, tt.wantDistinct)
			}
			// The classes agree with the count, and each class's moves
			// have one value.
			classes := pos.SymmetryClasses()
			if len(classes) != d {
				t.Errorf("%d classes, %d distinct", len(classes), d)
			}
			sameValueInClass(t, pos, classes)
		})
	}
}

// The symmetries of a position are those of its empty cells wherever they
// lie: a square beside blocked cells has the square's 8, as on its own
// board (the same moves, the same classes, one value per class).
func TestSymmetryOfOffCentreRegion(t *testing.T) {
	column := func(w, h int, cols ...string) []string {
		var out []string
		for _, c := range cols {
			for y := 1; y <= h; y++ {
				out = append(out, fmt.Sprintf("%s%d", c, y))
			}
		}
		return out
	}
	for _, tt := range []struct {
		name    string
		cfg     Config
		alone   Config
		minimax bool
	}{
		{"4 x 4 tetrominoes beside a blocked column", Config{Width: 5, Height: 4, Order: 4, Pool: true, Blocked: column(5, 4, "a")},
			Config{Width: 4, Height: 4, Order: 4, Pool: true}, true},
		{"4 x 4 tetrominoes in a corner of 6 x 5", Config{Width: 6, Height: 5, Order: 4, Pool: true,
			Blocked: append(column(6, 5, "e", "f"), "a5", "b5", "c5", "d5")}, Config{Width: 4, Height: 4, Order: 4, Pool: true}, true},
		{"8 x 8 pentominoes beside a blocked column", Config{Width: 9, Height: 8, Order: 5, Pool: true, Blocked: column(9, 8, "i")},
			Config{Width: 8, Height: 8, Order: 5, Pool: true}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			pos, err := NewPosition(tt.cfg, nil, nil, DefaultToMove)
			if err != nil {
				t.Fatal(err)
			}
			alone, err := NewPosition(tt.alone, nil, nil, DefaultToMove)
			if err != nil {
				t.Fatal(err)
			}
			n, d := len(pos.LegalMoves()), pos.DistinctUpToSymmetry()
			if wn, wd := len(alone.LegalMoves()), alone.DistinctUpToSymmetry(); n != wn || d != wd {
				t.Fatalf("%d moves, %d distinct; on its own board %d, %d", n, d, wn, wd)
			}
			classes := pos.SymmetryClasses()
			if len(classes) != d {
				t.Fatalf("%d classes, %d distinct", len(classes), d)
			}
			if !tt.minimax {
				return
			}
			sameValueInClass(t, pos, classes)
		})
	}
}

// sameValueInClass checks, by the plain minimax, that the moves of each
// class have one value.
func sameValueInClass(t *testing.T, pos *Position, classes [][]Move) {
	t.Helper()
	for _, c := range classes {
		var want int
		for k, m := range c {
			next, err := pos.Play(m)
			if err != nil {
				t.Fatal(err)
			}
			v, ok := plainPosition(next, 1<<24)
			if !ok {
				t.Fatalf("%s: plain minimax over its limit", m)
			}
			if k == 0 {
				want = v
			} else if v != want {
				t.Errorf("%s: %d, but %s of its class: %d", m, v, c[0], want)
			}
		}
	}
}

// Concurrent first uses of a configuration build its game once and share
// it (they used to build it each, a hundred clients at once stalling the
// server for most of a second).
func TestNewGameBuildsOnce(t *testing.T) {
	// A configuration no other test compiles: a 16 x 16 hexomino board
	// with an unusual blocked cell.
	cfg := Config{Width: 16, Height: 16, Order: 6, Pool: true, Blocked: []string{"g11"}}
	const n = 8
	games := make([]*Game, n)
	var start, done sync.WaitGroup
	start.Add(1)
	for i := range n {
		done.Add(1)
		go func() {
			defer done.Done()
			start.Wait()
			g, err := NewGame(cfg)
			if err != nil {
				t.Error(err)
			}
			games[i] = g
		}()
	}
	start.Done()
	done.Wait()
	for i, g := range games {
		if g == nil || g != games[0] {
			t.Fatalf("use %d got game %p, the first %p: built more than once", i, g, games[0])
		}
	}
}

// A game reached from two presets keeps each preset's name (a review
// found tetrominoes overridden to pentominoes on 6 x 6 named pentominoes,
// the name of the first request's game).
func TestGameKeepsItsPresetName(t *testing.T) {
	penta, _ := Preset("pentominoes")
	penta.Width, penta.Height = 6, 6
	tetra, _ := Preset("tetrominoes")
	tetra.Width, tetra.Height, tetra.Order, tetra.Pieces = 6, 6, 5, nil
	for _, cfg := range []Config{penta, tetra} {
		g, err := NewGame(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if got := g.Config().Preset; got != cfg.Preset {
			t.Errorf("a %s game named %q", cfg.Preset, got)
		}
	}
}
