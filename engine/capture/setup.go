package capture

import (
	"sort"
	"strings"

	"github.com/gamesolver/gamesolver/engine/polyomino"
)

// Setup describes a position for Game.NewPosition: a start position, then
// turns played from it.
type Setup struct {
	// Board rows, top row first, one character per cell: '.' empty, '#'
	// blocked (or covered for good), a letter a cell of the piece of that
	// name (single-letter piece names, either case); other characters
	// (used for hexominoes: Board draws H01..H35 as 1..9, A..Z) label a
	// piece named by its shape. nil is the empty board.
	Board []string
	// Markers maps pieces on the board to "first" or "second"; pieces on
	// the board not listed are unmarked.
	Markers map[string]string
	// Pool lists the pieces that may be placed; nil means every piece of
	// the game not on the board. Pieces neither on the board nor in the
	// pool are out of play until the end.
	Pool []string
	// Banned starts the position in the middle of a turn: the player to
	// move has removed these pieces (they are in the pool) and must now
	// place another one (he may still remove more). Empty for a position
	// between turns, which is what every position after a turn is.
	Banned []string
	// ToMove is the player to move in the resulting position, "first" or
	// "second". Empty: the first player moves first from the empty board,
	// and from board rows the first player is to move after an even number
	// of pieces on the board; then the players alternate. Given with board
	// rows, the turns are credited counting back from it; without, it must
	// agree with the number of turns.
	ToMove string
	// Turns are played in order from the start position.
	Turns []string
}

// NewPosition builds a position of the game cfg describes: the start
// position from board rows (nil for the empty board), markers, pool and
// player to move, then the turns played in order. See Setup for the
// meaning and defaults of each argument. Errors for a turn are *TurnError
// values naming it; all errors wrap the package's Err values.
func NewPosition(cfg Config, board []string, markers map[string]string, pool []string, toMove string, turns []string) (*Position, error) {
	g, err := NewGame(cfg)
	if err != nil {
		return nil, err
	}
	return g.NewPosition(Setup{Board: board, Markers: markers, Pool: pool, ToMove: toMove, Turns: turns})
}

// Start is the empty board with the first player to move.
func (g *Game) Start() *Position {
	p := &Position{game: g, st: g.emptyState()}
	p.history = []histEntry{entryOf(&p.st)}
	return p
}

// NewPosition builds a position from a Setup.
func (g *Game) NewPosition(su Setup) (*Position, error) {
	side := -1
	switch strings.ToLower(strings.TrimSpace(su.ToMove)) {
	case "":
	case "first", "1": // as the other polyomino games read it
		side = first
	case "second", "2":
		side = second
	default:
		return nil, inField("ToMove", faultf(ErrBadPosition, "player to move %q (expected first or second)", su.ToMove))
	}
	s := g.emptyState()
	if su.Board != nil {
		if err := g.parseBoard(&s, su.Board); err != nil {
			return nil, err
		}
	}
	if err := g.applyMarkers(&s, su.Markers); err != nil {
		return nil, err
	}
	if su.Pool != nil {
		var pool pieceSet
		for _, name := range su.Pool {
			p, err := g.lookupPiece(strings.TrimSpace(name))
			if err != nil {
				return nil, inField("Pool", faultf(ErrBadPosition, "pool: %v", err))
			}
			if s.onBoard.has(p) {
				return nil, inField("Pool", faultf(ErrBadPosition, "pool: piece %s is on the board", g.pieces[p].Name))
			}
			if pool.has(p) {
				return nil, inField("Pool", faultf(ErrBadPosition, "pool: piece %s listed twice", g.pieces[p].Name))
			}
			pool |= 1 << uint(p)
		}
		for out := s.pool &^ pool; out != 0; out &= out - 1 {
			s.pool &^= 1 << uint(out.lowest())
			s.key = s.key.xor(g.zobrist.pool[out.lowest()])
		}
	}
	for _, name := range su.Banned {
		p, err := g.lookupPiece(strings.TrimSpace(name))
		if err != nil {
			return nil, inField("Banned", faultf(ErrBadPosition, "banned: %v", err))
		}
		if !s.pool.has(p) {
			return nil, inField("Banned", faultf(ErrBadPosition, "banned: piece %s is not in the pool (a piece removed on this turn goes back to the pool)", g.pieces[p].Name))
		}
		if s.banned.has(p) {
			return nil, inField("Banned", faultf(ErrBadPosition, "banned: piece %s listed twice", g.pieces[p].Name))
		}
		s.banned |= 1 << uint(p)
	}
	if err := g.checkBanned(&s); err != nil {
		return nil, inField("Banned", err)
	}
	// The player to move at the start: ToMove names the one after the
	// turns, so count back.
	start := first
	if su.Board != nil && s.onBoard.count()%2 == 1 {
		start = second
	}
	if side >= 0 {
		if su.Board == nil && side != first^len(su.Turns)%2 {
			// From the empty board the first player moves first and the
			// players alternate (no passes): a different player to move
			// would credit the turns to the wrong players.
			return nil, inField("ToMove", faultf(ErrBadPosition, "player to move %s after %d turns from the start: the first player moves first and the players alternate; give board rows (and markers) to set up another position", playerNames[side], len(su.Turns)))
		}
		start = side ^ len(su.Turns)%2
	}
	s.setToMove(g, start)
	pos := &Position{game: g, st: s}
	if s.banned == 0 {
		pos.history = []histEntry{entryOf(&pos.st)}
	}
	seen := make(map[posKey]int, len(pos.history)+len(su.Turns))
	for _, h := range pos.history {
		seen[h.key]++
	}
	for i, text := range su.Turns {
		t, err := ParseTurn(text)
		if err == nil {
			err = pos.advance(t, seen)
		}
		if err != nil {
			return nil, &TurnError{Index: i + 1, Turn: text, Err: err}
		}
	}
	return pos, nil
}

// parseBoard reads board rows into s.
func (g *Game) parseBoard(s *state, rows []string) error {
	if len(rows) != g.height {
		return faultf(ErrBadBoard, "board has %d rows, expected %d", len(rows), g.height)
	}
	labels := map[rune][]polyomino.Cell{}
	var order []rune
	for y, row := range rows {
		r := []rune(row)
		if len(r) != g.width {
			return faultf(ErrBadBoard, "board row %d has %d cells (characters), expected %d", y+1, len(r), g.width)
		}
		for x, ch := range r {
			c := polyomino.Cell{X: x, Y: y}
			i := g.cellIndex(c)
			switch {
			case ch == '.':
			case ch == '#':
				if !g.blocked.has(i) {
					s.occ.set(i) // covered for good: no piece, never freed
				}
			case ch <= ' ' || ch == 0x7f:
				return faultf(ErrBadBoard, "board row %d: control or space character at cell %s (use '.' for an empty cell)", y+1, c)
			default:
				if ch >= 'a' && ch <= 'z' {
					ch -= 'a' - 'A'
				}
				if g.blocked.has(i) {
					return faultf(ErrBadBoard, "cell %s is blocked, but board row %d puts piece label %q on it", c, y+1, ch)
				}
				if _, ok := labels[ch]; !ok {
					order = append(order, ch)
				}
				labels[ch] = append(labels[ch], c)
			}
		}
	}
	usedBy := map[int]rune{}
	for _, ch := range order {
		cells := labels[ch]
		p, err := g.pieceOfCells(ch, cells)
		if err != nil {
			return err
		}
		if other, ok := usedBy[p]; ok {
			return faultf(ErrBadBoard, "piece %s is on the board twice (labels %q and %q); each piece exists once", g.pieces[p].Name, other, ch)
		}
		usedBy[p] = ch
		var mask cellSet
		for _, c := range cells {
			mask.set(g.cellIndex(c))
		}
		pi, ok := g.index[placementKey{p, mask}]
		if !ok {
			return faultf(ErrBadBoard, "cells labelled %q do not fit on the board", ch)
		}
		if mask.intersects(s.occ) {
			return faultf(ErrBadBoard, "cells labelled %q overlap another piece", ch)
		}
		s.put(g, pi)
	}
	return nil
}

// pieceOfCells names the piece drawn with label ch on cells.
func (g *Game) pieceOfCells(ch rune, cells []polyomino.Cell) (int, error) {
	list := polyomino.CellList(cells)
	if len(cells) != g.set.Order {
		return 0, faultf(ErrBadBoard, "piece labelled %q has %d cells (%s), expected %d", ch, len(cells), list, g.set.Order)
	}
	shape := polyomino.Shape(append([]polyomino.Cell(nil), cells...)).Canonical()
	var found *polyomino.Piece
	for _, p := range g.set.Pieces {
		if p.Shape.Equal(shape) {
			found = p
		}
	}
	if found == nil {
		return 0, faultf(ErrBadBoard, "cells labelled %q (%s) do not form a piece of order %d", ch, list, g.set.Order)
	}
	if named, ok := g.set.Piece(string(ch)); ok && len(named.Name) == 1 && named != found {
		return 0, faultf(ErrBadBoard, "cells labelled %q (%s) form piece %s, not %s", ch, list, found.Name, named.Name)
	}
	p, ok := g.byName[found.Name]
	if !ok {
		return 0, faultf(ErrBadBoard, "cells labelled %q form piece %s, which is not in this game (%s)", ch, found.Name, strings.Join(g.Pieces(), " "))
	}
	return p, nil
}

func (g *Game) applyMarkers(s *state, markers map[string]string) error {
	names := make([]string, 0, len(markers))
	for name := range markers {
		names = append(names, name)
	}
	sort.Strings(names) // report the first fault deterministically
	seen := make(map[int]string, len(names))
	for _, name := range names {
		p, err := g.lookupPiece(strings.TrimSpace(name))
		if err != nil {
			return inField("Markers", faultf(ErrBadPosition, "markers: %v", err))
		}
		if other, ok := seen[p]; ok {
			// "I" and "i" (or " I ") name one piece: which marker it
			// carries would depend on the keys' order.
			return inField("Markers", faultf(ErrBadPosition, "markers: piece %s listed twice (keys %q and %q)", g.pieces[p].Name, other, name))
		}
		seen[p] = name
		// The value first: a bad one is a fault whatever the board.
		side := first
		switch strings.ToLower(strings.TrimSpace(markers[name])) {
		case "":
			// null or "": no marker, as a word field left out (an
			// audit's {"I": null} was refused as marker "").
			continue
		case "first":
		case "second":
			side = second
		default:
			return inField("Markers", faultf(ErrBadPosition, "markers: piece %s has marker %q (expected first or second)", g.pieces[p].Name, markers[name]))
		}
		if !s.onBoard.has(p) {
			return inField("Markers", faultf(ErrBadPosition, "markers: piece %s is not on the board (only pieces on the board carry markers)", g.pieces[p].Name))
		}
		s.mark(g, p, side)
	}
	return nil
}

// resolve checks a turn of the player to move and converts it. The error
// says which rule the turn breaks.
func (g *Game) resolve(s *state, t Turn) (turn, error) {
	me := s.toMove
	piece, err := g.lookupPiece(t.Piece)
	if err != nil {
		return turn{}, err
	}
	var remove pieceSet
	for _, name := range t.Removals {
		r, err := g.lookupPiece(name)
		if err != nil {
			return turn{}, err
		}
		rn := g.pieces[r].Name
		switch {
		case remove.has(r):
			return turn{}, faultf(ErrBadNotation, "turn removes %s twice", rn)
		case !s.onBoard.has(r):
			return turn{}, faultf(ErrNotYourMarker, "removal of %s: it is not on the board", rn)
		case s.marks[1-me].has(r):
			return turn{}, faultf(ErrNotYourMarker, "removal of %s: it carries %s's marker, not %s's", rn, playerNames[1-me], playerNames[me])
		case !s.marks[me].has(r):
			return turn{}, faultf(ErrNotYourMarker, "removal of %s: it carries no marker (only pieces carrying %s's marker may be removed)", rn, playerNames[me])
		}
		remove |= 1 << uint(r)
	}
	name := g.pieces[piece].Name
	switch {
	case remove.has(piece) || s.banned.has(piece):
		return turn{}, faultf(ErrBannedPiece, "%s was removed this turn and cannot be placed on the same turn", name)
	case s.onBoard.has(piece):
		return turn{}, faultf(ErrPieceUnavailable, "piece %s is on the board, not in the pool", name)
	case !s.pool.has(piece):
		return turn{}, faultf(ErrPieceUnavailable, "piece %s is not in the pool (it is out of play)", name)
	}
	if len(t.Cells) != g.set.Order {
		return turn{}, faultf(ErrWrongShape, "%s covers %d cells, the turn lists %d", name, g.set.Order, len(t.Cells))
	}
	var mask cellSet
	for _, c := range t.Cells {
		if !g.onBoard(c) {
			return turn{}, faultf(ErrOffBoard, "cell %s is off the %dx%d board", c, g.width, g.height)
		}
		i := g.cellIndex(c)
		if mask.has(i) {
			return turn{}, faultf(ErrBadNotation, "turn lists cell %s twice", c)
		}
		mask.set(i)
	}
	shape := polyomino.Shape(append([]polyomino.Cell(nil), t.Cells...)).Normalize()
	fits := false
	for _, o := range g.pieces[piece].Orientations {
		fits = fits || o.Equal(shape)
	}
	if !fits {
		return turn{}, faultf(ErrWrongShape, "cells %s do not form piece %s", polyomino.CellList(t.Cells), name)
	}
	for _, c := range t.Cells {
		if g.blocked.has(g.cellIndex(c)) {
			return turn{}, faultf(ErrBlockedCell, "cell %s is blocked", c)
		}
	}
	for _, c := range t.Cells {
		i := g.cellIndex(c)
		if !s.occ.has(i) {
			continue
		}
		o := int(s.owner[i])
		switch {
		case o < 0:
			return turn{}, faultf(ErrOccupied, "cell %s is covered for good", c)
		case remove.has(o):
		case s.marks[me].has(o):
			return turn{}, faultf(ErrOccupied, "cell %s is covered by %s, which this turn does not remove (it carries %s's marker: write ~%s before the placement)", c, g.pieces[o].Name, playerNames[me], g.pieces[o].Name)
		case s.marks[1-me].has(o):
			return turn{}, faultf(ErrOccupied, "cell %s is covered by %s, which carries %s's marker, so %s cannot remove it", c, g.pieces[o].Name, playerNames[1-me], playerNames[me])
		default:
			return turn{}, faultf(ErrOccupied, "cell %s is covered by %s, which carries no marker and cannot be removed", c, g.pieces[o].Name)
		}
	}
	pi, ok := g.index[placementKey{piece, mask}]
	if !ok {
		return turn{}, faultf(ErrWrongShape, "cells %s do not form piece %s", polyomino.CellList(t.Cells), name)
	}
	return turn{remove: remove, place: pi}, nil
}

// checkBanned refuses pieces removed on the turn in progress that cannot
// have been on the board a moment ago: each lay on cells now empty, apart
// from the others (an empty board with every piece removed was answered
// as a lost position).
func (g *Game) checkBanned(s *state) error {
	if s.banned == 0 {
		return nil
	}
	free := g.open.andNot(s.occ)
	area := 0
	for b := s.banned; b != 0; b &= b - 1 {
		p := b.lowest()
		area += g.pieces[p].Size()
		fits := false
		for _, m := range g.masks[p] {
			if m.within(free) {
				fits = true
				break
			}
		}
		if !fits {
			return faultf(ErrBadPosition, "banned: piece %s was removed from the board on this turn, but it fits nowhere on the cells that are empty now, where it lay", g.pieces[p].Name)
		}
	}
	if n := free.count(); area > n {
		return faultf(ErrBadPosition, "banned: the pieces removed on this turn covered %d cells a moment ago, but only %d cells are empty now", area, n)
	}
	return nil
}
