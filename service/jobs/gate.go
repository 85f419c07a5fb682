package jobs

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/gamesolver/gamesolver/service"
)

// storeGate fails the API's store calls (Submit, Get, Cancel) at once
// while the store is known to be down, instead of each waiting for
// Options.OpTimeout (5 s): after a call that failed, the others fail at
// once for the following OpTimeout; then one call probes the store, the
// others still failing at once until it has answered. The workers' calls
// do not pass through it (they retry on their own terms).
type storeGate struct {
	mu        sync.Mutex
	downUntil time.Time // zero: the store answered last
	lastErr   error
	probing   bool
}

// enter lets a call through (probe: it is the one testing a store that
// was down), or returns the error to answer at once.
func (g *storeGate) enter(what string) (probe bool, err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.downUntil.IsZero() {
		return false, nil
	}
	now := time.Now()
	if wait := g.downUntil.Sub(now); wait > 0 || g.probing {
		return false, &service.Error{Kind: service.KindUnavailable, RetryAfter: max(wait, time.Second),
			Message: "jobs store unavailable: could not " + what,
			Cause:   fmt.Errorf("the store failed moments ago, not tried again yet: %w", g.lastErr)}
	}
	g.probing = true
	return true, nil
}

// leave records how the call that entered went: err is its store call's
// error (nil: the store answered); a call whose caller went away tells
// nothing.
func (g *storeGate) leave(ctx context.Context, probe bool, err error, down time.Duration) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if probe {
		g.probing = false
	}
	switch {
	case err != nil && ctx.Err() != nil:
	case err == nil:
		g.downUntil, g.lastErr = time.Time{}, nil
	default:
		g.downUntil, g.lastErr = time.Now().Add(down), err
	}
}
