package service

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/gamesolver/gamesolver/engine/tiling"
	"github.com/gamesolver/gamesolver/service/cache"
)

// Tilings counts and lists the tilings of regions by polyominoes.
type Tilings struct {
	search *Searcher
	// maxLimit caps the number of solutions listed.
	maxLimit int
}

// NewTilings returns the tiling use case over a searcher.
func NewTilings(s *Searcher) *Tilings { return &Tilings{search: s, maxLimit: 1000} }

// TilingQuery is a tiling puzzle as a client gives it.
type TilingQuery struct {
	Width, Height int
	Blocked       []string
	// Board, instead of width/height/blocked: rows top first, '.' open,
	// '#' blocked.
	Board []string
	// Pieces, nil when not given (the twelve pentominoes).
	Pieces        *PieceNames
	Order         int
	Multiset      bool
	AllowLeftover bool
	Limit         int
	EveryTiling   bool
	BudgetMs      int64
}

// TilingAnswer is the result of a tiling query.
type TilingAnswer struct {
	Result tiling.Result
	Pieces string
	Rows   []string
	Source string
	// Budget is the budget the search ran under (after the server cap).
	Budget time.Duration
}

// tilingAnswer is what is cached for a problem.
type tilingAnswer struct {
	Result tiling.Result `json:"result"`
}

// final: a cached count is complete.
func (a *tilingAnswer) final() bool { return a.Result.Complete }

// problem validates a query into an engine problem.
func (t *Tilings) problem(q TilingQuery) (tiling.Problem, error) {
	var (
		region tiling.Region
		err    error
	)
	switch {
	case len(q.Board) > 0 || q.Board != nil && q.Width == 0 && q.Height == 0 && len(q.Blocked) == 0:
		// Board rows; board [] alone is refused as a board without rows,
		// beside a width and height it is taken as absent.
		if q.Width != 0 || q.Height != 0 || len(q.Blocked) > 0 {
			return tiling.Problem{}, Invalid("board", nil, "give the region either as board rows or as width, height and blocked, not both")
		}
		region, err = tiling.ParseBoard(q.Board)
		if err != nil {
			return tiling.Problem{}, Invalid("board", err, "%s", err.Error())
		}
	case q.Width == 0 && q.Height == 0:
		return tiling.Problem{}, Invalid("width", nil, "no region: give width and height (and blocked cells), or board rows")
	case q.Width == 0 || q.Height == 0:
		missing, given, g := "width", "height", q.Height
		if q.Height == 0 {
			missing, given, g = given, missing, q.Width
		}
		if g < 1 || g > tiling.MaxSide {
			return tiling.Problem{}, Invalid(given, nil, "%s %d: expected 1..%d (and %s is missing or 0)", given, g, tiling.MaxSide, missing)
		}
		return tiling.Problem{}, Invalid(missing, nil, "%s is missing or 0: give both width and height (%s alone is not a region), or board rows", missing, given)
	default:
		region, err = tiling.ParseRegion(q.Width, q.Height, q.Blocked)
		if err != nil {
			field := "blocked"
			switch {
			case q.Width < 1 || q.Width > tiling.MaxSide:
				field = "width"
			case q.Height < 1 || q.Height > tiling.MaxSide || q.Width*q.Height > tiling.MaxCells:
				field = "height"
			}
			return tiling.Problem{}, Invalid(field, err, "%s", err.Error())
		}
	}
	spec := "" // empty: the twelve pentominoes (an empty pieces given is refused by checkPieces)
	if q.Pieces != nil {
		spec = string(*q.Pieces)
	}
	pieces, err := tiling.ParsePieces(spec, q.Order)
	if err != nil {
		field := "pieces"
		if q.Order != 0 && (q.Order < 4 || q.Order > 6) {
			field = "order"
		}
		return tiling.Problem{}, Invalid(field, err, "%s", err.Error())
	}
	p := tiling.Problem{Region: region, Pieces: pieces, Multiset: q.Multiset, AllowLeftover: q.AllowLeftover}
	if err := p.Validate(); err != nil {
		field := "pieces"
		if errors.Is(err, tiling.ErrAreaMismatch) || errors.Is(err, tiling.ErrBadRegion) {
			// The field whose change the message asks for: more cells
			// blocked, or fewer (when that is enough), else fewer pieces
			// (those given) or a larger region.
			switch need, open := pieces.Area(), region.Area(); {
			case len(q.Board) > 0:
				field = "board"
			case !errors.Is(err, tiling.ErrAreaMismatch) || need < open || open+len(q.Blocked) >= need:
				field = "blocked"
			case q.Pieces == nil:
				field = "width"
			}
		}
		return tiling.Problem{}, Invalid(field, err, "%s", err.Error())
	}
	if q.Limit < 0 || q.Limit > t.maxLimit {
		return tiling.Problem{}, Invalid("limit", nil, "limit %d: expected 0..%d", q.Limit, t.maxLimit)
	}
	if err := checkBudget(q.BudgetMs); err != nil {
		return tiling.Problem{}, err
	}
	return p, nil
}

// checkPieces refuses an empty pieces given (it meant the twelve
// pentominoes, as analyze's does not), and an empty name in the list. Refused when asked or planned only:
// a job stored before this check was made still runs.
func checkPieces(q TilingQuery) error {
	if q.Pieces != nil && strings.TrimSpace(string(*q.Pieces)) == "" {
		return Invalid("pieces", nil, "pieces is empty: name at least one piece (\"FILNP\", \"H01,H02\", [\"F\",\"I\"]) or a set (\"pentominoes\"), or leave it out for the twelve pentominoes")
	}
	return checkPieceNames(q.Pieces)
}

// key identifies a problem for the cache: the region's rows, the sorted
// piece list and every option that changes the answer. Solutions are
// listed in search order, which does not depend on the worker count.
// Without solutions (limit 0) the answer depends on the open cells up to
// congruence only: a region rotated, reflected or moved shares its key
// (tiling.Region.Shape).
func tilingKey(p tiling.Problem, q TilingQuery) string {
	region := p.Region.String()
	if q.Limit == 0 {
		region = "shape:" + p.Region.Shape()
	}
	// Each piece by its order and name: I, L and T name a tetromino and a
	// pentomino, and hexomino names are three characters (a key of the
	// list's characters sorted gave H12 and H21 one key: an audit got
	// another puzzle's answer from the cache).
	names := make([]string, len(p.Pieces))
	for i, pc := range p.Pieces {
		names[i] = fmt.Sprintf("%d%s", pc.Size(), pc.Name)
	}
	sort.Strings(names)
	variant := fmt.Sprintf("limit=%d,every=%t,multi=%t,leftover=%t", q.Limit, q.EveryTiling, q.Multiset, q.AllowLeftover)
	return cacheKey("tiling", variant, region+"|"+strings.Join(names, ","))
}

// quickTilingCells: regions of at most this many open cells get a quick
// try without a slot (runOptions.Quick, quickNodes nodes).
const quickTilingCells = 64

// Solve counts the tilings of a problem.
func (t *Tilings) Solve(ctx context.Context, q TilingQuery) (TilingAnswer, error) {
	if err := checkPieces(q); err != nil {
		return TilingAnswer{}, err
	}
	p, err := t.problem(q)
	if err != nil {
		return TilingAnswer{}, err
	}
	budget := t.search.Budgets.Clamp(q.BudgetMs)
	a, source, err := runCached(ctx, t.search, "tiling", tilingKey(p, q), budget, &runOptions[tilingAnswer]{
		Consistent: func(a tilingAnswer) bool { return consistentTiling(a, p, q) },
		Quick: func(ctx context.Context) (tilingAnswer, int64, bool) {
			// A small puzzle counted in a few milliseconds does not wait
			// behind a long count for the slot (an audit's 5 x 1 strip
			// waited 2 s, then got 503). Not tried on larger regions:
			// setting the search up outlasts the try (16 x 16 with the
			// hexominoes: 0.1 s).
			if p.Region.Area() > quickTilingCells {
				return tilingAnswer{}, 0, false
			}
			r, err := tiling.Solve(ctx, p, tiling.Options{Limit: q.Limit, EveryTiling: q.EveryTiling, Workers: 1, MaxNodes: quickNodes})
			return tilingAnswer{Result: r}, r.Nodes, err == nil && r.Complete
		}},
		func(ctx context.Context) (tilingAnswer, int64, bool, error) {
			r, err := tiling.Solve(ctx, p, tiling.Options{Limit: q.Limit, EveryTiling: q.EveryTiling, Workers: t.search.Workers})
			return tilingAnswer{Result: r}, r.Nodes, r.Complete, err
		})
	if err != nil {
		return TilingAnswer{}, err
	}
	return tilingAnswerOf(a.Result, p, source, budget), nil
}

// tilingAnswerOf is the answer of the search's result r for p.
func tilingAnswerOf(r tiling.Result, p tiling.Problem, source string, budget time.Duration) TilingAnswer {
	return TilingAnswer{Result: r, Pieces: p.Pieces.String(), Rows: p.Region.Rows(), Source: source, Budget: budget}
}

// tilingJobAnswer is a job's answer from a cached tilingAnswer raw.
func tilingJobAnswer(raw []byte, p tiling.Problem, source string, budget time.Duration) (json.RawMessage, error) {
	var a tilingAnswer
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, fmt.Errorf("decode tiling answer: %w", err)
	}
	return json.Marshal(tilingAnswerOf(a.Result, p, source, budget))
}

// TilingsJob runs a tiling count as a job, without the request budget: a
// job may run up to its own cap.
type TilingsJob struct {
	Tilings *Tilings
	// MaxDuration bounds a unit: a job of one unit, or each of its parts.
	MaxDuration time.Duration
	// Workers is the number of goroutines of the count (0: every core).
	Workers int
}

// Name implements JobKind.
func (TilingsJob) Name() string { return "polyomino.tilings" }

// UnitFormat is the format of the units and results of the polyomino.tilings jobs this
// version plans and reads (jobs.Versioned): raise it with any change an
// earlier worker would misread. 1: those of 2026-11-29.
func (TilingsJob) UnitFormat() int { return 1 }

// tilingsJobRequest is the body of POST /v1/polyomino/tilings.
type tilingsJobRequest struct {
	Width         int         `json:"width"`
	Height        int         `json:"height"`
	Blocked       []string    `json:"blocked"`
	Board         []string    `json:"board"`
	Pieces        *PieceNames `json:"pieces"`
	Order         int         `json:"order"`
	Multiset      bool        `json:"multiset"`
	AllowLeftover bool        `json:"allow_leftover"`
	Limit         int         `json:"limit"`
	EveryTiling   bool        `json:"every_tiling"`
	BudgetMs      int64       `json:"budget_ms"`
}

func (r tilingsJobRequest) query() TilingQuery {
	return TilingQuery(r) // the same fields; their tags differ
}

// tilingParts is how many units a tilings job without a budget has: each
// counts a part of the search (tiling.Options.Parts) on every core of its
// worker, so that a worker that stops loses a part's work, not the
// count's, and the job's progress moves.
const tilingParts = 16

// tilingsPart is the unit of one part of a tilings job. It leaves out the
// job's request, which Run is given (units planned before 2026-11-28
// carry it as Request, and run the same).
type tilingsPart struct {
	Request json.RawMessage `json:"request,omitempty"`
	Part    int             `json:"part"`
	Parts   int             `json:"parts"`
	// Version is the tiling.PartsVersion of the planner: a worker of
	// another cuts the search otherwise (-1 for a unit that carries
	// Cached, which no earlier worker runs).
	Version int `json:"version"`
	// Cached is the complete answer the planner's cache held (a
	// tilingAnswer): the unit's answer, whatever the worker's cache holds
	// (the planner's copy may be in its memory only, the shared cache
	// having lost it). Its Version is -1, which a worker of a version
	// without Cached refuses.
	Cached json.RawMessage `json:"cached,omitempty"`
}

// Plan implements JobKind: the request is validated now. A job with a
// budget (budget_ms), whose search may stop before the end, is one unit;
// a job whose count the cache holds, one unit that carries it; any other,
// tilingParts.
func (j TilingsJob) Plan(ctx context.Context, request json.RawMessage) ([]json.RawMessage, error) {
	q, p, err := j.problemOf(request)
	if err != nil {
		return nil, err
	}
	if err := checkPieces(q); err != nil {
		return nil, err
	}
	if q.BudgetMs > 0 {
		return []json.RawMessage{request}, nil
	}
	if raw, ok, err := j.Tilings.search.Loader.Cache().Get(ctx, tilingKey(p, q)); err == nil && ok && validTiling(j.Tilings.search, p, q)(raw) {
		// Version -1: a worker of a version without Cached refuses the
		// unit ("planned by a version cutting the search otherwise") and
		// the job fails, asking for it again, instead of counting the
		// search and ending with a part's answer as the job's.
		unit, err := json.Marshal(tilingsPart{Part: 0, Parts: 1, Version: -1, Cached: raw})
		return []json.RawMessage{unit}, err
	}
	units := make([]json.RawMessage, tilingParts)
	for k := range units {
		if units[k], err = json.Marshal(tilingsPart{Part: k, Parts: tilingParts, Version: tiling.PartsVersion}); err != nil {
			return nil, err
		}
	}
	return units, nil
}

// Run implements JobKind: a unit counts the whole search (a copy of the
// request) or one part of it (a tilingsPart, of the job's request).
func (j TilingsJob) Run(ctx context.Context, request, unit json.RawMessage, report func(int64)) (json.RawMessage, error) {
	var part tilingsPart
	if json.Unmarshal(unit, &part) == nil && (part.Request != nil || part.Parts > 0) {
		if part.Request == nil {
			if request == nil {
				return nil, errors.New("unit: a part of a tilings job run without the job's request")
			}
			part.Request = request
		}
		if part.Cached != nil {
			return j.fromCache(part)
		}
		return j.runPart(ctx, part, report)
	}
	q, p, err := j.problemOf(unit)
	if err != nil {
		return nil, err
	}
	budget := Budgets{Default: j.MaxDuration, Max: j.MaxDuration}.Clamp(q.BudgetMs)
	// The requests' cache: a count a request or an earlier job completed
	// is not counted again, and a complete count is kept for them. (A
	// flight of the jobs of its budget: a request's search, or a job's of
	// another budget, may stop at another point.)
	key := tilingKey(p, q)
	raw, origin, err := j.Tilings.search.Loader.LoadChecked(ctx, key, key+"|job|budget="+budget.String(), validTiling(j.Tilings.search, p, q),
		func(ctx context.Context) ([]byte, bool, error) {
			res, err := tiling.Solve(ctx, p, tiling.Options{Limit: q.Limit, EveryTiling: q.EveryTiling, Budget: budget, Workers: j.Workers,
				Progress: func(pr tiling.Progress) { report(pr.Nodes) }})
			if err != nil {
				return nil, false, err
			}
			if ctx.Err() != nil {
				return nil, false, ctx.Err() // handed back, not a partial answer
			}
			report(res.Nodes)
			j.Tilings.search.observeNodes("tiling", res.Nodes)
			b, err := json.Marshal(tilingAnswer{Result: res})
			return b, res.Complete, err
		})
	if err != nil {
		return nil, err
	}
	source := SourceSearch
	if origin == cache.Cached {
		source = SourceCache
	}
	return tilingJobAnswer(raw, p, source, budget)
}

// fromCache is the answer of a unit that carries the cached count.
func (j TilingsJob) fromCache(u tilingsPart) (json.RawMessage, error) {
	q, p, err := j.problemOf(u.Request)
	if err != nil {
		return nil, err
	}
	return tilingJobAnswer(u.Cached, p, SourceCache, Budgets{Default: j.MaxDuration, Max: j.MaxDuration}.Clamp(q.BudgetMs))
}

// problemOf decodes a job's request (or a unit that is one) into its
// query and problem.
func (j TilingsJob) problemOf(raw json.RawMessage) (TilingQuery, tiling.Problem, error) {
	var r tilingsJobRequest
	if err := DecodeRequest(raw, &r); err != nil {
		return TilingQuery{}, tiling.Problem{}, err
	}
	q := r.query()
	p, err := j.Tilings.problem(q)
	return q, p, err
}

// validTiling vets a cached tiling answer of the problem p asked by q (a
// complete count, consistentTiling).
func validTiling(s *Searcher, p tiling.Problem, q TilingQuery) func([]byte) bool {
	return func(raw []byte) bool {
		a, ok := validCached[tilingAnswer](s, raw)
		if ok && !consistentTiling(a, p, q) {
			if s.Metrics != nil {
				s.Metrics.CacheResults.WithLabelValues("answer", "invalid").Inc()
			}
			return false
		}
		return ok
	}
}

// consistentTiling checks a cached answer against the problem asked
// (tiling.Problem.Check: its counts coherent, its tilings real tilings of
// the region by the pieces, as many as the limit lists): an entry an
// earlier version, a bug or a hand wrote that fails is counted again and
// replaced (an audit's edited Redis entry was served).
func consistentTiling(a tilingAnswer, p tiling.Problem, q TilingQuery) bool {
	return p.Check(a.Result, tiling.Options{Limit: q.Limit, EveryTiling: q.EveryTiling}) == nil
}

// runPart counts one part of a job's search; its result is the engine's
// (tilingAnswer: the part's Fixed, CountAll and solutions).
func (j TilingsJob) runPart(ctx context.Context, u tilingsPart, report func(int64)) (json.RawMessage, error) {
	if u.Version != tiling.PartsVersion {
		return nil, fmt.Errorf("unit: part %d of %d planned by a version cutting the search otherwise (parts version %d, this worker's %d): submit the job again", u.Part, u.Parts, u.Version, tiling.PartsVersion)
	}
	q, p, err := j.problemOf(u.Request)
	if err != nil {
		return nil, err
	}
	res, err := tiling.Solve(ctx, p, tiling.Options{Limit: q.Limit, EveryTiling: q.EveryTiling, Workers: j.Workers,
		Budget: j.MaxDuration, Parts: u.Parts, Part: u.Part,
		Progress: func(pr tiling.Progress) { report(pr.Nodes) }})
	if err != nil {
		return nil, err
	}
	if ctx.Err() != nil {
		return nil, ctx.Err() // handed back, not a partial answer
	}
	report(res.Nodes)
	j.Tilings.search.observeNodes("tiling", res.Nodes)
	return json.Marshal(tilingAnswer{Result: res})
}

// Combine implements JobKind: a one-unit job's answer is its unit's; the
// parts of a job add up (their solutions listed part after part are the
// search's, in its order), and a complete count is kept in the cache for
// the requests.
func (j TilingsJob) Combine(ctx context.Context, request json.RawMessage, total int, results map[int]json.RawMessage) (json.RawMessage, bool, error) {
	if total == 1 {
		r, ok := results[0]
		return r, ok, nil
	}
	if len(results) < total {
		return nil, false, nil
	}
	q, p, err := j.problemOf(request)
	if err != nil {
		return nil, false, err
	}
	sum := tiling.Result{Complete: true}
	// One tiling a class unless every tiling is asked for: a part cut
	// short lists a tiling of each class it found, which another part may
	// list too.
	listed := map[string]bool{}
	for k := range total {
		var a tilingAnswer
		if err := json.Unmarshal(results[k], &a); err != nil {
			return nil, false, fmt.Errorf("decode part %d: %w", k, err)
		}
		part := a.Result
		sum.CountAll += part.CountAll
		sum.Fixed += part.Fixed
		sum.Nodes += part.Nodes
		sum.Elapsed += part.Elapsed // the parts' search time, summed (not the job's wall time)
		sum.Subtrees += part.Subtrees
		sum.Symmetries = part.Symmetries
		sum.Complete = sum.Complete && part.Complete
		for i, s := range part.Solutions {
			if len(sum.Solutions) >= q.Limit || i >= len(part.Placements) {
				break
			}
			if !q.EveryTiling {
				class := p.Region.TilingClass(part.Placements[i])
				if listed[class] {
					continue
				}
				listed[class] = true
			}
			sum.Solutions = append(sum.Solutions, s)
			sum.Placements = append(sum.Placements, part.Placements[i])
		}
	}
	if sum.Symmetries > 0 {
		sum.Count = sum.Fixed / int64(sum.Symmetries)
	}
	if sum.Complete {
		if b, err := json.Marshal(tilingAnswer{Result: sum}); err == nil {
			_ = j.Tilings.search.Loader.Replace(context.WithoutCancel(ctx), tilingKey(p, q), b)
		}
	}
	budget := Budgets{Default: j.MaxDuration, Max: j.MaxDuration}.Clamp(q.BudgetMs)
	b, err := json.Marshal(tilingAnswerOf(sum, p, SourceSearch, budget))
	return b, true, err
}

// TilingInfo describes the tiling puzzles for the catalogue.
func TilingInfo() GameInfo {
	return GameInfo{
		ID:          "tiling",
		Name:        "Polyomino tiling puzzles",
		Description: "Cover every open cell of a region (a rectangle with blocked cells, up to 26 cells on a side and 256 in all, so that long boxes such as 3 x 20 fit) exactly once with a set of polyominoes of one order, by default the twelve pentominoes each once. Counts every tiling and the tilings distinct up to the symmetries of the region, and lists some.",
		Endpoints:   []string{"POST /v1/polyomino/tilings", "POST /v1/jobs (type polyomino.tilings)"},
		Parameters: []Parameter{
			{Name: "width", Type: "integer", Description: "the region's width, 1..26, at most 256 cells in all (or the board rows')"},
			{Name: "height", Type: "integer", Description: "the region's height, 1..26, at most 256 cells in all (or the board rows')"},
			{Name: "blocked", Type: "array", Description: "the region's blocked cells, e.g. [\"c3\",\"d4\"] (a1 is the top-left cell)"},
			{Name: "board", Type: "array", Description: "the region as rows, top first: '.' open, '#' blocked"},
			{Name: "pieces", Type: "string|array", Description: "piece names (FILNPTUVWXYZ, H01,H02, ...), a list of names ([\"F\",\"I\"]) or a whole set", Default: "FILNPTUVWXYZ"},
			{Name: "order", Type: "integer", Description: "the pieces' order (4, 5 or 6), for names of two orders (I, L, T); default inferred from the names", Values: []string{"4", "5", "6"}},
			{Name: "multiset", Type: "boolean", Description: "true: a piece may be listed more than once (\"LLLL\")", Values: []string{"false", "true"}, Default: "false"},
			{Name: "allow_leftover", Type: "boolean", Description: "true: the pieces may cover fewer cells than are open (each piece still used once)", Values: []string{"false", "true"}, Default: "false"},
			{Name: "limit", Type: "integer", Description: "solutions to list (0..1000): without it, only the counts", Default: "0"},
			{Name: "every_tiling", Type: "boolean", Description: "true: solutions lists every tiling, symmetric images included, instead of one per class", Values: []string{"false", "true"}, Default: "false"},
			{Name: "budget_ms", Type: "integer", Description: "search budget in milliseconds, capped by the server"},
		},
		Notes: []string{
			"count is the number of tilings distinct up to the symmetries of the region: the rotations and reflections of its open cells onto themselves, wherever they lie in the rectangle (a 5 x 5 square beside a blocked column has 8); Burnside-exact: symmetric tilings are counted once.",
		},
	}
}
