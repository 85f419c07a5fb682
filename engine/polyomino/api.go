package polyomino

import (
	"fmt"
	"slices"
)

// PieceInfo describes a piece for listings.
type PieceInfo struct {
	Name string
	// Picture draws the canonical orientation, 'X' for a cell, '.' for a gap.
	Picture      []string
	Orientations int
}

// PieceList lists the pieces of order 4, 5 or 6 with their pictures.
func PieceList(order int) ([]PieceInfo, error) {
	set, err := Pieces(order)
	if err != nil {
		return nil, err
	}
	out := make([]PieceInfo, len(set.Pieces))
	for i, p := range set.Pieces {
		out[i] = PieceInfo{Name: p.Name, Picture: p.Picture(), Orientations: len(p.Orientations)}
	}
	return out, nil
}

// canonicalFrame finds the transform and translation that carry the live
// cells of the position onto its canonical image: img = t(c) - (dx, dy).
// Of the 8 images, translated to touch the top and left edges, it picks
// the smallest drawn in a 16 x 16 frame; positions with the same
// CanonicalKey have the same set of images, hence the same choice.
func canonicalFrame(g *Game, live Bits) (t Transform, dx, dy int) {
	var cells []Cell
	for _, i := range live.Cells() {
		cells = append(cells, g.geo.Cell(i))
	}
	var best Bits
	first := true
	for _, tr := range transforms {
		minX, minY := 1<<30, 1<<30
		for _, c := range cells {
			d := tr.Apply(c)
			minX, minY = min(minX, d.X), min(minY, d.Y)
		}
		var b Bits
		for _, c := range cells {
			d := tr.Apply(c)
			b.Set((d.Y-minY)*16 + d.X - minX)
		}
		if first || lessBits(b, best) {
			best, first, t, dx, dy = b, false, tr, minX, minY
		}
	}
	if len(cells) == 0 {
		return 0, 0, 0
	}
	return t, dx, dy
}

// ToCanonical maps a move of the position into the canonical frame shared
// by every position with the same CanonicalKey. A cache keyed by
// CanonicalKey stores moves mapped with ToCanonical and hands them back
// through FromCanonical of the position asking.
func (p *Position) ToCanonical(m Move) Move { return p.Frame().ToCanonical(m) }

// ToCanonicalMoves is ToCanonical for many moves (the frame is found once).
func (p *Position) ToCanonicalMoves(ms []Move) []Move {
	f := p.Frame()
	out := make([]Move, len(ms))
	for i, m := range ms {
		out[i] = f.ToCanonical(m)
	}
	return out
}

// Frame is a position's canonical frame, found once for mapping many moves
// (finding it scans every placement for the live cells: mapping each move
// of a big board through ToCanonical or FromCanonical repeats that scan
// per move).
type Frame struct {
	t, inv Transform
	dx, dy int
}

// Frame returns the position's canonical frame.
func (p *Position) Frame() Frame {
	live, _ := p.liveSets()
	return frameOf(p.game, live)
}

// KeyFrame returns CanonicalKey(p) and p.Frame(), the live cells found once.
func (p *Position) KeyFrame() (string, Frame) {
	live, pieces := p.liveSets()
	return canonicalKey(p, live, pieces), frameOf(p.game, live)
}

// frameOf is the canonical frame of the live cells of a position of g.
func frameOf(g *Game, live Bits) Frame {
	t, dx, dy := canonicalFrame(g, live)
	inv := t
	for _, u := range transforms {
		if u.Apply(t.Apply(Cell{1, 2})) == (Cell{1, 2}) && u.Apply(t.Apply(Cell{3, -5})) == (Cell{3, -5}) {
			inv = u
		}
	}
	return Frame{t: t, inv: inv, dx: dx, dy: dy}
}

// Identity reports whether f maps every move to itself (the position is
// in its canonical frame already).
func (f Frame) Identity() bool { return f.t == 0 && f.dx == 0 && f.dy == 0 }

// ToCanonical is Position.ToCanonical in the frame f.
func (f Frame) ToCanonical(m Move) Move {
	out := Move{Piece: m.Piece, Cells: make([]Cell, len(m.Cells))}
	for i, c := range m.Cells {
		d := f.t.Apply(c)
		out.Cells[i] = Cell{d.X - f.dx, d.Y - f.dy}
	}
	slices.SortFunc(out.Cells, readingOrder) // a copy of its own
	return out
}

// FromCanonical is Position.FromCanonical in the frame f.
func (f Frame) FromCanonical(m Move) Move {
	out := Move{Piece: m.Piece, Cells: make([]Cell, len(m.Cells))}
	for i, c := range m.Cells {
		out.Cells[i] = f.inv.Apply(Cell{c.X + f.dx, c.Y + f.dy})
	}
	slices.SortFunc(out.Cells, readingOrder) // a copy of its own
	return out
}

// FromCanonical maps a move from the canonical frame back onto the
// position (the inverse of ToCanonical).
func (p *Position) FromCanonical(m Move) Move { return p.Frame().FromCanonical(m) }

// Child is a position one move below another, standing for a class of
// moves whose results are images of one another under the symmetries of
// the parent position.
type Child struct {
	Moves    []Move
	Position *Position
}

// Children splits a position into its children, one per symmetry class of
// its legal moves. A job system solves the children separately (on other
// machines, splitting them further if need be) and puts the results
// together with Combine; under the score rule a player who must pass has
// the single child "pass" (Moves empty).
func (p *Position) Children() []Child {
	if p.MustPass() {
		q := p.clone()
		q.toMove = p.toMove.Opponent()
		return []Child{{Position: q}}
	}
	var out []Child
	for _, class := range p.SymmetryClasses() {
		q, err := p.Play(class[0])
		if err != nil {
			panic(fmt.Sprintf("polyomino: legal move %s rejected: %v", class[0], err))
		}
		out = append(out, Child{Moves: class, Position: q})
	}
	return out
}

// Combine puts the results of the children (each from the point of view of
// the child's player to move, as Solve returns them) together into the
// result of the parent, as Solve would have returned it (without Nodes and
// Elapsed, which the caller adds up). A child without a result (Proven
// false) leaves the parent unproven unless another child settles it.
func Combine(p *Position, children []Child, results []Result) (Result, error) {
	if len(children) != len(results) {
		return Result{}, faultf(ErrBadConfig, "%d children but %d results", len(children), len(results))
	}
	res := Result{Scores: p.score, LegalMoves: p.LegalMoveCount()}
	if len(children) == 0 {
		res.Over, res.Proven, res.BestComplete = true, true, true
		res.Value = -1
		if p.game.score {
			res.Value = p.score[p.toMove&1] - p.score[1-p.toMove&1]
		}
		res.Outcome = outcomeOf(res.Value)
		return res, nil
	}
	if len(children) == 1 && len(children[0].Moves) == 0 { // pass
		r := results[0]
		r.Pass, r.Value, r.BestMoves, r.Moves = true, -r.Value, nil, nil
		r.Outcome = outcomeOf(r.Value)
		if !r.Proven {
			r.Outcome = OutcomeUnknown
		}
		return r, nil
	}
	moves := make([]*rootMove, len(children))
	for i, c := range children {
		rm := &rootMove{class: c.Moves, proven: results[i].Proven, value: -results[i].Value}
		if p.game.score {
			rm.value -= p.score[p.toMove&1] - p.score[1-p.toMove&1] // collect adds it back
		}
		moves[i] = rm
	}
	s := &solver{game: p.game}
	return s.collect(p, moves, p.score[p.toMove&1]-p.score[1-p.toMove&1], Options{AllMoves: true}, res), nil
}

// MoveRank places a move's value in the order Solve lists moves (Result.Moves):
// wins 0, draws 1 (the score rule's), unproven moves 2, losses 3.
func MoveRank(proven bool, value int) int {
	switch {
	case !proven:
		return 2
	case value > 0:
		return 0
	case value == 0:
		return 1
	}
	return 3
}
