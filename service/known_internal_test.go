package service

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/gamesolver/gamesolver/engine/polyomino"
	"github.com/gamesolver/gamesolver/service/cache"
	"github.com/gamesolver/gamesolver/service/redistest"
)

// childValueCases are cached answers as childValue meets them.
var childValueCases = []struct {
	name  string
	raw   string
	ok    bool
	value int
	plies int // -1: none
}{
	{"a win with plies", `{"outcome":"win","proven":true,"value":1,"plies":7,"config":{"width":8},"board":["..."],"best_moves":["I:a1,a2,a3,a4,a5"]}`, true, 1, 7},
	{"cut short after its value", `{"outcome":"win","proven":true,"value":1,"plies":7,"config":{"wid`, true, 1, 7},
	{"a loss, plies after its moves", `{"outcome":"loss","proven":true,"value":-1,"best_moves":["I:a1,a2,a3,a4,a5"],"plies":4}`, true, -1, -1},
	{"its value after its config (another version)", `{"config":{"width":8},"board":["..."],"outcome":"win","proven":true,"value":1}`, false, 0, -1},
	{"a score rule draw", `{"outcome":"draw","proven":true,"value":0,"moves":[]}`, true, 0, -1},
	{"a score rule win by 3", `{"outcome":"win","proven":true,"value":3}`, true, 3, -1},
	{"unproven", `{"outcome":"unknown","proven":false,"value":0,"best_moves":[]}`, false, 0, -1},
	{"a win of value -1", `{"outcome":"win","proven":true,"value":-1}`, false, 0, -1},
	{"negative plies", `{"outcome":"win","proven":true,"value":1,"plies":-3}`, false, 0, -1},
	{"proven as a string", `{"outcome":"win","proven":"true","value":1}`, false, 0, -1},
	{"cut short", `{"outcome":"win","proven":true,"val`, false, 0, -1},
	{"an array", `[1,2]`, false, 0, -1},
	{"null", `null`, false, 0, -1},
	{"empty", ``, false, 0, -1},
}

// TestChildValue: childValue reads what it needs of a cached answer, a
// proven value whose outcome fits, and refuses anything else; what this
// version writes (PolyominoAnswer, moves and all) reads back.
func TestChildValue(t *testing.T) {
	for _, tc := range childValueCases {
		v, ok := childValue([]byte(tc.raw))
		plies := -1
		if v.Plies != nil {
			plies = *v.Plies
		}
		if ok != tc.ok || ok && (v.Value != tc.value || plies != tc.plies) {
			t.Errorf("%s: %+v (plies %d), %v", tc.name, v, plies, ok)
		}
	}
	n := 9
	raw, _ := json.Marshal(PolyominoAnswer{Outcome: "loss", Proven: true, Value: -1, Plies: &n, BestMoves: []string{"L:a1,a2,a3,a4,b4"},
		Moves: []PolyominoMove{{Move: "L:a1,a2,a3,a4,b4", Outcome: "loss", Proven: true, Value: -1}}})
	if v, ok := childValue(raw); !ok || v.Value != -1 || v.Plies == nil || *v.Plies != 9 {
		t.Errorf("an answer this version wrote: %+v, %v", v, ok)
	}
}

// FuzzChildValue: any bytes in the cache read as a fitting value or not
// at all, without a panic.
func FuzzChildValue(f *testing.F) {
	for _, tc := range childValueCases {
		f.Add([]byte(tc.raw))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if v, ok := childValue(raw); ok && !v.fits() {
			t.Fatalf("%q: %+v does not fit", raw, v)
		}
	})
}

// knownChildrenPosition is the known children benchmarks' position: 8 x 8
// Pentominoes, one L placed.
func knownChildrenPosition(b *testing.B) *polyomino.Position {
	cfg, _ := polyomino.Preset("pentominoes")
	g, err := polyomino.NewGame(cfg)
	if err != nil {
		b.Fatal(err)
	}
	pos, err := g.NewPosition(nil, []string{"L:c4,d4,e4,f4,c5"}, polyomino.DefaultToMove)
	if err != nil {
		b.Fatal(err)
	}
	return pos
}

// BenchmarkKnownChildren: the look-up of a position's children in the
// cache (8 x 8 Pentominoes, one piece placed: 1,405 children, two keys
// each), the position marked (as a job's planning marks it), the cache
// holding none of them and every one (a lost child's answer lists every
// move: tens of kilobytes each, its first bytes read).
func BenchmarkKnownChildren(b *testing.B) {
	pos := knownChildrenPosition(b)
	b.Run("unmarked", func(b *testing.B) { // what every other search pays
		s := &Searcher{Loader: cache.NewLoader(cache.NewMemory(1<<30, time.Hour), time.Hour)}
		for range b.N {
			if cv := s.knownChildren(context.Background(), pos, time.Hour); cv != nil {
				b.Fatal("an unmarked position looked up")
			}
		}
	})
	for _, full := range []bool{false, true} {
		name := "empty"
		if full {
			name = "full"
		}
		b.Run(name, func(b *testing.B) {
			s := &Searcher{Loader: cache.NewLoader(cache.NewMemory(1<<30, time.Hour), time.Hour)}
			s.markChildren(context.Background(), pos) // as a job does
			if full {
				for _, c := range pos.Children() {
					moves := make([]string, c.Position.LegalMoveCount())
					for i := range moves {
						moves[i] = "L:a1,a2,a3,a4,b4"
					}
					plies := 7
					raw, _ := json.Marshal(PolyominoAnswer{Outcome: "loss", Proven: true, Value: -1, Plies: &plies, BestMoves: moves, BestComplete: true})
					_ = s.Loader.Cache().Set(context.Background(), analyzeKey(c.Position, false), raw, 0)
				}
			}
			b.ResetTimer()
			for range b.N {
				cv := s.knownChildren(context.Background(), pos, time.Hour)
				if full != (cv != nil && cv.found == len(cv.values)) {
					b.Fatalf("found %v", cv)
				}
			}
		})
	}
}

// BenchmarkChildValue: a lost child's cached answer (1,000 best moves)
// read by childValue, which stops after its value, against decoding it
// whole as Combine reads its units' (the baseline).
func BenchmarkChildValue(b *testing.B) {
	moves := make([]string, 1000)
	for i := range moves {
		moves[i] = "L:a1,a2,a3,a4,b4"
	}
	plies := 7
	raw, _ := json.Marshal(PolyominoAnswer{Outcome: "loss", Proven: true, Value: -1, Plies: &plies, BestMoves: moves, BestComplete: true})
	b.Run("childValue", func(b *testing.B) {
		for range b.N {
			if _, ok := childValue(raw); !ok {
				b.Fatal("refused")
			}
		}
	})
	b.Run("whole", func(b *testing.B) {
		for range b.N {
			var v unitValue
			if err := json.Unmarshal(raw, &v); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestLendPliesOrder: moves given their children's plies are listed in
// perfect play's order, the slowest loss first, even when no length
// search follows (a review found an answer whose length search ran out
// listing its lent plies in the search's order).
func TestLendPliesOrder(t *testing.T) {
	m1, _ := polyomino.ParseMove("I:a1,a2,a3,a4,a5")
	m2, _ := polyomino.ParseMove("I:b1,b2,b3,b4,b5")
	res := polyomino.Result{Outcome: polyomino.Loss, Proven: true, Value: -1, Moves: []polyomino.MoveResult{
		{Move: m1, Outcome: polyomino.Loss, Proven: true, Value: -1}, {Move: m2, Outcome: polyomino.Loss, Proven: true, Value: -1}}}
	a := answerOf(res, func(m polyomino.Move) polyomino.Move { return m })
	one, three := 1, 3
	cv := &childValues{byMove: map[string]int{m1.String(): 0, m2.String(): 1},
		values: []unitValue{{Outcome: "win", Proven: true, Value: 1, Plies: &one}, {Outcome: "win", Proven: true, Value: 1, Plies: &three}}, found: 2}
	cv.lendPlies(&a, res)
	if a.Moves[0].Move != m2.String() || a.Moves[0].Plies == nil || *a.Moves[0].Plies != 3 || a.Moves[1].Plies == nil || *a.Moves[1].Plies != 1 {
		t.Errorf("moves %+v: want %s (3 plies) first", a.Moves, m2)
	}
}

// BenchmarkKnownChildrenRedis: the look-up of an unmarked position, as
// BenchmarkKnownChildren/unmarked, through a private redis-server on
// loopback (skipped without one, like the integration tests).
func BenchmarkKnownChildrenRedis(b *testing.B) {
	pos := knownChildrenPosition(b)
	srv := redistest.Start(b)
	r, err := cache.NewRedis(cache.RedisOptions{URL: srv.URL(), Timeout: time.Second})
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	s := &Searcher{Loader: cache.NewLoader(r, time.Hour)}
	b.ResetTimer()
	for range b.N {
		if cv := s.knownChildren(context.Background(), pos, time.Hour); cv != nil {
			b.Fatal("an unmarked position looked up")
		}
	}
}
