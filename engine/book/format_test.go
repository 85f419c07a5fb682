package book

import (
	"errors"
	"testing"
	"time"
)

func TestFormatRoundTrip(t *testing.T) {
	seven := 7
	f := &File{
		Comments: []string{" a book"},
		Sections: []Section{
			{Lines: []Line{{Move: "L:c5,d5,e5,f5,c6", Class: 8, Wins: true, Nodes: 12, Elapsed: 3 * time.Millisecond}}},
			{Moves: []string{"L:c5,d5,e5,f5,c6"}, Lines: []Line{{Move: "I:a1,a2,a3,a4,a5", Class: 1, Reply: "L:b3,c3,d3,e3,e4"}, {Move: "F:a1,b1,b2,c2,b3", Class: 1, Reply: "P:e3,f3,g3,f4,g4", Plies: &seven}}},
		},
	}
	text := f.Format()
	g, err := Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	if string(g.Format()) != string(text) {
		t.Fatalf("round trip:\n%s\n---\n%s", text, g.Format())
	}
	if s := g.Section([]string{"L:c5,d5,e5,f5,c6"}); s == nil || s.Lines[0].Reply != "L:b3,c3,d3,e3,e4" {
		t.Fatalf("section: %+v", s)
	}
}

func TestParseErrors(t *testing.T) {
	for _, bad := range []string{
		"I:a1,a2,a3,a4,a5 1 loss\n",                // before a position
		"position\n",                               // no moves
		"position start\nI:a1,a2,a3,a4,a5 x win\n", // class size
		"position start\nI:a1,a2,a3,a4,a5 1 draw\n",
		"position start\nI:a1,a2,a3,a4,a5 1 win L:b1,b2,b3,b4,c4\n", // a reply for a win
		"position start\nI:a1,a2,a3,a4,a5 1 loss nodes=x\n",
		"position start\nI:a1,a2,a3,a4,a5 1 loss foo=1\n",
		"position start\nI:a1,a2,a3,a4,a5 1 loss plies=-1\n",
		"position start\nI:a1,a2,a3,a4,a5 1 loss plies=300\n",
		"position start\nI:a1,a2,a3,a4,a5 1 loss L:b3,c3,d3,e3,e4 plies=2\n", // a won position lasts an odd number
		"position start\nI:a1,a2,a3,a4,a5 1 win plies=3\n",                   // a lost one an even number
	} {
		if _, err := Parse([]byte(bad)); !errors.Is(err, ErrFormat) {
			t.Errorf("%q: err %v, want ErrFormat", bad, err)
		}
	}
}

// FuzzParse: Parse never panics, and what it accepts formats to a text it
// reads back to the same file.
func FuzzParse(f *testing.F) {
	f.Add([]byte("# a book\nposition start\nL:c5,d5,e5,f5,c6 8 win nodes=12 ms=3\n"))
	f.Add([]byte("position L:c5,d5,e5,f5,c6\nI:a1,a2,a3,a4,a5 1 loss L:b3,c3,d3,e3,e4\n"))
	f.Add([]byte("position start\nI:a1,a2,a3,a4,a5 1 loss ms=9223372036854775807\n"))
	f.Add([]byte("position L:c5,d5,e5,f5,c6\nF:a1,b1,b2,c2,b3 1 loss P:e3,f3,g3,f4,g4 plies=7 nodes=1835292 ms=2404\nX:d2,c3,d3,e3,d4 1 win plies=0\n"))
	f.Add(EmbeddedCertificate()[:2000])
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Parse(data)
		if err != nil {
			if !errors.Is(err, ErrFormat) {
				t.Fatalf("error %v does not wrap ErrFormat", err)
			}
			return
		}
		text := file.Format()
		again, err := Parse(text)
		if err != nil {
			t.Fatalf("formatted file does not parse: %v\n%s", err, text)
		}
		if string(again.Format()) != string(text) {
			t.Fatalf("round trip:\n%s\n---\n%s", text, again.Format())
		}
		// Loading checks legality; it must fail cleanly, never panic.
		_, _ = Load(data)
	})
}
