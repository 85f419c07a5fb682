// Package book proves Pentominoes positions for an opening book, writes the
// proofs as compact text files, and serves the book embedded in the binary.
//
// # Files
//
// A book file lists positions of the pentominoes game (8 x 8, the 12
// pentominoes in a common pool, normal play) and some of their moves, one
// line per symmetry class:
//
//	# comment lines (at the top: the file's description)
//	position start
//	L:c5,d5,e5,f5,c6 8 win
//	position L:c5,d5,e5,f5,c6
//	I:a1,a2,a3,a4,a5 1 loss L:b3,c3,d3,e3,e4
//
// "position" names a position by its moves from the empty board ("start"
// for the empty board). Each following line is a move of that position in
// canonical notation standing for its class (the images of the move under
// the symmetries of the board that map the position onto itself), the
// size of the class, and the move's value for the player who makes it:
// "win" (every reply loses) or "loss", followed for a loss by a winning
// reply found by the search. The optional field plies=P says how many
// plies the game lasts after the move under perfect play (the winner
// making the fastest win, the loser the slowest loss), and that the reply
// is a fastest win (the game lasts P - 1 plies after it). Optional fields
// nodes=N ms=T record the cost of the search that classified the move.
//
// The certificate (certificate.txt) proves the empty board a first-player
// win: the section of the start position names the first move, found by
// search; the section of the position after it lists every class of
// replies, each a loss with a winning third move. The package verify
// checks it with a solver of its own. longl.txt classifies every reply to
// the long-L opening L:c4,d4,e4,f4,c5, and openings.txt the first moves
// classified so far (BENCHMARKS.md, "Pentominoes proved"). Each losing
// first move of openings.txt has a refutation-<class>.txt in the
// certificate's form one ply deeper (NewRefutation): the section of the
// position after the first move names its winning reply, the next section
// answers every third move with a winning fourth move; package verify
// checks it the same way. Each winning first move of openings.txt but the
// certificate's has a replies/replies-<class>.txt: the section of the
// position after it, every class of replies a loss with a winning third
// move (the build's output for the class, costs included); package verify checks it as a proof that the
// first move wins.
//
// lengths-certificate.txt is the section of the certificate's second
// position again, built with Options.Lengths (gamesolver book build
// --what position --moves L:c5,d5,e5,f5,c6 --lengths): every class of
// replies with its plies and a fastest third move. Book.LengthOf then
// knows the game's length two plies in, after the fastest third move, and
// one ply in: every reply loses, and the position lasts one ply more than
// its slowest loss, the replies of most plies being perfect play. A
// section whose lines all have plies and cover every class gives its
// position's length so (the fastest win plus one when some line wins);
// files that disagree on a length do not load. lengths-longl.txt does the
// same for the long-L opening: each of its 1181 replies with its plies,
// the two winning ones among them (their lost positions' slowest loss), so
// that the book knows the opening's length too (the fastest win's plus
// one). A reply file may carry plies too (replies-41.txt, replies-206.txt,
// replies-210.txt, replies-226.txt, replies-235.txt, replies-236.txt and
// replies-240.txt, built with --lengths): indexed
// lazily, it gives the same lengths one and two plies into its opening.
// The empty board's length comes from data/bounds/lower-bound.txt
// (gamesolver book lower-bound): a reply to every winning first move
// after which the first player cannot end the game within 5 plies
// (polyomino.Lengths.WinsWithin), so that the game lasts at least 9; the
// reply files of I:b3,c3,d3,e3,f3 and W:a6,b6,b7,c7,c8 (every reply
// lasting 7) meet that bound, so it lasts 9, that I and that W being
// perfect first moves (addEmptyLength checks
// that the bound covers every winning first move and that no file with
// plies contradicts it).
//
// # Building
//
// FirstWin, Classify and ClassifyMove prove what the files hold with
// polyomino.Solve (Options.FirstWin: a losing move's first winning reply
// found ends its search), every search of a build sharing one table;
// Options.Parallel runs several single-goroutine searches at once, which
// uses the cores better than one search on several goroutines. The
// service's polyomino.book job kind runs the same classification as units
// of the job system (gamesolver book build --jobs).
//
// # The embedded book
//
// Book indexes the embedded files by the engine's CanonicalKey, so that a
// position is found whatever symmetry of the board (or translation of its
// live region) it is drawn in, and its moves are mapped through the
// engine's canonical frame. A section's position is a win when one of its
// lines wins, a loss when its lines cover every class of moves and all
// lose; the position after a losing move is a win (its reply wins) and the
// position after a winning move a loss, as is the position after a losing
// move and its winning reply. The reply files (about 80 KB and 2400
// positions each) are indexed lazily: when a position with at most three
// pieces is first looked up, the files whose first move is one of its
// pieces are indexed (about 0.12 s each), so that starting costs only the
// other files.
package book
