package service

import (
	"context"
	"testing"
	"time"

	"github.com/gamesolver/gamesolver/engine/polyomino"
)

// TestTablePoolPrefersTheGame: a search borrows an idle table that holds
// its game's positions when there is one, so that alternating games do not
// clear (64 MB, while holding a solver slot) and lose each other's tables.
func TestTablePoolPrefersTheGame(t *testing.T) {
	game := func(preset string) *polyomino.Position {
		cfg, err := polyomino.Preset(preset)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Width, cfg.Height = 5, 5
		pos, err := polyomino.NewPosition(cfg, nil, nil, polyomino.DefaultToMove)
		if err != nil {
			t.Fatal(err)
		}
		return pos
	}
	penta, tetra := game("pentominoes"), game("tetrominoes")
	var p tablePool
	a, b := p.get(penta.Game()), p.get(tetra.Game())
	for _, x := range []struct {
		t   *polyomino.Table
		pos *polyomino.Position
	}{{a, penta}, {b, tetra}} {
		if _, err := polyomino.Solve(context.Background(), x.pos, polyomino.Options{Table: x.t, Workers: 1}); err != nil {
			t.Fatal(err)
		}
	}
	p.put(a)
	p.put(b)
	for _, want := range []struct {
		name string
		pos  *polyomino.Position
		t    *polyomino.Table
	}{{"pentominoes", penta, a}, {"tetrominoes", tetra, b}} {
		got := p.get(want.pos.Game())
		if got != want.t || !got.Holds(want.pos.Game()) {
			t.Errorf("%s: lent another game's table", want.name)
		}
		p.put(got)
	}
	fresh := polyomino.NewTable(1)
	defer fresh.Release()
	p.put(fresh) // beyond maxIdleTables: released
	if got := p.get(nil); got == fresh {
		t.Error("a table beyond maxIdleTables was kept")
	}
}

// TestWarmTables: a process's tables are made, touched and kept in the
// background at its start (a cold table's first touch cost a request with
// a budget of 0.1 s 0.5 s).
func TestWarmTables(t *testing.T) {
	s := &Searcher{}
	s.WarmTables()
	deadline := time.Now().Add(30 * time.Second)
	for s.tables.idleTables() < maxIdleTables {
		if time.Now().After(deadline) {
			t.Fatalf("%d tables kept after 30 s, want %d", s.tables.idleTables(), maxIdleTables)
		}
		time.Sleep(10 * time.Millisecond)
	}
	for range maxIdleTables {
		if tt := s.tables.get(nil); !tt.Holds(nil) {
			t.Error("a warmed table holds a game")
		}
	}
}
