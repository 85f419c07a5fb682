package teeko

import (
	"math/bits"
	"sync"
)

// Positions are indexed combinatorially, up to the 8 symmetries of the board.
//
// A pair of disjoint sets (A, B) — (mover, other) in the move phase,
// (black, red) in the drop phase — is mapped to
//
//	class(A) * C(25-|A|, |B|) + rank of t(B) among the squares outside rep(class(A))
//
// where class(A) numbers the classes of |A|-sets under the symmetries, rep is
// the class representative (its smallest image as a bit mask) and t a
// symmetry taking A to rep. Ranks are colexicographic: a set with bits
// i1 < i2 < ... < im has rank C(i1,1) + C(i2,2) + ... + C(im,m).
//
// With t fixed per set (toCanon) the index of two symmetric positions can
// differ when rep has symmetries of its own; the tables therefore hold every
// entry, each the value of the position it stands for, so a look-up may use
// any t. The move-phase solver needs one entry per class of positions and
// takes the minimum rank over all t (classIndex).

// binom[n][k] = C(n, k) for n <= 25, k <= 4.
var binom = makeBinom()

func makeBinom() [NumSquares + 1][PiecesPerSide + 1]int32 {
	var c [NumSquares + 1][PiecesPerSide + 1]int32
	for n := 0; n <= NumSquares; n++ {
		c[n][0] = 1
		for k := 1; k <= PiecesPerSide && k <= n; k++ {
			c[n][k] = c[n-1][k-1] + c[n-1][k]
		}
	}
	return c
}

// colexRank returns the colexicographic rank of a set among the sets of the
// same size (at most 4 squares).
func colexRank(set Bitboard) int {
	r, k := int32(0), 1
	for x := uint32(set); x != 0; x &= x - 1 {
		r += binom[bits.TrailingZeros32(x)][k]
		k++
	}
	return int(r)
}

// combinations returns the k-subsets of {0..n-1} in colex order, so that the
// subset at index i has colex rank i.
func combinations(n, k int) [][PiecesPerSide]uint8 {
	if k == 0 {
		return [][PiecesPerSide]uint8{{}}
	}
	var out [][PiecesPerSide]uint8
	for top := k - 1; top < n; top++ {
		for _, c := range combinations(top, k-1) {
			c[k-1] = uint8(top)
			out = append(out, c)
		}
	}
	return out
}

// classTable holds the classes, under the board's symmetries, of the sets of
// a given size.
type classTable struct {
	size    int
	classOf []uint16            // by colexRank of the set
	toCanon []uint8             // by colexRank: a symmetry taking the set to its representative
	rep     []Bitboard          // by class: the representative, the smallest image as a mask
	stab    [][]uint8           // by class: the symmetries fixing rep, identity first
	orbit   []uint8             // by class: the number of sets in the class, 8/len(stab)
	freeSq  [][NumSquares]uint8 // by class and free position: the bit index
}

func newClassTable(size int) *classTable {
	ct := &classTable{size: size}
	combs := combinations(NumSquares, size)
	ct.classOf = make([]uint16, len(combs))
	ct.toCanon = make([]uint8, len(combs))
	classByRep := map[Bitboard]int{}
	for rank, c := range combs {
		var set Bitboard
		for _, b := range c[:size] {
			set |= 1 << b
		}
		canon, t := set, 0
		for s := 1; s < NumSymmetries; s++ {
			if img := set.Transform(s); img < canon {
				canon, t = img, s
			}
		}
		cls, ok := classByRep[canon]
		if !ok {
			cls = len(ct.rep)
			classByRep[canon] = cls
			ct.rep = append(ct.rep, canon)
		}
		ct.classOf[rank] = uint16(cls)
		ct.toCanon[rank] = uint8(t)
	}
	n := len(ct.rep)
	ct.stab = make([][]uint8, n)
	ct.orbit = make([]uint8, n)
	ct.freeSq = make([][NumSquares]uint8, n)
	for cls, rep := range ct.rep {
		for s := 0; s < NumSymmetries; s++ {
			if rep.Transform(s) == rep {
				ct.stab[cls] = append(ct.stab[cls], uint8(s))
			}
		}
		ct.orbit[cls] = uint8(NumSymmetries / len(ct.stab[cls]))
		pos := 0
		for sq := 0; sq < NumSquares; sq++ {
			if rep&(1<<sq) == 0 {
				ct.freeSq[cls][pos] = uint8(sq)
				pos++
			}
		}
	}
	return ct
}

// freeRank returns the colex rank of set, which must not meet rep(cls),
// among the squares outside rep(cls).
func (ct *classTable) freeRank(cls int, set Bitboard) int {
	rep := uint32(ct.rep[cls])
	r, k := int32(0), 1
	for x := uint32(set); x != 0; x &= x - 1 {
		below := (x & -x) - 1 // the squares before the lowest one of x
		r += binom[bits.TrailingZeros32(x)-bits.OnesCount32(rep&below)][k]
		k++
	}
	return int(r)
}

// freeSet returns the set of free squares of class cls at the given
// positions (a combination of n free positions).
func (ct *classTable) freeSet(cls int, comb *[PiecesPerSide]uint8, n int) Bitboard {
	fs := &ct.freeSq[cls]
	var set Bitboard
	for _, p := range comb[:n] {
		set |= 1 << fs[p]
	}
	return set
}

// pairLayout describes the index of the pairs (A, B) with |A| = a, |B| = b.
type pairLayout struct {
	ct    *classTable // classes of A
	b     int
	per   int // C(25-a, b): entries per class of A
	size  int // number of entries
	combs [][PiecesPerSide]uint8
}

func newPairLayout(ct *classTable, b int) *pairLayout {
	per := int(binom[NumSquares-ct.size][b])
	return &pairLayout{ct: ct, b: b, per: per, size: per * len(ct.rep),
		combs: combinations(NumSquares-ct.size, b)}
}

// index returns the entry of (A, B) with the fixed symmetry of A.
func (l *pairLayout) index(a, b Bitboard) int {
	rk := colexRank(a)
	cls := int(l.ct.classOf[rk])
	return cls*l.per + l.ct.freeRank(cls, b.Transform(int(l.ct.toCanon[rk])))
}

// pair returns the sets (A, B) that entry idx stands for.
func (l *pairLayout) pair(idx int) (a, b Bitboard) {
	cls := idx / l.per
	return l.ct.rep[cls], l.ct.freeSet(cls, &l.combs[idx%l.per], l.b)
}

// geometry holds the tables shared by every rule set, built once.
type geometry struct {
	classes [PiecesPerSide + 1]*classTable
	// levels[k] is the layout of drop positions with k pieces (black, red);
	// levels[8] that of the move phase (mover, other).
	levels [DropPlies + 1]*pairLayout
	// isWin[r][colexRank(set)] for the 4-sets of rule set r.
	isWin [2][]bool
}

var sharedGeometry = sync.OnceValue(func() *geometry {
	g := &geometry{}
	for s := 0; s <= PiecesPerSide; s++ {
		g.classes[s] = newClassTable(s)
	}
	for k := 0; k <= DropPlies; k++ {
		g.levels[k] = newPairLayout(g.classes[(k+1)/2], k/2)
	}
	for r := range g.isWin {
		g.isWin[r] = make([]bool, binom[NumSquares][PiecesPerSide])
		for _, w := range configurations[r] {
			g.isWin[r][colexRank(w)] = true
		}
	}
	return g
})
