package teeko

import (
	"errors"
	"fmt"
)

// Errors a caller can test with errors.Is. The messages of the errors
// returned by this package say what was wrong and what was expected; the
// sentinel is only the category.
var (
	ErrBadBoard           = errors.New("teeko: bad board")
	ErrBadNotation        = errors.New("teeko: bad move notation")
	ErrBadRules           = errors.New("teeko: unknown rules")
	ErrBadDropStyle       = errors.New("teeko: unknown drop style")
	ErrBadColor           = errors.New("teeko: unknown colour")
	ErrIllegalMove        = errors.New("teeko: illegal move")
	ErrImpossiblePosition = errors.New("teeko: impossible position")
	// ErrToMoveRequired: all eight pieces are down, so the board alone does
	// not tell whose turn it is.
	ErrToMoveRequired = errors.New("teeko: side to move required")
	// ErrRulesMismatch: a position of one rule set was given to the
	// tablebase of the other.
	ErrRulesMismatch = errors.New("teeko: rules mismatch")
	// ErrCorruptTable: a table file is truncated, damaged, of another format
	// version or of other rules than expected. Such a file must be rebuilt.
	ErrCorruptTable = errors.New("teeko: corrupt table file")
)

// SideError is a fault of one side's pieces (a square of its list off the
// board or listed twice, too many pieces), so that a caller can tell
// which list to blame without reading the message, which is Err's.
type SideError struct {
	Side Color
	Err  error
}

func (e *SideError) Error() string { return e.Err.Error() }
func (e *SideError) Unwrap() error { return e.Err }

// MoveError is a fault of the move at Index (1-based) of a game's list of
// moves (its notation, or the rule it breaks), so that a caller can point
// at the move without reading the message, which is Err's.
type MoveError struct {
	Index int
	Err   error
}

func (e *MoveError) Error() string { return e.Err.Error() }
func (e *MoveError) Unwrap() error { return e.Err }

// detailError is an error of one of the categories above with its own
// message; errors.Is(err, kind) holds.
type detailError struct {
	kind error
	msg  string
}

func (e *detailError) Error() string { return e.msg }
func (e *detailError) Unwrap() error { return e.kind }

func errorf(kind error, format string, args ...any) error {
	return &detailError{kind: kind, msg: fmt.Sprintf(format, args...)}
}
