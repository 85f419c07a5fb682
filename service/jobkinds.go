package service

import (
	"context"
	"encoding/json"
)

// JobKind is one type of long computation; it has the method set of
// jobs.Kind (package jobs imports this package for its errors, so the
// interface is declared again here and the wiring converts).
type JobKind interface {
	Name() string
	Plan(ctx context.Context, request json.RawMessage) ([]json.RawMessage, error)
	Run(ctx context.Context, request, unit json.RawMessage, report func(nodes int64)) (json.RawMessage, error)
	Combine(ctx context.Context, request json.RawMessage, total int, results map[int]json.RawMessage) (json.RawMessage, bool, error)
}
