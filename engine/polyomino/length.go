package polyomino

import (
	"context"
	"math"
	"math/bits"
	"slices"
)

// The length of a game under normal play: how many more plies it lasts
// when both play perfectly and the winner hurries, that is the winner ends
// the game as soon as he can force it and the loser puts the end off as
// long as he can (the plies of the Teeko tablebases). Under normal play
// the player who cannot move loses, so a game the player to move wins
// lasts an odd number of plies, and one he loses an even number.
//
// Length deepens a bounded search on the conflict graph: within(L, side,
// d) is true when the winner can force the end of the game within d
// plies. It is monotone in d (an end forced within d is forced within
// d + 1), so each state keeps the largest d known false and the smallest
// known true. A state whose game cannot last more than d plies (one piece
// a ply, and order live cells a ply) is within d exactly when it is won
// for the winner, which the boolean solver (with its table) says, or
// which is known: a state reached through the winner's moves that the
// solver checked, and the loser's, is won. The checks also spare the
// search the winner's losing moves. A check costs a few hundred nodes
// deep in the game and tens of thousands in its first plies, where a
// search of three plies or fewer costs less: the winner's moves are
// checked only with more than lengthVerifyAbove plies to go, and a check
// is given up after lengthVerdictNodes (the move then searched
// unchecked). Where the checks run, the winner tries his moves in the
// solver's order (an even greedy playout of the reply position first,
// then fewest replies), after the killer of the ply: most of the moves
// the checks turn down come last. Two plies into the certificate, these
// took the length search from 17.6 s (every move checked, in order of
// replies) to 1.2-1.6 s (BENCHMARKS.md). The search is exact: no
// symmetry, no other pruning, every move of the loser looked at when the
// answer is true.

// LengthOptions bound Length.
type LengthOptions struct {
	// MaxNodes stops the search after about this many nodes (0: no limit),
	// the boolean solver's included.
	MaxNodes int64
	// Table is the boolean solver's transposition table (nil: one of
	// TableMB megabytes, default 8).
	Table   *Table
	TableMB int
}

// LengthResult is what Length found.
type LengthResult struct {
	// Plies is the length of the game from the position under perfect
	// play (0: the game is over), meaningful when Proven.
	Plies  int
	Proven bool
	Nodes  int64
	// Fastest, in a position the player to move wins, is a move that
	// wins in Plies (the game lasts Plies - 1 more after it), when the
	// search settled the position by one (it may settle it otherwise: by
	// what it learnt in an earlier question of the same Lengths, or at
	// the end of the game, where every winning move is as fast).
	Fastest *Move
}

// Length returns how many plies the game lasts from pos under perfect
// play, the winner hurrying and the loser delaying. outcome is pos's value
// for the player to move (Win or Loss, as Solve proves it; a wrong one
// proves nothing). Only normal play: under the score rule or in the
// capture variant it proves nothing. It stops unproven when ctx is done or
// after opts.MaxNodes nodes, and when the position's graph is too big to
// build.
func Length(ctx context.Context, pos *Position, outcome Outcome, opts LengthOptions) LengthResult {
	x := NewLengths(ctx, pos, opts)
	defer x.Close()
	return x.Length(outcome)
}

// MoveLengths is Length after each of moves, legal moves of pos with their
// proven values for the player making them (as Solve gives them with
// AllMoves), in one search: the states the lines after different moves
// share are searched once. A move not proven, not legal or not reached
// before the search stopped has a result not Proven.
func MoveLengths(ctx context.Context, pos *Position, moves []MoveResult, opts LengthOptions) []LengthResult {
	x := NewLengths(ctx, pos, opts)
	defer x.Close()
	return x.MoveLengths(moves)
}

// FastestWin returns the index of the first of moves, winning moves of
// pos for the player to move, that wins in plies (pos's Length): the game
// lasts plies - 1 more plies after it. It is -1 when none does, or when
// the search stopped first (ctx, MaxNodes). One bounded search a move, at
// that depth only: cheaper than MoveLengths when only a fastest win is
// wanted.
func FastestWin(ctx context.Context, pos *Position, moves []Move, plies int, opts LengthOptions) (index int, nodes int64) {
	x := NewLengths(ctx, pos, opts)
	defer x.Close()
	return x.FastestWin(moves, plies)
}

// Lengths is one game-length search of a position that answers several
// questions (Length, then MoveLengths or FastestWin): the graph, the
// boolean solver and the bounds learnt are built once and shared, so what
// Length learnt about the states after the moves serves the later
// questions. opts.MaxNodes bounds the questions together. A nil *Lengths
// (NewLengths under the score rule, in the capture variant, or on a graph
// too big to build) answers nothing proven. Not safe for concurrent use;
// Close hands back its tables.
type Lengths struct {
	ls   *lengthSearch
	L    []uint64
	side int
}

// NewLengths prepares the length search of pos (nil when there is none).
func NewLengths(ctx context.Context, pos *Position, opts LengthOptions) *Lengths {
	ls, L, side, ok := newLengthSearch(ctx, pos, opts)
	if !ok {
		return nil
	}
	return &Lengths{ls: ls, L: L, side: side}
}

// Close hands back the search's tables (nil: nothing to do).
func (x *Lengths) Close() {
	if x != nil {
		x.ls.close()
	}
}

// spent is the search's nodes so far, the boolean solver's included.
func (x *Lengths) spent() int64 { return x.ls.nodes + x.ls.w.nodes }

// Length is the package's Length for the position.
func (x *Lengths) Length(outcome Outcome) LengthResult {
	if x == nil || outcome != Win && outcome != Loss {
		return LengthResult{}
	}
	return x.ls.length(x.L, x.side, outcome == Win)
}

// MoveLengths is the package's MoveLengths for the position.
func (x *Lengths) MoveLengths(moves []MoveResult) []LengthResult {
	out := make([]LengthResult, len(moves))
	if x == nil {
		return out
	}
	ls := x.ls
	next := make([]uint64, ls.g.words)
	for i, mr := range moves {
		if !mr.Proven || mr.Outcome != Win && mr.Outcome != Loss || !ls.after(x.L, x.side, mr.Move, next) {
			continue
		}
		before := x.spent()
		// After a winning move the player who made it wins: the loser
		// is to move.
		out[i] = ls.length(next, 1-x.side, mr.Outcome == Loss)
		out[i].Nodes = x.spent() - before
		if ls.stopped {
			break
		}
	}
	return out
}

// WinsWithin reports whether the player to move, who wins the position
// (the caller knows it, from a proof or the book: it is not proven
// again), can force the end of the game within plies plies; done is false
// when the search was stopped (the context, the node limit). It answers
// one bound where Length deepens them all, and costs much less than
// Length when the answer is false (the game lasts longer). A false answer
// does not rest on the caller's outcome (the search found no way for the
// mover to end the game within plies: the outcome only lets it stop at
// states it takes for won, which can only make answers true); a true one
// does. nodes counts the question's, the solver's checks included.
func (x *Lengths) WinsWithin(plies int) (ok, done bool, nodes int64) {
	if x == nil || plies < 0 {
		return false, false, 0
	}
	spent := x.question(x.side)
	x.ls.rootMove = -1
	ok, done = x.ls.within(x.L, x.side, plies, 0, true)
	return ok, done, spent()
}

// question starts a question about the position won by winner: it
// returns the nodes spent on it so far.
func (x *Lengths) question(winner int) (spent func() int64) {
	start := x.spent()
	x.ls.winner = winner
	return func() int64 { return x.spent() - start }
}

// FastestWin is the package's FastestWin for the position.
func (x *Lengths) FastestWin(moves []Move, plies int) (index int, nodes int64) {
	if x == nil || plies < 1 {
		return -1, 0
	}
	ls, side := x.ls, x.side
	spent := x.question(side)
	next := make([]uint64, ls.g.words)
	for i, m := range moves {
		if !ls.after(x.L, side, m, next) {
			continue
		}
		// The search needs the move to win: every state it visits is
		// won for the winner.
		if !intersects(next, ls.g.own[1-side]) {
			if plies == 1 {
				return i, spent()
			}
			continue
		}
		switch ls.w.solveBool(&ls.g, next, 1-side, 0) {
		case resAbort:
			ls.stopped = true
			return -1, spent()
		case resWin:
			continue // not a winning move
		}
		ok, done := ls.within(next, 1-side, plies-1, 0, true)
		if !done {
			return -1, spent()
		}
		if ok {
			return i, spent()
		}
	}
	return -1, spent()
}

// Slowest returns the index of a move of moves, legal moves of the
// position (lost for the player to move, in plies: its Length), after
// which the game lasts plies - 1 more plies: a loser's best delay. The
// moves are tried in the order the loser prefers them in the search
// (those that leave the winner most replies first), each by one bounded
// search at that depth only. It is -1 when none does, or when the search
// stopped first.
func (x *Lengths) Slowest(moves []Move, plies int) (index int, nodes int64) {
	if x == nil || plies < 2 {
		return -1, 0
	}
	ls, side := x.ls, x.side
	spent := x.question(1 - side)
	type cand struct{ i, replies int }
	var cands []cand
	next := make([]uint64, ls.g.words)
	for i, m := range moves {
		if ls.after(x.L, side, m, next) {
			cands = append(cands, cand{i, 0})
			for w, word := range next {
				cands[len(cands)-1].replies += bits.OnesCount64(word & ls.g.own[1-side][w])
			}
		}
	}
	slices.SortStableFunc(cands, func(a, b cand) int { return b.replies - a.replies })
	for _, c := range cands {
		ls.after(x.L, side, moves[c.i], next)
		// The search needs the state won for the winner: the move must
		// lose.
		if c.replies == 0 {
			continue // it ends the game: a win
		}
		switch ls.w.solveBool(&ls.g, next, 1-side, 0) {
		case resAbort:
			ls.stopped = true
			return -1, spent()
		case resLoss:
			continue // a winning move: the position is not lost
		}
		if plies == 2 {
			return c.i, spent() // every losing move lasts one ply more
		}
		ok, done := ls.within(next, 1-side, plies-3, 0, true)
		if !done {
			return -1, spent()
		}
		if !ok {
			return c.i, spent()
		}
	}
	return -1, spent()
}

// after sets next to state L after move m of side and reports whether m
// is one of side's moves there.
func (ls *lengthSearch) after(L []uint64, side int, m Move, next []uint64) bool {
	if ls.vertex == nil {
		ls.vertex = map[string]int{}
		for v, pi := range ls.g.place {
			ls.vertex[ls.game.move(pi).String()] = v
		}
	}
	v, ok := ls.vertex[m.String()]
	if !ok || L[v>>6]&(1<<(uint(v)&63)) == 0 || ls.g.own[side][v>>6]&(1<<(uint(v)&63)) == 0 {
		return false
	}
	k := ls.g.words
	row := ls.g.adj[v*k : (v+1)*k]
	for w := range k {
		next[w] = L[w] &^ row[w]
	}
	return true
}

// newLengthSearch builds the search of a position: its graph (every
// placement either player can make), the boolean solver, the full state.
func newLengthSearch(ctx context.Context, pos *Position, opts LengthOptions) (ls *lengthSearch, L []uint64, side int, ok bool) {
	g := pos.game
	if g.score || g.cfg.Variant == Capture {
		return nil, nil, 0, false
	}
	side = int(pos.toMove & 1)
	all := pos.appendLegal(pos.toMove, nil)
	if !g.pool {
		all = pos.appendLegal(pos.toMove.Opponent(), all)
	}
	if tooBig(len(all)) {
		return nil, nil, 0, false
	}
	mb := opts.TableMB
	if mb <= 0 {
		mb = 8
	}
	s := newSolver(ctx, g, Options{Table: opts.Table, TableMB: mb, MaxNodes: opts.MaxNodes})
	ls = &lengthSearch{ctx: ctx, max: opts.MaxNodes, game: g, s: s, w: newWorker(s), ownTable: opts.Table == nil,
		memo: map[lengthKey]lengthBounds{}, wins: map[lengthKey]bool{}, verdicts: map[lengthKey]lengthVerdict{}, order: g.set.Order, small: g.small}
	ls.g.build(g, all)
	// Each ply takes a vertex: no line is longer than the graph's n plies.
	ls.frames = make([]lengthFrame, ls.g.n+1)
	ls.killer = make([][2]int32, ls.g.n+1)
	for i := range ls.killer {
		ls.killer[i] = [2]int32{-1, -1}
	}
	ls.memoCap = lengthMemoBytes / (8*(len(lengthKey{}.live)+2) + lengthEntryBytes)
	return ls, ls.g.full(nil), side, true
}

// close hands back the solver's tables.
func (ls *lengthSearch) close() {
	ls.w.done()
	if ls.ownTable {
		ls.s.tt.release()
	}
}

// length is Length for state L with side to move, won for that side when
// moverWins.
func (ls *lengthSearch) length(L []uint64, side int, moverWins bool) LengthResult {
	ls.winner = side
	if !moverWins {
		ls.winner = 1 - side
	}
	start := ls.nodes + ls.w.nodes
	nodes := func() int64 { return ls.nodes + ls.w.nodes - start }
	// The search needs the outcome right: every state it visits is won
	// for the winner.
	want := resLoss
	if moverWins {
		want = resWin
	}
	if intersects(L, ls.g.own[side]) {
		if r := ls.w.solveBool(&ls.g, L, side, 0); r != want {
			ls.stopped = ls.stopped || r == resAbort
			return LengthResult{Nodes: nodes()}
		}
	} else if moverWins {
		return LengthResult{} // the player to move has lost already
	}
	// The parity of the length is the winner's: odd when he is to move.
	d := 0
	if moverWins {
		d = 1
	}
	for ; ; d += 2 {
		ls.rootMove = -1
		ok, done := ls.within(L, side, d, 0, true)
		if !done {
			return LengthResult{Nodes: nodes()}
		}
		if ok {
			r := LengthResult{Plies: d, Proven: true, Nodes: nodes()}
			if moverWins && ls.rootMove >= 0 {
				m := ls.game.move(ls.g.place[ls.rootMove])
				r.Fastest = &m
			}
			return r
		}
		if d > ls.g.n+1 {
			// Each ply takes a vertex: past n plies the game is over.
			return LengthResult{Nodes: nodes()}
		}
	}
}

// lengthMemoBytes caps the memory of each of the search's maps (bounds,
// states at their depth's end and the winner's moves), counted as key
// bytes plus lengthEntryBytes an entry: past it they keep what they hold
// and learn no more.
const (
	lengthMemoBytes  = 256 << 20
	lengthEntryBytes = 64
)

// lengthBounds: within is false for d <= lo and true for d >= hi.
type lengthBounds struct{ lo, hi int16 }

type lengthSearch struct {
	ctx      context.Context
	game     *Game
	s        *solver
	ownTable bool // the solver's table is the search's own
	max      int64
	nodes    int64
	stopped  bool
	g        cgraph
	winner   int
	memo     map[lengthKey]lengthBounds
	frames   []lengthFrame               // by ply from the root (n + 1: fixed, never moved)
	w        *worker                     // the boolean solver: which of the winner's moves win
	order    int                         // cells of a piece
	small    bool                        // one-word cell masks (g.m64)
	wins     map[lengthKey]bool          // states at their depth's end: won for the winner
	verdicts map[lengthKey]lengthVerdict // the winner's moves tried, by the state after
	memoCap  int                         // entries each map may hold
	gaveUp   int                         // checks given up (their allowance spent)
	vertex   map[string]int              // move -> vertex of the root graph (after)
	// killer[ply][side] is the move that last settled a node of side's at
	// ply (the winner's move within the bound, the loser's escape from
	// it): tried first where it is playable.
	killer [][2]int32
	// rootMove is the move that settled the root of the last within
	// (ply 0) when one did, else -1.
	rootMove int
}

// lengthFrame is a ply's scratch space.
type lengthFrame struct {
	kids []uint64 // moves by lengthOrder
	nz   []int32  // words of the state where the opponent has moves
	next []uint64
}

// lengthOrder is the key of move v that leaves n replies in a node of
// the winner (hurry) or of the loser: the winner tries first the moves
// that leave the loser fewest replies, the loser those that leave the
// winner most, each in vertex order at a tie.
func lengthOrder(v, n int, hurry bool) uint64 {
	if !hurry {
		n = math.MaxInt32 - n
	}
	return uint64(n)<<32 | uint64(v)
}

// killerFirst puts the killer of the node (at ply, the winner's when
// hurry) first among its moves kids (by lengthOrder), when it is one of
// them: the move that settled the sibling nodes often settles this one.
func (ls *lengthSearch) killerFirst(kids []uint64, ply int, hurry bool) {
	side := ls.winner
	if !hurry {
		side = 1 - side
	}
	kv := ls.killer[ply][side]
	if kv < 0 || uint32(kids[0]) == uint32(kv) {
		return
	}
	for j := 1; j < len(kids); j++ {
		if uint32(kids[j]) == uint32(kv) {
			kids[0], kids[j] = kids[j], kids[0]
			return
		}
	}
}

// within reports whether the winner can force the end of the game within
// d plies from state L with side to move; done is false when the search
// was stopped. won says that L is known to be won for the winner.
func (ls *lengthSearch) within(L []uint64, side, d, ply int, won bool) (ok, done bool) {
	if ls.stopped {
		return false, false
	}
	ls.nodes++
	if ls.nodes&1023 == 0 && (ls.ctx.Err() != nil || ls.max > 0 && ls.nodes+ls.w.nodes > ls.max) {
		ls.stopped = true
		return false, false
	}
	f := &ls.frames[ply]
	if f.next == nil {
		f.next = make([]uint64, ls.g.words)
	}
	g := &ls.g
	k := g.words
	own, opp := g.own[side], g.own[1-side]
	hurry := side == ls.winner
	// The parity of the plies left is fixed: d of the wrong parity is d-1.
	if hurry != (d&1 == 1) {
		d--
	}
	// Only the words where the opponent has moves count replies.
	nz := f.nz[:0]
	for x := range k {
		if L[x]&opp[x] != 0 {
			nz = append(nz, int32(x))
		}
	}
	f.nz = nz
	if hurry && d <= 1 {
		// Within one ply: a move that leaves no reply (none at all when
		// the game is over or d is 0).
		if d <= 0 {
			return false, true
		}
		for w := range k {
			for word := L[w] & own[w]; word != 0; word &= word - 1 {
				row := g.adj[(w*64+bits.TrailingZeros64(word))*k:]
				reply := false
				for _, x := range nz {
					if L[x]&^row[x]&opp[x] != 0 {
						reply = true
						break
					}
				}
				if !reply {
					if ply == 0 {
						ls.rootMove = w*64 + bits.TrailingZeros64(word)
					}
					return true, true
				}
			}
		}
		return false, true
	}
	// Children: each move with the replies it leaves.
	kids := f.kids[:0]
	for w := range k {
		for word := L[w] & own[w]; word != 0; word &= word - 1 {
			v := w*64 + bits.TrailingZeros64(word)
			row := g.adj[v*k:]
			n := 0
			for _, x := range nz {
				n += bits.OnesCount64(L[x] &^ row[x] & opp[x])
			}
			kids = append(kids, lengthOrder(v, n, hurry))
		}
	}
	f.kids = kids
	if len(kids) == 0 {
		return side != ls.winner, true // the game is over: side to move lost
	}
	if d <= 0 {
		return false, true
	}
	key := ls.keyOf(L, byte(side|ls.winner<<1))
	if d >= ls.longest(key) {
		if won {
			return true, true // a won state whose game cannot last longer
		}
		return ls.wonState(L, side, key)
	}
	b, seen := ls.memo[key]
	if !seen {
		b = lengthBounds{lo: -1, hi: 1 << 14}
	}
	switch {
	case d >= int(b.hi):
		return true, true
	case d <= int(b.lo):
		return false, true
	}
	if hurry && d > lengthVerifyAbove && ls.s.pool {
		// The winner's moves whose reply position's greedy playout is odd
		// (the loser seems to make the last move) go last, as in the
		// solver: most of the moves the checks turn down are such.
		for j, kid := range kids {
			if kid>>32 == 0 {
				continue
			}
			row := g.adj[int(uint32(kid))*k:]
			for w := range k {
				f.next[w] = L[w] &^ row[w]
			}
			if playoutK(g, f.next, nil)&1 == 1 {
				kids[j] |= 1 << 62
			}
		}
	}
	result := !hurry
	for i := range kids {
		orderNext(kids, i, slices.Sort)
		if hurry && kids[i]>>32 == 0 {
			result = true // a move that leaves no reply ends the game
			if ply == 0 {
				ls.rootMove = int(uint32(kids[i]))
			}
			break
		}
		if i == 0 {
			ls.killerFirst(kids, ply, hurry)
		}
		v := int(uint32(kids[i]))
		row := g.adj[v*k : (v+1)*k]
		for w := range k {
			f.next[w] = L[w] &^ row[w]
		}
		childWon := won && !hurry // a move of the winner's is checked
		var vd lengthVerdict
		var vkey lengthKey
		if hurry && d > lengthVerifyAbove {
			// A move known to lose cannot win within d (each move's
			// value found once, not at every depth), and below a move
			// known to win the search may stop at the states that
			// cannot last longer than their depth.
			vkey = ls.keyOf(f.next, byte(ls.winner))
			switch vd = ls.verdict(vkey, f.next, 1-side); vd.v {
			case verdictAbort:
				return false, false
			case verdictLost:
				continue
			case verdictWon:
				childWon = true
			}
		}
		start := ls.nodes + ls.w.nodes
		ok, done := ls.within(f.next, 1-side, d-1, ply+1, childWon)
		if hurry && d > lengthVerifyAbove && vd.v == verdictUnknown {
			// The unchecked search is the check's next allowance.
			vd.spent += ls.nodes + ls.w.nodes - start
			ls.keepVerdict(vkey, vd)
		}
		if !done {
			return false, false
		}
		if ok == hurry {
			result = hurry
			ls.killer[ply][side] = int32(v)
			if ply == 0 {
				ls.rootMove = v
			}
			break
		}
	}
	if result {
		b.hi = int16(min(int(b.hi), d))
	} else {
		b.lo = int16(max(int(b.lo), d))
	}
	if seen || len(ls.memo) < ls.memoCap {
		ls.memo[key] = b
	}
	return result, true
}

// lengthKey is a state of the search exactly: its live cells and its
// live pieces (those with a playable vertex) determine its playable
// vertices, those of the search's graph whose piece is live and whose
// cells are all live (see key.go; a piece is in one hand at most, so
// its vertices have one owner); tag says who is to move and who wins.
type lengthKey struct {
	live   Bits
	pieces uint64
	tag    byte
}

// keyOf is the key of state L with tag.
func (ls *lengthSearch) keyOf(L []uint64, tag byte) lengthKey {
	g := &ls.g
	var k lengthKey
	for w, word := range L {
		for ; word != 0; word &= word - 1 {
			v := w*64 + bits.TrailingZeros64(word)
			k.pieces |= g.pbit[v]
			if ls.small {
				k.live[0] |= g.m64[v]
			} else {
				k.live = k.live.Or(ls.game.placements[g.place[v]].mask)
			}
		}
	}
	k.tag = tag
	return k
}

// longest bounds the plies left in the state of key k: each ply takes a
// piece and covers order live cells.
func (ls *lengthSearch) longest(k lengthKey) int {
	return min(bits.OnesCount64(k.pieces), k.live.Count()/ls.order)
}

// wonState reports whether state L (key key) with side to move is won for
// the winner (the solver's verdict, kept in wins); done is false when the
// search was stopped.
func (ls *lengthSearch) wonState(L []uint64, side int, key lengthKey) (won, done bool) {
	if won, seen := ls.wins[key]; seen {
		return won, true
	}
	r := ls.w.solveBool(&ls.g, L, side, 0)
	if r == resAbort {
		ls.stopped = true
		return false, false
	}
	won = (r == resWin) == (side == ls.winner)
	if len(ls.wins) < ls.memoCap {
		ls.wins[key] = won
	}
	return won, true
}

// lengthVerdict is what is known of a move of the winner's: v, and while
// it is verdictUnknown the nodes spent on it so far (the solver's tries
// and the searches without a verdict).
type lengthVerdict struct {
	v     int8
	spent int64
}

// The solver's verdicts on a move of the winner's.
const (
	verdictUnknown = iota // not found yet: too costly so far
	verdictWon            // the winner wins after it
	verdictLost           // the winner does not
	verdictAbort          // the search was stopped
)

// lengthVerifyAbove: the winner's moves are checked by the solver only
// with more plies than this to go (a shallower search costs less than
// the checks). A variable so that tests can check every move, or none.
var lengthVerifyAbove = 3

// lengthVerdictNodes is the least allowance of a check of a move of the
// winner's (a variable so that tests can make checks give up).
var lengthVerdictNodes int64 = 1000

// verdict is whether state L (key key), the loser (side) to move after a
// move of the winner's, is won for the winner: as verdicts knows it, or
// the solver within an allowance. Most checks cost a few hundred nodes;
// those of the first plies of an early position tens of thousands each,
// more than searching the move a few plies deep. So a check gets as many
// nodes as the move has cost so far (at least lengthVerdictNodes; it gives
// up at its first look at the budget past them, every checkEvery nodes),
// and the move is searched without it when it gives up: what a move
// costs in tries is bounded by about twice its cost in searches (a
// doubling strategy), and a move searched deeper and deeper gets its
// check at last.
func (ls *lengthSearch) verdict(key lengthKey, L []uint64, side int) lengthVerdict {
	vd, seen := ls.verdicts[key]
	if seen && vd.v != verdictUnknown {
		return vd
	}
	w := ls.w
	allow := max(lengthVerdictNodes, vd.spent)
	start := w.nodes
	w.limit = start + allow
	r := w.solveBool(&ls.g, L, side, 0)
	w.limit = 0
	switch {
	case r == resLoss:
		vd.v = verdictWon
	case r == resWin:
		vd.v = verdictLost
	case w.s.stop.Load() || ls.ctx.Err() != nil:
		ls.stopped = true
		return lengthVerdict{v: verdictAbort}
	default:
		ls.gaveUp++
		vd.spent += w.nodes - start
	}
	ls.keepVerdict(key, vd)
	return vd
}

// keepVerdict stores vd under key (while verdicts has room).
func (ls *lengthSearch) keepVerdict(key lengthKey, vd lengthVerdict) {
	if _, seen := ls.verdicts[key]; seen || len(ls.verdicts) < ls.memoCap {
		ls.verdicts[key] = vd
	}
}
