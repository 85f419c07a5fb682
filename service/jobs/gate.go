package jobs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/gamesolver/gamesolver/service"
)

// storeGate fails the API's store calls (Submit, Get, Cancel) at once
// while the store cannot be reached, instead of each waiting for
// Options.OpTimeout (5 s): after a call that timed out or could not
// connect, the others fail at once for the following OpTimeout; then one
// call probes the store, the others still failing at once until it has
// answered. A store that answers with an error (a full disk, Redis
// refusing writes) is reachable: its errors close nothing. The workers'
// calls do not pass through it (they retry on their own terms).
type storeGate struct {
	mu        sync.Mutex
	downUntil time.Time // zero: the store answered last
	lastErr   error
	probing   bool
}

// gated runs call, a store call of the API with the store's timeout,
// through the gate; it returns the gate's *service.Error when the store
// is known to be unreachable, else the call's own error.
func (m *Manager) gated(ctx context.Context, what string, call func(ctx context.Context) error) error {
	probe, err := m.gate.enter(what)
	if err != nil {
		return err
	}
	var callErr error
	defer func() { m.gate.leave(ctx, probe, callErr, m.opts.OpTimeout) }() // a panic too
	opCtx, cancel := context.WithTimeout(ctx, m.opts.OpTimeout)
	defer cancel()
	callErr = call(opCtx)
	return callErr
}

// enter lets a call through (probe: it is the one testing a store that
// was unreachable), or returns the error to answer at once.
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
			Cause:   fmt.Errorf("the store could not be reached moments ago, not tried again yet: %w", g.lastErr)}
	}
	g.probing = true
	return true, nil
}

// leave records how the call that entered went: err is its store call's
// error. A call whose caller went away tells nothing.
func (g *storeGate) leave(ctx context.Context, probe bool, err error, down time.Duration) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if probe {
		g.probing = false
	}
	switch {
	case err != nil && ctx.Err() != nil:
	case unreachable(err):
		g.downUntil, g.lastErr = time.Now().Add(down), err
	default:
		g.downUntil, g.lastErr = time.Time{}, nil // it answered
	}
}

// unreachable: err says the store could not be reached or did not answer
// in time (not that it answered with an error).
// (Redis loading its data after a restart answers LOADING: not there yet.)
func unreachable(err error) bool {
	var ne net.Error
	return err != nil && (errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, io.EOF) || errors.Is(err, redis.ErrClosed) ||
		strings.HasPrefix(err.Error(), "LOADING"))
}

// refusingReplies are the codes (first words) of the errors Redis answers while it
// refuses work for a time: out of memory (maxmemory with noeviction),
// a replica made read-only (a failover), writes stopped after a failed
// save (a full disk), a script running too long, a cluster or its
// master down; EXECABORT is a transaction discarded for one of these.
var refusingReplies = []string{"OOM", "READONLY", "MISCONF", "BUSY", "MASTERDOWN", "CLUSTERDOWN", "TRYAGAIN", "NOREPLICAS", "EXECABORT"}

// storeDown: err says the store cannot do the workers' work for now,
// unreachable or refusing it (refusingReplies): a worker keeps a finished
// result and retries as through an outage, and the workers hold their
// reclaims after it (their heartbeats were refused meanwhile: every
// running unit looks idle, and reclaims count deliveries until the job
// fails; an audit's healthy jobs failed after 100 s of maxmemory).
func storeDown(err error) bool {
	if unreachable(err) {
		return true
	}
	var re redis.Error
	if !errors.As(err, &re) {
		return false
	}
	code, _, _ := strings.Cut(re.Error(), " ") // the reply's first word: BUSY, not BUSYGROUP
	return slices.Contains(refusingReplies, code)
}
