package teeko

import (
	"context"
	"runtime"
	"sync"
)

// Tablebase holds the solved game of one rule set: the value of every
// move-phase position and, for each of the eight drop styles, of every
// drop-phase position. It is read-only once built or loaded and safe for
// concurrent use.
type Tablebase struct {
	rules Rules
	g     *geometry
	// move holds the move phase: entries (mover, other) of levels[8], value
	// bytes seen by the mover. Positions with Red to move are looked up
	// colour-swapped: the move-phase rules do not depend on colour.
	move []uint8
	// drop[k] holds the tables of drop level k (k pieces down), entries
	// (black, red) of levels[k], value bytes seen by the colour to drop.
	drop [DropPlies][]dropTable
	// byStyle[s][k] is the table of level k used by style s.
	byStyle [numDropStyles][DropPlies][]uint8

	statsOnce [numDropStyles]sync.Once
	stats     [numDropStyles]Stats
	moveOnce  sync.Once
	moveStats moveStats
}

// Rules returns the rule set the tablebase solves.
func (tb *Tablebase) Rules() Rules { return tb.rules }

// Build solves one rule set: a retrograde analysis of the move phase, then
// the drop phase for every drop style. It uses workers goroutines (all
// cores when workers <= 0), stops with the context's error when ctx is
// cancelled, and calls progress (if not nil; calls are serialized) as the
// work goes on.
func Build(ctx context.Context, rules Rules, workers int, progress func(Progress)) (*Tablebase, error) {
	if !rules.valid() {
		return nil, errorf(ErrBadRules, "unknown rules %d: expected standard or advanced", rules)
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	g := sharedGeometry()
	moveSize := int64(g.levels[DropPlies].size)
	var dropWork int64
	for k := 0; k < DropPlies; k++ {
		dropWork += int64(g.levels[k].size * len(dropKeys(k)))
	}
	meter := newProgressMeter(progress, rules, 2*moveSize+dropWork)

	ms := newMoveSolver(g, rules, workers, meter)
	if err := ms.solve(ctx); err != nil {
		return nil, err
	}
	meter.add(2*moveSize - meter.done.Load()) // draws are never visited
	tb := &Tablebase{rules: rules, g: g, move: ms.val}
	if err := tb.solveDrops(ctx, workers, meter); err != nil {
		return nil, err
	}
	tb.link()
	meter.setPhase("done")
	return tb, nil
}

// link points byStyle at the shared drop tables.
func (tb *Tablebase) link() {
	for _, s := range AllDropStyles() {
		for k := 0; k < DropPlies; k++ {
			tb.byStyle[s][k] = tb.dropTable(k, s.deciderPattern()>>k)
		}
	}
}

// valueByte returns the value byte of a board, seen by the side to move.
func (tb *Tablebase) valueByte(b Board, toMove Color, style DropStyle) uint8 {
	k := b.Pieces()
	if k == DropPlies {
		mover, other := b.Black, b.Red
		if toMove == Red {
			mover, other = other, mover
		}
		return tb.move[tb.g.levels[DropPlies].index(mover, other)]
	}
	return tb.byStyle[style][k][tb.g.levels[k].index(b.Black, b.Red)]
}

// check returns an error when pos or style do not fit the tablebase.
func (tb *Tablebase) check(pos Position, style DropStyle) error {
	if pos.rules != tb.rules {
		return errorf(ErrRulesMismatch, "position uses %s rules, the tablebase solves %s rules", pos.rules, tb.rules)
	}
	if !style.valid() {
		return errorf(ErrBadDropStyle, "unknown drop style %d", style)
	}
	return nil
}

// Value returns the value of a position under perfect play; style decides
// who chooses the drops (it does not matter in the move phase).
func (tb *Tablebase) Value(pos Position, style DropStyle) (Value, error) {
	if err := tb.check(pos, style); err != nil {
		return Value{}, err
	}
	return tb.value(pos, style), nil
}

func (tb *Tablebase) value(pos Position, style DropStyle) Value {
	return decodeValue(tb.valueByte(pos.board, pos.ToMove(), style), pos.ToMove())
}
