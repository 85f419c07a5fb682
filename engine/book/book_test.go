package book

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gamesolver/gamesolver/engine/polyomino"
	"github.com/gamesolver/gamesolver/engine/verify"
)

func embeddedBook(t testing.TB) *Book {
	t.Helper()
	b, err := Embedded()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func lookup(t *testing.T, b *Book, moves string) (polyomino.Result, *polyomino.Position) {
	t.Helper()
	pos, err := PositionAfter(strings.Fields(moves))
	if err != nil {
		t.Fatal(err)
	}
	res, ok := b.Lookup(pos)
	if !ok {
		t.Fatalf("%q: not in the book", moves)
	}
	return res, pos
}

func moveStrings(ms []polyomino.Move) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.String()
	}
	return out
}

func TestEmbeddedCertificate(t *testing.T) {
	f, err := Parse(EmbeddedCertificate())
	if err != nil {
		t.Fatal(err)
	}
	start := f.Section(nil)
	if start == nil || len(start.Lines) != 1 || !start.Lines[0].Wins {
		t.Fatalf("start section %+v", start)
	}
	first := start.Lines[0].Move
	replies := f.Section([]string{first})
	if replies == nil || len(replies.Lines) != 1189 {
		t.Fatalf("reply section of %s: %+v", first, replies)
	}
	if n := len(EmbeddedCertificate()); n > 100_000 {
		t.Fatalf("certificate of %d bytes", n)
	}
}

// TestLookupThroughSymmetry asks for positions of the certificate drawn in
// other orientations of the board: the book maps its moves onto them.
func TestLookupThroughSymmetry(t *testing.T) {
	b := embeddedBook(t)
	res, _ := lookup(t, b, "")
	if res.Outcome != polyomino.Win || !res.Proven || !slices.Contains(moveStrings(res.BestMoves), "L:c5,d5,e5,f5,c6") {
		t.Fatalf("start: %s %v", res.Outcome, moveStrings(res.BestMoves))
	}
	// The first move mirrored left to right, and the reply mirrored too.
	res, pos := lookup(t, b, "L:c5,d5,e5,f5,f6")
	if res.Outcome != polyomino.Loss || !res.BestComplete || len(res.Moves) != pos.LegalMoveCount() {
		t.Fatalf("after the first move: %s complete %v, %d moves", res.Outcome, res.BestComplete, len(res.Moves))
	}
	// Certificate line: F:a1,b1,b2,c2,b3 1 loss P:e3,f3,g3,f4,g4; mirrored
	// (column x -> 7-x): F:g1,h1,f2,g2,g3 answered by P:b3,c3,d3,b4,c4.
	res, _ = lookup(t, b, "L:c5,d5,e5,f5,f6 F:g1,h1,f2,g2,g3")
	if res.Outcome != polyomino.Win || res.BestComplete || !slices.Equal(moveStrings(res.BestMoves), []string{"P:b3,c3,d3,b4,c4"}) {
		t.Fatalf("after the reply: %s %v", res.Outcome, moveStrings(res.BestMoves))
	}
	res, _ = lookup(t, b, "L:c5,d5,e5,f5,f6 F:g1,h1,f2,g2,g3 P:b3,c3,d3,b4,c4")
	if res.Outcome != polyomino.Loss {
		t.Fatalf("after the third move: %s", res.Outcome)
	}
	pos, _ = PositionAfter([]string{"L:c5,d5,e5,f5,c6", "F:a1,b1,b2,c2,b3", "I:h1,h2,h3,h4,h5"})
	if _, ok := b.Lookup(pos); ok {
		t.Fatal("a position the book does not prove was answered")
	}
}

// TestBookAgreesWithSearch solves a few book positions two plies from the
// end of the certificate with the engine.
func TestBookAgreesWithSearch(t *testing.T) {
	if testing.Short() {
		t.Skip("search")
	}
	b := embeddedBook(t)
	res, _ := lookup(t, b, "L:c5,d5,e5,f5,c6 T:f2,g2,h2,g3,g4")
	pos, _ := PositionAfter([]string{"L:c5,d5,e5,f5,c6", "T:f2,g2,h2,g3,g4", res.BestMoves[0].String()})
	r, err := polyomino.Solve(t.Context(), pos, polyomino.Options{FirstWin: true, TableMB: 64})
	if err != nil || !r.Proven || r.Outcome != polyomino.Loss {
		t.Fatalf("engine: %v %v %s", err, r.Proven, r.Outcome)
	}
}

// TestLongL: the long-L opening is lost for its maker; the book names
// every winning reply (the two the search found) and knows every reply.
func TestLongL(t *testing.T) {
	b := embeddedBook(t)
	res, pos := lookup(t, b, "L:c4,d4,e4,f4,c5")
	want := []string{"I:c8,d8,e8,f8,g8", "I:d8,e8,f8,g8,h8"}
	got := moveStrings(res.BestMoves)
	slices.Sort(got)
	if res.Outcome != polyomino.Win || !res.BestComplete || !slices.Equal(got, want) {
		t.Fatalf("long-L: %s complete %v best %v", res.Outcome, res.BestComplete, got)
	}
	proven := 0
	for _, mr := range res.Moves {
		if mr.Proven {
			proven++
		}
	}
	if proven != pos.LegalMoveCount() {
		t.Fatalf("%d of %d replies proven", proven, pos.LegalMoveCount())
	}
	// After a winning reply the first player is lost; after a losing one
	// the book has his winning move (and, from lengths-longl.txt, a
	// fastest one when that is another).
	if res, _ := lookup(t, b, "L:c4,d4,e4,f4,c5 I:c8,d8,e8,f8,g8"); res.Outcome != polyomino.Loss {
		t.Fatalf("after I:c8,d8,e8,f8,g8: %s", res.Outcome)
	}
	if res, _ := lookup(t, b, "L:c4,d4,e4,f4,c5 F:a1,b1,b2,c2,b3"); res.Outcome != polyomino.Win || len(res.BestMoves) == 0 || len(res.BestMoves) > 2 {
		t.Fatalf("after F:a1,b1,b2,c2,b3: %s %v", res.Outcome, moveStrings(res.BestMoves))
	}
}

// BenchmarkLoad indexes the embedded files that are not lazy (what the
// first lookup pays).
func BenchmarkLoad(b *testing.B) {
	var data [][]byte
	for name, f := range Files() {
		if !strings.Contains(name, "/") {
			data = append(data, f)
		}
	}
	for range b.N {
		if _, err := Load(data...); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLookup answers the position after the first move, turned (every
// reply listed with its value).
func BenchmarkLookup(b *testing.B) {
	bk := embeddedBook(b)
	pos, err := PositionAfter([]string{"L:c3,d3,d4,d5,d6"})
	if err != nil {
		b.Fatal(err)
	}
	for range b.N {
		if _, ok := bk.Lookup(pos); !ok {
			b.Fatal("not in the book")
		}
	}
}

// TestRefutations: each refutation file proves a losing opening of
// openings.txt lost with the reply openings.txt names, and the book knows
// every third move after it, each answered.
func TestRefutations(t *testing.T) {
	b := embeddedBook(t)
	openings, err := Parse(Files()["openings.txt"])
	if err != nil {
		t.Fatal(err)
	}
	losses := map[string]string{}
	for _, s := range openings.Sections {
		for _, l := range s.Lines {
			if !l.Wins && len(s.Moves) == 0 {
				losses[l.Move] = l.Reply
			}
		}
	}
	files := parsedFiles(t, "refutation-")
	for name, f := range files {
		if len(f.Sections) != 2 || len(f.Sections[0].Moves) != 1 || len(f.Sections[0].Lines) != 1 {
			t.Fatalf("%s: %d sections", name, len(f.Sections))
		}
		opening, reply := f.Sections[0].Moves[0], f.Sections[0].Lines[0].Move
		if losses[opening] != reply {
			t.Fatalf("%s: refutes %s with %s, openings.txt says %q", name, opening, reply, losses[opening])
		}
		res, pos := lookup(t, b, opening+" "+reply)
		if res.Outcome != polyomino.Loss || !res.BestComplete || len(res.Moves) != pos.LegalMoveCount() {
			t.Fatalf("%s: after the reply %s complete %v, %d of %d moves", name, res.Outcome, res.BestComplete, len(res.Moves), pos.LegalMoveCount())
		}
		// Its answer is among the winning moves the book knows: another
		// file may know more (class 170's refutation, T then F, reaches
		// the positions of class 15's, F then T).
		third := f.Sections[1].Lines[0]
		res, _ = lookup(t, b, opening+" "+reply+" "+third.Move)
		if res.Outcome != polyomino.Win || !slices.Contains(moveStrings(res.BestMoves), third.Reply) {
			t.Fatalf("%s: after %s: %s %v", name, third.Move, res.Outcome, moveStrings(res.BestMoves))
		}
	}
	if len(files) == 0 {
		t.Fatal("no refutation in the book")
	}
}

// parsedFiles parses the embedded files whose names start with prefix.
func parsedFiles(t *testing.T, prefix string) map[string]*File {
	t.Helper()
	out := map[string]*File{}
	for name, data := range Files() {
		if !strings.HasPrefix(name, prefix) {
			continue
		}
		f, err := Parse(data)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out[name] = f
	}
	return out
}

func TestNewRefutation(t *testing.T) {
	f, err := Parse(Files()["refutation-29.txt"])
	if err != nil {
		t.Fatal(err)
	}
	moves := []string{"F:f5,g5,g6,h6,g7", "I:a4,b4,c4,d4,e4"}
	sec := *f.Section(moves)
	got, err := NewRefutation(moves, sec)
	if err != nil {
		t.Fatal(err)
	}
	if string(got.Format()[len(comments(got)):]) != string(f.Format()[len(comments(f)):]) {
		t.Fatal("NewRefutation does not rebuild refutation-29.txt")
	}
	won := sec
	won.Lines = slices.Clone(sec.Lines)
	won.Lines[3] = Line{Move: won.Lines[3].Move, Class: won.Lines[3].Class, Wins: true}
	if _, err := NewRefutation(moves, won); err == nil || !strings.Contains(err.Error(), "no winning answer") {
		t.Fatalf("a reply that wins: err %v", err)
	}
	short := sec
	short.Lines = sec.Lines[1:]
	if _, err := NewRefutation(moves, short); err == nil || !strings.Contains(err.Error(), "851 reply classes classified, the position has 852") {
		t.Fatalf("a reply missing: err %v", err)
	}
	if _, err := NewRefutation(nil, sec); err == nil {
		t.Fatal("no moves: no error")
	}
}

// comments is the text of f's leading comment lines.
func comments(f *File) string {
	var sb strings.Builder
	for _, c := range f.Comments {
		sb.WriteString("#" + c + "\n")
	}
	return sb.String()
}

// BenchmarkIndexReplies indexes one reply file: what the first lookup of a
// position after a winning first move pays.
func BenchmarkIndexReplies(b *testing.B) {
	data := Files()["replies/replies-55.txt"]
	for range b.N {
		bk := &Book{entries: map[string]*entry{}}
		if err := bk.add(data); err != nil {
			b.Fatal(err)
		}
	}
}

// TestReplies: each reply file answers every reply to a first move that
// openings.txt calls a win, each reply with a winning third move, and the
// book indexes all of them without disagreeing with its other files.
func TestReplies(t *testing.T) {
	openings, err := Parse(Files()["openings.txt"])
	if err != nil {
		t.Fatal(err)
	}
	wins := map[string]bool{}
	for _, l := range openings.Section(nil).Lines {
		wins[l.Move] = l.Wins
	}
	b := embeddedBook(t)
	if err := b.LoadAll(); err != nil {
		t.Fatal(err)
	}
	files, indexed := b.Lazy()
	if files == 0 || indexed != files {
		t.Fatalf("%d reply files, %d indexed", files, indexed)
	}
	replies := parsedFiles(t, "replies/")
	for name, f := range replies {
		if len(f.Sections) != 1 || len(f.Sections[0].Moves) != 1 {
			t.Fatalf("%s: %d sections", name, len(f.Sections))
		}
		opening := f.Sections[0].Moves[0]
		if !wins[opening] {
			t.Fatalf("%s: replies to %s, which openings.txt does not call a win", name, opening)
		}
		res, pos := lookup(t, b, opening)
		if res.Outcome != polyomino.Loss || !res.BestComplete || len(res.Moves) != pos.LegalMoveCount() {
			t.Fatalf("%s: after %s: %s complete %v, %d of %d moves", name, opening, res.Outcome, res.BestComplete, len(res.Moves), pos.LegalMoveCount())
		}
		for _, mr := range res.Moves {
			if !mr.Proven {
				t.Fatalf("%s: reply %s not proven", name, mr.Move)
			}
		}
		if len(f.Sections[0].Lines) != len(pos.SymmetryClasses()) {
			t.Fatalf("%s: %d lines, %d reply classes", name, len(f.Sections[0].Lines), len(pos.SymmetryClasses()))
		}
		l := f.Sections[0].Lines[len(f.Sections[0].Lines)/2]
		res, _ = lookup(t, b, opening+" "+l.Move)
		if res.Outcome != polyomino.Win || !slices.Contains(moveStrings(res.BestMoves), l.Reply) {
			t.Fatalf("%s: after %s: %s %v", name, l.Move, res.Outcome, moveStrings(res.BestMoves))
		}
	}
	if len(replies) != files {
		t.Fatalf("%d reply files embedded, %d lazy", len(replies), files)
	}
}

// TestLazyReplies: a reply file is indexed only when a position with its
// first move is asked, in any orientation and whichever piece was placed
// first; a file that does not start after one move is refused.
// lazyBook55 is the book of openings.txt with replies-55.txt added lazily,
// and that file parsed.
func lazyBook55(t *testing.T) (*Book, *File) {
	t.Helper()
	b, err := Load(Files()["openings.txt"])
	if err != nil {
		t.Fatal(err)
	}
	data := Files()["replies/replies-55.txt"]
	if err := b.AddLazy("replies-55.txt", data); err != nil {
		t.Fatal(err)
	}
	f, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	return b, f
}

func TestLazyReplies(t *testing.T) {
	b, f := lazyBook55(t)
	opening := f.Sections[0].Moves[0] // L:b3,c3,d3,e3,b4
	l := f.Sections[0].Lines[0]       // F:e1,f1,f2,g2,f3 1 loss Y:c6,d6,e6,f6,d7
	size := b.Size()
	// Not asked yet: a position after another first move leaves it be.
	pos, _ := PositionAfter([]string{"F:a1,b1,b2,c2,b3"})
	if _, ok := b.Lookup(pos); !ok {
		t.Fatal("openings.txt: F:a1,b1,b2,c2,b3 not answered")
	}
	if files, indexed := b.Lazy(); files != 1 || indexed != 0 {
		t.Fatalf("lazy %d, indexed %d before its position was asked", files, indexed)
	}
	// The reply and the opening mirrored top to bottom (row r -> 9-r),
	// the reply given first: the file is indexed and answers.
	mirror := func(m string) string {
		mv, err := polyomino.ParseMove(m)
		if err != nil {
			t.Fatal(err)
		}
		for i := range mv.Cells {
			mv.Cells[i].Y = 7 - mv.Cells[i].Y
		}
		return mv.String()
	}
	var err error
	pos, err = PositionAfter([]string{mirror(l.Move), mirror(opening)})
	if err != nil {
		t.Fatal(err)
	}
	res, ok := b.Lookup(pos)
	if !ok || res.Outcome != polyomino.Win || !slices.Equal(moveStrings(res.BestMoves), []string{mirror(l.Reply)}) {
		t.Fatalf("after %s %s: %v %s %v", mirror(l.Move), mirror(opening), ok, res.Outcome, moveStrings(res.BestMoves))
	}
	if files, indexed := b.Lazy(); files != 1 || indexed != 1 || b.Size() <= size+len(f.Sections[0].Lines) {
		t.Fatalf("lazy %d, indexed %d, size %d (from %d)", files, indexed, b.Size(), size)
	}
	// A file that contradicts the book (class 15 is lost to its reply
	// T:d4,b5,c5,d5,d6; this one says the reply loses) is left out whole.
	bad := "position F:d3,e3,e4,f4,e5\nT:d4,b5,c5,d5,d6 1 loss I:a1,a2,a3,a4,a5\n"
	if err := b.AddLazy("bad", []byte(bad)); err != nil {
		t.Fatal(err)
	}
	size = b.Size()
	pos, _ = PositionAfter([]string{"F:d3,e3,e4,f4,e5", "T:d4,b5,c5,d5,d6"})
	if res, ok := b.Lookup(pos); !ok || res.Outcome != polyomino.Loss {
		t.Fatalf("after class 15's refutation: %v %s", ok, res.Outcome)
	}
	if err := b.LoadAll(); err == nil || !strings.Contains(err.Error(), "both won and lost") {
		t.Fatalf("LoadAll: err %v", err)
	}
	if files, indexed := b.Lazy(); files != 2 || indexed != 1 || b.Size() != size {
		t.Fatalf("lazy %d, indexed %d, size %d (from %d)", files, indexed, b.Size(), size)
	}
	if err := b.AddLazy("again", Files()["replies/replies-55.txt"]); err == nil {
		t.Fatal("a second file from the same position: no error")
	}
	if err := b.AddLazy("certificate.txt", EmbeddedCertificate()); err == nil {
		t.Fatal("a file from the start position: no error")
	}
	if err := b.AddLazy("empty", []byte("# nothing\n")); err == nil {
		t.Fatal("a file without a position: no error")
	}
}

// TestLazyConcurrent: lookups that need the same lazy file at once all get
// its answer (go test -race checks the locking).
func TestLazyConcurrent(t *testing.T) {
	b, err := Load(Files()["openings.txt"])
	if err != nil {
		t.Fatal(err)
	}
	if err := b.AddLazy("replies-55.txt", Files()["replies/replies-55.txt"]); err != nil {
		t.Fatal(err)
	}
	pos, _ := PositionAfter([]string{"L:b3,c3,d3,e3,b4", "F:e1,f1,f2,g2,f3"})
	other, _ := PositionAfter([]string{"F:a1,b1,b2,c2,b3"})
	var wg sync.WaitGroup
	errs := make(chan string, 16)
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := pos
			if i%4 == 3 {
				p = other // a lookup that needs no lazy file
			}
			res, ok := b.Lookup(p)
			if !ok || res.Outcome != polyomino.Win && p == pos || res.Outcome != polyomino.Loss && p == other {
				errs <- fmt.Sprintf("lookup %d: %v %s", i, ok, res.Outcome)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// LookupWait without wait does not index a reply file in the request: it
// starts indexing in the background and answers from what is indexed; a
// later lookup finds the file's positions.
func TestLookupNoWait(t *testing.T) {
	b, f := lazyBook55(t)
	l := f.Sections[0].Lines[0]
	pos, err := PositionAfter([]string{f.Sections[0].Moves[0], l.Move})
	if err != nil {
		t.Fatal(err)
	}
	// Indexing the file takes about 0.1 s; the lookup answers in
	// microseconds, before it (Lookup would wait, and answer a win).
	if _, ok := b.LookupWait(pos, false); ok {
		t.Fatal("the lookup without wait waited for the file")
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, indexed := b.Lazy(); indexed == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the file was never indexed in the background")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if res, ok := b.LookupWait(pos, false); !ok || res.Outcome != polyomino.Win {
		t.Fatalf("after the background indexing: %v %v", ok, res.Outcome)
	}
}

// TestDeepProofVerifies: a refutation of a deep position whose empty
// cells are symmetric off the board's centre (the bottom row covered) is
// built with the engine's classes and accepted by engine/verify, whose
// classes follow the same rule (the symmetries of the empty cells).
func TestDeepProofVerifies(t *testing.T) {
	moves := []string{"F:a1,b1,b2,c2,b3", "I:c1,d1,e1,f1,g1", "L:h1,e2,f2,g2,h2", "N:c5,b6,c6,b7,b8", "P:c7,d7,c8,d8,e8", "T:g6,g7,f8,g8,h8", "W:d2,c3,d3,b4,c4", "V:g3,g4,e5,f5,g5"}
	after, err := PositionAfter(moves)
	if err != nil {
		t.Fatal(err)
	}
	replies, err := Classify(context.Background(), moves, after, nil, &Options{Workers: 1, TableMB: 16}, nil)
	if err != nil {
		t.Fatal(err)
	}
	f, err := NewRefutation(moves, replies)
	if err != nil {
		t.Fatal(err)
	}
	if n, classes := len(after.LegalMoves()), len(after.SymmetryClasses()); classes >= n {
		t.Fatalf("%d moves in %d classes: the position should have a symmetry", n, classes)
	}
	g, err := verify.NewGame()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := verify.Check(context.Background(), g, f.Format(), verify.Options{}); err != nil {
		t.Errorf("verify rejects the book's proof: %v", err)
	}
}

func TestTopReplies(t *testing.T) {
	counts := map[string]int{"I:a1,a2,a3,a4,a5": 2, "L:a1,a2,a3,a4,b4": 5, "X:b1,a2,b2,c2,b3": 2, "bad": 9}
	var got []string
	for _, m := range topReplies(counts, 3) {
		got = append(got, m.String())
	}
	// "bad" is the most frequent but no move; ties in notation order.
	want := []string{"L:a1,a2,a3,a4,b4", "I:a1,a2,a3,a4,a5"}
	if !slices.Equal(got, want) {
		t.Errorf("topReplies = %v, want %v", got, want)
	}
	if topReplies(counts, 0) != nil || topReplies(nil, 3) != nil {
		t.Error("no replies wanted or none found: nil")
	}
}

// TestClassifyKnown: a build resumed with the lines found before takes
// them without a search (their recorded costs stay), searches the rest,
// ignores a known line whose class size does not match, and stops at a
// known line the check refuses before any search.
func TestClassifyKnown(t *testing.T) {
	moves := []string{"F:a1,b1,b2,c2,b3", "I:c1,d1,e1,f1,g1", "L:h1,e2,f2,g2,h2", "N:c5,b6,c6,b7,b8", "P:c7,d7,c8,d8,e8", "T:g6,g7,f8,g8,h8", "W:d2,c3,d3,b4,c4", "V:g3,g4,e5,f5,g5"}
	after, err := PositionAfter(moves)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	full, err := Classify(ctx, moves, after, nil, &Options{Workers: 1, TableMB: 16}, nil)
	if err != nil {
		t.Fatal(err)
	}
	const marker = 1 << 40
	known := map[string]Line{}
	for i, l := range full.Lines {
		switch i % 3 {
		case 0:
			l.Nodes = marker
			known[l.Move] = l
		case 1:
			l.Nodes, l.Class = marker, l.Class+1 // not this class: searched again
			known[l.Move] = l
		}
	}
	var checked int
	again, err := Classify(ctx, moves, after, nil, &Options{Workers: 1, TableMB: 16, Known: known}, func(Line) error {
		checked++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(again.Lines) != len(full.Lines) || checked != len(full.Lines) {
		t.Fatalf("%d lines, %d checked; want %d", len(again.Lines), checked, len(full.Lines))
	}
	for i, l := range again.Lines {
		if l.Move != full.Lines[i].Move || l.Wins != full.Lines[i].Wins || l.Class != full.Lines[i].Class {
			t.Fatalf("line %d: %+v, want %+v", i, l, full.Lines[i])
		}
		if taken := l.Nodes == marker; taken != (i%3 == 0) {
			t.Errorf("line %d (%s): nodes %d; taken from Known: %v, want %v", i, l.Move, l.Nodes, taken, i%3 == 0)
		}
	}
	// A known line the check refuses stops the work before any search.
	stop := errors.New("stop")
	first := full.Lines[len(full.Lines)-1]
	var searched int
	sec, err := Classify(ctx, moves, after, nil, &Options{Workers: 1, TableMB: 16, Known: map[string]Line{first.Move: first},
		Log: func(string, ...any) { searched++ }}, func(l Line) error {
		if l.Move == first.Move {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || len(sec.Lines) != 1 || searched != 0 {
		t.Fatalf("err %v, %d lines, %d log lines; want the check's error, the known line, no search", err, len(sec.Lines), searched)
	}
}
