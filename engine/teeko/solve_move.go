package teeko

import (
	"context"
	"fmt"
)

// Value bytes. Every table entry is one byte from the point of view of the
// side to move (the side whose piece is dropped next, in the drop phase):
//
//	0        draw (never resolved by the retrograde analysis)
//	n+1      the game ends after n more plies under perfect play, n <= 253;
//	         n odd: the side to move wins, n even: it loses
//
// The parity rule holds because the winner's own ply is the last one, and
// plies alternate between the colours in both phases. n = 0 is a game that
// is already over: the other side has a configuration, or the side to move
// cannot move. 255 marks entries that stand for no position while solving.
const (
	unresolved  uint8 = 0
	skipEntry   uint8 = 255
	maxDistance       = 253
)

// moveSolver runs the retrograde analysis of the move phase of one rule set.
//
// Entries are (mover, other) pairs indexed by classIndex, one entry per class
// of positions under the symmetries (other entries are skipped and filled in
// at the end). cnt[i] counts the distinct child classes of entry i not yet
// known to be won by the opponent; when it reaches zero, i is lost.
type moveSolver struct {
	rules   Rules
	l       *pairLayout
	ct      *classTable
	win     []bool
	val     []uint8
	cnt     []uint8
	workers int
	meter   *progressMeter
}

func newMoveSolver(g *geometry, rules Rules, workers int, meter *progressMeter) *moveSolver {
	l := g.levels[DropPlies]
	return &moveSolver{
		rules: rules, l: l, ct: l.ct, win: g.isWin[rules],
		val: make([]uint8, l.size), cnt: make([]uint8, l.size),
		workers: workers, meter: meter,
	}
}

// classIndex returns the entry of (mover, other), the same for every
// symmetric image; rk is colexRank(mover).
func (s *moveSolver) classIndex(rk int, other Bitboard) uint32 {
	ct := s.ct
	cls := int(ct.classOf[rk])
	x := other.Transform(int(ct.toCanon[rk]))
	best := ct.freeRank(cls, x)
	if st := ct.stab[cls]; len(st) > 1 {
		for _, h := range st[1:] {
			if r := ct.freeRank(cls, x.Transform(int(h))); r < best {
				best = r
			}
		}
	}
	return uint32(cls*s.l.per + best)
}

// appendUnique appends x to list unless it is there already.
func appendUnique(list []uint32, x uint32) []uint32 {
	for _, y := range list {
		if y == x {
			return list
		}
	}
	return append(list, x)
}

// children appends the distinct entries reached by the mover's slides.
//
// Two slides can reach the same entry only through a symmetry fixing the
// other side's squares (the next mover's), so duplicates are looked for only
// when that set has symmetries of its own; the same holds in parents for the
// mover's squares.
func (s *moveSolver) children(mover, other Bitboard, buf []uint32) []uint32 {
	rkO := colexRank(other)
	dedup := len(s.ct.stab[s.ct.classOf[rkO]]) > 1
	empty := allSquares &^ (mover | other)
	for x := mover; x != 0; x &= x - 1 {
		from := x.first()
		rest := mover &^ (1 << from)
		for y := neighbours[from] & empty; y != 0; y &= y - 1 {
			c := s.classIndex(rkO, rest|1<<y.first())
			if dedup {
				buf = appendUnique(buf, c)
			} else {
				buf = append(buf, c)
			}
		}
	}
	return buf
}

// parents appends the distinct unresolved entries from which a slide of the
// other side leads to (mover, other), skipping those already over.
func (s *moveSolver) parents(mover, other Bitboard, buf []uint32) []uint32 {
	dedup := len(s.ct.stab[s.ct.classOf[colexRank(mover)]]) > 1
	empty := allSquares &^ (mover | other)
	for x := other; x != 0; x &= x - 1 {
		to := x.first()
		rest := other &^ (1 << to)
		for y := neighbours[to] & empty; y != 0; y &= y - 1 {
			rk := colexRank(rest | 1<<y.first())
			if s.win[rk] {
				continue // the other side had already won
			}
			p := s.classIndex(rk, mover)
			switch {
			case s.val[p] != unresolved:
			case dedup:
				buf = appendUnique(buf, p)
			default:
				buf = append(buf, p)
			}
		}
	}
	return buf
}

// solve fills s.val with the value byte of every entry.
func (s *moveSolver) solve(ctx context.Context) error {
	l, ct := s.l, s.ct
	nClasses := len(ct.rep)
	frontiers := make([][]uint32, s.workers)

	// Initial pass: mark entries that stand for no position, games already
	// over, and count the distinct children of the others.
	s.meter.setPhase("move-init")
	err := parallelFor(ctx, s.workers, nClasses, 8, func(w, lo, hi int) {
		var buf [4 * 8]uint32
		for cls := lo; cls < hi; cls++ {
			mover := ct.rep[cls]
			moverWon := s.win[colexRank(mover)]
			stab := ct.stab[cls]
			base := cls * l.per
			for r := 0; r < l.per; r++ {
				idx := base + r
				other := ct.freeSet(cls, &l.combs[r], PiecesPerSide)
				if moverWon || (len(stab) > 1 && s.classIndex(colexRank(mover), other) != uint32(idx)) {
					s.val[idx] = skipEntry
					continue
				}
				if s.win[colexRank(other)] {
					s.val[idx] = 1 // lost: the other side has a configuration
					frontiers[w] = append(frontiers[w], uint32(idx))
					continue
				}
				n := len(s.children(mover, other, buf[:0]))
				if n == 0 {
					s.val[idx] = 1 // lost: no legal slide (house rule)
					frontiers[w] = append(frontiers[w], uint32(idx))
					continue
				}
				s.cnt[idx] = uint8(n)
			}
			s.meter.add(int64(l.per))
		}
	})
	if err != nil {
		return err
	}

	// Retrograde levels: the entries resolved at distance d make their
	// parents won at d+1 (d even: the frontier is lost) or, when their last
	// child falls, lost at d+1 (d odd). Parents are found by un-sliding in
	// parallel and sent to buckets by entry range, so that each range is
	// updated by one goroutine without atomics.
	s.meter.setPhase("move-retrograde")
	buckets := make([][][]uint32, s.workers)
	for w := range buckets {
		buckets[w] = make([][]uint32, nParts(s.workers))
	}
	next := make([][]uint32, nParts(s.workers))
	var frontier []uint32
	for _, f := range frontiers {
		frontier = append(frontier, f...)
	}
	var resolved []uint32
	for d := 0; len(frontier) > 0; d++ {
		if d+1 > maxDistance {
			return fmt.Errorf("teeko: distance %d exceeds the table's range %d", d+1, maxDistance)
		}
		v := uint8(d + 2) // distance d+1
		winLevel := d%2 == 0
		// The frontier goes in slices, which bounds the buckets' memory.
		// Within a level the order does not matter: a win is set once, and
		// each (parent, child) pair is counted down once.
		for start := 0; start < len(frontier); start += frontierSlice {
			slice := frontier[start:min(start+frontierSlice, len(frontier))]
			if err := s.resolveParents(ctx, slice, v, winLevel, buckets, next); err != nil {
				return err
			}
			for _, n := range next {
				resolved = append(resolved, n...)
			}
		}
		frontier, resolved = resolved, frontier[:0]
	}
	s.cnt = nil

	// Entries that stand for no position: the symmetric duplicates get the
	// value of their class, impossible ones (the mover has a configuration)
	// are left at 0.
	return parallelFor(ctx, s.workers, nClasses, 8, func(_, lo, hi int) {
		for cls := lo; cls < hi; cls++ {
			mover := ct.rep[cls]
			base := cls * l.per
			rk := colexRank(mover)
			for r := 0; r < l.per; r++ {
				idx := base + r
				if s.val[idx] != skipEntry {
					continue
				}
				if s.win[rk] {
					s.val[idx] = 0
					continue
				}
				other := ct.freeSet(cls, &l.combs[r], PiecesPerSide)
				s.val[idx] = s.val[s.classIndex(rk, other)]
			}
		}
	})
}

// frontierSlice is how many frontier entries are un-slid at a time.
const frontierSlice = 1 << 18

// nParts is the number of entry ranges the parents are sorted into.
func nParts(workers int) int { return 4 * workers }

// resolveParents un-slides the entries of slice in parallel, sorts their
// unresolved parents into buckets[worker][range], then lets one goroutine
// per range apply them: at a win level every parent is won (value byte v),
// at a loss level its counter goes down and it is lost when it reaches 0.
// next[range] receives the entries resolved.
func (s *moveSolver) resolveParents(ctx context.Context, slice []uint32, v uint8, winLevel bool, buckets [][][]uint32, next [][]uint32) error {
	l := s.l
	parts := len(next)
	for w := range buckets {
		for p := range buckets[w] {
			buckets[w][p] = buckets[w][p][:0]
		}
	}
	size := uint64(l.size)
	err := parallelFor(ctx, s.workers, len(slice), 4096, func(w, lo, hi int) {
		var buf [4 * 8]uint32
		bw := buckets[w]
		for _, x := range slice[lo:hi] {
			mover, other := l.pair(int(x))
			for _, p := range s.parents(mover, other, buf[:0]) {
				part := int(uint64(p) * uint64(parts) / size)
				bw[part] = append(bw[part], p)
			}
		}
		s.meter.add(int64(hi - lo))
	})
	if err != nil {
		return err
	}
	return parallelFor(ctx, s.workers, parts, 1, func(_, lo, hi int) {
		for part := lo; part < hi; part++ {
			out := next[part][:0]
			for w := range buckets {
				for _, p := range buckets[w][part] {
					if s.val[p] != unresolved {
						continue
					}
					if !winLevel {
						if s.cnt[p]--; s.cnt[p] != 0 {
							continue
						}
					}
					s.val[p] = v
					out = append(out, p)
				}
			}
			next[part] = out
		}
	})
}
