package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/gamesolver/gamesolver/engine/teeko"
	"github.com/gamesolver/gamesolver/service"
)

// TeekoAnalyzeRequest is a Teeko position: a board (with to_move when all
// eight pieces are down and the game is not over), or black and red square
// lists, or the moves from the empty board; none of them for the empty
// board.
type TeekoAnalyzeRequest struct {
	// Rule set: standard (44 configurations) or advanced (58).
	Rules string `json:"rules" enums:"standard,advanced" default:"standard" example:"standard"`
	// Drop style: decides who chooses the square of each drop.
	DropStyle string `json:"drop_style" enums:"standard,alternate,one-move-alternate,two-move-alternate,three-move-alternate,one-move-standard,two-move-standard,three-move-standard" default:"standard" example:"standard"`
	// 25 characters for squares 1..25 in reading order: b, r or '.'.
	Board *string `json:"board" example:"...........br.rb.r.b..b.."`
	// Black's square numbers 1..25 (with red), instead of board.
	Black []int `json:"black" example:"12,16,20,23"`
	// Red's square numbers 1..25 (with black), instead of board.
	Red []int `json:"red" example:"13,15,18"`
	// The game so far from the empty board, instead of board: drops as
	// the square ("13"), slides as from-to ("14-9").
	Moves []string `json:"moves" example:"13,7,12"`
	// Side to move, black or red (b or r too, as a board writes them);
	// required only with all eight pieces down and neither side on a
	// winning configuration (a finished game: the loser is to move).
	ToMove string `json:"to_move" enums:"black,red,b,r" example:"red"`
}

// TeekoMove is one legal move with its own value.
type TeekoMove struct {
	Move    string `json:"move" example:"8"`
	Outcome string `json:"outcome" enums:"black_wins,red_wins,draw" example:"red_wins"`
	// Plies left after this move under perfect play (null for a draw).
	Plies *int `json:"plies" example:"4" extensions:"x-nullable"`
	// Result for the player who decides this ply.
	Result string `json:"result" enums:"win,loss,draw" example:"win"`
}

// Stats says what answering cost.
type Stats struct {
	// Time of the work this request did: its search; for an answer from
	// the cache 0, or the time (with nodes) of a search the request ran
	// to complete it (plies, best moves); for one from the book its
	// look-up, and a length search's time and nodes when one ran.
	ElapsedMs float64 `json:"elapsed_ms" example:"0.05"`
	// Nodes searched, where a search ran.
	Nodes *int64 `json:"nodes,omitempty" example:"123456"`
}

// TeekoAnalysis is the value of a position and of every legal move.
type TeekoAnalysis struct {
	Rules     string `json:"rules" example:"standard"`
	DropStyle string `json:"drop_style" example:"standard"`
	Board     string `json:"board" example:"...........br.rb.r.b..b.."`
	Phase     string `json:"phase" enums:"drop,move" example:"drop"`
	// Whose piece is placed or moved this ply.
	ToMove string `json:"to_move" enums:"black,red" example:"red"`
	// Who chooses this ply's move (differs from to_move in the drop phase
	// of the alternate drop styles).
	Decides string `json:"decides" enums:"black,red" example:"red"`
	Outcome string `json:"outcome" enums:"black_wins,red_wins,draw" example:"red_wins"`
	// Plies to the end under perfect play counting the winning move; null
	// for a draw, 0 when the game is already over.
	Plies *int `json:"plies" example:"5" extensions:"x-nullable"`
	// Result for the player who decides.
	Result string `json:"result" enums:"win,loss,draw" example:"win"`
	// True when a side already has a configuration.
	GameOver bool `json:"game_over" example:"false"`
	// Every move reaching the best value, ties included.
	BestMoves []string `json:"best_moves" example:"8"`
	// Every legal move, best first (fastest win, draws, slowest loss).
	Moves  []TeekoMove `json:"moves"`
	Source string      `json:"source" enums:"tablebase" example:"tablebase"`
	Stats  Stats       `json:"stats"`
}

// teekoAnalyze godoc
//
//	@Summary		Analyze a Teeko position
//	@Description	Exact value of a Teeko position from the tablebase: the outcome, the distance in plies (counting the winning move), the result for the player who decides this ply, and every legal move with its own value, best first. Give `board` (plus `to_move` when all eight pieces are down and the game is not over), or `black` and `red`, or `moves`; none for the empty board. Input is read leniently, answers are canonical: `rules`, `drop_style` and `to_move` (also `b` or `r`) in any case, spaces around them ignored, the board's letters in any case; a move's squares may have spaces around them and leading zeros (`" 14 - 09"` is `14-9`).
//	@Description	House rule: a side with no legal move loses (never happens with four pieces a side). Scarne's history-dependent rules (four-move limit, boxed-in ten-move limit) are not applied: positions are analyzed without their history.
//	@Tags			teeko
//	@Accept			json
//	@Produce		json,application/problem+json
//	@Param			request	body		TeekoAnalyzeRequest	true	"the position"
//	@Success		200		{object}	TeekoAnalysis
//	@Failure		400		{object}	Problem	"malformed or impossible position"
//	@Failure		413		{object}	Problem	"body over the size limit"
//	@Failure		408		{object}	Problem	"the body did not arrive within the server's read timeout (Connection: close)"
//	@Failure		415		{object}	Problem	"Content-Type is not application/json"
//	@Failure		503		{object}	Problem	"tablebase still building (progress given)"
//	@Failure		429		{object}	Problem	"rate limit exceeded, or --max-client-requests requests of this client in flight (Retry-After given)"
//	@Header			all		{string}	X-Request-ID	"the request's id: the client's X-Request-ID when it sent a valid one, else a new one; in the logs and in every problem"
//	@Header			all		{integer}	X-RateLimit-Limit	"requests allowed to this client per period (when the server limits rates)"
//	@Header			all		{integer}	X-RateLimit-Remaining	"requests left in the period (when the server limits rates)"
//	@Header			all		{integer}	X-RateLimit-Reset	"Unix time (s) at which the period ends (when the server limits rates)"
//	@Header			429,503	{integer}	Retry-After	"seconds to wait before retrying"
//	@ID				analyzeTeeko
//	@Router			/v1/teeko/analyze [post]
func (h *handlers) teekoAnalyze(c *gin.Context) {
	var req TeekoAnalyzeRequest
	if !decodeJSON(c, &req) {
		return
	}
	a, err := h.deps.Teeko.Analyze(c.Request.Context(), fromTeekoRequest(req))
	if err != nil {
		fail(c, err)
		return
	}
	c.JSON(http.StatusOK, toTeekoAnalysis(a.Analysis, a.Elapsed))
}

func fromTeekoRequest(r TeekoAnalyzeRequest) service.TeekoQuery {
	return service.TeekoQuery{
		Rules: r.Rules, DropStyle: r.DropStyle, Board: r.Board, Black: r.Black, Red: r.Red,
		Moves: r.Moves, HasMoves: r.Moves != nil, ToMove: r.ToMove,
	}
}

func toTeekoAnalysis(a teeko.Analysis, elapsed time.Duration) TeekoAnalysis {
	out := TeekoAnalysis{
		Rules: a.Position.Rules().String(), DropStyle: a.DropStyle.String(),
		Board: a.Position.Board().String(), Phase: a.Phase.String(),
		ToMove: a.ToMove.String(), Decides: a.Decides.String(),
		Outcome: a.Value.Outcome.String(), Plies: teekoPlies(a.Value), Result: a.Result.String(),
		GameOver: a.Over, BestMoves: teekoMoves(a.BestMoves), Moves: make([]TeekoMove, len(a.Moves)),
		Source: "tablebase", Stats: Stats{ElapsedMs: ms(elapsed)},
	}
	for i, mv := range a.Moves {
		out.Moves[i] = TeekoMove{Move: mv.Move.String(), Outcome: mv.Value.Outcome.String(), Plies: teekoPlies(mv.Value), Result: mv.Result.String()}
	}
	return out
}

// teekoPlies is null for a draw.
func teekoPlies(v teeko.Value) *int {
	if v.Outcome == teeko.Draw {
		return nil
	}
	p := v.Plies
	return &p
}

func teekoMoves(ms []teeko.Move) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.String()
	}
	return out
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// TeekoAnnotateRequest is a whole game to annotate.
type TeekoAnnotateRequest struct {
	Rules     string `json:"rules" enums:"standard,advanced" default:"standard" example:"standard"`
	DropStyle string `json:"drop_style" enums:"standard,alternate,one-move-alternate,two-move-alternate,three-move-alternate,one-move-standard,two-move-standard,three-move-standard" default:"standard" example:"standard"`
	// The whole game from the empty board: drops as the square ("13"),
	// slides as from-to ("14-9").
	Moves []string `json:"moves" binding:"required" example:"13,7,12,8,14,9,11"`
}

// TeekoValue is an outcome and its distance in plies (null for a draw).
type TeekoValue struct {
	Outcome string `json:"outcome" enums:"black_wins,red_wins,draw" example:"black_wins"`
	Plies   *int   `json:"plies" example:"5" extensions:"x-nullable"`
}

// TeekoAnnotatedPly is one ply of an annotated game.
type TeekoAnnotatedPly struct {
	Ply int `json:"ply" example:"1"`
	// Whose piece was placed or moved.
	Player string `json:"player" enums:"black,red" example:"black"`
	// Who chose the move.
	Decides string `json:"decides" enums:"black,red" example:"black"`
	Move    string `json:"move" example:"13"`
	// Annotation mark: "!" unique best, "!!" only move that does not
	// lose, "?=" win turned into a draw, "??" draw into a loss, "???" win
	// into a loss, "" otherwise: one of these six. (Not an enum in the
	// document: client generators name an enum's values after them, and
	// punctuation gives names that clash.)
	Mark   string     `json:"mark" example:"!"`
	Before TeekoValue `json:"before"`
	After  TeekoValue `json:"after"`
	// What the one who decided could have played: the best moves.
	BestMoves []string `json:"best_moves" example:"13"`
	// What the one who decided could have played: the value of the
	// position under best play, its plies counted from this ply (the
	// same as before; after, a best move's value, counts from the next).
	BestValue TeekoValue `json:"best_value"`
	// True when the move played is among the best moves.
	IsBest bool `json:"is_best" example:"true"`
}

// TeekoAnnotation is an annotated game.
type TeekoAnnotation struct {
	Rules     string              `json:"rules" example:"standard"`
	DropStyle string              `json:"drop_style" example:"standard"`
	Plies     []TeekoAnnotatedPly `json:"plies"`
	// The position after the last move.
	Final  TeekoAnalysis `json:"final"`
	Source string        `json:"source" enums:"tablebase" example:"tablebase"`
	Stats  Stats         `json:"stats"`
}

// teekoAnnotate godoc
//
//	@Summary		Annotate a Teeko game
//	@Description	Compares every move of a game with the best moves of the player who decided it and marks it as RULES.md says: `!` the unique best move (only fastest win or only slowest loss; a drawing move among several is never `!`), `!!` the only move that does not lose (takes precedence), `?=` a won position turned into a draw, `??` a drawn position into a loss, `???` a won position into a loss, empty otherwise. Each ply lists the best moves and their value (`best_value`, which is `before`: the position's value under best play, its plies counted from this ply; `after` counts from the next). Moves and names are read as by /v1/teeko/analyze (any case, spaces and leading zeros accepted).
//	@Tags			teeko
//	@Accept			json
//	@Produce		json,application/problem+json
//	@Param			request	body		TeekoAnnotateRequest	true	"the game"
//	@Success		200		{object}	TeekoAnnotation
//	@Failure		400		{object}	Problem	"illegal move (the problem names it)"
//	@Failure		503		{object}	Problem	"tablebase still building"
//	@Failure		413		{object}	Problem	"body over the size limit"
//	@Failure		408		{object}	Problem	"the body did not arrive within the server's read timeout (Connection: close)"
//	@Failure		415		{object}	Problem	"Content-Type is not application/json"
//	@Failure		429		{object}	Problem	"rate limit exceeded, or --max-client-requests requests of this client in flight (Retry-After given)"
//	@Header			all		{string}	X-Request-ID	"the request's id: the client's X-Request-ID when it sent a valid one, else a new one; in the logs and in every problem"
//	@Header			all		{integer}	X-RateLimit-Limit	"requests allowed to this client per period (when the server limits rates)"
//	@Header			all		{integer}	X-RateLimit-Remaining	"requests left in the period (when the server limits rates)"
//	@Header			all		{integer}	X-RateLimit-Reset	"Unix time (s) at which the period ends (when the server limits rates)"
//	@Header			429,503	{integer}	Retry-After	"seconds to wait before retrying"
//	@ID				annotateTeeko
//	@Router			/v1/teeko/annotate [post]
func (h *handlers) teekoAnnotate(c *gin.Context) {
	var req TeekoAnnotateRequest
	if !decodeJSON(c, &req) {
		return
	}
	// A long game is annotated and encoded with a place in the gate of
	// big answers (service.TeekoBigGame), given up before the bytes go out.
	ctx, done := service.HoldAssembly(c.Request.Context())
	defer done()
	a, err := h.deps.Teeko.Annotate(ctx, req.Rules, req.DropStyle, req.Moves)
	if err != nil {
		fail(c, err)
		return
	}
	b, err := json.Marshal(toTeekoAnnotation(a))
	done()
	if err != nil {
		fail(c, fmt.Errorf("encode the answer: %w", err))
		return
	}
	c.Data(http.StatusOK, "application/json; charset=utf-8", b)
}

func toTeekoAnnotation(a service.TeekoAnnotation) TeekoAnnotation {
	out := TeekoAnnotation{
		Rules: a.Rules.String(), DropStyle: a.DropStyle.String(), Plies: make([]TeekoAnnotatedPly, len(a.Plies)),
		Final: toTeekoAnalysis(a.Final, 0), Source: "tablebase", Stats: Stats{ElapsedMs: ms(a.Elapsed)},
	}
	for i, p := range a.Plies {
		out.Plies[i] = TeekoAnnotatedPly{
			Ply: p.Ply, Player: p.Player.String(), Decides: p.Decides.String(), Move: p.Move.String(),
			Mark: string(p.Mark), Before: toTeekoValue(p.Before), After: toTeekoValue(p.After),
			BestMoves: teekoMoves(p.BestMoves), BestValue: toTeekoValue(p.Before), IsBest: p.IsBest,
		}
	}
	return out
}

func toTeekoValue(v teeko.Value) TeekoValue {
	return TeekoValue{Outcome: v.Outcome.String(), Plies: teekoPlies(v)}
}

// TeekoOutcomeCounts counts positions by outcome.
type TeekoOutcomeCounts struct {
	BlackWins int64 `json:"black_wins" example:"1000"`
	RedWins   int64 `json:"red_wins" example:"900"`
	Draws     int64 `json:"draws" example:"500"`
	Total     int64 `json:"total" example:"2400"`
}

// TeekoPositionCounts are the tablebase's positions by phase and outcome.
type TeekoPositionCounts struct {
	// Positions with all eight pieces down, Black to move, Black without
	// a configuration (the Red-to-move figures are the same, colours
	// swapped); games already over included.
	MovePhase     TeekoOutcomeCounts `json:"move_phase"`
	MovePhaseOver int64              `json:"move_phase_over" example:"10000"`
	// Positions with 0..7 pieces down, valued with the drop style.
	DropPhase TeekoOutcomeCounts `json:"drop_phase"`
	// `drop_levels[k]`: positions with k pieces down.
	DropLevels []TeekoOutcomeCounts `json:"drop_levels"`
}

// TeekoTablebase describes one rule set's table under one drop style.
type TeekoTablebase struct {
	Rules     string `json:"rules" example:"standard"`
	DropStyle string `json:"drop_style" example:"standard"`
	// Positions by phase and outcome, counted one by one, not up to
	// symmetry.
	Positions TeekoPositionCounts `json:"positions"`
	// The value of the game from the start.
	EmptyBoard TeekoValue `json:"empty_board"`
	// The longest forced win (plies, counting the winning move) over all
	// move-phase positions.
	LongestWinPlies int     `json:"longest_win_plies" example:"30"`
	FileBytes       int64   `json:"file_bytes" example:"3000000"`
	LoadMs          float64 `json:"load_ms" example:"200"`
}

// teekoTablebase godoc
//
//	@Summary		Teeko tablebase statistics
//	@Description	Positions by outcome, the value of the empty board, and the longest forced win over all move-phase positions, for one rule set and drop style.
//	@Tags			teeko
//	@Produce		json,application/problem+json
//	@Param			rules		query		string	false	"standard or advanced"	Enums(standard, advanced)	default(standard)
//	@Param			drop_style	query		string	false	"drop style"			Enums(standard, alternate, one-move-alternate, two-move-alternate, three-move-alternate, one-move-standard, two-move-standard, three-move-standard)	default(standard)
//	@Success		200			{object}	TeekoTablebase
//	@Failure		400			{object}	Problem	"unknown rules, drop style or query parameter"
//	@Failure		503			{object}	Problem	"tablebase still building"
//	@Failure		429		{object}	Problem	"rate limit exceeded, or --max-client-requests requests of this client in flight (Retry-After given)"
//	@Header			all		{string}	X-Request-ID	"the request's id: the client's X-Request-ID when it sent a valid one, else a new one; in the logs and in every problem"
//	@Header			all		{integer}	X-RateLimit-Limit	"requests allowed to this client per period (when the server limits rates)"
//	@Header			all		{integer}	X-RateLimit-Remaining	"requests left in the period (when the server limits rates)"
//	@Header			all		{integer}	X-RateLimit-Reset	"Unix time (s) at which the period ends (when the server limits rates)"
//	@Header			429,503	{integer}	Retry-After	"seconds to wait before retrying"
//	@ID				getTeekoTablebase
//	@Router			/v1/teeko/tablebase [get]
func (h *handlers) teekoTablebase(c *gin.Context) {
	if !knownQuery(c, "rules", "drop_style") {
		return
	}
	st, err := h.deps.Teeko.TableStats(c.Request.Context(), c.Query("rules"), c.Query("drop_style"))
	if err != nil {
		fail(c, err)
		return
	}
	c.JSON(http.StatusOK, toTeekoTablebase(st))
}

func toTeekoTablebase(t service.TeekoTableStats) TeekoTablebase {
	s := t.Stats
	out := TeekoTablebase{
		Rules: s.Rules.String(), DropStyle: s.DropStyle.String(),
		Positions: TeekoPositionCounts{
			MovePhase: toTeekoCounts(s.MovePhase), MovePhaseOver: s.MovePhaseOver,
			DropPhase: toTeekoCounts(s.DropPhase),
		},
		EmptyBoard: toTeekoValue(s.EmptyBoard), LongestWinPlies: s.LongestWinPlies,
		FileBytes: t.FileBytes, LoadMs: ms(t.LoadTime),
	}
	for _, l := range s.DropLevels {
		out.Positions.DropLevels = append(out.Positions.DropLevels, toTeekoCounts(l))
	}
	return out
}

func toTeekoCounts(c teeko.Counts) TeekoOutcomeCounts {
	return TeekoOutcomeCounts{BlackWins: c.BlackWins, RedWins: c.RedWins, Draws: c.Draws, Total: c.Total()}
}
