package capture

import "context"

// playerNodes is the node budget BestTurn gives the exact search when the
// caller sets none.
const playerNodes = 200_000

// BestTurn is the engine's player. It first tries to solve the position
// within the budget of ctx and opts.MaxNodes (200,000 nodes when unset),
// stopping at the first winning turn; a proven win is played at once.
// Otherwise it plays the heuristic player's turn among the turns the
// search did not prove worse (all of them when the position is lost). The
// Result is Solve's. ErrGameOver when the game has ended.
func BestTurn(ctx context.Context, pos *Position, opts Options) (Turn, Result, error) {
	if pos.Over() {
		return Turn{}, Result{}, faultf(ErrGameOver, "the game is over")
	}
	if opts.MaxNodes == 0 {
		opts.MaxNodes = playerNodes
	}
	opts.FirstWin = true
	opts.AllMoves = false
	res, err := Solve(ctx, pos, opts)
	if err != nil {
		return Turn{}, res, err
	}
	switch {
	case res.Proven && res.Outcome == Loss:
		// Every turn loses against perfect play: make the opponent's task
		// hardest by the heuristic's lights.
		t := pos.game.toTurn(heuristicChoice(ctx, pos, nil, opts.HeuristicNodes))
		return t, res, nil
	case len(res.BestTurns) > 0:
		return res.BestTurns[0], res, nil
	}
	return pos.game.toTurn(heuristicChoice(ctx, pos, nil, opts.HeuristicNodes)), res, nil
}
