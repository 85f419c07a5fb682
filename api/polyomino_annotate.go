package api

import (
	"github.com/gin-gonic/gin"

	"github.com/gamesolver/gamesolver/service"
)

// PolyominoPlyValue is a position's value for the player who makes (or
// made) the ply's move.
type PolyominoPlyValue struct {
	// Outcome in absolute terms.
	Outcome string `json:"outcome" enums:"first_wins,second_wins,draw,unknown" example:"first_wins"`
	// Result for the player who makes the ply's move.
	Result string `json:"result" enums:"win,loss,draw,unknown" example:"win"`
	Proven bool   `json:"proven" example:"true"`
	// Plies the game lasts from the position under perfect play, when the
	// analysis found them (as analyze's plies); null otherwise.
	Plies *int `json:"plies" example:"5" extensions:"x-nullable"`
	// Score rule: the final score difference for the player who makes
	// the ply's move, when proven.
	Score *int `json:"score,omitempty" example:"1"`
}

// PolyominoAnnotatedPly is one move of an annotated game.
type PolyominoAnnotatedPly struct {
	Ply int `json:"ply" example:"1"`
	// Who made the move (under the score rule a stuck player passes: the
	// next move is the other's).
	Player string `json:"player" enums:"first,second" example:"first"`
	// The move, in canonical notation (capture turns as given).
	Move string `json:"move" example:"L:c4,d4,e4,f4,c5"`
	// Annotation mark, as RULES.md marks a Teeko game's: "!" the unique
	// best move (the only fastest win, or the only slowest loss: every
	// such move's plies known; under the score rule the only move of the
	// best score; never a drawing move), "!!" the only move that does not
	// lose (takes precedence), "?=" a won position turned into a draw,
	// "??" a drawn position into a loss, "???" a won position into a
	// loss, "" any other move, or one the analysis proved too little of
	// to say. As Teeko's annotation reads the table, a forced move (the
	// only legal one) that does not lose is "!!", one that loses "!".
	// (Not an enum in the document: client generators name an enum's
	// values after them, and punctuation gives names that clash.)
	Mark string `json:"mark" example:"!"`
	// The position before the move, for the player who made it.
	Before PolyominoPlyValue `json:"before"`
	// The position after the move, for the player who made it (its plies
	// counted from the next ply).
	After PolyominoPlyValue `json:"after"`
	// The best moves of the position before the move, as analyze gives
	// them (every winning move; in a lost position every move).
	BestMoves []string `json:"best_moves"`
	// True when best_moves holds every best move.
	BestComplete bool `json:"best_complete" example:"true"`
	// True when the move is proven to reach the position's best value.
	IsBest bool `json:"is_best" example:"true"`
	// True when the other player, to move before this ply, was stuck and
	// passed (the score rule): before is then the position with player to
	// move, where analyze of the position as the moves leave it answers
	// for the stuck player (pass true), with the score turned over.
	AfterPass bool `json:"after_pass" example:"false"`
}

// PolyominoAnnotation is an annotated game.
type PolyominoAnnotation struct {
	Game string `json:"game" example:"pentominoes"`
	// The game's settings in full, as analyze gives them.
	Config PolyominoConfig         `json:"config"`
	Plies  []PolyominoAnnotatedPly `json:"plies"`
	// The analysis of the position after the last move.
	Final PolyominoAnalysis `json:"final"`
	// Positions left unknown (their plies unmarked): the annotation's
	// time (budget_ms and 2 s) was spent, or no solver slot was free
	// within it.
	Unanalyzed int `json:"unanalyzed" example:"0"`
	// Where the analyses come from: search when the annotation searched a
	// position (even one its search did not prove), else cache when one
	// came from the cache, else book (the embedded Pentominoes book), else
	// heuristic (the heuristic player's moves alone, on positions beyond
	// the search); search too when every position was left unknown.
	Source string `json:"source" enums:"search,cache,book,heuristic" example:"search"`
	// The annotation's time, and the nodes its searches made (those of
	// answers from the cache or the book not counted).
	Stats Stats `json:"stats"`
}

// polyominoAnnotate godoc
//
//	@Summary		Annotate a polyomino game
//	@Description	Analyzes every position of a game (the board given, or the start, then each move of `moves`) as analyze does with `all_moves`, the last position first, each with an equal share of what is left of `budget_ms` (at least a millisecond each, besides each position's own set-up of 10 to 40 ms; at most 200 moves); the whole annotation takes at most `budget_ms` and 2 s (the set-ups, waits for a solver slot): a position it has no time left for, or no solver slot free for, is left unknown and counted in `unanalyzed`, the others kept, and marks each move as RULES.md marks a Teeko game's: `!` the unique best move (the only fastest win or the only slowest loss, when every such move's plies are known; under the score rule the only move of the best score; never a drawing move), `!!` the only move that does not lose (takes precedence), `?=` a won position turned into a draw, `??` a drawn position into a loss, `???` a won position into a loss, empty otherwise, or when the analysis proved too little to say; as Teeko's annotation reads the table, a forced move that does not lose is `!!`, one that loses `!`. Each ply gives the position's value before and after the move for the player who made it, and the best moves. Every position's proven answer that took a search of 20 ms or more is cached (as analyze's): annotating the game again, or analyzing one of its positions, answers from the cache, and a search of an annotated position takes the positions after its moves the cache holds (so the last positions, analyzed first, serve the earlier ones). `to_move` names who makes the first move of `moves` (default: from the pieces placed); under the score rule a player who cannot place passes and the next move is the other's. `all_moves` and `background` are ignored. Answers as analyze does when a search slot is not free (503).
//	@Tags			polyomino
//	@Accept			json
//	@Produce		json,application/problem+json
//	@Param			request	body		PolyominoRequest	true	"the game: its settings, its start (board, or none) and its moves"
//	@Success		200		{object}	PolyominoAnnotation
//	@Failure		400		{object}	Problem	"bad configuration, board or move (the problem names it)"
//	@Failure		503		{object}	Problem	"every solver slot busy, or too many new game configurations waiting to be built: retry after Retry-After"
//	@Failure		413		{object}	Problem	"body over the size limit"
//	@Failure		408		{object}	Problem	"the body did not arrive within the server's read timeout (Connection: close)"
//	@Failure		415		{object}	Problem	"Content-Type is not application/json"
//	@Failure		429		{object}	Problem	"rate limit exceeded, or --max-client-requests requests of this client in flight (Retry-After given)"
//	@Header			all		{string}	X-Request-ID	"the request's id: the client's X-Request-ID when it sent a valid one, else a new one; in the logs and in every problem"
//	@Header			all		{integer}	X-RateLimit-Limit	"requests allowed to this client per period (when the server limits rates)"
//	@Header			all		{integer}	X-RateLimit-Remaining	"requests left in the period (when the server limits rates)"
//	@Header			all		{integer}	X-RateLimit-Reset	"Unix time (s) at which the period ends (when the server limits rates)"
//	@Header			429,503	{integer}	Retry-After	"seconds to wait before retrying"
//	@ID				annotatePolyomino
//	@Router			/v1/polyomino/annotate [post]
func (h *handlers) polyominoAnnotate(c *gin.Context) {
	var req PolyominoRequest
	if !decodeJSON(c, &req) {
		return
	}
	ctx, done := service.HoldAssembly(c.Request.Context())
	defer done()
	a, err := h.deps.Polyomino.Annotate(ctx, fromPolyominoRequest(req))
	if err != nil {
		fail(c, err)
		return
	}
	out := PolyominoAnnotation{Game: a.Final.Config.Preset, Config: polyominoConfig(a.Final.Settings), Plies: make([]PolyominoAnnotatedPly, len(a.Plies)),
		Final: toPolyominoAnalysis(a.Final, false), Unanalyzed: a.Unanalyzed, Source: a.Source, Stats: Stats{ElapsedMs: ms(a.Elapsed)}}
	nodes := a.Nodes
	out.Stats.Nodes = &nodes
	for i, p := range a.Plies {
		out.Plies[i] = PolyominoAnnotatedPly{Ply: p.Ply, Player: p.Player, Move: p.Move, Mark: p.Mark,
			Before: plyValueOf(p.Before, p.Player), After: plyValueOf(p.After, p.Player),
			BestMoves: p.BestMoves, BestComplete: p.BestComplete, IsBest: p.IsBest, AfterPass: p.AfterPass}
	}
	n := 0
	for _, p := range out.Plies {
		n += len(p.BestMoves)
	}
	h.assembled(ctx, c, n, func() any { return out })
}

// plyValueOf is v, a value for player, as the API gives it.
func plyValueOf(v service.PolyominoPlyValue, player string) PolyominoPlyValue {
	result := polyResult(v.Outcome, v.Proven)
	return PolyominoPlyValue{Outcome: polyOutcome(result, player), Result: result, Proven: v.Proven, Plies: v.Plies, Score: v.Score}
}
