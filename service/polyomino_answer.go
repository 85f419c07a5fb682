package service

import (
	"context"
	"maps"
	"math"
	"time"

	"github.com/gamesolver/gamesolver/engine/polyomino"
)

// Polyomino answers: made from engine results, checked against their
// position before they are served, mapped between frames, and ranked.

// answerOf turns an engine result into an answer, mapping its moves with
// frame (ToCanonical for the cache, or the identity).
func answerOf(res polyomino.Result, frame func(polyomino.Move) polyomino.Move) PolyominoAnswer {
	a := PolyominoAnswer{
		Outcome: string(res.Outcome), Proven: res.Proven, Value: res.Value, BestComplete: res.BestComplete,
		Heuristic: res.Heuristic, LegalMoves: res.LegalMoves, Over: res.Over, Pass: res.Pass,
		Nodes: res.Nodes, ElapsedNs: int64(res.Elapsed), BestMoves: []string{},
	}
	for _, m := range res.BestMoves {
		a.BestMoves = append(a.BestMoves, frame(m).String())
	}
	for _, mr := range res.Moves {
		a.Moves = append(a.Moves, PolyominoMove{Move: frame(mr.Move).String(), Outcome: string(mr.Outcome), Proven: mr.Proven, Value: mr.Value})
	}
	return a
}

// toPosition is fromCanonical in the assembly gate when the answer is
// big.
func (p *Polyomino) toPosition(ctx context.Context, canon PolyominoAnswer, pos *polyomino.Position) (PolyominoAnswer, error) {
	release, err := p.search.Assembly.Enter(ctx, canon.Size() >= BigAnswerMoves)
	if err != nil {
		return PolyominoAnswer{}, err
	}
	defer release()
	return fromCanonical(canon, pos), nil
}

// consistentWith checks a, a cached answer in the canonical frame, against
// pos, the position asked about: its outcome a proven one, its moves
// legal there and each listed once, every legal move listed when it lists
// moves, best moves unless the game is over (or the player to move must
// pass), and plies that fit the outcome (normal play: odd when the player
// to move wins, 0 when the game is over). An entry that fails (written by
// another version, a bug, or a hand) is refused: Redis cannot make an
// answer wrong that this check can see. (A value flipped in a coherent
// entry is beyond it.)
func consistentWith(a PolyominoAnswer, pos *polyomino.Position) bool {
	legal := map[string]bool{}
	frame := pos.Frame() // found once (pos.ToCanonical finds it each time: 15 s for the hexomino board's moves)
	for _, m := range pos.LegalMoves() {
		legal[frame.ToCanonical(m).String()] = false
	}
	normalize := func(s string) (string, bool) {
		m, err := polyomino.ParseMove(s)
		if err != nil {
			return "", false
		}
		return m.String(), true
	}
	normal := pos.Game().Config().EndRule == polyomino.NormalPlay
	return movesListed(a, legal, normalize, pos.MustPass()) && coherent(a, normal, normal, true, pos.Over()) &&
		(!normal || lostListsAll(a, len(legal)))
}

// lostListsAll: a lost position's complete best moves are its n legal
// moves, where every move loses alike (normal play, the capture variant;
// not the score rule, where the best lose by least). An entry whose win
// was turned into a loss, every figure else kept, lists some only (an
// audit's: 13 of 247).
func lostListsAll(a PolyominoAnswer, n int) bool {
	return a.Outcome != string(polyomino.Loss) || !a.BestComplete || len(a.BestMoves) == n
}

// movesListed: a's best moves and its moves are among legal (the keys:
// moves as the search writes them; normalize writes another way so), each
// listed once; it lists every legal move when it lists moves, and a best
// move unless there is none (or noBest: the player to move passes, the
// game is over).
func movesListed(a PolyominoAnswer, legal map[string]bool, normalize func(string) (string, bool), noBest bool) bool {
	listed := func(moves []string) bool {
		used := maps.Clone(legal)
		for _, s := range moves {
			k := s // as the search writes it: no parse needed
			if _, ok := used[k]; !ok {
				var valid bool
				if k, valid = normalize(s); !valid {
					return false
				}
			}
			if was, ok := used[k]; !ok || was {
				return false // not legal, or listed twice
			}
			used[k] = true
		}
		return true
	}
	if !listed(a.BestMoves) || len(a.BestMoves) == 0 && len(legal) > 0 && !noBest {
		return false
	}
	if len(a.Moves) == 0 {
		return true
	}
	moves := make([]string, len(a.Moves))
	for i, m := range a.Moves {
		moves[i] = m.Move
	}
	return len(moves) == len(legal) && listed(moves)
}

// outcomeRank orders the proven outcomes.
var outcomeRank = map[polyomino.Outcome]int{polyomino.Win: 1, polyomino.Draw: 0, polyomino.Loss: -1}

// coherent: a's figures agree with each other. Its outcome is a proven
// one; it and each proven move's fit their values (values: the answers
// carry them; a draw only where the rules have draws, not when drawless);
// when plies counts them, the position's plies fit its outcome (odd when
// the player to move wins, even when he loses, none for a draw, 0 exactly
// when the game is over) and a move's fit its own (even after a winning
// move, odd after a losing one, none after a drawing one); when every
// move is valued, the position's value (or outcome) is the best of
// theirs; a best move valued is of the position's value. (Edited entries
// that contradicted themselves were served: a draw in a game without
// draws, a loss whose moves win.)
func coherent(a PolyominoAnswer, drawless, plies, values, over bool) bool {
	// rank orders outcomes, or values when the answers carry them.
	rank := func(outcome string, v int) (int, bool) {
		o, ok := outcomeRank[polyomino.Outcome(outcome)]
		if !ok || drawless && o == 0 {
			return 0, false
		}
		if !values {
			return o, true
		}
		return v, (v > 0) == (o > 0) && (v < 0) == (o < 0)
	}
	own, ok := rank(a.Outcome, a.Value)
	if !ok {
		return false
	}
	if n := a.Plies; n != nil && plies &&
		(*n < 0 || a.Outcome == string(polyomino.Draw) || (*n == 0) != over || (*n%2 == 1) != (a.Outcome == string(polyomino.Win))) {
		return false
	}
	valued := map[string]int{}
	best, every := math.MinInt, true
	for _, m := range a.Moves {
		if !m.Proven {
			every = false
			continue
		}
		r, ok := rank(m.Outcome, m.Value)
		if !ok {
			return false
		}
		if m.Plies != nil && plies && (*m.Plies < 0 || m.Outcome == string(polyomino.Draw) || (*m.Plies%2 == 0) != (m.Outcome == string(polyomino.Win))) {
			return false
		}
		valued[m.Move] = r
		best = max(best, r)
	}
	if len(a.Moves) > 0 && every && best != own {
		return false
	}
	for _, s := range a.BestMoves {
		if r, ok := valued[s]; ok && r != own {
			return false
		}
	}
	return true
}

// fromCanonicalMove reads a move of a canonical answer in the position's
// frame; false when it is not a move.
func fromCanonicalMove(frame polyomino.Frame, s string) (polyomino.Move, bool) {
	m, err := polyomino.ParseMove(s)
	if err != nil {
		return polyomino.Move{}, false
	}
	return frame.FromCanonical(m), true
}

// fromCanonical maps a canonical answer onto the position asked about and
// fills in what belongs to the position rather than to its class.
func fromCanonical(a PolyominoAnswer, pos *polyomino.Position) PolyominoAnswer {
	frame := pos.Frame()
	if frame.Identity() {
		// The answer is the position's as it stands (a fresh copy of
		// the cache's).
		return withPosition(a, pos)
	}
	return withPosition(mapMoves(a, frame.FromCanonical), pos)
}

// mapMoves is a with its best moves and moves mapped by f (in fresh
// slices; a move that does not parse is kept as it is).
func mapMoves(a PolyominoAnswer, f func(polyomino.Move) polyomino.Move) PolyominoAnswer {
	each := func(s string) string {
		if m, err := polyomino.ParseMove(s); err == nil {
			return f(m).String()
		}
		return s
	}
	out := a
	out.BestMoves = make([]string, len(a.BestMoves))
	for i, m := range a.BestMoves {
		out.BestMoves[i] = each(m)
	}
	if a.Moves != nil {
		out.Moves = make([]PolyominoMove, len(a.Moves))
		for i, m := range a.Moves {
			m.Move = each(m.Move)
			out.Moves[i] = m
		}
	}
	return out
}

// withPosition fills in what belongs to the position rather than to its
// class of congruent positions.
func withPosition(a PolyominoAnswer, pos *polyomino.Position) PolyominoAnswer {
	a.Config = pos.Game().Config()
	a.Settings = settingsOf(pos)
	a.Board = pos.Board()
	a.ToMove = pos.ToMove().String()
	a.Scores = pos.Scores()
	a.ScoreRule = a.Config.EndRule == polyomino.ScoreRule
	if a.Config.Pool {
		a.PiecesLeft = PiecesLeft{Pool: nonNil(pos.Available(polyomino.First))}
	} else {
		a.PiecesLeft = PiecesLeft{First: nonNil(pos.Available(polyomino.First)), Second: nonNil(pos.Available(polyomino.Second))}
	}
	return a
}

// final: a cached polyomino or capture answer is proven, with its every
// best move or (partial) some.
func (a *PolyominoAnswer) final() bool {
	return a.Proven && a.Outcome != "" && (a.BestComplete || a.partial())
}

// partial: a proven answer without all_moves whose best moves are not all
// known (the budget ran out finding them, or a job's unit stopped at the
// first winning move). The cache keeps it (keptAnswer) with
// BestTriedNs; a request whose budget is more than twice that long tries
// to complete it (completeBest), or for the capture variant, searches
// again (serves).
func (a *PolyominoAnswer) partial() bool {
	return a.Proven && !a.BestComplete && !a.Heuristic && len(a.Moves) == 0 && len(a.BestMoves) > 0
}

// Size is how many moves the answer lists, in moves or best_moves (a
// lost position's best moves are all its moves): what the assembly gate
// weighs.
func (a PolyominoAnswer) Size() int { return max(len(a.Moves), len(a.BestMoves)) }

// rank (budgetedAnswer) orders the answers of a position by what they
// know, most telling first: a proven value; every best move; in a partial
// answer, how many best moves; how many moves have a proven value
// (all_moves); the position's plies; how many moves have plies.
func (a *PolyominoAnswer) rank() []int {
	valued, timed := 0, 0
	for _, m := range a.Moves {
		if m.Proven {
			valued++
		}
		if m.Plies != nil {
			timed++
		}
	}
	found := 0
	if a.partial() {
		found = len(a.BestMoves)
	}
	return []int{b2i(a.Proven), b2i(a.BestComplete), found, valued, b2i(a.Plies != nil), timed}
}

// b2i is 1 for true, 0 for false.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// serves: a cached answer serves a request of this budget, unless it is
// a capture answer, partial or without plies (capturePliesMissing), and
// the budget more than twice as long as its search (the capture variant
// has no completeBest: the longer budget searches again, and its answer
// replaces this one unless it knows less, rank; one proven without plies
// is completed by a length search alone, completeCapturePlies).
func (a *PolyominoAnswer) serves(budget time.Duration) bool {
	switch {
	case !a.Capture:
		return true
	case a.partial() && int64(budget) > 2*a.BestTriedNs:
		return false
	}
	return !a.capturePliesMissing() || int64(budget)/2 <= a.LengthTriedNs
}
