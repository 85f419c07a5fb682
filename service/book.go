package service

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/gamesolver/gamesolver/engine/book"
	"github.com/gamesolver/gamesolver/engine/polyomino"
	"github.com/gamesolver/gamesolver/service/cache"
)

// SourceBook marks answers read from the embedded opening book.
const SourceBook = "book"

// bookWaitBudget is the smallest budget that waits for a reply file of the
// book to be indexed; and for the book to load, within bookLoadDiv of the
// budget.
const (
	bookWaitBudget = 500 * time.Millisecond
	bookLoadDiv    = 2
)

// bookAnswer answers from the embedded Pentominoes book when it proves the
// position (the book maps moves through the position's symmetries), with
// the lengths its lengths file knows (bookLength; no length search: see
// Polyomino.fromBook).
//
// Indexing a reply file on its first use takes 0.1-0.3 s, and loading the
// book about 2 s: with a budget under bookWaitBudget (wait false) neither
// is waited for, and this answer comes from the search.
func bookAnswer(pos *polyomino.Position, allMoves, wait bool) (PolyominoAnswer, bool) {
	res, ok := bookResult(pos, allMoves, wait)
	if !ok {
		return PolyominoAnswer{}, false
	}
	a := bookAnswerOf(res, pos)
	if known, ok := bookLength(pos, res); ok && !res.Over {
		a = withBookLength(a, known, pos)
	}
	return a, true
}

// bookResult is the book's result for pos (see bookAnswer).
func bookResult(pos *polyomino.Position, allMoves, wait bool) (polyomino.Result, bool) {
	b, ok := book.EmbeddedLoaded()
	if !ok {
		if !book.MayHold(pos) || !wait {
			// Other games, and tight budgets, do not wait for the book
			// to load (serve preloads it in about 2 s).
			return polyomino.Result{}, false
		}
		var err error
		if b, err = book.Embedded(); err != nil {
			return polyomino.Result{}, false
		}
	}
	t0 := time.Now()
	res, ok := b.LookupWait(pos, wait)
	if !ok {
		return polyomino.Result{}, false
	}
	if !allMoves {
		res.Moves = nil
	}
	res.Elapsed = time.Since(t0)
	return res, true
}

// bookAnswerOf is the answer of the book's result res for pos.
func bookAnswerOf(res polyomino.Result, pos *polyomino.Position) PolyominoAnswer {
	a := withPosition(answerOf(res, func(m polyomino.Move) polyomino.Move { return m }), pos)
	a.Source = SourceBook
	return a
}

// The book knows values, and lengths only where its lengths file says
// them (bookLength: one and two plies into the certificate, and after
// each fastest third move). Otherwise a request answered from it for a
// position with at least bookLengthPieces pieces placed searches the
// game's length (plies) itself, within bookLengthDiv of its budget (at
// least Searcher.MinLengthTime; with all_moves, half), at most
// bookLengthMax, when a solver slot is free at once; the cache keeps what
// it found (or how long it tried) for the next requests, under the key
// bookLengthKey. Three plies into the certificate a length takes about
// 0.3 s; two plies into another opening, 3-16 s with a fastest first move
// (a request with a budget of 12-20 s or more: the proof is made again on
// a cold table first); one ply in, beyond any budget it could be given.
const (
	bookLengthPieces = 2
	bookLengthDiv    = 4
	bookLengthMax    = 8 * time.Second
)

func bookLengthKey(pos *polyomino.Position, allMoves bool) string {
	return cacheKey("polyomino", fmt.Sprintf("book-length,all=%t", allMoves), polyomino.CanonicalKey(pos))
}

// With all_moves the book values the moves it knows (in a won position,
// its winning move), not every legal move. A request with a budget of at
// least bookMovesMin values the others by a search (bookMoves) within
// bookMovesDiv of its budget, when a solver slot is free at once and no
// other request is searching the same position; the rest of the budget
// goes to the lengths (fromBook). The cache keeps the moves' values
// (under bookMovesKey), and while some are missing how long a search
// tried (BestTriedNs): a shorter request takes them without a search, one
// as long (within bookMovesSlack) or longer searches on (the solver's table keeps the proofs of
// the search before, as long as other searches leave them: at the largest
// budget the moves of a two-ply position take one or two requests).
const (
	bookMovesMin = 500 * time.Millisecond
	// bookKnownMaxTime bounds bookMoves' look-up of cached children.
	bookKnownMaxTime = 500 * time.Millisecond
	bookMovesDiv     = 2
	bookMovesSlack   = 10 // a tenth
)

func bookMovesKey(pos *polyomino.Position) string {
	return cacheKey("polyomino", "book-moves", polyomino.CanonicalKey(pos))
}

// bookMoves is the book's result res for pos (with all_moves), its moves
// in Solve's order, with the values of the moves the book does not know:
// the cache's, and what a search proves within budget / bookMovesDiv (see
// bookMovesMin). The search's time counts in the result's Elapsed; its
// nodes are returned.
func (p *Polyomino) bookMoves(ctx context.Context, pos *polyomino.Position, res polyomino.Result, budget time.Duration) (polyomino.Result, int64) {
	res = withMoveValues(res, nil) // one order, searched or not
	if allValued(res) || res.Over {
		return res, 0
	}
	key := bookMovesKey(pos)
	kept, ok := keptBookMoves(ctx, p.search, pos, res.Outcome)
	if ok {
		res = withMoveValues(res, fromCanonical(kept, pos).Moves)
		if allValued(res) {
			return res, 0
		}
	}
	// The children earlier searches proved (a polyomino.analyze job's
	// units, canceled or not): valued without a search, and not searched
	// again. The look-up may take the search's share, up to half a
	// second: the book answered at once (a thousand children take 10-25
	// ms on an idle machine, several times that on a loaded one).
	looked := time.Now()
	known := p.search.knownChildrenWithin(ctx, pos, min(budget/bookMovesDiv, bookKnownMaxTime))
	res.Elapsed += time.Since(looked) // the answer's time (stats) counts it
	if known != nil {
		res = withMoveValues(res, known.rows(res))
		if allValued(res) {
			return res, 0
		}
	}
	d := budget / bookMovesDiv
	// The same request again searches on: its d, what its budget has left
	// when it gets here, may be a little shorter than the last one's.
	if budget < bookMovesMin || int64(d+d/bookMovesSlack) < kept.BestTriedNs || ctx.Err() != nil {
		return res, 0
	}
	if _, busy := p.bookMovesBusy.LoadOrStore(key, true); busy {
		return res, 0 // another request is searching them
	}
	defer p.bookMovesBusy.Delete(key)
	release, ok := p.search.Slots.TryAcquire()
	if !ok {
		return res, 0 // busy: the book's answer as it is
	}
	defer release()
	PauseAssembly(ctx) // a search is no assembly
	tt := p.search.tables.get(pos.Game())
	defer p.search.tables.put(tt)
	sctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	// The book's winning moves first: their proofs fill the table.
	found, err := polyomino.Solve(sctx, pos, polyomino.Options{AllMoves: true, Workers: p.search.Workers, Table: tt, Prefer: res.BestMoves, Known: known.known()})
	p.search.observe("polyomino", found.Nodes, found.Proven, found.Elapsed)
	if err != nil {
		return res, 0
	}
	if found.Proven && found.Outcome != res.Outcome {
		// The book and the search disagree: the book, checked by
		// engine/verify, stands; the search's values are not used.
		return res, found.Nodes
	}
	rows := make([]PolyominoMove, 0, len(found.Moves))
	for _, mr := range found.Moves {
		rows = append(rows, PolyominoMove{Move: mr.Move.String(), Outcome: string(mr.Outcome), Proven: mr.Proven, Value: mr.Value})
	}
	res = withMoveValues(res, rows)
	res.Elapsed += found.Elapsed
	if ctx.Err() == nil {
		keepBookMoves(ctx, p.search, pos, res, max(kept.BestTriedNs, int64(d)))
	}
	return res, found.Nodes
}

// keptBookMoves is the cache's entry of the move values of the book
// position pos (canonical: the values found, how long a search tried),
// when it holds one for a position of the book's outcome.
func keptBookMoves(ctx context.Context, s *Searcher, pos *polyomino.Position, outcome polyomino.Outcome) (PolyominoAnswer, bool) {
	var kept PolyominoAnswer
	raw, ok, err := s.Loader.Cache().Get(cache.Fresh(context.WithoutCancel(ctx)), bookMovesKey(pos)) // requests and jobs elsewhere value more
	if err != nil || !ok || json.Unmarshal(raw, &kept) != nil || kept.Outcome != string(outcome) {
		return PolyominoAnswer{}, false
	}
	if !consistentWith(kept, pos) {
		// Checked as the answers are (moves legal, listed once, values
		// that fit): an entry with a move that is none was read without
		// it, and never replaced.
		return PolyominoAnswer{}, false
	}
	return kept, true
}

// keepBookMoves puts the move values of res, a result of the book
// position pos, in the cache for the next requests (bookMoves), with
// tried, how long a search tried when some are missing, unless the cache
// holds as many values already (a job or another process valued more
// since this request read the entry).
func keepBookMoves(ctx context.Context, s *Searcher, pos *polyomino.Position, res polyomino.Result, tried int64) {
	entry := answerOf(res, pos.Frame().ToCanonical)
	entry.Nodes, entry.ElapsedNs = 0, 0
	if !allValued(res) {
		entry.BestTriedNs = tried
	}
	if kept, ok := keptBookMoves(ctx, s, pos, polyomino.Outcome(entry.Outcome)); ok {
		have, mine := provenMoves(kept.Moves), provenMoves(entry.Moves)
		if have > mine || have == mine && kept.BestTriedNs >= entry.BestTriedNs {
			return
		}
	}
	if raw, err := json.Marshal(entry); err == nil {
		_ = s.Loader.Replace(context.WithoutCancel(ctx), bookMovesKey(pos), raw)
	}
}

// keepBookLengths adds the plies of a, a job's proven answer of the book
// position pos (in its frame, with the position's plies), to the cache's
// entry of its lengths (bookLengthKey), which the requests read (fromBook)
// rather than the job's own entry: the job's moves' plies (with all_moves
// it searched every move, a request a few) join those the entry holds,
// unless the two disagree on the position's plies.
func keepBookLengths(ctx context.Context, s *Searcher, pos *polyomino.Position, a PolyominoAnswer, allMoves bool) {
	if !a.Proven || a.Plies == nil {
		return
	}
	c := canonicalAnswer(a, pos)
	c.Nodes, c.ElapsedNs = 0, 0
	key := bookLengthKey(pos, allMoves)
	raw, ok, err := s.Loader.Cache().Get(cache.Fresh(context.WithoutCancel(ctx)), key)
	if err != nil {
		return // what the cache holds is unknown: it may hold more
	}
	var kept PolyominoAnswer
	if ok && (json.Unmarshal(raw, &kept) != nil || kept.Outcome != c.Outcome) {
		kept = PolyominoAnswer{}
	}
	if kept.Plies != nil && *kept.Plies != *c.Plies {
		return
	}
	merged := withMovePlies(c, kept)
	withFirst(&merged, kept)
	if kept.Plies != nil && movesWithPlies(merged) <= movesWithPlies(kept) && (kept.PerfectFirst || !merged.PerfectFirst) {
		return // nothing new
	}
	merged.LengthTriedNs = 0
	if !lengthComplete(merged, allMoves) {
		merged.LengthTriedNs = kept.LengthTriedNs
	}
	if raw, err := json.Marshal(merged); err == nil {
		_ = s.Loader.Replace(context.WithoutCancel(ctx), key, raw)
	}
}

// keptBookMove is the value a job's unit reads for the child of a book
// position pos (all_moves): when the cache keeps the value of one of the
// child's moves (bookMoves found it), the child's answer, proven, without
// a search.
func keptBookMove(ctx context.Context, s *Searcher, pos *polyomino.Position, child polyomino.Child) (PolyominoAnswer, bool) {
	res, ok := bookResult(pos, false, true)
	if !ok || pos.Game().Config().EndRule != polyomino.NormalPlay {
		return PolyominoAnswer{}, false
	}
	kept, ok := keptBookMoves(ctx, s, pos, res.Outcome)
	if !ok {
		return PolyominoAnswer{}, false
	}
	class := make(map[string]bool, len(child.Moves))
	for _, m := range child.Moves {
		class[m.String()] = true
	}
	for _, m := range fromCanonical(kept, pos).Moves {
		if m.Proven && class[m.Move] {
			// The move's value is the child's, for the other player.
			a := PolyominoAnswer{Outcome: string(polyomino.Loss), Proven: true, Value: -m.Value, BestMoves: []string{}}
			if -m.Value > 0 {
				a.Outcome = string(polyomino.Win)
			}
			return a, true
		}
	}
	return PolyominoAnswer{}, false
}

// provenMoves counts the proven moves of an answer.
func provenMoves(moves []PolyominoMove) int {
	n := 0
	for _, m := range moves {
		if m.Proven {
			n++
		}
	}
	return n
}

// allValued reports whether every move of res is proven.
func allValued(res polyomino.Result) bool {
	return !slices.ContainsFunc(res.Moves, func(m polyomino.MoveResult) bool { return !m.Proven })
}

// withMoveValues is res with the proven values of rows (moves in the
// position's frame) for the moves res does not value, ordered as Solve
// orders them; in a won position the winning moves among them join the
// best moves, after res's own.
// The best moves are complete when every move is valued.
func withMoveValues(res polyomino.Result, rows []PolyominoMove) polyomino.Result {
	known := make(map[string]PolyominoMove, len(rows))
	for _, r := range rows {
		if r.Proven {
			known[r.Move] = r
		}
	}
	res.Moves = slices.Clone(res.Moves)
	best := slices.Clone(res.BestMoves)
	listed := make(map[string]bool, len(best))
	for _, m := range best {
		listed[m.String()] = true
	}
	for i, mr := range res.Moves {
		if r, ok := known[mr.Move.String()]; ok && !mr.Proven {
			res.Moves[i].Outcome, res.Moves[i].Proven, res.Moves[i].Value = polyomino.Outcome(r.Outcome), true, r.Value
		}
		// Every winning move valued is a best move (best_complete below).
		if m := res.Moves[i]; res.Outcome == polyomino.Win && m.Proven && m.Value > 0 && !listed[m.Move.String()] {
			listed[m.Move.String()] = true
			best = append(best, m.Move)
		}
	}
	// Best first, unproven moves before losses, as Solve orders them.
	slices.SortStableFunc(res.Moves, func(x, y polyomino.MoveResult) int {
		return polyomino.MoveRank(x.Proven, x.Value) - polyomino.MoveRank(y.Proven, y.Value)
	})
	res.BestMoves = best
	res.BestComplete = allValued(res)
	return res
}

// fromBook is the book's answer res for pos with the game's length: the
// one kept in the cache, or one a length search finds within budget (one
// search per position at a time: a request that finds another searching
// answers without it).
func (p *Polyomino) fromBook(ctx context.Context, pos *polyomino.Position, res polyomino.Result, allMoves bool, budget time.Duration) PolyominoAnswer {
	a := bookAnswerOf(res, pos)
	if pos.Game().Config().EndRule != polyomino.NormalPlay || res.Over {
		return a
	}
	known, _ := bookLength(pos, res)
	if sc := pos.Scores(); sc[0]+sc[1] < bookLengthPieces {
		return withBookLength(a, known, pos)
	}
	key := bookLengthKey(pos, allMoves)
	var kept PolyominoAnswer // canonical: the lengths found, and how long a search tried
	raw, ok, err := p.search.Loader.Cache().Get(cache.Fresh(context.WithoutCancel(ctx)), key)
	if err != nil {
		return withBookLength(a, known, pos) // what the cache holds is unknown: it may hold more
	}
	if ok && (json.Unmarshal(raw, &kept) != nil || kept.Outcome != a.Outcome) {
		kept = PolyominoAnswer{}
	}
	if known.Plies != nil && known.PerfectFirst {
		// The book's lengths file: no search (with all_moves, the plies
		// of the moves it does not know would take minutes two plies
		// into an opening); what the cache knows of them is added.
		return withBookLength(a, withMovePlies(known, kept), pos)
	}
	if kept.Plies == nil && known.Plies != nil {
		known.LengthTriedNs = kept.LengthTriedNs
		kept = known
	}
	d := max(p.search.minLengthTime(), budget/bookLengthDiv)
	if allMoves {
		d = max(d, budget/allMovesLengthDiv)
	}
	d = min(d, budget-lengthMargin, bookLengthMax)
	// An entry made when fewer moves were valued (bookMoves values more
	// from request to request) is neither complete nor tried for these.
	stale := allMoves && provenMoves(kept.Moves) < provenMoves(a.Moves)
	if d < p.search.minLengthTime() || !stale && (lengthComplete(kept, allMoves) || int64(d) <= 2*kept.LengthTriedNs) {
		return withBookLength(a, kept, pos) // nothing to search, or a search as long was made
	}
	if _, busy := p.bookLengths.LoadOrStore(key, true); busy {
		return withBookLength(a, kept, pos) // another request is searching it
	}
	defer p.bookLengths.Delete(key)
	release, ok := p.search.Slots.TryAcquire()
	if !ok {
		return withBookLength(a, kept, pos) // busy
	}
	defer release()
	PauseAssembly(ctx) // a search is no assembly
	tt := p.search.tables.get(pos.Game())
	defer p.search.tables.put(tt)
	bctx, cancel := context.WithTimeout(ctx, d+lengthMargin)
	defer cancel()
	found := answerOf(res, pos.Frame().ToCanonical)
	found.Nodes, found.ElapsedNs = 0, 0
	start := time.Now()
	if f := p.search.withLength(bctx, &found, pos, res, tt, 0, d); f != nil {
		withFastest(&found, pos.Frame().ToCanonical(*f).String())
	}
	spent, nodes := time.Since(start), found.Nodes
	if found.Plies == nil {
		found.Plies = kept.Plies // what was known stands, on the moves valued now
	}
	if found.Plies != nil && kept.Plies != nil && *found.Plies == *kept.Plies {
		// The entry's first move and moves' plies (a job's among them:
		// keepBookLengths) that this search did not find stay in it.
		withFirst(&found, kept)
		found = withMovePlies(found, kept)
	}
	if !lengthComplete(found, allMoves) {
		found.LengthTriedNs = max(kept.LengthTriedNs, int64(d))
	}
	if ctx.Err() == nil {
		if raw, err := json.Marshal(found); err == nil {
			_ = p.search.Loader.Replace(context.WithoutCancel(ctx), key, raw)
		}
	}
	a = withBookLength(a, found, pos)
	a.SpentNs, a.SpentNodes = int64(spent), nodes
	return a
}

// bookLength is what the book's files with plies say of the length of
// the game from pos (book.Book.LengthOf; res is the book's result for it)
// as an answer in the canonical frame, the form withBookLength takes: the
// position's plies, a move of perfect play first among the best moves
// (PerfectFirst), and the plies of the moves the book knows them of.
// (bookLengthKey's cache entries are answers of this form.)
func bookLength(pos *polyomino.Position, res polyomino.Result) (PolyominoAnswer, bool) {
	b, ok := book.EmbeddedLoaded()
	if !ok {
		return PolyominoAnswer{}, false
	}
	l, ok := b.LengthOf(pos)
	if !ok {
		return PolyominoAnswer{}, false
	}
	canon := pos.Frame().ToCanonical
	found := answerOf(res, canon)
	found.Nodes, found.ElapsedNs = 0, 0
	found.Plies = &l.Plies
	for i, mr := range res.Moves {
		if n, ok := l.After[mr.Move.String()]; ok && mr.Proven {
			found.Moves[i].Plies = &n
		}
	}
	if len(l.Perfect) > 0 {
		found.BestMoves = []string{canon(l.Perfect[0]).String()}
		found.PerfectFirst = true
	}
	return found, true
}

// withBookLengths is a, a job's combined answer for pos (res its result),
// with what the book's lengths files know of pos (bookLength): the
// position's plies and perfect first move, and the plies of the moves
// they know, where the units found none (a job with all_moves two plies
// into a book opening: its units' length searches are short, the file
// knows). The units' own move plies are kept.
func withBookLengths(a PolyominoAnswer, res polyomino.Result, pos *polyomino.Position) PolyominoAnswer {
	if _, ok := bookResult(pos, false, true); !ok {
		return a // the book does not know pos (this loads it when it may)
	}
	known, ok := bookLength(pos, res)
	if !ok || known.Plies == nil || a.Plies != nil && *a.Plies != *known.Plies {
		return a
	}
	own := make(map[string]*int, len(a.Moves))
	for _, m := range a.Moves {
		if m.Proven && m.Plies != nil {
			own[m.Move+"|"+m.Outcome] = m.Plies
		}
	}
	a.Moves = slices.Clone(a.Moves)
	a.BestMoves = slices.Clone(a.BestMoves)
	b := withBookLength(a, known, pos)
	for i, m := range b.Moves {
		if n := own[m.Move+"|"+m.Outcome]; m.Proven && m.Plies == nil && n != nil {
			b.Moves[i].Plies = n
		}
	}
	if len(b.Moves) > 0 {
		fastestFirst(&b)
	}
	return b
}

// withMovePlies is a, a canonical answer with the position's plies, with
// the plies of its moves that other (an answer of the same position in
// the same frame, with the same plies) knows and a does not.
func withMovePlies(a, other PolyominoAnswer) PolyominoAnswer {
	if other.Plies == nil || *other.Plies != *a.Plies || len(other.Moves) == 0 {
		return a
	}
	plies := make(map[string]*int, len(other.Moves))
	for _, m := range other.Moves {
		if m.Proven && m.Plies != nil {
			plies[m.Move+"|"+m.Outcome] = m.Plies
		}
	}
	for i, m := range a.Moves {
		if n := plies[m.Move+"|"+m.Outcome]; m.Proven && m.Plies == nil && n != nil {
			a.Moves[i].Plies = n
		}
	}
	return a
}

// withFastest puts first in the best moves of a, a won book answer with
// its plies, move, the length search's fastest win, when the length
// search checked none of them (the book's reply is not one): it is a
// proven winning move, whose row (with all_moves) says so, with its
// plies. The book's list is incomplete (best_complete false) and not
// compared with others by its length, as a partial search's is.
func withFastest(a *PolyominoAnswer, move string) {
	if a.PerfectFirst || a.Plies == nil || a.BestComplete || a.Outcome != string(polyomino.Win) {
		return
	}
	a.BestMoves = slices.Concat([]string{move}, slices.DeleteFunc(a.BestMoves, func(m string) bool { return m == move }))
	a.PerfectFirst = true
	if i := slices.IndexFunc(a.Moves, func(m PolyominoMove) bool { return m.Move == move }); i >= 0 {
		// Its row leads the moves (the winning moves come first, and
		// fastestFirst orders each run of them).
		n := *a.Plies - 1
		row := a.Moves[i]
		row.Outcome, row.Proven, row.Plies = string(polyomino.Win), true, &n
		a.Moves = slices.Concat([]PolyominoMove{row}, a.Moves[:i], a.Moves[i+1:])
		fastestFirst(a)
	}
}

// lengthComplete: the answer has its position's plies with a checked
// perfect first move, and with all_moves every proven move's plies.
func lengthComplete(a PolyominoAnswer, allMoves bool) bool {
	if a.Plies == nil || !a.PerfectFirst {
		return false
	}
	for _, m := range a.Moves {
		if allMoves && m.Proven && m.Plies == nil {
			return false
		}
	}
	return true
}

// withBookLength is the book's answer a (in the position's frame) with the
// lengths of found (in the canonical frame: the position's plies, the
// moves', a perfect first move), taken move by move: the book's own lists
// stand, ordered as perfect play prefers them, led by the length search's
// fastest win when the book did not list one (withFastest), whose row
// found proves.
func withBookLength(a, found PolyominoAnswer, pos *polyomino.Position) PolyominoAnswer {
	if found.Plies == nil {
		return a
	}
	m := fromCanonical(found, pos)
	a.Plies = m.Plies
	checked := "" // found's checked first move
	if m.PerfectFirst && len(m.BestMoves) > 0 {
		checked = m.BestMoves[0]
	}
	if len(m.Moves) > 0 && len(a.Moves) > 0 {
		plies := make(map[string]*int, len(m.Moves))
		for _, mv := range m.Moves {
			if mv.Plies != nil && mv.Proven {
				plies[mv.Move+"|"+mv.Outcome] = mv.Plies
			}
		}
		for i, mv := range a.Moves {
			switch {
			case mv.Proven:
				a.Moves[i].Plies = plies[mv.Move+"|"+mv.Outcome]
			case mv.Move == checked && plies[mv.Move+"|"+a.Outcome] != nil:
				a.Moves[i].Outcome, a.Moves[i].Proven, a.Moves[i].Plies = a.Outcome, true, plies[mv.Move+"|"+a.Outcome]
			}
		}
	}
	// The checked first move leads the best moves, and the moves: the
	// sort below is stable.
	withFirst(&a, m)
	if checked != "" && !a.PerfectFirst {
		withFastest(&a, checked) // the book's reply is not a fastest win
	}
	if a.PerfectFirst {
		first := a.BestMoves[0]
		if j := slices.IndexFunc(a.Moves, func(mv PolyominoMove) bool { return mv.Move == first }); j >= 0 {
			a.Moves = slices.Concat([]PolyominoMove{a.Moves[j]}, a.Moves[:j], a.Moves[j+1:])
		}
	}
	if len(a.Moves) > 0 {
		fastestFirst(&a)
	}
	return a
}

// bookWhole is the index of the one unit of a polyomino.analyze job whose
// position the opening book answers whole.
const bookWhole = -2

// bookKnows reports whether the opening book answers pos whole: its value,
// and with allMoves every move's (the book may know a position's value
// but not each of its moves'), waiting for the book to load if it must.
func bookKnows(pos *polyomino.Position, allMoves bool) bool {
	a, ok := bookAnswer(pos, allMoves, true)
	if !ok || !allMoves {
		return ok
	}
	for _, m := range a.Moves {
		if !m.Proven {
			return false
		}
	}
	return true
}

// BookJob classifies the moves of a Pentominoes position on the job system,
// one unit per symmetry class of its moves: each unit proves the position
// after the move by search and reports whether the move wins for its
// maker, and for a losing move a winning reply (the third move of the
// opening book's certificate). Units that run in one process share a
// transposition table. gamesolver book build submits these jobs.
type BookJob struct {
	MaxDuration time.Duration
	// Workers is the number of goroutines of one unit's search (0: every core).
	Workers int
	// TableMB sizes the table the units of this process share (0: 1024).
	TableMB int

	once  *sync.Once
	table **polyomino.Table
}

// NewBookJob returns the kind with its process-wide table (made on first use).
func NewBookJob(maxDuration time.Duration, workers, tableMB int) BookJob {
	return BookJob{MaxDuration: maxDuration, Workers: workers, TableMB: tableMB, once: new(sync.Once), table: new(*polyomino.Table)}
}

// BookJobRequest is the request of a polyomino.book job.
type BookJobRequest struct {
	// Moves lead from the empty 8 x 8 board to the position.
	Moves []string `json:"moves"`
	// UntilWin ends the job as soon as one move wins for its maker (the
	// certificate's reply job: one winning reply refutes the first move).
	UntilWin bool `json:"until_win,omitempty"`
	// Classes, if given, limits the job to these classes (indices in the
	// order of the position's classes of moves).
	Classes []int `json:"classes,omitempty"`
}

// BookJobLine is one classified class of moves: its index among the
// position's classes (as in the request's classes), the move standing for
// it, the number of its images, whether it wins for its maker and, if not,
// a winning reply.
type BookJobLine struct {
	Index int `json:"index"`
	book.Line
}

// BookJobResult is the result of a polyomino.book job.
type BookJobResult struct {
	Moves []string      `json:"moves"`
	Lines []BookJobLine `json:"lines"`
	// Wins counts the classes that win for their maker.
	Wins int `json:"wins"`
	// Complete: every requested class is classified.
	Complete bool `json:"complete"`
	// EndedOnWin: the request asked for until_win and a class won, so the
	// job ended before the other classes were classified (its progress
	// then shows done < total).
	EndedOnWin bool  `json:"ended_on_win"`
	Nodes      int64 `json:"nodes"`
}

type bookUnit struct {
	Class   int      `json:"class"`
	Moves   []string `json:"moves"`
	Classes int      `json:"classes"`
}

// Name implements JobKind.
func (BookJob) Name() string { return "polyomino.book" }

// UnitFormat is the format of the units and results of the polyomino.book jobs this
// version plans and reads (jobs.Versioned): raise it with any change an
// earlier worker would misread. 1: those of 2026-11-29.
func (BookJob) UnitFormat() int { return 1 }

func (j BookJob) children(moves []string) (*polyomino.Position, []polyomino.Child, error) {
	pos, err := book.PositionAfter(moves)
	if err != nil {
		return nil, nil, inputError(err, "moves")
	}
	return pos, pos.Children(), nil
}

// Plan implements JobKind.
func (j BookJob) Plan(_ context.Context, request json.RawMessage) ([]json.RawMessage, error) {
	var r BookJobRequest
	if err := DecodeRequest(request, &r); err != nil {
		return nil, err
	}
	_, children, err := j.children(r.Moves)
	if err != nil {
		return nil, err
	}
	if len(children) == 0 {
		return nil, Invalid("moves", nil, "the game is over after these moves")
	}
	classes := r.Classes
	if classes != nil && len(classes) == 0 {
		return nil, Invalid("classes", nil, "classes is empty: list the classes to classify, or leave the field out for all of them")
	}
	if classes == nil {
		for i := range children {
			classes = append(classes, i)
		}
	}
	units := make([]json.RawMessage, 0, len(classes))
	seen := map[int]bool{}
	for _, c := range classes {
		if c < 0 || c >= len(children) {
			return nil, Invalid("classes", nil, "class %d: the position has classes 0..%d", c, len(children)-1)
		}
		if seen[c] {
			return nil, Invalid("classes", nil, "class %d is listed twice", c)
		}
		seen[c] = true
		u, _ := json.Marshal(bookUnit{Class: c, Moves: r.Moves, Classes: len(children)})
		units = append(units, u)
	}
	return units, nil
}

// Run implements JobKind: it classifies one class of moves.
func (j BookJob) Run(ctx context.Context, _, unit json.RawMessage, report func(int64)) (json.RawMessage, error) {
	var u bookUnit
	if err := json.Unmarshal(unit, &u); err != nil {
		return nil, fmt.Errorf("unit: %w", err)
	}
	pos, children, err := j.children(u.Moves)
	if err != nil {
		return nil, err
	}
	if len(children) != u.Classes || u.Class >= len(children) {
		return nil, fmt.Errorf("unit: position with %d classes, unit planned for %d", len(children), u.Classes)
	}
	if j.MaxDuration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, j.MaxDuration)
		defer cancel()
	}
	opts := &book.Options{Workers: j.Workers, Table: j.sharedTable(), Progress: report}
	l, err := book.ClassifyMove(ctx, pos, children[u.Class].Moves, opts)
	if err != nil {
		return nil, err
	}
	report(l.Nodes)
	return json.Marshal(l)
}

func (j BookJob) sharedTable() *polyomino.Table {
	if j.once == nil {
		mb := j.TableMB
		if mb <= 0 {
			mb = 1024
		}
		return polyomino.NewTable(mb)
	}
	j.once.Do(func() {
		mb := j.TableMB
		if mb <= 0 {
			mb = 1024
		}
		*j.table = polyomino.NewTable(mb)
	})
	return *j.table
}

// Combine implements JobKind.
func (j BookJob) Combine(_ context.Context, request json.RawMessage, total int, results map[int]json.RawMessage) (json.RawMessage, bool, error) {
	var r BookJobRequest
	if err := json.Unmarshal(request, &r); err != nil {
		return nil, false, err
	}
	out := BookJobResult{Moves: r.Moves, Lines: make([]BookJobLine, 0, len(results))}
	for i := range total {
		raw, ok := results[i]
		if !ok {
			continue
		}
		var l book.Line
		if err := json.Unmarshal(raw, &l); err != nil {
			return nil, false, err
		}
		index := i
		if r.Classes != nil {
			index = r.Classes[i]
		}
		out.Lines = append(out.Lines, BookJobLine{Index: index, Line: l})
		out.Nodes += l.Nodes
		if l.Wins {
			out.Wins++
		}
	}
	out.Complete = len(results) == total
	out.EndedOnWin = !out.Complete && r.UntilWin && out.Wins > 0
	if !out.Complete && !out.EndedOnWin {
		return nil, false, nil
	}
	b, err := json.Marshal(out)
	return b, true, err
}

// PreloadBook indexes the embedded book in the background, so that the
// first request that could use it does not pay for it (about 2 s of one
// core; see BENCHMARKS.md).
func PreloadBook() {
	go func() { _, _ = book.Embedded() }()
}

// bookWithin is book.EmbeddedWithin (a test's hook).
var bookWithin = book.EmbeddedWithin

// BookComponent reports the readiness of the embedded opening book,
// loading (about 2 s from the start, PreloadBook) or loaded: until then a
// Pentominoes request of a budget of bookWaitBudget or more waits for it
// within half its budget, then searches. A book that failed to load
// leaves the service ready (the search answers).
func BookComponent() Component {
	switch done, err := book.EmbeddedStatus(); {
	case done && err == nil:
		return Component{Name: "book", Ready: true, State: "ready"}
	case done:
		// Ready all the same: the search answers what the book would.
		return Component{Name: "book", Ready: true, State: "failed", Detail: fmt.Sprintf("the opening book did not load (the search answers instead): %v", err)}
	}
	return Component{Name: "book", State: "loading", Detail: "loading the Pentominoes opening book"}
}

// LoadBookFor indexes the embedded book now when it may answer body, a
// polyomino analysis request: a process made for one request (gamesolver
// solve) so does not spend the request's budget on it, as serve does not
// (PreloadBook). Other requests, and bodies that are no valid request,
// load nothing.
func LoadBookFor(body []byte) {
	if q, pos, err := decodeQuery(body); err == nil && !q.isCapture() && book.MayHold(pos) {
		if b, err := book.Embedded(); err == nil {
			b.LookupWait(pos, true) // and the reply file it needs, indexed on first use
		}
	}
}
