package polyomino

import (
	"context"
	"errors"
	"time"
)

// heuristicReserve is the most of a deadline's time that Solve keeps
// from its search for the heuristic player (a fifth of the time, up to
// this): the answer comes within the deadline even when the search does not
// finish.
const heuristicReserve = 50 * time.Millisecond

// heuristicGrace is the time the heuristic player may take when it is
// asked past the deadline (it stops evaluating moves at the deadline or
// after this grace, whichever is later).
const heuristicGrace = 5 * time.Millisecond

// heuristicMove is the heuristic player's choice among the legal moves of
// the player to move that are not excluded (moves the search proved bad),
// made by the deadline of ctx or within heuristicGrace, whichever is later
// (no limit when ctx has no deadline), or at once when ctx is cancelled.
// g, when not nil, is the conflict graph of the position's live placements
// that Solve built (it is used when it has the cover sets the heuristic
// reads).
func heuristicMove(ctx context.Context, pos *Position, excluded []Move, g *cgraph) (Move, bool) {
	var deadline time.Time
	if ctx == nil {
		ctx = context.Background()
	}
	if d, ok := ctx.Deadline(); ok {
		deadline = d
		if grace := time.Now().Add(heuristicGrace); grace.After(d) {
			deadline = grace
		}
	}
	late := func() bool {
		return errors.Is(ctx.Err(), context.Canceled) || !deadline.IsZero() && time.Now().After(deadline)
	}
	return newHeuristicOn(pos, g, deadline).best(excluded, late)
}

// playerSearchLimit is the number of live placements above which BestMove
// does not try the exact search at all.
const playerSearchLimit = 400

// BestMove is the engine's player: it solves the position within the
// budget of ctx and opts.MaxNodes and plays a best move; when the search
// does not finish (or the position is far too big for it: more than 400
// live placements), it plays the heuristic player's move among the moves
// the search did not prove worse. The Result is Solve's (zero when the
// search was skipped).
func BestMove(ctx context.Context, pos *Position, opts Options) (Move, Result, error) {
	if pos.game.cfg.Variant == Capture {
		return Move{}, Result{}, faultf(ErrUnsupported, "the capture variant has no player yet")
	}
	if pos.MustPass() || pos.Over() {
		return Move{}, Result{}, faultf(ErrGameOver, "the player to move cannot place a piece")
	}
	var idx [256]int32
	live := len(pos.appendLegal(First, idx[:0]))
	if !pos.game.pool {
		live += len(pos.appendLegal(Second, idx[:0]))
	}
	if live > playerSearchLimit {
		m, _ := heuristicMove(ctx, pos, nil, nil)
		return m, Result{}, nil
	}
	opts.FirstWin = true
	res, err := Solve(ctx, pos, opts)
	if err != nil || len(res.BestMoves) == 0 {
		return Move{}, res, err
	}
	if res.Proven && len(res.BestMoves) > 1 && !res.BestComplete {
		return res.BestMoves[0], res, nil
	}
	if res.Proven && res.Value < 0 || res.Proven && pos.game.score && len(res.BestMoves) > 1 {
		// Lost (or several equal moves): among the best moves, the one the
		// heuristic likes most makes the opponent's task hardest.
		var others []Move
		in := map[string]bool{}
		for _, m := range res.BestMoves {
			in[m.String()] = true
		}
		for _, m := range pos.LegalMoves() {
			if !in[m.String()] {
				others = append(others, m)
			}
		}
		if m, ok := heuristicMove(ctx, pos, others, nil); ok {
			return m, res, nil
		}
	}
	return res.BestMoves[0], res, nil
}
