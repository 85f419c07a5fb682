package capture

import (
	"context"
	"math/bits"
	"sort"
	"time"
)

// Outcome is a result for one player: win, loss, draw or unknown.
type Outcome string

const (
	Win     Outcome = "win"
	Loss    Outcome = "loss"
	Draw    Outcome = "draw"
	Unknown Outcome = "unknown"
)

func outcomeOf(v int8) Outcome {
	switch v {
	case valWin:
		return Win
	case valLoss:
		return Loss
	case valDraw:
		return Draw
	}
	return Unknown
}

// Options steer Solve. The zero value searches until the position is
// solved or ctx is done.
type Options struct {
	// MaxNodes stops the search after about this many nodes (0: no limit).
	MaxNodes int64
	// AllMoves asks for the value of every legal turn in Result.Turns.
	// Without it Solve still solves every turn (unless FirstWin), so that
	// BestTurns lists every best turn, but reports only the best ones.
	AllMoves bool
	// FirstWin stops as soon as the value is proven (at the first winning
	// turn found); BestTurns then holds that turn only.
	FirstWin bool
	// HeuristicNodes is the node budget of the heuristic player when the
	// search does not prove the value (default 150,000; ctx still
	// applies).
	HeuristicNodes int64
	// TableMB is the size of the transposition table in megabytes
	// (default 16; never more than the node budget can fill).
	TableMB int
	// Table, when set to a table of the position's game (NewTable), is
	// used instead of a table of the search's own (TableMB is then
	// ignored): Length after Solve on the same table reuses the proof.
	Table *Table
	// Clock is used only to report Elapsed (default time.Now); budgets come
	// from ctx and MaxNodes.
	Clock func() time.Time
	// Progress, if set, is called from the search about every million
	// nodes with the nodes searched so far (long searches run as jobs).
	Progress func(nodes int64)
}

// TurnResult is the value of one turn for the player who makes it.
type TurnResult struct {
	Turn    Turn
	Outcome Outcome // Unknown when not proven
}

// Result is the analysis of a position, from the point of view of the
// player to move.
type Result struct {
	// Outcome is the value under perfect play (the house rule on
	// repetition included); Unknown when the search could not prove it.
	Outcome Outcome
	Proven  bool
	// BestTurns are the turns proven to reach Outcome: all of them when
	// BestComplete. When the value is not proven, BestTurns holds the
	// heuristic player's choice among the turns not proven to lose, and
	// Heuristic is true.
	BestTurns    []Turn
	BestComplete bool
	Heuristic    bool
	// AtOnce lists the best turns, in BestTurns' order, that leave the
	// opponent stuck when Outcome is Win: wins in one ply, so the game
	// lasts one ply under perfect play (known without Length, which a
	// proof that spent the budget on the other turns leaves no time).
	AtOnce []Turn
	// Turns holds every legal turn with its value (Options.AllMoves), best
	// first: wins, draws, unproven turns, losses.
	Turns []TurnResult
	// LegalTurns is the number of legal turns of the player to move.
	LegalTurns int
	// Over: the game has ended; Outcome is Loss (the player to move is
	// stuck) or Draw (the position occurred for the third time).
	Over    bool
	Nodes   int64
	Elapsed time.Duration
}

// maxRootTurns is the most turns Solve analyses; beyond, it only asks
// the heuristic player.
const maxRootTurns = 1 << 20

// maxHorizon bounds the iterative deepening (a game this long has long
// been decided by the repetition rule in any position the search can
// prove).
const maxHorizon = 512

// Solve analyses a position exactly, within the budget of ctx (deadline,
// cancellation) and opts.MaxNodes. It never returns an error for a valid
// position; a stopped search returns Proven false with what it did prove
// and the heuristic player's turn.
func Solve(ctx context.Context, pos *Position, opts Options) (Result, error) {
	return solve(ctx, pos, opts, nil)
}

// solve is Solve; stored, when set, sees every value the search's table
// keeps (for the tests).
func solve(ctx context.Context, pos *Position, opts Options, stored func(*state, int8)) (Result, error) {
	clock := opts.Clock
	if clock == nil {
		clock = time.Now
	}
	began := clock()
	var res Result
	if pos.Over() {
		// No turn: the empty list of best turns is complete.
		res.Over, res.Proven, res.Outcome, res.BestComplete = true, true, Loss, true
		if pos.Drawn() {
			res.Outcome = Draw
		}
		res.Elapsed = clock().Sub(began)
		return res, nil
	}
	g := pos.game
	res.LegalTurns = pos.CountTurns()
	if res.LegalTurns > maxRootTurns {
		// Too many removal combinations to analyse: the heuristic player
		// looks at the placements with the removals they need.
		res.Outcome, res.Heuristic = Unknown, true
		res.BestTurns = []Turn{g.toTurn(heuristicChoice(ctx, pos, nil, opts.HeuristicNodes))}
		res.Elapsed = clock().Sub(began)
		return res, nil
	}
	s := newSearcher(ctx, g, pos.history, opts.MaxNodes, opts.table(g))
	s.stored = stored
	s.progress, s.nextProgress = opts.Progress, 1<<20
	rt := newRoot(ctx, s, pos)
	turns, vals, order := rt.turns, rt.vals, rt.order
	for horizon := 1; horizon <= maxHorizon; horizon++ {
		won := false
		rt.deepen(horizon, func(i int) bool {
			won = vals[i] == valWin && opts.FirstWin
			return won
		})
		if won || s.stopped || !s.horizonHit || allKnown(vals) {
			break
		}
	}
	res.Nodes = s.nodes

	best, known := rt.best()
	switch {
	case best == valWin:
		res.Proven, res.Outcome = true, Win
	case known:
		res.Proven, res.Outcome = true, outcomeOf(best)
	default:
		res.Outcome = Unknown
	}
	if res.Proven {
		child := &s.states[1]
		for _, i := range order {
			if vals[i] != best {
				continue
			}
			res.BestTurns = append(res.BestTurns, g.toTurn(turns[i]))
			if best == valWin {
				// A stuck position cannot have occurred before (the game
				// would have ended there): no repetition to rule out.
				*child = pos.st
				child.play(g, turns[i])
				if !child.canPlace(g) {
					res.AtOnce = append(res.AtOnce, g.toTurn(turns[i]))
				}
			}
		}
		res.BestComplete = known
	} else {
		allowed := make([]turn, 0, len(turns))
		for i, t := range turns {
			if vals[i] != valLoss {
				allowed = append(allowed, t)
			}
		}
		res.BestTurns = []Turn{g.toTurn(heuristicChoice(ctx, pos, allowed, opts.HeuristicNodes))}
		res.Heuristic = true
	}
	if opts.AllMoves {
		rank := func(v int8) int {
			switch v {
			case valWin:
				return 0
			case valDraw:
				return 1
			case valUnknown:
				return 2
			}
			return 3
		}
		idx := append([]int(nil), order...)
		sort.SliceStable(idx, func(a, b int) bool { return rank(vals[idx[a]]) < rank(vals[idx[b]]) })
		for _, i := range idx {
			res.Turns = append(res.Turns, TurnResult{Turn: g.toTurn(turns[i]), Outcome: outcomeOf(vals[i])})
		}
		if !res.Proven {
			heuristicFirst(res.Turns, res.BestTurns[0])
		}
	}
	res.Elapsed = clock().Sub(began)
	return res, nil
}

// root is the root of a search: the legal turns, each turn's value and the
// depth of its proof (plies after it), searched horizon by horizon.
type root struct {
	s     *searcher
	pos   *Position
	turns []turn
	vals  []int8
	plies []int
	order []int // the order the turns are searched in (rootOrder)
	// searched counts the turns searched, every horizon's (for a test).
	searched int
}

func newRoot(ctx context.Context, s *searcher, pos *Position) *root {
	// Sized first: appending 845,056 turns one by one was most of a 1 ms
	// budget's 0.1-0.3 s.
	turns := pos.st.appendTurns(pos.game, make([]turn, 0, pos.CountTurns()), 0)
	rt := &root{s: s, pos: pos, turns: turns, vals: make([]int8, len(turns)), plies: make([]int, len(turns)), order: rootOrder(ctx, pos, turns)}
	for i := range rt.vals {
		rt.vals[i] = valUnknown
	}
	return rt
}

// deepen searches every turn not decided yet under horizon, in order,
// until the budget stops the search or stop, called after each turn
// decided, says to; it returns the turns it decided.
func (rt *root) deepen(horizon int, stop func(i int) bool) (found []int) {
	s, g := rt.s, rt.pos.game
	s.horizon, s.horizonHit = horizon, false
	for k, i := range rt.order {
		if rt.vals[i] != valUnknown {
			continue
		}
		// The budget, every 256 turns: a turn cut at the horizon counts
		// no node, and a position of 845,056 turns took 0.3 s of a 1 ms
		// budget before its first checkStop.
		if k&255 == 255 && s.checkStop() {
			break
		}
		child := &s.states[1]
		*child = rt.pos.st
		child.play(g, rt.turns[i])
		rt.searched++
		r := s.search(child, 1)
		if s.stopped {
			break
		}
		if r.val != valUnknown {
			rt.vals[i], rt.plies[i] = -r.val, int(r.plies)+1
			found = append(found, i)
			if stop(i) {
				break
			}
		}
	}
	return found
}

// best is the best value among the turns decided, and whether every turn
// is.
func (rt *root) best() (best int8, known bool) {
	best, known = valLoss, true
	for _, v := range rt.vals {
		if v == valUnknown {
			known = false
		} else {
			best = max(best, v)
		}
	}
	return best, known
}

// heuristicFirst moves the heuristic player's turn to the front of the
// list, so that Turns[0] is BestTurns[0] when the position is not proven.
func heuristicFirst(list []TurnResult, t Turn) {
	for i, tr := range list {
		if tr.Turn.String() == t.String() {
			copy(list[1:i+1], list[:i])
			list[0] = tr
			return
		}
	}
}

func allKnown(vals []int8) bool {
	for _, v := range vals {
		if v == valUnknown {
			return false
		}
	}
	return true
}

// table is the search's table: opts.Table's when it is the game's, else
// a new one of the size tableLog2 says.
func (opts Options) table(g *Game) *table {
	if opts.Table != nil && opts.Table.game == g {
		return opts.Table.t
	}
	return newTable(tableLog2(opts))
}

// tableLog2 sizes the table: TableMB megabytes (default 16) of 64-byte
// buckets, but no more buckets than a quarter of the node budget (most
// nodes are never stored).

func tableLog2(opts Options) int {
	mb := opts.TableMB
	if mb <= 0 {
		mb = 16
	}
	n := bits.Len64(uint64(mb)<<20/64) - 1
	if opts.MaxNodes > 0 {
		n = min(n, max(10, bits.Len64(uint64(opts.MaxNodes/4))))
	}
	return max(n, 4)
}
