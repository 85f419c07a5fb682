package service

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/gamesolver/gamesolver/engine/capture"
	"github.com/gamesolver/gamesolver/service/cache"
)

// isCapture reports whether a query is about O'Dwyer's capture variant.
func (q PolyominoQuery) isCapture() bool {
	return strings.ToLower(strings.TrimSpace(q.Game)) == "capture"
}

// captureConfig applies the overrides that make sense for the capture
// variant to its preset, and refuses the others.
func (q PolyominoQuery) captureConfig() (capture.Config, error) {
	cfg := capture.DefaultConfig()
	switch {
	case q.Hands != nil:
		return cfg, Invalid("hands", nil, "the capture variant plays from a common pool: hands do not apply")
	case q.EndRule != "":
		return cfg, Invalid("end_rule", nil, "the capture variant has its own end: the player who cannot place loses")
	case q.Neutral != nil:
		return cfg, Invalid("neutral", nil, "the capture variant has no neutral piece")
	case q.Seed != nil:
		return cfg, Invalid("seed", nil, "the capture variant deals no hands: seed does not apply")
	case q.Pool != nil && !*q.Pool:
		return cfg, Invalid("pool", nil, "the capture variant plays from a common pool: pool=false does not apply (give the pool as a list of pieces)")
	}
	err := q.boardAndPieces(&cfg.Width, &cfg.Height, &cfg.Blocked, &cfg.Order, &cfg.Pieces)
	return cfg, err
}

// capturePosition builds the position of a capture query.
func (q PolyominoQuery) capturePosition() (*capture.Position, error) {
	return q.capturePositionFor(context.Background(), false)
}

// requestCapturePosition is capturePosition for a request: its game, when
// not built lately, is built in the requests' bounded queue
// (capture.NewGameContext: 503 busy when full) while ctx lasts (a request
// that ends leaves the queue, its error ctx's); a piece list with an
// empty name is refused (checkPieceNames).
func (q PolyominoQuery) requestCapturePosition(ctx context.Context) (*capture.Position, error) {
	if err := checkPieceNames(q.Pieces); err != nil {
		return nil, err
	}
	return q.capturePositionFor(ctx, true)
}

func (q PolyominoQuery) capturePositionFor(ctx context.Context, request bool) (*capture.Position, error) {
	cfg, err := q.captureConfig()
	if err != nil {
		return nil, err
	}
	var g *capture.Game
	if request {
		g, err = capture.NewGameContext(ctx, cfg)
	} else {
		g, err = capture.NewGame(cfg)
	}
	if f := buildFault(ctx, err, capture.ErrBusy); f != nil {
		return nil, f
	}
	if err != nil {
		return nil, Invalid(fieldOf(err, "game"), err, "%s", err.Error())
	}
	pos, err := g.NewPosition(capture.Setup{Board: q.Board, Markers: q.Markers, Pool: q.PoolPieces, Banned: q.Banned, ToMove: q.ToMove, Turns: q.Moves})
	if err != nil {
		var te *capture.TurnError
		if errors.As(err, &te) {
			if other := otherPlayer(q.ToMove); other != "" && q.Board != nil {
				// A turn refused (a removal, for its marker) that the
				// other to_move makes legal: to_move was read as the
				// player of the first turn.
				if _, oerr := g.NewPosition(capture.Setup{Board: q.Board, Markers: q.Markers, Pool: q.PoolPieces, Banned: q.Banned, ToMove: other, Turns: q.Moves}); oerr == nil {
					return nil, InvalidMove("moves", te.Index-1, err, "%s (to_move names the player to move after the moves, %s here: the turns are credited counting back from it; with to_move %s they are legal)", err.Error(), strings.ToLower(strings.TrimSpace(q.ToMove)), other)
				}
			}
			return nil, InvalidMove("moves", te.Index-1, err, "%s", err.Error())
		}
		return nil, inputError(err, "board")
	}
	return pos, nil
}

// otherPlayer is the player to_move does not name ("" when it names
// neither).
func otherPlayer(toMove string) string {
	switch strings.ToLower(strings.TrimSpace(toMove)) {
	case "first":
		return "second"
	case "second":
		return "first"
	}
	return ""
}

// analyzeCapture values a capture position: exactly when the search proves
// it within the budget (repetitions handled by the engine), else with the
// heuristic player's turn. Answers are cached by the position and its
// history (the repetition rule makes the history part of the value).
func (p *Polyomino) analyzeCapture(ctx context.Context, q PolyominoQuery) (PolyominoAnswer, error) {
	pos, err := q.requestCapturePosition(ctx)
	if err != nil {
		return PolyominoAnswer{}, err
	}
	if err := checkAllTurns(pos, q.AllMoves); err != nil {
		if !q.allMovesIfFew {
			return PolyominoAnswer{}, err
		}
		q.AllMoves = false
	}
	budget := p.search.Budgets.Clamp(q.BudgetMs)
	key := captureCacheKey(pos, q.AllMoves)
	a, source, err := runCached(ctx, p.search, "capture", key, budget,
		&runOptions[PolyominoAnswer]{Consistent: func(a PolyominoAnswer) bool { return consistentCapture(a, pos) }},
		func(ctx context.Context) (PolyominoAnswer, int64, bool, error) {
			if old, ok := p.provenWithoutPlies(ctx, key); ok {
				return completeCapturePlies(ctx, old, pos, q.AllMoves, p.search.minLengthTime())
			}
			return solveCapture(ctx, pos, capture.Options{AllMoves: q.AllMoves}, lengthShare, p.search.minLengthTime())
		})
	if err != nil {
		return PolyominoAnswer{}, err
	}
	a = withCapturePosition(a, pos)
	a.Source = source
	return p.inBackground(ctx, q, key, a)
}

// consistentCapture is consistentWith for the capture variant, whose
// cached answers are in the position's own frame: a proven outcome, turns
// legal there and listed once, every turn when it lists them, a best turn
// unless the game is over, and plies that fit the outcome (odd when the
// player to move wins, even when he loses, none for a draw, 0 when the
// game is over).
func consistentCapture(a PolyominoAnswer, pos *capture.Position) bool {
	n := pos.CountTurns()
	legal := map[string]bool{}
	if n > maxAllMovesTurns {
		// Too many turns to list at each cache hit (845,056: 2.3 s of CPU
		// a hit, BenchmarkConsistentCaptureManyTurns): no answer lists them
		// (all_moves is refused there), and its best moves are checked by
		// playing them.
		if len(a.Moves) > 0 || len(a.BestMoves) == 0 {
			return false
		}
		for _, s := range a.BestMoves {
			t, err := capture.ParseTurn(s)
			if err != nil {
				return false
			}
			if _, err := pos.Play(t); err != nil {
				return false
			}
			legal[t.String()] = false
		}
	} else {
		for _, t := range pos.LegalTurns() {
			legal[t.String()] = false
		}
	}
	normalize := func(s string) (string, bool) {
		t, err := capture.ParseTurn(s)
		if err != nil {
			return "", false
		}
		return t.String(), true
	}
	return movesListed(a, legal, normalize, pos.Over()) && coherent(a, false, true, false, pos.Over()) &&
		(n > maxListedTurns || lostListsAll(a, n))
}

// captureCacheKey keys a capture answer by the position and its history
// (the repetition rule makes the history part of the value).
func captureCacheKey(pos *capture.Position, allMoves bool) string {
	return cacheKey("capture", fmt.Sprintf("all=%t", allMoves), pos.Key())
}

// solveCapture runs the capture search: the answer (without the
// position's own fields), its nodes, and whether it may be cached. A
// proven answer then gets its plies from the length search
// (withCaptureLength), within
// share times the proof's time (at least least) of what is left of ctx's
// time, as withLength gives the other games' (the answer's nodes and time
// include it), on the proof's table.
func solveCapture(ctx context.Context, pos *capture.Position, opts capture.Options, share float64, least time.Duration) (PolyominoAnswer, int64, bool, error) {
	began := time.Now()
	// The length search reuses the proof's table.
	opts.Table = capture.NewTable(pos.Game(), opts.TableMB)
	res, err := capture.Solve(ctx, pos, opts)
	// The budget of this search: from here to ctx's deadline (the table's
	// making counted, as the request's budget counts it).
	budget := budgetOf(ctx, time.Since(began))
	if err != nil {
		return PolyominoAnswer{}, 0, false, err
	}
	a := PolyominoAnswer{
		Capture: true,
		Outcome: string(res.Outcome), Proven: res.Proven, BestComplete: res.BestComplete, Heuristic: res.Heuristic,
		LegalMoves: res.LegalTurns, Over: res.Over, Nodes: res.Nodes, ElapsedNs: int64(res.Elapsed), BestMoves: []string{},
	}
	for _, t := range res.BestTurns {
		a.BestMoves = append(a.BestMoves, t.String())
	}
	for _, tr := range res.Turns {
		a.Moves = append(a.Moves, PolyominoMove{Move: tr.Turn.String(), Outcome: string(tr.Outcome), Proven: tr.Outcome != capture.Unknown})
	}
	if a.partial() {
		a.BestTriedNs = int64(budget)
	}
	withCaptureLength(ctx, &a, pos, res, opts, share, least, budget, began)
	return a, a.Nodes, res.Proven && res.BestComplete, nil
}

// provenWithoutPlies returns the answer cached under key when it is a
// capture answer whose value and best moves are proven and only plies are
// missing (capturePliesMissing): a longer budget completes it with a
// length search alone (completeCapturePlies).
func (p *Polyomino) provenWithoutPlies(ctx context.Context, key string) (PolyominoAnswer, bool) {
	raw, ok, err := p.search.Loader.Cache().Get(cache.Fresh(cache.Uncounted(ctx)), key) // the request's lookup, again (another process may have completed it)
	if err != nil || !ok {
		return PolyominoAnswer{}, false
	}
	a, ok := decodeFinal[PolyominoAnswer](raw)
	return a, ok && a.Capture && a.BestComplete && !a.Over && a.capturePliesMissing()
}

// completeCapturePlies gives old, a proven capture answer of pos without
// plies, the plies the length search finds within ctx's budget and the
// time a new search would give it (withCaptureLength, on a table of its
// own: the length search proves the value again as it goes, which costs
// less than the proof and the length search did together). It returns
// what solveCapture returns: the answer (never knowing less than old; its
// nodes and time this search's), the nodes of this search, and true (the
// answer is final).
func completeCapturePlies(ctx context.Context, old PolyominoAnswer, pos *capture.Position, allMoves bool, least time.Duration) (PolyominoAnswer, int64, bool, error) {
	began := time.Now()
	opts := capture.Options{AllMoves: allMoves, Table: capture.NewTable(pos.Game(), 0)}
	budget := budgetOf(ctx, time.Since(began))
	a := old
	a.BestMoves = slices.Clone(old.BestMoves)
	a.Moves = slices.Clone(old.Moves)
	a.LengthTriedNs = 0
	// The answer's stats are this search's (as a new search's are its
	// own), and what the next completion's share is measured by.
	a.Nodes, a.ElapsedNs = 0, 0
	// The proof's result as withCaptureLength reads it.
	res := capture.Result{Outcome: capture.Outcome(old.Outcome), Proven: true, BestComplete: true, Elapsed: time.Duration(old.ElapsedNs)}
	withCaptureLength(ctx, &a, pos, res, opts, lengthShare, least, budget, began)
	if a.capturePliesMissing() {
		// Only a longer try than both may do better.
		a.LengthTriedNs = max(a.LengthTriedNs, old.LengthTriedNs)
	}
	return a, a.Nodes, true, nil
}

// withCaptureLength adds to a proven win or loss how many plies the game
// lasts under perfect play (capture.Length), puts the turns perfect play
// chooses first among the best moves, and with all moves gives each
// move's plies and orders the moves as withLength does (fastestFirst).
// Its time is lengthTime(share, the proof's time, least), within what is
// left of ctx's time (with all moves at least half of it). A drawn
// position has no plies, but with all moves its won and lost moves get
// theirs. When plies are missing (capturePliesMissing), LengthTriedNs
// records what a later request needs to search again (see tried below
// and serves).
func withCaptureLength(ctx context.Context, a *PolyominoAnswer, pos *capture.Position, res capture.Result, opts capture.Options, share float64, least, budget time.Duration, began time.Time) {
	if !res.Proven || res.Outcome != capture.Win && res.Outcome != capture.Loss && !(res.Outcome == capture.Draw && opts.AllMoves) {
		return
	}
	if res.Over {
		if res.Outcome == capture.Draw {
			return // a third repetition: no moves
		}
		n := 0 // the player to move is stuck: the game is over
		a.Plies = &n
		return
	}
	if len(res.AtOnce) > 0 && withWinsAtOnce(a, res.AtOnce) && !opts.AllMoves {
		return // the fastest win there is: nothing more to search
	}
	// tried: the budget a request needs, beyond twice it, for another try
	// (see serves): the search's own when the budget limited the length
	// search; none (every budget is served) when a longer budget would
	// give it no more (its share of the proof's time ran out, or it gave
	// up on its own: a node too wide, its node limit); the time spent
	// when the search was stopped (another search's answer settled it,
	// or the job ended).
	tried := budget
	defer func() {
		if errors.Is(ctx.Err(), context.Canceled) {
			tried = time.Since(began)
		}
		if a.capturePliesMissing() {
			a.LengthTriedNs = int64(tried)
		}
	}()
	d := lengthTime(share, res.Elapsed, least)
	capped := false // the budget left, not the share, limits the search
	if dl, ok := ctx.Deadline(); ok {
		left := time.Until(dl) - lengthMargin
		if opts.AllMoves {
			d, capped = max(d, left/allMovesLengthDiv), true
		}
		if d >= left {
			d, capped = left, true
		}
	}
	if d <= 0 {
		return
	}
	if !capped {
		tried = math.MaxInt64
	}
	lctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	var progress func(int64)
	if opts.Progress != nil {
		progress = func(n int64) { opts.Progress(res.Nodes + n) }
	}
	l := capture.Length(lctx, pos, capture.Options{AllMoves: opts.AllMoves, MaxNodes: lengthMaxNodes, Table: opts.Table, Progress: progress})
	if lctx.Err() == nil {
		tried = math.MaxInt64 // it ended on its own: more time would not help
	}
	a.Nodes += l.Nodes
	a.ElapsedNs += int64(l.Elapsed)
	if l.Known && l.Outcome == res.Outcome {
		n := l.Plies
		a.Plies = &n
	}
	// Each turn the search decided has its exact length, the position's
	// known or not.
	byTurn := map[string]capture.TurnLength{}
	for _, tl := range l.Turns {
		byTurn[tl.Turn.String()] = tl
	}
	for i, m := range a.Moves {
		if tl, ok := byTurn[m.Move]; ok && m.Proven && string(tl.Outcome) == m.Outcome {
			p := tl.Plies
			a.Moves[i].Plies = &p
		}
	}
	// The perfect turns first (the position's plies known), in the length
	// search's order.
	var first []string
	for _, t := range l.Perfect {
		if s := t.String(); a.Plies != nil && slices.Contains(a.BestMoves, s) {
			first = append(first, s)
		}
	}
	if len(first) > 0 {
		perfectFirst(a, first)
	}
	if len(a.Moves) > 0 {
		fastestFirst(a)
	}
}

// withWinsAtOnce gives a, a proven win, its plies from the turns that
// leave the opponent stuck (capture.Result.AtOnce): one ply, those turns
// first among the best moves, and with all moves 0 plies after each. A
// proof that spends the budget deciding the other turns leaves the length
// search no time (a win in one answered without plies); these need none.
// It reports whether it did (a has no plies yet).
func withWinsAtOnce(a *PolyominoAnswer, atOnce []capture.Turn) bool {
	if a.Plies != nil {
		return false
	}
	one, zero := 1, 0
	a.Plies = &one
	first := make([]string, 0, len(atOnce))
	for _, t := range atOnce {
		first = append(first, t.String())
	}
	perfectFirst(a, first)
	for i, m := range a.Moves {
		if m.Proven && m.Outcome == string(capture.Win) && slices.Contains(first, m.Move) {
			a.Moves[i].Plies = &zero
		}
	}
	if len(a.Moves) > 0 {
		fastestFirst(a)
	}
	return true
}

// perfectFirst puts first, best moves of a that perfect play chooses, at
// the head of a's best moves, and says so (PerfectFirst).
func perfectFirst(a *PolyominoAnswer, first []string) {
	rest := slices.DeleteFunc(slices.Clone(a.BestMoves), func(m string) bool { return slices.Contains(first, m) })
	a.BestMoves = append(first, rest...)
	a.PerfectFirst = true
}

// capturePliesMissing: a capture answer proven won or lost lacks the
// position's plies or, with all moves, a proven answer lacks a move's
// (one proven won or lost: a drawn position's too).
func (a *PolyominoAnswer) capturePliesMissing() bool {
	if !a.Capture || !a.Proven {
		return false
	}
	if a.Plies == nil && (a.Outcome == string(capture.Win) || a.Outcome == string(capture.Loss)) {
		return true
	}
	for _, m := range a.Moves {
		if m.Proven && m.Plies == nil && (m.Outcome == string(capture.Win) || m.Outcome == string(capture.Loss)) {
			return true
		}
	}
	return false
}

// withCapturePosition fills in what an answer says of the position itself.
func withCapturePosition(a PolyominoAnswer, pos *capture.Position) PolyominoAnswer {
	a.Board = pos.Board()
	a.ToMove = pos.ToMove()
	a.Markers = pos.Markers()
	a.Scores = [2]int{}
	for _, who := range a.Markers {
		if who == "second" {
			a.Scores[1]++
		} else {
			a.Scores[0]++
		}
	}
	a.Pool = pos.Pool()
	a.Capture = true
	a.Config.Preset = "capture"
	a.Settings = captureSettings(pos)
	return a
}

// captureMoves lists the legal turns of a capture position. Removals that
// no placement needs are legal too, so the number of turns grows as 2^k
// with the mover's k marked pieces: the list is cut at maxListedTurns,
// while Count is exact.
func (p *Polyomino) captureMoves(ctx context.Context, q PolyominoQuery) (PolyominoMoves, error) {
	pos, err := q.requestCapturePosition(ctx)
	if err != nil {
		return PolyominoMoves{}, err
	}
	out := PolyominoMoves{Count: pos.CountTurns(), DistinctUpToSymmetry: -1, ToMove: pos.ToMove(), Board: pos.Board(), Moves: []string{},
		Over: pos.Over(), Drawn: pos.Drawn()}
	var listed []capture.Turn
	if out.Count > maxListedTurns {
		listed = pos.Placements()
		// Without optional removals every turn is a placement: the list
		// is complete however long (a 16 x 16 board has 40,376).
		out.Truncated = len(listed) < out.Count
	} else {
		listed = pos.LegalTurns()
	}
	// A big list is assembled as many at once as searches run (as Moves).
	release, err := p.Assemble(ctx, len(listed))
	if err != nil {
		return PolyominoMoves{}, err
	}
	defer release()
	for _, t := range listed {
		out.Moves = append(out.Moves, t.String())
	}
	if !out.Truncated { // the list holds every turn
		out.DistinctUpToSymmetry = pos.DistinctAmong(listed)
	}
	return movesState(out, withCapturePosition(PolyominoAnswer{}, pos)), nil
}

const maxListedTurns = 20000

// maxAllMovesTurns is the most turns a capture analysis values one by one
// (all_moves): an audit's position of 845,056 turns (eight marked pieces
// of the mover, each removal optional) took 6-10 s of CPU with a 1 ms
// budget to answer 82 MB. The largest standard list is about 40,000
// moves (the 16 x 16 hexomino board).
const maxAllMovesTurns = 1 << 16

// checkAllTurns refuses all_moves on a capture position of more than
// maxAllMovesTurns turns.
func checkAllTurns(pos *capture.Position, allMoves bool) error {
	if !allMoves {
		return nil
	}
	if n := pos.CountTurns(); n > maxAllMovesTurns {
		return Invalid("all_moves", nil, "all_moves values every turn one by one, at most %d: this position has %d (the mover's marked pieces make removals optional); ask without all_moves (the value and best_moves are the same); /v1/polyomino/moves counts the turns and lists the placements", maxAllMovesTurns, n)
	}
	return nil
}

// captureUnit is the index of the one unit of a capture job.
const captureUnit = -1

// captureTableMB is the capture search's table in a job (a request's
// search has the engine's default, 16 MB).
const captureTableMB = 256

// captureQuery decodes a request about the capture variant.
func captureQuery(raw json.RawMessage) (PolyominoQuery, bool) {
	var q PolyominoQuery
	if err := DecodeRequest(raw, &q); err != nil || !q.isCapture() {
		return q, false
	}
	return q, true
}

// runCapture solves a capture position for the job's whole duration,
// through the cache shared with analyze, and answers with the position's
// fields filled in.
func (j PolyominoAnalyzeJob) runCapture(ctx context.Context, request json.RawMessage, report func(int64)) (json.RawMessage, error) {
	q, _ := captureQuery(request)
	pos, err := q.capturePosition()
	if err != nil {
		return nil, err
	}
	key := captureCacheKey(pos, q.AllMoves)
	raw, _, err := j.Search.Loader.LoadChecked(ctx, key, key, j.Search.validFor(j.MaxDuration), func(unitCtx context.Context) ([]byte, bool, error) {
		ctx, cancel := context.WithTimeout(unitCtx, j.MaxDuration)
		defer cancel()
		// The unit is the whole position (its proof the long one, and a
		// length search costs about a proof): the length search has a
		// request's share of the job's time.
		a, nodes, cacheable, err := solveCapture(ctx, pos, capture.Options{AllMoves: q.AllMoves, TableMB: captureTableMB, Progress: report}, lengthShare, j.Search.minLengthTime())
		if err != nil {
			return nil, false, err
		}
		// The job's own time limit ends the search with its best answer;
		// a canceled job or a worker shutting down must not finish the
		// unit with a partial one (another worker takes it over).
		if err := unitCtx.Err(); err != nil && !a.Proven {
			return nil, false, err
		}
		report(nodes)
		j.Search.observeNodes("capture", nodes)
		b, err := json.Marshal(a)
		if err == nil && !cacheable {
			a.keep(ctx, j.Search, key)
		}
		return b, cacheable, err
	})
	if err != nil {
		return nil, err
	}
	var a PolyominoAnswer
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, err
	}
	a = withCapturePosition(a, pos)
	a.Source = SourceSearch
	return json.Marshal(a)
}
