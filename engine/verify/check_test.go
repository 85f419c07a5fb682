package verify_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/gamesolver/gamesolver/engine/book"
	"github.com/gamesolver/gamesolver/engine/verify"
)

func game(t testing.TB) *verify.Game {
	t.Helper()
	g, err := verify.NewGame()
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestCheckAcceptsCertificate checks the committed certificate's structure
// in full and re-solves a sample of its third-ply positions (the full
// re-check is `gamesolver book verify`, see BENCHMARKS.md, "Pentominoes proved").
func TestCheckAcceptsCertificate(t *testing.T) {
	g := game(t)
	// The three cheapest lines of the full re-check (1.1 M to 1.5 M nodes).
	cheap := map[int]bool{515: true, 567: true, 795: true}
	rep, err := verify.Check(context.Background(), g, book.EmbeddedCertificate(), verify.Options{Only: func(i int) bool { return cheap[i] }, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if c := rep.Costs[567]; c.Line != "L:c5,d5,e5,f5,c6 "+cheapReply {
		t.Fatalf("line 567 is %q", c.Line)
	}
	if rep.FirstMove != "L:c5,d5,e5,f5,c6" || rep.Replies != 1189 || rep.Classes != 1189 || rep.Solved != 3 {
		t.Fatalf("report %+v", rep)
	}
	t.Logf("first move %s, %d replies in %d classes; %d positions re-solved, %d nodes, %v",
		rep.FirstMove, rep.Replies, rep.Classes, rep.Solved, rep.Nodes, rep.Elapsed)
}

// corrupt edits the certificate's lines: edit returns the new line, or
// "" to drop it.
func corrupt(cert []byte, edit func(line string) string) []byte {
	var out []string
	for _, l := range strings.Split(string(cert), "\n") {
		if n := edit(l); n != "" || l == "" {
			out = append(out, n)
		}
	}
	return []byte(strings.Join(out, "\n"))
}

const (
	firstReply = "F:a1,b1,b2,c2,b3 1 loss P:e3,f3,g3,f4,g4"
	// cheapReply is line 567 of the reply section, cheap to re-solve.
	cheapReply = "P:f2,e3,f3,e4,f4 Y:c1,c2,b3,c3,c4"
	// badThird is legal after that reply but loses: the second player
	// then wins, which the checker finds in about half a million nodes.
	badThird = "P:f2,e3,f3,e4,f4 1 loss Z:b1,b2,c2,d2,d3"
)

func TestCheckRejectsCorruptCertificates(t *testing.T) {
	g := game(t)
	cert := book.EmbeddedCertificate()
	if !strings.Contains(string(cert), firstReply+"\n") {
		t.Fatalf("the certificate has no line %q", firstReply)
	}
	only0 := verify.Options{Only: func(i int) bool { return i == 567 }}
	for _, tc := range []struct {
		name string
		cert []byte
		opts verify.Options
		want string
	}{
		{"a third move that does not win", corrupt(cert, func(l string) string {
			if l == "P:f2,e3,f3,e4,f4 1 loss Y:c1,c2,b3,c3,c4" {
				return badThird
			}
			return l
		}), only0, "does not win"},
		{"a missing reply", corrupt(cert, func(l string) string {
			if strings.HasPrefix(l, "N:c1,c2,c3,d3,d4 ") {
				return ""
			}
			return l
		}), only0, "no line for reply N:c1,c2,c3,d3,d4"},
		{"an illegal third move", corrupt(cert, func(l string) string {
			if l == firstReply {
				return "F:a1,b1,b2,c2,b3 1 loss I:a1,a2,a3,a4,a5"
			}
			return l
		}), only0, "not legal"},
		{"a wrong class size", corrupt(cert, func(l string) string {
			if l == firstReply {
				return strings.Replace(l, " 1 loss", " 2 loss", 1)
			}
			return l
		}), only0, "class of"},
		{"a reply listed twice", corrupt(cert, func(l string) string {
			if l == firstReply {
				return l + "\n" + l
			}
			return l
		}), only0, "in the class of line"},
		{"a reply claimed to win", corrupt(cert, func(l string) string {
			if l == firstReply {
				return "F:a1,b1,b2,c2,b3 1 win"
			}
			return l
		}), only0, "no winning third move"},
		{"no first move", corrupt(cert, func(l string) string {
			if l == "L:c5,d5,e5,f5,c6 8 win" {
				return "L:c5,d5,e5,f5,c6 8 loss"
			}
			return l
		}), only0, "no winning first move"},
		{"a first move without its replies", corrupt(cert, func(l string) string {
			if l == "L:c5,d5,e5,f5,c6 8 win" {
				return "L:c4,d4,e4,f4,c5 8 win"
			}
			return l
		}), only0, "no section for the position after L:c4,d4,e4,f4,c5"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := verify.Check(context.Background(), g, tc.cert, tc.opts)
			if !errors.Is(err, verify.ErrCertificate) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want ErrCertificate mentioning %q", err, tc.want)
			}
		})
	}
}

func TestCheckStops(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := verify.Check(ctx, game(t), book.EmbeddedCertificate(), verify.Options{Sample: 1})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
}

// refutation29 proves that I:a4,b4,c4,d4,e4 refutes the opening
// F:f5,g5,g6,h6,g7 (the book's class 29): every class of third moves after
// it is answered by a winning fourth move.
func refutation29(t *testing.T) []byte {
	t.Helper()
	f := book.Files()["refutation-29.txt"]
	if f == nil {
		t.Fatal("no refutation-29.txt in the book")
	}
	return f
}

// The cheapest lines of its full re-check (`gamesolver book verify --file
// refutation-29.txt --costs F`: 852 positions, 222 M nodes, 39 s).
var cheap29 = map[int]bool{13: true, 54: true, 74: true}

func TestCheckAcceptsRefutation(t *testing.T) {
	rep, err := verify.Check(context.Background(), game(t), refutation29(t), verify.Options{Only: func(i int) bool { return cheap29[i] }, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Root != "F:f5,g5,g6,h6,g7" || rep.FirstMove != "I:a4,b4,c4,d4,e4" || rep.Replies != 852 || rep.Classes != 852 || rep.Solved != 3 {
		t.Fatalf("report %+v", rep)
	}
	if c := rep.Costs[54]; c.Line != "F:f5,g5,g6,h6,g7 I:a4,b4,c4,d4,e4 L:c6,c7,d7,e7,f7 V:f1,f2,f3,g3,h3" {
		t.Fatalf("line 54 is %q", c.Line)
	}
}

func TestCheckRejectsCorruptRefutations(t *testing.T) {
	g := game(t)
	ref := refutation29(t)
	only54 := verify.Options{Only: func(i int) bool { return i == 54 }}
	replace := func(from, to string) []byte {
		if !strings.Contains(string(ref), from+"\n") {
			t.Fatalf("no line %q", from)
		}
		return corrupt(ref, func(l string) string {
			if l == from {
				return to
			}
			return l
		})
	}
	for _, tc := range []struct {
		name string
		cert []byte
		want string
	}{
		{"a fourth move that does not win", replace("L:c6,c7,d7,e7,f7 1 loss V:f1,f2,f3,g3,h3", "L:c6,c7,d7,e7,f7 1 loss N:e1,f1,g1,g2,h2"), "does not win"},
		{"an illegal opening", replace("position F:f5,g5,g6,h6,g7", "position F:f5,g5,g6,h6,g7 I:a4,b4,c4,d4,e4 I:a4,b4,c4,d4,e4"), "root position"},
		{"the root of another opening", replace("position F:f5,g5,g6,h6,g7", "position F:f4,g4,g5,h5,g6"), "no section for the position after F:f4,g4,g5,h5,g6 I:a4,b4,c4,d4,e4"},
		{"a winning move that is not legal", replace("I:a4,b4,c4,d4,e4 1 win", "I:f4,f5,f6,f7,f8 1 win"), "I:f4,f5,f6,f7,f8 is not legal"},
		{"a missing third move", replace("L:c6,c7,d7,e7,f7 1 loss V:f1,f2,f3,g3,h3", ""), "no line for reply"},
		{"an illegal fourth move", replace("L:c6,c7,d7,e7,f7 1 loss V:f1,f2,f3,g3,h3", "L:c6,c7,d7,e7,f7 1 loss I:a4,a5,a6,a7,a8"), "fourth move I:a4,a5,a6,a7,a8 is not legal"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := verify.Check(context.Background(), g, tc.cert, only54)
			if !errors.Is(err, verify.ErrCertificate) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want ErrCertificate mentioning %q", err, tc.want)
			}
		})
	}
}

// A reply file of the book (every reply to the winning opening
// L:b3,c3,d3,e3,b4, the book's class 55) is a proof rooted at the empty
// board; its cheapest lines of a sample (`gamesolver book verify --file
// replies-55.txt --sample 24 --costs F`): 653 and 1089, 0.3 s each.
var cheap55 = map[int]bool{653: true, 1089: true}

func TestCheckAcceptsReplyFile(t *testing.T) {
	replies := book.Files()["replies/replies-55.txt"]
	if replies == nil {
		t.Fatal("no replies/replies-55.txt in the book")
	}
	only := verify.Options{Only: func(i int) bool { return cheap55[i] }, Workers: 2}
	rep, err := verify.Check(context.Background(), game(t), replies, only)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Root != "" || rep.FirstMove != "L:b3,c3,d3,e3,b4" || rep.Replies != 1307 || rep.Classes != 1307 || rep.Solved != 2 {
		t.Fatalf("report %+v", rep)
	}
	for _, tc := range []struct{ name, prefix, to, want string }{
		{"a reply missing", "F:e1,f1,f2,g2,f3 ", "", "no line for reply"},
		{"an illegal root", "position ", "position L:b3,c3,d3,e3,b4 I:a3,b3,c3,d3,e3", "root position"},
	} {
		bad := corrupt(replies, func(l string) string {
			if strings.HasPrefix(l, tc.prefix) {
				return tc.to
			}
			return l
		})
		if _, err := verify.Check(context.Background(), game(t), bad, only); !errors.Is(err, verify.ErrCertificate) || !strings.Contains(err.Error(), tc.want) {
			t.Fatalf("%s: err %v, want ErrCertificate mentioning %q", tc.name, err, tc.want)
		}
	}
}

// FuzzCheck: the checker's own parser and its structural checks never
// panic, and every rejection wraps ErrCertificate (no position is
// re-solved here).
func FuzzCheck(f *testing.F) {
	f.Add([]byte("position start\nL:c5,d5,e5,f5,c6 8 win\nposition L:c5,d5,e5,f5,c6\nF:a1,b1,b2,c2,b3 1 loss P:e3,f3,g3,f4,g4\n"))
	f.Add([]byte("position F:f5,g5,g6,h6,g7\nI:a4,b4,c4,d4,e4 1 win\nposition F:f5,g5,g6,h6,g7 I:a4,b4,c4,d4,e4\nL:c6,c7,d7,e7,f7 1 loss V:f1,f2,f3,g3,h3\n"))
	f.Add([]byte("position I:a1,a2,a3,a4,a5 I:a1,a2,a3,a4,a5\n"))
	f.Add([]byte("position L:b3,c3,d3,e3,b4\nF:e1,f1,f2,g2,f3 1 loss Y:c6,d6,e6,f6,d7\n"))
	f.Add([]byte("position start\nX:b2,a3,b3,c3,b4 2 win nodes=1\nposition X:b2,a3,b3,c3,b4\n"))
	f.Add(book.EmbeddedCertificate()[:3000])
	g, err := verify.NewGame()
	if err != nil {
		f.Fatal(err)
	}
	none := verify.Options{Only: func(int) bool { return false }}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<20 {
			return
		}
		_, err := verify.Check(context.Background(), g, data, none)
		if err != nil && !errors.Is(err, verify.ErrCertificate) {
			t.Fatalf("error %v does not wrap ErrCertificate", err)
		}
	})
}
