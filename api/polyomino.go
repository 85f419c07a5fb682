package api

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"

	"github.com/gin-gonic/gin"

	"github.com/gamesolver/gamesolver/service"
)

// PolyominoRequest is a position of a placement game: a preset (`game`),
// overrides of its fields, and the board and/or the moves so far (neither
// for the start).
type PolyominoRequest struct {
	// The preset: pentominoes, tetrominoes, hexominoes or capture.
	Game string `json:"game" enums:"pentominoes,tetrominoes,hexominoes,capture" default:"pentominoes" example:"pentominoes"`
	// Board width, overriding the preset's (1..16).
	Width *int `json:"width" example:"8"`
	// Board height, overriding the preset's (1..16).
	Height *int `json:"height" example:"8"`
	// Blocked cells ("d4"; a1 is the top-left cell) override the preset's.
	Blocked *[]string `json:"blocked" example:"d4,e4,d5,e5"`
	// Pieces in play: names run together ("FILNP") or comma separated
	// ("H01,H02"), a list of names (["F","I","L"]), or a whole set
	// (tetrominoes, pentominoes, hexominoes); default the preset's whole
	// set.
	Pieces *service.PieceNames `json:"pieces" swaggertype:"string" example:"FILNPTUVWXYZ"`
	// Order of the pieces: 4 (tetrominoes), 5 (pentominoes) or 6
	// (hexominoes); 0 or absent: inferred. Needed only for names of two
	// orders: I, L and T are tetrominoes and pentominoes, and a list of
	// them alone means the preset's order (pentominoes for the hexominoes
	// preset), e.g. capture, order 4, pieces "ILT": the three tetrominoes.
	// Without pieces, the whole set of that order. Inferred: hexomino
	// names are order 6, O or S order 4, else as just said.
	Order *int `json:"order" example:"5"`
	// True for a common pool, false for hands. For the capture variant,
	// the list of pieces in the pool of the position given by board (or
	// the start), before the moves are played (default: every piece not
	// on the board).
	Pool *PoolField `json:"pool" swaggertype:"boolean" example:"true"`

	// hands has no doc comment: swag would wrap the reference in allOf,
	// which client generators make an object always sent (two empty
	// hands: a deal). service.Hands's fields say what hands are.

	Hands *service.Hands `json:"hands"`

	// Neutral placements made before the first move, in move notation,
	// e.g. ["X:d3,c4,d4,e4,d5"].
	Neutral *[]string `json:"neutral"` // no example tag: swag splits it at every comma
	// Seed of the deal when hands are dealt (house rule, see /v1/games).
	Seed *uint64 `json:"seed" example:"0"`
	// End rule: normal (who cannot move loses) or score.
	EndRule string `json:"end_rule" enums:"normal,score" example:"normal"`
	// Board rows, top row first: '.' empty, '#' blocked or an anonymous
	// piece, any other character a cell of a placed piece named by shape.
	// The rows set the board's size unless width or height is given. They
	// show the whole position, neutral pieces included.
	Board []string `json:"board" example:"........,........,........,........,........,........,........,........"`
	// Moves from the start (or after the board): <piece>:<cells>, e.g.
	// ["L:a1,a2,a3,a4,b4"]. Capture variant: turns, "~Y Z:b3,c3,c4,c5,d5"
	// (remove Y, place Z); for the draw on a third repetition (house rule)
	// the board (or the start) is the first occurrence of its position and
	// each turn adds one, so a caller who knows a game's history sends its
	// start and every turn (the same position as board rows alone has no
	// history, and may have another value).
	Moves []string `json:"moves"` // no example tag: swag splits it at every comma
	// Player to move in the position described: after the moves, when
	// moves are given (with board rows, the moves are credited counting
	// back from it; the house rules of /v1/games say what happens when no
	// crediting ends with it). First or second; defaults from the pieces
	// placed; 1 and 2 are first and second too.
	ToMove string `json:"to_move" enums:"first,second,1,2" example:"second"`
	// Bound on the time of the answer in milliseconds, the heuristic
	// player's move included when the search does not finish, not counting
	// a wait for a free solver slot, nor the first build of a new board's
	// placements (up to a few tenths of a second for a hexomino board), nor
	// the encoding of a big answer (all_moves on the hexomino board: about
	// a megabyte, a few tenths of a second more, and big answers are
	// encoded as many at once as searches run) (server default when 0,
	// capped by the server).
	BudgetMs int64 `json:"budget_ms" example:"2000"`
	// When true, every legal move is valued, as far as the budget goes
	// (moves not proven by then are listed unknown). An answer from the
	// opening book (source book) values the moves the book knows, and
	// searches the others within half the budget when the budget is at
	// least 500 ms and a solver slot is free; the cache keeps what it
	// found, and a later request with a budget as long or longer searches
	// on. On a position a polyomino.analyze job was planned for (finished,
	// canceled or failed), or an annotation analyzed, a move whose position
	// after it the cache holds proven (the job's unit, or a request on that
	// position, with or without all_moves) is valued from the cache, with
	// its plies when they were found, without a search (as are, without
	// all_moves, the moves searched for best_moves); not on a position of
	// more than 3,000 legal moves. The look-up takes up to an eighth of
	// the budget (at most 1 s) and gives up when that is not enough (a
	// few milliseconds on small boards, about 15 ms for the 1,400
	// children of an 8 x 8 position one piece in: budgets of 200 ms and
	// more are safe). The capture variant values at most 65,536 turns
	// this way: a position of more (its mover's marked pieces make
	// removals optional, up to 2^20 turns) is refused (400, field
	// all_moves; its value and best_moves are asked without all_moves;
	// /v1/polyomino/moves counts its turns and lists its placements), and
	// an annotation analyzes such a position without all_moves (its
	// move's ! and !! marks, which need every move's value, are then left
	// out).
	AllMoves bool `json:"all_moves" example:"false"`
	// When not proven within the budget (with all_moves: when not every
	// move is valued, an answer from the opening book included), continue
	// as a job (type polyomino.analyze) and answer with its link; its
	// units take the values the cache holds (each move's child, and a book
	// position's moves valued by earlier requests) without a search, and
	// a finished job's proven answer is cached for the requests, in every
	// server sharing the cache, unless the cache holds one that knows more
	// (a book position's: its move values, when the job valued them all).
	// Repeated requests
	// for the position share the job while it is queued or running (per
	// server process); a capture position is one unit searched for the
	// job's time limit. When the server requires API keys for jobs, a
	// request with background needs one too (X-API-Key), else 401. A
	// position beyond the search, where neither it nor any position after
	// a move is searched (the hexomino opening), gets no job: job_error
	// says so.
	Background bool `json:"background" example:"false"`
	// Capture variant: piece on the board -> first or second; pieces not
	// listed (or listed with null or "") are unmarked.
	Markers map[string]string `json:"markers" example:"I:second"`
	// Capture variant: pieces the player to move in the position given
	// (board rows, or the start) has removed on the turn in progress; he
	// must now place another piece. With moves, the first move completes
	// that turn (any removals it writes are further ones). A position
	// with a turn in progress is not counted as an occurrence for the
	// repetition rule.
	Banned []string `json:"banned" example:"Y"`
}

// PolyominoConfig is the game an answer is about, named as a request
// names it: the preset's settings with the request's overrides, a deal
// dealt (the hands as dealt, a neutral piece where it was placed). Posted
// with the answer's board (and to_move), or with the moves that led there,
// these fields are the same game: an answer may be posted back as it is,
// without the request that made it (whose seed and empty hands are dealt
// here, and whose presets' defaults are spelt out). In the capture
// variant, a turn in progress (banned) and the history of the position
// (the repetition rule: board rows are its first occurrence) are the
// request's, not the game's: send them again.
type PolyominoConfig struct {
	// The preset the settings override (capture: the capture variant).
	Game   string `json:"game" enums:"pentominoes,tetrominoes,hexominoes,capture" example:"pentominoes"`
	Width  int    `json:"width" example:"8"`
	Height int    `json:"height" example:"8"`
	// Blocked cells in reading order (an empty list when none).
	Blocked []string `json:"blocked"`
	Order   int      `json:"order" example:"5"`
	// The pieces in the game, in the order of GET /v1/games (neutral
	// pieces included).
	Pieces []string `json:"pieces"`
	// True for a common pool, false for hands; absent for the capture
	// variant (whose answer lists its pool's pieces in pool).
	Pool *bool `json:"pool,omitempty" example:"true"`
	// Each player's pieces at the start (hands only; a deal's as dealt).
	Hands *service.Hands `json:"hands,omitempty"`
	// Neutral placements made before the first move (an empty list when
	// none), as the request's neutral takes them; absent for the capture
	// variant, which has none.
	Neutral *[]string `json:"neutral,omitempty"`
	// The end rule; absent for the capture variant, which has its own.
	EndRule string `json:"end_rule,omitempty" enums:"normal,score" example:"normal"`
}

// polyominoConfig is the API's form of a game's settings.
func polyominoConfig(s service.GameSettings) PolyominoConfig {
	return PolyominoConfig{Game: s.Game, Width: s.Width, Height: s.Height, Blocked: *list(s.Blocked), Order: s.Order,
		Pieces: *list(s.Pieces), Pool: s.Pool, Hands: s.Hands, Neutral: s.Neutral, EndRule: s.EndRule}
}

// PoolField is `pool`: a boolean (common pool or hands) or, for the capture
// variant, the list of pieces in the pool.
type PoolField struct {
	Common *bool
	Pieces []string
}

// JSONKind names what pool takes, for the decoder's messages.
func (PoolField) JSONKind() string {
	return "true or false, or in the capture variant an array of piece names"
}

// UnmarshalJSON accepts true, false or an array of piece names.
func (p *PoolField) UnmarshalJSON(b []byte) error {
	var v bool
	if err := json.Unmarshal(b, &v); err == nil {
		p.Common = &v
		return nil
	}
	var list []string
	if err := json.Unmarshal(b, &list); err != nil {
		return service.TypeError(b, reflect.TypeOf(PoolField{}))
	}
	p.Pieces = list
	if p.Pieces == nil {
		p.Pieces = []string{}
	}
	return nil
}

// PolyominoMoveValue is a move with its own value, for its player.
type PolyominoMoveValue struct {
	Move   string `json:"move" example:"I:a1,a2,a3,a4,a5"`
	Result string `json:"result" enums:"win,loss,draw,unknown" example:"loss"`
	// The move's value in absolute terms (as the analysis's outcome; the
	// player to move makes it): first_wins, second_wins, draw or unknown.
	Outcome string `json:"outcome" enums:"first_wins,second_wins,draw,unknown" example:"second_wins"`
	Proven  bool   `json:"proven" example:"true"`
	// Under the score rule, the final score difference for the player
	// making the move (when proven).
	Score *int `json:"score,omitempty" example:"2"`
	// How many plies the game lasts after the move under perfect play
	// (as plies of the analysis; a move that draws has none), where the
	// length search reached it
	// within its share of the budget (with all_moves, half of what the
	// proof left of budget_ms, or its usual share if longer: winning
	// moves first; a bigger budget gives more moves their plies). A
	// cached answer whose moves lack plies gets more from each later
	// request with a solver slot free, one at a time (the plies known
	// are kept; such a request may spend its budget on them, and one
	// that finds none is not repeated by requests whose budget is not
	// more than twice as long).
	Plies *int `json:"plies,omitempty" example:"5"`
}

// JobLink points at a background job.
type JobLink struct {
	ID   string `json:"id" example:"o2iWq1Zx3mJ8b9Qk7tV0aA"`
	Href string `json:"href" example:"/v1/jobs/o2iWq1Zx3mJ8b9Qk7tV0aA"`
}

// PolyominoAnalysis is the value of a position for the player to move.
type PolyominoAnalysis struct {
	Game string `json:"game" example:"pentominoes"`
	// The game's settings in full, as a request names them: posted back
	// with board and to_move, the same position.
	Config PolyominoConfig `json:"config"`
	// The position's rows: '.' empty, '#' blocked, each placed piece drawn
	// with its symbol (GET /v1/games: a tetromino's or pentomino's
	// letter; hexominoes H01..H09 as 1..9, H10..H35 as A..Z).
	Board  []string `json:"board"`
	ToMove string   `json:"to_move" enums:"first,second" example:"second"`
	// Result for the player to move (who decides).
	Result string `json:"result" enums:"win,loss,draw,unknown" example:"loss"`
	// Outcome in absolute terms: first_wins, second_wins, draw or unknown.
	Outcome string `json:"outcome" enums:"first_wins,second_wins,draw,unknown" example:"first_wins"`
	Proven  bool   `json:"proven" example:"true"`
	// Under the score rule, the final score difference (player to move
	// minus the other) under perfect play, when proven.
	Score *int `json:"score,omitempty" example:"1"`
	// How many more plies the game lasts under perfect play, the winner
	// hurrying and the loser delaying (0: the game is over, lost for the
	// player to move; odd when the player to move wins). Normal play and
	// the capture variant (where a line that repeats a position for the
	// third time is a draw, which the winner avoids; a drawn game has no
	// plies, but with all_moves its winning and losing moves have theirs),
	// on a position the search proved, when the length search (exact, on
	// top of the proof, whose table it reuses) finishes within its
	// share of the budget: up to three times the proof's time, at least
	// 0.2 s, within budget_ms (with all_moves, at least half of what the
	// proof left of it). A capture answer cached without plies (or with
	// all_moves without a move's) because the budget ran out serves
	// requests whose budget_ms is up to twice that of the search that made
	// it; a longer one completes it with a length search alone (the
	// cached proof kept). One whose length search ran out of its share of the
	// proof's time, or gave up on its own, serves every budget (more
	// would not help), as does a job's.
	// A polyomino.analyze job's answer has each move's plies as its unit
	// found them (a quarter of the unit's proof time), and the position's
	// when every winning move's unit (lost: every move's) found them, or
	// the book's lengths files (below) know them (with a perfect first
	// move and the moves' plies they know); a
	// capture job, whose one unit is the whole position, gives the length
	// search a request's share of the job's time.
	// The empty 8 x 8 Pentominoes board lasts 9 plies (the book's bounds:
	// a reply to every winning first move lasting at least 7 more, and
	// I:b3,c3,d3,e3,f3 and W:a6,b6,b7,c7,c8, after which every reply lasts
	// 7), those first.
	// An answer from the book has them at once one and two plies into
	// the certificate's opening L:c5,d5,e5,f5,c6, the long-L opening
	// L:c4,d4,e4,f4,c5, I:b3,c3,d3,e3,f3, V:d4,e4,f4,d5,d6,
	// V:c3,d3,e3,c4,c5, W:e2,f2,f3,g3,g4, W:b5,c5,c6,d6,d7,
	// W:a6,b6,b7,c7,c8 and X:c2,b3,c3,d3,c4 (with a budget_ms of 500 or
	// more on the first request of one of the last seven), and after
	// their losing
	// replies' fastest third moves (the book's lengths files, computed
	// by the length search; one ply in, with a perfect move first, every
	// reply's plies with all_moves). Elsewhere the book knows values, not
	// lengths: with two pieces or more placed, a length search finds
	// them within a quarter of budget_ms (at least 0.2 s; with all_moves
	// half; at most 8 s) with a solver slot free at once (about 0.3 s
	// three plies into an opening, 3-16 s two plies in: a budget_ms of
	// 12000-20000 or more; one ply in, beyond any budget, is not tried);
	// the cache keeps them, and how long a search failed (only a budget
	// more than twice as long tries again). Absent otherwise.
	Plies *int `json:"plies,omitempty" example:"6"`
	// Pieces placed so far by the first and second player; in the capture
	// variant, the pieces on the board carrying each player's marker.
	Scores [2]int `json:"scores" example:"1,0"`
	// The pieces still to be placed: the common pool's (pool), or each
	// player's hand (first, second). Absent for the capture variant, whose
	// answer carries pool.
	PiecesLeft *PiecesLeft `json:"pieces_left,omitempty"`
	// Every best move when proven (the heuristic player's choice
	// otherwise), in canonical notation, e.g. ["I:a1,a2,a3,a4,a5"]. In
	// a won position (normal play, capture): every winning move, a fastest
	// one first (it wins in plies) when perfect_first says the length
	// search checked it; in a lost one every move, a slowest loss first
	// (the opponent then wins in plies - 1) on the same terms; with
	// all_moves in the order of moves. When best_complete is false they
	// are the best moves found so far.
	BestMoves []string `json:"best_moves"` // no example tag: swag splits it at every comma
	// True when best_moves holds every best move. False when the value
	// is not proven, or when it is but the budget ran out before every
	// move was decided, or the answer comes from a job's unit, which
	// stops at the first winning move: the cache keeps such an answer,
	// and a request with a budget more than twice as long as the search
	// that made it (at least 40 ms) looks for the rest, as does all_moves
	// (it waits for a free solver slot after the queued searches, or for
	// another request completing the same answer, while the budget left
	// stays that long); on a small position (at most 1,000 legal moves) a
	// request of 20 ms or more first tries a quick search of 20 ms, once
	// for the cached answer (source search when it finds them all).
	BestComplete bool `json:"best_complete" example:"true"`
	// True when best_moves[0] is the move perfect play chooses, checked
	// by the length search (or, for a capture win in one ply, by the
	// proof: the move leaves the opponent stuck): a fastest win in a won
	// position (it wins in plies), a slowest loss in a lost one. An
	// answer from the book whose reply is not a fastest win is led by
	// the length search's (its row in moves proven, with its plies).
	// False when the check
	// did not finish, or plies are unknown, or a search's incomplete
	// best_moves (a first win) hold none.
	PerfectFirst bool `json:"perfect_first" example:"true"`
	// True when best_moves come from the heuristic player, not a proof.
	Heuristic  bool `json:"heuristic" example:"false"`
	LegalMoves int  `json:"legal_moves" example:"1547"`
	// With all_moves: every legal move with its own value where
	// proven, best first: when the position is not proven, the heuristic
	// player's move (best_moves[0]) first; then proven wins (best value
	// first; where plies are known (normal play, capture), the fastest
	// first), proven draws, the moves not proven, proven losses (the
	// slowest first). A move without plies (its length search ran out of
	// time) is taken for a long game, as it most often is: after the
	// wins with plies, before the losses with plies (in a lost position
	// whose plies are known, right after its slowest losses, since no
	// loss lasts longer). best_moves follow the same order. A capture
	// position of more than 2^20 (1,048,576) turns (every subset of the
	// mover's marked pieces may be removed) is not searched: the list is
	// empty, legal_moves counts them, best_moves[0] is the heuristic
	// player's turn.
	Moves *[]PolyominoMoveValue `json:"moves,omitempty"`
	// True when the game has ended (the player to move cannot move, or
	// under the score rule neither can; in the capture variant also when
	// the position occurred for the third time: result draw).
	GameOver bool `json:"game_over" example:"false"`
	// True when, under the score rule, the player to move cannot place
	// and passes (always false in the capture variant, which has no
	// passes): best_moves is empty and the game goes on with the other
	// player, whose move a request for the same position with to_move
	// the other player gives. A pass is never written in moves: the next
	// move listed after a stuck player is the other player's.
	Pass bool `json:"pass" example:"false"`
	// Capture variant: true when the position occurred for the third
	// time, so the game is drawn (game_over, result draw), as /moves
	// says it; left out otherwise.
	Drawn bool `json:"drawn,omitempty" example:"false"`
	// Where the answer comes from: search, cache, heuristic, or book: the
	// embedded Pentominoes book (8 x 8, common pool, normal play), which
	// proves the empty board, the value of each classified first move,
	// every reply to the winning ones (each with a winning third move),
	// and the refutations of the losing ones (BENCHMARKS.md, "Pentominoes
	// proved"); a book answer's plies, and with all_moves the values of
	// the moves the book does not know, may come from a search (its nodes
	// in stats).
	Source string   `json:"source" enums:"search,cache,book,heuristic" example:"search"`
	Stats  Stats    `json:"stats"`
	Job    *JobLink `json:"job,omitempty"`
	// With background, when no job was queued: why (the jobs store
	// cannot be reached, the position is beyond the search, the server is
	// busy building other game configurations, or a cap on jobs: the
	// server's unfinished jobs, the client's, or the client's submissions
	// per period, --job-rate-limit); the answer stands, without a job.
	JobError string `json:"job_error,omitempty" example:"jobs store unavailable: could not store the job"`
	// Capture variant: every marked piece on the board -> first or
	// second; an empty object when none.
	Markers *map[string]string `json:"markers,omitempty"`
	// Capture variant: the pieces that may be placed (an empty list when
	// none).
	Pool *[]string `json:"pool,omitempty"`
}

// polyominoAnalyze godoc
//
//	@Summary		Analyze a polyomino game position
//	@Description	Exact value of a position of a placement game (Pentominoes and relatives) when the search proves it within `budget_ms`: `result` for the player to move, every best move, `plies` (how many more plies the game lasts under perfect play, the winner hurrying and the loser delaying: normal play and the capture variant, when the length search finishes within its share of the budget), and with `all_moves` every legal move's value. When the budget runs out: `result: unknown`, `proven: false`, the heuristic player's move, what was proven, and with `background: true` a `job` that goes on proving it (with `all_moves`, also when the value is proven but not every move's). Positions far beyond any search (more than about 16,000 live placements, such as the 15 x 15 hexomino opening) are not searched: the exact search does not start and the heuristic player chooses within the budget (`stats.nodes` counts none of its work); but a hand game under normal play where a player has at most two pieces left is first searched plainly up to 4 plies (one piece against many is lost in 2). The answer keeps to the budget (a wait for a free solver slot, up to the server's queue wait, comes before it): the search stops a fifth of it (at most 50 ms) before the end, leaving the heuristic player that time to choose, and past the budget it plays the best move it has evaluated. House rules (deal, neutral piece, default player to move, the capture variant's repetition draw and rule readings) are listed in GET /v1/games. With `game: capture` (O'Dwyer's capture variant) the position may also carry `markers`, `pool` as a list of pieces and `banned`; turns are written with their removals first (`~Y Z:b3,c3,c4,c5,d5`) and the answer carries `markers` (an empty object when none) and `pool`.
//	@Tags			polyomino
//	@Accept			json
//	@Produce		json,application/problem+json
//	@Param			request	body		PolyominoRequest	true	"the position"
//	@Success		200		{object}	PolyominoAnalysis
//	@Failure		400		{object}	Problem	"bad configuration, board or move (the problem names it)"
//	@Failure		401		{object}	Problem	"background: true without a valid X-API-Key, on a server that requires keys for jobs"
//	@Failure		503		{object}	Problem	"every solver slot busy, or too many new game configurations waiting to be built (a board, pieces or blocked cells not seen lately): retry after Retry-After"
//	@Failure		413		{object}	Problem	"body over the size limit"
//	@Failure		408		{object}	Problem	"the body did not arrive within the server's read timeout (Connection: close)"
//	@Failure		415		{object}	Problem	"Content-Type is not application/json"
//	@Failure		429		{object}	Problem	"rate limit exceeded, or --max-client-requests requests of this client in flight (Retry-After given)"
//	@Header			all		{string}	X-Request-ID	"the request's id: the client's X-Request-ID when it sent a valid one, else a new one; in the logs and in every problem"
//	@Header			401		{string}	WWW-Authenticate	"names the scheme: APIKey, in the X-API-Key header"
//	@Header			all		{integer}	X-RateLimit-Limit	"requests allowed to this client per period (when the server limits rates)"
//	@Header			all		{integer}	X-RateLimit-Remaining	"requests left in the period (when the server limits rates)"
//	@Header			all		{integer}	X-RateLimit-Reset	"Unix time (s) at which the period ends (when the server limits rates)"
//	@Header			429,503	{integer}	Retry-After	"seconds to wait before retrying"
//	@ID				analyzePolyomino
//	@Router			/v1/polyomino/analyze [post]
func (h *handlers) polyominoAnalyze(c *gin.Context) {
	var req PolyominoRequest
	if !decodeJSON(c, &req) {
		return
	}
	if req.Background && h.keys.Enabled() && !h.keys.Valid(c.GetHeader(headerAPIKey)) {
		// The job would be out of its starter's reach: jobs need a key.
		refuseKey(c, "background: true starts a job, and jobs need a valid API key in the X-API-Key header on this server (without background, no key is needed)")
		return
	}
	ctx, done := service.HoldAssembly(c.Request.Context())
	defer done()
	a, err := h.deps.Polyomino.Analyze(ctx, fromPolyominoRequest(req))
	if err != nil {
		fail(c, err)
		return
	}
	h.assembled(ctx, c, a.Size(), func() any { return toPolyominoAnalysis(a, req.AllMoves) })
}

// assembled writes the answer out builds, for an answer of n moves: a big
// one is built and encoded with a place in the service's assembly gate
// (service.Assembly; at once when ctx holds one already, see
// service.HoldAssembly), so that a flood of them leaves the cores to cheap
// requests; the place is given up before the bytes go out, so that a
// client slow to read holds none.
func (h *handlers) assembled(ctx context.Context, c *gin.Context, n int, out func() any) {
	release, err := h.deps.Polyomino.Assemble(ctx, n)
	if err != nil {
		fail(c, err)
		return
	}
	b, err := json.Marshal(out())
	release()
	service.PauseAssembly(ctx)
	if err != nil {
		fail(c, fmt.Errorf("encode the answer: %w", err))
		return
	}
	c.Data(http.StatusOK, "application/json; charset=utf-8", b)
}

func fromPolyominoRequest(r PolyominoRequest) service.PolyominoQuery {
	q := service.PolyominoQuery{
		Game: r.Game, Width: r.Width, Height: r.Height, Blocked: r.Blocked, Pieces: r.Pieces, Order: r.Order,
		Hands: r.Hands, Neutral: r.Neutral, Seed: r.Seed, EndRule: r.EndRule, Board: r.Board, Moves: r.Moves,
		ToMove: r.ToMove, BudgetMs: r.BudgetMs, AllMoves: r.AllMoves, Background: r.Background,
		Markers: r.Markers, Banned: r.Banned,
	}
	if r.Pool != nil {
		q.Pool, q.PoolPieces = r.Pool.Common, r.Pool.Pieces
	}
	return q
}

// polyResult names a value for its player.
func polyResult(outcome string, proven bool) string {
	if !proven {
		return "unknown"
	}
	return outcome
}

// polyOutcome is result, the value for player (first or second), in
// absolute terms.
func polyOutcome(result, player string) string {
	switch {
	case result == "draw", result == "unknown":
		return result
	case (result == "win") == (player == "first"):
		return "first_wins"
	}
	return "second_wins"
}

func toPolyominoAnalysis(a service.PolyominoAnswer, allMoves bool) PolyominoAnalysis {
	out := PolyominoAnalysis{
		Game: a.Config.Preset, Config: polyominoConfig(a.Settings), Board: a.Board, ToMove: a.ToMove, Result: polyResult(a.Outcome, a.Proven),
		Proven: a.Proven, Scores: a.Scores, BestMoves: a.BestMoves, Heuristic: a.Heuristic, LegalMoves: a.LegalMoves,
		GameOver: a.Over, Pass: a.Pass, Drawn: a.Capture && a.Over && a.Outcome == "draw", Source: a.Source, Stats: Stats{ElapsedMs: float64(a.ElapsedNs) / 1e6},
		Plies: a.Plies, BestComplete: a.Proven && a.BestComplete, PerfectFirst: a.Proven && a.Plies != nil && a.PerfectFirst,
	}
	if out.BestMoves == nil {
		out.BestMoves = []string{}
	}
	if out.Game == "" {
		out.Game = "custom"
	}
	out.Outcome = polyOutcome(out.Result, a.ToMove)
	if a.Proven {
		if a.ScoreRule {
			v := a.Value
			out.Score = &v
		}
	}
	if a.Heuristic && !a.Proven {
		out.Source = service.SourceHeuristic
	}
	if a.Source == service.SourceSearch {
		n := a.Nodes
		out.Stats.Nodes = &n
	}
	// The work this request did besides a search: for a cached answer
	// none, or a length search giving it its plies; for the book's, its
	// look-up and such a length search.
	switch a.Source {
	case service.SourceCache:
		out.Stats.ElapsedMs = float64(a.SpentNs) / 1e6
	case service.SourceBook:
		out.Stats.ElapsedMs = float64(a.ElapsedNs+a.SpentNs) / 1e6
	}
	if a.Source != service.SourceSearch && a.SpentNodes > 0 {
		n := a.SpentNodes
		out.Stats.Nodes = &n
	}
	if a.Moves != nil || allMoves {
		moves := make([]PolyominoMoveValue, 0, len(a.Moves))
		for _, m := range a.Moves {
			mv := PolyominoMoveValue{Move: m.Move, Result: polyResult(m.Outcome, m.Proven), Proven: m.Proven, Plies: m.Plies}
			mv.Outcome = polyOutcome(mv.Result, a.ToMove)
			if a.ScoreRule && m.Proven {
				v := m.Value
				mv.Score = &v
			}
			moves = append(moves, mv)
		}
		out.Moves = &moves // present, and empty when no move is legal, with all_moves
	}
	out.JobError = a.JobError
	if a.JobID != "" {
		out.Job = &JobLink{ID: a.JobID, Href: jobHref(a.JobID)}
	}
	if !a.Capture {
		out.PiecesLeft = piecesLeft(a.PiecesLeft, a.Config.Pool)
	}
	if a.Capture {
		out.Markers, out.Pool = captureState(a.Markers, a.Pool)
	}
	return out
}

// captureState is a capture position's markers and pool as the answers
// give them: present, and empty when nothing is marked or left.
func captureState(markers map[string]string, pool []string) (*map[string]string, *[]string) {
	if markers == nil {
		markers = map[string]string{}
	}
	return &markers, list(pool)
}

// polyominoJobResult is a polyomino.analyze job's result as analyze
// answers; one an earlier version stored, without the game's settings,
// has them from the job's request.
func polyominoJobResult(request, raw json.RawMessage) (any, error) {
	var a service.PolyominoAnswer
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, err
	}
	if a.Settings.Game == "" {
		a.Settings, _ = service.RequestSettings(request)
	}
	return toPolyominoAnalysis(a, false), nil
}

// PiecesLeft are the pieces still to be placed: pool with a common pool,
// first and second in hand mode (each an empty list when none are left).
type PiecesLeft struct {
	// Common pool: the pieces either player may place.
	Pool *[]string `json:"pool,omitempty" example:"F,I,N,P,T,U,V,W,X,Y,Z"`
	// Hands: the first player's pieces left.
	First *[]string `json:"first,omitempty" example:"F,I,L"`
	// Hands: the second player's pieces left.
	Second *[]string `json:"second,omitempty" example:"N,P,T"`
}

// list is a list of pieces as the answer carries it: [] when empty, never
// absent.
func list(s []string) *[]string {
	if s == nil {
		s = []string{}
	}
	return &s
}

func piecesLeft(l service.PiecesLeft, pool bool) *PiecesLeft {
	if pool {
		return &PiecesLeft{Pool: list(l.Pool)}
	}
	return &PiecesLeft{First: list(l.First), Second: list(l.Second)}
}

// PolyominoMovesResponse lists the legal moves of a position.
type PolyominoMovesResponse struct {
	// Count of legal moves for the player to move.
	Count int `json:"count" example:"2308"`
	// Classes of moves equal under the symmetries of the position: the
	// rotations and reflections that map its empty cells onto themselves,
	// wherever they lie in the rectangle (a blocked cell and a '#' are
	// alike; an 8 x 8 region beside a blocked column has the square's 8
	// symmetries, as tilings count them). For the capture variant: turns
	// with the same removals whose placements are images of each other
	// under the symmetries of the cells not drawn '#' (pieces and markers
	// kept); absent when the list is truncated.
	DistinctUpToSymmetry *int `json:"distinct_up_to_symmetry,omitempty" example:"296"`
	// Capture variant: true when the turns are too many to list (more
	// than 20,000, and more than the placements: every subset of removals
	// no placement needs is a turn too); moves then lists each placement
	// once with only the removals it needs. A longer list of turns that
	// are all placements is given whole.
	Truncated bool     `json:"truncated,omitempty" example:"false"`
	Moves     []string `json:"moves"`
	ToMove    string   `json:"to_move" enums:"first,second" example:"first"`
	// The position's rows, each placed piece drawn with its symbol (as in
	// analyze).
	Board []string `json:"board"`
	// True when the game has ended, as in analyze: the player to move
	// cannot move (he has lost; under the score rule, neither can), or in
	// the capture variant the position occurred for the third time (a
	// draw: drawn).
	GameOver bool `json:"game_over" example:"false"`
	// True when, under the score rule, the player to move cannot place
	// and passes (count 0, the game goes on with the other player: the
	// same position with to_move the other player lists his moves; a pass
	// is never written in moves; always false in the capture variant).
	Pass bool `json:"pass" example:"false"`
	// Capture variant: true when the position has occurred for the third
	// time, so the game is drawn (game_over, count 0); left out otherwise.
	Drawn bool `json:"drawn,omitempty" example:"false"`
	// The position's state, as analyze gives it (a front end shows it
	// with the moves, one request a ply): pieces placed so far by each
	// player (capture variant: the pieces carrying each one's marker).
	Scores [2]int `json:"scores" example:"1,0"`
	// The pieces still to be placed: the common pool's (pool), or each
	// player's hand (first, second). Absent for the capture variant.
	PiecesLeft *PiecesLeft `json:"pieces_left,omitempty"`
	// Capture variant: every marked piece on the board -> first or
	// second; an empty object when none.
	Markers *map[string]string `json:"markers,omitempty"`
	// Capture variant: the pieces that may be placed (an empty list when
	// none).
	Pool *[]string `json:"pool,omitempty"`
	// The game's settings in full, as analyze gives them.
	Config PolyominoConfig `json:"config"`
}

// polyominoMoves godoc
//
//	@Summary		Legal moves of a polyomino game position
//	@Description	Every legal move of the player to move in canonical notation (cells in reading order), with the count and the number of moves distinct up to the symmetries of the position (the rotations and reflections that map its empty cells onto themselves, wherever they lie: see `distinct_up_to_symmetry`; in hand mode too, pieces being free). On the empty 8 x 8 board with the 12 pentominoes: 2308 moves, 296 distinct.
//	@Tags			polyomino
//	@Accept			json
//	@Produce		json,application/problem+json
//	@Param			request	body		PolyominoRequest	true	"the position (all_moves and background are ignored; budget_ms is checked, not used)"
//	@Success		200		{object}	PolyominoMovesResponse
//	@Failure		400		{object}	Problem	"bad configuration, board or move (the problem names it)"
//	@Failure		413		{object}	Problem	"body over the size limit"
//	@Failure		408		{object}	Problem	"the body did not arrive within the server's read timeout (Connection: close)"
//	@Failure		415		{object}	Problem	"Content-Type is not application/json"
//	@Failure		429		{object}	Problem	"rate limit exceeded, or --max-client-requests requests of this client in flight (Retry-After given)"
//	@Failure		503		{object}	Problem	"too many new game configurations waiting to be built (a board, pieces or blocked cells not seen lately): retry after Retry-After"
//	@Header			all		{string}	X-Request-ID	"the request's id: the client's X-Request-ID when it sent a valid one, else a new one; in the logs and in every problem"
//	@Header			all		{integer}	X-RateLimit-Limit	"requests allowed to this client per period (when the server limits rates)"
//	@Header			all		{integer}	X-RateLimit-Remaining	"requests left in the period (when the server limits rates)"
//	@Header			all		{integer}	X-RateLimit-Reset	"Unix time (s) at which the period ends (when the server limits rates)"
//	@Header			429,503	{integer}	Retry-After	"seconds to wait before retrying"
//	@ID				listPolyominoMoves
//	@Router			/v1/polyomino/moves [post]
func (h *handlers) polyominoMoves(c *gin.Context) {
	var req PolyominoRequest
	if !decodeJSON(c, &req) {
		return
	}
	ctx, done := service.HoldAssembly(c.Request.Context())
	defer done()
	m, err := h.deps.Polyomino.Moves(ctx, fromPolyominoRequest(req))
	if err != nil {
		fail(c, err)
		return
	}
	out := PolyominoMovesResponse{Count: m.Count, Truncated: m.Truncated, Moves: m.Moves, ToMove: m.ToMove, Board: m.Board,
		GameOver: m.Over, Pass: m.Pass, Drawn: m.Drawn, Scores: m.Scores, Config: polyominoConfig(m.Settings)}
	if m.Capture {
		out.Markers, out.Pool = captureState(m.Markers, m.Pool)
	} else {
		out.PiecesLeft = piecesLeft(m.PiecesLeft, m.PoolMode)
	}
	if m.DistinctUpToSymmetry >= 0 {
		d := m.DistinctUpToSymmetry
		out.DistinctUpToSymmetry = &d
	}
	h.assembled(ctx, c, len(m.Moves), func() any { return out })
}
