package jobs

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// newUnitsJob creates in s a queued job of n small units.
func newUnitsJob(tb testing.TB, s *MemoryStore, n int) string {
	tb.Helper()
	units := make([]json.RawMessage, n)
	for i := range units {
		units[i] = json.RawMessage(fmt.Sprintf(`{"move":%d}`, i))
	}
	st := state{ID: newID(), Type: "toy.squares", Status: StatusQueued, Created: time.Now().UTC().Truncate(time.Millisecond), Request: json.RawMessage(`{"n":1}`), Total: n}
	if err := s.create(context.Background(), st, units, limits{}); err != nil {
		tb.Fatal(err)
	}
	return st.ID
}

// readWaits calls load on id every 0.1 ms until stop is closed and sends
// every call's time.
func readWaits(s *MemoryStore, id string, stop <-chan struct{}, waits chan<- []time.Duration) {
	var all []time.Duration
	for {
		select {
		case <-stop:
			waits <- all
			return
		default:
		}
		t0 := time.Now()
		if _, ok, _ := s.load(context.Background(), id); !ok {
			panic("the other job is gone")
		}
		all = append(all, time.Since(t0))
		time.Sleep(100 * time.Microsecond) // a poller, not a spinner
	}
}

// BenchmarkRecordHoldsLock: unit completions (a result of 300 bytes each:
// one synced record in the job's file) written by 1 or 4 goroutines, each
// on a job of its own, on a store with a directory, while another
// goroutine reads another job every 0.1 ms (a status read, an event
// stream's poll): ns/op is the wall time of a completion (all writers
// together), get-wait-us the mean of those reads, get-wait-p99-us and
// get-wait-max-ms their 99th percentile and longest (the store's lock held
// meanwhile).
func BenchmarkRecordHoldsLock(b *testing.B) {
	result := json.RawMessage(fmt.Sprintf(`{"pad":"%s"}`, strings.Repeat("x", 290)))
	for _, writers := range []int{1, 4} {
		b.Run(fmt.Sprintf("writers=%d", writers), func(b *testing.B) {
			s, err := NewMemoryStore(b.TempDir())
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			ctx := context.Background()
			other := newUnitsJob(b, s, 1)
			// Each writer's job has a unit for each of its completions (a
			// unit's result is written once).
			ops := func(w int) int {
				n := b.N / writers
				if w < b.N%writers {
					n++
				}
				return n
			}
			jobs := make([]string, writers)
			for w := range jobs {
				jobs[w] = newUnitsJob(b, s, max(ops(w), 1))
			}
			stop, got := make(chan struct{}), make(chan []time.Duration)
			go readWaits(s, other, stop, got)
			b.ResetTimer()
			var wg sync.WaitGroup
			for w, id := range jobs {
				wg.Go(func() {
					for u := range ops(w) {
						if _, _, err := s.complete(ctx, &delivery{JobID: id, Unit: u}, result, 1000); err != nil {
							b.Error(err)
							return
						}
					}
				})
			}
			wg.Wait()
			b.StopTimer()
			close(stop)
			waits := <-got
			if len(waits) == 0 {
				return
			}
			slices.Sort(waits)
			var sum time.Duration
			for _, w := range waits {
				sum += w
			}
			b.ReportMetric(float64(sum)/1e3/float64(len(waits)), "get-wait-us")
			b.ReportMetric(float64(waits[len(waits)*99/100])/1e3, "get-wait-p99-us")
			b.ReportMetric(float64(waits[len(waits)-1])/1e6, "get-wait-max-ms")
		})
	}
}
