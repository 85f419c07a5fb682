package verify_test

import (
	"context"
	"testing"

	"github.com/gamesolver/gamesolver/engine/book"
	"github.com/gamesolver/gamesolver/engine/verify"
)

// BenchmarkCheckCheapLine re-solves the cheapest third-ply position of the
// certificate (line 567, about 1.1 M nodes) with the checker's solver.
//
//	go test -run '^$' -bench CheckCheapLine -benchtime 5x ./engine/verify
func BenchmarkCheckCheapLine(b *testing.B) {
	g := game(b)
	cert := book.EmbeddedCertificate()
	var nodes int64
	for range b.N {
		rep, err := verify.Check(context.Background(), g, cert, verify.Options{Only: func(i int) bool { return i == 567 }})
		if err != nil {
			b.Fatal(err)
		}
		nodes += rep.Nodes
	}
	b.ReportMetric(float64(nodes)/b.Elapsed().Seconds(), "nodes/s")
	b.ReportMetric(float64(nodes)/float64(b.N), "nodes/op")
}
