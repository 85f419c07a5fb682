package service

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/gamesolver/gamesolver/engine/polyomino"
	"github.com/gamesolver/gamesolver/service/cache"
)

// Completing cached polyomino answers (their plies, their every best
// move), keeping the better of two, and background jobs.

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
	searchStart := time.Now()
	known := p.search.knownChildren(bctx, pos, budget) // a job's units, say
	tt := p.search.tables.get(pos.Game())
	defer p.search.tables.put(tt)
	res, err := polyomino.Solve(bctx, pos, polyomino.Options{Workers: p.search.Workers, Table: tt, Prefer: prefer, Known: known.known()})
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
	if a.partial() && canon.Outcome == a.Outcome && canon.Value == a.Value {
		// The winning moves known before stay, first: a search that
		// proves other moves first (its table warm from other
		// searches) dropped those a job had found.
		a.BestMoves = withKnownBest(a.BestMoves, canon.BestMoves, a.PerfectFirst)
	}
	if a.Plies == nil && canon.Plies != nil {
		// The length known before (the position's), and its checked
		// first move if it has one (among a's best moves now).
		a.Plies, a.LengthTriedNs = canon.Plies, 0
		withFirst(&a, *canon)
	}
	*canon = a
	mine.answer = a
	storeBetter(ctx, p.search, key, a)
	return true, true
}

// withKnownBest is found, the best moves a search found, with known,
// those of an earlier answer of the same position (proven as well),
// first and in their order, except found's first when perfectFirst
// (checked as perfect play's), which stays first; no move twice.
func withKnownBest(found, known []string, perfectFirst bool) []string {
	out := make([]string, 0, len(found)+len(known))
	seen := make(map[string]bool, len(found)+len(known))
	add := func(m string) {
		if !seen[m] {
			seen[m] = true
			out = append(out, m)
		}
	}
	if perfectFirst && len(found) > 0 {
		add(found[0])
	}
	for _, m := range known {
		add(m)
	}
	for _, m := range found {
		add(m)
	}
	return out
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
// shorter list; and a book answer's list is the book's. completeBest
// keeps the moves an answer knew, withKnownBest, before it calls this.)
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
	case err != nil && ctx.Err() == nil && KindOf(err) == KindUnavailable:
		// The jobs store is down (or too slow: its calls end with sctx,
		// an unavailable store): the answer found is worth more than a
		// 503 (a store failure costs the background work, not the
		// answer).
		p.bgMu.Lock()
		p.bgDown = time.Now().Add(backgroundPause)
		p.bgMu.Unlock()
		p.backgroundOutcome("store_down")
		a.JobError = err.Error()
		return a, nil
	case KindOf(err) == KindBusy, KindOf(err) == KindRateLimited:
		// The server's cap on unfinished jobs, all or this client's, or
		// on this client's submissions; or its build queue full.
		p.backgroundOutcome("capped")
		a.JobError = err.Error()
		return a, nil
	case err != nil && ctx.Err() == nil && sctx.Err() != nil:
		// The job's planning (its game built again, evicted since this
		// request built it, or waiting for a build slot) outlasted
		// backgroundWait: the server's load, not the store's failure, so
		// no pause.
		p.backgroundOutcome("capped")
		a.JobError = fmt.Sprintf("no background job: planning it took longer than %v (the server is busy); ask again", backgroundWait)
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
