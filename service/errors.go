package service

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"
)

// Kind classifies an error for the caller; package api maps each kind to
// one HTTP status in one place.
type Kind int

// Kinds of errors.
const (
	KindInternal     Kind = iota // a bug: 500
	KindInvalid                  // the request is wrong: 400 (or 422)
	KindNotFound                 // no such thing: 404
	KindNotReady                 // engine still starting: 503 + Retry-After
	KindBusy                     // no solver slot free: 503 + Retry-After
	KindRateLimited              // this client asks too often: 429 + Retry-After
	KindConflict                 // state does not allow it: 409
	KindUnauthorized             // missing or wrong API key: 401
	KindUnavailable              // a store the request needs is down: 503 + Retry-After
)

// FieldError names one field of a request and what is wrong with it.
type FieldError struct {
	Field string `json:"field" example:"moves"`
	// Index: when the field is a list, the 0-based position of the
	// element at fault, moves[index]: a move (turn) refused, or a list's
	// element that is null or of the wrong type (the message counts from
	// 1: "move 2", "turn 2", "element 2"); left out otherwise.
	Index   *int   `json:"index,omitempty" example:"1"`
	Message string `json:"message" example:"move 2: cell i1 is off the 8x8 board"`
}

// Error is the error type of every use case.
type Error struct {
	Kind    Kind
	Message string
	Fields  []FieldError
	// RetryAfter, for NotReady, Busy and RateLimited, says when to retry.
	RetryAfter time.Duration
	// Progress, for NotReady, tells how far a build has come (0..1).
	Progress *float64
	Cause    error
}

// RetrySeconds is d in whole seconds, rounded up: the Retry-After header
// of an error whose RetryAfter is d, and what its message should say.
func RetrySeconds(d time.Duration) int { return int(math.Ceil(d.Seconds())) }

func (e *Error) Error() string {
	if e.Cause != nil {
		return e.Message + ": " + e.Cause.Error()
	}
	return e.Message
}

func (e *Error) Unwrap() error { return e.Cause }

// Invalid reports a request field that cannot be used; message says what
// was expected. The error also wraps cause when one is given.
func Invalid(field string, cause error, format string, args ...any) *Error {
	msg := fmt.Sprintf(format, args...)
	return &Error{Kind: KindInvalid, Message: msg, Fields: []FieldError{{Field: field, Message: msg}}, Cause: cause}
}

// InvalidMove is Invalid for the move at index (0-based) of the list
// field (moves), named in the field error's Index.
func InvalidMove(field string, index int, cause error, format string, args ...any) *Error {
	e := Invalid(field, cause, format, args...)
	e.Fields[0].Index = &index
	return e
}

// NotFound reports a missing resource.
func NotFound(format string, args ...any) *Error {
	return &Error{Kind: KindNotFound, Message: fmt.Sprintf(format, args...)}
}

// KindOf returns the kind of err, KindInternal for errors not made here.
func KindOf(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return KindInternal
}

type requestIDKey struct{}

// WithRequestID returns ctx carrying the id of the HTTP request it serves,
// so that work it starts (a job's submission) logs it.
func WithRequestID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, requestIDKey{}, id)
}

type clientKey struct{}

// WithClient returns ctx carrying the id of the client a request comes
// from (APIKeys.ClientID: its API key's hash, else its address), so that
// the jobs it starts count against its own cap.
func WithClient(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, clientKey{}, id)
}

// Client returns the client id ctx carries, "" for none.
func Client(ctx context.Context) string {
	id, _ := ctx.Value(clientKey{}).(string)
	return id
}

// RequestID returns the request id ctx carries, "" for none.
func RequestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey{}).(string)
	return id
}
