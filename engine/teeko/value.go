package teeko

import "fmt"

// Outcome is the result of a position under perfect play, in absolute
// colours.
type Outcome uint8

const (
	Draw Outcome = iota
	BlackWins
	RedWins
)

// String returns "draw", "black_wins" or "red_wins", the API's words.
func (o Outcome) String() string {
	switch o {
	case BlackWins:
		return "black_wins"
	case RedWins:
		return "red_wins"
	}
	return "draw"
}

// Winner returns the winning colour, NoColor for a draw.
func (o Outcome) Winner() Color {
	switch o {
	case BlackWins:
		return Black
	case RedWins:
		return Red
	}
	return NoColor
}

// WinFor returns the outcome in which c wins.
func WinFor(c Color) Outcome {
	switch c {
	case Black:
		return BlackWins
	case Red:
		return RedWins
	}
	return Draw
}

// Value is the value of a position under perfect play: who wins, and in how
// many plies counting the winning ply itself ("wins in 1" completes a
// configuration with the next ply). Plies is 0 when the game is already over
// and for a draw, where it has no meaning.
type Value struct {
	Outcome Outcome
	Plies   int
}

// String returns e.g. "black wins in 5", "red has won", "draw".
func (v Value) String() string {
	if v.Outcome == Draw {
		return "draw"
	}
	if v.Plies == 0 {
		return fmt.Sprintf("%s has won", v.Outcome.Winner())
	}
	return fmt.Sprintf("%s wins in %d", v.Outcome.Winner(), v.Plies)
}

// Result is a value seen by one player.
type Result uint8

const (
	ResultDraw Result = iota
	Win
	Loss
)

// String returns "win", "loss" or "draw", the API's words.
func (r Result) String() string {
	switch r {
	case Win:
		return "win"
	case Loss:
		return "loss"
	}
	return "draw"
}

// ResultFor returns the value as seen by player c.
func (v Value) ResultFor(c Color) Result {
	switch v.Outcome.Winner() {
	case NoColor:
		return ResultDraw
	case c:
		return Win
	}
	return Loss
}

// score orders values for player c: higher is better. Fastest win first,
// then draws, then the slowest loss.
func (v Value) score(c Color) int {
	switch v.ResultFor(c) {
	case Win:
		return 1000 - v.Plies
	case Loss:
		return -1000 + v.Plies
	}
	return 0
}

// decodeValue turns a value byte, seen by mover, into a Value.
func decodeValue(b uint8, mover Color) Value {
	if b == 0 {
		return Value{Outcome: Draw}
	}
	n := int(b) - 1
	if n%2 == 1 {
		return Value{Outcome: WinFor(mover), Plies: n}
	}
	return Value{Outcome: WinFor(mover.Other()), Plies: n}
}
