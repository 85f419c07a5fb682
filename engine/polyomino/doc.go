// Package polyomino implements the polyomino placement games (Golomb's
// Pentominoes and its relatives) and the free polyomino piece sets they use.
//
// Pieces are generated, not typed in: Generate grows every free polyomino of
// order n from those of order n-1. Tetrominoes are named I O T S L and
// pentominoes F I L N P T U V W X Y Z after the letters they resemble;
// hexominoes are numbered H01..H35 by the width of their canonical
// orientation (widest first) and then by their picture read row by row,
// a filled cell before a gap, so H01 is the straight hexomino.
//
// Cells are addressed by column X (0 = left) and row Y (0 = top); in
// notation columns are letters from 'a' and rows numbers from 1 at the top,
// so "a1" is the top-left cell.
//
// # Games
//
// A Config describes a game: board size (up to 16 x 16) and blocked cells,
// the piece order and the pieces in play, a common pool or hands, the end
// rule (NormalPlay: who cannot place loses; ScoreRule: who cannot place
// passes, the game ends when neither can, each scores the pieces he placed)
// and the variant. Preset returns the presets of RULES.md (pentominoes,
// tetrominoes, hexominoes, capture); every field may be overridden.
// NewGame compiles a Config into every placement of every playable piece;
// NewPosition builds a position from board rows and/or moves.
//
// Choices the rule book leaves open (house rules, to be documented by the
// API as such):
//
//   - The deal (hand mode without explicit hands): the game's pieces not in
//     a given hand or neutral, in set order, are shuffled by a Fisher-Yates
//     shuffle driven by splitmix64(Config.Seed) (for i from n-1 down to 1,
//     swap i with next() mod (i+1)); the first NeutralCount become neutral
//     pieces, the rest go alternately to the first and second player (or
//     all to the one empty hand; with both hands given the rest are out of
//     the game). Seed 0 is the default deal.
//   - A dealt neutral piece is placed before the first move where the
//     centre of its bounding box lies nearest the centre of the board
//     (ties: canonical orientation first, then reading order); on the
//     hexomino board it sits in the middle, away from every edge.
//   - The player to move defaults from the pieces placed: first after an
//     even number in a common pool; in hand mode first unless he placed
//     more than the second. A caller that knows better says so.
//   - Board rows: '.' empty, '#' blocked or covered by a piece whose
//     identity does not matter (it scores for nobody), any other character
//     a placed piece named by its shape. A blocked cell of the Config drawn
//     as '.' stays blocked. In hand mode a placed piece counts for the
//     player whose hand holds it; in a common pool the placers of labelled
//     pieces are unknown: the players alternated, so the player to move at
//     the rows placed floor(n/2) of them and the other ceil(n/2) (by
//     default the first player ceil(n/2)).
//   - Moves: in a common pool the players alternate; in hand mode each move
//     is made by the owner of its piece, and under the score rule a player
//     who cannot place passes without a move being written. After board
//     rows, a given player to move is the one after the moves, and the
//     moves are credited counting back from it (which says who was to move
//     at the rows); when no crediting ends with that player to move (in
//     hand mode the pieces' owners fix it), they are credited from a
//     player at the rows for whom they are legal, the rows' default first,
//     and the given one moves next (as from the start, where the first
//     player moves first).
//
// # Notation
//
// A move is <piece>:<cells>, the cells in reading order (by row from the
// top, then by column): "L:a1,a2,a3,a4,b4". ParseMove accepts the cells in
// any order and either case; Move.String prints the canonical form. Errors
// wrap the package's Err values (errors.Is) and name the row, cell, piece
// or move at fault: "board row 3 has 9 cells, expected 8", "move 2: piece
// L is already placed", "move 1: cell k3 is off the 8x8 board".
//
// # Solving
//
// Solve sees a position as a conflict graph: its vertices are the
// placements still possible, two of them conflicting when they overlap or
// use the same piece; a move takes a vertex and removes its neighbours.
// With a common pool that is Node Kayles on the graph. States are bitsets
// over the vertices; sparse states are compacted into smaller graphs, and
// states of at most 64 vertices are single words (the fast path, search1).
// The search is a negamax (win/loss under normal play, alpha-beta on the
// final score difference under the score rule with hands; a common pool
// under the score rule is normal play scored 1/0) with:
//
//   - dead cells and dead pieces dropped implicitly: the state holds only
//     live placements, and the transposition key is the set of live cells
//     up to rotation, reflection and translation plus the live pieces
//     (key.go), so positions whose live regions are congruent share
//     entries;
//   - the clique rule: when the state splits into groups of placements such
//     that each move removes exactly its own group (for instance regions
//     that only one piece can use, or pieces that fit in one region only),
//     the number of moves left is fixed and parity decides, without search;
//     the rule is also applied one ply ahead to find winning moves;
//   - moves after which the position splits into cliques of odd count are
//     not searched (the opponent then makes the last move);
//   - move ordering by the parity of a greedy playout of the position after
//     the move, then by the fewest replies; the move that last won at the
//     same ply (a killer move) first; in the larger (multi-word) states the
//     last two killers are searched before the other moves are ordered;
//   - every root move is looked up in the table before the search starts
//     (a transposition from an earlier search on the same table can
//     decide it);
//   - a shared lock-free transposition table (tt.go) for the larger states,
//     on huge pages where Linux has them, and a small private,
//     cache-resident one per goroutine for the endgame states (kept with
//     the Table between searches);
//   - parallel search: the replies of the root moves are split among the
//     goroutines (parallel.go);
//   - budgets: ctx (deadline, cancellation; looked at by every node of 8 or
//     more words, every 16th of 2-7 words, every 4096 nodes besides) and
//     Options.MaxNodes. A stopped search reports Proven false, what it
//     proved (moves proven losing) and the heuristic player's move.
//
// Symmetric positions have the same value; CanonicalKey is a cache key
// equal for congruent positions, and ToCanonical / FromCanonical carry the
// moves of a cached result between them.
//
// # Long work
//
// A job system splits a deep proof at shallow plies with
// Position.Children (one child per symmetry class of moves), solves the
// children anywhere, and puts the results together with Combine. A Table
// passed in Options keeps what was proved between Solve calls on the same
// game, Options.Progress reports nodes as the search goes, and
// Options.Decided each root move as it is decided, with the reply that
// refuted it (package book so classifies, on the way, the first moves a
// search for a win refutes).
//
// # Playing
//
// BestMove plays: an exact move when the search finishes within the budget,
// otherwise the heuristic player's (heuristic_eval.go): parity of the
// remaining moves in a common pool; with hands, the survival of each
// player's pieces (a piece with many live placements, above all
// sanctuaries no opposing piece can spoil, is nearly sure to be placed),
// two plies deep.
package polyomino
