package service

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/gamesolver/gamesolver/engine/book"
	"github.com/gamesolver/gamesolver/engine/polyomino"
	"github.com/gamesolver/gamesolver/service/cache"
)

// Tests from a review of the book's lengths: a kept entry lends its
// lengths only, never its lists of moves (an entry cut to one best move
// made the answer claim best_complete with 1 of 373), and one search per
// position runs at a time.
func TestFromBookTakesOnlyLengths(t *testing.T) {
	if _, err := book.Embedded(); err != nil {
		t.Fatal(err)
	}
	c := cache.NewMemory(1<<24, time.Minute)
	s := &Searcher{Loader: cache.NewLoader(c, time.Minute), Slots: NewSlots(2, 4, time.Second, nil),
		Budgets: Budgets{Default: time.Minute, Max: time.Minute}, Workers: 1}
	p := NewPolyomino(s)
	position := func(line string) (*polyomino.Position, polyomino.Result) {
		pos, err := PolyominoQuery{Game: "pentominoes", Moves: strings.Fields(line)}.position()
		if err != nil {
			t.Fatal(err)
		}
		res, ok := bookResult(pos, true, true)
		if !ok {
			t.Fatalf("%s: not in the book", line)
		}
		return pos, res
	}
	ctx := context.Background()
	pos, res := position("L:c5,d5,e5,f5,c6 F:c1,d1,d2,e2,d3 P:f2,g2,f3,g3,h3")
	first := p.fromBook(ctx, pos, res, true, 4*time.Second)
	if first.Plies == nil {
		t.Skip("no length within the budget on this machine")
	}
	key := bookLengthKey(pos, true)
	raw, _, _ := c.Get(ctx, key)
	var kept PolyominoAnswer
	if err := json.Unmarshal(raw, &kept); err != nil {
		t.Fatal(err)
	}
	kept.BestMoves, kept.Moves = kept.BestMoves[:1], kept.Moves[:1]
	raw, _ = json.Marshal(kept)
	if err := c.Set(ctx, key, raw, time.Minute); err != nil {
		t.Fatal(err)
	}
	again := p.fromBook(ctx, pos, res, true, 4*time.Second)
	if len(again.BestMoves) != len(first.BestMoves) || len(again.Moves) != len(first.Moves) || again.BestComplete != first.BestComplete {
		t.Errorf("a cut entry: %d best moves of %d, %d moves of %d", len(again.BestMoves), len(first.BestMoves), len(again.Moves), len(first.Moves))
	}
	if again.Plies == nil || *again.Plies != *first.Plies {
		t.Errorf("plies %v, then %v", first.Plies, again.Plies)
	}
	// Another request searching the same position: this one answers at
	// once, without the length.
	other, ores := position("L:c5,d5,e5,f5,c6 F:d1,e1,e2,f2,e3 P:f6,g6,e7,f7,g7")
	p.bookLengths.Store(bookLengthKey(other, false), true)
	if a := p.fromBook(ctx, other, ores, false, 4*time.Second); a.SpentNs != 0 || a.Plies != nil {
		t.Errorf("a second search of one position: %v, plies %v", time.Duration(a.SpentNs), a.Plies)
	}
}
