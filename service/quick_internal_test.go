package service

import (
	"context"
	"testing"
	"time"

	"github.com/gamesolver/gamesolver/service/cache"
)

// TestQuickWithoutSlot: while a long search holds the only solver slot,
// positions with (nearly) nothing to search are answered at once, proven,
// without waiting for it (they waited for the queue's 2 s, then were
// refused 503); a position that needs a real search still waits, and is
// refused when the slot does not free.
func TestQuickWithoutSlot(t *testing.T) {
	s := slotTaken(t)
	p := NewPolyomino(s)
	ctx := context.Background()
	for _, q := range []PolyominoQuery{
		{Game: "pentominoes", Width: ptr(3), Height: ptr(3)},
		{Game: "tetrominoes", Width: ptr(4), Height: ptr(4)},
		{Game: "pentominoes", Width: ptr(5), Height: ptr(5), AllMoves: true},
		{Game: "pentominoes", Width: ptr(5), Height: ptr(4), EndRule: "score", Pool: ptr(false)},
		{Game: "pentominoes", Board: []string{"#####", "#...#", "#####"}},
	} {
		start := time.Now()
		a, err := p.Analyze(ctx, q)
		if err != nil || !a.Proven || time.Since(start) > 2*time.Second {
			t.Errorf("%+v: proven %t after %v, %v", q, a.Proven, time.Since(start), err)
		}
		if q.EndRule == "" && a.Plies == nil {
			t.Errorf("%+v: no plies", q)
		}
	}
	// The empty 8 x 8 board with a blocked cell: beyond a quick try.
	if _, err := p.Analyze(ctx, PolyominoQuery{Game: "pentominoes", Blocked: &[]string{"g5"}, BudgetMs: 1000}); KindOf(err) != KindBusy {
		t.Errorf("a real search with the slot held: %v, want KindBusy", err)
	}
}

func ptr[T any](v T) *T { return &v }

// slotTaken is a searcher of one solver slot, held until the test ends
// (a search waits 300 ms for it, then is refused), whose quick tries are
// bounded by their nodes only.
func slotTaken(t *testing.T) *Searcher {
	t.Helper()
	s := &Searcher{Loader: cache.NewLoader(cache.NewMemory(1<<24, time.Hour), time.Hour), Slots: NewSlots(1, 4, 300*time.Millisecond, nil),
		Budgets: Budgets{Default: 2 * time.Second, Max: 10 * time.Second}, Workers: 1, MinCacheTime: 20 * time.Millisecond,
		QuickTime: 2 * time.Second} // no timing in the test: the try's nodes bound it
	release, ok := s.Slots.TryAcquire()
	if !ok {
		t.Fatal("no slot")
	}
	t.Cleanup(release)
	return s
}

// TestQuickServes: a quick try's answer serves only with the position's
// plies and every move's (under normal play); under the score rule there
// are none to wait for.
func TestQuickServes(t *testing.T) {
	q := PolyominoQuery{Game: "pentominoes", Width: ptr(5), Height: ptr(5), AllMoves: true}
	pos, err := q.position()
	if err != nil {
		t.Fatal(err)
	}
	full := PolyominoAnswer{Plies: ptr(5), Moves: []PolyominoMove{{Move: "a", Plies: ptr(4)}, {Move: "b", Plies: ptr(3)}}}
	if !quickServes(full, pos) {
		t.Error("every plies known: refused")
	}
	moveLacks := full
	moveLacks.Moves = []PolyominoMove{{Move: "a", Plies: ptr(4)}, {Move: "b"}}
	if quickServes(moveLacks, pos) {
		t.Error("a move without plies: served")
	}
	positionLacks := full
	positionLacks.Plies = nil
	if quickServes(positionLacks, pos) {
		t.Error("the position without plies: served")
	}
	q.EndRule, q.Pool = "score", ptr(false)
	score, err := q.position()
	if err != nil {
		t.Fatal(err)
	}
	if !quickServes(PolyominoAnswer{}, score) {
		t.Error("the score rule: refused")
	}
}

// TestQuickTilingWithoutSlot: a small tilings puzzle is counted without
// the solver slot, which a long count holds (an audit's 5 x 1 strip
// waited 2 s behind one and got 503); a real count still waits for it.
func TestQuickTilingWithoutSlot(t *testing.T) {
	ts := NewTilings(slotTaken(t))
	ctx := context.Background()
	names := func(s string) *PieceNames { n := PieceNames(s); return &n }
	for _, q := range []TilingQuery{
		{Width: 5, Height: 1, Pieces: names("I")},
		{Width: 5, Height: 4, Pieces: names("ILT"), Order: 4, AllowLeftover: true, Limit: 10},
		{Board: []string{"#......", "......#", ".......", "......."}, Pieces: names("ILNPU"), AllowLeftover: true, Limit: 1000},
	} {
		a, err := ts.Solve(ctx, q)
		if err != nil || !a.Result.Complete || a.Result.CountAll == 0 {
			t.Errorf("%+v: %v, complete %v, %d tilings", q, err, a.Result.Complete, a.Result.CountAll)
		}
	}
	// The 6 x 10 rectangle: beyond a quick try.
	if _, err := ts.Solve(ctx, TilingQuery{Width: 10, Height: 6, BudgetMs: 1000}); KindOf(err) != KindBusy {
		t.Errorf("a real count with the slot held: %v, want KindBusy", err)
	}
}
