package polyomino

import (
	"context"
	"flag"
	"fmt"
	"strings"
	"testing"
	"time"
)

// benchLong runs the benchmarks of minutes below; without it they skip
// (as -probe and -suite gate the long tests), so that `make bench` stays
// within its time.
var benchLong = flag.Bool("bench-long", false, "run the benchmarks of minutes (LengthImages, LengthVerifyAbove, WinsWithinOpenings, LengthWitnesses)")

func needLong(b *testing.B) {
	if !*benchLong {
		b.Skip("minutes: pass -bench-long")
	}
}

// certificateTwo is two plies into the certificate (plies 7).
const certificateTwo = "L:c5,d5,e5,f5,c6 F:c1,d1,d2,e2,d3"

func pentominoPosition(b *testing.B, moves string) *Position {
	cfg, _ := Preset("pentominoes")
	pos, err := NewPosition(cfg, nil, strings.Fields(moves), DefaultToMove)
	if err != nil {
		b.Fatal(err)
	}
	return pos
}

// BenchmarkLengthCertificate times the length search (NewLengths, then
// Length) two plies into the certificate, one core, after a first-win
// proof on the same table (not timed).
func BenchmarkLengthCertificate(b *testing.B) {
	pos := pentominoPosition(b, certificateTwo)
	var nodes int64
	plies := 0
	for b.Loop() {
		b.StopTimer()
		tt := NewTable(256)
		res, err := Solve(context.Background(), pos, Options{FirstWin: true, Workers: 1, Table: tt})
		if err != nil || !res.Proven {
			b.Fatal(err)
		}
		b.StartTimer()
		x := NewLengths(context.Background(), pos, LengthOptions{Table: tt})
		l := x.Length(res.Outcome)
		x.Close()
		if !l.Proven {
			b.Fatal("no length")
		}
		b.StopTimer()
		tt.Release()
		b.StartTimer()
		nodes, plies = nodes+l.Nodes, l.Plies
	}
	b.ReportMetric(float64(nodes)/float64(b.N), "nodes/op")
	b.ReportMetric(float64(plies), "plies")
}

// imageMoves maps moves ("P:a1,b1,...", space separated) on the 8 x 8
// board by t.
func imageMoves(b *testing.B, moves string, t Transform) string {
	var out []string
	for _, m := range strings.Fields(moves) {
		piece, cells, _ := strings.Cut(m, ":")
		var mapped []string
		for _, s := range strings.Split(cells, ",") {
			c, err := ParseCell(s)
			if err != nil {
				b.Fatal(err)
			}
			mapped = append(mapped, t.ApplyInRect(c, 8, 8).String())
		}
		out = append(out, piece+":"+strings.Join(mapped, ","))
	}
	return strings.Join(out, " ")
}

// BenchmarkLengthImages: the 8 images under the board's symmetries of
// two plies into the certificate's second reply (plies 7), each on a cold
// table, its proof included (Solve with FirstWin, then Length), one core;
// -v logs each image's time and nodes. Minutes: -bench-long.
func BenchmarkLengthImages(b *testing.B) {
	needLong(b)
	const moves = "L:c5,d5,e5,f5,c6 F:d1,e1,e2,f2,e3"
	for b.Loop() {
		for i, t := range Transforms() {
			pos := pentominoPosition(b, imageMoves(b, moves, t))
			start := time.Now()
			tt := NewTable(256)
			res, err := Solve(context.Background(), pos, Options{FirstWin: true, Workers: 1, Table: tt})
			if err != nil || !res.Proven {
				b.Fatal(err)
			}
			l := Length(context.Background(), pos, res.Outcome, LengthOptions{Table: tt})
			tt.Release()
			if !l.Proven || l.Plies != 7 {
				b.Fatalf("image %d: %+v", i, l)
			}
			b.Logf("image %d (%s): %.2f s, %.1f M nodes (the proof's %.1f M)", i, imageMoves(b, moves, t), time.Since(start).Seconds(), float64(res.Nodes+l.Nodes)/1e6, float64(res.Nodes)/1e6)
		}
	}
}

// BenchmarkWinsWithinOpenings asks one bound of the length search
// (Lengths.WinsWithin) two plies into two openings, one core, a 256 MB
// table, no proof before: within5 (both "no"), within7. Minutes:
// -bench-long.
func BenchmarkWinsWithinOpenings(b *testing.B) {
	needLong(b)
	for _, plies := range []int{5, 7} {
		for _, moves := range []string{"F:a1,b1,b2,c2,b3 I:c1,d1,e1,f1,g1", "I:b3,c3,d3,e3,f3 F:f1,g1,g2,h2,g3"} {
			b.Run(fmt.Sprintf("within%d/%s", plies, strings.Fields(moves)[1][:1]), func(b *testing.B) {
				pos := pentominoPosition(b, moves)
				var nodes int64
				won := false
				for b.Loop() {
					x := NewLengths(context.Background(), pos, LengthOptions{TableMB: 256})
					ok, done, n := x.WinsWithin(plies)
					x.Close()
					if !done {
						b.Fatal("not done")
					}
					nodes, won = nodes+n, ok
				}
				b.ReportMetric(float64(nodes)/float64(b.N), "nodes/op")
				b.Logf("%s: wins within %d: %v", moves, plies, won)
			})
		}
	}
}

// BenchmarkLengthWitnesses: the full length search (Length, its own
// proof included, a 512 MB table, one core) of four positions two plies
// in that the lower-bound file says are not won within 5. Minutes:
// -bench-long.
func BenchmarkLengthWitnesses(b *testing.B) {
	needLong(b)
	for _, moves := range []string{
		"L:a3,b3,c3,d3,a4 F:d1,e1,e2,f2,e3",
		"P:d4,e4,f4,d5,e5 F:a1,b1,b2,c2,b3",
		"V:f1,g1,h1,f2,f3 F:a1,b1,b2,c2,b3",
		"Z:b2,c2,c3,c4,d4 F:c1,d1,d2,e2,d3",
	} {
		b.Run(strings.Fields(moves)[0][:1], func(b *testing.B) {
			pos := pentominoPosition(b, moves)
			var nodes int64
			plies := 0
			for b.Loop() {
				l := Length(context.Background(), pos, Win, LengthOptions{TableMB: 512})
				if !l.Proven {
					b.Fatal("no length")
				}
				nodes, plies = nodes+l.Nodes, l.Plies
			}
			b.ReportMetric(float64(nodes)/float64(b.N), "nodes/op")
			b.ReportMetric(float64(plies), "plies")
		})
	}
}

// BenchmarkLengthVerifyAbove sets lengthVerifyAbove (the winner's moves
// are checked by the solver only with more plies than this to go) to 1, 3
// (the default) or 5, and times the length search of five 2-ply
// positions after a first-win proof on the same table (not timed), one
// core: two of the certificate (two plies in, and the second reply's
// position whose image LengthImages times) and the suite's three
// (BenchmarkLength2Ply's). Minutes: -bench-long.
func BenchmarkLengthVerifyAbove(b *testing.B) {
	needLong(b)
	positions := []string{certificateTwo, "L:c5,d5,e5,f5,c6 F:d1,e1,e2,f2,e3"}
	for _, sp := range loadSuite(b) {
		if sp.depth == 3 && len(positions) < 2+suite2Ply {
			positions = append(positions, strings.Join(sp.moves[:2], " "))
		}
	}
	defer func(v int) { lengthVerifyAbove = v }(lengthVerifyAbove)
	for _, above := range []int{1, 3, 5} {
		b.Run(fmt.Sprintf("above%d", above), func(b *testing.B) {
			lengthVerifyAbove = above
			var nodes int64
			for b.Loop() {
				for _, moves := range positions {
					b.StopTimer()
					pos := pentominoPosition(b, moves)
					tt := NewTable(256)
					res, err := Solve(context.Background(), pos, Options{FirstWin: true, Workers: 1, Table: tt})
					if err != nil || !res.Proven {
						b.Fatal(err)
					}
					b.StartTimer()
					l := Length(context.Background(), pos, res.Outcome, LengthOptions{Table: tt})
					b.StopTimer()
					tt.Release()
					b.StartTimer()
					if !l.Proven {
						b.Fatalf("%s: no length", moves)
					}
					nodes += l.Nodes
				}
			}
			b.ReportMetric(float64(nodes)/float64(b.N), "nodes/op")
		})
	}
}
