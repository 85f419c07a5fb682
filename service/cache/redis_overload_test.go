package cache

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"os/exec"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gamesolver/gamesolver/service/redistest"
)

var (
	overload    = flag.Bool("overload", false, "run TestRedisOverloaded: minutes of CPU burners against a real redis-server")
	overloadFor = flag.Duration("overload-for", 20*time.Second, "the length of each of TestRedisOverloaded's runs")
)

// TestRedisOverloaded measures the breaker with Redis healthy while the
// CPU is overloaded (a goroutine spinning on every P, shells spinning
// beside), before confirmations (every timeout counted) and with them, in
// the same run; then how soon a frozen Redis opens it under the same load.
// Figures, not assertions (BENCHMARKS.md "The cache's breaker under CPU
// overload"): `-overload` runs it.
func TestRedisOverloaded(t *testing.T) {
	if !*overload {
		t.Skip("-overload runs it")
	}
	srv := redistest.Start(t)
	for _, shells := range []int{0, 3} {
		for _, unconfirmed := range []bool{true, false} {
			stop := burnCPU(t, shells)
			run := driveRedis(t, RedisOptions{URL: srv.URL(), unconfirmed: unconfirmed}, 4, 2*time.Millisecond, *overloadFor)
			stop()
			t.Logf("healthy Redis, %d spinning goroutines + %d shells, confirmed %v, %v: %s",
				runtime.GOMAXPROCS(0), shells, !unconfirmed, *overloadFor, run)
		}
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go holdConns(ln)
	stop := burnCPU(t, 3)
	defer stop()
	for _, unconfirmed := range []bool{true, false} {
		var opened atomic.Int64
		start := time.Now()
		r, err := NewRedis(RedisOptions{URL: "redis://" + ln.Addr().String(), unconfirmed: unconfirmed, OnStateChange: func(open bool, _ error) {
			if open {
				opened.CompareAndSwap(0, int64(time.Since(start)))
			}
		}})
		if err != nil {
			t.Fatal(err)
		}
		calls := 0
		for opened.Load() == 0 && time.Since(start) < 30*time.Second {
			_, _, _ = r.Get(context.Background(), "k")
			calls++
			time.Sleep(2 * time.Millisecond)
		}
		r.Close()
		t.Logf("frozen Redis, same load, confirmed %v: the breaker opened after %v (%d calls)",
			!unconfirmed, time.Duration(opened.Load()).Round(time.Millisecond), calls)
	}
}

// burnCPU keeps every P busy (GOMAXPROCS goroutines spinning) and runs
// shells processes spinning, until the returned stop is called.
func burnCPU(t *testing.T, shells int) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			x := 0
			for {
				select {
				case <-done:
					return
				default:
				}
				for i := range 100_000 {
					x += i
				}
			}
		}()
	}
	var cmds []*exec.Cmd
	for range shells {
		c := exec.Command("sh", "-c", "while :; do :; done")
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, c)
	}
	return func() {
		close(done)
		wg.Wait()
		for _, c := range cmds {
			_ = c.Process.Kill()
			_ = c.Wait()
		}
	}
}

// overloadRun is what callers saw of a Redis during a run.
type overloadRun struct {
	calls, failed, refused int
	opens                  int32
	failedTook             []time.Duration
	kinds                  map[string]int // of the failures
}

func (o overloadRun) String() string {
	sort.Slice(o.failedTook, func(i, j int) bool { return o.failedTook[i] < o.failedTook[j] })
	var q []time.Duration
	for _, p := range []float64{0.5, 0.99, 1} {
		if len(o.failedTook) > 0 {
			q = append(q, o.failedTook[int(p*float64(len(o.failedTook)-1))].Round(100*time.Microsecond))
		}
	}
	return fmt.Sprintf("%d calls, %d failed (%.2f%%, %v; p50 p99 max %v), breaker opened %d times, %d calls refused while open",
		o.calls, o.failed, 100*float64(o.failed)/float64(o.calls), o.kinds, q, o.opens, o.refused)
}

// driveRedis runs callers goroutines, each a Get then a pause, for d.
func driveRedis(t *testing.T, opts RedisOptions, callers int, pause, d time.Duration) overloadRun {
	var opens atomic.Int32
	opts.OnStateChange = func(open bool, _ error) {
		if open {
			opens.Add(1)
		}
	}
	r, err := NewRedis(opts)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var mu sync.Mutex
	run := overloadRun{kinds: map[string]int{}}
	end := time.Now().Add(d)
	var wg sync.WaitGroup
	for range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(end) {
				start := time.Now()
				_, _, err := r.Get(context.Background(), "k")
				took := time.Since(start)
				mu.Lock()
				run.calls++
				switch {
				case errors.Is(err, ErrUnavailable):
					run.refused++
				case err != nil:
					run.failed++
					run.failedTook = append(run.failedTook, took)
					run.kinds[failureKind(err)]++
				}
				mu.Unlock()
				time.Sleep(pause)
			}
		}()
	}
	wg.Wait()
	run.opens = opens.Load()
	return run
}

// failureKind names where a call failed.
func failureKind(err error) string {
	s := err.Error()
	for _, k := range []string{"read", "write", "dial", "pool", "context", "i/o timeout"} {
		if strings.Contains(s, k) {
			return k
		}
	}
	return s
}
