package teeko

import (
	"bytes"
	"context"
	"math/rand/v2"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"
)

func BenchmarkBuild(b *testing.B) {
	for _, r := range AllRules() {
		b.Run(r.String(), func(b *testing.B) {
			for b.Loop() {
				if _, err := Build(context.Background(), r, 0, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func benchPositions(b *testing.B, r Rules, k int) []Position {
	rng := rand.New(rand.NewPCG(5, uint64(k)))
	ps := make([]Position, 1<<16)
	for i := range ps {
		kk := k
		if k < 0 {
			kk = rng.IntN(DropPlies + 1)
		}
		ps[i] = randomPosition(rng, r, kk)
	}
	return ps
}

// BenchmarkLookup measures Tablebase.Value on random positions: the move
// phase, and all levels mixed.
func BenchmarkLookup(b *testing.B) {
	tb := testTablebase(b, Advanced)
	for _, bc := range []struct {
		name string
		k    int
	}{{"move", DropPlies}, {"drop7", 7}, {"mixed", -1}} {
		b.Run(bc.name, func(b *testing.B) {
			ps := benchPositions(b, Advanced, bc.k)
			i := 0
			start := time.Now()
			for b.Loop() {
				if _, err := tb.Value(ps[i&(len(ps)-1)], StandardDrops); err != nil {
					b.Fatal(err)
				}
				i++
			}
			b.ReportMetric(float64(i)/time.Since(start).Seconds(), "lookups/s")
		})
	}
}

// BenchmarkLookupParallel measures look-ups from all cores at once.
func BenchmarkLookupParallel(b *testing.B) {
	tb := testTablebase(b, Advanced)
	ps := benchPositions(b, Advanced, DropPlies)
	var total atomic.Int64
	b.ResetTimer()
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		i, n := rand.IntN(len(ps)), int64(0)
		for pb.Next() {
			if _, err := tb.Value(ps[i&(len(ps)-1)], StandardDrops); err != nil {
				b.Error(err)
				return
			}
			i++
			n++
		}
		total.Add(n)
	})
	b.ReportMetric(float64(total.Load())/time.Since(start).Seconds(), "lookups/s")
}

func BenchmarkAnalyze(b *testing.B) {
	tb := testTablebase(b, Advanced)
	ps := benchPositions(b, Advanced, -1)
	i := 0
	for b.Loop() {
		if _, err := tb.Analyze(ps[i&(len(ps)-1)], StandardDrops); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

func BenchmarkLoad(b *testing.B) {
	testTablebase(b, Standard)
	for _, r := range AllRules() {
		b.Run(r.String(), func(b *testing.B) {
			var buf bytes.Buffer
			if err := shared.tb[r].Save(&buf); err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if _, err := Load(bytes.NewReader(buf.Bytes())); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(buf.Len()), "file-bytes")
		})
	}
}

// BenchmarkLoadFile times LoadFile from the page cache: each rule set's
// table saved once to a temporary file (so in the page cache), then
// loaded from it.
func BenchmarkLoadFile(b *testing.B) {
	testTablebase(b, Standard)
	dir := b.TempDir()
	for _, r := range AllRules() {
		b.Run(r.String(), func(b *testing.B) {
			path := filepath.Join(dir, r.String()+".tb")
			if err := shared.tb[r].SaveFile(path); err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if _, err := LoadFile(path, r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
