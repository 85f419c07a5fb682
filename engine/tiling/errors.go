package tiling

import "errors"

// Errors callers can test with errors.Is. Every error Solve, ParseRegion,
// ParseBoard and ParsePieces return wraps one of them, with a message that
// says what was wrong and what was expected.
var (
	// ErrBadRegion: a malformed region (bad size, bad cell name, ragged
	// or unknown board characters).
	ErrBadRegion = errors.New("bad region")
	// ErrRegionTooLarge: wider or higher than MaxSide.
	ErrRegionTooLarge = errors.New("region too large")
	// ErrUnknownPiece: a piece name that is not in the piece set.
	ErrUnknownPiece = errors.New("unknown piece")
	// ErrBadPieces: a malformed piece list (mixed orders, too many pieces).
	ErrBadPieces = errors.New("bad piece list")
	// ErrRepeatedPiece: a piece listed more than once without
	// Problem.Multiset.
	ErrRepeatedPiece = errors.New("repeated piece")
	// ErrAreaMismatch: the pieces do not cover the open cells exactly
	// (or, with Problem.AllowLeftover, cover more cells than are open).
	ErrAreaMismatch = errors.New("area mismatch")
)
