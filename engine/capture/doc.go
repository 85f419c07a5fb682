// Package capture implements O'Dwyer's capture variant of the polyomino
// placement games.
//
// Two players take turns placing pieces from a common pool on a board. A
// placement captures every other piece sharing 3 or more unit edges with
// it; before placing, a player may remove pieces carrying his marker; the
// player who cannot place loses. The piece shapes come from package
// polyomino (Pieces); the rules, positions, notation, analysis and
// computer player are here.
//
// # Games
//
// A Config gives the board (width and height up to 16, blocked cells in
// notation), the piece order (4, 5 or 6) and the pieces in play, each of
// which exists once. DefaultConfig is the capture preset of RULES.md: 7 x 7
// and the twelve pentominoes. NewGame compiles a Config (every placement
// of every piece); a Game is read-only and may be shared.
//
// # Rules as implemented
//
// The rule book is RULES.md section 2, "Capture variant (O'Dwyer)". Where
// it leaves room, the engine decides as follows (the API must say the
// same):
//
//   - Captures. After the turn's removals and its placement, every other
//     piece on the board sharing 3 or more unit edges with the placed piece
//     is captured, several at once, whoever placed it and whatever marker
//     it carried: it gets the mover's marker (a piece already carrying it
//     keeps it, and still counts as captured in Position.Captured). The
//     placed piece itself carries no marker until some later placement
//     captures it. A piece removed on the same turn is off the board and is
//     not captured.
//   - Markers. Every piece on the board carries first's marker, second's
//     marker or none. Markers (and Position.Markers) map the marked pieces
//     only; a piece on the board absent from the map is unmarked. A marker
//     leaves with its piece: a removed piece goes back to the pool
//     unmarked.
//   - Removals. Before placing, the player to move may remove any number
//     of pieces carrying his own marker (none of the opponent's, no
//     unmarked one); they go back to the pool. Every turn places a piece:
//     there is no turn of removals alone, so removals only help a player
//     who can then place something. A placement on cells of a marked piece
//     must write that piece's removal.
//   - The ban. A piece removed on a turn cannot be placed on that same turn
//     (RULES.md's "this move (his next move)" is the placement that
//     follows the removal); the opponent may place it on his next turn,
//     and on later turns anybody may. The ban therefore never outlives a
//     turn: a position between turns carries none. Setup.Banned describes
//     a turn in progress (removals made, placement to come), the only
//     position with a ban.
//   - Stuck. The player to move loses when he cannot place a piece after
//     any removals. Removing pieces only adds empty cells and never adds a
//     piece he may place (removed pieces are banned), so he can place
//     exactly when some pool piece (not banned) fits on the empty cells
//     together with the cells of all the pieces carrying his marker. Being
//     stuck is a property of the position alone.
//   - Repetition (house rule). A position is the board, the markers, the
//     pool and the player to move, between turns. The start position counts
//     as its first occurrence (a turn in progress does not count); the turn
//     that makes a position occur for the third time ends the game at
//     once in a draw, before anything else (Position.Drawn). Positions
//     are compared by a 128-bit Zobrist key.
//
// # Positions and notation
//
// NewPosition (or Game.NewPosition with a Setup) builds a position from
// board rows, markers, pool and player to move, then turns played from it;
// nil rows and an empty turn list are the start of the game. Board rows
// are top first, one character per cell: '.' empty, '#' blocked or
// covered for good (never freed, never captured), and for pieces their
// names (single letters, either case); other characters label a piece
// named by its shape, which is how Board draws hexominoes (H01..H09 as 1..9,
// H10..H35 as A..Z). Defaults: the pool is every piece of the game not on
// the board (pieces neither on the board nor in the pool are out of play);
// the player to move after the turns follows from the start, where the
// first player moves first from the empty board and, from board rows, when
// an even number of pieces lies on the board (a guess: removals break the
// parity, so a caller who knows says so). The position keeps the
// history of the positions since its start for the repetition rule, and
// Key identifies a position together with that history, for caches.
//
// A turn is written "~P ~Q Z:b3,c3,c4,c5,d5": the removals, each a piece
// name after '~', then the placement, a piece name, a colon and the cells
// it covers. Cells are named by column letter and row number from the top
// left ("a1"). ParseTurn accepts any order of removals and cells, either
// case and spaces around the parts; Turn.String and every turn the engine
// gives print the canonical form: removals sorted by name, cells in
// reading order.
//
// Errors are values to test with errors.Is and say what was expected. A
// turn that breaks a rule wraps ErrIllegalTurn and one of ErrNotYourMarker
// ("removal of Y: it carries second's marker, not first's"),
// ErrBannedPiece ("Y was removed this turn and cannot be placed on the
// same turn"), ErrOccupied, ErrPieceUnavailable, ErrOffBoard,
// ErrBlockedCell, ErrWrongShape, ErrUnknownPiece or ErrGameOver; bad
// syntax is ErrBadNotation; NewPosition wraps a turn's error in a
// *TurnError with the turn's index (1-based): "turn 3 ("~I T:a3,b3,c3,b4,
// b5"): removal of I: ...".
//
// # Turns
//
// LegalTurns lists every legal turn: each placement of a pool piece on
// cells that are empty or covered by the mover's marked pieces, with the
// removals it needs together with every subset of his other marked
// pieces. Extra removals enable no placement, but they are legal and
// change the position (the opponent gets the piece and its cells), so
// nothing proves them useless: the list grows as 2^k with the k marked
// pieces a placement does not need. CountTurns counts them without
// listing; LegalTurns stops after MaxListedTurns (2^20); Placements lists
// each placement once, with only the removals it needs.
//
// # Analysis
//
// Solve proves the value of a position for the player to move (win, loss,
// or draw by repetition) by a negamax over every legal turn, extra
// removals included (the same turns as LegalTurns; the plain minimax of the
// tests uses the same set, generated naively), with iterative deepening on
// a horizon (a value proved under any horizon is exact), a first pass over
// the turns that leave the opponent stuck, move ordering by a history of
// winning placements, and a transposition table. Values depend on the
// history through the repetition rule, so the table keeps only values
// that do not (search.go explains the rule and its proof): a value is
// stored only if no position of its proof occurred before the position in
// the game or the search path, and a stored value is used only if no
// position of the current game and path can lie in its proof, as judged
// from a summary kept with it (fewest and most pieces on the board, pieces
// that stay in place). The budget is ctx (deadline, cancellation) and
// Options.MaxNodes; a stopped search reports Proven false, the turns it
// did prove, and the heuristic player's turn.
//
// Result: Outcome and Proven for the position; BestTurns, the turns proven
// to reach it (all of them unless Options.FirstWin; the heuristic's
// choice, Heuristic true, when unproven); Turns, every turn's own value
// when Options.AllMoves, best first (wins, draws, unproven, losses);
// LegalTurns, Over, Nodes, Elapsed.
//
// Length says how many plies the game lasts under perfect play, the
// winner hurrying and the loser delaying, the repetition rule included: the
// same search in an exact mode, where a table entry of a win or a loss
// decides a node only if its proof (whose depth every entry keeps) fits
// under the horizon (a draw is exact at any depth), so
// that the first horizon deciding a turn is its length. It gives the
// perfect turns (the fastest wins, the slowest losses) and, with
// Options.AllMoves, every turn's length. Run after Solve on Solve's table
// (NewTable, Options.Table), it uses the proof's entries that fit.
//
// Exact analysis is practical on small boards and in the late middle game
// of the preset (see BENCHMARKS.md, "Capture variant"): removals keep games alive,
// and a mover with k marked pieces has 2^k times as many turns. Positions
// with more than 2^20 turns are left to the heuristic player, and below
// the root a position with more than 2^16 turns counts as unproven.
//
// # Playing
//
// BestTurn is the computer player: the exact search within its budget
// (200,000 nodes unless Options.MaxNodes says otherwise), playing a proven
// win at once; otherwise the heuristic player among the turns not proven
// to lose. The heuristic player (hsearch.go) searches the placements with
// the removals they need by iterative deepening alpha-beta within
// Options.HeuristicNodes (default 150,000). Its evaluation is mobility
// with removals: the placements the player to move could make on the
// empty cells and those of his own marked pieces, minus the opponent's.
// That one number carries what the game turns on: a stuck player has
// lost; a capture moves a piece's cells from the victim's reserve to the
// capturer's, so pieces at risk and potential captures show up one and
// two plies deep; a removal makes room for the remover now and for the
// opponent next; losses further away rank above nearer ones. The
// heuristic ignores the repetition rule.
package capture
