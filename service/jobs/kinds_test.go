package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/gamesolver/gamesolver/service"
)

// squares is the toy kind of the tests: the sum of x*x for x in [0, n),
// split into ranges. A unit reports one node per number. The request can
// make one unit win (finishing the job early), fail, or panic; the kind's
// gate can hold units after they computed, to control timing.
type squares struct {
	name string
	// wait, when set, gives the channel a unit waits on after it computed
	// and reported (nil: none), until it receives from it or its context
	// ends.
	wait func(unit int) <-chan struct{}

	mu       sync.Mutex
	started  map[int]int // Run calls per unit
	finished map[int]int // Runs that returned a result
	canceled map[int]int // Runs that stopped on their context
	panicked map[int]int
	planned  int // Plan calls

	format int // UnitFormat's
}

type squaresRequest struct {
	N          int  `json:"n"`
	Units      int  `json:"units"`
	Win        *int `json:"win,omitempty"`
	Fail       *int `json:"fail,omitempty"`
	Panic      *int `json:"panic,omitempty"`
	PanicTimes int  `json:"panic_times,omitempty"`
	Busy       bool `json:"busy,omitempty"` // Plan refuses it as the server's load would
}

type squaresUnit struct {
	I          int  `json:"i"`
	From       int  `json:"from"`
	To         int  `json:"to"`
	Win        bool `json:"win,omitempty"`
	Fail       bool `json:"fail,omitempty"`
	PanicTimes int  `json:"panic_times,omitempty"`
}

type squaresResult struct {
	Sum int64 `json:"sum"`
	Win bool  `json:"win,omitempty"`
}

func newSquares() *squares {
	return &squares{name: "toy.squares", started: map[int]int{}, finished: map[int]int{}, canceled: map[int]int{}, panicked: map[int]int{}}
}

func (k *squares) Name() string { return k.name }

func (k *squares) UnitFormat() int { return k.format }

func (k *squares) Plan(_ context.Context, request json.RawMessage) ([]json.RawMessage, error) {
	k.mu.Lock()
	k.planned++
	k.mu.Unlock()
	var r squaresRequest
	if err := json.Unmarshal(request, &r); err != nil {
		return nil, err
	}
	if r.Busy {
		return nil, &service.Error{Kind: service.KindBusy, RetryAfter: time.Second, Message: "busy"}
	}
	if r.N < 1 || r.Units < 1 || r.Units > r.N {
		return nil, fmt.Errorf("want 1 <= units <= n, have units %d and n %d", r.Units, r.N)
	}
	units := make([]json.RawMessage, r.Units)
	for i := range units {
		u := squaresUnit{I: i, From: i * r.N / r.Units, To: (i + 1) * r.N / r.Units}
		u.Win = r.Win != nil && *r.Win == i
		u.Fail = r.Fail != nil && *r.Fail == i
		if r.Panic != nil && *r.Panic == i {
			u.PanicTimes = r.PanicTimes
		}
		units[i], _ = json.Marshal(u)
	}
	return units, nil
}

func (k *squares) Run(ctx context.Context, _, payload json.RawMessage, report func(int64)) (json.RawMessage, error) {
	var u squaresUnit
	if err := json.Unmarshal(payload, &u); err != nil {
		return nil, err
	}
	k.count(k.started, u.I)
	var sum int64
	for x := u.From; x < u.To; x++ {
		sum += int64(x) * int64(x)
		report(int64(x - u.From + 1))
	}
	if u.PanicTimes > 0 && k.count(k.panicked, u.I) <= u.PanicTimes {
		panic(fmt.Sprintf("boom in unit %d", u.I))
	}
	if gate := k.waitFor(u.I); gate != nil {
		select {
		case <-gate:
		case <-ctx.Done():
			k.count(k.canceled, u.I)
			return nil, ctx.Err()
		}
	}
	if u.Fail {
		return nil, errors.New("this unit refuses")
	}
	k.count(k.finished, u.I)
	return json.Marshal(squaresResult{Sum: sum, Win: u.Win})
}

func (k *squares) Combine(_ context.Context, _ json.RawMessage, total int, results map[int]json.RawMessage) (json.RawMessage, bool, error) {
	var sum int64
	for i, raw := range results {
		var r squaresResult
		if err := json.Unmarshal(raw, &r); err != nil {
			return nil, false, err
		}
		if r.Win {
			out, err := json.Marshal(map[string]int{"winner": i})
			return out, true, err
		}
		sum += r.Sum
	}
	if len(results) < total {
		return nil, false, nil
	}
	out, err := json.Marshal(map[string]int64{"sum": sum})
	return out, true, err
}

// gated makes every unit wait on gate, and returns gate.
func (k *squares) gated(gate chan struct{}) chan struct{} {
	k.wait = func(int) <-chan struct{} { return gate }
	return gate
}

func (k *squares) waitFor(unit int) <-chan struct{} {
	if k.wait == nil {
		return nil
	}
	return k.wait(unit)
}

// count adds one to m[unit] and returns the new count.
func (k *squares) count(m map[int]int, unit int) int {
	k.mu.Lock()
	defer k.mu.Unlock()
	m[unit]++
	return m[unit]
}

// reset zeroes the counters.
func (k *squares) reset() {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.started, k.finished, k.canceled, k.panicked = map[int]int{}, map[int]int{}, map[int]int{}, map[int]int{}
}

// get returns a copy of one of the counters.
func (k *squares) get(m map[int]int) map[int]int {
	k.mu.Lock()
	defer k.mu.Unlock()
	out := make(map[int]int, len(m))
	for u, n := range m {
		out[u] = n
	}
	return out
}

func total(m map[int]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// sumSquares is the expected sum for n.
func sumSquares(n int64) int64 { return (n - 1) * n * (2*n - 1) / 6 }
