package verify

import (
	"context"
	"errors"
	"math/bits"
)

// Solver decides positions by plain negamax: the player to move wins when
// one of his moves leaves a position the opponent loses; the player who
// cannot move loses. It knows nothing of the main solver's graph, keys,
// pruning rules, move ordering or table; its only aid is a memo of the
// positions decided, keyed by the exact board and pieces used.
type Solver struct {
	g    *Game
	memo []memoEntry
	mask uint64
	// Nodes counts the positions visited (memo hits included).
	Nodes int64
	ctx   context.Context
	// bufs[d] holds the moves of the child being searched at depth d
	// (pieces placed).
	bufs [13][]Move
}

// memoEntry: occ, and used | 1<<12 (a win) | 1<<13 (valid) in tag.
type memoEntry struct {
	occ uint64
	tag uint16
}

const (
	memoWin   = 1 << 12
	memoValid = 1 << 13
)

// NewSolver makes a solver with a memo of 2^memoBits entries (16 bytes each).
func NewSolver(g *Game, memoBits int) *Solver {
	return &Solver{g: g, memo: make([]memoEntry, 1<<memoBits), mask: 1<<memoBits - 1}
}

// errStopped unwinds the search when ctx is done.
var errStopped = errors.New("stopped")

// Wins reports whether the player to move in s wins. It returns ctx's
// error if ctx ends first.
func (v *Solver) Wins(ctx context.Context, s State) (win bool, err error) {
	v.ctx = ctx
	defer func() {
		if r := recover(); r != nil {
			if e, ok := r.(error); !ok || !errors.Is(e, errStopped) {
				panic(r)
			}
			err = ctx.Err()
		}
	}()
	return v.wins(s.Occ, s.Used, v.g.Moves(s)), nil
}

// wins decides the position; moves are its legal moves (a child's are
// those of its parent that neither overlap the placed piece nor use it).
func (v *Solver) wins(occ uint64, used uint16, moves []Move) bool {
	v.Nodes++
	if v.Nodes&(1<<20-1) == 0 && v.ctx.Err() != nil {
		panic(errStopped)
	}
	h := (occ*0x9e3779b97f4a7c15 ^ uint64(used)*0xc2b2ae3d27d4eb4f)
	h ^= h >> 29
	e := &v.memo[h&v.mask]
	if e.occ == occ && e.tag&memoValid != 0 && e.tag&(1<<12-1) == used {
		return e.tag&memoWin != 0
	}
	win := false
	depth := bits.OnesCount16(used)
	child := v.bufs[depth][:0]
	for _, m := range moves {
		child = child[:0]
		for _, c := range moves {
			if c.Mask&m.Mask == 0 && c.Piece != m.Piece {
				child = append(child, c)
			}
		}
		v.bufs[depth] = child
		if !v.wins(occ|m.Mask, used|1<<uint(m.Piece), child) {
			win = true
			break
		}
	}
	e = &v.memo[h&v.mask] // the slot may have been reused below
	e.occ, e.tag = occ, used|memoValid
	if win {
		e.tag |= memoWin
	}
	return win
}
