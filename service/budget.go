package service

import (
	"math"
	"time"
)

// Budgets turns the budget a client asks for into the one it gets: the
// default when none is asked, never more than the server-side cap.
type Budgets struct {
	Default time.Duration
	Max     time.Duration
}

// Clamp returns the effective budget for a request asking for ms
// milliseconds (0 or absent: the default).
func (b Budgets) Clamp(ms int64) time.Duration {
	d := time.Duration(ms) * time.Millisecond
	switch {
	case ms <= 0:
		d = b.Default
	case ms > int64(math.MaxInt64/time.Millisecond):
		d = math.MaxInt64 // the product would overflow: as long as can be
	}
	if b.Max > 0 && d > b.Max {
		d = b.Max
	}
	return d
}

// checkBudget refuses a negative budget_ms (0 is the server's default).
func checkBudget(ms int64) error {
	if ms < 0 {
		return Invalid("budget_ms", nil, "budget_ms %d: expected a positive number of milliseconds", ms)
	}
	return nil
}
