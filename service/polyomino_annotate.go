package service

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/gamesolver/gamesolver/engine/capture"
	"github.com/gamesolver/gamesolver/engine/polyomino"
)

// MaxAnnotatedMoves bounds the games annotate takes: each position is
// analyzed (a Pentominoes game has at most 12 moves, a hexomino game 35;
// a capture game may go on longer).
const MaxAnnotatedMoves = 200

// annotateGrace is what an annotation may take beyond its budget: each
// position's set-up, and waits for a solver slot.
var annotateGrace = 2 * time.Second // a variable: tests shorten it

// Annotating a polyomino game: every position of the game analyzed (as
// analyze does, with all_moves), the last first, within one budget, and
// each move marked as RULES.md marks a Teeko game's.

// PolyominoPlyValue is a position's value for one player: the one who
// moves in it (before a move) or who just moved (after it).
type PolyominoPlyValue struct {
	// Outcome for that player: win, loss, draw or unknown.
	Outcome string
	Proven  bool
	// Plies the game lasts from the position under perfect play, when
	// known.
	Plies *int
	// Score rule: the final score difference for that player, when proven.
	Score *int
	// signed: the value for that player (normal play +1 or -1, the score
	// rule's difference), when proven.
	signed int
}

// PolyominoAnnotatedPly is one move of an annotated game.
type PolyominoAnnotatedPly struct {
	Ply    int
	Player string // who made the move: first or second
	Move   string
	// Mark: "!", "!!", "?=", "??", "???" or "" (RULES.md), from what the
	// analysis proved ("" when it proved too little to say).
	Mark          string
	Before, After PolyominoPlyValue
	// The best moves of the position before the move, as analyze gives
	// them, and whether they are all of them.
	BestMoves    []string
	BestComplete bool
	// IsBest: the move is proven to reach the position's best value.
	IsBest bool
	// AfterPass: the other player, to move before this ply, was stuck
	// and passed (the score rule): Before is the position with Player to
	// move.
	AfterPass bool
}

// PolyominoAnnotation is an annotated game.
type PolyominoAnnotation struct {
	Plies []PolyominoAnnotatedPly
	// Final is the analysis of the position after the last move.
	Final PolyominoAnswer
	// Nodes the searches made; Elapsed the annotation's time.
	Nodes   int64
	Elapsed time.Duration
	// Source: where the analyses come from (annotationSource).
	Source string
	// Unanalyzed counts the positions left unknown: the annotation's
	// time was spent, or no solver slot was free.
	Unanalyzed int
}

// Annotate analyzes every position of the game q describes (its board,
// or the start, with q's to_move moving first there, then its moves) with
// all_moves, the last position first (its answer is cached, and the one
// before takes it as its played move's value), each with an equal share
// of what is left of q's budget (at least a millisecond), and marks each
// move. Under the score rule a stuck player passes: the next move is the
// other's, as in Position.Play.
func (p *Polyomino) Annotate(ctx context.Context, q PolyominoQuery) (PolyominoAnnotation, error) {
	start := time.Now()
	if err := checkBudget(q.BudgetMs); err != nil {
		return PolyominoAnnotation{}, err
	}
	switch {
	case len(q.Moves) == 0:
		return PolyominoAnnotation{}, Invalid("moves", nil, "moves is empty: give the game's moves (from board, or from the start), e.g. [\"L:a1,a2,a3,a4,b4\"]")
	case len(q.Moves) > MaxAnnotatedMoves:
		return PolyominoAnnotation{}, Invalid("moves", nil, "a game of %d moves: annotate takes at most %d (each position is analyzed)", len(q.Moves), MaxAnnotatedMoves)
	}
	n := len(q.Moves)
	// The positions, each a move's (before it) and the last, replayed from
	// the first: a bad move is refused before any search.
	var positions []*polyomino.Position
	var last *capture.Position // the capture variant's final position
	var analyze func(ctx context.Context, i int, pq PolyominoQuery) (PolyominoAnswer, error)
	if q.isCapture() {
		// The capture variant's positions carry their history (the
		// repetition rule): each is the game's moves up to it.
		// to_move names the first mover; turns alternate (the capture
		// variant has no passes), and a capture request's to_move is the
		// player to move after its moves.
		after := func(i int, pq PolyominoQuery) PolyominoQuery {
			pq.Moves = q.Moves[:i]
			if i%2 == 1 && q.ToMove != "" {
				pq.ToMove = otherPlayer(q.ToMove)
			}
			return pq
		}
		var err error
		if last, err = after(n, q).requestCapturePosition(ctx); err != nil {
			return PolyominoAnnotation{}, err
		}
		analyze = func(ctx context.Context, i int, pq PolyominoQuery) (PolyominoAnswer, error) {
			return p.Analyze(ctx, after(i, pq))
		}
	} else {
		first := q
		first.Moves = nil
		pos, err := first.requestPosition(ctx)
		if err != nil {
			return PolyominoAnnotation{}, err
		}
		positions = append(positions, pos)
		for i, s := range q.Moves {
			m, err := polyomino.ParseMove(s)
			if err == nil {
				pos, err = pos.Play(m)
			}
			if err != nil {
				return PolyominoAnnotation{}, InvalidMove("moves", i, err, "move %d (%s): %v", i+1, s, err)
			}
			positions = append(positions, pos)
		}
		analyze = func(ctx context.Context, i int, pq PolyominoQuery) (PolyominoAnswer, error) {
			pos := moverPosition(positions, i)
			if i < n {
				// The position after the move played was analyzed and
				// cached just before: its search takes it (knownChildren).
				p.search.markChildren(ctx, pos)
			}
			return p.analyzePosition(ctx, pq, pos)
		}
	}
	budget := p.search.Budgets.Clamp(q.BudgetMs)
	// One deadline for the whole annotation: its budget, and a grace for
	// the positions' set-up (each waits for a solver slot, and builds its
	// answer); a position it leaves no time for, or finds no slot free
	// for, is left unknown, the work done kept.
	actx, cancel := context.WithTimeout(ctx, budget+annotateGrace)
	defer cancel()
	answers := make([]PolyominoAnswer, n+1)
	out := PolyominoAnnotation{Plies: make([]PolyominoAnnotatedPly, n)}
	unknown := func(i int) PolyominoAnswer {
		a := PolyominoAnswer{Outcome: string(polyomino.OutcomeUnknown), BestMoves: []string{}}
		switch {
		case positions != nil:
			a = withPosition(a, moverPosition(positions, i))
		case i == n:
			a = withCapturePosition(a, last)
		default:
			a.ToMove = otherPlayer(answers[i+1].ToMove) // capture turns alternate
		}
		return a
	}
	for i := n; i >= 0; i-- {
		// Each search and big answer takes the assembly gate afresh: the
		// place an earlier answer took is not held through the searches.
		PauseAssembly(ctx)
		pq := q
		pq.AllMoves, pq.Background = i < n, false
		pq.allMovesIfFew = true // the capture variant's: the move played is valued by the position after it
		share := max((budget-time.Since(start))/time.Duration(i+1), time.Millisecond)
		pq.BudgetMs = share.Milliseconds()
		var a PolyominoAnswer
		err := actx.Err()
		if err == nil {
			a, err = analyze(actx, i, pq)
		}
		switch {
		case err == nil:
		case ctx.Err() != nil:
			return PolyominoAnnotation{}, ctx.Err() // the client left
		case actx.Err() != nil || KindOf(err) == KindBusy || errors.Is(err, context.DeadlineExceeded):
			// No time left, or no slot free within the position's.
			a = unknown(i)
			out.Unanalyzed++
		default:
			return PolyominoAnnotation{}, err
		}
		answers[i] = a
		if i < n {
			out.Plies[i] = annotatePly(i+1, q.Moves[i], answers[i], answers[i+1])
			out.Plies[i].AfterPass = positions != nil && positions[i].MustPass()
			if i+1 < n {
				answers[i+1].Moves = nil // marked: not needed any more
			}
		}
	}
	out.Final = answers[n]
	out.Source = annotationSource(answers)
	for _, a := range answers {
		// This request's searches (as analyze's stats count them).
		if a.Source == SourceSearch {
			out.Nodes += a.Nodes
		} else {
			out.Nodes += a.SpentNodes
		}
	}
	out.Elapsed = time.Since(start)
	return out, nil
}

// annotationSource is where the analyses of an annotation come from:
// search when one position was searched (the heuristic player's answer
// after a search that proved nothing included), else cache when one came
// from the cache, else book when one came from the book, else heuristic
// (the heuristic player's moves alone, no search: positions beyond it);
// search too when every position was left unknown (the search had no
// time or slot). Positions left unknown have no source.
func annotationSource(answers []PolyominoAnswer) string {
	names := []string{SourceSearch, SourceCache, SourceBook, SourceHeuristic}
	best := len(names)
	for _, a := range answers {
		r := slices.Index(names, a.Source)
		if a.Source == SourceSearch && a.Heuristic && !a.Proven && a.Nodes == 0 {
			r = len(names) - 1
		}
		if r >= 0 {
			best = min(best, r)
		}
	}
	if best == len(names) {
		return SourceSearch
	}
	return names[best]
}

// moverPosition is positions[i] as its move's player has it: when the
// player to move is stuck (the score rule), he passes and the move is the
// other's. The last position is as it is.
func moverPosition(positions []*polyomino.Position, i int) *polyomino.Position {
	pos := positions[i]
	if i < len(positions)-1 && pos.MustPass() {
		pos = pos.Children()[0].Position
	}
	return pos
}

// annotatePly is the ply-th move, played in the position of answer a
// (all_moves), leading to the position of answer next.
func annotatePly(ply int, move string, a, next PolyominoAnswer) PolyominoAnnotatedPly {
	out := PolyominoAnnotatedPly{Ply: ply, Player: a.ToMove, Move: move, BestMoves: nonNil(a.BestMoves), BestComplete: a.Proven && a.BestComplete,
		Before: plyValue(a.Outcome, a.Proven, a.Value, a.Plies, a.ScoreRule)}
	// The move as analyze writes it (canonical notation) in a's list.
	played, ok := playedMove(a, move)
	if played.Move != "" {
		out.Move = played.Move
	}
	// After: the next position's value, from the side of the player who
	// moved (the next player's, turned over; after a pass in the score
	// rule the mover moves again, and it is his own).
	switch {
	case next.Proven && next.ToMove == a.ToMove && !next.Over:
		out.After = plyValue(next.Outcome, true, next.Value, next.Plies, next.ScoreRule)
	case next.Proven:
		out.After = plyValue(turned(next.Outcome), true, -next.Value, next.Plies, next.ScoreRule)
	case ok && played.Proven:
		out.After = plyValue(played.Outcome, true, played.Value, played.Plies, a.ScoreRule)
	default:
		out.After = PolyominoPlyValue{Outcome: string(polyomino.OutcomeUnknown)}
	}
	if !a.Proven || !out.After.Proven {
		return out
	}
	mv, best := out.After, out.Before
	out.IsBest = mv.signed == best.signed
	switch {
	case best.Outcome == "win" && mv.Outcome == "loss":
		out.Mark = "???"
	case best.Outcome == "win" && mv.Outcome == "draw":
		out.Mark = "?="
	case best.Outcome == "draw" && mv.Outcome == "loss":
		out.Mark = "??"
	case mv.Outcome != "loss" && onlyNotLosing(a, played.Move):
		out.Mark = "!!"
	case out.IsBest && uniqueBest(a, played.Move):
		out.Mark = "!"
	}
	return out
}

// plyValue is a value for the player concerned: outcome, value (a score
// difference under the score rule), plies.
func plyValue(outcome string, proven bool, value int, plies *int, score bool) PolyominoPlyValue {
	v := PolyominoPlyValue{Outcome: outcome, Proven: proven, Plies: plies}
	if !proven {
		v.Outcome = string(polyomino.OutcomeUnknown)
		v.Plies = nil
		return v
	}
	if score {
		v.Score = &value
	}
	v.signed = signedValue(outcome, value, score)
	return v
}

// signedValue is a value for its player: under the score rule the score
// difference, else the outcome's sign (win +1, loss -1, draw 0: capture
// answers carry no value).
func signedValue(outcome string, value int, score bool) int {
	switch {
	case score:
		return value
	case outcome == "win":
		return 1
	case outcome == "loss":
		return -1
	}
	return 0
}

// turned is an outcome for the other player.
func turned(outcome string) string {
	switch outcome {
	case "win":
		return "loss"
	case "loss":
		return "win"
	}
	return outcome
}

// playedMove is the row of a's moves for move (in any notation the
// game reads: a capture turn's too), when a lists it.
func playedMove(a PolyominoAnswer, move string) (PolyominoMove, bool) {
	var s string
	if a.Capture {
		t, err := capture.ParseTurn(move)
		if err != nil {
			return PolyominoMove{}, false
		}
		s = t.String()
	} else {
		m, err := polyomino.ParseMove(move)
		if err != nil {
			return PolyominoMove{}, false
		}
		s = m.String()
	}
	i := slices.IndexFunc(a.Moves, func(r PolyominoMove) bool { return r.Move == s })
	if i < 0 {
		return PolyominoMove{Move: s}, false
	}
	return a.Moves[i], true
}

// onlyNotLosing: every move of a but move is proven to lose (a forced
// move too, as Teeko's annotation reads the rule).
func onlyNotLosing(a PolyominoAnswer, move string) bool {
	if len(a.Moves) != a.LegalMoves || len(a.Moves) == 0 {
		return false
	}
	for _, r := range a.Moves {
		if r.Move != move && (!r.Proven || signedValue(r.Outcome, r.Value, a.ScoreRule) >= 0) {
			return false
		}
	}
	return true
}

// uniqueBest: move alone reaches a's value, the fastest win (the slowest
// loss) when the value is a win (a loss) and every such move's plies are
// known; under the score rule the only move of the best score. A drawing
// move is never unique; a forced move that loses is (as Teeko's).
func uniqueBest(a PolyominoAnswer, move string) bool {
	if len(a.Moves) != a.LegalMoves || len(a.Moves) == 0 {
		return false
	}
	value := func(r PolyominoMove) int { return signedValue(r.Outcome, r.Value, a.ScoreRule) }
	var mine *PolyominoMove
	for i, r := range a.Moves {
		if !r.Proven {
			return false
		}
		if r.Move == move {
			mine = &a.Moves[i]
		}
	}
	if mine == nil || value(*mine) == 0 {
		return false
	}
	for _, r := range a.Moves {
		if r.Move == move || value(r) != value(*mine) {
			continue
		}
		if a.ScoreRule {
			return false // another move as good
		}
		if r.Plies == nil || mine.Plies == nil {
			return false // which is fastest (slowest) is unknown
		}
		if *r.Plies == *mine.Plies || (value(*mine) > 0) == (*r.Plies < *mine.Plies) {
			return false // another as fast (slow), or faster (slower)
		}
	}
	return true
}
