package capture

import (
	"context"
	"time"
)

// TurnLength is a turn's own value for the player who makes it and how
// many plies the game lasts after it under perfect play.
type TurnLength struct {
	Turn    Turn
	Outcome Outcome
	// Plies after the turn (the turn itself not counted): the winner
	// hurrying, the loser delaying.
	Plies int
}

// LengthResult is how long the game lasts from a position under perfect
// play: the winner hurries (the fewest plies that still force the win)
// and the loser delays (the most he can hold out), the repetition rule
// included (a line that repeats a position for the third time is a draw,
// which the winner avoids). A drawn game has no length.
type LengthResult struct {
	// Outcome is the position's value when Known (Win or Loss), else
	// Unknown (the budget ran out, or the position is drawn: Drawn).
	Outcome Outcome
	Known   bool
	Drawn   bool
	// Plies the game lasts from the position when Known: odd when the
	// player to move wins, even when he loses (0: he is stuck).
	Plies int
	// Perfect holds the turns perfect play chooses, when Known: the
	// fastest wins, or in a lost position the slowest losses (the fastest
	// wins found, when the budget stopped the search in the horizon of
	// the first).
	Perfect []Turn
	// Turns holds, with Options.AllMoves, every turn whose value and
	// length were found (win or loss; draws have no length), in the
	// order of the legal turns.
	Turns []TurnLength
	Nodes int64
	// Elapsed is the time the search took.
	Elapsed time.Duration
}

// Length finds how many plies the game lasts from pos under perfect play,
// within the budget of ctx and opts.MaxNodes (opts.Table or TableMB
// give its table: Solve's table, shared, saves most of the work; FirstWin
// and HeuristicNodes do not apply). With opts.AllMoves it
// goes on until it knows every turn's length (or the budget ends).
//
// The search is Solve's, in exact mode: iterative deepening on a horizon
// h = 1, 2, ... where the table hands out a win or a loss only if its
// proof's depth fits under the horizon, so that a turn decided first
// under horizon h wins or loses in exactly h plies from the position.
// It costs about as much as Solve for a win (it stops at the fastest
// one) and more for a loss (every turn must be decided). Positions with
// nodes of more than 2^16 turns within reach, which the search leaves
// unsearched, get lengths only up to the first horizon that meets one: a
// faster line might pass through them.
func Length(ctx context.Context, pos *Position, opts Options) LengthResult {
	clock := opts.Clock
	if clock == nil {
		clock = time.Now
	}
	began := clock()
	var res LengthResult
	if pos.Over() {
		if pos.Drawn() {
			res.Outcome, res.Drawn = Unknown, true
		} else {
			res.Outcome, res.Known = Loss, true
		}
		res.Elapsed = clock().Sub(began)
		return res
	}
	if pos.CountTurns() > maxRootTurns {
		res.Outcome = Unknown
		res.Elapsed = clock().Sub(began)
		return res
	}
	g := pos.game
	s := newSearcher(ctx, g, pos.history, opts.MaxNodes, opts.table(g))
	s.exact = true
	s.progress, s.nextProgress = opts.Progress, 1<<20
	rt := newRoot(ctx, s, pos)
	turns, vals, plies, order := rt.turns, rt.vals, rt.plies, rt.order
	won := false
	for horizon := 1; horizon <= maxHorizon; horizon++ {
		found := rt.deepen(horizon, func(int) bool { return s.wideHit })
		for _, i := range found {
			won = won || vals[i] == valWin
		}
		// A node left unsearched (wideHit) may hide a shorter line from
		// the next horizons: what this one found is exact (nothing was
		// found under the horizon before), what it did not find may
		// exist, so the search ends here.
		if s.wideHit || s.stopped || won && !opts.AllMoves || !s.horizonHit || allKnown(vals) {
			break
		}
	}
	res.Nodes = s.nodes

	best, known := rt.best()
	switch {
	case best == valWin:
		// The first win found is the fastest: every turn not decided
		// then needs a longer horizon.
		res.Outcome, res.Known, res.Plies = Win, true, maxHorizon+1
		for i, v := range vals {
			if v == valWin {
				res.Plies = min(res.Plies, plies[i])
			}
		}
	case known && best == valLoss:
		res.Outcome, res.Known = Loss, true
		for _, p := range plies {
			res.Plies = max(res.Plies, p)
		}
	case known:
		res.Outcome, res.Drawn = Unknown, true
	default:
		res.Outcome = Unknown
	}
	if res.Known {
		for _, i := range order {
			if vals[i] == best && plies[i] == res.Plies {
				res.Perfect = append(res.Perfect, g.toTurn(turns[i]))
			}
		}
	}
	if opts.AllMoves {
		for i, v := range vals {
			if v == valWin || v == valLoss {
				res.Turns = append(res.Turns, TurnLength{Turn: g.toTurn(turns[i]), Outcome: outcomeOf(v), Plies: plies[i] - 1})
			}
		}
	}
	res.Elapsed = clock().Sub(began)
	return res
}
