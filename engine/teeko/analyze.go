package teeko

import (
	"slices"
)

// MoveValue is a legal move with the value of the position it leads to.
type MoveValue struct {
	Move Move
	// Value is the value after the move: Plies counts the plies left after
	// it.
	Value Value
	// Result is Value seen by the player who decides the move.
	Result Result
}

// Analysis is everything the tablebase knows about a position.
type Analysis struct {
	Position  Position
	DropStyle DropStyle
	Phase     Phase
	// ToMove is the colour whose piece is dropped or slid next; Decides the
	// player who chooses the move (they differ in some drop styles).
	ToMove, Decides Color
	// Value is the value of the position under perfect play; Result is that
	// value seen by Decides.
	Value  Value
	Result Result
	// Over is true when the game has already ended: then Value.Plies is 0
	// and there are no moves.
	Over bool
	// Moves lists every legal move, best first for Decides: fastest win,
	// then draws, then slowest loss; moves of equal value in notation order.
	Moves []MoveValue
	// BestMoves lists every move reaching the best value, ties included (in
	// a drawn position, every drawing move), in notation order.
	BestMoves []Move
}

// Analyze returns the value of a position and of each of its legal moves.
func (tb *Tablebase) Analyze(pos Position, style DropStyle) (Analysis, error) {
	if err := tb.check(pos, style); err != nil {
		return Analysis{}, err
	}
	return tb.analyze(pos, style), nil
}

func (tb *Tablebase) analyze(pos Position, style DropStyle) Analysis {
	a := Analysis{
		Position: pos, DropStyle: style, Phase: pos.Phase(),
		ToMove: pos.ToMove(), Decides: pos.Decides(style),
		Value: tb.value(pos, style),
	}
	a.Result = a.Value.ResultFor(a.Decides)
	if _, over := pos.Over(); over {
		a.Over = true
		return a
	}
	var buf [4 * 8]Move
	moves := pos.AppendLegalMoves(buf[:0])
	a.Moves = make([]MoveValue, len(moves))
	for i, m := range moves {
		v := tb.value(pos.playLegal(m), style)
		a.Moves[i] = MoveValue{Move: m, Value: v, Result: v.ResultFor(a.Decides)}
	}
	slices.SortStableFunc(a.Moves, func(x, y MoveValue) int {
		return y.Value.score(a.Decides) - x.Value.score(a.Decides)
	})
	best := a.Moves[0].Value.score(a.Decides)
	for _, mv := range a.Moves {
		if mv.Value.score(a.Decides) == best {
			a.BestMoves = append(a.BestMoves, mv.Move)
		}
	}
	return a
}

// Mark is the annotation of a ply, as in the rules' table.
type Mark string

const (
	// NoMark: any other move, including a best move among several.
	NoMark Mark = ""
	// UniqueBest: the only fastest win, or the only slowest loss; never a
	// drawing move.
	UniqueBest Mark = "!"
	// OnlySaving: the only move that does not lose (takes precedence over
	// UniqueBest). Taken literally, this includes a forced move (the only
	// legal one) that does not lose.
	OnlySaving Mark = "!!"
	// WinToDraw: a won position was turned into a draw.
	WinToDraw Mark = "?="
	// DrawToLoss: a drawn position was turned into a loss.
	DrawToLoss Mark = "??"
	// WinToLoss: a won position was turned into a loss.
	WinToLoss Mark = "???"
)

// markFor returns the mark of the move played, given the analysis of the
// position before it. A forced move (the only legal one) is marked like any
// other: if it does not lose, it is the only move that does not lose.
func markFor(a Analysis, played MoveValue) Mark {
	if played.Result != Loss {
		saving := 0
		for _, mv := range a.Moves {
			if mv.Result != Loss {
				saving++
			}
		}
		if saving == 1 {
			return OnlySaving
		}
	}
	if len(a.BestMoves) == 1 && a.BestMoves[0] == played.Move && played.Result != ResultDraw {
		return UniqueBest
	}
	switch {
	case a.Result == Win && played.Result == ResultDraw:
		return WinToDraw
	case a.Result == ResultDraw && played.Result == Loss:
		return DrawToLoss
	case a.Result == Win && played.Result == Loss:
		return WinToLoss
	}
	return NoMark
}

// AnnotatedPly is one ply of an annotated game.
type AnnotatedPly struct {
	// Ply numbers the plies from 1.
	Ply int
	// Player owns the piece dropped or slid; Decides chose the move.
	Player, Decides Color
	Move            Move
	Mark            Mark
	// Before is the value of the position before the ply, which is also the
	// value the best moves keep; After the value after the move played.
	Before, After Value
	// BestMoves are the moves that keep the best value (ties included), in
	// notation order; IsBest tells whether the move played is one of them.
	BestMoves []Move
	IsBest    bool
}

// Annotate replays a game from the empty board and marks each ply as the
// rules' annotation table says, for the player who decides it. Errors name
// the move (1-based) that is wrong.
func (tb *Tablebase) Annotate(style DropStyle, moves []string) ([]AnnotatedPly, error) {
	if !style.valid() {
		return nil, errorf(ErrBadDropStyle, "unknown drop style %d", style)
	}
	plies, _, err := playGame(tb.rules, moves)
	if err != nil {
		return nil, err
	}
	out := make([]AnnotatedPly, len(plies))
	for i, p := range plies {
		a := tb.analyze(p.before, style)
		var played MoveValue
		for _, mv := range a.Moves {
			if mv.Move == p.move {
				played = mv
			}
		}
		out[i] = AnnotatedPly{
			Ply: i + 1, Player: a.ToMove, Decides: a.Decides, Move: p.move,
			Mark: markFor(a, played), Before: a.Value, After: played.Value,
			BestMoves: a.BestMoves, IsBest: slices.Contains(a.BestMoves, p.move),
		}
	}
	return out, nil
}
