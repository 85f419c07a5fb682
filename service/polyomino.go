package service

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"time"

	"github.com/gamesolver/gamesolver/engine/book"
	"github.com/gamesolver/gamesolver/engine/polyomino"
	"github.com/gamesolver/gamesolver/engine/tiling"
)

// Polyomino analyzes positions of the polyomino placement games.
type Polyomino struct {
	search *Searcher
	// submit starts a background analysis job; nil without jobs.
	submit func(ctx context.Context, typ string, request json.RawMessage) (string, error)
	// active reports whether a job is still queued or running; with it,
	// repeated background requests for a position share its job.
	active func(ctx context.Context, id string) bool
	bgMu   sync.Mutex
	bgJobs map[string]string // cache key of a position -> its background job
	// bgDown: until then background jobs are not tried (a submission
	// failed: the jobs store is down).
	bgDown time.Time
	// completing holds the keys completeBest is working on, each with a
	// channel closed when its search ends: one search per key at a time
	// (the others wait for it, then read its answer from the cache).
	completing sync.Map
	// bookLengths holds the keys fromBook is searching the length of,
	// bookMovesBusy those bookMoves is searching the moves of.
	bookLengths   sync.Map
	bookMovesBusy sync.Map
	// completingPlies holds the keys completePlies is working on: one
	// search per key at a time (another request serves the answer as
	// cached).
	completingPlies sync.Map
}

// backgroundWait bounds a background job's submission (and the look-up
// of the position's job); after a failed one, none is tried for
// backgroundPause. An answer found within its budget is so not held up by
// a jobs store that is down (it was, by seconds of retries).
const (
	backgroundWait  = time.Second
	backgroundPause = 5 * time.Second
)

// maxBackgroundJobs bounds the memory of background jobs per position (the
// map is forgotten when full: at worst a repeated request starts a job).
const maxBackgroundJobs = 10000

// SetJobActive lets repeated background requests for one position share
// the job the first started, while it is queued or running (per process).
func (p *Polyomino) SetJobActive(active func(ctx context.Context, id string) bool) {
	p.active = active
}

// NewPolyomino returns the use case over a searcher.
func NewPolyomino(s *Searcher) *Polyomino { return &Polyomino{search: s} }

// SetJobs lets Analyze hand unproven positions to the job system when the
// client asks for background work.
func (p *Polyomino) SetJobs(submit func(ctx context.Context, typ string, request json.RawMessage) (string, error)) {
	p.submit = submit
}

// Hands are each player's pieces (implies pool false). With one hand
// given, the game's other pieces make the other; with both, the game's
// other pieces are out of the game; two empty hands ({}) are a deal from
// seed (house rules). Leave hands out for the preset's own (a common pool
// for pentominoes).
type Hands struct {
	// The first player's pieces (hands imply pool false). With one hand
	// given, the game's other pieces make the other; with both, the
	// game's other pieces are out of the game; two empty hands ({}) are
	// a deal from seed (house rule). Leave hands out for the preset's own.
	First []string `json:"first" example:"F,I,L,N,P,T"`
	// The second player's pieces.
	Second []string `json:"second" example:"U,V,W,X,Y,Z"`
}

// PolyominoQuery is a position as a client gives it: a preset, overrides of
// its fields, and the board and/or moves.
type PolyominoQuery struct {
	Game    string      `json:"game,omitempty"`
	Width   *int        `json:"width,omitempty"`
	Height  *int        `json:"height,omitempty"`
	Blocked *[]string   `json:"blocked,omitempty"`
	Pieces  *PieceNames `json:"pieces,omitempty"`
	Order   *int        `json:"order,omitempty"`
	Pool    *bool       `json:"pool,omitempty"`
	Hands   *Hands      `json:"hands,omitempty"`
	Neutral *[]string   `json:"neutral,omitempty"`
	Seed    *uint64     `json:"seed,omitempty"`
	EndRule string      `json:"end_rule,omitempty"`
	Board   []string    `json:"board"` // no omitempty: a job's request keeps an empty list, which is refused
	Moves   []string    `json:"moves,omitempty"`
	ToMove  string      `json:"to_move,omitempty"`
	// BudgetMs bounds the synchronous search (server default when 0).
	BudgetMs int64 `json:"budget_ms,omitempty"`
	AllMoves bool  `json:"all_moves,omitempty"`
	// Background asks for a job when the position is not proven in time.
	Background bool `json:"background,omitempty"`
	// Capture variant only: markers of pieces on the board (piece ->
	// first/second), the pieces in the pool, and pieces the player to
	// move removed on the turn in progress.
	Markers    map[string]string `json:"markers,omitempty"`
	PoolPieces []string          `json:"pool_pieces,omitempty"`
	Banned     []string          `json:"banned,omitempty"`
	// allMovesIfFew (an annotation's): all_moves only where the capture
	// variant's turns are few enough (maxAllMovesTurns), not refused.
	allMovesIfFew bool
}

// PolyominoMove is one move with its value for the player who makes it.
type PolyominoMove struct {
	Move    string `json:"move"`
	Outcome string `json:"outcome"`
	Proven  bool   `json:"proven"`
	Value   int    `json:"value"`
	// Plies the game lasts after the move under perfect play, when
	// proven in time (PolyominoAnswer.Plies).
	Plies *int `json:"plies,omitempty"`
}

// PolyominoAnswer is the analysis of a position. Moves are in the frame of
// the position asked about (cached answers are stored in a canonical frame
// shared by congruent positions and mapped back).
type PolyominoAnswer struct {
	// The value first: childValue reads the first bytes of a cached
	// answer (its outcome, proven, value and plies) and stops at config.
	Outcome string `json:"outcome"`
	Proven  bool   `json:"proven"`
	Value   int    `json:"value"`
	// Plies the game lasts under perfect play, the winner hurrying and
	// the loser delaying (normal play, when proven in time).
	Plies        *int             `json:"plies,omitempty"`
	Config       polyomino.Config `json:"config"`
	Board        []string         `json:"board"`
	ToMove       string           `json:"to_move"`
	Scores       [2]int           `json:"scores"`
	BestMoves    []string         `json:"best_moves"`
	BestComplete bool             `json:"best_complete"`
	// LengthTriedNs: the longest length search that failed to find Plies
	// (a cached answer is completed only by a longer one).
	LengthTriedNs int64 `json:"length_tried_ns,omitempty"`
	// PerfectFirst: BestMoves[0] is the move perfect play chooses (a
	// fastest win, or a slowest loss), checked by the length search.
	PerfectFirst bool `json:"perfect_first,omitempty"`
	// BestTriedNs: in a partial answer (proven, not every best move
	// known), the budget of the search that looked for them (0: a job's
	// unit, which stops at the first winning move).
	BestTriedNs int64           `json:"best_tried_ns,omitempty"`
	Heuristic   bool            `json:"heuristic"`
	Moves       []PolyominoMove `json:"moves,omitempty"`
	LegalMoves  int             `json:"legal_moves"`
	Over        bool            `json:"over"`
	Pass        bool            `json:"pass"`
	Nodes       int64           `json:"nodes"`
	ElapsedNs   int64           `json:"elapsed_ns"`
	// SpentNodes, SpentNs: the work a request did on a cached answer
	// (completePlies' length search), its stats; never cached.
	SpentNodes int64  `json:"-"`
	SpentNs    int64  `json:"-"`
	Source     string `json:"source"`
	JobID      string `json:"job_id,omitempty"`
	// JobError says why background work asked for could not be queued
	// (the answer itself stands).
	JobError   string     `json:"job_error,omitempty"`
	ScoreRule  bool       `json:"score_rule"`
	PiecesLeft PiecesLeft `json:"pieces_left"`
	// Capture variant: markers on the board and the pool.
	Capture bool              `json:"capture,omitempty"`
	Markers map[string]string `json:"markers,omitempty"`
	Pool    []string          `json:"pool,omitempty"`
	// Settings: the game's (withPosition, withCapturePosition).
	Settings GameSettings `json:"settings,omitzero"`
}

// A quick try (runCached's quick) searches at most quickNodes nodes with
// a table of quickTableMB.
// Positions of more than quickMoves legal moves get none.
const (
	quickNodes   = 20_000
	quickTableMB = 1
	quickMoves   = 1000
)

// quickServes: a quick try's answer a of pos serves the request: under
// normal play it has the position's plies and, with all_moves, every
// move's (a request's own search finds those its try had no time for: a
// CI run served a move without plies to a request with a minute for its
// length search).
func quickServes(a PolyominoAnswer, pos *polyomino.Position) bool {
	return pos.Game().Config().EndRule != polyomino.NormalPlay ||
		a.Plies != nil && !slices.ContainsFunc(a.Moves, func(m PolyominoMove) bool { return m.Plies == nil })
}

// quickSolve is runCached's quick try of pos: a tiny board, a game nearly
// over, proven with every best move (every move's value) and plies in a
// few milliseconds, within ctx and quickNodes. Not tried with many
// moves: the search's set-up alone outlasts the try. ok: the answer (in
// the canonical frame) is final and serves (quickServes).
func (p *Polyomino) quickSolve(ctx context.Context, pos *polyomino.Position, allMoves bool) (PolyominoAnswer, int64, bool) {
	if pos.LegalMoveCount() > quickMoves {
		return PolyominoAnswer{}, 0, false
	}
	tt := polyomino.NewTable(quickTableMB)
	res, err := polyomino.Solve(ctx, pos, polyomino.Options{AllMoves: allMoves, Workers: 1, Table: tt, MaxNodes: quickNodes})
	if err != nil || !res.Proven || !res.BestComplete || allMoves && !allValued(res) {
		return PolyominoAnswer{}, res.Nodes, false
	}
	a := answerOf(res, pos.Frame().ToCanonical)
	p.search.withLength(ctx, &a, pos, res, tt, lengthShare, p.search.quickTime())
	return a, a.Nodes, quickServes(a, pos)
}

// quickComplete is a quick try (quickSolve, one at a time as runCached's,
// within quickTime and budget) of pos, whose cached answer is partial.
// tried is false when another quick try was under way (none was made).
func (p *Polyomino) quickComplete(ctx context.Context, pos *polyomino.Position, budget time.Duration) (a PolyominoAnswer, ok, tried bool) {
	if !p.search.quickBusy.CompareAndSwap(false, true) {
		return PolyominoAnswer{}, false, false
	}
	defer p.search.quickBusy.Store(false)
	qctx, cancel := context.WithTimeout(ctx, min(p.search.quickTime(), budget))
	defer cancel()
	start := time.Now()
	a, nodes, ok := p.quickSolve(qctx, pos, false)
	if ok {
		p.search.observe("polyomino", nodes, true, time.Since(start))
	} else {
		p.search.observeNodes("polyomino", nodes)
	}
	return a, ok, true
}

// Analyze values a position: exactly when the search proves it within the
// budget, otherwise with the heuristic player's move and what was proven.
func (p *Polyomino) Analyze(ctx context.Context, q PolyominoQuery) (PolyominoAnswer, error) {
	if err := checkBudget(q.BudgetMs); err != nil {
		return PolyominoAnswer{}, err
	}
	if q.isCapture() {
		return p.analyzeCapture(ctx, q)
	}
	pos, err := q.requestPosition(ctx)
	if err != nil {
		return PolyominoAnswer{}, err
	}
	return p.analyzePosition(ctx, q, pos)
}

// analyzePosition is Analyze of pos, the position q describes (q's
// budget, all_moves and background apply).
func (p *Polyomino) analyzePosition(ctx context.Context, q PolyominoQuery, pos *polyomino.Position) (PolyominoAnswer, error) {
	budget := p.search.Budgets.Clamp(q.BudgetMs)
	asked := time.Now()
	waitBook := budget >= bookWaitBudget
	if waitBook && book.MayHold(pos) {
		// While the book loads (the first seconds of a server, longer on
		// a busy machine) it is waited for within a share of the budget,
		// then the position searched (a cold start cost a 2 s request
		// 10 s).
		_, waitBook = bookWithin(ctx, budget/bookLoadDiv)
	}
	if res, ok := bookResult(pos, q.AllMoves, waitBook); ok {
		var nodes int64 // bookMoves' search's
		if q.AllMoves {
			res, nodes = p.bookMoves(ctx, pos, res, budget-time.Since(asked))
		}
		a := p.fromBook(ctx, pos, res, q.AllMoves, budget-time.Since(asked))
		a.SpentNodes += nodes
		// With all_moves, moves the search did not value are a job's.
		return p.inBackground(ctx, q, analyzeKey(pos, q.AllMoves), a)
	}
	// The book's look-up (indexing a reply file on its first use, tens of
	// milliseconds) counts in the budget; identical requests share a
	// search by the budget they asked for (Asked).
	askedBudget := budget
	if spent := time.Since(asked); spent >= time.Millisecond {
		budget = max(budget-spent, time.Millisecond).Truncate(time.Millisecond)
	}
	key := analyzeKey(pos, q.AllMoves)
	canon, source, err := runCached(ctx, p.search, "polyomino", key, budget, &runOptions[PolyominoAnswer]{
		Asked:      askedBudget,
		Consistent: func(a PolyominoAnswer) bool { return consistentWith(a, pos) },
		Quick:      func(ctx context.Context) (PolyominoAnswer, int64, bool) { return p.quickSolve(ctx, pos, q.AllMoves) }},
		func(ctx context.Context) (PolyominoAnswer, int64, bool, error) {
			// The proof's table serves the length search after it.
			// The children earlier searches proved (a job's units,
			// requests on them) are not searched again.
			known := p.search.knownChildren(ctx, pos, budget)
			tt := p.search.tables.get(pos.Game())
			defer p.search.tables.put(tt)
			res, err := polyomino.Solve(ctx, pos, polyomino.Options{AllMoves: q.AllMoves, Workers: p.search.Workers, Table: tt, Known: known.known()})
			if err != nil {
				return PolyominoAnswer{}, 0, false, err
			}
			a := answerOf(res, pos.Frame().ToCanonical)
			known.lendPlies(&a, res)
			if a.partial() {
				a.BestTriedNs = int64(budgetOf(ctx, res.Elapsed))
			}
			p.search.withLength(ctx, &a, pos, res, tt, lengthShare, p.search.minLengthTime())
			return a, a.Nodes, res.Proven && res.BestComplete, nil
		})
	if err != nil {
		return PolyominoAnswer{}, err
	}
	if !canon.Proven && !waitBook {
		// The book's file of this position, not waited for, was indexed
		// in the background meanwhile (0.1-0.3 s on its first use).
		if res, ok := bookResult(pos, q.AllMoves, false); ok {
			a := bookAnswerOf(res, pos) // the budget is spent
			if source == SourceSearch {
				a.SpentNs, a.SpentNodes = canon.ElapsedNs, canon.Nodes
			}
			return a, nil
		}
	}
	answered := time.Now()
	if quick := p.search.quickTime(); source == SourceCache && canon.partial() && budget >= quick && canon.BestTriedNs < int64(quick) {
		// A partial answer cached (a job's unit stopped at its first
		// win): a position the quick try proves whole in milliseconds is
		// answered whole, as on a cold server (an audit found requests
		// of 30 ms served one best move of 76 after a job: completeBest
		// needs twice its least search). A try that fails is recorded
		// (the time tried, BestTriedNs), so that the next requests do
		// not repeat it, holding the quick tries' one place.
		a, ok, tried := p.quickComplete(ctx, pos, budget)
		switch {
		case ok:
			canon, source = a, SourceSearch
			storeBetter(ctx, p.search, key, a)
		case tried && ctx.Err() == nil:
			canon.BestTriedNs = int64(quick)
			storeBetter(ctx, p.search, key, canon)
		}
	}
	searched, found := p.completeBest(ctx, key, &canon, pos, budget-time.Since(answered))
	if left := budget - time.Since(answered); !searched && source == SourceCache && left > 0 {
		// What completeBest's wait left; the length search's work is this
		// request's (stats), the rest the cache's.
		canon.SpentNodes, canon.SpentNs = p.completePlies(ctx, key, &canon, pos, left)
	}
	if found {
		source = SourceSearch // completeBest's search answered: its nodes and time
	}
	a, err := p.toPosition(ctx, canon, pos)
	if err != nil {
		return PolyominoAnswer{}, err
	}
	a.Source = source
	if q.Background && a.unfinished(q.AllMoves) && beyondJobs(pos) {
		p.backgroundOutcome("beyond_search")
		a.JobError = errBeyondJobs
		return a, nil
	}
	return p.inBackground(ctx, q, key, a)
}

// PiecesLeft are the pieces still to be placed: the common pool's, or
// each player's hand.
type PiecesLeft struct {
	Pool   []string `json:"pool,omitempty"`
	First  []string `json:"first,omitempty"`
	Second []string `json:"second,omitempty"`
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// PolyominoMoves lists the legal moves of a position.
type PolyominoMoves struct {
	Count int
	// DistinctUpToSymmetry is -1 where it is not computed (capture turns
	// too many to list).
	DistinctUpToSymmetry int
	// Truncated: the list holds each placement once with only the removals
	// it needs, because every subset of extra removals is too many.
	Truncated bool
	Moves     []string
	ToMove    string
	Board     []string
	// Over: the game has ended (as Analysis.Over); Pass: under the score
	// rule the player to move cannot place and passes; Drawn: the capture
	// variant's position occurred for the third time (Over too).
	Over, Pass, Drawn bool
	// The position's state, as an analysis gives it (withPosition,
	// withCapturePosition): the scores, the pieces left (PiecesLeft,
	// Config.Pool; Pool in the capture variant), the markers.
	Scores     [2]int
	PiecesLeft PiecesLeft
	PoolMode   bool
	Capture    bool
	Markers    map[string]string
	Pool       []string
	Settings   GameSettings
}

// movesState is out with the position's state of a, an answer carrying
// it (withPosition, withCapturePosition).
func movesState(out PolyominoMoves, a PolyominoAnswer) PolyominoMoves {
	out.Scores, out.PiecesLeft, out.PoolMode, out.Settings = a.Scores, a.PiecesLeft, a.Config.Pool, a.Settings
	out.Capture, out.Markers, out.Pool = a.Capture, a.Markers, a.Pool
	return out
}

// Assemble returns when an answer of n moves may be encoded: at once when
// it is small, else when the searcher's assembly gate has a place (see
// Assembly). release must be called after the encoding.
func (p *Polyomino) Assemble(ctx context.Context, n int) (release func(), err error) {
	return p.search.Assembly.Enter(ctx, n >= BigAnswerMoves)
}

// Moves lists the legal moves and counts them up to the board's symmetries.
func (p *Polyomino) Moves(ctx context.Context, q PolyominoQuery) (PolyominoMoves, error) {
	if err := checkBudget(q.BudgetMs); err != nil {
		return PolyominoMoves{}, err
	}
	if q.isCapture() {
		return p.captureMoves(ctx, q)
	}
	pos, err := q.requestPosition(ctx)
	if err != nil {
		return PolyominoMoves{}, err
	}
	moves := pos.LegalMoves()
	release, err := p.Assemble(ctx, len(moves))
	if err != nil {
		return PolyominoMoves{}, err
	}
	defer release()
	out := PolyominoMoves{Count: len(moves), DistinctUpToSymmetry: len(pos.SymmetryClasses()), Moves: make([]string, len(moves)),
		ToMove: pos.ToMove().String(), Board: pos.Board(), Over: pos.Over(), Pass: pos.MustPass()}
	for i, m := range moves {
		out.Moves[i] = m.String()
	}
	return movesState(out, withPosition(PolyominoAnswer{}, pos)), nil
}

// PolyominoInfo describes the placement games for the catalogue.
func PolyominoInfo() GameInfo {
	info := GameInfo{
		ID:          "polyomino",
		Name:        "Polyomino placement games",
		Description: "Golomb's Pentominoes and relatives: players take turns placing free polyominoes (any rotation or reflection) on empty cells of a board; each piece exists once. Exact values where the search proves them within the budget, else the move of a heuristic player.",
		Endpoints:   []string{"POST /v1/polyomino/analyze", "POST /v1/polyomino/moves", "POST /v1/polyomino/annotate", "POST /v1/jobs (type polyomino.analyze)", "POST /v1/jobs (type polyomino.book: Pentominoes 8 x 8 positions, every move class proved won or lost)"},
		Variants: []Variant{
			{Name: "standard", Description: "Golomb's game: pieces placed in turn, each once; the player who cannot place loses (end_rule normal), or under the score rule each scores the pieces he placed", Request: map[string]string{"game": "pentominoes"}},
			{Name: "score rule", Description: "a player who cannot place passes; when neither can, the higher count of pieces placed wins (draws possible)", Request: map[string]string{"end_rule": "score"}},
			{Name: "capture", Description: "O'Dwyer's capture variant: a placement captures pieces sharing 3 or more unit edges with it, and a player may first return his marked pieces to the pool", Request: map[string]string{"game": "capture"}},
		},
		Parameters: []Parameter{
			{Name: "game", Type: "string", Description: "a preset; the fields below override its fields", Values: []string{"pentominoes", "tetrominoes", "hexominoes", "capture"}, Default: "pentominoes"},
			{Name: "width", Type: "integer", Description: "board width, 1..16; default the preset's (or the board rows')"},
			{Name: "height", Type: "integer", Description: "board height, 1..16; default the preset's (or the board rows')"},
			{Name: "blocked", Type: "array", Description: "blocked cells, e.g. [\"d4\",\"e5\"] (a1 is the top-left cell); default the preset's (none)"},
			{Name: "pieces", Type: "string|array", Description: "pieces in play: names run together (\"FILNP\") or comma separated (\"H01,H02\"), a list ([\"F\",\"I\"]), or a whole set (tetrominoes, pentominoes, hexominoes); default the preset's set"},
			{Name: "order", Type: "integer", Description: "the pieces' order, needed only for names of two orders (I, L, T: tetrominoes and pentominoes); otherwise inferred from the names", Values: []string{"4", "5", "6"}},
			{Name: "pool", Type: "boolean|array", Description: "true: a common pool; false: hands (dealt from seed unless hands are given); capture variant: the list of pieces in the pool (default every piece not on the board); default the preset's"},
			{Name: "hands", Type: "object", Description: "each player's pieces, {\"first\": [...], \"second\": [...]} (implies pool false; the house rules say what one hand, or two empty ones, mean)"},
			{Name: "neutral", Type: "array", Description: "neutral placements made before the first move, in move notation, e.g. [\"X:d3,c4,d4,e4,d5\"]; [] for none (the hexominoes preset deals one)"},
			{Name: "seed", Type: "integer", Description: "seed of the deal when hands are dealt (house rule)", Default: "0"},
			{Name: "end_rule", Type: "string", Description: "normal: the player who cannot move loses; score: a stuck player passes, and when neither can place the more pieces placed wins; default the preset's", Values: []string{"normal", "score"}},
			{Name: "board", Type: "array", Description: "one string per row, top row first: '.' empty, '#' blocked or covered by an anonymous piece, any other character a cell of a placed piece (cells sharing a character form one piece, named by its shape); the rows show the whole position, neutral pieces included"},
			{Name: "moves", Type: "array", Description: "moves from the start (or after the board rows), <piece>:<cells> with cells in reading order, e.g. L:a1,a2,a3,a4,b4 (a1 is the top-left cell); any cell order is accepted; capture variant: turns with their removals first, e.g. \"~Y Z:b3,c3,c4,c5,d5\""},
			{Name: "to_move", Type: "string", Description: "the player to move after the moves; defaults from the pieces placed", Values: []string{"first", "second"}},
			{Name: "budget_ms", Type: "integer", Description: "time budget of the answer in milliseconds, capped by the server, not counting a wait for a free solver slot; when the search cannot finish within it, the answer carries the heuristic player's move, chosen within it"},
			{Name: "all_moves", Type: "boolean", Description: "value every legal move", Default: "false"},
			{Name: "background", Type: "boolean", Description: "when not proven within the budget (with all_moves: when not every move is valued), continue as a job (type polyomino.analyze) and return its link (repeated requests for the position share the job while it is queued or running, per server process); a capture position is one unit searched for the job's whole time limit; a position beyond the search (neither it nor any position after a move is searched, like the hexomino opening) gets no job, and job_error says why", Default: "false"},
			{Name: "markers", Type: "object", Description: "capture variant: the markers of pieces on the board, piece -> first or second (a piece without one is unmarked)"},
			{Name: "banned", Type: "array", Description: "capture variant: the pieces removed on the turn in progress at the board rows (or the start), which the first of the moves completes"},
		},
		HouseRules: []string{
			"Deal (hand mode without explicit hands): the pieces not in a given hand or neutral, in set order, are shuffled by Fisher-Yates driven by splitmix64(seed); the first neutral_count become neutral (none when neutral is given, even as []), the rest go alternately to the first and second player. Seed 0 is the default deal. The neutral pieces are dealt so from the pieces in neither hand even when both hands are given (the hexominoes preset's one neutral piece included): give neutral [] for none.",
			"Hands: with one hand given (the other absent or empty), the pieces of the game not in it and not neutral make the other hand; with both given and not empty, the game's other pieces are out of the game; two empty hands are a deal.",
			"A dealt neutral piece is placed before the first move where the centre of its bounding box lies nearest the centre of the board (ties: canonical orientation first, then reading order).",
			"The player to move defaults from the pieces placed: in a common pool first after an even number; in hand mode first unless he placed more than the second. to_move names the player to move after the moves. From the start the first player moves first; after board rows the moves are credited counting back from to_move, which says who was to move at the rows (in a common pool the players alternate; in hand mode each move is its piece owner's). When no crediting ends with to_move to move (from the start, or when the pieces' owners say otherwise), the moves are credited from a player for whom they are legal (the default first) and to_move then takes the turn after them.",
			"Scores of a position given: with a common pool, the pieces of board rows count alternately for the two players, the player to move at the rows having placed the smaller half (by default the first player is credited with the odd one and the second is to move), and moves alternately after them; in hand mode each piece counts for its owner. Under the score rule in hand mode, a move with a piece of the player not to move is that player's move after a pass of the player to move, who must then be stuck (else it is refused). Pieces drawn '#' and neutral pieces count for nobody.",
			"Capture variant: with board rows, to_move names the player to move after the turns, and the turns are credited counting back from it; without to_move, the first player is to move at the board rows when an even number of pieces lies on them (a guess, since removals break the parity: a caller who knows says so), and the players alternate after that. From the empty board the first player moves first, and a to_move that disagrees with the number of turns is refused.",
			"Capture variant: banned describes the turn in progress at the board rows (or the start): the first of the moves completes it. A position with a turn in progress does not count as an occurrence for the repetition rule.",
			"Capture variant: a cell drawn '#' is blocked or covered for good: it is never freed and never captured.",
			"Under the score rule with a common pool both players can place the same pieces, so when one is stuck the game ends: the final score difference is the difference so far, plus 1 for the player to move when he places the last piece (an odd number of pieces placed from here on), else unchanged (each placed as many: from level scores, a draw); who places last is decided as in normal play.",
			"Capture variant: a position that repeats for the third time (same board, markers, pool and player to move, between turns; the position a request starts from counts once, unless it carries banned) is a draw: analyze answers result draw with game_over and drawn, and moves answers count 0 with game_over and drawn.",
			"Capture variant: a placed piece carries no marker until a later placement captures it (3 or more shared unit edges); a capture gives every captured piece the capturer's marker; a removed piece returns to the pool unmarked.",
			"Capture variant: every turn places a piece (no turn of removals alone); a piece removed on a turn cannot be placed on that same turn, the opponent may place it on his next turn, and the ban never outlives the turn.",
			"Capture variant: the player to move loses when no pool piece (other than those he removed this turn) fits on the empty cells together with the cells of his own marked pieces.",
		},
		Notes: []string{
			"value: +1 win / -1 loss under normal play; under the score rule the final score difference for the player to move under perfect play.",
			"plies (normal play and the capture variant): how many more plies the game lasts under perfect play, counting the last placement; perfect play prefers the fastest win and the slowest loss, as in Teeko (in the capture variant a line reaching a third repetition is a draw, which the winner avoids; drawn games have no plies). Odd when the player to move wins. Given when the length search finishes within its share of the budget.",
			"A piece's canonical orientation, the one piece_sets draws, is among its orientations at least as wide as high the one whose picture, read row by row, comes first with 'X' before '.'. Hexominoes are named H01..H35 by the width of their canonical orientation, widest first, then by that picture, read the same way; see piece_sets for the pictures.",
		},
	}
	for _, pi := range polyomino.Presets() {
		c := pi.Config
		mode := "pool"
		if !c.Pool {
			mode = "hands"
		}
		pieces := c.Pieces
		if len(pieces) == 0 {
			if set, err := polyomino.Pieces(c.Order); err == nil {
				pieces = set.Names()
			}
		}
		info.Presets = append(info.Presets, PresetInfo{Name: pi.Name, Description: pi.Description, Width: c.Width, Height: c.Height,
			Pieces: pieces, Mode: mode, EndRule: string(c.EndRule), Variant: string(c.Variant)})
	}
	for _, order := range []int{4, 5, 6} {
		list, err := polyomino.PieceList(order)
		if err != nil {
			continue
		}
		set, err := polyomino.Pieces(order)
		if err != nil {
			continue
		}
		ps := PieceSet{Order: order, Name: map[int]string{4: "tetrominoes", 5: "pentominoes", 6: "hexominoes"}[order]}
		for _, pi := range list {
			info := PieceInfo{Name: pi.Name, Orientations: pi.Orientations, Picture: pi.Picture}
			if p, ok := set.Piece(pi.Name); ok {
				info.Symbol = string(tiling.Symbol(p))
			}
			ps.Pieces = append(ps.Pieces, info)
		}
		info.PieceSets = append(info.PieceSets, ps)
	}
	return info
}
