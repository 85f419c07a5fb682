package book

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/gamesolver/gamesolver/engine/polyomino"
)

// lengthsMoves is a game deep enough for the tests of files with plies
// to classify every move of its positions at once.
var lengthsMoves = []string{"F:a1,b1,b2,c2,b3", "I:c1,d1,e1,f1,g1", "L:h1,e2,f2,g2,h2", "N:c5,b6,c6,b7,b8", "P:c7,d7,c8,d8,e8", "T:g6,g7,f8,g8,h8", "W:d2,c3,d3,b4,c4", "V:g3,g4,e5,f5,g5"}

// lengthsPositions: after 4 moves of lengthsMoves the player to move wins,
// by moves after which the game lasts 4 or 6 plies; after 5 and
// T:f3,f4,e5,f5,g5 he loses, by moves after which it lasts 1 or 3
// (TestClassifyLengths checks it).
var lengthsPositions = [][]string{lengthsMoves[:4], append(slices.Clone(lengthsMoves[:5]), "T:f3,f4,e5,f5,g5")}

// lengthOf is the engine's length of the game from the position after
// moves, its value solved first on tt.
func lengthOf(t *testing.T, moves []string, tt *polyomino.Table) (int, polyomino.Outcome) {
	t.Helper()
	pos, err := PositionAfter(moves)
	if err != nil {
		t.Fatal(err)
	}
	res, err := polyomino.Solve(t.Context(), pos, polyomino.Options{Table: tt, FirstWin: true})
	if err != nil || !res.Proven {
		t.Fatalf("%v: %v %v", moves, err, res.Proven)
	}
	l := polyomino.Length(t.Context(), pos, res.Outcome, polyomino.LengthOptions{Table: tt})
	if !l.Proven {
		t.Fatalf("%v: no length", moves)
	}
	return l.Plies, res.Outcome
}

// TestClassifyLengths classifies every move of a won and of a lost
// position with Options.Lengths, and loads each section as a book: the
// book's plies for the position, after each move, after each reply, and
// its perfect moves agree with the engine's length search run on each.
func TestClassifyLengths(t *testing.T) {
	tt := polyomino.NewTable(16)
	defer tt.Release()
	outcomes := map[polyomino.Outcome]bool{}
	for _, moves := range lengthsPositions {
		n := len(moves)
		pos := mustPosition(t, moves)
		sec, err := Classify(context.Background(), moves, pos, nil, &Options{Workers: 1, TableMB: 16, Lengths: true}, nil)
		if err != nil {
			t.Fatal(err)
		}
		want, outcome := lengthOf(t, moves, tt)
		// Moves of the perfect kind last different plies: the book
		// must pick the least (a win) or the most (a loss).
		kinds := map[int]bool{}
		for _, l := range sec.Lines {
			if l.Wins == (outcome == polyomino.Win) {
				kinds[*l.Plies] = true
			}
		}
		if len(kinds) < 2 {
			t.Fatalf("%d moves (%s): the moves of perfect play's kind last %v plies: want two lengths", n, outcome, kinds)
		}
		b, err := Load((&File{Sections: []Section{sec}}).Format())
		if err != nil {
			t.Fatal(err)
		}
		outcomes[outcome] = true
		l, ok := b.LengthOf(pos)
		if !ok || l.Plies != want {
			t.Fatalf("%d moves (%s): book %d plies (known %v), engine %d", n, outcome, l.Plies, ok, want)
		}
		if len(l.Perfect) == 0 || len(l.After) != pos.LegalMoveCount() {
			t.Fatalf("%d moves: %d perfect moves, plies after %d of %d moves", n, len(l.Perfect), len(l.After), pos.LegalMoveCount())
		}
		for _, m := range l.Perfect {
			if got := l.After[m.String()]; got != want-1 {
				t.Errorf("%d moves: perfect move %s: %d plies after it, want %d", n, m, got, want-1)
			}
		}
		for _, line := range sec.Lines {
			after := append(slices.Clone(moves), line.Move)
			got, _ := lengthOf(t, after, tt)
			if line.Plies == nil || *line.Plies != got || l.After[line.Move] != got {
				t.Fatalf("%d moves, %s: line plies %v, book %d, engine %d", n, line.Move, line.Plies, l.After[line.Move], got)
			}
			if line.Wins {
				continue
			}
			// The reply is a fastest win: the game lasts one ply less.
			replied := append(after, line.Reply)
			if got, _ := lengthOf(t, replied, tt); got != *line.Plies-1 {
				t.Fatalf("%d moves, %s answered by %s: %d plies after, want %d", n, line.Move, line.Reply, got, *line.Plies-1)
			}
			bl, ok := b.LengthOf(mustPosition(t, after))
			if !ok || bl.Plies != *line.Plies || !slices.Equal(moveStrings(bl.Perfect), []string{line.Reply}) || bl.After[line.Reply] != *line.Plies-1 {
				t.Fatalf("%d moves, %s: book length %+v (%v)", n, line.Move, bl, ok)
			}
			if bl, ok := b.LengthOf(mustPosition(t, replied)); !ok || bl.Plies != *line.Plies-1 {
				t.Fatalf("%d moves, %s %s: book length %+v (%v)", n, line.Move, line.Reply, bl, ok)
			}
		}
	}
	if !outcomes[polyomino.Win] || !outcomes[polyomino.Loss] {
		t.Fatalf("outcomes %v: want a won and a lost position", outcomes)
	}
}

func mustPosition(t *testing.T, moves []string) *polyomino.Position {
	t.Helper()
	pos, err := PositionAfter(moves)
	if err != nil {
		t.Fatal(err)
	}
	return pos
}

// TestLengthsDisagree: two files that give one position two lengths do
// not load; lines without plies leave the length unknown.
func TestLengthsDisagree(t *testing.T) {
	moves := lengthsPositions[1]
	pos := mustPosition(t, moves)
	sec, err := Classify(context.Background(), moves, pos, nil, &Options{Workers: 1, TableMB: 16, Lengths: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	good := (&File{Sections: []Section{sec}}).Format()
	bad := slices.Clone(sec.Lines)
	n := *bad[0].Plies + 2
	bad[0].Plies = &n
	if _, err := Load(good, (&File{Sections: []Section{{Moves: moves, Lines: bad}}}).Format()); err == nil || !strings.Contains(err.Error(), "disagree") {
		t.Fatalf("err %v, want the files' disagreement", err)
	}
	plain := slices.Clone(sec.Lines)
	for i := range plain {
		plain[i].Plies = nil
	}
	b, err := Load((&File{Sections: []Section{{Moves: moves, Lines: plain}}}).Format())
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := b.LengthOf(pos); ok {
		t.Fatal("a length from lines without plies")
	}
	if _, ok := b.Lookup(pos); !ok {
		t.Fatal("the value is still known")
	}
}

// TestEmbeddedLengths: each lengths file (lengths-<name>.txt) is the
// section of a position of another book file again, and a reply file
// built with lengths (replies/replies-210.txt) its own source, every class with its
// plies (a losing one with its reply), so that one ply in the book knows
// the position's length: the fastest winning line's plus one when a line
// wins (lengths-longl.txt: two winning replies to the long-L opening),
// else the slowest reply's plus one (lengths-certificate.txt), those lines
// its perfect moves. Each file's cheapest losing line's plies, and its
// reply's, are found again by the length search.
func TestEmbeddedLengths(t *testing.T) {
	sources := map[string]struct {
		file     string // the book file whose section it repeats
		complete bool   // every class: the position's length is known
	}{
		"lengths-certificate.txt": {"certificate.txt", true},
		"lengths-longl.txt":       {"longl.txt", true},
	}
	b := embeddedBook(t)
	tt := polyomino.NewTable(64)
	defer tt.Release()
	found := 0
	for name, data := range Files() {
		src, ok := sources[name]
		switch {
		case strings.HasPrefix(name, "replies/") && bytes.Contains(data, []byte(" plies=")):
			// A reply file built with lengths: its own source, indexed
			// lazily with its plies.
			src.file, src.complete = name, true
		case !strings.HasPrefix(name, "lengths-"):
			continue
		case !ok:
			t.Fatalf("%s: a lengths file the test does not know", name)
		}
		found++
		f, err := Parse(data)
		if err != nil {
			t.Fatal(err)
		}
		of, err := Parse(Files()[src.file])
		if err != nil {
			t.Fatal(err)
		}
		if len(f.Sections) != 1 || len(f.Sections[0].Lines) == 0 {
			t.Fatalf("%s: %d sections", name, len(f.Sections))
		}
		sec := f.Sections[0]
		want := of.Section(sec.Moves)
		if want == nil {
			t.Fatalf("%s: %s has no section after %v", name, src.file, sec.Moves)
		}
		lines := sec.Lines
		of2 := map[string]Line{}
		for _, l := range want.Lines {
			of2[l.Move] = l
		}
		// The position's length after its best line: the fastest win,
		// else the slowest loss.
		best, wins, cheapest := 0, false, -1
		for i, l := range lines {
			w, ok := of2[l.Move]
			if !ok || l.Class != w.Class || l.Wins != w.Wins || l.Plies == nil || (l.Reply == "") != l.Wins || *l.Plies%2 == 1 == l.Wins {
				t.Fatalf("%s: line %d: %+v; %s has %+v", name, i, l, src.file, w)
			}
			switch {
			case l.Wins && (!wins || *l.Plies < best):
				best, wins = *l.Plies, true
			case !wins:
				best = max(best, *l.Plies)
			}
			if !l.Wins && (cheapest < 0 || l.Elapsed < lines[cheapest].Elapsed) {
				cheapest = i
			}
		}
		pos := mustPosition(t, sec.Moves)
		if _, ok := b.Lookup(pos); !ok { // indexes a lazy file
			t.Fatalf("%s: %v is not in the book", name, sec.Moves)
		}
		l, ok := b.LengthOf(pos)
		if src.complete != (len(lines) == len(want.Lines)) || ok != src.complete {
			t.Fatalf("%s: %d of %d lines, the position's length known: %v", name, len(lines), len(want.Lines), ok)
		}
		if ok && (l.Plies != best+1 || len(l.After) != pos.LegalMoveCount() || len(l.Perfect) == 0) {
			t.Fatalf("%s: one ply in: %d plies, %d perfect moves, %d moves with plies; want %d", name, l.Plies, len(l.Perfect), len(l.After), best+1)
		}
		for _, m := range l.Perfect {
			if l.After[m.String()] != best {
				t.Fatalf("%s: perfect move %s: %d plies after it, want %d", name, m, l.After[m.String()], best)
			}
		}
		t.Logf("%s: %d lines, the position lasts %d plies (%d perfect moves)", name, len(lines), l.Plies, len(l.Perfect))
		c := lines[cheapest]
		moves := append(slices.Clone(sec.Moves), c.Move)
		if bl, ok := b.LengthOf(mustPosition(t, moves)); !ok || bl.Plies != *c.Plies {
			t.Fatalf("%s: %v: book length %+v (%v), want %d", name, moves, bl, ok, *c.Plies)
		}
		if testing.Short() {
			continue
		}
		if got, _ := lengthOf(t, moves, tt); got != *c.Plies {
			t.Fatalf("%s: %v: %d plies, the file says %d", name, moves, got, *c.Plies)
		}
		if got, _ := lengthOf(t, append(moves, c.Reply), tt); got != *c.Plies-1 {
			t.Fatalf("%s: %v %s: %d plies, want %d", name, moves, c.Reply, got, *c.Plies-1)
		}
	}
	if found == 0 {
		t.Fatal("no lengths file")
	}
}

// TestLazyLengths: a lazily indexed file keeps its plies when merged into
// the book, and one that disagrees with the book on a length is left out.
func TestLazyLengths(t *testing.T) {
	data := Files()["lengths-certificate.txt"]
	f, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	sec := f.Sections[0]
	part := &File{Sections: []Section{{Moves: sec.Moves, Lines: sec.Lines[:3]}}}
	b, err := Load(EmbeddedCertificate())
	if err != nil {
		t.Fatal(err)
	}
	if err := b.AddLazy("part", part.Format()); err != nil {
		t.Fatal(err)
	}
	l := sec.Lines[1]
	pos := mustPosition(t, append(slices.Clone(sec.Moves), l.Move))
	if _, ok := b.Lookup(pos); !ok {
		t.Fatal("not in the book")
	}
	got, ok := b.LengthOf(pos)
	if !ok || got.Plies != *l.Plies || !slices.Equal(moveStrings(got.Perfect), []string{l.Reply}) {
		t.Fatalf("after %s: length %+v (%v), want %d plies, %s", l.Move, got, ok, *l.Plies, l.Reply)
	}
	// The whole file, then the same lines with other plies, lazily.
	b, err = Load(data)
	if err != nil {
		t.Fatal(err)
	}
	wrong := slices.Clone(part.Sections[0].Lines)
	for i := range wrong {
		n := *wrong[i].Plies + 2
		wrong[i].Plies = &n
	}
	if err := b.AddLazy("wrong", (&File{Sections: []Section{{Moves: sec.Moves, Lines: wrong}}}).Format()); err != nil {
		t.Fatal(err)
	}
	if err := b.LoadAll(); err == nil || !strings.Contains(err.Error(), "disagree") {
		t.Fatalf("LoadAll: err %v, want the files' disagreement", err)
	}
	if got, ok := b.LengthOf(pos); !ok || got.Plies != *l.Plies {
		t.Fatalf("after the refused file: %+v (%v)", got, ok)
	}
}
