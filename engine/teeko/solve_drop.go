package teeko

import (
	"context"
	"fmt"
	"slices"
	"sync/atomic"
)

// The drop phase is solved level by level from 7 pieces down to the empty
// board. The value of a drop position with k pieces depends on the drop style
// only through who decides the plies k..7, that is through the style's
// decider pattern shifted right by k (its "key"); styles with the same key at
// a level share one table there.

// dropTable is the table of drop level k for one key.
type dropTable struct {
	key uint8
	val []uint8
}

// dropKeys returns the distinct keys of level k over all styles, sorted.
func dropKeys(k int) []uint8 {
	var keys []uint8
	for _, s := range AllDropStyles() {
		key := s.deciderPattern() >> k
		if !slices.Contains(keys, key) {
			keys = append(keys, key)
		}
	}
	slices.Sort(keys)
	return keys
}

// childScore[b] is the score, for the player to move in a drop position, of
// a child whose value byte (seen by the child's mover, the other colour) is
// b: 512-n for a win in n plies, 0 for a draw, n-512 for a loss in n.
var childScore = makeChildScore()

const scoreBase = 512

func makeChildScore() [256]int16 {
	var s [256]int16
	for b := 1; b < 256; b++ {
		n := b // plies for the parent: the child's n = b-1, plus one
		if (b-1)%2 == 1 {
			s[b] = int16(n - scoreBase) // the child's mover wins
		} else {
			s[b] = int16(scoreBase - n)
		}
	}
	return s
}

// maxStoredDistance is the longest distance a value byte can hold.
const maxStoredDistance = 254

// scoreByte turns a score for the mover back into a value byte; ok is false
// when the distance does not fit.
func scoreByte(score int) (b uint8, ok bool) {
	n := 0
	switch {
	case score == 0:
		return 0, true
	case score > 0:
		n = scoreBase - score
	default:
		n = score + scoreBase
	}
	if n > maxStoredDistance {
		return 0, false
	}
	return uint8(n + 1), true
}

// solveDrops fills tb.drop from tb.move.
func (tb *Tablebase) solveDrops(ctx context.Context, workers int, meter *progressMeter) error {
	meter.setPhase("drop")
	win := tb.g.isWin[tb.rules]
	for k := DropPlies - 1; k >= 0; k-- {
		l := tb.g.levels[k]
		keys := dropKeys(k)
		tables := make([]dropTable, len(keys))
		for i, key := range keys {
			tables[i] = dropTable{key: key, val: make([]uint8, l.size)}
		}
		// Keys with the same child key share the children's values.
		var childKeys []uint8
		for _, key := range keys {
			if !slices.Contains(childKeys, key>>1) {
				childKeys = append(childKeys, key>>1)
			}
		}
		for _, ck := range childKeys {
			var group []*dropTable
			for i := range tables {
				if tables[i].key>>1 == ck {
					group = append(group, &tables[i])
				}
			}
			child, cl := tb.move, tb.g.levels[k+1]
			if k+1 < DropPlies {
				child = tb.dropTable(k+1, ck)
			}
			var tooFar atomic.Bool
			err := parallelFor(ctx, workers, len(l.ct.rep), 4, func(_, lo, hi int) {
				for idx := lo * l.per; idx < hi*l.per; idx++ {
					black, red := l.pair(idx)
					if k == DropPlies-1 && win[colexRank(black)] {
						for _, t := range group {
							t.val[idx] = 1 // black has just won
						}
						continue
					}
					hiScore, loScore := -scoreBase, scoreBase
					for y := allSquares &^ (black | red); y != 0; y &= y - 1 {
						q := Bitboard(1) << y.first()
						var ci int
						if k%2 == 0 {
							ci = cl.index(black|q, red)
						} else {
							ci = cl.index(black, red|q) // at k = 7: black to move, as mover
						}
						sc := int(childScore[child[ci]])
						hiScore = max(hiScore, sc)
						loScore = min(loScore, sc)
					}
					for _, t := range group {
						sc := hiScore
						if t.key&1 != 0 {
							sc = loScore // the opponent of the piece's owner decides
						}
						b, ok := scoreByte(sc)
						if !ok {
							tooFar.Store(true)
						}
						t.val[idx] = b
					}
				}
				meter.add(int64((hi - lo) * l.per * len(group)))
			})
			if err != nil {
				return err
			}
			if tooFar.Load() {
				return fmt.Errorf("teeko: a drop-phase distance exceeds the table's range of %d plies", maxStoredDistance)
			}
		}
		tb.drop[k] = tables
	}
	return nil
}

// dropTable returns the values of level k for key.
func (tb *Tablebase) dropTable(k int, key uint8) []uint8 {
	for _, t := range tb.drop[k] {
		if t.key == key {
			return t.val
		}
	}
	return nil
}
