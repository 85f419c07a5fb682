package polyomino

import (
	"fmt"
	"strings"
)

// Position is a state of a game: the covered cells, the pieces placed and
// who placed them, the pieces each player may still place and the player to
// move. Positions are immutable: Play returns a new one.
type Position struct {
	game   *Game
	occ    Bits // blocked or covered cells
	placed []Placed
	avail  [2]uint64 // pieces each player may still place (equal in a pool)
	toMove Player
	score  [2]int // pieces placed by each player
}

// Placed is a piece on the board. Owner is the player who placed it
// (Neutral for neutral pieces, Unknown when read from board rows of a
// common-pool game, where the placer cannot be told). The capture variant
// will change owners as pieces are captured.
type Placed struct {
	Piece string
	Cells []Cell
	Owner Player
}

func (p *Position) clone() *Position {
	q := *p
	q.placed = append([]Placed(nil), p.placed...)
	return &q
}

// NewPosition builds a position of the game cfg describes: from board rows
// (nil for the start position), then the moves in notation played in turn.
// toMove names the player to move in the resulting position; with
// DefaultToMove it follows from the pieces each player placed (in a common
// pool: first to move after an even number of pieces). In hand mode each
// move is made by the owner of its piece. After board rows the moves are
// credited counting back from toMove (in a common pool the player to move
// at the rows placed the smaller half of their pieces, the players having
// alternated); when no crediting of them ends with toMove to move (in hand
// mode the pieces' owners say who moved), they are credited from a player
// at the rows for whom they are legal, the rows' own first, and toMove
// then overrides who moves next (from the start position too: the first
// player moves first).
func NewPosition(cfg Config, board []string, moves []string, toMove Player) (*Position, error) {
	g, err := NewGame(cfg)
	if err != nil {
		return nil, err
	}
	return g.NewPosition(board, moves, toMove)
}

// NewPosition is the package-level NewPosition for a compiled game.
func (g *Game) NewPosition(board []string, moves []string, toMove Player) (*Position, error) {
	if toMove != DefaultToMove && toMove != First && toMove != Second {
		return nil, faultf(ErrBadConfig, "player to move %d (expected first or second)", toMove)
	}
	starts := []*Position{g.Start()}
	if board != nil {
		pos, err := g.parseBoard(board)
		if err != nil {
			return nil, err
		}
		switch {
		case toMove == DefaultToMove:
			starts = []*Position{pos}
		case len(moves) == 0:
			return pos.moverAtRows(toMove), nil
		default:
			// The rows' own player to move is a guess: the other may have
			// made the moves end with toMove to move. (Never both: in a
			// pool each move changes the player; in hand mode the last
			// piece's owner does, and the two replays, when both legal,
			// reach the same position.)
			starts = []*Position{pos, pos.moverAtRows(pos.toMove.Opponent())}
		}
	}
	var legal *Position
	var fault error
	furthest := -1
	for _, start := range starts {
		end, at, err := playMoves(start, moves)
		switch {
		case err != nil:
			if at > furthest { // the error of the replay that went furthest
				furthest, fault = at, err
			}
		case toMove == DefaultToMove || end.toMove == toMove:
			return end, nil
		case legal == nil:
			legal = end
		}
	}
	if legal == nil {
		return nil, fault
	}
	legal.toMove = toMove
	return legal, nil
}

// moverAtRows is p, a position read from board rows, with who to move: in
// a common pool, where the players alternate, he placed the smaller half
// of the rows' pieces (whose placers the rows do not tell).
func (p *Position) moverAtRows(who Player) *Position {
	q := p.clone()
	q.toMove = who
	if p.game.pool {
		n := p.score[First] + p.score[Second]
		q.score[who], q.score[who.Opponent()] = n/2, (n+1)/2
	}
	return q
}

// playMoves plays the moves in notation from pos in turn; on a fault it
// returns the index of the move at fault.
func playMoves(pos *Position, moves []string) (*Position, int, error) {
	for i, s := range moves {
		m, err := ParseMove(s)
		if err != nil {
			return nil, i, &FieldError{Field: "Moves", Index: i + 1, Err: fmt.Errorf("move %d: %w", i+1, err)}
		}
		next, err := pos.Play(m)
		if err != nil {
			return nil, i, &FieldError{Field: "Moves", Index: i + 1, Err: fmt.Errorf("move %d: %w", i+1, err)}
		}
		pos = next
	}
	return pos, len(moves), nil
}

// parseBoard reads board rows: '.' empty, '#' blocked or covered by a piece
// whose identity does not matter, any other character a cell of a placed
// piece; the cells sharing a character form one piece, named by its shape.
func (g *Game) parseBoard(rows []string) (*Position, error) {
	geo := g.geo
	if len(rows) != geo.Height {
		return nil, faultf(ErrBadBoard, "board has %d rows, expected %d", len(rows), geo.Height)
	}
	pos := &Position{game: g, occ: geo.Blocked, avail: g.hands}
	labels := map[rune][]Cell{}
	var order []rune
	var anon Bits // cells written '#
	for y, row := range rows {
		r := []rune(row)
		if len(r) != geo.Width {
			return nil, faultf(ErrBadBoard, "board row %d has %d cells (characters), expected %d", y+1, len(r), geo.Width)
		}
		for x, ch := range r {
			c := Cell{x, y}
			i := geo.Index(c)
			switch {
			case ch == '.':
			case ch == '#':
				pos.occ.Set(i)
				anon.Set(i)
			case ch <= ' ' || ch == 0x7f:
				return nil, faultf(ErrBadBoard, "board row %d: control or space character at cell %s (use '.' for empty)", y+1, c)
			default:
				if geo.Blocked.Has(i) {
					return nil, faultf(ErrBadBoard, "cell %s is blocked, but board row %d puts piece label %q on it", c, y+1, ch)
				}
				if _, ok := labels[ch]; !ok {
					order = append(order, ch)
				}
				labels[ch] = append(labels[ch], c)
				pos.occ.Set(i)
			}
		}
	}
	var used uint64
	usedBy := map[int]rune{}
	unknown := 0
	for _, ch := range order {
		cells := labels[ch]
		if len(cells) != g.set.Order {
			hint := ""
			if len(cells) > g.set.Order {
				hint = " (each placed piece needs a character of its own)"
			}
			return nil, faultf(ErrBadBoard, "piece labelled %q has %s (%s), expected %d%s", ch, cellCount(len(cells)), cellList(cells), g.set.Order, hint)
		}
		if !connected(cells) {
			return nil, faultf(ErrBadBoard, "cells labelled %q (%s) are not connected", ch, cellList(cells))
		}
		shape := Shape(append([]Cell(nil), cells...)).Canonical()
		var piece *Piece
		for _, p := range g.set.Pieces {
			if p.Shape.Equal(shape) {
				piece = p
			}
		}
		if piece == nil {
			return nil, faultf(ErrBadBoard, "cells labelled %q do not form a piece of order %d", ch, g.set.Order)
		}
		if other, ok := usedBy[piece.Index]; ok {
			return nil, faultf(ErrPieceUsed, "piece %s is placed twice (labels %q and %q)", piece.Name, other, ch)
		}
		usedBy[piece.Index] = ch
		used |= 1 << piece.Index
		owner := Unknown
		switch {
		case !g.pool && g.hands[0]&(1<<piece.Index) != 0:
			owner = First
		case !g.pool && g.hands[1]&(1<<piece.Index) != 0:
			owner = Second
		case g.isNeutral(piece.Index):
			owner = Neutral
		case g.pool && g.hands[0]&(1<<piece.Index) != 0:
			unknown++
		default:
			return nil, faultf(ErrBadBoard, "piece %s (label %q) is not in this game", piece.Name, ch)
		}
		if owner == First || owner == Second {
			pos.score[owner]++
		}
		pos.placed = append(pos.placed, Placed{Piece: piece.Name, Cells: sortedCells(cells), Owner: owner})
	}
	// The rows show the whole position: a neutral piece (placed before the
	// first move) must be among them, or the game would lose it silently;
	// its cells may be written '#' (its identity does not matter to play).
	for _, p := range g.start.placed {
		q, _ := g.set.Piece(p.Piece)
		if used&(1<<q.Index) != 0 {
			continue
		}
		for _, c := range p.Cells {
			if !anon.Has(geo.Index(c)) {
				return nil, faultf(ErrBadBoard, "the board lacks the neutral piece %s (placed before the first move, at %s): board rows show the whole position, neutral pieces included; draw it (by its letter or as '#'), or give neutral [] for none", p.Piece, cellList(p.Cells))
			}
		}
		pos.placed = append(pos.placed, p)
	}
	pos.avail[0] &^= used
	pos.avail[1] &^= used
	// In a pool the placers of the labelled pieces are unknown; the players
	// alternate, so the first placed ceil(n/2) of them.
	pos.score[First] += (unknown + 1) / 2
	pos.score[Second] += unknown / 2
	pos.toMove = First
	if pos.score[First] > pos.score[Second] {
		pos.toMove = Second
	}
	return pos, nil
}

func (g *Game) isNeutral(piece int) bool {
	for _, p := range g.start.placed {
		if q, _ := g.set.Piece(p.Piece); q.Index == piece {
			return true
		}
	}
	return false
}

func connected(cells []Cell) bool {
	in := make(map[Cell]bool, len(cells))
	for _, c := range cells {
		in[c] = true
	}
	seen := map[Cell]bool{cells[0]: true}
	stack := []Cell{cells[0]}
	for len(stack) > 0 {
		c := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, d := range [...]Cell{{1, 0}, {-1, 0}, {0, 1}, {0, -1}} {
			n := Cell{c.X + d.X, c.Y + d.Y}
			if in[n] && !seen[n] {
				seen[n] = true
				stack = append(stack, n)
			}
		}
	}
	return len(seen) == len(cells)
}

// Game returns the game the position belongs to.
func (p *Position) Game() *Game { return p.game }

// ToMove is the player to move.
func (p *Position) ToMove() Player { return p.toMove }

// Scores are the numbers of pieces placed by the first and second player.
func (p *Position) Scores() [2]int { return p.score }

// Placed lists the pieces on the board in the order they were placed (board
// rows: in reading order of their first cell), neutral pieces included.
func (p *Position) Placed() []Placed { return append([]Placed(nil), p.placed...) }

// Available lists the pieces a player may still place.
func (p *Position) Available(pl Player) []string { return pieceNames(p.game.set, p.avail[pl&1]) }

// Play returns the position after the player to move places m. In hand
// mode the move is made by the owner of the piece. Under the score rule a
// player who cannot place passes: if the player to move is stuck the other
// makes the move.
func (p *Position) Play(m Move) (*Position, error) {
	g := p.game
	piece, ok := g.set.Piece(m.Piece)
	if !ok {
		return nil, faultf(ErrUnknownPiece, "no piece %q in the set of order %d (%s)", m.Piece, g.set.Order, strings.Join(g.set.Names(), " "))
	}
	bit := uint64(1) << piece.Index
	pl, err := g.resolveCells(piece, m.Cells)
	if err != nil {
		return nil, err
	}
	mover := p.toMove
	switch {
	case (g.hands[0]|g.hands[1])&bit == 0:
		return nil, faultf(ErrUnknownPiece, "piece %s is not in this game", piece.Name)
	case (p.avail[0]|p.avail[1])&bit == 0:
		return nil, faultf(ErrPieceUsed, "piece %s is already placed", piece.Name)
	case !g.pool && p.avail[mover]&bit == 0:
		// Hand mode: the owner of the piece moves. Under normal play the
		// owner must be the player to move; under the score rule the
		// other player may move when the player to move is stuck.
		if g.score && !p.hasMove(mover) {
			mover = mover.Opponent()
		} else {
			return nil, faultf(ErrIllegalMove, "piece %s belongs to the %s player, but the %s player is to move", piece.Name, mover.Opponent(), mover)
		}
	}
	if !p.hasMove(First) && !p.hasMove(Second) {
		return nil, faultf(ErrGameOver, "no piece can be placed any more")
	}
	if g.cfg.EndRule == NormalPlay && !p.hasMove(mover) {
		return nil, faultf(ErrGameOver, "the %s player cannot move and has lost", mover)
	}
	for _, c := range pl.cells {
		if p.occ.Has(g.geo.Index(c)) {
			what := "covered by a piece"
			if g.geo.Blocked.Has(g.geo.Index(c)) {
				what = "blocked"
			}
			return nil, faultf(ErrIllegalMove, "cell %s is %s", c, what)
		}
	}
	q := p.clone()
	q.occ = q.occ.Or(pl.mask)
	q.avail[0] &^= bit
	q.avail[1] &^= bit
	q.placed = append(q.placed, Placed{Piece: piece.Name, Cells: pl.cells, Owner: mover})
	q.score[mover]++
	q.toMove = mover.Opponent()
	return q, nil
}

// Board draws the position as rows: '.' empty, '#' blocked or covered by a
// piece of unknown identity, and one character per placed piece: its name
// when names are single letters, otherwise 'A', 'B', ... in placing order
// (NewPosition reads pieces back from their shapes).
func (p *Position) Board() []string {
	geo := p.game.geo
	rows := make([][]byte, geo.Height)
	for y := range rows {
		rows[y] = make([]byte, geo.Width)
		for x := range rows[y] {
			if p.occ.Has(geo.Index(Cell{x, y})) {
				rows[y][x] = '#'
			} else {
				rows[y][x] = '.'
			}
		}
	}
	for _, pl := range p.placed {
		ch := Symbol(pl.Piece)
		for _, c := range pl.Cells {
			rows[c.Y][c.X] = ch
		}
	}
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = string(r)
	}
	return out
}

// String draws the board rows joined by newlines.
func (p *Position) String() string { return strings.Join(p.Board(), "\n") }

// Symbol is the character that stands for a piece in a board's rows (and
// in tiling solutions): the letter of a tetromino or pentomino, and for
// the hexominoes H01..H35 their number written as one base-36 digit: H01..
// H09 are '1'..'9' and H10..H35 are 'A'..'Z'. Each piece of a set has its
// own, so that the pieces of a board stay apart.
func Symbol(name string) byte {
	if len(name) == 1 {
		return name[0]
	}
	n := 0
	for i := 0; i < len(name); i++ {
		if c := name[i]; c >= '0' && c <= '9' {
			n = n*10 + int(c-'0')
		}
	}
	switch {
	case n >= 1 && n <= 9:
		return byte('0' + n)
	case n >= 10 && n <= 35:
		return byte('A' + n - 10)
	}
	return '?'
}

// cellCount writes n cells in words: "1 cell", "3 cells".
func cellCount(n int) string {
	if n == 1 {
		return "1 cell"
	}
	return fmt.Sprintf("%d cells", n)
}
