// Package teeko solves Teeko by retrograde analysis.
//
// Teeko (John Scarne, 1937) is played on a 5 x 5 board by Black, who starts,
// and Red, with four pieces each. The rules the package implements are those
// of the project's RULES.md, section 1: both rule sets (Standard, 44 winning
// configurations; Advanced, 58) and Scarne's eight drop styles, which decide
// who chooses the square of each drop (DropStyle.Decides).
//
// # Notation
//
// Squares are numbered 1..25 in reading order (Scarne's numbering). A board
// is a 25-character string, b black, r red, . empty, upper case accepted
// (ParseBoard, Board.String); or two lists of squares (BoardFromSquares). A
// drop is written as its square, "13"; a slide as "14-9" (ParseMove,
// Move.String). A game is a list of moves from the empty board (ParseGame).
// Errors say what was wrong and what was expected, and can be tested with
// errors.Is against ErrBadBoard, ErrBadNotation, ErrIllegalMove,
// ErrImpossiblePosition, ErrToMoveRequired and the others in errors.go.
//
// # Values
//
// A Value is an Outcome (BlackWins, RedWins, Draw) and a distance in plies
// under perfect play, counting the winning ply itself: "black wins in 1"
// means Black completes a configuration with the next ply; 0 means the game
// is already over. Perfect play means that whoever decides a ply — the side
// to move in the move phase, the owner or the opponent of the piece in the
// drop phase — prefers the fastest win, then a draw, then the slowest loss.
// A side that cannot move loses (house rule; it never happens with four
// pieces a side, see NewPosition). Scarne's history-dependent rules (the
// four-move limit against shuttling, the boxed-in ten-move limit) are not
// part of a position and are not applied.
//
// # Tables
//
// Build solves one rule set: first every move-phase position (all eight
// pieces down) by retrograde analysis, then the drop phase for the eight
// styles, level by level from seven pieces down to the empty board. The
// move-phase rules do not depend on colour, so a position is stored from the
// point of view of the side to move, and only once for its 8 symmetric
// images: an entry is the class of the mover's four squares under the
// symmetries (1,666 classes) times the rank of the other side's four squares
// among the 21 free ones (5,985), 9,970,110 one-byte entries. Drop levels are
// indexed the same way by the black and red squares; a level's value depends
// on the style only through who decides the remaining drops, so styles
// share tables where those agree. A value byte is 0 for a draw and n+1 for
// a game that ends in n plies, won by the side to move when n is odd (the
// winner plays the last ply). See index.go, solve_move.go and solve_drop.go.
//
// Save and Load write and read a versioned file (magic, format version,
// rules, sizes, DEFLATE payload, CRC-32; layout in file.go) of about 3 MB
// (standard) and 5 MB (advanced); TablePath names it in a data directory. A
// truncated or damaged file gives ErrCorruptTable, never a wrong table.
//
// # Queries
//
// Tablebase.Value gives the value of a position, Tablebase.Analyze that of
// each legal move too, sorted best first for the player who decides, with
// the best moves (ties included), and Tablebase.Annotate marks each ply of a
// game as RULES.md says (!, !!, ?=, ??, ???). Tablebase.Stats counts
// positions by outcome. A Tablebase is read-only and safe for concurrent
// use.
package teeko
