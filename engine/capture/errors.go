package capture

import (
	"errors"
	"fmt"

	"github.com/gamesolver/gamesolver/engine/polyomino"
)

// Errors callers can test with errors.Is. Every error the package returns
// wraps one of them and says what was expected. The errors for a turn that
// breaks a rule (ErrOffBoard to ErrGameOver) also wrap ErrIllegalTurn, and
// NewPosition wraps them in a *TurnError naming the turn.
var (
	ErrBadConfig    = errors.New("bad game configuration")
	ErrBadNotation  = errors.New("bad notation")
	ErrBadBoard     = errors.New("bad board")
	ErrBadPosition  = errors.New("bad position")
	ErrUnknownPiece = errors.New("unknown piece")
	// ErrBusy: too many new configurations wait to be built; retry.
	ErrBusy = errors.New("busy")

	// ErrIllegalTurn is wrapped by every error for a turn the rules forbid.
	ErrIllegalTurn = errors.New("illegal turn")
	// ErrOffBoard: a cell of the placement is outside the board.
	ErrOffBoard = errors.New("cell off the board")
	// ErrBlockedCell: a cell of the placement is blocked.
	ErrBlockedCell = errors.New("blocked cell")
	// ErrWrongShape: the cells do not form the named piece.
	ErrWrongShape = errors.New("cells do not form the piece")
	// ErrOccupied: a cell of the placement is covered by a piece that the
	// turn does not remove.
	ErrOccupied = errors.New("cell occupied")
	// ErrPieceUnavailable: the piece is not in the pool (it is on the board
	// or out of play).
	ErrPieceUnavailable = errors.New("piece not available")
	// ErrNotYourMarker: a removal names a piece that does not carry the
	// mover's marker (or is not on the board).
	ErrNotYourMarker = errors.New("piece does not carry the mover's marker")
	// ErrBannedPiece: the turn places a piece it removed.
	ErrBannedPiece = errors.New("piece removed on this turn")
	// ErrGameOver: the game has ended (a player is stuck, or the position
	// occurred for the third time).
	ErrGameOver = errors.New("game over")
)

// FieldError is a fault of one field of a Config or a Setup, so that a
// caller can tell which of its inputs to blame without reading the
// message: Field names it as the struct does ("Width", "Height", "Order",
// "Blocked", "Pieces"; "Markers", "Pool", "Banned", "ToMove"). A fault of
// a turn is a *TurnError instead. Its message is Err's.
type FieldError = polyomino.FieldError

// inField puts err down to field (a FieldError).
func inField(field string, err error) error { return &FieldError{Field: field, Err: err} }

// fault is an error of one of the kinds above with a message that says what
// was wrong; errors.Is sees the kind (and ErrIllegalTurn for rule breaks).
type fault struct {
	kind error
	msg  string
}

func (f *fault) Error() string { return f.msg }

func (f *fault) Unwrap() []error {
	if isRuleKind(f.kind) {
		return []error{f.kind, ErrIllegalTurn}
	}
	return []error{f.kind}
}

func isRuleKind(err error) bool {
	switch err {
	case ErrOffBoard, ErrBlockedCell, ErrWrongShape, ErrOccupied, ErrPieceUnavailable,
		ErrNotYourMarker, ErrBannedPiece, ErrGameOver, ErrUnknownPiece:
		return true
	}
	return false
}

func faultf(kind error, format string, args ...any) error {
	return &fault{kind: kind, msg: fmt.Sprintf(format, args...)}
}

// TurnError is the error for turn Index (1-based) of a list of turns given
// to NewPosition: Err says which rule it breaks (or what is wrong with its
// notation).
type TurnError struct {
	Index int
	Turn  string
	Err   error
}

func (e *TurnError) Error() string { return fmt.Sprintf("turn %d (%q): %v", e.Index, e.Turn, e.Err) }

func (e *TurnError) Unwrap() error { return e.Err }
