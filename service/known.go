package service

import (
	"bytes"
	"context"
	"encoding/json"
	"time"

	"github.com/gamesolver/gamesolver/engine/polyomino"
	"github.com/gamesolver/gamesolver/service/cache"
)

// Children's values from the cache: a search of a position whose
// children earlier searches may have proved (a polyomino.analyze job's
// units, canceled or not: its planning marks the position; an annotation's
// later positions) takes as proven the values the cache holds of the
// positions after its moves, without searching them again
// (polyomino.Options.Known), and their plies as its moves' (the length
// search skips those).

const (
	// knownMaxMoves: a position of more legal moves looks nothing up
	// (the keys of its children alone would take tens of milliseconds).
	knownMaxMoves = 3000
	// The look-up takes at most a knownShare-th of the time left, and at
	// most knownMaxTime; with less than knownMinTime, none is made. It
	// takes about 15 ms for 1,400 children on an idle machine (memory
	// cache; BenchmarkKnownChildren), tens of ms through Redis: the cap
	// binds only on a loaded machine, whose search is as slow, and
	// there the values found save more than the look-up costs (at
	// 100 ms, a loaded CI's look-up of 1,156 children gave up half done).
	knownShare   = 8
	knownMaxTime = time.Second
	knownMinTime = 2 * time.Millisecond
	// knownPrefix: the bytes of a child's cached answer read (its value
	// comes first: PolyominoAnswer), not the tens of kilobytes of its
	// moves.
	knownPrefix = 256
)

// childValues are the cached values of a position's children.
type childValues struct {
	byMove map[string]int // a move (the position's frame) -> its child
	values []unitValue    // by child; Proven false: not known
	found  int            // children known
}

// childrenKey is the cache key of the mark that the children of the
// position of canonical key k may be cached (markChildren).
func childrenKey(k string) string { return cacheKey("polyomino", "children", k) }

// markChildren records that pos's children may be cached: knownChildren
// looks them up only for a position so marked (elsewhere the look-up is
// time spent for nothing: a cold position's children are not cached). A
// cache failure loses the mark (and the look-up: speed, not answers).
func (s *Searcher) markChildren(ctx context.Context, pos *polyomino.Position) {
	if s == nil || s.Loader == nil {
		return
	}
	_ = s.Loader.Replace(context.WithoutCancel(ctx), childrenKey(polyomino.CanonicalKey(pos)), []byte("1"))
}

// knownChildren looks up the values the cache holds of pos's children
// (their answers with and without all_moves), when pos is marked
// (markChildren), within a share of the time ctx leaves (left, when ctx
// has no deadline). It returns nil when none is known, or pos is not one
// to look up (a pass, too many moves, beyond the search, too little
// time): a cache that fails knows nothing.
func (s *Searcher) knownChildren(ctx context.Context, pos *polyomino.Position, left time.Duration) *childValues {
	if d, ok := ctx.Deadline(); ok {
		left = time.Until(d)
	}
	return s.knownChildrenWithin(ctx, pos, min(left/knownShare, knownMaxTime))
}

// knownChildrenWithin is knownChildren within a time of the caller's
// choice.
func (s *Searcher) knownChildrenWithin(ctx context.Context, pos *polyomino.Position, within time.Duration) *childValues {
	if s == nil || s.Loader == nil {
		return nil
	}
	if within < knownMinTime || pos.MustPass() {
		return nil
	}
	lctx, cancel := context.WithTimeout(ctx, within)
	defer cancel()
	c := s.Loader.Cache()
	if _, marked, _ := c.Get(cache.Uncounted(lctx), childrenKey(polyomino.CanonicalKey(pos))); !marked || lctx.Err() != nil {
		return nil
	}
	if pos.LegalMoveCount() > knownMaxMoves || !polyomino.Searchable(pos) {
		return nil
	}
	children := pos.Children()
	keys := make([]string, 0, 2*len(children))
	for i, ch := range children {
		if i&15 == 15 && lctx.Err() != nil {
			return nil
		}
		k := polyomino.CanonicalKey(ch.Position)
		keys = append(keys, cacheKey("polyomino", "all=false", k), cacheKey("polyomino", "all=true", k))
	}
	vals, _ := cache.GetPrefixes(lctx, c, keys, knownPrefix)
	normal := pos.Game().Config().EndRule == polyomino.NormalPlay
	cv := &childValues{byMove: map[string]int{}, values: make([]unitValue, len(children))}
	for i, ch := range children {
		for _, raw := range vals[2*i : 2*i+2] {
			v, ok := childValue(raw)
			// Normal play: a win or a loss, +1 or -1; the score rule:
			// a difference of pieces (at most a board's worth).
			ok = ok && (normal && (v.Value == 1 || v.Value == -1) || !normal && v.Value >= -256 && v.Value <= 256)
			if ok && (!cv.values[i].Proven || cv.values[i].Plies == nil) {
				cv.values[i] = v
			}
		}
		if cv.values[i].Proven {
			cv.found++
			for _, m := range ch.Moves {
				cv.byMove[m.String()] = i
			}
		}
	}
	if cv.found == 0 {
		return nil
	}
	return cv
}

// known is polyomino.Options.Known over cv (nil when cv is).
func (cv *childValues) known() func(class []polyomino.Move) (polyomino.Result, bool) {
	if cv == nil {
		return nil
	}
	return func(class []polyomino.Move) (polyomino.Result, bool) {
		for _, m := range class {
			if i, ok := cv.byMove[m.String()]; ok {
				v := cv.values[i]
				return polyomino.Result{Outcome: polyomino.Outcome(v.Outcome), Proven: true, Value: v.Value}, true
			}
		}
		return polyomino.Result{}, false
	}
}

// rows are the values of res's moves not proven whose children cv holds,
// as withMoveValues takes them: the mover's, the child's negated.
func (cv *childValues) rows(res polyomino.Result) []PolyominoMove {
	if cv == nil {
		return nil
	}
	var rows []PolyominoMove
	for _, mr := range res.Moves {
		i, ok := cv.byMove[mr.Move.String()]
		if !ok || mr.Proven {
			continue
		}
		v, o := -cv.values[i].Value, polyomino.Draw
		switch {
		case v > 0:
			o = polyomino.Win
		case v < 0:
			o = polyomino.Loss
		}
		rows = append(rows, PolyominoMove{Move: mr.Move.String(), Outcome: string(o), Proven: true, Value: v})
	}
	return rows
}

// lendPlies gives a's moves (res's, in the same order) the plies of their
// cached children, where the values agree, in perfect play's order
// (fastestFirst): the length search then skips them (withLength).
func (cv *childValues) lendPlies(a *PolyominoAnswer, res polyomino.Result) {
	if cv == nil || len(a.Moves) != len(res.Moves) {
		return
	}
	lent := false
	for i, mr := range res.Moves {
		c, ok := cv.byMove[mr.Move.String()]
		if !ok || a.Moves[i].Plies != nil || !mr.Proven || cv.values[c].Plies == nil || mr.Value != -cv.values[c].Value {
			continue
		}
		n := *cv.values[c].Plies
		a.Moves[i].Plies = &n
		lent = true
	}
	if lent {
		fastestFirst(a)
	}
}

// childValue reads a cached answer's value (outcome, proven, value,
// plies) from its first bytes (raw may be cut short there): this version
// writes them first (PolyominoAnswer), and the reading stops at the
// first other field (an answer another version wrote, with its value
// after its config, reads as no value). ok: a proven value whose outcome
// fits it.
func childValue(raw []byte) (v unitValue, ok bool) {
	if raw == nil {
		return v, false
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return v, false
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return unitValue{}, false
		}
		key, _ := t.(string)
		switch key {
		case "outcome":
			err = dec.Decode(&v.Outcome)
		case "proven":
			err = dec.Decode(&v.Proven)
		case "value":
			err = dec.Decode(&v.Value)
		case "plies":
			err = dec.Decode(&v.Plies)
		default:
			return v, v.fits()
		}
		if err != nil {
			return unitValue{}, false
		}
	}
	return v, v.fits()
}

// fits: v is a proven value whose outcome says the same (normal play and
// the score rule: a win's value is positive, a loss's negative, a
// draw's 0), with plies not negative.
func (v unitValue) fits() bool {
	if !v.Proven || v.Plies != nil && *v.Plies < 0 {
		return false
	}
	switch polyomino.Outcome(v.Outcome) {
	case polyomino.Win:
		return v.Value > 0
	case polyomino.Loss:
		return v.Value < 0
	case polyomino.Draw:
		return v.Value == 0
	}
	return false
}
