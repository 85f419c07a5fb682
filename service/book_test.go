package service_test

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gamesolver/gamesolver/engine/book"
	"github.com/gamesolver/gamesolver/engine/polyomino"
	"github.com/gamesolver/gamesolver/service"
	"github.com/gamesolver/gamesolver/service/jobs"
)

func bookSearcher() *service.Searcher {
	s := searcherWithBudget(100 * time.Millisecond)
	s.Budgets.Default = 50 * time.Millisecond
	return s
}

// TestAnalyzeFromBook: positions of the certificate are answered from the
// embedded book, in the frame of the position asked about.
func TestAnalyzeFromBook(t *testing.T) {
	if _, err := book.Embedded(); err != nil { // serve preloads it
		t.Fatal(err)
	}
	p := service.NewPolyomino(bookSearcher())
	ctx := context.Background()
	a, err := p.Analyze(ctx, service.PolyominoQuery{Game: "pentominoes"})
	if err != nil {
		t.Fatal(err)
	}
	if a.Source != service.SourceBook || a.Outcome != "win" || !a.Proven || !slices.Contains(a.BestMoves, "L:c5,d5,e5,f5,c6") {
		t.Fatalf("empty board: source %s %s proven %v best %v", a.Source, a.Outcome, a.Proven, a.BestMoves)
	}
	// The certificate's line "F:a1,b1,b2,c2,b3 1 loss P:e3,f3,g3,f4,g4" after
	// the first move, all turned by a quarter: (x, y) -> (7-y, x).
	a, err = p.Analyze(ctx, service.PolyominoQuery{Game: "pentominoes", Moves: []string{"L:c3,d3,d4,d5,d6", "F:h1,f2,g2,h2,g3"}, AllMoves: true})
	if err != nil {
		t.Fatal(err)
	}
	if a.Source != service.SourceBook || a.Outcome != "win" || !slices.Equal(a.BestMoves, []string{"P:f5,e6,f6,e7,f7"}) || len(a.Moves) != a.LegalMoves {
		t.Fatalf("after a reply: source %s %s best %v, %d of %d moves", a.Source, a.Outcome, a.BestMoves, len(a.Moves), a.LegalMoves)
	}
	if a.Moves[0].Move != a.BestMoves[0] || !a.Moves[0].Proven || a.Moves[0].Outcome != "win" {
		t.Fatalf("moves[0] %+v, best %v", a.Moves[0], a.BestMoves)
	}
	// After a winning first move that is not the certificate's, the
	// book's reply file for it answers (indexed on the first request that
	// needs it; with this budget, under 0.5 s, in the background while
	// the search answers):
	// its line "F:e1,f1,f2,g2,f3 1 loss Y:c6,d6,e6,f6,d7".
	for deadline := time.Now().Add(30 * time.Second); ; {
		a, err = p.Analyze(ctx, service.PolyominoQuery{Game: "pentominoes", Moves: []string{"L:b3,c3,d3,e3,b4", "F:e1,f1,f2,g2,f3"}})
		if err != nil {
			t.Fatal(err)
		}
		if a.Source == service.SourceBook || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if a.Source != service.SourceBook || a.Outcome != "win" || !slices.Equal(a.BestMoves, []string{"Y:c6,d6,e6,f6,d7"}) {
		t.Fatalf("after L:b3,c3,d3,e3,b4 F:e1,f1,f2,g2,f3: source %s %s best %v", a.Source, a.Outcome, a.BestMoves)
	}
	// A position the book does not cover is searched as before.
	a, err = p.Analyze(ctx, service.PolyominoQuery{Game: "tetrominoes"})
	if err != nil {
		t.Fatal(err)
	}
	if a.Source == service.SourceBook {
		t.Fatal("tetrominoes answered from the pentomino book")
	}
}

// bookPosition is a 4-ply position whose 247 classes of moves are solved
// in about a second.
var bookPosition = strings.Fields("V:d2,e2,f2,d3,d4 I:h2,h3,h4,h5,h6 F:e4,f4,f5,g5,f6 Y:b5,b6,c6,b7,b8")

// TestBookJob runs the polyomino.book kind on the in-process job store and
// compares its lines with a direct classification.
func TestBookJob(t *testing.T) {
	kind := service.NewBookJob(time.Minute, 1, 16)
	jm, ctx := runJobs(t, kind)

	req, _ := json.Marshal(service.BookJobRequest{Moves: bookPosition})
	job, err := jm.Submit(ctx, kind.Name(), req)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for !job.Status.Final() && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
		if job, err = jm.Get(ctx, job.ID); err != nil {
			t.Fatal(err)
		}
	}
	if job.Status != jobs.StatusDone {
		t.Fatalf("job %s %s", job.Status, job.Error)
	}
	var res service.BookJobResult
	if err := json.Unmarshal(job.Result, &res); err != nil {
		t.Fatal(err)
	}
	pos, _ := book.PositionAfter(bookPosition)
	want, err := book.Classify(ctx, bookPosition, pos, nil, &book.Options{Workers: 1, TableMB: 16}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Complete || len(res.Lines) != len(want.Lines) || res.Wins != 13 || job.Progress.Done != len(want.Lines) {
		t.Fatalf("job: complete %v, %d lines (want %d), %d wins, %d units done", res.Complete, len(res.Lines), len(want.Lines), res.Wins, job.Progress.Done)
	}
	for i, l := range res.Lines {
		w := want.Lines[i]
		if l.Index != i || l.Move != w.Move || l.Class != w.Class || l.Wins != w.Wins || l.Wins == (l.Reply != "") {
			t.Fatalf("line %d: job %+v, direct %+v", i, l, w)
		}
	}
	// Until the first win: the job ends early.
	req, _ = json.Marshal(service.BookJobRequest{Moves: bookPosition, UntilWin: true, Classes: []int{0, 1, 2, 3}})
	if _, err := jm.Submit(ctx, kind.Name(), req); err != nil {
		t.Fatal(err)
	}
	// Bad requests.
	for _, bad := range []string{`{"moves":["Q:a1"]}`, `{"moves":[],"classes":[400]}`, `{"moves":[],"extra":1}`,
		`{"moves":[],"classes":[]}`, `{"moves":[],"classes":[0,0]}`, `{"Moves":[]}`} {
		if _, err := jm.Submit(ctx, kind.Name(), json.RawMessage(bad)); service.KindOf(err) != service.KindInvalid {
			t.Errorf("%s: %v, want a validation error", bad, err)
		}
	}
	// A line's index is the class requested, not its place in the list.
	l0, _ := json.Marshal(want.Lines[5])
	l1, _ := json.Marshal(want.Lines[7])
	raw, done, err := kind.Combine(context.Background(), json.RawMessage(`{"moves":[],"classes":[5,7]}`), 2, map[int]json.RawMessage{0: l0, 1: l1})
	var sub service.BookJobResult
	if err != nil || !done || json.Unmarshal(raw, &sub) != nil || len(sub.Lines) != 2 || sub.Lines[0].Index != 5 || sub.Lines[1].Index != 7 || sub.Lines[1].Move != want.Lines[7].Move {
		t.Errorf("combined %s, %v, %v", raw, done, err)
	}
	// until_win: a win ends the job, and its result says why classes are
	// missing; without a win, or without until_win, it goes on.
	win, loss := -1, -1
	for i, l := range want.Lines {
		if l.Wins && win < 0 {
			win = i
		}
		if !l.Wins && loss < 0 {
			loss = i
		}
	}
	lw, _ := json.Marshal(want.Lines[win])
	ll, _ := json.Marshal(want.Lines[loss])
	for _, c := range []struct {
		request  string
		results  map[int]json.RawMessage
		done, ok bool
	}{
		{`{"moves":[],"classes":[1,2,3,4],"until_win":true}`, map[int]json.RawMessage{0: ll, 1: lw}, true, true},
		{`{"moves":[],"classes":[1,2,3,4],"until_win":true}`, map[int]json.RawMessage{0: ll}, false, false},
		{`{"moves":[],"classes":[1,2,3,4]}`, map[int]json.RawMessage{0: ll, 1: lw}, false, false},
		{`{"moves":[],"classes":[1,2],"until_win":true}`, map[int]json.RawMessage{0: ll, 1: lw}, true, false},
	} {
		raw, done, err := kind.Combine(context.Background(), json.RawMessage(c.request), 4-2*strings.Count(c.request, "[1,2]"), c.results)
		var res service.BookJobResult
		if err != nil || done != c.done || done && (json.Unmarshal(raw, &res) != nil || res.EndedOnWin != c.ok || res.Complete == c.ok || res.Wins != 1) {
			t.Errorf("%s with %d results: done %v, %s, %v", c.request, len(c.results), done, raw, err)
		}
	}
}

// TestBookIndexedDuringSearch: a budget too short to wait for the book's
// reply file on its first use (indexed in the background) searches, and
// when the search does not prove the position the book is asked again
// before the heuristic player answers: a review saw "unknown" from the
// heuristic, then the book's proven win for the same request at once.
func TestBookIndexedDuringSearch(t *testing.T) {
	b, err := book.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	p := service.NewPolyomino(searcherWithBudget(time.Minute))
	q := service.PolyominoQuery{Game: "pentominoes", Moves: []string{"X:b1,a2,b2,c2,b3", "I:h1,h2,h3,h4,h5"}, BudgetMs: 300}
	a, err := p.Analyze(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	if a.Proven {
		return
	}
	cfg, _ := polyomino.Preset("pentominoes")
	pos, err := polyomino.NewPosition(cfg, nil, q.Moves, polyomino.DefaultToMove)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := b.LookupWait(pos, false); !ok {
		t.Skip("the reply file is not indexed yet: a machine too slow for this test")
	}
	t.Errorf("source %s, %s: the book knows this position", a.Source, a.Outcome)
}

// TestBookAnswersGetPlies: the book knows values, not lengths; a request
// answered from it searches the game's length within its budget, and the
// cache keeps the plies found, or how long a search failed (the next
// request as short does not try again).
func TestBookAnswersGetPlies(t *testing.T) {
	if _, err := book.Embedded(); err != nil {
		t.Fatal(err)
	}
	p := service.NewPolyomino(searcherWithBudget(time.Minute))
	ctx := context.Background()
	// Three plies into the certificate: lost for the player to move.
	q := service.PolyominoQuery{Game: "pentominoes", Moves: strings.Fields("L:c5,d5,e5,f5,c6 F:c1,d1,d2,e2,d3 P:f2,g2,f3,g3,h3"), BudgetMs: 20_000}
	cfg, _ := polyomino.Preset("pentominoes")
	pos, err := polyomino.NewPosition(cfg, nil, q.Moves, polyomino.DefaultToMove)
	if err != nil {
		t.Fatal(err)
	}
	want := polyomino.Length(ctx, pos, polyomino.Loss, polyomino.LengthOptions{})
	if !want.Proven {
		t.Fatal("no length")
	}
	for i, label := range []string{"searched", "kept"} {
		a, err := p.Analyze(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if a.Source != service.SourceBook || a.Outcome != "loss" || a.Plies == nil || *a.Plies != want.Plies {
			t.Fatalf("%s: source %s %s, plies %v, want %d", label, a.Source, a.Outcome, a.Plies, want.Plies)
		}
		if searched := a.SpentNodes > 0; searched != (i == 0) {
			t.Errorf("%s: %d nodes of length search", label, a.SpentNodes)
		}
	}
	// A short budget: the search may fail, and is then not tried again
	// by a request as short.
	short := service.PolyominoQuery{Game: "pentominoes", Moves: strings.Fields("L:c5,d5,e5,f5,c6 F:d1,e1,e2,f2,e3 P:f6,g6,e7,f7,g7"), BudgetMs: 400}
	first, err := p.Analyze(ctx, short)
	if err != nil {
		t.Fatal(err)
	}
	again, err := p.Analyze(ctx, short)
	if err != nil {
		t.Fatal(err)
	}
	if first.SpentNs == 0 || again.SpentNs != 0 || (first.Plies == nil) != (again.Plies == nil) {
		t.Errorf("a short budget: %v then %v of length search, plies %v then %v",
			time.Duration(first.SpentNs), time.Duration(again.SpentNs), first.Plies, again.Plies)
	}
	// Two plies in, after a position no lengths file covers (a reply to
	// the winning opening L:b3,c3,d3,e3,b4, of a lazily indexed reply
	// file), the search is tried (it takes seconds: with this budget it
	// may fail).
	two, err := p.Analyze(ctx, service.PolyominoQuery{Game: "pentominoes", Moves: strings.Fields("L:b3,c3,d3,e3,b4 F:e1,f1,f2,g2,f3"), BudgetMs: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if two.Source != service.SourceBook || two.SpentNs == 0 {
		t.Errorf("two plies in: source %s, %v of length search", two.Source, time.Duration(two.SpentNs))
	}
	// The empty board: never searched (beyond any budget); its plies
	// come from the book's bounds (TestEmptyBoardPlies).
	a, err := p.Analyze(ctx, service.PolyominoQuery{Game: "pentominoes", BudgetMs: 20_000})
	if err != nil {
		t.Fatal(err)
	}
	if a.Source != service.SourceBook || a.Plies == nil || *a.Plies != 9 || a.SpentNs != 0 {
		t.Errorf("empty board: source %s, plies %v, %v of length search", a.Source, a.Plies, time.Duration(a.SpentNs))
	}
}

// TestBookLengths: the book's lengths file (lengths-certificate.txt)
// answers one and two plies into the certificate with the game's length
// at once, whatever the budget, in any orientation of the board: one ply
// in the position lasts one ply more than the slowest reply's, a slowest
// reply first; two plies in as the file says, its fastest third move
// first; after that move one ply less.
func TestBookLengths(t *testing.T) {
	if _, err := book.Embedded(); err != nil {
		t.Fatal(err)
	}
	f, err := book.Parse(book.Files()["lengths-certificate.txt"])
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Sections) != 1 || !slices.Equal(f.Sections[0].Moves, []string{"L:c5,d5,e5,f5,c6"}) || len(f.Sections[0].Lines) != 1189 {
		t.Fatalf("lengths file: %d sections", len(f.Sections))
	}
	lines := f.Sections[0].Lines
	after := map[string]int{}
	most := 0
	for _, l := range lines {
		if l.Plies == nil || l.Wins || l.Reply == "" {
			t.Fatalf("line %+v", l)
		}
		after[l.Move] = *l.Plies
		most = max(most, *l.Plies)
	}
	p := service.NewPolyomino(bookSearcher())
	ctx := context.Background()
	analyze := func(moves string, all bool) service.PolyominoAnswer {
		t.Helper()
		a, err := p.Analyze(ctx, service.PolyominoQuery{Game: "pentominoes", Moves: strings.Fields(moves), AllMoves: all})
		if err != nil {
			t.Fatal(err)
		}
		if a.Source != service.SourceBook || a.Plies == nil || a.SpentNs != 0 {
			t.Fatalf("%q: source %s, plies %v, %v of length search", moves, a.Source, a.Plies, time.Duration(a.SpentNs))
		}
		return a
	}
	for _, all := range []bool{false, true} {
		a := analyze("L:c5,d5,e5,f5,c6", all)
		if a.Outcome != "loss" || *a.Plies != 1+most || !a.PerfectFirst || after[a.BestMoves[0]] != most {
			t.Fatalf("one ply in (all_moves %v): %s in %d plies, perfect first %v %s (%d plies after it); want %d", all, a.Outcome, *a.Plies, a.PerfectFirst, a.BestMoves[0], after[a.BestMoves[0]], 1+most)
		}
		for i, m := range a.Moves {
			if m.Plies == nil || *m.Plies != after[m.Move] || i > 0 && *m.Plies > *a.Moves[i-1].Plies {
				t.Fatalf("moves[%d] %+v: want %d plies, the slowest first", i, m, after[m.Move])
			}
		}
		if all && len(a.Moves) != len(lines) {
			t.Fatalf("%d moves", len(a.Moves))
		}
	}
	// The first move mirrored left to right.
	if a := analyze("L:c5,d5,e5,f5,f6", false); *a.Plies != 1+most {
		t.Fatalf("mirrored: %d plies", *a.Plies)
	}
	for i := 0; i < len(lines); i += 397 {
		l := lines[i]
		moves := "L:c5,d5,e5,f5,c6 " + l.Move
		a := analyze(moves, i%2 == 1)
		if a.Outcome != "win" || *a.Plies != *l.Plies || !a.PerfectFirst || a.BestMoves[0] != l.Reply {
			t.Fatalf("%s: %s in %d plies, perfect first %v %v; want %d, %s first", moves, a.Outcome, *a.Plies, a.PerfectFirst, a.BestMoves, *l.Plies, l.Reply)
		}
		if i%2 == 1 && (a.Moves[0].Move != l.Reply || a.Moves[0].Plies == nil || *a.Moves[0].Plies != *l.Plies-1) {
			t.Fatalf("%s: moves[0] %+v, want %s with %d plies after it", moves, a.Moves[0], l.Reply, *l.Plies-1)
		}
		if a := analyze(moves+" "+l.Reply, false); a.Outcome != "loss" || *a.Plies != *l.Plies-1 {
			t.Fatalf("%s %s: %s in %d plies", moves, l.Reply, a.Outcome, *a.Plies)
		}
	}
	// Mirrored left to right (column x -> 7-x).
	mirror := func(m string) string {
		mv, err := polyomino.ParseMove(m)
		if err != nil {
			t.Fatal(err)
		}
		for i := range mv.Cells {
			mv.Cells[i].X = 7 - mv.Cells[i].X
		}
		return mv.String()
	}
	l := lines[0]
	a := analyze(mirror("L:c5,d5,e5,f5,c6")+" "+mirror(l.Move), false)
	if *a.Plies != *l.Plies || !a.PerfectFirst || a.BestMoves[0] != mirror(l.Reply) {
		t.Fatalf("mirrored: %d plies, perfect first %v %v; want %d, %s first", *a.Plies, a.PerfectFirst, a.BestMoves, *l.Plies, mirror(l.Reply))
	}
	// One ply into the long-L opening, a won position: its length is the
	// fastest winning reply's plus one, a fastest win first, and with
	// all_moves every move has its plies, the winning ones first.
	lf, err := book.Parse(book.Files()["lengths-longl.txt"])
	if err != nil {
		t.Fatal(err)
	}
	longl, fastest := map[string]int{}, 0
	for _, l := range lf.Sections[0].Lines {
		longl[l.Move] = *l.Plies
		if l.Wins && (fastest == 0 || *l.Plies < fastest) {
			fastest = *l.Plies
		}
	}
	if fastest == 0 {
		t.Fatal("lengths-longl.txt: no winning line")
	}
	for _, all := range []bool{false, true} {
		a := analyze("L:c4,d4,e4,f4,c5", all)
		if a.Outcome != "win" || *a.Plies != 1+fastest || !a.PerfectFirst || longl[a.BestMoves[0]] != fastest {
			t.Fatalf("long L (all_moves %v): %s in %d plies, perfect first %v %v; want %d", all, a.Outcome, *a.Plies, a.PerfectFirst, a.BestMoves, 1+fastest)
		}
		if all && len(a.Moves) != len(longl) {
			t.Fatalf("long L: %d moves, want %d", len(a.Moves), len(longl))
		}
		for i, m := range a.Moves {
			if m.Plies == nil || *m.Plies != longl[m.Move] || (i > 0 && m.Outcome != a.Moves[i-1].Outcome && m.Outcome == "win") {
				t.Fatalf("long L: moves[%d] %+v, want %d plies, the winning moves first", i, m, longl[m.Move])
			}
		}
	}
	// The reply files with lengths, indexed lazily: one ply into their
	// opening, a lost position, lasts one ply more than its slowest reply.
	// With all_moves and a budget a length search could use: the book's
	// length, and no search for the moves' own plies.
	long := service.NewPolyomino(searcherWithBudget(time.Minute))
	withPlies := 0
	for _, name := range slices.Sorted(maps.Keys(book.Files())) {
		data := book.Files()[name]
		if !strings.HasPrefix(name, "replies/") || !bytes.Contains(data, []byte(" plies=")) {
			continue
		}
		withPlies++
		vf, err := book.Parse(data)
		if err != nil {
			t.Fatal(err)
		}
		slowest := 0
		for _, l := range vf.Sections[0].Lines {
			if l.Plies == nil {
				t.Fatalf("%s: %s without plies", name, l.Move)
			}
			slowest = max(slowest, *l.Plies)
		}
		// (A budget of 0.5 s or more waits for the reply file's indexing;
		// a tighter one answers from what is indexed, and starts it.)
		a, err = long.Analyze(ctx, service.PolyominoQuery{Game: "pentominoes", Moves: vf.Sections[0].Moves, AllMoves: true, BudgetMs: 1000})
		if err != nil {
			t.Fatal(err)
		}
		if a.Source != service.SourceBook || a.Plies == nil || a.Outcome != "loss" || *a.Plies != 1+slowest || !a.PerfectFirst || len(a.Moves) != a.LegalMoves || a.SpentNs != 0 {
			t.Fatalf("%s: %s %s in %v plies, perfect first %v, %d of %d moves, %v of length search; want %d", name, a.Source, a.Outcome, a.Plies, a.PerfectFirst, len(a.Moves), a.LegalMoves, time.Duration(a.SpentNs), 1+slowest)
		}
		for _, m := range a.Moves {
			if m.Plies == nil {
				t.Fatalf("%s: move %s without plies", name, m.Move)
			}
		}
		t.Logf("%s: the position after %s lasts %d plies", name, strings.Join(vf.Sections[0].Moves, " "), *a.Plies)
	}
	if withPlies < 7 {
		t.Fatalf("%d reply files with plies, want at least 7 (replies-41.txt, replies-206.txt, replies-210.txt, replies-226.txt, replies-235.txt, replies-236.txt, replies-240.txt)", withPlies)
	}
	moves := strings.Fields("L:c5,d5,e5,f5,c6 " + lines[1].Move)
	a, err = long.Analyze(ctx, service.PolyominoQuery{Game: "pentominoes", Moves: moves, AllMoves: true, BudgetMs: 20_000})
	if err != nil {
		t.Fatal(err)
	}
	if a.Source != service.SourceBook || a.Plies == nil || *a.Plies != *lines[1].Plies || !a.PerfectFirst || a.SpentNs != 0 {
		t.Fatalf("%v, all_moves, 20 s: source %s, plies %v, perfect first %v, %v of length search", moves, a.Source, a.Plies, a.PerfectFirst, time.Duration(a.SpentNs))
	}
}

// TestEmptyBoardPlies: the empty board's answer from the book has its
// length (9 plies, the book's bounds meeting), led by a perfect first
// move whose position lasts 8; with all_moves the first moves of the
// files with plies have theirs.
func TestEmptyBoardPlies(t *testing.T) {
	if _, err := book.Embedded(); err != nil {
		t.Fatal(err)
	}
	p := service.NewPolyomino(searcherWithBudget(time.Minute))
	for _, all := range []bool{false, true} {
		a, err := p.Analyze(context.Background(), service.PolyominoQuery{Game: "pentominoes", AllMoves: all, BudgetMs: 1000})
		if err != nil {
			t.Fatal(err)
		}
		if a.Source != service.SourceBook || a.Outcome != "win" || a.Plies == nil || *a.Plies != 9 || !a.PerfectFirst {
			t.Fatalf("all_moves %v: %s %s, plies %v, perfect first %v", all, a.Source, a.Outcome, a.Plies, a.PerfectFirst)
		}
		after, err := p.Analyze(context.Background(), service.PolyominoQuery{Game: "pentominoes", Moves: []string{a.BestMoves[0]}, BudgetMs: 1000})
		if err != nil || after.Plies == nil || *after.Plies != 8 || after.Outcome != "loss" {
			t.Fatalf("after the perfect first move %s: %v, plies %v, %s", a.BestMoves[0], err, after.Plies, after.Outcome)
		}
		if !all {
			continue
		}
		withPlies := 0
		for _, m := range a.Moves {
			if m.Plies != nil {
				withPlies++
				if *m.Plies < 8 {
					t.Fatalf("move %s lasts %d plies after it, fewer than the fastest 8", m.Move, *m.Plies)
				}
			}
		}
		if withPlies == 0 || a.Moves[0].Move != a.BestMoves[0] || a.Moves[0].Plies == nil || *a.Moves[0].Plies != 8 {
			t.Fatalf("all_moves: %d moves with plies, first %+v, best %s", withPlies, a.Moves[0], a.BestMoves[0])
		}
		t.Logf("the empty board: plies 9, first %s; %d first moves with plies", a.BestMoves[0], withPlies)
	}
}
