// Command gsload drives a running gamesolver server with a mix of requests
// and reports throughput and latency percentiles. With --baseline it first
// measures a bare gin handler served from this process, so that the figures
// for the server can be read as a ratio measured in the same run.
//
//	gsload --url http://127.0.0.1:8080 --scenario teeko --duration 10s --concurrency 16 --baseline
//
// With --job-wait it measures instead how long a small job takes while a
// long job runs: it submits --long-job, waits --job-wait, submits
// --small-job and reports the time from that submission until the small
// job is done (the express slot's figure in BENCHMARKS.md), then cancels
// the long job.
//
//	gsload --url http://127.0.0.1:8080 --job-wait 15s
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/gamesolver/gamesolver/engine/polyomino"
	"github.com/gamesolver/gamesolver/engine/teeko"
)

// request is one prepared request.
type request struct {
	name, method, path string
	body               []byte
}

func main() {
	url := flag.String("url", "http://127.0.0.1:8080", "server base URL")
	scenario := flag.String("scenario", "teeko", "teeko (analyze random positions), pentominoes (analyze random positions 2-6 plies in, budgets 100 ms-60 s), healthz, or mix:NAME=WEIGHT,... of teeko, pentominoes, annotate, healthz, games")
	duration := flag.Duration("duration", 10*time.Second, "how long to drive each target")
	concurrency := flag.Int("concurrency", 16, "requests in flight")
	baseline := flag.Bool("baseline", false, "also measure a bare gin handler in this process, first")
	seed := flag.Uint64("seed", 1, "random seed for the positions")
	flood := flag.Int("flood", 0, "also measure the scenario while this many clients flood the server with expensive analyses (2 s budget each)")
	floodKind := flag.String("flood-kind", "search", "what the flood asks: search (a 9 x 8 pentominoes position of its own at each request, 2 s budget: solver-bound) or huge (the hexominoes opening with all_moves, the same for every client: a 1 MB answer of 14,589 moves each, assembly-bound)")
	jobWait := flag.Duration("job-wait", 0, "measure a small job's wait behind a long job instead: submit --long-job, wait this long, submit --small-job, time it until done")
	longJob := flag.String("long-job", `{"type":"polyomino.analyze","request":{"game":"pentominoes","board":["#.......","........","........","........","........","........","........","........"],"all_moves":true}}`,
		"--job-wait: the long job's POST /v1/jobs body (the default: 1150 units of minutes each)")
	smallJob := flag.String("small-job", `{"type":"polyomino.tilings","request":{"width":12,"height":5}}`, "--job-wait: the small job's POST /v1/jobs body")
	job := flag.String("job", "", "time one job instead: POST this body to /v1/jobs, poll it every 0.1 s until it ends, and print its time, units and (polyomino.analyze) nodes and moves with plies")
	ready := flag.Duration("ready-wait", 2*time.Minute, "wait up to this long for the server's /readyz to answer 200 before measuring (a fresh data directory builds the Teeko tables first; 0: do not wait)")
	flag.Parse()

	if *ready > 0 {
		if err := waitReady(*url, *ready); err != nil {
			fmt.Fprintln(os.Stderr, "gsload:", err)
			os.Exit(1)
		}
	}
	if *job != "" {
		if err := measureJob(*url, *job); err != nil {
			fmt.Fprintln(os.Stderr, "gsload:", err)
			os.Exit(1)
		}
		return
	}
	if *jobWait > 0 {
		if err := measureJobWait(*url, *longJob, *smallJob, *jobWait); err != nil {
			fmt.Fprintln(os.Stderr, "gsload:", err)
			os.Exit(1)
		}
		return
	}

	reqs, err := prepare(*scenario, *seed)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gsload:", err)
		os.Exit(2)
	}
	if *baseline {
		base, stop := bareGin()
		r := drive(base, []request{{name: "bare", method: "GET", path: "/bare"}}, *duration, *concurrency)
		stop()
		r.print("bare gin handler (baseline)")
		s := drive(*url, reqs, *duration, *concurrency)
		s.print("gamesolver " + *scenario)
		fmt.Printf("ratio: gamesolver throughput is %.2f of the bare handler's; p99 %.1fx\n",
			s.rate()/r.rate(), float64(s.pct(0.99))/float64(max(r.pct(0.99), 1)))
		return
	}
	if *flood > 0 {
		alone := drive(*url, reqs, *duration, *concurrency)
		alone.print("gamesolver " + *scenario + " alone")
		body, ok := floodBodies[*floodKind]
		if !ok {
			fmt.Fprintf(os.Stderr, "gsload: --flood-kind %q: expected search or huge\n", *floodKind)
			os.Exit(2)
		}
		stop, report := startFlood(*url, *flood, body)
		during := drive(*url, reqs, *duration, *concurrency)
		stop()
		during.print(fmt.Sprintf("gamesolver %s during a flood of %d expensive clients", *scenario, *flood))
		fmt.Printf("  worst latency of the requests sent in the flood's first second: %v\n", during.early)
		report()
		fmt.Printf("ratio: p50 %.2fx, p99 %.2fx of the figures without the flood\n",
			float64(during.pct(0.5))/float64(max(alone.pct(0.5), 1)), float64(during.pct(0.99))/float64(max(alone.pct(0.99), 1)))
		return
	}
	drive(*url, reqs, *duration, *concurrency).print("gamesolver " + *scenario)
}

// waitReady polls base's /readyz until it answers 200 or d has passed:
// a server still building its Teeko tables answers their routes 503, and
// a measure of those would be a measure of refusals.
func waitReady(base string, d time.Duration) error {
	deadline := time.Now().Add(d)
	client := &http.Client{Timeout: 5 * time.Second} // a server that never answers
	said := false
	for {
		status := "no answer"
		resp, err := client.Get(base + "/readyz")
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			status = resp.Status
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s/readyz not ready after %v (%s); --ready-wait 0 measures anyway", base, d, status)
		}
		if !said {
			fmt.Fprintf(os.Stderr, "gsload: waiting for %s/readyz (%s)\n", base, status)
			said = true
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// floodBodies are the flood's requests by kind, for client i's k-th.
var floodBodies = map[string]func(i, k int) string{
	"search": searchBody,
	"huge":   func(int, int) string { return `{"game":"hexominoes","all_moves":true,"budget_ms":1000}` },
}

// searchBody is a position no search proves in 2 s, another at each
// request (a position asked again is answered from the cache): the 9 x 8
// board with two cells blocked, the twelve pentominoes. (The hexomino
// opening, asked before, is answered by the heuristic player alone, with
// no search, since the search leaves positions beyond it.)
func searchBody(i, k int) string {
	const cells = 9 * 8
	a := (i*7 + k) % cells
	b := (a + 1 + (i*13+k*5)%(cells-1)) % cells
	name := func(c int) string { return fmt.Sprintf("%c%d", 'a'+c%9, 1+c/9) }
	return fmt.Sprintf(`{"game":"pentominoes","width":9,"height":8,"blocked":["%s","%s"],"budget_ms":2000}`, name(a), name(b))
}

// startFlood runs n clients sending expensive requests until stopped.
func startFlood(base string, n int, body func(i, k int) string) (stop func(), report func()) {
	ctx, cancel := context.WithCancel(context.Background())
	var mu sync.Mutex
	statuses := map[int]int{}
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			for k := 0; ctx.Err() == nil; k++ {
				req, _ := http.NewRequestWithContext(ctx, "POST", base+"/v1/polyomino/analyze", bytes.NewReader([]byte(body(i, k))))
				req.Header.Set("Content-Type", "application/json")
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					continue
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				mu.Lock()
				statuses[resp.StatusCode]++
				mu.Unlock()
				if resp.StatusCode == http.StatusServiceUnavailable || resp.StatusCode == http.StatusTooManyRequests {
					time.Sleep(100 * time.Millisecond)
				}
			}
		}(i)
	}
	return func() { cancel(); wg.Wait() }, func() {
		mu.Lock()
		defer mu.Unlock()
		fmt.Printf("  flood answers by status: %v (503: refused, the queue full or its wait over)\n", statuses)
		if statuses[http.StatusTooManyRequests] > 0 {
			fmt.Println(limitedNote)
		}
	}
}

// prepare builds the requests of a scenario; a mix repeats each kind by
// its weight.
func prepare(scenario string, seed uint64) ([]request, error) {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	kinds := map[string]int{}
	switch {
	case strings.HasPrefix(scenario, "mix:"):
		for _, part := range strings.Split(strings.TrimPrefix(scenario, "mix:"), ",") {
			var name string
			var w int
			if _, err := fmt.Sscanf(strings.Replace(part, "=", " ", 1), "%s %d", &name, &w); err != nil {
				return nil, fmt.Errorf("mix part %q: expected name=weight", part)
			}
			kinds[name] = w
		}
	default:
		kinds[scenario] = 1
	}
	var out []request
	for name, w := range kinds {
		for i := 0; i < 200*w; i++ {
			r, err := makeRequest(name, rng)
			if err != nil {
				return nil, err
			}
			out = append(out, r)
		}
	}
	rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out, nil
}

func makeRequest(name string, rng *rand.Rand) (request, error) {
	switch name {
	case "teeko":
		rules := teeko.AllRules()[rng.IntN(2)]
		moves := randomGame(rng, rules, rng.IntN(24))
		style := teeko.AllDropStyles()[rng.IntN(8)].String()
		return request{name: name, method: "POST", path: "/v1/teeko/analyze",
			body: []byte(fmt.Sprintf(`{"rules":%q,"drop_style":%q,"moves":[%s]}`, rules.String(), style, quoteAll(moves)))}, nil
	case "annotate":
		moves := randomGame(rng, teeko.Standard, 8+rng.IntN(16))
		return request{name: name, method: "POST", path: "/v1/teeko/annotate",
			body: []byte(fmt.Sprintf(`{"moves":[%s]}`, quoteAll(moves)))}, nil
	case "pentominoes":
		// A random Pentominoes position 2-6 plies in, analyzed with a
		// budget of 100 ms to 60 s (the server caps it): most searches
		// run out, many are refused when the slots are busy. (The load
		// under which a server's memory grew, BENCHMARKS "Memory under
		// load".)
		moves, err := randomPlacements(rng, 2+rng.IntN(5))
		if err != nil {
			return request{}, err
		}
		budget := []int{100, 300, 1000, 3000, 10000, 60000}[rng.IntN(6)]
		return request{name: name, method: "POST", path: "/v1/polyomino/analyze",
			body: []byte(fmt.Sprintf(`{"game":"pentominoes","moves":[%s],"budget_ms":%d}`, quoteAll(moves), budget))}, nil
	case "healthz":
		return request{name: name, method: "GET", path: "/healthz"}, nil
	case "games":
		return request{name: name, method: "GET", path: "/v1/games"}, nil
	}
	return request{}, fmt.Errorf("unknown request kind %q", name)
}

// randomGame plays up to n random legal moves from the empty board under
// the given rules, stopping when the game is over.
func randomGame(rng *rand.Rand, rules teeko.Rules, n int) []string {
	pos := teeko.Start(rules)
	var moves []string
	for len(moves) < n {
		if _, over := pos.Over(); over {
			break
		}
		legal := pos.LegalMoves()
		m := legal[rng.IntN(len(legal))]
		next, err := pos.Play(m)
		if err != nil {
			break
		}
		pos = next
		moves = append(moves, m.String())
	}
	return moves
}

// randomPlacements plays up to n random legal moves of Pentominoes from
// the empty board.
func randomPlacements(rng *rand.Rand, n int) ([]string, error) {
	cfg, err := polyomino.Preset("pentominoes")
	if err != nil {
		return nil, err
	}
	pos, err := polyomino.NewPosition(cfg, nil, nil, polyomino.DefaultToMove)
	if err != nil {
		return nil, err
	}
	var moves []string
	for len(moves) < n && !pos.Over() {
		legal := pos.LegalMoves()
		m := legal[rng.IntN(len(legal))]
		if pos, err = pos.Play(m); err != nil {
			return nil, err
		}
		moves = append(moves, m.String())
	}
	return moves, nil
}

func quoteAll(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ",")
}

// result collects latencies and statuses.
type result struct {
	elapsed   time.Duration
	latencies []time.Duration
	statuses  map[int]int
	errors    int
	// early is the worst latency of the requests sent in the run's first
	// second (with --flood, the flood's start: the first requests of a
	// configuration build its game).
	early time.Duration
}

func (r *result) rate() float64 { return float64(len(r.latencies)) / r.elapsed.Seconds() }

func (r *result) pct(p float64) time.Duration {
	if len(r.latencies) == 0 {
		return 0
	}
	return r.latencies[min(len(r.latencies)-1, int(p*float64(len(r.latencies))))]
}

func (r *result) print(title string) {
	codes := make([]int, 0, len(r.statuses))
	for c := range r.statuses {
		codes = append(codes, c)
	}
	sort.Ints(codes)
	var parts []string
	for _, c := range codes {
		parts = append(parts, fmt.Sprintf("%d x%d", c, r.statuses[c]))
	}
	fmt.Printf("%s: %d requests in %v = %.0f req/s; statuses %s; transport errors %d\n",
		title, len(r.latencies), r.elapsed.Round(time.Millisecond), r.rate(), strings.Join(parts, ", "), r.errors)
	fmt.Printf("  latency p50 %v  p90 %v  p99 %v  max %v\n", r.pct(0.5), r.pct(0.9), r.pct(0.99), r.pct(1))
	if r.statuses[http.StatusTooManyRequests] > 0 {
		fmt.Println(limitedNote)
	}
}

// limitedNote follows figures that include 429 answers: gsload is one
// address, which the server's per-client limits take for one client.
const limitedNote = "  (429 answers: the server limits one client, and gsload is one address: start it with --rate-limit off --max-client-requests 0 to measure the service, not its limits)"

// drive sends requests from concurrency goroutines for d (closed loop).
func drive(base string, reqs []request, d time.Duration, concurrency int) *result {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: concurrency, MaxConnsPerHost: concurrency}, Timeout: time.Minute}
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	var mu sync.Mutex
	res := &result{statuses: map[int]int{}}
	var wg sync.WaitGroup
	start := time.Now()
	for w := 0; w < concurrency; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			var lat []time.Duration
			statuses := map[int]int{}
			errs := 0
			var early time.Duration
			for i := w; ctx.Err() == nil; i += concurrency {
				rq := reqs[i%len(reqs)]
				req, _ := http.NewRequest(rq.method, base+rq.path, bytes.NewReader(rq.body))
				if rq.body != nil {
					req.Header.Set("Content-Type", "application/json")
				}
				t := time.Now()
				resp, err := client.Do(req)
				if err != nil {
					errs++
					continue
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				l := time.Since(t)
				lat = append(lat, l)
				if t.Sub(start) < time.Second {
					early = max(early, l)
				}
				statuses[resp.StatusCode]++
			}
			mu.Lock()
			res.latencies = append(res.latencies, lat...)
			for c, n := range statuses {
				res.statuses[c] += n
			}
			res.errors += errs
			res.early = max(res.early, early)
			mu.Unlock()
		}(w)
	}
	wg.Wait()
	res.elapsed = time.Since(start)
	slices.Sort(res.latencies)
	return res
}

// bareGin serves one trivial JSON handler on a loopback port.
func bareGin() (string, func()) {
	gin.SetMode(gin.ReleaseMode)
	r := gin.New()
	r.GET("/bare", func(c *gin.Context) { c.JSON(http.StatusOK, gin.H{"status": "ok"}) })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	srv := &http.Server{Handler: r}
	go func() { _ = srv.Serve(ln) }()
	return "http://" + ln.Addr().String(), func() { _ = srv.Close() }
}

// measureJobWait submits long, waits wait, submits small and prints how
// long small took to be done; then it cancels long.
func measureJobWait(base, long, small string, wait time.Duration) error {
	longID, err := submitJob(base, long)
	if err != nil {
		return fmt.Errorf("long job: %w", err)
	}
	defer func() {
		req, _ := http.NewRequest("DELETE", base+"/v1/jobs/"+longID, nil)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	time.Sleep(wait)
	start := time.Now()
	smallID, err := submitJob(base, small)
	if err != nil {
		return fmt.Errorf("small job: %w", err)
	}
	j, err := awaitJob(base, smallID)
	if err != nil {
		return err
	}
	if j.Status != "done" {
		return fmt.Errorf("small job %s", j.Status)
	}
	fmt.Printf("small job done %.2f s after its submission, %v after the long job's\n", time.Since(start).Seconds(), wait)
	var l jobView
	if err := getJSON(base+"/v1/jobs/"+longID, &l); err == nil {
		fmt.Printf("long job: %s, %d of %d units done\n", l.Status, l.Progress.Done, l.Progress.Total)
	}
	return nil
}

// measureJob submits body and prints how long the job took from its
// submission to its end, its units and, for an analysis, the nodes of its
// answer and how many of its moves have plies.
func measureJob(base, body string) error {
	start := time.Now()
	id, err := submitJob(base, body)
	if err != nil {
		return err
	}
	j, err := awaitJob(base, id)
	if err != nil {
		return err
	}
	fmt.Printf("job %s in %.2f s, %d of %d units\n", j.Status, time.Since(start).Seconds(), j.Progress.Done, j.Progress.Total)
	if r := j.Result; r != nil {
		with := 0
		for _, m := range r.Moves {
			if m.Plies != nil {
				with++
			}
		}
		plies := "none"
		if r.Plies != nil {
			plies = strconv.Itoa(*r.Plies)
		}
		fmt.Printf("  result %s, plies %s, %d nodes, %d of %d moves with plies\n", r.Result, plies, r.Stats.Nodes, with, len(r.Moves))
	}
	if j.Status != "done" {
		return fmt.Errorf("job %s", j.Status)
	}
	return nil
}

// jobEnd is what gsload reads of a job that ended: its view and, for an
// analysis, what it reports of the answer.
type jobEnd struct {
	jobView
	Result *struct {
		Result string `json:"result"`
		Plies  *int   `json:"plies"`
		Stats  struct {
			Nodes int64 `json:"nodes"`
		} `json:"stats"`
		Moves []struct {
			Plies *int `json:"plies"`
		} `json:"moves"`
	} `json:"result"`
}

// awaitJob reads job id every 0.1 s until it ends (done, failed or
// canceled), and returns its last state.
func awaitJob(base, id string) (jobEnd, error) {
	for {
		var j jobEnd
		if err := getJSON(base+"/v1/jobs/"+id, &j); err != nil {
			return j, err
		}
		switch j.Status {
		case "done", "failed", "canceled":
			return j, nil
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// jobView is what gsload reads of a job.
type jobView struct {
	Status   string `json:"status"`
	Progress struct {
		Done  int `json:"done"`
		Total int `json:"total"`
	} `json:"progress"`
}

func submitJob(base, body string) (string, error) {
	resp, err := http.Post(base+"/v1/jobs", "application/json", strings.NewReader(body))
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var j struct {
		ID string `json:"id"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&j); err != nil || resp.StatusCode != http.StatusAccepted {
		return "", fmt.Errorf("POST /v1/jobs: %s (%v)", resp.Status, err)
	}
	return j.ID, nil
}

func getJSON(url string, v any) error {
	resp, err := http.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return json.NewDecoder(resp.Body).Decode(v)
}
