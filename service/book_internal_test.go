package service

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gamesolver/gamesolver/engine/book"
	"github.com/gamesolver/gamesolver/engine/polyomino"
	"github.com/gamesolver/gamesolver/service/cache"
)

// bookPolyomino is a Polyomino with a budget of a minute and its memory
// cache, the embedded book loaded.
func bookPolyomino(t *testing.T) (*Polyomino, cache.Cache) {
	t.Helper()
	if _, err := book.Embedded(); err != nil {
		t.Fatal(err)
	}
	c := cache.NewMemory(1<<24, time.Minute)
	s := &Searcher{Loader: cache.NewLoader(c, time.Minute), Slots: NewSlots(2, 4, time.Second, nil),
		Budgets: Budgets{Default: time.Minute, Max: time.Minute}, Workers: 1}
	return NewPolyomino(s), c
}

// Tests from a review of the book's lengths: a kept entry lends its
// lengths only, never its lists of moves (an entry cut to one best move
// made the answer claim best_complete with 1 of 373), and one search per
// position runs at a time.
func TestFromBookTakesOnlyLengths(t *testing.T) {
	p, c := bookPolyomino(t)
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
	// A search that finds the plies an entry has keeps the moves' plies
	// the entry knows and it did not find (a job's, say): the entry with
	// all_moves (every move's plies) as the entry without, marked as never
	// searched, is searched again without all_moves, which finds the
	// position's plies and a fastest move, not every move's plies.
	raw, _, _ = c.Get(ctx, key)
	kept = PolyominoAnswer{}
	if err := json.Unmarshal(raw, &kept); err != nil {
		t.Fatal(err)
	}
	withPlies := func(a PolyominoAnswer) (n int) {
		for _, m := range a.Moves {
			if m.Proven && m.Plies != nil {
				n++
			}
		}
		return n
	}
	kept.LengthTriedNs, kept.PerfectFirst = 0, false
	raw, _ = json.Marshal(kept)
	one := bookLengthKey(pos, false)
	if err := c.Set(ctx, one, raw, time.Minute); err != nil {
		t.Fatal(err)
	}
	if a := p.fromBook(ctx, pos, res, false, 4*time.Second); a.SpentNs == 0 || a.Plies == nil || *a.Plies != *first.Plies {
		t.Fatalf("searched again: %v, plies %v (first %d)", time.Duration(a.SpentNs), a.Plies, *first.Plies)
	}
	raw, _, _ = c.Get(ctx, one)
	var merged PolyominoAnswer
	if err := json.Unmarshal(raw, &merged); err != nil {
		t.Fatal(err)
	}
	// (It may know more: on a busy machine the first search found the
	// plies of 17 moves of 112 in its budget, and this one found the rest.)
	plies := map[string]int{}
	for _, m := range merged.Moves {
		if m.Proven && m.Plies != nil {
			plies[m.Move] = *m.Plies
		}
	}
	for _, m := range kept.Moves {
		if n, ok := plies[m.Move]; m.Proven && m.Plies != nil && (!ok || n != *m.Plies) {
			t.Errorf("the entry after a search of the same plies: move %s has plies %d (%v), it had %d (%d moves with plies, it had %d)", m.Move, n, ok, *m.Plies, withPlies(merged), withPlies(kept))
		}
	}

	// Another request searching the same position: this one answers at
	// once, without the length.
	other, ores := position("L:c5,d5,e5,f5,c6 F:d1,e1,e2,f2,e3 P:f6,g6,e7,f7,g7")
	p.bookLengths.Store(bookLengthKey(other, false), true)
	if a := p.fromBook(ctx, other, ores, false, 4*time.Second); a.SpentNs != 0 || a.Plies != nil {
		t.Errorf("a second search of one position: %v, plies %v", time.Duration(a.SpentNs), a.Plies)
	}
}

// TestBookAnswerLedByFastestWin: two plies into the winning opening
// L:b3,c3,d3,e3,b4, after F:f1,g1,g2,h2,g3, the book's reply (of its
// reply file, replies-55.txt) is not a fastest win; the length
// search's fastest win leads the answer's best moves (the book's reply
// after it), with perfect_first, and with all_moves its row says it wins
// in plies - 1; the book's lists keep their moves.
func TestBookAnswerLedByFastestWin(t *testing.T) {
	if _, err := book.Embedded(); err != nil {
		t.Fatal(err)
	}
	pos, err := PolyominoQuery{Game: "pentominoes", Moves: strings.Fields("L:b3,c3,d3,e3,b4 F:f1,g1,g2,h2,g3")}.position()
	if err != nil {
		t.Fatal(err)
	}
	l := polyomino.Length(context.Background(), pos, polyomino.Win, polyomino.LengthOptions{})
	if !l.Proven || l.Fastest == nil {
		t.Fatalf("length %+v", l)
	}
	fastest := l.Fastest.String()
	for _, all := range []bool{false, true} {
		res, ok := bookResult(pos, all, true)
		if !ok {
			t.Fatal("not in the book")
		}
		reply := res.BestMoves[0].String()
		if reply == fastest {
			t.Fatalf("the book's reply %s is a fastest win: the test needs another position", reply)
		}
		found := answerOf(res, pos.Frame().ToCanonical)
		found.Plies = &l.Plies
		withFastest(&found, pos.Frame().ToCanonical(*l.Fastest).String())
		book := bookAnswerOf(res, pos)
		a := withBookLength(bookAnswerOf(res, pos), found, pos)
		if !a.PerfectFirst || a.Plies == nil || *a.Plies != l.Plies || len(a.BestMoves) != len(res.BestMoves)+1 || a.BestMoves[0] != fastest || a.BestMoves[1] != reply {
			t.Fatalf("all_moves %v: perfect first %v, plies %v, best %v; want %s then %s", all, a.PerfectFirst, a.Plies, a.BestMoves, fastest, reply)
		}
		if len(a.Moves) != len(book.Moves) {
			t.Fatalf("all_moves %v: %d moves, the book's %d", all, len(a.Moves), len(book.Moves))
		}
		if all {
			m := a.Moves[0]
			if m.Move != fastest || !m.Proven || m.Outcome != "win" || m.Plies == nil || *m.Plies != l.Plies-1 {
				t.Fatalf("moves[0] %+v, want %s winning in %d", m, fastest, l.Plies-1)
			}
		}
	}
}

// TestWithMovePlies: the book's length takes the moves' plies a cached
// answer of the same length knows, never those of another length, and
// keeps its own.
func TestWithMovePlies(t *testing.T) {
	n := func(v int) *int { return &v }
	a := func(plies int, moves ...PolyominoMove) PolyominoAnswer {
		return PolyominoAnswer{Plies: n(plies), Moves: moves}
	}
	known := a(7, PolyominoMove{Move: "A", Outcome: "win", Proven: true, Plies: n(6)}, PolyominoMove{Move: "B", Outcome: "win", Proven: true},
		PolyominoMove{Move: "C", Outcome: "loss", Proven: true}, PolyominoMove{Move: "D", Outcome: "unknown"})
	kept := a(7, PolyominoMove{Move: "A", Outcome: "win", Proven: true, Plies: n(4)}, PolyominoMove{Move: "B", Outcome: "win", Proven: true, Plies: n(8)},
		PolyominoMove{Move: "C", Outcome: "win", Proven: true, Plies: n(2)}, PolyominoMove{Move: "D", Outcome: "unknown", Plies: n(2)})
	clone := func(x PolyominoAnswer) PolyominoAnswer {
		x.Moves = slices.Clone(x.Moves)
		return x
	}
	got := withMovePlies(clone(known), kept)
	want := []*int{n(6), n(8), nil, nil} // A its own, B the kept one's, C of another outcome, D unproven
	for i, m := range got.Moves {
		if (m.Plies == nil) != (want[i] == nil) || m.Plies != nil && *m.Plies != *want[i] {
			t.Errorf("%s: plies %v, want %v", m.Move, m.Plies, want[i])
		}
	}
	other := kept
	other.Plies = n(9)
	if got := withMovePlies(clone(known), other); got.Moves[1].Plies != nil {
		t.Errorf("B took plies from an answer of another length")
	}
}

// TestFromBookAddsCachedMovePlies: two plies into the certificate with
// all_moves, the book's lengths answer at once, with the plies of moves a
// cached answer of the same length knows (a search before the lengths
// file, say) and the book does not: after F:d1,e1,e2,f2,e3 the
// certificate's reply P:f6,g6,e7,f7,g7 is a proven win, but not the
// lengths file's fastest one.
func TestFromBookAddsCachedMovePlies(t *testing.T) {
	p, c := bookPolyomino(t)
	ctx := context.Background()
	pos, err := PolyominoQuery{Game: "pentominoes", Moves: strings.Fields("L:c5,d5,e5,f5,c6 F:d1,e1,e2,f2,e3")}.position()
	if err != nil {
		t.Fatal(err)
	}
	res, ok := bookResult(pos, true, true)
	if !ok {
		t.Fatal("not in the book")
	}
	known, ok := bookLength(pos, res)
	if !ok || !known.PerfectFirst {
		t.Fatalf("the lengths file does not know %v", pos)
	}
	count := func(a PolyominoAnswer) int {
		n := 0
		for _, m := range a.Moves {
			if m.Plies != nil {
				n++
			}
		}
		return n
	}
	before := p.fromBook(ctx, pos, res, true, 20*time.Second)
	if before.Plies == nil || *before.Plies != *known.Plies || before.SpentNs != 0 || count(before) != count(known) {
		t.Fatalf("plies %v, %d moves with plies, %v searched; want %d, %d", before.Plies, count(before), time.Duration(before.SpentNs), *known.Plies, count(known))
	}
	kept := known
	kept.Moves = slices.Clone(known.Moves)
	i := slices.IndexFunc(kept.Moves, func(m PolyominoMove) bool { return m.Proven && m.Plies == nil })
	if i < 0 {
		t.Fatal("every move has its plies")
	}
	n := 8
	kept.Moves[i].Plies = &n
	raw, _ := json.Marshal(kept)
	if err := c.Set(ctx, bookLengthKey(pos, true), raw, time.Minute); err != nil {
		t.Fatal(err)
	}
	after := p.fromBook(ctx, pos, res, true, 20*time.Second)
	if count(after) != count(known)+1 || after.SpentNs != 0 {
		t.Fatalf("%d moves with plies, %v searched; want %d", count(after), time.Duration(after.SpentNs), count(known)+1)
	}
}

// TestJobCombineTakesBookLengths: a polyomino.analyze job with all_moves
// two plies into a book opening (its units' length searches are short)
// ends with what the book's lengths file knows: the position's plies, a
// perfect first move, the moves' plies it knows; a move's plies its unit
// found are kept. The units' values are made up from the file (the
// perfect moves win, every other move loses): what is tested is how the
// file's lengths join the units' answers.
func TestJobCombineTakesBookLengths(t *testing.T) {
	bookPolyomino(t) // loads the book
	q := PolyominoQuery{Moves: []string{"L:c4,d4,e4,f4,c5", "I:a1,a2,a3,a4,a5"}, AllMoves: true}
	request, _ := json.Marshal(q)
	pos, err := q.position()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := bookResult(pos, false, true); !ok {
		t.Fatal("the book does not know the position")
	}
	b, _ := book.EmbeddedLoaded()
	l, ok := b.LengthOf(pos)
	if !ok || len(l.Perfect) == 0 {
		t.Fatalf("the book's lengths files know no perfect move of the position: %+v", l)
	}
	perfect := map[string]bool{}
	for _, m := range l.Perfect {
		perfect[m.String()] = true
	}
	children := pos.Children()
	results := map[int]json.RawMessage{}
	ownMove, own := "", 3 // a losing move whose unit found its plies
	for i, c := range children {
		a := PolyominoAnswer{Proven: true, Outcome: "win", Value: 1}
		m := c.Moves[0].String()
		switch {
		case perfect[m]:
			a.Outcome, a.Value = "loss", -1
		case ownMove == "" && l.After[m] == 0:
			ownMove, a.Plies = m, &own
		}
		results[i], _ = json.Marshal(a)
	}
	raw, done, err := PolyominoAnalyzeJob{}.Combine(context.Background(), request, len(children), results)
	if err != nil || !done {
		t.Fatalf("combine: %v, done %v", err, done)
	}
	var a PolyominoAnswer
	if err := json.Unmarshal(raw, &a); err != nil {
		t.Fatal(err)
	}
	if a.Outcome != "win" || a.Plies == nil || *a.Plies != l.Plies || !a.PerfectFirst || !perfect[a.BestMoves[0]] {
		t.Fatalf("outcome %s, plies %v (the file: %d), perfect first %v, best %v", a.Outcome, a.Plies, l.Plies, a.PerfectFirst, a.BestMoves[:min(3, len(a.BestMoves))])
	}
	if !perfect[a.Moves[0].Move] || a.Moves[0].Plies == nil || *a.Moves[0].Plies != l.Plies-1 {
		t.Errorf("first move %+v, want a perfect one lasting %d plies after it", a.Moves[0], l.Plies-1)
	}
	found := 0
	for _, m := range a.Moves {
		switch n, ok := l.After[m.Move]; {
		case m.Move == ownMove:
			if m.Plies == nil || *m.Plies != own {
				t.Errorf("move %s: plies %v, want its unit's %d", m.Move, m.Plies, own)
			}
		case ok:
			if m.Plies == nil || *m.Plies != n {
				t.Errorf("move %s: plies %v, want the file's %d", m.Move, m.Plies, n)
			}
			found++
		case m.Plies != nil:
			t.Errorf("move %s: plies %d, known to neither the file nor its unit", m.Move, *m.Plies)
		}
	}
	if found == 0 {
		t.Error("no move's plies from the file")
	}
}

// TestBookAllMovesSearched: with all_moves, a book position's moves the
// book does not value are searched within half the budget (a review found
// 1 of 640 moves valued in 3 ms at a 30 s budget); their values are the
// engine's own, the winning ones join the best moves, and once every move
// has its value the cache answers the next request. A budget under
// bookMovesMin keeps the book's answer as it is, as does a search of the
// same position under way; a partial search is kept with how long it
// tried; lengths found for fewer moves do not stop the length search of
// the moves valued since (the second review's findings).
func TestBookAllMovesSearched(t *testing.T) {
	p, c := bookPolyomino(t)
	ctx := context.Background()
	line := []string{"L:c4,d4,e4,f4,c5", "I:c8,d8,e8,f8,g8", "X:b1,a2,b2,c2,b3"} // won: the long L refuted
	ask := func(budget time.Duration) PolyominoAnswer {
		t.Helper()
		a, err := p.Analyze(ctx, PolyominoQuery{Game: "pentominoes", Moves: line, AllMoves: true, BudgetMs: budget.Milliseconds()})
		if err != nil {
			t.Fatal(err)
		}
		if a.Source != SourceBook || !a.Proven || a.Outcome != string(polyomino.Win) {
			t.Fatalf("source %s, proven %v, outcome %s; want the book's win", a.Source, a.Proven, a.Outcome)
		}
		return a
	}
	valued := func(a PolyominoAnswer) (n int) {
		for _, m := range a.Moves {
			if m.Proven {
				n++
			}
		}
		return n
	}
	withPlies := func(a PolyominoAnswer) (n int) {
		for _, m := range a.Moves {
			if m.Plies != nil {
				n++
			}
		}
		return n
	}
	// Moves in Solve's order (wins, unknown, losses), searched or not.
	inOrder := func(a PolyominoAnswer) {
		t.Helper()
		tier := func(m PolyominoMove) int { return polyomino.MoveRank(m.Proven, m.Value) }
		for i := 1; i < len(a.Moves); i++ {
			if tier(a.Moves[i]) < tier(a.Moves[i-1]) {
				t.Fatalf("moves[%d] %+v after %+v", i, a.Moves[i], a.Moves[i-1])
			}
		}
	}
	short := ask(bookMovesMin - 100*time.Millisecond)
	inOrder(short)
	// Another request searching the position: this one does not.
	p.bookMovesBusy.Store(bookMovesKey(mustPosition(t, line)), true)
	if busy := ask(2 * time.Second); valued(busy) != valued(short) {
		t.Errorf("while another request searches: %d moves valued, want %d", valued(busy), valued(short))
	}
	p.bookMovesBusy.Delete(bookMovesKey(mustPosition(t, line)))
	// A partial search is kept, with how long it tried; a shorter request
	// takes its values without a search.
	mid := ask(2 * time.Second)
	inOrder(mid)
	tried := func(a PolyominoAnswer) time.Duration { return time.Duration(a.BestTriedNs) }
	if !mid.BestComplete {
		raw, ok, _ := c.Get(ctx, bookMovesKey(mustPosition(t, line)))
		var kept PolyominoAnswer
		if !ok || json.Unmarshal(raw, &kept) != nil || tried(kept) < 900*time.Millisecond || tried(kept) > time.Second || provenMoves(kept.Moves) != valued(mid) {
			t.Errorf("the cache's entry after a partial search: %v, tried %v, %d moves valued; want half of what the 2 s budget left, %d", ok, tried(kept), provenMoves(kept.Moves), valued(mid))
		}
		if again := ask(bookMovesMin); valued(again) != valued(mid) {
			t.Errorf("a short request after a partial search: %d moves valued, want the cache's %d", valued(again), valued(mid))
		}
		// The same request again searches on (a README walkthrough found
		// it answered from the cache unchanged: its budget had a little
		// less left when it came to search).
		if again := ask(2 * time.Second); valued(again) <= valued(mid) {
			t.Errorf("the 2 s request again: %d moves valued, the first %d", valued(again), valued(mid))
		}
	}
	// Under the race detector the searches are several times slower: 8 s
	// valued about 180 of 640 moves and found no move's plies, 40 s did.
	longBudget := 8 * time.Second
	if raceEnabled {
		longBudget = 40 * time.Second
	}
	long := ask(longBudget)
	// The same request again searches on from what the last one kept:
	// a machine under load (a full parallel test run) asks a few times
	// rather than failing (8 s once valued 362 moves and found no plies).
	for try := 1; try < 5 && (valued(long) <= valued(short) || withPlies(long) <= withPlies(mid)); try++ {
		long = ask(longBudget)
	}
	inOrder(long)
	if valued(long) <= valued(short) || short.BestComplete {
		t.Fatalf("moves valued: %d at %v, %d at %v (best_complete %v at first)", valued(short), bookMovesMin-100*time.Millisecond, valued(long), longBudget, short.BestComplete)
	}
	// The lengths found before, for fewer moves, do not stop a search
	// of the moves valued since (a review found 640 valued, 4 with plies).
	if withPlies(long) <= withPlies(mid) {
		t.Errorf("moves with plies: %d of %d valued at 2 s, %d of %d at %v", withPlies(mid), valued(mid), withPlies(long), valued(long), longBudget)
	}
	pos := mustPosition(t, line)
	wins, losses := 0, 0
	for _, m := range long.Moves {
		if !m.Proven {
			continue
		}
		if m.Value > 0 {
			wins++
			if !slices.Contains(long.BestMoves, m.Move) {
				t.Errorf("winning move %s not among the best moves", m.Move)
			}
		} else {
			losses++
		}
		if (m.Value > 0 && wins > 3) || (m.Value < 0 && losses > 3) {
			continue
		}
		// Checked by a search of its own: the child is lost for its
		// mover exactly when the move wins.
		mv, err := polyomino.ParseMove(m.Move)
		if err != nil {
			t.Fatal(err)
		}
		child, err := pos.Play(mv)
		if err != nil {
			t.Fatal(err)
		}
		r, err := polyomino.Solve(ctx, child, polyomino.Options{FirstWin: true, Workers: 1, TableMB: 16})
		if err != nil || !r.Proven || (r.Value > 0) != (m.Value < 0) {
			t.Errorf("%s: valued %d, its child solved %+v (%v)", m.Move, m.Value, r.Outcome, err)
		}
	}
	if wins < 2 || losses == 0 {
		t.Errorf("%d winning and %d losing moves valued: the search added none of a kind", wins, losses)
	}
	if !long.BestComplete {
		t.Logf("%d of %d moves valued at %v: the cache's part is not tested", valued(long), len(long.Moves), longBudget)
		return
	}
	if again := ask(bookMovesMin - 100*time.Millisecond); valued(again) != len(again.Moves) || !again.BestComplete || len(again.BestMoves) != len(long.BestMoves) {
		t.Errorf("after every move was valued, a short request: %d of %d, best_complete %v, %d best moves (want %d)", valued(again), len(again.Moves), again.BestComplete, len(again.BestMoves), len(long.BestMoves))
	}
}

// mustPosition is the Pentominoes position after moves.
func mustPosition(t *testing.T, moves []string) *polyomino.Position {
	t.Helper()
	pos, err := PolyominoQuery{Game: "pentominoes", Moves: moves}.position()
	if err != nil {
		t.Fatal(err)
	}
	return pos
}

// TestBookMovesJob: a polyomino.analyze job with all_moves on a book
// position whose moves the book does not all value runs a unit per move;
// its finished answer puts every move's value in the cache, so that a
// request needs no search, and a unit of a later job reads its move's
// value there instead of searching the child.
func TestBookMovesJob(t *testing.T) {
	p, c := bookPolyomino(t)
	ctx := context.Background()
	line := []string{"L:c4,d4,e4,f4,c5", "I:c8,d8,e8,f8,g8", "X:b1,a2,b2,c2,b3"} // won: the long L refuted
	request, _ := json.Marshal(PolyominoQuery{Game: "pentominoes", Moves: line, AllMoves: true})
	p.search.MinLengthTime = time.Millisecond // the units' plies are not this test's
	// A unit's time is not this test's either: a minute, so that a unit
	// searched on a loaded machine (under the race detector, at load 19:
	// 2 s was too short) still proves its child.
	job := PolyominoAnalyzeJob{Search: p.search, MaxDuration: time.Minute, Workers: 1}
	units, err := job.Plan(ctx, request)
	if err != nil {
		t.Fatal(err)
	}
	pos := mustPosition(t, line)
	if len(units) != len(pos.Children()) {
		t.Fatalf("%d units for %d classes of moves", len(units), len(pos.Children()))
	}
	results := map[int]json.RawMessage{}
	var searched []int // units whose child the book does not know
	for i, u := range units {
		raw, err := job.Run(ctx, request, u, func(int64) {})
		if err != nil {
			t.Fatalf("unit %d: %v", i, err)
		}
		results[i] = raw
		var a PolyominoAnswer
		if err := json.Unmarshal(raw, &a); err != nil || !a.Proven {
			t.Fatalf("unit %d: %s (%v)", i, raw, err)
		}
		if a.Source != SourceBook {
			searched = append(searched, i)
		}
	}
	if len(searched) == 0 {
		t.Fatal("every child known to the book: the test needs a position the book values in part")
	}
	if _, ok, _ := c.Get(ctx, bookMovesKey(pos)); ok {
		t.Fatal("the move values cached before the job ended")
	}
	raw, done, err := job.Combine(ctx, request, len(units), results)
	if err != nil || !done {
		t.Fatalf("combine: %v, done %v", err, done)
	}
	var whole PolyominoAnswer
	if err := json.Unmarshal(raw, &whole); err != nil || !whole.BestComplete || provenMoves(whole.Moves) != len(whole.Moves) {
		t.Fatalf("the job's answer: best_complete %v, %d of %d moves valued (%v)", whole.BestComplete, provenMoves(whole.Moves), len(whole.Moves), err)
	}
	// A request too short to search takes every value from the cache.
	a, err := p.Analyze(ctx, PolyominoQuery{Game: "pentominoes", Moves: line, AllMoves: true, BudgetMs: (bookMovesMin - 100*time.Millisecond).Milliseconds()})
	if err != nil {
		t.Fatal(err)
	}
	if a.Source != SourceBook || !a.BestComplete || provenMoves(a.Moves) != len(whole.Moves) || len(a.BestMoves) != len(whole.BestMoves) {
		t.Fatalf("a request after the job: source %s, best_complete %v, %d of %d moves valued, %d best moves (the job's %d)",
			a.Source, a.BestComplete, provenMoves(a.Moves), len(whole.Moves), len(a.BestMoves), len(whole.BestMoves))
	}
	value := map[string]int{}
	for _, m := range whole.Moves {
		value[m.Move] = m.Value
	}
	for _, m := range a.Moves {
		if v, ok := value[m.Move]; !ok || v != m.Value {
			t.Errorf("move %s: the request's value %d, the job's %d (%v)", m.Move, m.Value, v, ok)
		}
	}
	// A later job's units read the values: no proof (the child's answer,
	// which a proof caches, is not made), the same answers (on a server
	// whose cache holds the values alone, not the children); only the
	// child's plies are looked for (TestKeptBookMoveUnitHasPlies).
	p2, c2 := bookPolyomino(t)
	kept, _, _ := c.Get(ctx, bookMovesKey(pos))
	if err := c2.Set(ctx, bookMovesKey(pos), kept, time.Minute); err != nil {
		t.Fatal(err)
	}
	job.Search = p2.search
	children := pos.Children()
	for _, i := range searched[:min(20, len(searched))] {
		raw, err := job.Run(ctx, request, units[i], func(int64) {})
		if err != nil {
			t.Fatal(err)
		}
		var again, before PolyominoAnswer
		_ = json.Unmarshal(results[i], &before)
		if err := json.Unmarshal(raw, &again); err != nil || !again.Proven || again.Outcome != before.Outcome || again.Value != before.Value {
			t.Errorf("unit %d again: %s %d, proven %v; before: %s %d (%v)", i, again.Outcome, again.Value, again.Proven, before.Outcome, before.Value, err)
		}
		if _, proved, _ := c2.Get(ctx, cacheKey("polyomino", "all=false", polyomino.CanonicalKey(children[i].Position))); proved {
			t.Errorf("unit %d again: its child was proven", i)
		}
	}
}

// TestBackgroundAllMoves: background work is asked for a proven answer
// whose moves are not all valued (all_moves), as for an unproven one; a
// proven answer is enough without all_moves.
func TestBackgroundAllMoves(t *testing.T) {
	p, _ := bookPolyomino(t)
	var asked []PolyominoQuery
	p.SetJobs(func(_ context.Context, typ string, req json.RawMessage) (string, error) {
		var q PolyominoQuery
		if err := json.Unmarshal(req, &q); err != nil || typ != (PolyominoAnalyzeJob{}).Name() {
			t.Fatalf("job %s %s: %v", typ, req, err)
		}
		asked = append(asked, q)
		return fmt.Sprintf("job-%d", len(asked)), nil
	})
	line := []string{"L:c4,d4,e4,f4,c5", "I:c8,d8,e8,f8,g8", "X:b1,a2,b2,c2,b3"} // won, the book values 1 move
	short := (bookMovesMin - 100*time.Millisecond).Milliseconds()                // no search of the other moves
	if _, ok := bookResult(mustPosition(t, line), true, true); !ok {             // its reply file indexed
		t.Fatal("not in the book")
	}
	for _, tc := range []struct {
		all bool
		job bool
	}{{true, true}, {false, false}} {
		a, err := p.Analyze(context.Background(), PolyominoQuery{Game: "pentominoes", Moves: line, AllMoves: tc.all, Background: true, BudgetMs: short})
		if err != nil {
			t.Fatal(err)
		}
		if !a.Proven || tc.all && a.BestComplete {
			t.Fatalf("all_moves %v: proven %v, best_complete %v: want a proven answer with moves not valued", tc.all, a.Proven, a.BestComplete)
		}
		if (a.JobID != "") != tc.job || a.JobError != "" {
			t.Errorf("all_moves %v: job %q (%s), want one: %v", tc.all, a.JobID, a.JobError, tc.job)
		}
	}
	if len(asked) != 1 || !asked[0].AllMoves || !slices.Equal(asked[0].Moves, line) {
		t.Errorf("jobs asked for: %+v", asked)
	}
}

// TestBookLoadWaitsWithinBudget: a request that finds the book still
// loading waits for it within half its budget, then searches (a cold
// start held a 2 s request 10 s); a budget under bookWaitBudget does not
// wait at all. (The book itself is loaded in this process: the hook only
// plays the wait.)
func TestBookLoadWaitsWithinBudget(t *testing.T) {
	p, _ := bookPolyomino(t)
	var waits []time.Duration
	bookWithin = func(_ context.Context, d time.Duration) (*book.Book, bool) {
		waits = append(waits, d)
		return nil, false // still loading
	}
	t.Cleanup(func() { bookWithin = book.EmbeddedWithin })
	line := []string{"L:c5,d5,e5,f5,c6", "F:c1,d1,d2,e2,d3", "P:f2,g2,f3,g3,h3"}
	for _, budget := range []time.Duration{2 * time.Second, bookWaitBudget - time.Millisecond} {
		waits = nil
		a, err := p.Analyze(context.Background(), PolyominoQuery{Game: "pentominoes", Moves: line, BudgetMs: budget.Milliseconds()})
		if err != nil || a.Outcome == "" {
			t.Fatalf("budget %v: %v", budget, err)
		}
		want := []time.Duration{budget / bookLoadDiv}
		if budget < bookWaitBudget {
			want = nil
		}
		if !slices.Equal(waits, want) {
			t.Errorf("budget %v: waited for the book %v, want %v", budget, waits, want)
		}
	}
	// Other games never wait.
	waits = nil
	four := 4
	if _, err := p.Analyze(context.Background(), PolyominoQuery{Game: "tetrominoes", Width: &four, Height: &four, BudgetMs: 2000}); err != nil || len(waits) > 0 {
		t.Errorf("tetrominoes: %v, waited %v", err, waits)
	}
}

// TestBookComponent: /readyz lists the opening book, ready once loaded.
func TestBookComponent(t *testing.T) {
	bookPolyomino(t) // loads it
	if c := BookComponent(); c.Name != "book" || !c.Ready || c.State != "ready" {
		t.Errorf("%+v", c)
	}
}

// TestBookMovesAcrossProcesses: two processes share Redis (here a far
// memory layer), each with its own near layer. Once one has stored more
// move values of a book position (a job valuing every move), the other
// reads them, not its near copy of fewer, and its own write of fewer
// leaves them: replicas kept serving 529 moves unknown of 727 a job had
// valued, and could write them back over the job's.
func TestBookMovesAcrossProcesses(t *testing.T) {
	ctx := context.Background()
	q := PolyominoQuery{Game: "pentominoes", Moves: []string{"L:c4,d4,e4,f4,c5", "I:c8,d8,e8,f8,g8", "X:b1,a2,b2,c2,b3"}}
	pos, err := q.position()
	if err != nil {
		t.Fatal(err)
	}
	fewer, ok := bookResult(pos, true, true)
	if !ok || !fewer.Proven {
		t.Fatal("the book does not answer the position")
	}
	more := fewer
	more.Moves = slices.Clone(fewer.Moves)
	added := 0
	for i := range more.Moves {
		if !more.Moves[i].Proven && added < 5 {
			// The values a job found (a cache test: which value does not
			// matter, only that there are more of them).
			more.Moves[i].Proven, more.Moves[i].Outcome, more.Moves[i].Value, added = true, polyomino.Loss, -1, added+1
		}
	}
	if added == 0 {
		t.Fatal("the book values every move: nothing to add")
	}
	far := cache.NewMemory(1<<24, time.Hour)
	searcher := func() *Searcher {
		return &Searcher{Loader: cache.NewLoader(&cache.Tiered{Near: cache.NewMemory(1<<24, time.Hour), Far: far}, time.Hour)}
	}
	one, two := searcher(), searcher()
	keepBookMoves(ctx, one, pos, fewer, int64(time.Second))
	if kept, ok := keptBookMoves(ctx, one, pos, fewer.Outcome); !ok || provenMoves(kept.Moves) != provenMoves(answerOf(fewer, pos.Frame().ToCanonical).Moves) {
		t.Fatalf("process one's entry: %t", ok)
	}
	keepBookMoves(ctx, two, pos, more, 0) // the job, elsewhere
	want := provenMoves(answerOf(more, pos.Frame().ToCanonical).Moves)
	if kept, _ := keptBookMoves(ctx, one, pos, fewer.Outcome); provenMoves(kept.Moves) != want {
		t.Errorf("process one reads %d values, want the job's %d", provenMoves(kept.Moves), want)
	}
	keepBookMoves(ctx, one, pos, fewer, int64(2*time.Second)) // a request of process one, from an older copy
	if kept, _ := keptBookMoves(ctx, searcher(), pos, fewer.Outcome); provenMoves(kept.Moves) != want {
		t.Errorf("after process one's write of fewer: %d values, want the job's %d", provenMoves(kept.Moves), want)
	}
}

// TestJobLengthsServeBookRequests: the plies a job found for the moves of
// a book position are served to the requests, which answer from the book
// and read the lengths of bookLengthKey, not the job's own entry (an
// end-to-end check found 25 moves with plies in the job's entry, 1 in the
// answers); an entry that disagrees on the position's plies is kept.
func TestJobLengthsServeBookRequests(t *testing.T) {
	p, _ := bookPolyomino(t)
	p.search.MinLengthTime = time.Hour // no length search of the request's own
	ctx := context.Background()
	q := PolyominoQuery{Game: "pentominoes", Moves: []string{"L:c4,d4,e4,f4,c5", "I:c8,d8,e8,f8,g8", "X:b1,a2,b2,c2,b3"}, AllMoves: true, BudgetMs: 100}
	pos := mustPosition(t, q.Moves)
	res, ok := bookResult(pos, true, true)
	if !ok || !res.Proven {
		t.Fatal("the book does not answer the position")
	}
	withPlies := func(a PolyominoAnswer) map[string]int {
		got := map[string]int{}
		for _, m := range a.Moves {
			if m.Proven && m.Plies != nil {
				got[m.Move] = *m.Plies
			}
		}
		return got
	}
	before, err := p.Analyze(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	// The job's answer: the book's moves, a few more valued, each with
	// plies (a cache test: which plies does not matter, only that they
	// come back), the position's as the book's lengths say when they know.
	more := res
	more.Moves = slices.Clone(res.Moves)
	added := 0
	for i := range more.Moves {
		if !more.Moves[i].Proven && added < 5 {
			more.Moves[i].Proven, more.Moves[i].Outcome, more.Moves[i].Value, added = true, polyomino.Loss, -1, added+1
		}
	}
	keepBookMoves(ctx, p.search, pos, more, 0) // as the job does
	job := bookAnswerOf(more, pos)
	plies := 9
	if known, ok := bookLength(pos, res); ok && known.Plies != nil {
		plies = *known.Plies
	}
	job.Plies = &plies
	want := map[string]int{}
	for i, m := range job.Moves {
		if m.Proven {
			n := plies - 1 + 2*(i%3)
			if m.Outcome == string(polyomino.Loss) {
				n = plies + 2*(i%3)
			}
			job.Moves[i].Plies = &n
			want[m.Move] = n
		}
	}
	if len(withPlies(before)) >= len(want) {
		t.Fatalf("before the job: %d moves with plies, the job's %d: nothing to add", len(withPlies(before)), len(want))
	}
	other := plies + 2
	wrong := job
	wrong.Plies = &other
	keepBookLengths(ctx, p.search, pos, job, true)
	keepBookLengths(ctx, p.search, pos, wrong, true) // disagrees: not taken
	after, err := p.Analyze(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	if after.Plies == nil || *after.Plies != plies {
		t.Errorf("the position's plies %v, want %d", after.Plies, plies)
	}
	got := withPlies(after)
	for m, n := range want {
		if got[m] != n {
			t.Errorf("move %s: plies %d, the job found %d", m, got[m], n)
		}
	}
	if t.Failed() {
		t.Logf("%d moves with plies before the job, %d after, the job's %d", len(withPlies(before)), len(got), len(want))
	}
}

// TestJobKeepsSomeBookMoveValues: a job on a book position with all_moves
// whose units left some moves unknown (children beyond the search; a unit
// out of time fails instead) still gives the
// requests the values it found (it used to keep them only when it valued
// every move), with its units' limit as the time tried: a request does
// not search them again.
func TestJobKeepsSomeBookMoveValues(t *testing.T) {
	p, _ := bookPolyomino(t)
	p.search.MinLengthTime = time.Hour // no length search: the nodes below are bookMoves'
	ctx := context.Background()
	q := PolyominoQuery{Game: "pentominoes", Moves: []string{"L:c4,d4,e4,f4,c5", "I:c8,d8,e8,f8,g8", "X:b1,a2,b2,c2,b3"}, AllMoves: true}
	pos := mustPosition(t, q.Moves)
	res, ok := bookResult(pos, true, true)
	if !ok || !res.Proven || res.Outcome != polyomino.Win {
		t.Fatal("the book does not answer the position with a win")
	}
	wins := map[string]bool{}
	for _, m := range res.Moves {
		if m.Proven && m.Value > 0 {
			wins[m.Move.String()] = true
		}
	}
	// The units' answers, for the other player after each move: lost
	// after the book's winning moves, won after 5 others (a cache test:
	// which moves does not matter), unknown after the rest.
	children := pos.Children()
	results := map[int]json.RawMessage{}
	want := map[string]bool{}
	lost := 0
	for i, c := range children {
		a := PolyominoAnswer{Outcome: string(polyomino.OutcomeUnknown), BestMoves: []string{}}
		switch {
		case wins[c.Moves[0].String()]:
			a.Outcome, a.Proven, a.Value = string(polyomino.Loss), true, -1
		case lost < 5:
			a.Outcome, a.Proven, a.Value = string(polyomino.Win), true, 1
			lost++
			for _, m := range c.Moves {
				want[m.String()] = true
			}
		}
		results[i], _ = json.Marshal(a)
	}
	req, _ := json.Marshal(q)
	job := PolyominoAnalyzeJob{Search: p.search, MaxDuration: 2 * time.Second, Workers: 1}
	raw, done, err := job.Combine(ctx, req, len(children), results)
	if err != nil || !done {
		t.Fatalf("combine: done %v, %v", done, err)
	}
	var a PolyominoAnswer
	if err := json.Unmarshal(raw, &a); err != nil || !a.Proven || a.BestComplete {
		t.Fatalf("the job's answer: proven %v, best_complete %v (%v); want a win with moves unknown", a.Proven, a.BestComplete, err)
	}
	q.BudgetMs = 2000 // a request that would search moves for 1 s: the units tried 2
	got, err := p.Analyze(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range got.Moves {
		if want[m.Move] && (!m.Proven || m.Value >= 0) {
			t.Errorf("move %s: proven %v, value %d; the job found it loses", m.Move, m.Proven, m.Value)
		}
	}
	if got.SpentNodes != 0 {
		t.Errorf("the request searched %d nodes: the job's units tried longer", got.SpentNodes)
	}
}

// TestKeptBookMoveUnitHasPlies: a job's unit whose move a request valued
// (keptBookMove) takes the value without a proof, and still looks for the
// child's plies (an end-to-end check found the 147 moves a request had
// valued without plies in the job's answer, 0.1 s each for a request).
func TestKeptBookMoveUnitHasPlies(t *testing.T) {
	p, _ := bookPolyomino(t)
	p.search.MinLengthTime = 10 * time.Second // the search ends when it has them: no timing in the test
	ctx := context.Background()
	q := PolyominoQuery{Game: "pentominoes", Moves: []string{"L:c4,d4,e4,f4,c5", "I:c8,d8,e8,f8,g8", "X:b1,a2,b2,c2,b3"}, AllMoves: true}
	pos := mustPosition(t, q.Moves)
	res, ok := bookResult(pos, true, true)
	if !ok {
		t.Fatal("not in the book")
	}
	// A move the book does not value, valued as a request would.
	children := pos.Children()
	unit := -1
	for i, c := range children {
		j := slices.IndexFunc(res.Moves, func(m polyomino.MoveResult) bool { return m.Move.String() == c.Moves[0].String() })
		if j >= 0 && !res.Moves[j].Proven {
			unit = i
			break
		}
	}
	if unit < 0 {
		t.Fatal("the book values every move")
	}
	child := children[unit]
	solved, err := polyomino.Solve(ctx, child.Position, polyomino.Options{FirstWin: true, Workers: 1, TableMB: 16})
	if err != nil || !solved.Proven {
		t.Fatalf("the child: %+v %v", solved.Outcome, err)
	}
	kept := res
	kept.Moves = slices.Clone(res.Moves)
	for i, m := range kept.Moves {
		if m.Move.String() == child.Moves[0].String() {
			kept.Moves[i].Proven, kept.Moves[i].Value = true, -solved.Value
			kept.Moves[i].Outcome = polyomino.Loss
			if -solved.Value > 0 {
				kept.Moves[i].Outcome = polyomino.Win
			}
		}
	}
	keepBookMoves(ctx, p.search, pos, kept, 0)
	req, _ := json.Marshal(q)
	job := PolyominoAnalyzeJob{Search: p.search, MaxDuration: time.Minute, Workers: 1}
	u, _ := json.Marshal(polyUnit{Index: unit, Move: child.Moves[0].String(), Query: req})
	raw, err := job.Run(ctx, nil, u, func(int64) {})
	var a PolyominoAnswer
	if err != nil || json.Unmarshal(raw, &a) != nil {
		t.Fatalf("the unit: %v", err)
	}
	if !a.Proven || a.Value != solved.Value || a.Plies == nil {
		t.Errorf("the unit's answer: proven %v, value %d (the child's %d), plies %v; want the kept value with plies", a.Proven, a.Value, solved.Value, a.Plies)
	}
}

// TestKeptBookMovesChecked: an entry of a book position's move values is
// checked as the answers are: one with a move that is none, or a value
// that contradicts its outcome, is not read (it was read without the bad
// move, and never replaced, the cache holding "as many" values), and the
// next values found replace it.
func TestKeptBookMovesChecked(t *testing.T) {
	ctx := context.Background()
	q := PolyominoQuery{Game: "pentominoes", Moves: []string{"L:c4,d4,e4,f4,c5", "I:c8,d8,e8,f8,g8", "X:b1,a2,b2,c2,b3"}}
	pos, err := q.position()
	if err != nil {
		t.Fatal(err)
	}
	res, ok := bookResult(pos, true, true)
	if !ok || !res.Proven {
		t.Fatal("the book does not answer the position")
	}
	c := cache.NewMemory(1<<24, time.Hour)
	s := &Searcher{Loader: cache.NewLoader(c, time.Hour)}
	for name, edit := range map[string]func(a *PolyominoAnswer){
		"a move that is none": func(a *PolyominoAnswer) {
			for i := range a.Moves {
				if a.Moves[i].Proven {
					a.Moves[i].Move = "I:z1,z2,z3,z4,z5"
					return
				}
			}
		},
		"a value against its outcome": func(a *PolyominoAnswer) {
			for i := range a.Moves {
				if a.Moves[i].Proven {
					a.Moves[i].Value = -a.Moves[i].Value
					return
				}
			}
		},
	} {
		keepBookMoves(ctx, s, pos, res, int64(time.Second))
		raw, ok, _ := c.Get(ctx, bookMovesKey(pos))
		if !ok {
			t.Fatal("no entry")
		}
		var a PolyominoAnswer
		if err := json.Unmarshal(raw, &a); err != nil {
			t.Fatal(err)
		}
		if provenMoves(a.Moves) == 0 {
			t.Fatal("no move valued in the entry")
		}
		edit(&a)
		bad, _ := json.Marshal(a)
		_ = c.Set(ctx, bookMovesKey(pos), bad, time.Hour)
		if _, ok := keptBookMoves(ctx, s, pos, res.Outcome); ok {
			t.Errorf("%s: read", name)
		}
		keepBookMoves(ctx, s, pos, res, int64(time.Second))
		if kept, ok := keptBookMoves(ctx, s, pos, res.Outcome); !ok || provenMoves(kept.Moves) != provenMoves(answerOf(res, pos.Frame().ToCanonical).Moves) {
			t.Errorf("%s: not replaced (%t)", name, ok)
		}
	}
}
