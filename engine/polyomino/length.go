package polyomino

import (
	"context"
	"encoding/binary"
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
// known true. The winner's moves are only the winning ones (the boolean
// solver, with its table, says which), so that every state the search
// visits is won for the winner; and such a state whose game cannot last
// more than d plies (one piece a ply, and order live cells a ply) is won
// within d at once. The search is exact: no symmetry, no other pruning,
// every move of the loser looked at when the answer is true.

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
			return -1, spent()
		case resWin:
			continue // not a winning move
		}
		ok, done := ls.within(next, 1-side, plies-1, 0)
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
			return -1, spent()
		case resLoss:
			continue // a winning move: the position is not lost
		}
		if plies == 2 {
			return c.i, spent() // every losing move lasts one ply more
		}
		ok, done := ls.within(next, 1-side, plies-3, 0)
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
		memo: map[string]lengthBounds{}, wins: map[string]bool{}, order: g.set.Order, small: g.small}
	ls.g.build(g, all)
	// Each ply takes a vertex: no line is longer than the graph's n plies.
	ls.frames = make([]lengthFrame, ls.g.n+1)
	ls.memoCap = lengthMemoBytes / (8*ls.g.words + 1 + lengthEntryBytes)
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
		ok, done := ls.within(L, side, d, 0)
		if !done {
			return LengthResult{Nodes: nodes()}
		}
		if ok {
			return LengthResult{Plies: d, Proven: true, Nodes: nodes()}
		}
		if d > ls.g.n+1 {
			// Each ply takes a vertex: past n plies the game is over.
			return LengthResult{Nodes: nodes()}
		}
	}
}

// lengthMemoBytes caps the memory of each of the search's maps (bounds
// and the winner's moves), counted as key bytes plus lengthEntryBytes an
// entry: past it they keep what they hold and learn no more.
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
	memo     map[string]lengthBounds
	frames   []lengthFrame   // by ply from the root (n + 1: fixed, never moved)
	w        *worker         // the boolean solver: which of the winner's moves win
	order    int             // cells of a piece
	small    bool            // one-word cell masks (g.m64)
	wins     map[string]bool // the winner's moves tried: state after -> won
	memoCap  int             // entries each map may hold
	vertex   map[string]int  // move -> vertex of the root graph (after)
	keyBuf   []byte
}

// lengthFrame is a ply's scratch space.
type lengthFrame struct {
	kids []lengthChild
	next []uint64
	key  []byte
}

// lengthChild is a move with the replies it leaves the opponent.
type lengthChild struct{ v, replies int }

// within reports whether the winner can force the end of the game within
// d plies from state L with side to move; done is false when the search
// was stopped.
func (ls *lengthSearch) within(L []uint64, side, d, ply int) (ok, done bool) {
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
	// Children: each move with the replies it leaves.
	kids := f.kids[:0]
	for w := range k {
		for word := L[w] & own[w]; word != 0; word &= word - 1 {
			v := w*64 + bits.TrailingZeros64(word)
			row := g.adj[v*k : (v+1)*k]
			n := 0
			for x := range k {
				n += bits.OnesCount64(L[x] &^ row[x] & opp[x])
			}
			kids = append(kids, lengthChild{v, n})
		}
	}
	f.kids = kids
	if len(kids) == 0 {
		return side != ls.winner, true // the game is over: side to move lost
	}
	// The parity of the plies left is fixed: d of the wrong parity is d-1.
	hurry := side == ls.winner
	if hurry != (d&1 == 1) {
		d--
	}
	if d <= 0 {
		return false, true
	}
	if d >= ls.longest(L) {
		return true, true // a won state whose game cannot last longer
	}

	f.key = f.key[:0]
	for _, w := range L {
		f.key = binary.LittleEndian.AppendUint64(f.key, w)
	}
	f.key = append(f.key, byte(side|ls.winner<<1))
	b, seen := ls.memo[string(f.key)]
	if !seen {
		b = lengthBounds{lo: -1, hi: 1 << 14}
	}
	switch {
	case d >= int(b.hi):
		return true, true
	case d <= int(b.lo):
		return false, true
	}
	// The winner tries first the moves that leave the loser fewest
	// replies; the loser those that leave the winner most.
	if hurry {
		slices.SortStableFunc(kids, func(a, b lengthChild) int { return a.replies - b.replies })
	} else {
		slices.SortStableFunc(kids, func(a, b lengthChild) int { return b.replies - a.replies })
	}
	result := !hurry
	if hurry && kids[0].replies == 0 {
		result = true // a move that leaves no reply ends the game
	} else {
		for i := range kids {
			v := f.kids[i].v
			row := g.adj[v*k : (v+1)*k]
			for w := range k {
				f.next[w] = L[w] &^ row[w]
			}
			if hurry && d > 1 {
				// Only a winning move can win within d (each move's
				// value found once, not at every depth). At d = 1 the
				// child is searched at 0 plies: only an end of the game
				// counts there, which needs no solver.
				ls.keyBuf = ls.keyBuf[:0]
				for _, x := range f.next {
					ls.keyBuf = binary.LittleEndian.AppendUint64(ls.keyBuf, x)
				}
				ls.keyBuf = append(ls.keyBuf, byte(ls.winner))
				won, seen := ls.wins[string(ls.keyBuf)]
				if !seen {
					r := ls.w.solveBool(g, f.next, 1-side, 0)
					if r == resAbort {
						ls.stopped = true
						return false, false
					}
					won = r == resLoss
					if len(ls.wins) < ls.memoCap {
						ls.wins[string(ls.keyBuf)] = won
					}
				}
				if !won {
					continue
				}
			}
			ok, done := ls.within(f.next, 1-side, d-1, ply+1)
			if !done {
				return false, false
			}
			if ok == hurry {
				result = hurry
				break
			}
		}
	}
	if result {
		b.hi = int16(min(int(b.hi), d))
	} else {
		b.lo = int16(max(int(b.lo), d))
	}
	if seen || len(ls.memo) < ls.memoCap {
		ls.memo[string(f.key)] = b
	}
	return result, true
}

// longest bounds the plies left in state L: each ply takes a piece and
// covers order live cells.
func (ls *lengthSearch) longest(L []uint64) int {
	g := &ls.g
	var pieces, cells uint64
	for w, word := range L {
		for ; word != 0; word &= word - 1 {
			v := w*64 + bits.TrailingZeros64(word)
			pieces |= g.pbit[v]
			if ls.small {
				cells |= g.m64[v]
			}
		}
	}
	n := bits.OnesCount64(pieces)
	if ls.small {
		n = min(n, bits.OnesCount64(cells)/ls.order)
	}
	return n
}
