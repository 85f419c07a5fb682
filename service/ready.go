package service

import (
	"context"
	"sync"

	"github.com/gamesolver/gamesolver/service/cache"
)

// Component is one part of the service that may not be able to answer yet
// (a tablebase still building, say).
type Component struct {
	Name  string `json:"name" example:"teeko"`
	Ready bool   `json:"ready" example:"false"`
	// A word for the operator: "ready", "loading", "building", "failed".
	State  string `json:"state" example:"building"`
	Detail string `json:"detail,omitempty" example:"building the tablebases"`
	// The fraction done while building (0..1).
	Progress *float64 `json:"progress,omitempty" example:"0.48"`
}

// ReadyReport is what /readyz says.
type ReadyReport struct {
	Ready      bool         `json:"ready" example:"true"`
	Cache      cache.Health `json:"cache"`
	Components []Component  `json:"components"`
}

// Readiness collects the checks of every component and the cache's health.
// A cache that cannot be reached does not make the service unready: it only
// makes it slower.
type Readiness struct {
	cache cache.Cache

	mu     sync.Mutex
	checks []func() Component
}

// NewReadiness reports on c and on the components added later.
func NewReadiness(c cache.Cache) *Readiness { return &Readiness{cache: c} }

// Add registers a component check. It must be cheap: /readyz calls it.
func (r *Readiness) Add(check func() Component) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.checks = append(r.checks, check)
}

// Report runs every check.
func (r *Readiness) Report(ctx context.Context) ReadyReport {
	r.mu.Lock()
	checks := append([]func() Component(nil), r.checks...)
	r.mu.Unlock()
	rep := ReadyReport{Ready: true, Cache: r.cache.Health(ctx), Components: []Component{}}
	for _, check := range checks {
		c := check()
		rep.Ready = rep.Ready && c.Ready
		rep.Components = append(rep.Components, c)
	}
	return rep
}
