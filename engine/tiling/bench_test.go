package tiling

import (
	"context"
	"fmt"
	"testing"
)

// benchRegions are the classic pentomino puzzles; counts are checked so a
// fast wrong answer cannot pass for a fast one.
var benchRegions = []struct {
	name    string
	w, h    int
	blocked []string
	count   int64
}{
	{"6x10", 10, 6, nil, 2339},
	{"5x12", 12, 5, nil, 1010},
	{"4x15", 15, 4, nil, 368},
	{"3x20", 20, 3, nil, 2},
	{"8x8hole", 8, 8, []string{"d4", "e4", "d5", "e5"}, 65},
}

// BenchmarkSolve counts every tiling of each region on 1 and 2 workers.
func BenchmarkSolve(b *testing.B) {
	for _, br := range benchRegions {
		for _, workers := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/workers=%d", br.name, workers), func(b *testing.B) {
				p := Problem{Region: mustRegion(b, br.w, br.h, br.blocked...)}
				var nodes int64
				for b.Loop() {
					res, err := Solve(context.Background(), p, Options{Workers: workers})
					if err != nil || res.Count != br.count || !res.Complete {
						b.Fatalf("count %d, complete %v, error %v; want %d", res.Count, res.Complete, err, br.count)
					}
					nodes += res.Nodes
				}
				b.ReportMetric(float64(nodes)/float64(b.N), "nodes/op")
				b.ReportMetric(float64(nodes)/b.Elapsed().Seconds()/1e6, "Mnodes/s")
			})
		}
	}
}

// BenchmarkSetup measures what Solve does before searching: checking the
// problem, building the placement tables and symmetry images, and cutting
// the search into subtrees.
func BenchmarkSetup(b *testing.B) {
	for _, br := range benchRegions {
		b.Run(br.name, func(b *testing.B) {
			p := Problem{Region: mustRegion(b, br.w, br.h, br.blocked...)}
			for b.Loop() {
				c, err := compile(p)
				if err != nil {
					b.Fatal(err)
				}
				c.split(minSubtrees)
			}
		})
	}
}

// BenchmarkParts counts each region whole and as 16 parts searched one
// after the other (a job's units, tiling.Options.Parts), on one worker:
// the parts' cost is each part's setup and split.
func BenchmarkParts(b *testing.B) {
	for _, br := range benchRegions[:2] {
		p := Problem{Region: mustRegion(b, br.w, br.h, br.blocked...)}
		for _, parts := range []int{0, 16} {
			b.Run(fmt.Sprintf("%s/parts=%d", br.name, parts), func(b *testing.B) {
				for b.Loop() {
					var fixed int64
					for k := range max(parts, 1) {
						res, err := Solve(context.Background(), p, Options{Workers: 1, Parts: parts, Part: k})
						if err != nil || !res.Complete {
							b.Fatalf("part %d: %v", k, err)
						}
						fixed += res.Fixed
						if k == max(parts, 1)-1 && fixed/int64(res.Symmetries) != br.count {
							b.Fatalf("count %d, want %d", fixed/int64(res.Symmetries), br.count)
						}
					}
				}
			})
		}
	}
}
