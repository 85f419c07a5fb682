package tiling

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/gamesolver/gamesolver/engine/polyomino"
)

// isOurs reports whether err wraps one of the package's error values.
func isOurs(err error) bool {
	for _, e := range []error{ErrBadRegion, ErrRegionTooLarge, ErrUnknownPiece, ErrBadPieces, ErrRepeatedPiece, ErrAreaMismatch} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

func FuzzParsePieces(f *testing.F) {
	for _, seed := range []struct {
		spec  string
		order int
	}{
		{"", 0}, {"FILNPTUVWXYZ", 0}, {"F, I ,L", 5}, {"ILT", 4}, {"IOTSL", 0}, {"H01,H35", 0},
		{"h1h2 H3", 6}, {"hexominoes", 0}, {"FILE", 0}, {"OF", 0}, {"H01F", 0}, {"H", 0},
		{"H123", 0}, {"F-I", 0}, {",,", 0}, {"é", 0}, {"pentominoes", 4}, {"X", 9}, {"IIII", -1},
	} {
		f.Add(seed.spec, seed.order)
	}
	f.Fuzz(func(t *testing.T, spec string, order int) {
		p, err := ParsePieces(spec, order)
		if err != nil {
			if !isOurs(err) {
				t.Fatalf("ParsePieces(%q, %d): error %v wraps none of the package's errors", spec, order, err)
			}
			return
		}
		if len(p) == 0 || len(p) > MaxPieces {
			t.Fatalf("ParsePieces(%q, %d) gave %d pieces", spec, order, len(p))
		}
		for _, pc := range p {
			if pc.Size() != p[0].Size() {
				t.Fatalf("ParsePieces(%q, %d) mixes orders: %s", spec, order, p)
			}
		}
		again, err := ParsePieces(p.String(), p[0].Size())
		if err != nil || !slices.Equal(again, p) {
			t.Fatalf("%q read as %s, which reads back as %s, %v", spec, p, again, err)
		}
	})
}

func FuzzParseBoard(f *testing.F) {
	for _, seed := range []string{"", ".", "#", "....../..##../......", "../.", ".x", "##/##",
		strings.Repeat(".", 26), strings.Repeat("./", 26) + ".", strings.Repeat(strings.Repeat(".", 16)+"/", 16)} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, board string) {
		r, err := ParseBoard(strings.Split(board, "/"))
		if err != nil {
			if !isOurs(err) {
				t.Fatalf("ParseBoard(%q): error %v wraps none of the package's errors", board, err)
			}
			return
		}
		if b, err := ParseBoard(r.Rows()); err != nil || b != r {
			t.Fatalf("%q: its rows %v read back as %v, %v", board, r.Rows(), b.Rows(), err)
		}
		if b, err := ParseRegion(r.Width(), r.Height(), r.Blocked()); err != nil || b != r {
			t.Fatalf("%q: its blocked cells %v read back as %v, %v", board, r.Blocked(), b.Rows(), err)
		}
		if r.Area()+len(r.Blocked()) != r.Width()*r.Height() || r.String() != strings.Join(r.Rows(), "/") {
			t.Fatalf("%q: area %d and %d blocked cells in %d x %d", board, r.Area(), len(r.Blocked()), r.Width(), r.Height())
		}
		if len(r.Symmetries()) == 0 || len(r.Symmetries()) > 8 || r.Symmetries()[0] != 0 {
			t.Fatalf("%q: symmetries %v", board, r.Symmetries())
		}
	})
}

func FuzzParseRegion(f *testing.F) {
	f.Add(10, 6, "")
	f.Add(8, 8, "d4,e4,d5,e5")
	f.Add(3, 20, "c20")
	f.Add(16, 16, "p16,a1")
	f.Add(10, 6, "k1")
	f.Add(0, 6, "")
	f.Add(26, 9, "z9")
	f.Add(5, 5, "a0,,b")
	f.Fuzz(func(t *testing.T, w, h int, blocked string) {
		var names []string
		if blocked != "" {
			names = strings.Split(blocked, ",")
		}
		r, err := ParseRegion(w, h, names)
		if err != nil {
			if !isOurs(err) {
				t.Fatalf("ParseRegion(%d, %d, %q): error %v wraps none of the package's errors", w, h, blocked, err)
			}
			return
		}
		if r.Width() != w || r.Height() != h || len(r.Blocked()) > len(names) {
			t.Fatalf("ParseRegion(%d, %d, %q) = %s", w, h, blocked, r)
		}
		for _, name := range names {
			c, err := polyomino.ParseCell(name)
			if err != nil || r.Open(c.X, c.Y) {
				t.Fatalf("ParseRegion(%d, %d, %q): %s is open (%v)", w, h, blocked, name, err)
			}
		}
		if b, err := ParseBoard(r.Rows()); err != nil || b != r {
			t.Fatalf("%v read back as %v, %v", r.Rows(), b.Rows(), err)
		}
	})
}

// FuzzSolve compares the engine with the brute force on small problems.
func FuzzSolve(f *testing.F) {
	f.Add("....../....../....../....../.....", "IOTSL", true)
	f.Add(".#./.../.#.", "X", false)
	f.Add("...../.....", "II", false)
	f.Add("....../..##../......", "LLSST", true)
	f.Add("....../....../......", "H01,H02,H03", true)
	f.Fuzz(func(t *testing.T, board, spec string, leftover bool) {
		r, err := ParseBoard(strings.Split(board, "/"))
		if err != nil || r.Area() > 24 {
			return
		}
		pieces, err := ParsePieces(spec, 0)
		if err != nil || len(pieces) > 5 {
			return
		}
		p := Problem{Region: r, Pieces: pieces, Multiset: true, AllowLeftover: leftover}
		if err := p.Validate(); err != nil {
			if !isOurs(err) {
				t.Fatalf("Validate: %v", err)
			}
			return
		}
		count, countAll, _, _ := bruteCounts(p)
		res, err := Solve(context.Background(), p, Options{Limit: 100})
		if err != nil || res.Count != int64(count) || res.CountAll != int64(countAll) || !res.Complete {
			t.Fatalf("%s with %s (leftover %v): count %d all %d, %v; brute force %d, %d",
				r, pieces, leftover, res.Count, res.CountAll, err, count, countAll)
		}
		for i := range res.Solutions {
			verifySolution(t, p, res.Solutions[i], res.Placements[i])
		}
	})
}

// FuzzPlacementJSON: whatever a placement is read from (move notation,
// or the object form of earlier versions), it is written back as moves
// that read the same placement.
func FuzzPlacementJSON(f *testing.F) {
	for _, seed := range []string{`"L:a1,a2,a3,a4,b4"`, `"H07:a1,b1,b2,c2,c3,z10"`, `{"Piece":"L","Cells":[{"X":0,"Y":0}]}`,
		`"L"`, `":a1"`, `"L:"`, `"L:a1,,b2"`, `5`, `null`, `{"Piece":"","Cells":[]}`, `"L:a0"`, `"X:a1:b1"`,
		`{"Piece":"L","Cells":[{"X":-1,"Y":0}]}`, `{"Piece":"L:x","Cells":[{"X":3,"Y":0}]}`, `{"Piece":"L","Cells":[{"X":0,"Y":-5}]}`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var p Placement
		if err := json.Unmarshal(b, &p); err != nil {
			return
		}
		out, err := json.Marshal(p)
		if err != nil {
			t.Fatalf("%s read as %+v, not written: %v", b, p, err)
		}
		var back Placement
		if err := json.Unmarshal(out, &back); err != nil || back.String() != p.String() || !slices.Equal(back.Cells, p.Cells) {
			t.Fatalf("%s read as %+v, written %s, read back as %+v (%v)", b, p, out, back, err)
		}
	})
}
