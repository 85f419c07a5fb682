package book

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
)

// TestMergeOpenings: merging the committed openings.txt with nothing
// rewrites it byte for byte; a build output adds its classes in class
// order and updates the count; a value that contradicts the file is an
// error.
func TestMergeOpenings(t *testing.T) {
	data, committed := committedOpenings(t)
	same, err := MergeOpenings(committed)
	if err != nil || !bytes.Equal(same.Format(), data) {
		t.Fatalf("merge with nothing changed the file (%v)", err)
	}
	start, _ := PositionAfter(nil)
	children := start.Children()
	have := map[string]bool{}
	for _, l := range committed.Section(nil).Lines {
		have[l.Move] = true
	}
	newClass := -1
	for i := len(children) - 1; i >= 0; i-- {
		if !have[children[i].Moves[0].String()] {
			newClass = i
			break
		}
	}
	value := "win"
	if newClass < 0 {
		// Every class is classified: the last one taken out, to come back.
		newClass = len(children) - 1
		var l Line
		committed, l = withoutLine(committed, children[newClass].Moves[0].String())
		value = l.Outcome()
		if !l.Wins {
			value += " " + l.Reply
		}
	}
	m := children[newClass].Moves[0].String()
	first := committed.Section(nil).Lines[0]
	// A build run twice (interrupted, then resumed) starts a section
	// each time: the new class is in the second.
	build, err := Parse([]byte("position start\n" + first.Move + " " + itoa(first.Class) + " " + first.Outcome() + " " + first.Reply + " nodes=1 ms=1\n" +
		"position start\n" + m + " " + itoa(len(children[newClass].Moves)) + " " + value + " nodes=5 ms=7\n"))
	if err != nil {
		t.Fatal(err)
	}
	merged, err := MergeOpenings(committed, build)
	if err != nil {
		t.Fatal(err)
	}
	lines := merged.Section(nil).Lines
	if len(lines) != len(committed.Section(nil).Lines)+1 {
		t.Fatalf("%d lines after the merge", len(lines))
	}
	if strings.Contains(string(merged.Format()), "nodes=") {
		t.Error("costs kept")
	}
	if !strings.Contains(merged.Comments[0], "classified by search, "+itoa(len(lines))+" so far") || !listsClass(merged.Comments[0], newClass) {
		t.Errorf("comment not updated: %s", merged.Comments[0])
	}
	if last := lines[len(lines)-1]; newClass == len(children)-1 && last.Move != m {
		t.Errorf("last line %s, want %s", last.Move, m)
	}
	// A contradiction.
	other := "win"
	if first.Wins {
		other = "loss I:a1,a2,a3,a4,a5"
	}
	bad, _ := Parse([]byte("position start\n" + first.Move + " " + itoa(first.Class) + " " + other + "\n"))
	if _, err := MergeOpenings(committed, bad); err == nil {
		t.Error("a contradicting value merged")
	}
	if got := ranges([]int{0, 1, 2, 5, 7, 8}); got != "0-2, 5 and 7-8" {
		t.Errorf("ranges = %q", got)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// committedOpenings is the committed openings file, as bytes and parsed.
func committedOpenings(t *testing.T) ([]byte, *File) {
	t.Helper()
	data, err := files.ReadFile("data/openings.txt")
	if err != nil {
		t.Fatal(err)
	}
	committed, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	return data, committed
}

// withoutLine is f without the start position's line of move, and that
// line.
func withoutLine(f *File, move string) (*File, Line) {
	out := &File{Comments: f.Comments}
	var removed Line
	for _, s := range f.Sections {
		kept := Section{Moves: s.Moves}
		for _, l := range s.Lines {
			if len(s.Moves) == 0 && l.Move == move {
				removed = l
				continue
			}
			kept.Lines = append(kept.Lines, l)
		}
		out.Sections = append(out.Sections, kept)
	}
	return out, removed
}

// listsClass reports whether the comment's class list ("classes 0-35, 38,
// 40-43 and 248-295") names class c, alone or inside a range.
func listsClass(comment string, c int) bool {
	i := strings.LastIndex(comment, "(classes ")
	if i < 0 {
		return false
	}
	list := comment[i+len("(classes "):]
	list = list[:strings.IndexByte(list, ')')]
	for _, f := range strings.FieldsFunc(list, func(r rune) bool { return r == ',' || r == ' ' }) {
		if f == "and" {
			continue
		}
		lo, hi, _ := strings.Cut(f, "-")
		if hi == "" {
			hi = lo
		}
		a, err1 := strconv.Atoi(lo)
		b, err2 := strconv.Atoi(hi)
		if err1 != nil || err2 != nil {
			continue
		}
		if a <= c && c <= b {
			return true
		}
	}
	return false
}

// TestMergeOpeningsChecksLines: a build output's line of the wrong class
// size, a loss without a reply, or a reply that is no legal move after the
// opening is refused before it reaches the book.
func TestMergeOpeningsChecksLines(t *testing.T) {
	_, committed := committedOpenings(t)
	start, _ := PositionAfter(nil)
	class := start.Children()[29]
	m, n := class.Moves[0].String(), itoa(len(class.Moves))
	if m != "F:f5,g5,g6,h6,g7" {
		t.Fatalf("class 29 is %s", m)
	}
	merged := 0
	for _, tc := range []struct{ line, msg string }{
		{m + " 3 loss I:a4,b4,c4,d4,e4", "3 moves in the line, the class has " + n},
		{m + " " + n + " loss X:a1,a1,a1,a1,a1", "reply X:a1,a1,a1,a1,a1"},
		{m + " " + n + " loss I:a4,b4,c4,d4", "reply I:a4,b4,c4,d4"},
		{m + " " + n + " loss I:f1,f2,f3,f4,f5", "reply I:f1,f2,f3,f4,f5"}, // on the opening's f5
		{m + " " + n + " loss", "a loss without its winning reply"},
		{m + " " + n + " win I:a4,b4,c4,d4,e4", "a winning move with a reply"},
	} {
		build, err := Parse([]byte("position start\n" + tc.line + "\n"))
		if err != nil {
			// The parser refuses it first: as good.
			continue
		}
		merged++
		if _, err := MergeOpenings(committed, build); err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%q: %v, want an error with %q", tc.line, err, tc.msg)
		}
	}
	if merged < 4 {
		t.Errorf("only %d of the lines parsed: the merge's checks untested", merged)
	}
}
