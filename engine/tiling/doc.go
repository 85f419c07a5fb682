// Package tiling counts and lists the ways to tile a region with polyominoes.
//
// A Problem is a Region (a rectangle, some cells blocked) and the Pieces to
// place: free polyominoes of one order from package polyomino, by default
// the twelve pentominoes, each once. Solve finds every tiling: every open
// cell covered by exactly one piece and every piece placed as often as it
// is listed (with Problem.AllowLeftover some open cells may stay
// uncovered).
//
// # Notation
//
// Cells are named by column letter and row number, columns 'a', 'b', ...
// from the left and rows 1, 2, ... from the top, so "a1" is the top-left
// cell (RULES.md section 2). A region is given by its size and blocked
// cells (ParseRegion) or by rows, top row first, '.' open and '#' blocked
// (ParseBoard). A region has at most 256 cells and 26 on a side: every
// rectangle up to 16 x 16, and long ones like 3 x 20.
//
// Piece lists (ParsePieces) are names concatenated or separated by commas:
// "FILNPTUVWXYZ", "F,I,L", "H01,H17". Tetrominoes are I O T S L,
// pentominoes F I L N P T U V W X Y Z, hexominoes H01..H35 in the order of
// package polyomino. A name may be repeated only when Problem.Multiset is
// set.
//
// Solutions are rows like the region's, each covered cell holding the
// Symbol of its piece: the letter of a tetromino or pentomino, and for
// hexominoes their number as one base-36 digit, H01..H09 as '1'..'9' and
// H10..H35 as 'A'..'Z'. Uncovered open cells stay '.', blocked cells '#'.
// Result.Placements gives the same tilings piece by piece.
//
// # Counting up to symmetry
//
// Result.CountAll counts every tiling; Result.Count counts classes of
// tilings that a symmetry of the region maps onto each other. The
// symmetries of a region are those of its rectangle (8 for a square, 4
// otherwise) that map the open cells onto themselves, so 1, 2, 4 or 8
// (Region.Symmetries).
//
// The search breaks the symmetry exactly. A piece listed once (the one
// with the fewest orbits of placements, X for pentominoes) is placed on
// one representative of each orbit of its placements under the symmetry
// group G; a tiling found with the piece on a representative whose
// stabiliser is H stands for |G|/|H| tilings, and Burnside's lemma applied
// to H counts the classes: the sum of |Stab(T)|/|H| over the tilings T
// found. When 4 or more symmetries fix the representative (X in the centre
// of a square) a second piece listed once splits it the same way. This
// stays exact when a piece sits on an axis or a diagonal, or a tiling is
// itself symmetric: the cases where the classic "keep X in one quarter"
// counts some tilings twice. Without a piece listed once every tiling is
// found and its own symmetries are counted.
//
// # Search
//
// The search is exact cover by backtracking on bitboards: it always fills
// the first empty cell, scanning the rectangle in lines along its shorter
// side (on the pentomino rectangles 10 to 3000 times faster than along the
// longer side), trying only the placements whose first cell is
// that cell. The state is a 128-bit window of filled cells from that cell
// on. Placements are looked up by the cell and by which of five cells next
// to it are filled, so most that cannot fit are never tried, and a
// placement that walls in a single empty cell is not followed. Dancing
// Links (in the tests, for comparison) visits fewer nodes on 6 x 10 but
// takes about 20 times longer (see the top-level BENCHMARKS.md).
//
// Solve cuts the search tree into subtrees a few levels down and runs
// them on Options.Workers goroutines (every core by default). The results,
// listed solutions included, are the same for any number of workers. A
// context, Options.Budget or Options.MaxNodes stop the search early; the
// Result then has Complete false and the counts found so far.
// Options.Progress reports after each subtree and while long ones run.
package tiling
