package teeko

import "fmt"

// Phase is the phase of the game: drops while fewer than eight pieces are
// down, slides afterwards.
type Phase uint8

const (
	DropPhase Phase = iota
	MovePhase
)

// String returns "drop" or "move".
func (ph Phase) String() string {
	if ph == MovePhase {
		return "move"
	}
	return "drop"
}

// Position is a board, the rules in force and the side to move. A Position
// obtained from Start, NewPosition, ParseGame or Play can arise in a real
// game (see NewPosition); the zero value is the empty board under standard
// rules with Black to move.
type Position struct {
	rules     Rules
	board     Board
	redToMove bool
}

// Start returns the empty board, Black to move.
func Start(r Rules) Position { return Position{rules: r} }

// NewPosition validates a board and the side to move.
//
// The side to move may be NoColor ("not given") in the drop phase, where the
// piece counts imply it; a colour that contradicts the counts is an error.
// With all eight pieces down it must be given (ErrToMoveRequired), unless
// one side has a winning configuration: the game is over, and the other
// side is to move. The checks, all ErrImpossiblePosition unless noted:
//
//   - Black has as many pieces as Red or one more, at most 4 each.
//   - At most one side has a winning configuration, and never the side to
//     move: a configuration ends the game as soon as it is made, by the side
//     that just played.
//
// These checks are complete for the last ply: in the drop phase any such
// board arises by drops; with eight pieces down and Black to move, Red's
// last ply may have been his fourth drop; with Red to move, Black's last ply
// was a slide, and on this board four pieces always have an empty neighbour
// to have come from that leaves no configuration behind (four red pieces
// cannot fill the five or more squares around them; checked exhaustively
// over all boards when this was written). The same fact means that a side to
// move always has a legal slide: the house rule that a player who cannot
// move loses is implemented but never applies with four pieces a side.
//
// A position passing these checks is game over when one side has a
// configuration.
func NewPosition(r Rules, b Board, toMove Color) (Position, error) {
	if !r.valid() {
		return Position{}, errorf(ErrBadRules, "unknown rules %d: expected standard or advanced", r)
	}
	if b.Black&^allSquares != 0 || b.Red&^allSquares != 0 {
		return Position{}, errorf(ErrBadBoard, "board has pieces off the board")
	}
	if both := b.Black & b.Red; both != 0 {
		return Position{}, errorf(ErrBadBoard, "square %d holds both a black and a red piece", both.first()+1)
	}
	if toMove > Red {
		return Position{}, errorf(ErrBadColor, "unknown side to move %d: expected black or red", toMove)
	}
	nb, nr := b.Black.Count(), b.Red.Count()
	switch {
	case nb > PiecesPerSide:
		return Position{}, &SideError{Black, errorf(ErrImpossiblePosition, "black has %d pieces: at most %d", nb, PiecesPerSide)}
	case nr > PiecesPerSide:
		return Position{}, &SideError{Red, errorf(ErrImpossiblePosition, "red has %d pieces: at most %d", nr, PiecesPerSide)}
	case nb != nr && nb != nr+1:
		return Position{}, errorf(ErrImpossiblePosition,
			"black has %d pieces and red %d: black, who drops first, must have as many pieces as red or one more", nb, nr)
	}
	bw, rw := r.IsConfiguration(b.Black), r.IsConfiguration(b.Red)
	if bw && rw {
		return Position{}, errorf(ErrImpossiblePosition, "both black and red have a winning configuration")
	}
	switch {
	case nb+nr < DropPlies:
		implied := DropColor(nb + nr)
		if toMove != NoColor && toMove != implied {
			return Position{}, errorf(ErrImpossiblePosition,
				"with %d black and %d red pieces %s is to drop, not %s", nb, nr, implied, toMove)
		}
		toMove = implied
	case toMove == NoColor && bw:
		toMove = Red // black's last move made the configuration: the game is over
	case toMove == NoColor && rw:
		toMove = Black
	case toMove == NoColor:
		return Position{}, errorf(ErrToMoveRequired,
			"all %d pieces are down, so the board does not tell whose turn it is: give the side to move (black or red)", DropPlies)
	}
	p := Position{rules: r, board: b, redToMove: toMove == Red}
	if (bw && toMove == Black) || (rw && toMove == Red) {
		return Position{}, errorf(ErrImpossiblePosition,
			"%s is to move but already has a winning configuration: the game ended when %s made it", toMove, toMove)
	}
	return p, nil
}

// Rules returns the rules in force.
func (p Position) Rules() Rules { return p.rules }

// Board returns the placement of the pieces.
func (p Position) Board() Board { return p.board }

// Pieces returns the number of pieces on the board.
func (p Position) Pieces() int { return p.board.Pieces() }

// ToMove returns the side whose piece is dropped or moved next.
func (p Position) ToMove() Color {
	if p.redToMove {
		return Red
	}
	return Black
}

// Phase returns DropPhase while fewer than eight pieces are down.
func (p Position) Phase() Phase {
	if p.Pieces() < DropPlies {
		return DropPhase
	}
	return MovePhase
}

// Decides returns who chooses the next ply: in the drop phase it depends on
// the drop style, in the move phase it is the side to move.
func (p Position) Decides(style DropStyle) Color {
	if k := p.Pieces(); k < DropPlies {
		return style.Decides(k)
	}
	return p.ToMove()
}

// Winner returns the side that has a winning configuration, or NoColor.
func (p Position) Winner() Color {
	switch {
	case p.rules.IsConfiguration(p.board.Black):
		return Black
	case p.rules.IsConfiguration(p.board.Red):
		return Red
	}
	return NoColor
}

// Over reports whether the game is over, and who won: a side has a
// winning configuration, or the side to move has no legal slide and loses
// (house rule).
func (p Position) Over() (winner Color, over bool) {
	if w := p.Winner(); w != NoColor {
		return w, true
	}
	if p.Phase() == MovePhase && !p.hasSlide() {
		return p.ToMove().Other(), true
	}
	return NoColor, false
}

func (p Position) hasSlide() bool {
	empty := allSquares &^ p.board.Occupied()
	for x := p.board.Side(p.ToMove()); x != 0; x &= x - 1 {
		if neighbours[x.first()]&empty != 0 {
			return true
		}
	}
	return false
}

// LegalMoves returns the legal moves in notation order; none when the game
// is over.
func (p Position) LegalMoves() []Move { return p.AppendLegalMoves(nil) }

// AppendLegalMoves appends the legal moves, in notation order, to dst.
func (p Position) AppendLegalMoves(dst []Move) []Move {
	if p.Winner() != NoColor {
		return dst
	}
	empty := allSquares &^ p.board.Occupied()
	if p.Phase() == DropPhase {
		for x := empty; x != 0; x &= x - 1 {
			dst = append(dst, Drop(x.first()+1))
		}
		return dst
	}
	for x := p.board.Side(p.ToMove()); x != 0; x &= x - 1 {
		from := x.first()
		for y := neighbours[from] & empty; y != 0; y &= y - 1 {
			dst = append(dst, Slide(from+1, y.first()+1))
		}
	}
	return dst
}

// Play returns the position after move m, or an ErrIllegalMove error saying
// why m is not legal here.
func (p Position) Play(m Move) (Position, error) {
	if w, over := p.Over(); over {
		if p.Winner() != NoColor {
			return p, errorf(ErrIllegalMove, "the game is over: %s has won", w)
		}
		return p, errorf(ErrIllegalMove, "the game is over: %s cannot move and has lost", p.ToMove())
	}
	if m.To < 1 || m.To > NumSquares {
		return p, errorf(ErrIllegalMove, "square %d is off the board (1..25)", m.To)
	}
	if m.From < 0 || m.From > NumSquares { // 0: a drop
		return p, errorf(ErrIllegalMove, "square %d is off the board (1..25)", m.From)
	}
	me := p.ToMove()
	occ := p.board.Occupied()
	to := SquareBit(m.To)
	if p.Phase() == DropPhase {
		if !m.IsDrop() {
			return p, errorf(ErrIllegalMove, "%s is a slide, but this is the drop phase (%d of %d pieces down): expected a drop such as 13", m, p.Pieces(), DropPlies)
		}
		if occ&to != 0 {
			return p, errorf(ErrIllegalMove, "square %d is occupied", m.To)
		}
		return p.with(me, p.board.Side(me)|to), nil
	}
	if m.IsDrop() {
		return p, errorf(ErrIllegalMove, "%s is a drop, but all %d pieces are down: expected a slide such as 14-9", m, DropPlies)
	}
	from := SquareBit(m.From)
	switch {
	case p.board.Side(me)&from == 0:
		return p, errorf(ErrIllegalMove, "square %d holds no %s piece", m.From, me)
	case !Adjacent(m.From, m.To):
		return p, errorf(ErrIllegalMove, "square %d is not adjacent to square %d", m.To, m.From)
	case occ&to != 0:
		return p, errorf(ErrIllegalMove, "square %d is occupied", m.To)
	}
	return p.with(me, p.board.Side(me)&^from|to), nil
}

// playLegal returns the position after m, which must be one of the legal
// moves.
func (p Position) playLegal(m Move) Position {
	me := p.ToMove()
	set := p.board.Side(me) | SquareBit(m.To)
	if !m.IsDrop() {
		set &^= SquareBit(m.From)
	}
	return p.with(me, set)
}

// with returns the position after the side c got the squares set and the
// turn passed.
func (p Position) with(c Color, set Bitboard) Position {
	q := p
	if c == Red {
		q.board.Red = set
	} else {
		q.board.Black = set
	}
	q.redToMove = c == Black
	return q
}

// Transform returns the image of the position under symmetry t (0..7).
func (p Position) Transform(t int) Position {
	q := p
	q.board = p.board.Transform(t)
	return q
}

// String returns the board string and the side to move, e.g.
// "..........b.............. red".
func (p Position) String() string {
	return fmt.Sprintf("%s %s", p.board, p.ToMove())
}

// ParseGame plays a game given as moves from the empty board and returns the
// final position. Errors name the move (1-based) that is wrong.
func ParseGame(r Rules, moves []string) (Position, error) {
	_, final, err := playGame(r, moves)
	return final, err
}

// gamePly is one ply of a played game.
type gamePly struct {
	before, after Position
	move          Move
}

// playGame returns the plies of a game and its final position.
func playGame(r Rules, moves []string) ([]gamePly, Position, error) {
	if !r.valid() {
		return nil, Position{}, errorf(ErrBadRules, "unknown rules %d: expected standard or advanced", r)
	}
	p := Start(r)
	out := make([]gamePly, 0, len(moves))
	for i, s := range moves {
		m, err := ParseMove(s)
		if err != nil {
			return nil, Position{}, &MoveError{Index: i + 1, Err: fmt.Errorf("move %d: %w", i+1, err)}
		}
		q, err := p.Play(m)
		if err != nil {
			return nil, Position{}, &MoveError{Index: i + 1, Err: fmt.Errorf("move %d (%s): %w", i+1, m, err)}
		}
		out = append(out, gamePly{before: p, after: q, move: m})
		p = q
	}
	return out, p, nil
}
