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
	data, err := files.ReadFile("data/openings.txt")
	if err != nil {
		t.Fatal(err)
	}
	committed, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
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
	if newClass < 0 {
		t.Skip("every class is classified")
	}
	m := children[newClass].Moves[0].String()
	// A build run twice (interrupted, then resumed) starts a section
	// each time: the new class is in the second.
	build, err := Parse([]byte("position start\n" + committed.Section(nil).Lines[0].Move + " 8 win nodes=1 ms=1\n" +
		"position start\n" + m + " " + itoa(len(children[newClass].Moves)) + " win nodes=5 ms=7\n"))
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
	first := committed.Section(nil).Lines[0]
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
