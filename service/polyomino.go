package service

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/gamesolver/gamesolver/engine/book"
	"github.com/gamesolver/gamesolver/engine/polyomino"
	"github.com/gamesolver/gamesolver/engine/tiling"
	"github.com/gamesolver/gamesolver/service/cache"
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
	Config       polyomino.Config `json:"config"`
	Board        []string         `json:"board"`
	ToMove       string           `json:"to_move"`
	Scores       [2]int           `json:"scores"`
	Outcome      string           `json:"outcome"`
	Proven       bool             `json:"proven"`
	Value        int              `json:"value"`
	BestMoves    []string         `json:"best_moves"`
	BestComplete bool             `json:"best_complete"`
	// Plies the game lasts under perfect play, the winner hurrying and
	// the loser delaying (normal play, when proven in time).
	Plies *int `json:"plies,omitempty"`
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
}

var (
	hexNames = regexp.MustCompile(`(?i)^(h\d{1,2})+$`)
	hexName  = regexp.MustCompile(`(?i)h\d{1,2}`)
)

// PieceNames is pieces as a string ("FILNP", "H01,H02", "pentominoes") or
// a list of names, kept as the string the service reads ("F,I,L").
type PieceNames string

// JSONKind names what pieces takes, for the decoder's messages.
func (PieceNames) JSONKind() string {
	return "a string of piece names (\"FILNP\", \"H01,H02\"), a set's name, or an array of piece names"
}

// UnmarshalJSON accepts a string or an array of strings.
func (p *PieceNames) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*p = PieceNames(s)
		return nil
	}
	var list []string
	if err := json.Unmarshal(b, &list); err != nil {
		return TypeError(b, reflect.TypeOf(PieceNames("")))
	}
	*p = PieceNames(strings.Join(list, ","))
	return nil
}

// splitPieces reads a piece list: names separated by commas or spaces, or
// letters run together ("FILNP"), or hexomino names run together
// ("H01H02").
func splitPieces(s string) []string {
	f := strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' })
	if len(f) != 1 {
		return f
	}
	one := f[0]
	if hexNames.MatchString(one) {
		return hexName.FindAllString(one, -1)
	}
	out := make([]string, 0, len(one))
	for _, r := range one {
		out = append(out, string(r))
	}
	return out
}

// size is the board's size: the board rows give it (the width most of them
// have, so that the row at fault is the one named), unless width or height
// is given; else the preset's.
func (q PolyominoQuery) size(width, height int) (int, int, error) {
	if q.Board != nil && len(q.Board) == 0 {
		return width, height, Invalid("board", nil, "board has no rows: give every row of the board (they set its size), or leave board out for the start position")
	}
	if len(q.Board) > 0 {
		width, height = rowWidth(q.Board), len(q.Board)
		if q.Width == nil && (width < 1 || width > polyomino.MaxSide) || q.Height == nil && height > polyomino.MaxSide {
			return width, height, Invalid("board", nil, "board of %d rows of %d cells: a board has 1 to %d rows and columns", height, width, polyomino.MaxSide)
		}
	}
	if q.Width != nil {
		width = *q.Width
	}
	if q.Height != nil {
		height = *q.Height
	}
	return width, height, nil
}

// rowWidth is the length in characters most rows have, row 1's among
// those as frequent.
func rowWidth(rows []string) int {
	count := map[int]int{}
	for _, r := range rows {
		count[utf8.RuneCountInString(r)]++
	}
	best := utf8.RuneCountInString(rows[0])
	for _, r := range rows {
		if n := utf8.RuneCountInString(r); count[n] > count[best] {
			best = n
		}
	}
	return best
}

// pieces reads the pieces and order fields: a whole set by name, as
// tilings accepts, or a list of names of the given order, else of the
// order the names imply (else the preset's); order alone is its whole set.
func (q PolyominoQuery) pieces(order int) (int, []string, error) {
	if q.Order != nil && *q.Order == 0 {
		q.Order = nil // 0 infers the order, as in tilings
	}
	if q.Order != nil {
		if o := *q.Order; o < 4 || o > 6 {
			return order, nil, Invalid("order", nil, "order %d: expected 4 (tetrominoes), 5 (pentominoes), 6 (hexominoes), or 0 to infer it from the names", o)
		}
	}
	if q.Pieces == nil {
		if q.Order != nil {
			return *q.Order, nil, nil
		}
		return order, nil, nil
	}
	names := string(*q.Pieces)
	if strings.TrimSpace(names) == "" {
		return order, nil, Invalid("pieces", nil, "pieces is empty: name at least one piece (\"FILNP\", \"H01,H02\", [\"F\",\"I\"]) or a set (\"pentominoes\"), or leave it out for the preset's")
	}
	if o, ok := polyomino.SetOrder(names); ok {
		if q.Order != nil && *q.Order != o {
			return order, nil, Invalid("pieces", nil, "%q are of order %d, but order %d was asked for", names, o, *q.Order)
		}
		return o, nil, nil
	}
	list := splitPieces(names)
	if q.Order != nil {
		return *q.Order, list, nil
	}
	if o := pieceOrder(list, order); len(list) > 0 && o != 0 {
		order = o
	}
	return order, list, nil
}

// config applies the query's overrides to its preset.
func (q PolyominoQuery) config() (polyomino.Config, error) {
	name := q.Game
	if name == "" {
		name = "pentominoes"
	}
	cfg, err := polyomino.Preset(name)
	if err != nil {
		return cfg, Invalid("game", err, "%s", err.Error())
	}
	if cfg.Width, cfg.Height, err = q.size(cfg.Width, cfg.Height); err != nil {
		return cfg, err
	}
	if q.Blocked != nil {
		cfg.Blocked = *q.Blocked
	}
	if q.Pieces != nil || q.Order != nil {
		if cfg.Order, cfg.Pieces, err = q.pieces(cfg.Order); err != nil {
			return cfg, err
		}
	}
	if q.Pool != nil {
		cfg.Pool = *q.Pool
	}
	if q.Hands != nil && q.Pool != nil && *q.Pool {
		return cfg, Invalid("hands", nil, "hands with pool true: hands mean each player has his own pieces (leave pool out, or set it false)")
	}
	if q.Hands != nil {
		cfg.Pool = false
		cfg.Hands = [2][]string{q.Hands.First, q.Hands.Second}
	}
	if q.Neutral != nil {
		cfg.Neutral = *q.Neutral
		if len(cfg.Neutral) == 0 {
			cfg.NeutralCount = 0 // neutral: [] is no neutral piece, not the preset's dealt one
		}
	}
	if q.Seed != nil {
		cfg.Seed = *q.Seed
	}
	switch rule := strings.ToLower(q.EndRule); rule {
	case "":
	case string(polyomino.NormalPlay), string(polyomino.ScoreRule):
		cfg.EndRule = polyomino.EndRule(rule)
	default:
		return cfg, Invalid("end_rule", nil, "end_rule %q: expected normal or score", q.EndRule)
	}
	if err := cfg.Validate(); err != nil {
		return cfg, Invalid(fieldOf(err, "game"), err, "%s", err.Error())
	}
	return cfg, nil
}

// pieceOrder infers the order of named pieces: hexomino names are order 6,
// O and S only exist as tetrominoes; otherwise the preset's order stands.
func pieceOrder(names []string, preset int) int {
	for _, n := range names {
		switch up := strings.ToUpper(n); {
		case strings.HasPrefix(up, "H") && len(up) > 1:
			return 6
		case up == "O" || up == "S":
			return 4
		}
	}
	if preset == 6 {
		return 5
	}
	return 0
}

// requestFields maps the fields of the engines' configurations and
// setups (polyomino.FieldError, capture.FieldError) to the request's.
var requestFields = map[string]string{
	"Width": "width", "Height": "height", "Blocked": "blocked", "Order": "order", "Pieces": "pieces",
	"Hands": "hands", "Neutral": "neutral", "NeutralCount": "neutral", "EndRule": "end_rule",
	"Variant": "game", "Moves": "moves",
	"Markers": "markers", "Pool": "pool", "Banned": "banned", "ToMove": "to_move",
}

// fieldOf is the request field an engine's error is about (the fields of
// a polyomino.FieldError), or otherwise when it names none.
func fieldOf(err error, otherwise string) string {
	var fe *polyomino.FieldError
	if errors.As(err, &fe) {
		if f, ok := requestFields[fe.Field]; ok {
			return f
		}
	}
	return otherwise
}

// buildFault maps the refusals of a request's game build (either engine's
// NewGameContext): the build queue full (the engine's busy error) is 503
// busy, retried after a second; the request's own end is its context's
// error. Any other error, or none, is nil: the caller's to map.
func buildFault(ctx context.Context, err, busy error) error {
	switch {
	case errors.Is(err, busy):
		return &Error{Kind: KindBusy, RetryAfter: time.Second, Message: err.Error()}
	case err != nil && ctx.Err() != nil && errors.Is(err, ctx.Err()):
		return ctx.Err()
	}
	return nil
}

// position builds the position a query describes.
func (q PolyominoQuery) position() (*polyomino.Position, error) {
	return q.positionFor(context.Background(), false)
}

// requestPosition is position for a request: its game, when not built
// lately, is built in the requests' bounded queue (polyomino.NewGameContext:
// 503 busy when full) while ctx lasts (a request that ends leaves the
// queue, its error ctx's).
func (q PolyominoQuery) requestPosition(ctx context.Context) (*polyomino.Position, error) {
	return q.positionFor(ctx, true)
}

func (q PolyominoQuery) positionFor(ctx context.Context, request bool) (*polyomino.Position, error) {
	switch {
	case q.Markers != nil:
		return nil, Invalid("markers", nil, "markers belong to the capture variant (game \"capture\")")
	case q.PoolPieces != nil:
		return nil, Invalid("pool", nil, "a list of pieces as the pool belongs to the capture variant (game \"capture\"); here pool is true (a common pool) or false (hands)")
	case q.Banned != nil:
		return nil, Invalid("banned", nil, "banned pieces belong to the capture variant (game \"capture\")")
	}
	cfg, err := q.config()
	if err != nil {
		return nil, err
	}
	toMove, err := polyomino.ParsePlayer(q.ToMove)
	if err != nil {
		return nil, Invalid("to_move", err, "to_move %q: expected first or second", q.ToMove)
	}
	var g *polyomino.Game
	if request {
		g, err = polyomino.NewGameContext(ctx, cfg)
	} else {
		g, err = polyomino.NewGame(cfg)
	}
	var pos *polyomino.Position
	if err == nil {
		pos, err = g.NewPosition(q.Board, q.Moves, toMove)
	}
	if f := buildFault(ctx, err, polyomino.ErrBusy); f != nil {
		return nil, f
	}
	if err != nil {
		field := "board" // the board's faults, and a game too big to build
		if errors.Is(err, polyomino.ErrBadConfig) {
			field = "game"
		}
		return nil, Invalid(fieldOf(err, field), err, "%s", err.Error())
	}
	return pos, nil
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
		Quick: func(ctx context.Context) (PolyominoAnswer, int64, bool) {
			// A tiny board, a game nearly over: proven, every best move
			// (every move's value) and plies in a few milliseconds. Not
			// tried with many moves: the search's set-up alone outlasts
			// the try.
			if pos.LegalMoveCount() > quickMoves {
				return PolyominoAnswer{}, 0, false
			}
			tt := polyomino.NewTable(quickTableMB)
			res, err := polyomino.Solve(ctx, pos, polyomino.Options{AllMoves: q.AllMoves, Workers: 1, Table: tt, MaxNodes: quickNodes})
			if err != nil || !res.Proven || !res.BestComplete || q.AllMoves && !allValued(res) {
				return PolyominoAnswer{}, res.Nodes, false
			}
			a := answerOf(res, pos.Frame().ToCanonical)
			p.search.withLength(ctx, &a, pos, res, tt, lengthShare, p.search.quickTime())
			return a, a.Nodes, quickServes(a, pos)
		}},
		func(ctx context.Context) (PolyominoAnswer, int64, bool, error) {
			// The proof's table serves the length search after it.
			tt := p.search.tables.get(pos.Game())
			defer p.search.tables.put(tt)
			res, err := polyomino.Solve(ctx, pos, polyomino.Options{AllMoves: q.AllMoves, Workers: p.search.Workers, Table: tt})
			if err != nil {
				return PolyominoAnswer{}, 0, false, err
			}
			a := answerOf(res, pos.Frame().ToCanonical)
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
	searched, found := p.completeBest(ctx, key, &canon, pos, budget)
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

// The game-length search after a proof (plies) of a request may take
// lengthShare times the proof's time, at least Searcher.MinLengthTime
// (default lengthMin), within what is left of the budget (less
// lengthMargin), and at most lengthMaxNodes nodes. In a job's unit, whose
// proofs are the long ones, it may take a quarter of the proof's time
// (lengthJobShare), so that plies cost a job little, and at least
// Searcher.MinLengthTime (default lengthJobMin: a unit's first-win proof
// may take microseconds).
const (
	// solveTableMB: the transposition table of a request's or a unit's
	// proof, kept for its length search (Solve's own default size).
	solveTableMB   = 64
	lengthShare    = 3
	lengthJobShare = 0.25
	lengthJobMin   = 50 * time.Millisecond
	lengthMin      = 200 * time.Millisecond
	lengthMargin   = 5 * time.Millisecond
	// allMovesLengthDiv: with all_moves the length search may take what
	// is left of the budget divided by this.
	allMovesLengthDiv = 2
	lengthMaxNodes    = 50_000_000
)

// withLength adds to a proven answer how many plies the game lasts under
// perfect play (normal play only), when polyomino.Length proves it within
// its share of the budget, and then, with all moves, how many it lasts
// after each move, as far as the share goes; its nodes and time count in
// the answer's. It returns the length search's fastest win, when it found
// one (polyomino.LengthResult.Fastest), in the position's frame.
// A job's unit passes share lengthJobShare and least
// Searcher.MinLengthTime; a request lengthShare and minLengthTime.
func (s *Searcher) withLength(ctx context.Context, a *PolyominoAnswer, pos *polyomino.Position, res polyomino.Result, tt *polyomino.Table, share float64, least time.Duration) (fastest *polyomino.Move) {
	if !res.Proven || pos.Game().Config().EndRule != polyomino.NormalPlay {
		return nil
	}
	d := lengthTime(share, res.Elapsed, least)
	if dl, ok := ctx.Deadline(); ok {
		left := time.Until(dl) - lengthMargin
		if len(res.Moves) > 0 {
			// Every move's plies are asked for (all_moves): up to half of
			// what is left of the budget.
			d = max(d, left/allMovesLengthDiv)
		}
		d = min(d, left)
	}
	if d <= 0 {
		return nil
	}
	lctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	start := time.Now()
	defer func() { a.ElapsedNs += int64(time.Since(start)) }()
	// One search answers the position's length, then its moves': what
	// the first learnt serves the others.
	lengths := polyomino.NewLengths(lctx, pos, polyomino.LengthOptions{MaxNodes: lengthMaxNodes, Table: tt})
	defer lengths.Close()
	l := lengths.Length(res.Outcome)
	a.Nodes += l.Nodes
	if !l.Proven {
		a.LengthTriedNs = max(a.LengthTriedNs, int64(d))
		return nil
	}
	n := l.Plies
	a.Plies = &n
	// A best move first: with all_moves too, so that the move perfect
	// play chooses leads when the moves' own lengths are not all found.
	// The length search's own fastest win when it is one of them, else
	// one of them that a search finds as fast.
	var best string
	if f := l.Fastest; f != nil {
		if c := pos.Frame().ToCanonical(*f).String(); slices.Contains(a.BestMoves, c) {
			best = f.String()
			withFirst(a, PolyominoAnswer{PerfectFirst: true, BestMoves: []string{c}})
		}
	}
	if best == "" {
		best = bestFirst(a, lengths, res)
	}
	if len(res.Moves) == 0 || len(res.Moves) != len(a.Moves) {
		return l.Fastest
	}
	// One search per symmetry class of moves: its members last as long.
	// A class with a member's plies known already (a cached answer being
	// completed) lends them to the others, unsearched.
	classOf := map[string]int{}
	for c, ms := range pos.SymmetryClasses() {
		for _, m := range ms {
			classOf[m.String()] = c
		}
	}
	knownIn := map[int]int{} // class -> index of a move with plies
	for i, mr := range res.Moves {
		if c, ok := classOf[mr.Move.String()]; ok && a.Moves[i].Plies != nil {
			knownIn[c] = i
		}
	}
	repOf := map[int]int{} // class -> index of its first move in reps
	var reps []polyomino.MoveResult
	for _, mr := range res.Moves {
		c, ok := classOf[mr.Move.String()]
		_, known := knownIn[c]
		if _, seen := repOf[c]; ok && !seen && !known {
			repOf[c] = len(reps)
			reps = append(reps, mr)
		}
	}
	lens := lengths.MoveLengths(reps)
	for _, ml := range lens {
		a.Nodes += ml.Nodes
	}
	for i, mr := range res.Moves {
		c, ok := classOf[mr.Move.String()]
		if !ok || a.Moves[i].Plies != nil {
			continue
		}
		if k, known := knownIn[c]; known {
			if res.Moves[k].Outcome == mr.Outcome {
				n := *a.Moves[k].Plies
				a.Moves[i].Plies = &n
			}
		} else if ml := lens[repOf[c]]; ml.Proven && reps[repOf[c]].Outcome == mr.Outcome {
			n := ml.Plies
			a.Moves[i].Plies = &n
		}
		if a.Moves[i].Plies == nil && mr.Move.String() == best {
			n := *a.Plies - 1
			a.Moves[i].Plies = &n
		}
	}
	fastestFirst(a)
	return l.Fastest
}

// lengthTime is the time a length search may take after a proof of
// elapsed: share times it, at least least (before the budget's cap).
func lengthTime(share float64, elapsed, least time.Duration) time.Duration {
	return max(time.Duration(share*float64(elapsed)), least)
}

// minLengthTime is a request's least length-search time:
// Searcher.MinLengthTime, or lengthMin when unset.
func (s *Searcher) minLengthTime() time.Duration {
	if s.MinLengthTime > 0 {
		return s.MinLengthTime
	}
	return lengthMin
}

// bestFirst puts first among the best moves of a proven answer with its
// plies a move perfect play chooses, when the length search finds one
// within what is left of its time and nodes: a fastest win
// (Lengths.FastestWin) or, the position lost, a slowest loss
// (Lengths.Slowest, every move being a best one); the others keep their
// order. It returns that move (in the position's frame), or "" if none.
// res.BestMoves[i] must be a.BestMoves[i] (in the position's frame).
func bestFirst(a *PolyominoAnswer, lengths *polyomino.Lengths, res polyomino.Result) string {
	if a.Plies == nil || len(res.BestMoves) == 0 || len(res.BestMoves) != len(a.BestMoves) {
		return ""
	}
	if len(res.BestMoves) == 1 && res.BestComplete {
		a.PerfectFirst = true // the only best move
		return res.BestMoves[0].String()
	}
	find := lengths.FastestWin
	switch res.Outcome {
	case polyomino.Win:
	case polyomino.Loss:
		find = lengths.Slowest
	default:
		return ""
	}
	// (With one best move of a first-win search, whether it is perfect
	// play's too.)
	i, nodes := find(res.BestMoves, *a.Plies)
	a.Nodes += nodes
	if i < 0 {
		return ""
	}
	a.PerfectFirst = true
	if i > 0 {
		best := append([]string{a.BestMoves[i]}, a.BestMoves[:i]...)
		a.BestMoves = append(best, a.BestMoves[i+1:]...)
	}
	return res.BestMoves[i].String()
}

// fastestFirst orders the moves of an answer as perfect play prefers them
// (the Teeko convention): among proven wins the fastest first, among
// proven losses the slowest first; the best moves (the wins, or for a lost
// position every move) follow the same order. A move without plies (its
// length search ran out of time) counts as a long game, as it most often
// is (a short one is found fast): after the wins of known length, before
// the losses of known length (a review found such losses lasting 7 plies
// listed after losses in 5), but after the slowest losses of a lost
// position whose plies are known (no loss lasts longer).
func fastestFirst(a *PolyominoAnswer) {
	var bound *int // a lost position's plies
	if a.Outcome == string(polyomino.Loss) {
		bound = a.Plies
	}
	key := func(m PolyominoMove) int {
		return lengthKey(m.Outcome == string(polyomino.Win), m.Plies, bound)
	}
	for i := 0; i < len(a.Moves); {
		j := i + 1
		for j < len(a.Moves) && a.Moves[j].Proven == a.Moves[i].Proven && a.Moves[j].Outcome == a.Moves[i].Outcome {
			j++
		}
		if a.Moves[i].Proven {
			run := a.Moves[i:j]
			sort.SliceStable(run, func(x, y int) bool { return key(run[x]) < key(run[y]) })
		}
		i = j
	}
	rank := map[string]int{}
	for i, m := range a.Moves {
		rank[m.Move] = i
	}
	sort.SliceStable(a.BestMoves, func(x, y int) bool { return rank[a.BestMoves[x]] < rank[a.BestMoves[y]] })
}

// lengthKey orders moves of one proven outcome by their plies as perfect
// play prefers them: wins (win) the fastest first, losses the slowest
// first, a move without plies as the longest game; when a lost position
// lasts bound plies (nil: unknown), no loss lasts longer than bound - 1,
// so one without plies comes right after those that last that long.
func lengthKey(win bool, plies, bound *int) int {
	switch {
	case plies == nil && win:
		return math.MaxInt
	case plies == nil && bound != nil:
		return -2*(*bound-1) + 1
	case plies == nil:
		return math.MinInt
	case win:
		return 2 * *plies
	default:
		return -2 * *plies
	}
}

// completePlies gives a cached proven answer the plies it lacks (its
// search ran out of its length share, or a job's unit stored it; with
// all_moves, the moves' plies it had no time for) when a solver slot is
// free at once, within the request's budget and the length share of the
// proof's recorded time (with all_moves, at least half the budget), and
// stores the completed answer for the next requests: the moves' plies
// known are kept, not searched again, so that each request adds to them.
// canon is in the canonical frame. It returns the nodes and the time of
// its length search (0 when none ran).
func (p *Polyomino) completePlies(ctx context.Context, key string, canon *PolyominoAnswer, pos *polyomino.Position, budget time.Duration) (nodes, took int64) {
	if !canon.Proven || lengthComplete(*canon, len(canon.Moves) > 0) || pos.Game().Config().EndRule != polyomino.NormalPlay {
		return 0, 0
	}
	if _, busy := p.completingPlies.LoadOrStore(key, true); busy {
		return 0, 0 // another request is completing it: the answer as cached
	}
	defer p.completingPlies.Delete(key)
	release, ok := p.search.Slots.TryAcquire()
	if !ok {
		return 0, 0 // busy: the answer as cached
	}
	defer release()
	PauseAssembly(ctx) // a search is no assembly
	back := func(s string) (polyomino.Move, bool) { return fromCanonicalMove(pos.Frame(), s) }
	res := polyomino.Result{Outcome: polyomino.Outcome(canon.Outcome), Proven: true, Value: canon.Value, Elapsed: time.Duration(canon.ElapsedNs)}
	for _, s := range canon.BestMoves {
		m, ok := back(s)
		if !ok {
			return 0, 0
		}
		res.BestMoves = append(res.BestMoves, m)
	}
	for _, mv := range canon.Moves {
		m, ok := back(mv.Move)
		if !ok {
			return 0, 0
		}
		res.Moves = append(res.Moves, polyomino.MoveResult{Move: m, Outcome: polyomino.Outcome(mv.Outcome), Proven: mv.Proven, Value: mv.Value})
	}
	least := p.search.minLengthTime()
	share := min(lengthTime(lengthShare, res.Elapsed, least), budget)
	if int64(share) <= 2*canon.LengthTriedNs {
		return 0, 0 // a search as long has failed already
	}
	bctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	done := *canon
	done.Moves = append([]PolyominoMove(nil), canon.Moves...)
	done.BestMoves = append([]string(nil), canon.BestMoves...)
	p.search.withLength(bctx, &done, pos, res, nil, lengthShare, least)
	nodes, took = done.Nodes-canon.Nodes, done.ElapsedNs-canon.ElapsedNs
	done.Nodes, done.ElapsedNs = canon.Nodes, canon.ElapsedNs // the proof's figures
	switch {
	case done.Plies == nil:
		// Stored with the longer try, so that the next requests do not
		// repeat it.
		done = *canon
		done.LengthTriedNs = max(canon.LengthTriedNs, int64(share))
	case !done.PerfectFirst, movesWithPlies(done) == movesWithPlies(*canon) && !lengthComplete(done, len(done.Moves) > 0):
		// No first move checked, or no move's plies found: only a
		// longer try may do better (with all_moves, each request that
		// finds some adds them; one that finds none would repeat
		// itself).
		done.LengthTriedNs = max(canon.LengthTriedNs, int64(share))
	}
	*canon = done
	storeBetter(ctx, p.search, key, done)
	return nodes, took
}

// movesWithPlies counts the moves of a that have their plies.
func movesWithPlies(a PolyominoAnswer) int {
	n := 0
	for _, m := range a.Moves {
		if m.Plies != nil {
			n++
		}
	}
	return n
}

// budgetOf is the budget of a search under ctx that took elapsed: the
// time its deadline left (at least elapsed), or elapsed without one.
func budgetOf(ctx context.Context, elapsed time.Duration) time.Duration {
	if d, ok := ctx.Deadline(); ok {
		return max(elapsed, time.Until(d)+elapsed)
	}
	return elapsed
}

// completeBest looks for the best moves a partial answer (proven, not
// every best move known: see PolyominoAnswer.partial) lacks, when the
// request's budget is more than twice as long as the search that made it
// (completeNeed), and stores the result when it knows them all or looked
// longer. It waits for a solver slot, after the searches queued for one
// (it takes no place in the queue: completing is optional work), or for
// another request completing the same entry, whose answer it then takes,
// as long as the budget left is more than that; then the answer is served
// as it is. canon is in the canonical frame; the answer it had stands
// when the search finds nothing better. It reports whether it searched
// (the budget is then spent) and whether its answer replaced canon.
func (p *Polyomino) completeBest(ctx context.Context, key string, canon *PolyominoAnswer, pos *polyomino.Position, budget time.Duration) (searched, found bool) {
	if !canon.partial() || budget <= completeNeed(*canon) {
		return false, false
	}
	PauseAssembly(ctx) // waiting and searching are no assembly
	start := time.Now()
	left := func() time.Duration { return budget - time.Since(start) }
	mine := &completion{done: make(chan struct{})}
	for {
		v, busy := p.completing.LoadOrStore(key, mine)
		if !busy {
			break
		}
		other := v.(*completion)
		wctx, cancel := context.WithTimeout(ctx, left()-completeNeed(*canon))
		ended := false
		select {
		case <-other.done:
			ended = true
		case <-wctx.Done():
		}
		cancel()
		// The other request's answer when better (read only once it has
		// ended), else the cache's.
		taken := false
		if ended {
			var better PolyominoAnswer
			if better, taken = betterAnswer(*canon, other.answer); taken {
				*canon = better
			}
		}
		if better, ok := p.cachedBetter(ctx, key, *canon); !taken && ok {
			*canon = better
		}
		if !canon.partial() || left() <= completeNeed(*canon) || ctx.Err() != nil {
			return false, false
		}
	}
	defer func() {
		p.completing.Delete(key)
		close(mine.done)
	}()
	var release func()
	for {
		var ok bool
		if release, ok = p.search.Slots.TryAcquire(); ok {
			break
		}
		if left()-slotPoll <= completeNeed(*canon) {
			return false, false // busy: the answer as it is
		}
		select {
		case <-time.After(slotPoll):
		case <-ctx.Done():
			return false, false
		}
	}
	defer release()
	budget = left()
	bctx, cancelSearch := context.WithTimeout(ctx, budget)
	defer cancelSearch()
	// The known winning moves first: the proof is found again at once.
	frame := pos.Frame()
	var prefer []polyomino.Move
	for _, s := range canon.BestMoves {
		if m, ok := fromCanonicalMove(frame, s); ok {
			prefer = append(prefer, m)
		}
	}
	tt := p.search.tables.get(pos.Game())
	defer p.search.tables.put(tt)
	searchStart := time.Now()
	res, err := polyomino.Solve(bctx, pos, polyomino.Options{Workers: p.search.Workers, Table: tt, Prefer: prefer})
	p.search.observe("polyomino", res.Nodes, res.Proven, time.Since(searchStart))
	if err != nil {
		return true, false
	}
	// The search is this request's work whatever it finds (stats).
	spent := func() { canon.SpentNs, canon.SpentNodes = int64(res.Elapsed), res.Nodes }
	// The budget the search had: the request's deadline may come first.
	tried := int64(budgetOf(bctx, res.Elapsed))
	if ctx.Err() != nil {
		tried = int64(res.Elapsed) // the client left: the search ran this long
	}
	if !res.Proven {
		// Stored with the longer try, so that the next requests as
		// short do not repeat it.
		canon.BestTriedNs = max(canon.BestTriedNs, tried)
		mine.answer = *canon
		storeBetter(ctx, p.search, key, *canon)
		spent()
		return true, false
	}
	if !res.BestComplete && tried <= canon.BestTriedNs {
		spent()
		return true, false
	}
	a := answerOf(res, frame.ToCanonical)
	if a.partial() {
		a.BestTriedNs = tried
	}
	p.search.withLength(bctx, &a, pos, res, tt, lengthShare, p.search.minLengthTime())
	if a.Plies == nil && canon.Plies != nil {
		// The length known before (the position's), and its checked
		// first move if it has one.
		a.Plies, a.LengthTriedNs = canon.Plies, 0
		withFirst(&a, *canon)
	}
	*canon = a
	mine.answer = a
	storeBetter(ctx, p.search, key, a)
	return true, true
}

// completion is a completeBest search under way: done is closed when it
// ends, answer then set when it found one (its waiters read it first: the
// cache may have failed to keep it).
type completion struct {
	done   chan struct{}
	answer PolyominoAnswer
}

// slotPoll is how often completeBest looks for a free solver slot.
const slotPoll = 5 * time.Millisecond

// completeMin is the least search completeBest starts.
const completeMin = 20 * time.Millisecond

// completeNeed is the budget completeBest needs to try to complete a:
// more than twice the search that made it (its recorded budget, else its
// own time, as a job unit's first-win proof), at least twice completeMin.
func completeNeed(a PolyominoAnswer) time.Duration {
	return 2 * max(time.Duration(a.BestTriedNs), time.Duration(a.ElapsedNs), completeMin)
}

// cachedBetter is the answer the cache holds for key when it is better
// than a, an answer of the same position (betterAnswer).
func (p *Polyomino) cachedBetter(ctx context.Context, key string, a PolyominoAnswer) (PolyominoAnswer, bool) {
	raw, ok, err := p.search.Loader.Cache().Get(cache.Fresh(cache.Uncounted(context.WithoutCancel(ctx))), key)
	if err != nil || !ok {
		return a, false
	}
	old, valid := decodeFinal[PolyominoAnswer](raw)
	if !valid {
		return a, false
	}
	return betterAnswer(a, old)
}

// betterAnswer is b when it is a better answer than a of the same
// position: final where a is partial, or partial after a longer search
// with at least as many best moves.
func betterAnswer(a, b PolyominoAnswer) (PolyominoAnswer, bool) {
	switch {
	case !b.Proven || b.Outcome != a.Outcome:
		return a, false
	case !b.partial():
		return b, a.partial()
	case a.partial() && b.BestTriedNs > a.BestTriedNs && len(b.BestMoves) >= len(a.BestMoves):
		return b, true
	}
	return a, false
}

// keep implements keptAnswer: a partial answer is kept (storeBetter).
func (a *PolyominoAnswer) keep(ctx context.Context, s *Searcher, key string) {
	if a.partial() {
		storeBetter(ctx, s, key, *a)
	}
}

// withFirst puts first in a's best moves the checked first move of old,
// an answer of the same position (PerfectFirst), when a has it and has
// none of its own. (It does not add it to a's best moves when a lacks it:
// the lists of partial answers are compared by their length, a list
// grown by a move the search did not find would refuse a longer search's
// shorter list; and a book answer's list is the book's.)
func withFirst(a *PolyominoAnswer, old PolyominoAnswer) {
	if a.PerfectFirst || !old.PerfectFirst || len(old.BestMoves) == 0 {
		return
	}
	if i := slices.Index(a.BestMoves, old.BestMoves[0]); i >= 0 {
		a.BestMoves = slices.Concat([]string{a.BestMoves[i]}, a.BestMoves[:i], a.BestMoves[i+1:])
		a.PerfectFirst = true
	}
}

// storeBetter stores the answer a for key unless the cache holds a
// better one: a final answer is never replaced by a partial one, nor a
// partial one by one that looked for the best moves less long (requests
// complete an entry concurrently, each from the copy it read); plies the
// entry knows and a lacks are kept. (Between the check and the write
// another request may store a better answer, which is then lost: the
// next request completes this one again.) A cache failure costs the next
// request the search that found a.
func storeBetter(ctx context.Context, s *Searcher, key string, a PolyominoAnswer) {
	raw, ok, err := s.Loader.Cache().Get(cache.Fresh(cache.Uncounted(context.WithoutCancel(ctx))), key)
	if err != nil {
		return // what the cache holds is unknown: it may be better
	}
	storeOver(ctx, s, key, a, raw, ok)
}

// storeOver is storeBetter over raw, what the cache held for key (ok:
// anything), read by the caller.
func storeOver(ctx context.Context, s *Searcher, key string, a PolyominoAnswer, raw []byte, ok bool) {
	if ok {
		if old, valid := decodeFinal[PolyominoAnswer](raw); valid && old.Outcome == a.Outcome {
			switch {
			case a.partial() && !old.partial():
				return
			case a.partial() && old.partial() && (a.BestTriedNs < old.BestTriedNs || len(a.BestMoves) < len(old.BestMoves)):
				return
			}
			if a.Plies == nil && old.Plies != nil && len(a.Moves) == 0 {
				a.Plies = old.Plies
				withFirst(&a, old)
			}
		}
	}
	if b, err := json.Marshal(a); err == nil {
		_ = s.Loader.Replace(context.WithoutCancel(ctx), key, b)
	}
}

// errBeyondJobs says why a position gets no job.
const errBeyondJobs = "no job: this position and every position after a move are beyond the search (too many placements; the heuristic player answers them within the budget), so a job would prove nothing"

// beyondJobs reports whether a polyomino.analyze job on pos would prove
// nothing: neither it nor any position after a move is searched.
func beyondJobs(pos *polyomino.Position) bool {
	return !polyomino.Searchable(pos) && !polyomino.SearchableAfterAMove(pos)
}

// analyzeKey is the cache key of the answer of pos.
func analyzeKey(pos *polyomino.Position, allMoves bool) string {
	return cacheKey("polyomino", fmt.Sprintf("all=%t", allMoves), polyomino.CanonicalKey(pos))
}

// unfinished: the answer leaves work to a background job: the value,
// or with all_moves the value of a move.
func (a PolyominoAnswer) unfinished(allMoves bool) bool {
	return !a.Proven || allMoves && !a.BestComplete
}

// inBackground hands a position the answer did not prove (with
// all_moves: not every move valued) to a polyomino.analyze job when the
// client asked for background work, and links the job from the answer.
func (p *Polyomino) inBackground(ctx context.Context, q PolyominoQuery, key string, a PolyominoAnswer) (PolyominoAnswer, error) {
	if !a.unfinished(q.AllMoves) || !q.Background || p.submit == nil {
		return a, nil
	}
	p.bgMu.Lock()
	down := time.Until(p.bgDown)
	p.bgMu.Unlock()
	if down > 0 {
		p.backgroundOutcome("store_down")
		a.JobError = fmt.Sprintf("the jobs store is unavailable: no background job (tried again in %v)", down.Round(time.Second))
		return a, nil
	}
	PauseAssembly(ctx) // the jobs store's round trip is no assembly
	sctx, cancel := context.WithTimeout(ctx, backgroundWait)
	defer cancel()
	// A job is shared by the requests of one client for one position,
	// the player to move included: its answer names the winner, and the
	// client may cancel it.
	key += "|to_move=" + a.ToMove + "|client=" + Client(ctx)
	if p.active != nil {
		p.bgMu.Lock()
		id, ok := p.bgJobs[key]
		p.bgMu.Unlock()
		if ok && p.active(sctx, id) {
			p.backgroundOutcome("shared")
			a.JobID = id
			return a, nil
		}
	}
	req, _ := json.Marshal(q)
	id, err := p.submit(sctx, PolyominoAnalyzeJob{}.Name(), req)
	switch {
	case err != nil && ctx.Err() == nil && (KindOf(err) == KindUnavailable || sctx.Err() != nil):
		// The jobs store is down (or too slow): the answer found is
		// worth more than a 503 (a store failure costs the background
		// work, not the answer).
		p.bgMu.Lock()
		p.bgDown = time.Now().Add(backgroundPause)
		p.bgMu.Unlock()
		p.backgroundOutcome("store_down")
		a.JobError = err.Error()
		return a, nil
	case KindOf(err) == KindBusy, KindOf(err) == KindRateLimited:
		// The server's cap on unfinished jobs, all or this client's, or
		// on this client's submissions.
		p.backgroundOutcome("capped")
		a.JobError = err.Error()
		return a, nil
	}
	if err != nil {
		return PolyominoAnswer{}, err
	}
	p.backgroundOutcome("started")
	if p.active != nil {
		p.bgMu.Lock()
		if p.bgJobs == nil || len(p.bgJobs) >= maxBackgroundJobs {
			p.bgJobs = map[string]string{}
		}
		p.bgJobs[key] = id
		p.bgMu.Unlock()
	}
	a.JobID = id
	return a, nil
}

// backgroundOutcome counts what became of a background analysis.
func (p *Polyomino) backgroundOutcome(outcome string) {
	if m := p.search.Metrics; m != nil {
		m.Background.WithLabelValues(outcome).Inc()
	}
}

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
	return out, nil
}

// PolyominoAnalyzeJob proves a position on the job system: one unit per
// symmetry class of its moves, each solving the position after that move
// (children proven elsewhere are shared through the cache), combined into
// the parent's value. Without all_moves the job ends as soon as a winning
// move is proven.
type PolyominoAnalyzeJob struct {
	Search      *Searcher
	MaxDuration time.Duration
	// Workers is the number of goroutines of one unit's search (0: every core).
	Workers int
}

// Name implements JobKind.
func (PolyominoAnalyzeJob) Name() string { return "polyomino.analyze" }

type polyUnit struct {
	Index int             `json:"index"`
	Move  string          `json:"move"`
	Query json.RawMessage `json:"query"`
	// Answer: the position's finished answer, in its canonical frame, as
	// the planner's cache held it (unit cachedWhole).
	Answer json.RawMessage `json:"answer,omitempty"`
}

// cachedWhole is the index of the one unit of a polyomino.analyze job
// whose position the planner's cache answers whole (the same job again,
// or a position a request proved): the unit carries that answer, so that
// any worker gives it (its own cache may not hold it). An earlier worker
// refuses the unit (an index that is no class): the job fails, asking for
// a resubmit.
const cachedWhole = -3

// cachedAnswer is the finished answer the cache holds for a job's
// position, when it answers the whole job: proven, every best move (every
// move's value with allMoves) and, in normal play, the plies, which a
// job's Combine would look for. A cache that fails says nothing: the job
// is planned in full.
func (j PolyominoAnalyzeJob) cachedAnswer(ctx context.Context, pos *polyomino.Position, allMoves bool) (json.RawMessage, bool) {
	if j.Search == nil || j.Search.Loader == nil {
		return nil, false
	}
	raw, ok, err := j.Search.Loader.Cache().Get(cache.Uncounted(ctx), analyzeKey(pos, allMoves))
	if err != nil || !ok {
		return nil, false
	}
	a, valid := decodeFinal[PolyominoAnswer](raw)
	if !valid || !a.BestComplete || allMoves && (len(a.Moves) == 0 || provenMoves(a.Moves) < len(a.Moves)) ||
		a.Plies == nil && pos.Game().Config().EndRule == polyomino.NormalPlay || !consistentWith(a, pos) {
		return nil, false
	}
	return raw, true
}

// decodeQuery decodes a polyomino.analyze job's request (or unit's query)
// and builds its position.
func decodeQuery(raw json.RawMessage) (PolyominoQuery, *polyomino.Position, error) {
	return decodeQueryFor(context.Background(), raw, false)
}

// decodeSubmitted is decodeQuery for a submission (Plan): its game, when
// not built lately, is built as a request's (requestPosition: the bounded
// queue, left when ctx ends), not in the workers' unbounded one (a
// review found submissions past their client's rate building 16 x 16
// games that way).
func decodeSubmitted(ctx context.Context, raw json.RawMessage) (PolyominoQuery, *polyomino.Position, error) {
	return decodeQueryFor(ctx, raw, true)
}

func decodeQueryFor(ctx context.Context, raw json.RawMessage, request bool) (PolyominoQuery, *polyomino.Position, error) {
	var q PolyominoQuery
	if err := DecodeRequest(raw, &q); err != nil {
		return q, nil, err
	}
	pos, err := q.positionFor(ctx, request)
	return q, pos, err
}

// Plan implements JobKind.
func (j PolyominoAnalyzeJob) Plan(ctx context.Context, request json.RawMessage) ([]json.RawMessage, error) {
	if q, ok := captureQuery(request); ok {
		// The capture variant is one unit: its search deepens a horizon
		// over the whole position (repetitions tie the turns together).
		if err := checkBudget(q.BudgetMs); err != nil {
			return nil, err
		}
		pos, err := q.requestCapturePosition(ctx)
		if err != nil {
			return nil, err
		}
		if pos.Over() {
			// As for the other games: a job has nothing to prove.
			return nil, Invalid("board", nil, "the game is over (the player to move has no legal turn, or the position repeated): analyze answers it at once")
		}
		u, _ := json.Marshal(polyUnit{Index: captureUnit, Query: request})
		return []json.RawMessage{u}, nil
	}
	q, pos, err := decodeSubmitted(ctx, request)
	if err != nil {
		return nil, err
	}
	// Refused when planned only: a job stored before this check was made
	// (its units never read the budget) still runs.
	if err := checkBudget(q.BudgetMs); err != nil {
		return nil, err
	}
	if pos.Game().Config().Variant == polyomino.Capture {
		return nil, Invalid("game", polyomino.ErrUnsupported, "the capture variant is game \"capture\"")
	}
	children := pos.Children()
	if len(children) == 0 {
		return nil, Invalid("board", nil, "the game is over: the player to move has no legal move")
	}
	if beyondJobs(pos) {
		return nil, Invalid("request", nil, "%s", errBeyondJobs)
	}
	if bookKnows(pos, q.AllMoves) {
		// The opening book answers the whole position: one unit reads it.
		u, _ := json.Marshal(polyUnit{Index: bookWhole, Query: request})
		return []json.RawMessage{u}, nil
	}
	if len(children) > 1 {
		// (One class: its unit is as cheap, and Combine tells a whole
		// answer by its one unit of many classes.)
		if raw, ok := j.cachedAnswer(ctx, pos, q.AllMoves); ok {
			u, _ := json.Marshal(polyUnit{Index: cachedWhole, Query: request, Answer: raw})
			return []json.RawMessage{u}, nil
		}
	}
	units := make([]json.RawMessage, len(children))
	for i, c := range children {
		move := ""
		if len(c.Moves) > 0 {
			move = c.Moves[0].String()
		}
		units[i], _ = json.Marshal(polyUnit{Index: i, Move: move, Query: request})
	}
	return units, nil
}

// Run implements JobKind: it solves one child, through the shared cache.
func (j PolyominoAnalyzeJob) Run(ctx context.Context, unit json.RawMessage, report func(int64)) (json.RawMessage, error) {
	var u polyUnit
	if err := json.Unmarshal(unit, &u); err != nil {
		return nil, fmt.Errorf("unit: %w", err)
	}
	if u.Index == captureUnit {
		return j.runCapture(ctx, u.Query, report)
	}
	q, pos, err := decodeQuery(u.Query)
	if err != nil {
		return nil, err
	}
	if u.Index == bookWhole {
		a, ok := bookAnswer(pos, q.AllMoves, true)
		if !ok {
			return nil, fmt.Errorf("the opening book no longer answers %s", u.Query)
		}
		return json.Marshal(a)
	}
	if u.Index == cachedWhole {
		a, valid := decodeFinal[PolyominoAnswer](u.Answer)
		if !valid || !consistentWith(a, pos) {
			return nil, fmt.Errorf("the answer the unit carries does not fit its position in this version")
		}
		a = fromCanonical(a, pos)
		a.Source = SourceCache
		return json.Marshal(a)
	}
	children := pos.Children()
	if u.Index < 0 || u.Index >= len(children) || len(children[u.Index].Moves) > 0 && children[u.Index].Moves[0].String() != u.Move {
		// Planned by another version, whose classes differ.
		return nil, fmt.Errorf("unit %d (%s) is not a class of this position's moves in this version", u.Index, u.Move)
	}
	child := children[u.Index].Position
	if a, ok := bookAnswer(child, false, true); ok {
		return json.Marshal(a) // a child the book knows: no search
	}
	if q.AllMoves {
		if a, ok := keptBookMove(ctx, j.Search, pos, children[u.Index]); ok {
			// A request valued the move (bookMoves): no proof, but the
			// child's plies, which the request did not look for (an
			// end-to-end check: 147 moves a request had valued were the
			// job's moves without plies).
			res := polyomino.Result{Outcome: polyomino.Outcome(a.Outcome), Proven: true, Value: a.Value}
			lctx, cancel := context.WithTimeout(ctx, j.MaxDuration)
			defer cancel()
			tt := j.Search.tables.get(child.Game())
			defer j.Search.tables.put(tt)
			j.Search.withLength(lctx, &a, child, res, tt, lengthJobShare, max(j.lengthLeast(), keptLengthMin))
			report(a.Nodes)
			return json.Marshal(a)
		}
	}
	if !polyomino.Searchable(child) {
		// Beyond the search: unknown at once (its heuristic move would
		// not serve the job).
		return json.Marshal(PolyominoAnswer{Outcome: string(polyomino.OutcomeUnknown)})
	}
	key := cacheKey("polyomino", "all=false", polyomino.CanonicalKey(child))
	raw, _, err := j.Search.Loader.LoadChecked(ctx, key, key, j.Search.validFor(j.MaxDuration), func(ctx context.Context) ([]byte, bool, error) {
		ctx, cancel := context.WithTimeout(ctx, j.MaxDuration)
		defer cancel()
		tt := j.Search.tables.get(child.Game())
		defer j.Search.tables.put(tt)
		// The parent needs the child's value only: a won child's search
		// stops at its first winning move (4 to 5 times faster over the
		// children of a 3-ply position: BENCHMARKS.md "Jobs").
		res, err := polyomino.Solve(ctx, child, polyomino.Options{FirstWin: true, Progress: report, Workers: j.Workers, Table: tt})
		if err != nil {
			return nil, false, err
		}
		if ctx.Err() != nil && !res.Proven {
			return nil, false, ctx.Err()
		}
		a := answerOf(res, child.Frame().ToCanonical)
		// The answer is cached for synchronous requests too: with their
		// plies.
		j.Search.withLength(ctx, &a, child, res, tt, lengthJobShare, j.lengthLeast())
		report(a.Nodes)
		j.Search.observeNodes("polyomino", a.Nodes)
		b, err := json.Marshal(a)
		if err == nil {
			a.keep(ctx, j.Search, key) // for synchronous requests, which may complete it
		}
		return b, res.Proven && res.BestComplete, err
	})
	if err != nil {
		return nil, err
	}
	return raw, nil
}

// keptLengthMin is the least time of the length search of a unit whose
// value a request found (keptBookMove): the proof it skipped would have
// taken longer (a child of a 3-ply position: about 0.1 s for its plies).
const keptLengthMin = 250 * time.Millisecond

// lengthLeast is the least time of a unit's length search: a first-win
// proof can take microseconds, its length search much longer (with a
// quarter of the proof's time only, 1 unit in 10 found its plies:
// BENCHMARKS.md "Jobs").
func (j PolyominoAnalyzeJob) lengthLeast() time.Duration {
	if j.Search.MinLengthTime > 0 {
		return j.Search.MinLengthTime
	}
	return lengthJobMin
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

// combinePlies gives a job's answer the plies its units found: each
// move's are its child's; the position's are one more than its fastest
// winning child's (every winning child known) or, lost, its slowest
// child's (every child known). Moves are then in perfect play's order.
func combinePlies(a *PolyominoAnswer, res polyomino.Result, children []polyomino.Child, rs []polyomino.Result, plies []*int, all bool) {
	childOf := map[string]int{}
	for i, c := range children {
		for _, m := range c.Moves {
			childOf[m.String()] = i
		}
	}
	for i := range a.Moves {
		if c, ok := childOf[a.Moves[i].Move]; ok && rs[c].Proven {
			a.Moves[i].Plies = plies[c]
		}
	}
	if a.Moves == nil && res.Proven && (res.Outcome == polyomino.Win || res.Outcome == polyomino.Loss) {
		// Without all_moves: the winning moves the fastest first, or
		// (lost: every move) the slowest first (see fastestFirst).
		key := func(m string) int {
			var p *int
			if c, ok := childOf[m]; ok {
				p = plies[c]
			}
			return lengthKey(res.Outcome == polyomino.Win, p, nil)
		}
		sort.SliceStable(a.BestMoves, func(x, y int) bool { return key(a.BestMoves[x]) < key(a.BestMoves[y]) })
	}
	if !res.Proven || !all || pos0(children) {
		fastestFirst(a)
		return
	}
	best := -1
	for i, r := range rs {
		childLost := r.Outcome == polyomino.Loss // the move wins
		if res.Outcome == polyomino.Win && !childLost {
			continue
		}
		if plies[i] == nil {
			fastestFirst(a)
			return
		}
		switch n := *plies[i]; {
		case best < 0, res.Outcome == polyomino.Win && n < best, res.Outcome == polyomino.Loss && n > best:
			best = n
		}
	}
	if best >= 0 {
		n := best + 1
		a.Plies = &n
		a.PerfectFirst = true // every winning (lost: every) child's plies known
	}
	fastestFirst(a)
}

// pos0 reports a position split into no child with a move (the player to
// move passes, or nothing is left): its plies are not a child's plus one.
func pos0(children []polyomino.Child) bool {
	return len(children) == 0 || len(children[0].Moves) == 0
}

// unitValue is what Combine reads of a unit's answer (a PolyominoAnswer).
type unitValue struct {
	Outcome   string `json:"outcome"`
	Proven    bool   `json:"proven"`
	Value     int    `json:"value"`
	Over      bool   `json:"over"`
	Plies     *int   `json:"plies"`
	Nodes     int64  `json:"nodes"`
	ElapsedNs int64  `json:"elapsed_ns"`
}

// combineCache keeps, for the last few jobs Combine saw (by request), the
// position's children and the values read from its units' answers (by
// the answer's bytes: two jobs of one request may have different
// answers): Combine runs after every unit of a job, with every result so
// far.
type combineCache struct {
	mu      sync.Mutex
	entries map[string]*combineEntry
	order   []string // oldest first
}

type combineEntry struct {
	children []polyomino.Child
	values   map[string]unitValue
}

var combineJobs = &combineCache{entries: map[string]*combineEntry{}}

// entry returns the request's entry, with pos.Children() computed once
// while the request is among the last 8.
func (c *combineCache) entry(request json.RawMessage, pos *polyomino.Position) *combineEntry {
	key := string(request)
	c.mu.Lock()
	e, ok := c.entries[key]
	c.mu.Unlock()
	if ok {
		return e
	}
	e = &combineEntry{children: pos.Children(), values: map[string]unitValue{}}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.entries[key]; ok {
		return old
	}
	if len(c.order) == 8 {
		delete(c.entries, c.order[0])
		c.order = c.order[1:]
	}
	c.entries[key] = e
	c.order = append(c.order, key)
	return e
}

// value is the unitValue of a unit's answer raw, decoded once.
func (c *combineCache) value(e *combineEntry, raw json.RawMessage) (unitValue, error) {
	c.mu.Lock()
	v, ok := e.values[string(raw)]
	c.mu.Unlock()
	if ok {
		return v, nil
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return v, err
	}
	c.mu.Lock()
	if len(e.values) < 4096 { // a job's units (a few MB at most)
		e.values[string(raw)] = v
	}
	c.mu.Unlock()
	return v, nil
}

// Combine implements JobKind.
func (j PolyominoAnalyzeJob) Combine(ctx context.Context, request json.RawMessage, total int, results map[int]json.RawMessage) (json.RawMessage, bool, error) {
	if _, ok := captureQuery(request); ok {
		raw, ok := results[0]
		return raw, ok, nil
	}
	q, pos, err := decodeQuery(request)
	if err != nil {
		return nil, false, err
	}
	if raw, ok := results[0]; ok && total == 1 && bookKnows(pos, q.AllMoves) {
		return raw, true, nil // the book's answer, whole
	}
	if raw, ok := results[0]; ok && total == 1 && len(combineJobs.entry(request, pos).children) > 1 {
		return raw, true, nil // the cache's answer, whole (cachedWhole)
	}
	// Called after every unit with every result so far: what is not
	// needed to tell whether the job is done waits until it is (each call
	// decoded every answer whole and listed the children: a job of 524
	// units spent 61 % of its time here).
	if q.AllMoves && len(results) < total {
		return nil, false, nil // every move's value is asked for
	}
	entry := combineJobs.entry(request, pos)
	children := entry.children
	rs := make([]polyomino.Result, len(children))
	plies := make([]*int, len(children)) // each child's, where its unit found them
	var nodes, elapsed int64
	for i, raw := range results {
		a, err := combineJobs.value(entry, raw)
		if err != nil {
			return nil, false, err
		}
		rs[i] = polyomino.Result{Outcome: polyomino.Outcome(a.Outcome), Proven: a.Proven, Value: a.Value, Over: a.Over}
		plies[i] = a.Plies
		nodes += a.Nodes
		elapsed += a.ElapsedNs
	}
	res, err := polyomino.Combine(pos, children, rs)
	if err != nil {
		return nil, false, err
	}
	done := len(results) == total || (res.Proven && res.Value > 0 && !q.AllMoves)
	if !done {
		return nil, false, nil
	}
	res.Nodes = nodes
	res.Elapsed = time.Duration(elapsed) // the units' search time, summed
	if !q.AllMoves {
		res.Moves = nil
	}
	// The children's moves are already the position's own: no frame.
	a := withPosition(answerOf(res, func(m polyomino.Move) polyomino.Move { return m }), pos)
	a.Source = SourceSearch
	combinePlies(&a, res, children, rs, plies, len(results) == total)
	normal := pos.Game().Config().EndRule == polyomino.NormalPlay
	var known polyomino.Result // the book's value of pos, when it knows it
	inBook := false
	if normal && j.Search != nil {
		known, inBook = bookResult(pos, false, true)
	}
	if q.AllMoves && inBook && (!res.Proven || known.Outcome == res.Outcome) {
		// The moves of a book position the job valued, for the requests
		// (bookMoves), which then need no search of them; when some are
		// left unknown (children beyond the search, polyomino.Searchable),
		// with the units' limit as the time tried: a request's search
		// would not value them either.
		kept := res
		kept.Outcome, kept.Proven, kept.Value = known.Outcome, true, known.Value // the book's, which a job that left moves unknown may not know
		var tried int64
		if !allValued(kept) {
			tried = int64(j.MaxDuration)
		}
		keepBookMoves(ctx, j.Search, pos, kept, tried)
	}
	if res.Proven && !pos0(children) && normal {
		a = withBookLengths(a, res, pos)
		if a.Plies == nil {
			j.finalLength(ctx, &a, pos, res)
		}
		if inBook && known.Outcome == res.Outcome && ctx.Err() == nil {
			// The requests of a book position answer from the book, with
			// the lengths of this entry (fromBook), not the job's.
			keepBookLengths(ctx, j.Search, pos, a, q.AllMoves)
		}
	}
	if a.Proven && ctx.Err() == nil && j.Search != nil && a.final() {
		// For the requests, here and in every process sharing the
		// cache: a position proven by a job answers them at once.
		j.cacheAnswer(ctx, analyzeKey(pos, q.AllMoves), canonicalAnswer(a, pos))
	}
	b, err := json.Marshal(a)
	return b, true, err
}

// cacheAnswer stores c, a finished job's answer in the canonical frame,
// under key for the requests, unless the cache holds an answer that knows
// as much (rank: a longer request's all_moves answer with more plies, say).
// An answer stopped at its first win is kept without a time of its own:
// the units' summed time would make completeNeed refuse a request the
// completion of its best moves.
func (j PolyominoAnalyzeJob) cacheAnswer(ctx context.Context, key string, c PolyominoAnswer) {
	raw, ok, err := j.Search.Loader.Cache().Get(cache.Fresh(cache.Uncounted(context.WithoutCancel(ctx))), key)
	if err != nil {
		return // what the cache holds is unknown: it may know more
	}
	if ok {
		if old, valid := decodeFinal[PolyominoAnswer](raw); valid && old.Outcome == c.Outcome && slices.Compare(old.rank(), c.rank()) >= 0 {
			return
		}
	}
	if c.partial() {
		c.ElapsedNs = 0
	}
	storeOver(ctx, j.Search, key, c, raw, ok)
}

// canonicalAnswer is a, an answer of pos, as the cache keeps it: its
// moves in pos's canonical frame, without what belongs to the position or
// the request (fromCanonical and toPosition add them back).
func canonicalAnswer(a PolyominoAnswer, pos *polyomino.Position) PolyominoAnswer {
	c := PolyominoAnswer{
		Outcome: a.Outcome, Proven: a.Proven, Value: a.Value, BestComplete: a.BestComplete,
		Plies: a.Plies, LengthTriedNs: a.LengthTriedNs, PerfectFirst: a.PerfectFirst, BestTriedNs: a.BestTriedNs,
		Heuristic: a.Heuristic, LegalMoves: a.LegalMoves, Over: a.Over, Pass: a.Pass,
		Nodes: a.Nodes, ElapsedNs: a.ElapsedNs, BestMoves: a.BestMoves, Moves: a.Moves,
	}
	return mapMoves(c, pos.Frame().ToCanonical)
}

// finalLengthMax bounds the length search of a finished job's position
// (finalLength; and the job's unit limit does). It runs in Combine, after
// the unit's run: its slot is held, an express slot's too (beyond its
// limit), and every unit finishing before the job ends runs one (a job
// stopped at a first win; a cancel, the job's end or a shutdown stops it
// at the unit's next heartbeat). Hence a few seconds at most; the search
// ends when it has the plies, and a position's fastest win, the common
// case, is found in well under that. (A quarter
// of the units' time, at least 250 ms, was too little for a job that
// stopped at its first win after a second: the 8 x 8 position three plies
// in, a win in 7 found by a request in about a second, got no plies.)
const finalLengthMax = 3 * time.Second

// finalLength gives a finished job's proven answer the plies of its
// position, which its units' length searches did not give (each winning
// move's own plies were needed: a lost position's slowest loss each, where
// the position's fastest win is often far cheaper to find, as a request's
// length search finds it), with a move perfect play chooses first among
// the best moves (bestFirst) and, with all moves, that move's plies. Its
// nodes and time count in the answer's.
func (j PolyominoAnalyzeJob) finalLength(ctx context.Context, a *PolyominoAnswer, pos *polyomino.Position, res polyomino.Result) {
	d := finalLengthMax
	if j.MaxDuration > 0 {
		d = min(d, j.MaxDuration)
	}
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	start := time.Now()
	defer func() { a.ElapsedNs += int64(time.Since(start)) }()
	lengths := polyomino.NewLengths(ctx, pos, polyomino.LengthOptions{MaxNodes: lengthMaxNodes})
	if lengths == nil {
		return
	}
	defer lengths.Close()
	l := lengths.Length(res.Outcome)
	a.Nodes += l.Nodes
	if !l.Proven {
		return
	}
	n := l.Plies
	a.Plies = &n
	best := ""
	if f := l.Fastest; f != nil {
		if slices.Contains(a.BestMoves, f.String()) {
			best = f.String()
			withFirst(a, PolyominoAnswer{PerfectFirst: true, BestMoves: []string{best}})
		} else if !a.BestComplete {
			// A job stopped at its first win lists the wins found by
			// then: the fastest joins them, first.
			best = f.String()
			withFastest(a, best)
		}
	}
	if best == "" {
		// bestFirst reads a's best moves and res's in the same order:
		// a's, which combinePlies sorted by the units' plies.
		ordered := res
		ordered.BestMoves = make([]polyomino.Move, 0, len(a.BestMoves))
		for _, s := range a.BestMoves {
			if m, err := polyomino.ParseMove(s); err == nil {
				ordered.BestMoves = append(ordered.BestMoves, m)
			}
		}
		best = bestFirst(a, lengths, ordered)
	}
	for i := range a.Moves {
		if a.Moves[i].Move == best && a.Moves[i].Plies == nil {
			m := n - 1
			a.Moves[i].Plies = &m
		}
	}
	fastestFirst(a)
}

// PolyominoInfo describes the placement games for the catalogue.
func PolyominoInfo() GameInfo {
	info := GameInfo{
		ID:          "polyomino",
		Name:        "Polyomino placement games",
		Description: "Golomb's Pentominoes and relatives: players take turns placing free polyominoes (any rotation or reflection) on empty cells of a board; each piece exists once. Exact values where the search proves them within the budget, else the move of a heuristic player.",
		Endpoints:   []string{"POST /v1/polyomino/analyze", "POST /v1/polyomino/moves", "POST /v1/jobs (type polyomino.analyze)", "POST /v1/jobs (type polyomino.book: Pentominoes 8 x 8 positions, every move class proved won or lost)"},
		Variants: []Variant{
			{Name: "standard", Description: "Golomb's game: pieces placed in turn, each once; the player who cannot place loses (end_rule normal), or under the score rule each scores the pieces he placed", Request: map[string]string{"game": "pentominoes"}},
			{Name: "score rule", Description: "a player who cannot place passes; when neither can, the higher count of pieces placed wins (draws possible)", Request: map[string]string{"end_rule": "score"}},
			{Name: "capture", Description: "O'Dwyer's capture variant: a placement captures pieces sharing 3 or more unit edges with it, and a player may first return his marked pieces to the pool", Request: map[string]string{"game": "capture"}},
		},
		Parameters: []Parameter{
			{Name: "game", Description: "a preset", Values: []string{"pentominoes", "tetrominoes", "hexominoes", "capture"}, Default: "pentominoes"},
			{Name: "width, height, blocked, pieces, order, pool, hands, neutral, seed, end_rule", Description: "overrides of the preset's fields (order: 4, 5 or 6, for piece names of two orders: I, L, T)"},
			{Name: "board", Description: "one string per row, top row first: '.' empty, '#' blocked or covered by an anonymous piece, any other character a cell of a placed piece (cells sharing a character form one piece, named by its shape); the rows show the whole position, neutral pieces included"},
			{Name: "moves", Description: "moves from the start, <piece>:<cells> with cells in reading order, e.g. L:a1,a2,a3,a4,b4 (a1 is the top-left cell); any cell order is accepted"},
			{Name: "to_move", Description: "first or second; defaults from the pieces placed", Values: []string{"first", "second"}},
			{Name: "budget_ms", Description: "time budget of the answer in milliseconds, capped by the server, not counting a wait for a free solver slot; when the search cannot finish within it, the answer carries the heuristic player's move, chosen within it"},
			{Name: "all_moves", Description: "value every legal move"},
			{Name: "background", Description: "when not proven within the budget (with all_moves: when not every move is valued), continue as a job (type polyomino.analyze) and return its link (repeated requests for the position share the job while it is queued or running, per server process); a capture position is one unit searched for the job's whole time limit; a position beyond the search (neither it nor any position after a move is searched, like the hexomino opening) gets no job, and job_error says why"},
			{Name: "markers, pool, banned", Description: "capture variant: markers of pieces on the board (piece -> first/second), the pool as a list of pieces, and pieces removed on the turn in progress; a turn is written with its removals first, e.g. \"~Y Z:b3,c3,c4,c5,d5\""},
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
