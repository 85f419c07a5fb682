package api

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/gamesolver/gamesolver/service"
	"github.com/gamesolver/gamesolver/service/cache"
	"github.com/gamesolver/gamesolver/service/jobs"
	"github.com/gamesolver/gamesolver/service/redistest"
)

// newJobServer serves the real router with an in-process job manager and
// worker.
func newJobServer(t *testing.T) *httptest.Server {
	t.Helper()
	return newDrainingJobServer(t, nil)
}

// newDrainingJobServer is newJobServer whose event streams end when
// draining is closed.
func newDrainingJobServer(t *testing.T, draining <-chan struct{}) *httptest.Server {
	t.Helper()
	return newLoggingJobServer(t, draining, zap.NewNop())
}

// newLoggingJobServer is newDrainingJobServer logging to log; tune, if
// given, changes the job options.
func newLoggingJobServer(t *testing.T, draining <-chan struct{}, log *zap.Logger, tune ...func(*jobs.Options)) *httptest.Server {
	t.Helper()
	srv, _ := newJobServerOf(t, draining, log, tune...)
	return srv
}

// newJobServerOf is newLoggingJobServer, with its searcher, whose gate of
// big answers has one place.
func newJobServerOf(t *testing.T, draining <-chan struct{}, log *zap.Logger, tune ...func(*jobs.Options)) (*httptest.Server, *service.Searcher) {
	t.Helper()
	gin.SetMode(gin.TestMode)
	reg := prometheus.NewRegistry()
	s := newSearcher(reg, 30*time.Second)
	s.Assembly = service.NewAssembly(1, s.Metrics)
	store, err := jobs.NewMemoryStore("")
	if err != nil {
		t.Fatal(err)
	}
	opts := jobs.Options{Logger: log, Heartbeat: 50 * time.Millisecond, ReclaimAfter: time.Second, Poll: 50 * time.Millisecond, WatchEvery: 20 * time.Millisecond}
	for _, f := range tune {
		f(&opts)
	}
	jm, err := jobs.NewManager(store, []jobs.Kind{service.TilingsJob{Tilings: service.NewTilings(s), MaxDuration: time.Minute},
		service.PolyominoAnalyzeJob{Search: s, MaxDuration: time.Minute, Workers: 1}}, opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = jm.RunWorker(ctx, "test", 1) }()
	srv := httptest.NewServer(conforming(New(Config{MaxBodyBytes: 64 << 10}, Deps{
		Log: log, Registry: reg,
		Readiness: service.NewReadiness(cache.NewMemory(1<<20, 0)), Catalogue: &service.Catalogue{},
		Tilings: service.NewTilings(s), Jobs: jm, Draining: draining, Assembly: s.Assembly,
	})))
	t.Cleanup(func() { srv.Close(); cancel(); <-done })
	return srv, s
}

func postJSON(t *testing.T, url, body string) *http.Response {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func TestJobLifecycleOverHTTP(t *testing.T) {
	srv := newJobServer(t)
	resp := postJSON(t, srv.URL+"/v1/jobs", `{"type":"polyomino.tilings","request":{"width":10,"height":6,"limit":1}}`)
	var created JobCreated
	_ = json.NewDecoder(resp.Body).Decode(&created)
	resp.Body.Close()
	if resp.StatusCode != 202 || resp.Header.Get("Location") != created.Href || created.Href != "/v1/jobs/"+created.ID || len(created.ID) < 22 {
		t.Fatalf("create: %d %v %+v", resp.StatusCode, resp.Header, created)
	}

	// The event stream ends with a "done" event carrying the result.
	ev, err := http.Get(srv.URL + created.Href + "/events")
	if err != nil {
		t.Fatal(err)
	}
	defer ev.Body.Close()
	if ct := ev.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		t.Fatalf("events Content-Type %q", ct)
	}
	var last Job
	lastEvent := ""
	sc := bufio.NewScanner(ev.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event:"):
			lastEvent = strings.TrimPrefix(line, "event:")
		case strings.HasPrefix(line, "data:"):
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data:")), &last); err != nil {
				t.Fatalf("event data %q: %v", line, err)
			}
		}
	}
	// A count without a budget is 16 units, each a part of the search.
	if lastEvent != "done" || last.Status != "done" || last.Progress.Done != 16 || last.Progress.Total != 16 || last.Progress.Nodes == 0 {
		t.Fatalf("last event %q: %+v", lastEvent, last)
	}
	// The result has the shape of the synchronous answer.
	get, _ := http.Get(srv.URL + created.Href)
	var j struct {
		Status   string          `json:"status"`
		Created  time.Time       `json:"created"`
		Finished time.Time       `json:"finished"`
		Result   TilingsResponse `json:"result"`
	}
	_ = json.NewDecoder(get.Body).Decode(&j)
	get.Body.Close()
	if j.Status != "done" || j.Result.Count != 2339 || j.Result.CountAll != 9356 || len(j.Result.Solutions) != 1 {
		t.Errorf("job result %+v", j)
	}
	// Its state is not to be cached; its times are to the millisecond
	// (as the stores keep them, so they do not change on a restart).
	if cc := get.Header.Get("Cache-Control"); cc != "no-store" {
		t.Errorf("GET job Cache-Control = %q, want no-store", cc)
	}
	for _, tm := range []time.Time{j.Created, j.Finished} {
		if tm.IsZero() || tm.Nanosecond()%int(time.Millisecond) != 0 || tm.Location() != time.UTC {
			t.Errorf("job time %v: want UTC milliseconds", tm)
		}
	}
	// Its search counts in the solver's nodes (no request searched yet).
	if m, err := http.Get(srv.URL + "/metrics"); err == nil {
		b, _ := io.ReadAll(m.Body)
		m.Body.Close()
		if !strings.Contains(string(b), `gamesolver_solver_nodes_total{game="tiling"} 1.1`) {
			t.Errorf("the job's nodes are not in the metrics")
		}
	}
	// The job's count is the requests' (a 1 ms search would not complete
	// it), and a second job's.
	sync := postJSON(t, srv.URL+"/v1/polyomino/tilings", `{"width":10,"height":6,"limit":1,"budget_ms":1}`)
	var syncAnswer TilingsResponse
	_ = json.NewDecoder(sync.Body).Decode(&syncAnswer)
	sync.Body.Close()
	if sync.StatusCode != 200 || syncAnswer.Source != "cache" || !syncAnswer.Complete || syncAnswer.Count != 2339 || len(syncAnswer.Solutions) != 1 {
		t.Errorf("request after the job: %d %+v", sync.StatusCode, syncAnswer)
	}
	again := waitJob(t, srv, postJSON(t, srv.URL+"/v1/jobs", `{"type":"polyomino.tilings","request":{"width":10,"height":6,"limit":1}}`))
	var second TilingsResponse
	if err := json.Unmarshal(again.Result, &second); err != nil || again.Status != "done" || second.Source != "cache" || second.Count != 2339 {
		t.Errorf("second job: %s %s (%v)", again.Status, again.Result, err)
	}
	// A finished job cannot be canceled.
	req, _ := http.NewRequest("DELETE", srv.URL+created.Href, nil)
	del, _ := http.DefaultClient.Do(req)
	del.Body.Close()
	if del.StatusCode != 409 {
		t.Errorf("cancel of a done job: %d, want 409", del.StatusCode)
	}
}

func TestJobCancelOverHTTP(t *testing.T) {
	srv := newJobServer(t)
	// A count far beyond the test's patience: canceled while it runs.
	resp := postJSON(t, srv.URL+"/v1/jobs", `{"type":"polyomino.tilings","request":{"width":15,"height":15,"pieces":"hexominoes","allow_leftover":true}}`)
	var created JobCreated
	_ = json.NewDecoder(resp.Body).Decode(&created)
	resp.Body.Close()
	deadline := time.Now().Add(5 * time.Second)
	for {
		get, _ := http.Get(srv.URL + created.Href)
		var j Job
		_ = json.NewDecoder(get.Body).Decode(&j)
		get.Body.Close()
		if j.Status == "running" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("job never ran: %+v", j)
		}
		time.Sleep(20 * time.Millisecond)
	}
	req, _ := http.NewRequest("DELETE", srv.URL+created.Href, nil)
	del, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var j Job
	_ = json.NewDecoder(del.Body).Decode(&j)
	del.Body.Close()
	if del.StatusCode != 200 || j.Status != "canceled" {
		t.Errorf("cancel: %d %+v", del.StatusCode, j)
	}
}

// TestJobCapsOverHTTP: a client at its cap of unfinished jobs gets 429
// /problems/rate-limited with Retry-After; the server at its cap 503
// /problems/busy.
func TestJobCapsOverHTTP(t *testing.T) {
	srv := newLoggingJobServer(t, nil, zap.NewNop(), func(o *jobs.Options) { o.MaxPerClient, o.MaxActive = 1, 2 })
	// Counts far beyond the test's patience: still running at the end.
	long := `{"type":"polyomino.tilings","request":{"width":15,"height":15,"pieces":"hexominoes","allow_leftover":true}}`
	post := func(client string) *http.Response {
		req, _ := http.NewRequest("POST", srv.URL+"/v1/jobs", strings.NewReader(long))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Forwarded-For", client) // the test's peer is a loopback proxy
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	for _, c := range []struct {
		client string
		status int
	}{{"192.0.2.1", 202}, {"192.0.2.1", 429}, {"192.0.2.2", 202}, {"192.0.2.3", 503}} {
		resp := post(c.client)
		if resp.StatusCode != c.status || c.status != 202 && resp.Header.Get("Retry-After") == "" {
			t.Errorf("client %s: %d (Retry-After %q), want %d", c.client, resp.StatusCode, resp.Header.Get("Retry-After"), c.status)
		}
	}
}

func TestJobErrorsOverHTTP(t *testing.T) {
	srv := newJobServer(t)
	tests := []struct {
		name, method, path, body string
		status                   int
		field                    string
	}{
		{"unknown type", "POST", "/v1/jobs", `{"type":"chess.mate","request":{}}`, 400, "type"},
		{"missing type", "POST", "/v1/jobs", `{"request":{}}`, 400, "type"},
		{"missing request", "POST", "/v1/jobs", `{"type":"polyomino.analyze"}`, 400, "request"},
		{"null request", "POST", "/v1/jobs", `{"type":"polyomino.analyze","request":null}`, 400, "request"},
		{"bad request", "POST", "/v1/jobs", `{"type":"polyomino.tilings","request":{"width":10,"height":7}}`, 400, ""},
		{"unknown field in request", "POST", "/v1/jobs", `{"type":"polyomino.tilings","request":{"colour":1}}`, 400, "request.colour"},
		{"wrong type in request", "POST", "/v1/jobs", `{"type":"polyomino.tilings","request":{"width":"x"}}`, 400, "request.width"},
		{"null in a list of request", "POST", "/v1/jobs", `{"type":"polyomino.analyze","request":{"moves":["L:a1,a2,a3,a4,b4",null]}}`, 400, "request.moves"},
		{"key twice in request", "POST", "/v1/jobs", `{"type":"polyomino.analyze","request":{"game":"tetrominoes","game":"capture"}}`, 400, "request.game"},
		{"field of request in another case", "POST", "/v1/jobs", `{"type":"polyomino.tilings","request":{"Width":6}}`, 400, "request.Width"},
		{"bad value in request", "POST", "/v1/jobs", `{"type":"polyomino.tilings","request":{"width":99}}`, 400, "request.width"},
		// polyomino.analyze takes the synchronous body: pool as a list in
		// the capture variant, and not the service's own pool_pieces.
		{"service field", "POST", "/v1/jobs", `{"type":"polyomino.analyze","request":{"game":"capture","pool_pieces":["I"]}}`, 400, "request.pool_pieces"},
		{"pool of another type", "POST", "/v1/jobs", `{"type":"polyomino.analyze","request":{"pool":"yes"}}`, 400, "request.pool"},
		{"analyze fault", "POST", "/v1/jobs", `{"type":"polyomino.analyze","request":{"width":99}}`, 400, "request.width"},
		{"analyze budget", "POST", "/v1/jobs", `{"type":"polyomino.analyze","request":{"game":"tetrominoes","budget_ms":-5}}`, 400, "request.budget_ms"},
		{"capture budget", "POST", "/v1/jobs", `{"type":"polyomino.analyze","request":{"game":"capture","budget_ms":-5}}`, 400, "request.budget_ms"},
		{"board without rows", "POST", "/v1/jobs", `{"type":"polyomino.analyze","request":{"game":"tetrominoes","board":[]}}`, 400, "request.board"},
		{"capture board without rows", "POST", "/v1/jobs", `{"type":"polyomino.analyze","request":{"game":"capture","board":[]}}`, 400, "request.board"},
		{"tilings budget", "POST", "/v1/jobs", `{"type":"polyomino.tilings","request":{"width":10,"height":6,"budget_ms":-7}}`, 400, "request.budget_ms"},
		{"unknown id", "GET", "/v1/jobs/AAAAAAAAAAAAAAAAAAAAAA", ``, 404, ""},
		{"malformed id", "GET", "/v1/jobs/..%2f..", ``, 404, ""},
		{"unknown id events", "GET", "/v1/jobs/AAAAAAAAAAAAAAAAAAAAAA/events", ``, 404, ""},
		{"cancel unknown", "DELETE", "/v1/jobs/AAAAAAAAAAAAAAAAAAAAAA", ``, 404, ""},
	}
	decoding := map[string]bool{"unknown field in request": true, "wrong type in request": true, "field of request in another case": true, "service field": true, "pool of another type": true, "null in a list of request": true, "key twice in request": true}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest(tt.method, srv.URL+tt.path, strings.NewReader(tt.body))
			if tt.body != "" {
				req.Header.Set("Content-Type", "application/json")
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var p Problem
			_ = json.NewDecoder(resp.Body).Decode(&p)
			if resp.StatusCode != tt.status || resp.Header.Get("Content-Type") != "application/problem+json" {
				t.Fatalf("%d %s %+v", resp.StatusCode, resp.Header.Get("Content-Type"), p)
			}
			if tt.field != "" && (len(p.Errors) == 0 || p.Errors[0].Field != tt.field) {
				t.Errorf("errors %+v, want field %q", p.Errors, tt.field)
			}
			// a decoding fault in the request names its field in the
			// message too, whether the body's decoder or the request's
			// found it (validation messages name the field their own way)
			if decoding[tt.name] && !strings.HasPrefix(p.Detail, tt.field+": ") {
				t.Errorf("detail %q does not start with %q", p.Detail, tt.field+": ")
			}
		})
	}
}

// A shutdown ends open event streams at once, with a retry hint, instead of
// waiting for their jobs (which used to hold SIGTERM for the whole grace).
func TestJobEventsEndOnDrain(t *testing.T) {
	draining := make(chan struct{})
	srv := newDrainingJobServer(t, draining)
	resp := postJSON(t, srv.URL+"/v1/jobs", `{"type":"polyomino.tilings","request":{"width":16,"height":16,"allow_leftover":true,"budget_ms":60000}}`)
	var created JobCreated
	_ = json.NewDecoder(resp.Body).Decode(&created)
	resp.Body.Close()
	ev, err := http.Get(srv.URL + created.Href + "/events")
	if err != nil {
		t.Fatal(err)
	}
	defer ev.Body.Close()
	close(draining)
	ended := make(chan []string, 1)
	go func() {
		var lines []string
		sc := bufio.NewScanner(ev.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			lines = append(lines, sc.Text())
		}
		ended <- lines
	}()
	select {
	case lines := <-ended:
		if len(lines) == 0 || !slices.Contains(lines, "retry: 2000") {
			t.Errorf("stream ended without a retry hint: %q", lines)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the event stream did not end when the server started draining")
	}
	// The job itself goes on.
	req, _ := http.NewRequest("DELETE", srv.URL+created.Href, nil)
	if del, err := http.DefaultClient.Do(req); err == nil {
		if del.StatusCode != http.StatusOK {
			t.Errorf("cancel after the drain: %d, want the job still running", del.StatusCode)
		}
		del.Body.Close()
	}
}

// submitSmallTilings submits a tilings job of one tiling to srv, with the
// request id rid, and returns what the server answered.
func submitSmallTilings(t *testing.T, srv *httptest.Server, rid string) JobCreated {
	t.Helper()
	req, _ := http.NewRequest("POST", srv.URL+"/v1/jobs", strings.NewReader(`{"type":"polyomino.tilings","request":{"width":10,"height":6,"limit":1}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Request-ID", rid)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var created JobCreated
	_ = json.NewDecoder(resp.Body).Decode(&created)
	resp.Body.Close()
	if created.ID == "" {
		t.Fatalf("no job created: %d", resp.StatusCode)
	}
	return created
}

// The request that creates a job logs the job's id with its request id:
// the id's first 8 characters, never all of it (the id is the job's only
// credential: a security review found ids logged whole), in the job's
// lines and the access log's paths alike.
func TestJobCreatedLogged(t *testing.T) {
	core, logs := observer.New(zap.InfoLevel)
	srv := newLoggingJobServer(t, nil, zap.New(core))
	created := submitSmallTilings(t, srv, "req-42")
	// One line, the manager's (it logs the jobs analyze starts in the
	// background too, which no handler of /v1/jobs sees), with the
	// request id and the job id, so that either finds the other.
	entries := logs.FilterMessage("job submitted").All()
	if len(entries) != 1 {
		t.Fatalf("%d job submitted lines", len(entries))
	}
	f := entries[0].ContextMap()
	if f["request_id"] != "req-42" || f["job"] != created.ID[:8]+"…" || f["type"] != "polyomino.tilings" {
		t.Errorf("job submitted line %v, want request id req-42 and job %s…", f, created.ID[:8])
	}
	for _, path := range []string{created.Href, created.Href + "/events"} {
		if r, err := http.Get(srv.URL + path); err == nil {
			_, _ = io.Copy(io.Discard, r.Body)
			r.Body.Close()
		}
	}
	if n := len(logs.FilterField(zap.String("path", "/v1/jobs/"+created.ID[:8]+"…/events")).All()); n != 1 {
		t.Errorf("%d access lines of the job's events", n)
	}
	for _, e := range logs.All() {
		if line, _ := json.Marshal(e.ContextMap()); bytes.Contains(line, []byte(created.ID)) || strings.Contains(e.Message, created.ID) {
			t.Errorf("a log line holds the whole job id: %s %s", e.Message, line)
		}
	}
}

// A polyomino.analyze job takes the synchronous endpoint's body, the
// capture variant's pool list included (it was refused: the service's own
// form names it pool_pieces).
func TestAnalyzeJobTakesSynchronousBody(t *testing.T) {
	srv := newJobServer(t)
	resp := postJSON(t, srv.URL+"/v1/jobs", `{"type":"polyomino.analyze","request":{"game":"capture","width":5,"height":4,"pieces":"IOTSL","pool":["I","O","T"]}}`)
	var created JobCreated
	_ = json.NewDecoder(resp.Body).Decode(&created)
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted || created.ID == "" {
		t.Fatalf("create: %d %+v", resp.StatusCode, created)
	}
	req, _ := http.NewRequest("DELETE", srv.URL+created.Href, nil)
	if del, err := http.DefaultClient.Do(req); err == nil {
		del.Body.Close()
	}
}

// sseEvent is one event of a stream.
type sseEvent struct{ id, event, data string }

// streamEvents reads the events of an event stream (those with data)
// until it ends.
func streamEvents(body io.Reader) <-chan sseEvent {
	out := make(chan sseEvent, 16)
	go func() {
		defer close(out)
		sc := bufio.NewScanner(body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		var ev sseEvent
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if ev.data != "" {
					out <- ev
				}
				ev = sseEvent{}
			case strings.HasPrefix(line, "id:"):
				ev.id = strings.TrimSpace(strings.TrimPrefix(line, "id:"))
			case strings.HasPrefix(line, "event:"):
				ev.event = strings.TrimSpace(strings.TrimPrefix(line, "event:"))
			case strings.HasPrefix(line, "data:"):
				ev.data += strings.TrimPrefix(line, "data:")
			}
		}
	}()
	return out
}

// collectEvents takes the events of evs until the stream ends, or until
// wait passes without one when wait > 0.
func collectEvents(evs <-chan sseEvent, wait time.Duration) []sseEvent {
	var got []sseEvent
	for {
		var timeout <-chan time.Time
		if wait > 0 {
			timeout = time.After(wait)
		}
		select {
		case ev, ok := <-evs:
			if !ok {
				return got
			}
			got = append(got, ev)
		case <-timeout:
			return got
		}
	}
}

// readEvents is collectEvents of a whole stream.
func readEvents(body io.Reader) []sseEvent { return collectEvents(streamEvents(body), 0) }

// getEvents opens a job's event stream, sending lastID as Last-Event-ID
// when not empty.
func getEvents(t *testing.T, url, lastID string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// Every event carries an id; a client reconnecting with the last id it got
// is not sent that state again, and after the final event it is told to
// stop (204).
func TestJobEventsResume(t *testing.T) {
	srv := newJobServer(t)
	create := func(body string) JobCreated {
		resp := postJSON(t, srv.URL+"/v1/jobs", body)
		var created JobCreated
		_ = json.NewDecoder(resp.Body).Decode(&created)
		resp.Body.Close()
		if resp.StatusCode != http.StatusAccepted {
			t.Fatalf("create: %d", resp.StatusCode)
		}
		return created
	}
	// A job that finishes: the stream ends with its final event.
	small := create(`{"type":"polyomino.tilings","request":{"width":10,"height":6,"limit":1}}`)
	resp := getEvents(t, srv.URL+small.Href+"/events", "")
	evs := readEvents(resp.Body)
	resp.Body.Close()
	if len(evs) == 0 || evs[len(evs)-1].event != "done" {
		t.Fatalf("events %+v, want a final done", evs)
	}
	for _, ev := range evs {
		if ev.id == "" {
			t.Fatalf("event %q without an id", ev.event)
		}
	}
	final := evs[len(evs)-1].id
	resp = getEvents(t, srv.URL+small.Href+"/events", final)
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("reconnect after the final event: %d, want 204", resp.StatusCode)
	}
	// An older id: the final event again.
	resp = getEvents(t, srv.URL+small.Href+"/events", evs[0].id+"x")
	again := readEvents(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || len(again) != 1 || again[0].id != final || again[0].event != "done" {
		t.Fatalf("reconnect with another id: %d %+v, want the final event", resp.StatusCode, again)
	}

	// A job queued behind a long one (one worker) keeps its state: a
	// client reconnecting with its id gets nothing until it changes.
	long := create(`{"type":"polyomino.tilings","request":{"width":16,"height":16,"allow_leftover":true,"budget_ms":60000}}`)
	defer func() {
		req, _ := http.NewRequest("DELETE", srv.URL+long.Href, nil)
		if r, err := http.DefaultClient.Do(req); err == nil {
			r.Body.Close()
		}
	}()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		var j Job
		if r, err := http.Get(srv.URL + long.Href); err == nil {
			_ = json.NewDecoder(r.Body).Decode(&j)
			r.Body.Close()
		}
		if j.Status == "running" {
			break // the worker's only slot is taken
		}
		if time.Now().After(deadline) {
			t.Fatalf("the long job is %q, not running", j.Status)
		}
	}
	queued := create(`{"type":"polyomino.tilings","request":{"width":16,"height":16,"allow_leftover":true,"budget_ms":60000}}`)
	resp = getEvents(t, srv.URL+queued.Href+"/events", "")
	first := collectEvents(streamEvents(resp.Body), 300*time.Millisecond)
	resp.Body.Close()
	if len(first) == 0 || first[0].event != "progress" || !strings.HasPrefix(first[0].id, "queued.") {
		t.Fatalf("queued job's events %+v", first)
	}
	resp = getEvents(t, srv.URL+queued.Href+"/events", first[0].id)
	defer resp.Body.Close()
	stream := streamEvents(resp.Body)
	if evs := collectEvents(stream, 300*time.Millisecond); len(evs) != 0 {
		t.Fatalf("reconnected with the current state's id, got %+v", evs)
	}
	req, _ := http.NewRequest("DELETE", srv.URL+queued.Href, nil)
	if r, err := http.DefaultClient.Do(req); err == nil {
		r.Body.Close()
	}
	if evs := collectEvents(stream, 10*time.Second); len(evs) != 1 || evs[0].event != "canceled" {
		t.Fatalf("after the cancel: %+v, want one canceled event", evs)
	}
}

// waitJob waits for the job resp created (a 202) to end, and returns it
// with its result.
func waitJob(t *testing.T, srv *httptest.Server, resp *http.Response) (j struct {
	Status string          `json:"status"`
	Result json.RawMessage `json:"result"`
}) {
	t.Helper()
	var created JobCreated
	_ = json.NewDecoder(resp.Body).Decode(&created)
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("create: %d %+v", resp.StatusCode, created)
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if r, err := http.Get(srv.URL + created.Href); err == nil {
			_ = json.NewDecoder(r.Body).Decode(&j)
			r.Body.Close()
		}
		switch j.Status {
		case "done", "failed", "canceled":
			return j
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %s is still %q", created.ID, j.Status)
		}
	}
}

// TestStreamCount: event streams are capped per client (429) and in all
// (503), and a closed stream gives its place back (5,000 streams held
// 15,000 goroutines and polled the store 10,000 times a second).
func TestStreamCount(t *testing.T) {
	var s streamCount
	var releases []func()
	for range maxClientStreams {
		r, err := s.open("a")
		if err != nil {
			t.Fatal(err)
		}
		releases = append(releases, r)
	}
	if _, err := s.open("a"); service.KindOf(err) != service.KindRateLimited {
		t.Fatalf("stream %d of a client: %v, want rate limited", maxClientStreams+1, err)
	}
	releases[0]()
	if r, err := s.open("a"); err != nil {
		t.Fatalf("after a stream closed: %v", err)
	} else {
		releases[0] = r
	}
	for i := maxClientStreams; i < maxStreams; i++ {
		r, err := s.open(fmt.Sprintf("client %d", i))
		if err != nil {
			t.Fatalf("stream %d: %v", i, err)
		}
		releases = append(releases, r)
	}
	if _, err := s.open("b"); service.KindOf(err) != service.KindBusy {
		t.Fatalf("stream %d: %v, want busy", maxStreams+1, err)
	}
	for _, r := range releases {
		r()
	}
	if s.held.total != 0 || len(s.held.byClient) != 0 {
		t.Errorf("after every stream closed: %d open, %d clients", s.held.total, len(s.held.byClient))
	}
}

// TestOldTilingsJobResult: a tilings job's result stored by the version
// before placements were written as moves is still served (it answered
// 500 for the jobs' seven days).
func TestOldTilingsJobResult(t *testing.T) {
	old := json.RawMessage(`{"Result":{"Count":1,"CountAll":1,"Solutions":[["LLLL","L..."]],"Placements":[[{"Piece":"L","Cells":[{"X":0,"Y":0},{"X":1,"Y":0},{"X":2,"Y":0},{"X":3,"Y":0},{"X":0,"Y":1}]}]],"Complete":true,"Symmetries":1,"Subtrees":1,"Nodes":5,"Elapsed":1},"Pieces":"L","Rows":["....","...."],"Source":"search","Budget":0}`)
	j, err := toJob(jobs.Job{ID: "x", Type: "polyomino.tilings", Status: jobs.StatusDone, Result: old}, jobResultConverter("polyomino.tilings"))
	b, _ := json.Marshal(j.Result)
	if err != nil || !strings.Contains(string(b), `"placements":[["L:a1,b1,c1,d1,a2"]]`) {
		t.Errorf("a finished job of the earlier version: %s %v", b, err)
	}
}

// TestOldAnalyzeJobResult: a polyomino.analyze job's result stored by the
// version before answers carried the game's settings is served with its
// config, from the job's request (a review found it empty).
func TestOldAnalyzeJobResult(t *testing.T) {
	for request, want := range map[string]string{
		`{"game":"pentominoes","width":6,"height":6,"hands":{},"seed":3}`: `"hands":{"first":["I","P","T","V","W","Z"],"second":["F","L","N","U","X","Y"]}`,
		`{"game":"capture","width":5,"height":5,"blocked":["C3"]}`:        `"game":"capture","width":5,"height":5,"blocked":["c3"]`,
	} {
		old := json.RawMessage(`{"config":{"Preset":"pentominoes"},"board":["......"],"to_move":"first","outcome":"loss","proven":true,"value":-1,"best_moves":[],"best_complete":true}`)
		j, err := toJob(jobs.Job{ID: "x", Type: "polyomino.analyze", Status: jobs.StatusDone, Request: json.RawMessage(request), Result: old}, jobResultConverter("polyomino.analyze"))
		b, _ := json.Marshal(j.Result)
		if err != nil || !strings.Contains(string(b), want) {
			t.Errorf("%s: %s %v; want %s", request, b, err, want)
		}
	}
}

// TestLongFieldPathsClipped: a refused job request whose field's path is
// long (64 objects deep under 900-byte keys) is named clipped: the whole
// path came back in the detail, 114 KB for a 59 KB body (a review).
func TestLongFieldPathsClipped(t *testing.T) {
	h := newJobServer(t).Config.Handler
	key := `{"` + strings.Repeat("k", 900) + `":`
	body := `{"type":"polyomino.tilings","request":` + strings.Repeat(key, 65) + "1" + strings.Repeat("}", 65) + "}"
	w := do(h, "POST", "/v1/jobs", "application/json", body)
	if w.Code != http.StatusBadRequest || w.Body.Len() > 8<<10 || !strings.Contains(w.Body.String(), "nested deeper") {
		t.Errorf("%d, %d bytes: %.200s", w.Code, w.Body.Len(), w.Body.String())
	}
}

// TestJobEventsGone: a job that vanishes from the store while its events
// stream (Redis restarted without its data) ends the stream with a `gone`
// event holding a 404 problem, where the stream ended without a word (an
// audit).
func TestJobEventsGone(t *testing.T) {
	gin.SetMode(gin.TestMode)
	rsrv := redistest.Start(t)
	rdb := redis.NewClient(&redis.Options{Addr: rsrv.Addr()})
	t.Cleanup(func() { _ = rdb.Close() })
	reg := prometheus.NewRegistry()
	s := newSearcher(reg, 30*time.Second)
	// No worker: the job stays queued.
	jm, err := jobs.NewManager(jobs.NewRedisStore(rdb), []jobs.Kind{service.TilingsJob{Tilings: service.NewTilings(s), MaxDuration: time.Minute}},
		jobs.Options{Logger: zap.NewNop(), WatchEvery: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(conforming(New(Config{MaxBodyBytes: 64 << 10}, Deps{
		Log: zap.NewNop(), Registry: reg, Readiness: service.NewReadiness(cache.NewMemory(1<<20, 0)),
		Catalogue: &service.Catalogue{}, Tilings: service.NewTilings(s), Jobs: jm,
	})))
	t.Cleanup(srv.Close)
	resp := postJSON(t, srv.URL+"/v1/jobs", `{"type":"polyomino.tilings","request":{"width":10,"height":6}}`)
	var created JobCreated
	_ = json.NewDecoder(resp.Body).Decode(&created)
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("create: %d", resp.StatusCode)
	}
	stream, err := http.Get(srv.URL + created.Href + "/events")
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Body.Close()
	evs := streamEvents(stream.Body)
	if first := <-evs; first.event != "progress" {
		t.Fatalf("first event %+v", first)
	}
	if err := rdb.FlushAll(context.Background()).Err(); err != nil {
		t.Fatal(err)
	}
	got := collectEvents(evs, 10*time.Second)
	if len(got) != 1 || got[0].event != "gone" {
		t.Fatalf("events after the flush: %+v, want one gone", got)
	}
	var p Problem
	if err := json.Unmarshal([]byte(got[0].data), &p); err != nil || p.Status != http.StatusNotFound || p.Type != "/problems/not-found" || !strings.Contains(p.Detail, "gone from the jobs store") {
		t.Errorf("gone's data %s (%v)", got[0].data, err)
	}
}
