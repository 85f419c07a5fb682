package book

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

// freshBook is a book of the embedded files made anew (the lazy files
// registered, none indexed), without the empty board's length.
func freshBook(t *testing.T) *Book {
	t.Helper()
	b, err := loadFiles(Files())
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestEmptyBoardLength: the embedded lower bound (a reply to every
// winning first move that the first player cannot answer with a win
// within 5 plies) meets the reply file of I:b3,c3,d3,e3,f3 (every reply
// lasts 7 plies): the game lasts 9 plies from the empty board, that I
// among its perfect first moves; the files with plies give the lengths
// after their first moves. A bound that misses a winning first move gives
// no length; one that names a losing first move, or that a reply file
// contradicts, fails.
func TestEmptyBoardLength(t *testing.T) {
	empty, err := PositionAfter(nil)
	if err != nil {
		t.Fatal(err)
	}
	b := embeddedBook(t)
	l, ok := b.LengthOf(empty)
	if !ok || l.Plies != 9 {
		t.Fatalf("the empty board's length: %+v, known %v; want 9 plies", l, ok)
	}
	var perfect []string
	for _, m := range l.Perfect {
		perfect = append(perfect, m.String())
	}
	if !slices.Contains(perfect, "I:b3,c3,d3,e3,f3") {
		t.Fatalf("perfect first moves %v, want I:b3,c3,d3,e3,f3 among them", perfect)
	}
	for m, want := range map[string]int{"I:b3,c3,d3,e3,f3": 8, "L:c5,d5,e5,f5,c6": 10, "X:c2,b3,c3,d3,c4": 10} {
		if got, ok := l.After[m]; !ok || got != want {
			t.Errorf("after %s: %d plies (known %v), want %d", m, got, ok, want)
		}
	}
	t.Logf("the empty board lasts %d plies; perfect first moves %v; lengths after %d first moves", l.Plies, perfect, len(l.After))

	lines := strings.SplitAfter(string(lowerBoundFile), "\n")
	var body []string
	for _, line := range lines {
		if strings.Contains(line, " within=") {
			body = append(body, line)
		}
	}
	for _, c := range []struct {
		name    string
		data    string
		wantErr string // "" for no error
	}{
		{"a winning first move missing", strings.Join(body[1:], ""), ""},
		{"a losing first move listed", strings.Join(body, "") + "I:a1,a2,a3,a4,a5 F:c1,d1,d2,e2,d3 within=5 no\n", "not a winning first move"},
		{"a bound the I's file contradicts", strings.ReplaceAll(strings.Join(body, ""), "within=5", "within=7"), "fewer than the bound's 11"},
		{"an even bound", strings.ReplaceAll(strings.Join(body, ""), "within=5", "within=6"), "one odd bound"},
		{"a reply that is not legal", strings.Join(body, "") + "I:b3,c3,d3,e3,f3 I:b3,c3,d3,e3,f3 within=5 no\n", "lower bound, line"},
		{"a malformed line", strings.Join(body, "") + "I:b3,c3,d3,e3,f3 F:f1,g1,g2,h2,g3 within=5 yes\n", "want <opening> <reply> within=P no"},
	} {
		fb := freshBook(t)
		err := fb.addEmptyLength([]byte(c.data))
		switch {
		case c.wantErr == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)):
			t.Errorf("%s: error %v, want %q", c.name, err, c.wantErr)
		}
		if _, ok := fb.LengthOf(empty); ok {
			t.Errorf("%s: the empty board's length is known", c.name)
		}
	}
	if !bytes.Contains(lowerBoundFile, []byte("within=5 no")) {
		t.Fatal("the embedded lower bound has no line")
	}
}
