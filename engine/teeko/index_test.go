package teeko

import (
	"math/rand/v2"
	"testing"
)

// burnside counts the classes of k-sets under the symmetries from the
// number of sets each symmetry fixes.
func burnside(k int) int {
	total := 0
	for s := 0; s < NumSymmetries; s++ {
		for _, c := range combinations(NumSquares, k) {
			var set Bitboard
			for _, b := range c[:k] {
				set |= 1 << b
			}
			if set.Transform(s) == set {
				total++
			}
		}
	}
	return total / NumSymmetries
}

func TestClassTables(t *testing.T) {
	g := sharedGeometry()
	wantClasses := []int{1, 6, 49, 319, 1666}
	for k, ct := range g.classes {
		if n := len(ct.rep); n != wantClasses[k] || n != burnside(k) {
			t.Errorf("%d-sets: %d classes, want %d (Burnside: %d)", k, n, wantClasses[k], burnside(k))
		}
		sets := 0
		for cls, rep := range ct.rep {
			sets += int(ct.orbit[cls])
			if ct.stab[cls][0] != 0 || rep.Transform(int(ct.stab[cls][0])) != rep {
				t.Errorf("%d-sets: class %d: bad stabiliser %v", k, cls, ct.stab[cls])
			}
		}
		if sets != int(binom[NumSquares][k]) {
			t.Errorf("%d-sets: orbits sum to %d, want C(25,%d) = %d", k, sets, k, binom[NumSquares][k])
		}
		for rank, c := range combinations(NumSquares, k) {
			var set Bitboard
			for _, b := range c[:k] {
				set |= 1 << b
			}
			if colexRank(set) != rank {
				t.Fatalf("%d-sets: colexRank(%v) = %d, want %d", k, set.Squares(), colexRank(set), rank)
			}
			if got := set.Transform(int(ct.toCanon[rank])); got != ct.rep[ct.classOf[rank]] {
				t.Fatalf("%d-sets: %v maps to %v, not its representative", k, set.Squares(), got.Squares())
			}
		}
	}
	if size := g.levels[DropPlies].size; size != 1666*5985 {
		t.Errorf("move-phase entries: %d, want 1666 x 5985", size)
	}
}

// Entry numbers and positions correspond one to one, and symmetric images
// share an entry under classIndex.
func TestPairLayout(t *testing.T) {
	g := sharedGeometry()
	rng := rand.New(rand.NewPCG(3, 3))
	for k, l := range g.levels {
		for i := 0; i < 2000; i++ {
			idx := rng.IntN(l.size)
			a, b := l.pair(idx)
			if a&b != 0 || a.Count() != (k+1)/2 || b.Count() != k/2 {
				t.Fatalf("level %d: entry %d stands for %v / %v", k, idx, a.Squares(), b.Squares())
			}
			if got := l.index(a, b); got != idx {
				t.Fatalf("level %d: entry %d gives %v / %v, indexed as %d", k, idx, a.Squares(), b.Squares(), got)
			}
		}
	}
	ms := newMoveSolver(g, Standard, 1, newProgressMeter(nil, Standard, 1))
	for i := 0; i < 20000; i++ {
		p := randomPosition(rng, Standard, DropPlies)
		b := p.Board()
		want := ms.classIndex(colexRank(b.Black), b.Red)
		for s := 1; s < NumSymmetries; s++ {
			img := b.Transform(s)
			if got := ms.classIndex(colexRank(img.Black), img.Red); got != want {
				t.Fatalf("%v: image %d has entry %d, want %d", b, s, got, want)
			}
		}
	}
}
