package jobs

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"time"
)

// A Kind is one type of job, e.g. "polyomino.analyze". Its methods may be
// called from many goroutines and processes at once.
type Kind interface {
	// Name is the job type clients ask for.
	Name() string
	// Plan validates the request and splits it into independent units
	// (opaque payloads), at least one. An error that is a *service.Error
	// reaches the caller as it is; any other error is reported as an
	// invalid request.
	Plan(ctx context.Context, request json.RawMessage) (units []json.RawMessage, err error)
	// Run computes one unit, given the job's request too (a unit need not
	// carry what the request says: a polyomino.analyze job of 12,000
	// units stored it 12,000 times). report(nodes) may be called often,
	// from any goroutine, with the unit's cumulative node count. Run must
	// honour ctx: it is canceled when the job is canceled or finished
	// early, and when the worker shuts down. A panic in Run is recovered
	// (not one in a goroutine Run starts: that still ends the process).
	Run(ctx context.Context, request, unit json.RawMessage, report func(nodes int64)) (json.RawMessage, error)
	// Combine is called after each finished unit with the results so far
	// (unit index -> result) and the number of units. It returns the job's
	// result and done=true when the job can finish: every unit done, or
	// early (one child proved a win). Two workers finishing units at the
	// same time may both call it; the last of them sees every result. The
	// unit's claim is renewed meanwhile (a Combine may take seconds), and
	// ctx is canceled when the job is over, the unit is taken over or the
	// worker shuts down, as Run's is: what Combine returns after that is
	// dropped (a unit given back at shutdown is combined again by the next
	// worker, its result kept), so a search in Combine may simply stop.
	// Every call reads all results so far from the store, so keep unit
	// results small (a value and a move, not a tree). A panic is
	// recovered as Run's is (the unit handed back, combined again).
	Combine(ctx context.Context, request json.RawMessage, total int, results map[int]json.RawMessage) (result json.RawMessage, done bool, err error)
}

// Versioned is a Kind whose units and results have a format number, kept
// with each job it plans. A release that changes what a unit or a result
// says, so that an earlier worker would misread it, raises its kind's
// number; a worker then fails a job of a later format with a message that
// says so (and, on a shared store, first leaves each unit to the other
// workers, which may be of that version, for ReclaimAfter from its first
// such hand-back), where it refused the unit as a bad
// request: "unit 0: request.part: unknown field" read like the client's
// fault during a rolling upgrade. A Kind that is not Versioned has format
// 0, as every job planned before formats were kept.
type Versioned interface {
	UnitFormat() int
}

// unitFormat is k's format: its UnitFormat, else 0.
func unitFormat(k Kind) int {
	if v, ok := k.(Versioned); ok {
		return v.UnitFormat()
	}
	return 0
}

// Status is where a job is in its life.
type Status string

// Statuses of a job. Done, failed and canceled are final.
const (
	StatusQueued   Status = "queued"
	StatusRunning  Status = "running"
	StatusDone     Status = "done"
	StatusFailed   Status = "failed"
	StatusCanceled Status = "canceled"
)

// Final reports whether s is an end state.
func (s Status) Final() bool {
	return s == StatusDone || s == StatusFailed || s == StatusCanceled
}

// Job is what a client sees of a job.
type Job struct {
	ID       string          `json:"id"`
	Type     string          `json:"type"`
	Status   Status          `json:"status"`
	Created  time.Time       `json:"created"`
	Started  time.Time       `json:"started,omitzero"`
	Finished time.Time       `json:"finished,omitzero"`
	Request  json.RawMessage `json:"request,omitempty"`
	Progress Progress        `json:"progress"`
	Result   json.RawMessage `json:"result,omitempty"`
	Error    string          `json:"error,omitempty"`
}

// Progress counts what is measured, nothing guessed.
type Progress struct {
	// Done and Total count units. A job that finishes early ends with
	// Done < Total.
	Done  int `json:"done"`
	Total int `json:"total"`
	// Nodes is the sum over the units of the most nodes each reported,
	// finished or running: a unit run again (its worker died, or handed
	// it back) reports from zero again and adds nothing until it passes
	// its earlier run, so the count never goes down (the work lost is not
	// counted).
	Nodes int64 `json:"nodes"`
	// ElapsedMS runs from the start of the first unit to the end of the job
	// (or now).
	ElapsedMS int64 `json:"elapsed_ms"`
	// EstimateMS is the time still needed at the rate measured so far,
	// elapsed * (total - done) / done: nil until a unit has finished and
	// after the job failed or was canceled, 0 when done.
	EstimateMS *int64 `json:"estimate_ms"`
}

// state is what a store keeps of a job.
type state struct {
	ID       string
	Type     string
	Status   Status
	Created  time.Time
	Started  time.Time
	Finished time.Time
	Request  json.RawMessage
	Total    int
	Done     int   // units with a result
	Nodes    int64 // sum of the per-unit node counts
	Result   json.RawMessage
	Error    string
	// Client is who submitted the job (service.Client), "" for none:
	// Options.MaxPerClient counts by it.
	Client string
	// Format is the unit format of the kind that planned the job
	// (Versioned), 0 for none.
	Format int
}

// view turns a stored state into what a client sees at now.
func (s state) view(now time.Time) Job {
	j := Job{
		ID: s.ID, Type: s.Type, Status: s.Status,
		Created: s.Created, Started: s.Started, Finished: s.Finished,
		Request: s.Request, Result: s.Result, Error: s.Error,
		Progress: Progress{Done: s.Done, Total: s.Total, Nodes: s.Nodes},
	}
	if !s.Started.IsZero() {
		end := now
		if !s.Finished.IsZero() {
			end = s.Finished
		}
		j.Progress.ElapsedMS = max(0, end.Sub(s.Started).Milliseconds())
	}
	switch {
	case s.Status == StatusDone:
		j.Progress.EstimateMS = new(int64)
	case !s.Status.Final() && s.Done > 0:
		// Integer arithmetic: elapsed * remaining / done, in milliseconds.
		e := j.Progress.ElapsedMS * int64(s.Total-s.Done) / int64(s.Done)
		j.Progress.EstimateMS = &e
	}
	return j
}

// delivery is one unit handed to a worker.
type delivery struct {
	EntryID    string // stream entry id (or the memory store's sequence)
	JobID      string
	Unit       int
	Payload    json.RawMessage
	Deliveries int64 // 1 on the first delivery
	Reclaimed  bool  // taken over from another consumer (dead, or handed back)
}

// unitStart is what a worker learns of a unit's job before running it.
type unitStart struct {
	Found     bool
	Status    Status
	Type      string
	Request   json.RawMessage
	Total     int
	HasResult bool      // the unit was finished before (its worker died before acking)
	Slow      bool      // a unit of the job outlasted an express slot's limit
	Created   time.Time // the job's submission (zero if unknown)
	Started   time.Time // its first unit's begin (this one's, at the latest)
	Format    int       // the job's unit format (state.Format)
}

// ending is how a job ends.
type ending struct {
	Status Status
	At     time.Time
	Result json.RawMessage
	Error  string
	TTL    time.Duration
}

// idBytes is the entropy of a job id: 128 bits.
const idBytes = 16

// newID returns an unguessable, URL-safe job id: 128 bits from crypto/rand
// in unpadded base64url, 22 characters.
func newID() string {
	b := make([]byte, idBytes)
	_, _ = rand.Read(b) // never fails (crypto/rand panics instead)
	return base64.RawURLEncoding.EncodeToString(b)
}

// loggedIDLen is how much of a job id the logs keep: 8 characters, 48
// bits, enough to find a job's lines among millions, while the 80 bits
// left out keep a log reader from following, changing or canceling the job
// (an id is its bearer's only credential; a security review found them
// logged whole).
const loggedIDLen = 8

// LoggedID is what the logs show of job id: its first 8 characters and an
// ellipsis.
func LoggedID(id string) string {
	if len(id) <= loggedIDLen {
		return id
	}
	return id[:loggedIDLen] + "…"
}

// validID reports whether id could have come from newID, so that garbage
// never reaches a store key.
func validID(id string) bool {
	if len(id) != base64.RawURLEncoding.EncodedLen(idBytes) {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}
