package service

import (
	"bytes"
	"context"
	"encoding/json"
	"time"

	"github.com/gamesolver/gamesolver/engine/polyomino"
	"github.com/gamesolver/gamesolver/service/cache"
)

// Children's values from the cache: a search of a position takes as
// proven the values of the positions after its moves that earlier
// searches cached (a job's units, canceled or not, and requests on those
// positions), without searching them again (polyomino.Options.Known), and
// their plies as its moves' (the length search skips those).

const (
	// knownMaxMoves: a position of more legal moves looks nothing up
	// (the keys of its children alone would take tens of milliseconds).
	knownMaxMoves = 3000
	// The look-up takes at most a knownShare-th of the time left, and at
	// most knownMaxTime (about 10 ms for the 1,400 children of a
	// two-ply 8 x 8 position, their keys included).
	knownShare   = 8
	knownMaxTime = 100 * time.Millisecond
)

// childValues are the cached values of a position's children.
type childValues struct {
	byMove map[string]int // a move (the position's frame) -> its child
	values []unitValue    // by child; Proven false: not known
	found  int            // children known
}

// knownChildren looks up the values the cache holds of pos's children
// (their answers with and without all_moves), within a share of the time
// ctx leaves (left, when ctx has no deadline). It returns nil when none is
// known, or pos is not one to look up (a pass, too many moves, beyond the
// search): a cache that fails knows nothing.
func (s *Searcher) knownChildren(ctx context.Context, pos *polyomino.Position, left time.Duration) *childValues {
	if s == nil || s.Loader == nil || pos.MustPass() || pos.LegalMoveCount() > knownMaxMoves || !polyomino.Searchable(pos) {
		return nil
	}
	if d, ok := ctx.Deadline(); ok {
		left = time.Until(d)
	}
	lctx, cancel := context.WithTimeout(ctx, min(left/knownShare, knownMaxTime))
	defer cancel()
	children := pos.Children()
	keys := make([]string, 0, 2*len(children))
	for i, c := range children {
		if i&63 == 63 && lctx.Err() != nil {
			return nil
		}
		k := polyomino.CanonicalKey(c.Position)
		keys = append(keys, cacheKey("polyomino", "all=false", k), cacheKey("polyomino", "all=true", k))
	}
	// Uncounted: most children of most positions are not cached, which
	// would make the hit ratio of the requests' answers lie.
	vals, _ := cache.GetMany(cache.Uncounted(lctx), s.Loader.Cache(), keys)
	cv := &childValues{byMove: map[string]int{}, values: make([]unitValue, len(children))}
	for i, c := range children {
		for _, raw := range vals[2*i : 2*i+2] {
			if v, ok := childValue(raw); ok && (!cv.values[i].Proven || cv.values[i].Plies == nil) {
				cv.values[i] = v
			}
		}
		if cv.values[i].Proven {
			cv.found++
			for _, m := range c.Moves {
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

// lendPlies gives a's moves (res's, in the same order) the plies of their
// cached children, where the values agree: the length search then skips
// them (withLength).
func (cv *childValues) lendPlies(a *PolyominoAnswer, res polyomino.Result) {
	if cv == nil || len(a.Moves) != len(res.Moves) {
		return
	}
	for i, mr := range res.Moves {
		c, ok := cv.byMove[mr.Move.String()]
		if !ok || a.Moves[i].Plies != nil || !mr.Proven || cv.values[c].Plies == nil || mr.Value != -cv.values[c].Value {
			continue
		}
		n := *cv.values[c].Plies
		a.Moves[i].Plies = &n
	}
}

// childValue reads a cached answer's value (outcome, proven, value, plies)
// without decoding its moves: the fields come first in what this version
// writes (PolyominoAnswer), and the reading stops at best_moves (an
// answer another version wrote may then lack its plies). ok: a proven
// value whose outcome fits it.
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
		case "best_moves", "moves":
			return v, v.fits()
		default:
			var skip json.RawMessage
			err = dec.Decode(&skip)
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
