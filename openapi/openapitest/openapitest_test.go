package openapitest

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	v, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	jsonType := http.Header{"Content-Type": {"application/json; charset=utf-8"}}
	problemType := http.Header{"Content-Type": {"application/problem+json"}}
	streamType := http.Header{"Content-Type": {"text/event-stream"}}
	const problem = `{"type":"/problems/not-found","title":"Not Found","status":404,"detail":"no job","request_id":"x"}`
	const job = `{"id":"a","href":"/v1/jobs/a","type":"polyomino.tilings","status":"running","created":"2026-11-26T00:00:00Z","progress":{"done":0,"total":1,"nodes":0,"elapsed_ms":5,"estimate_ms":null}}`
	for _, c := range []struct {
		name, method, path string
		status             int
		header             http.Header
		body               string
		ok                 bool
	}{
		{"health", "GET", "/healthz", 200, jsonType, `{"status":"ok","uptime_seconds":1.5,"version":"v"}`, true},
		{"health: wrong type", "GET", "/healthz", 200, jsonType, `{"status":1,"uptime_seconds":1.5,"version":"v"}`, false},
		{"health: field missing", "GET", "/healthz", 200, jsonType, `{"status":"ok","version":"v"}`, false},
		{"health: field not in the document", "GET", "/healthz", 200, jsonType, `{"status":"ok","uptime_seconds":1.5,"version":"v","extra":1}`, false},
		{"health: status not listed", "GET", "/healthz", 418, jsonType, `{}`, false},
		{"job not found", "GET", "/v1/jobs/abc", 404, problemType, problem, true},
		{"problem: no status", "GET", "/v1/jobs/abc", 404, problemType, `{"type":"/problems/not-found","title":"Not Found"}`, false},
		{"stream", "GET", "/v1/jobs/abc/events", 200, streamType, ": hi\n\nevent: progress\ndata: " + job + "\n\n", true},
		{"stream: bad event", "GET", "/v1/jobs/abc/events", 200, streamType, "event: progress\ndata: " + job + "\n\nevent: done\ndata: {\"id\":3}\n\n", false},
		{"stream: no events", "GET", "/v1/jobs/abc/events", 200, streamType, "retry: 2000\n\n", true},
		{"outside the document", "GET", "/swagger/swagger-ui.css", 200, http.Header{"Content-Type": {"text/css"}}, `body{}`, true},
		{"a problem outside every operation", "GET", "/nowhere", 404, problemType, problem, true},
		{"a broken problem outside every operation", "GET", "/nowhere", 404, problemType, `{"type":"/problems/not-found"}`, false},
		{"a job's result", "GET", "/v1/jobs/abc", 200, jsonType, doneJob(tilings), true},
		{"a job's result of the wrong shape", "GET", "/v1/jobs/abc", 200, jsonType, doneJob(`{"count":"many"}`), false},
		{"a job's result in an event", "GET", "/v1/jobs/abc/events", 200, streamType, "event: done\ndata: " + doneJob(`{"count":"many"}`) + "\n\n", false},
	} {
		req := httptest.NewRequest(c.method, c.path, nil)
		err := v.Check(req, nil, c.status, c.header, []byte(c.body))
		if (err == nil) != c.ok {
			t.Errorf("%s: ok %v, error %v", c.name, c.ok, err)
		}
	}
}

// TestCheckRequest: a request answered with success must be one the
// document describes; a refused one is not checked.
func TestCheckRequest(t *testing.T) {
	v, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	answer := []byte(`{"count":0,"distinct_up_to_symmetry":0,"moves":[],"to_move":"first","board":["..."],"game_over":true,"pass":false,"scores":[0,0],"pieces_left":{"pool":[]},` +
		`"config":{"game":"pentominoes","width":8,"height":8,"blocked":[],"order":5,"pieces":["F"],"pool":true,"neutral":[],"end_rule":"normal"}}`)
	jsonType := http.Header{"Content-Type": {"application/json"}}
	for _, c := range []struct {
		name, body string
		status     int
		ok         bool
	}{
		{"described", `{"game":"pentominoes","width":8}`, 200, true},
		{"null for an optional field", `{"game":null}`, 200, true},
		{"a field of the wrong type", `{"width":"eight"}`, 200, false},
		{"a field the document does not name", `{"colour":"red"}`, 200, false},
		{"refused", `{"width":"eight"}`, 400, true},
	} {
		req := httptest.NewRequest("POST", "/v1/polyomino/moves", nil)
		req.Header.Set("Content-Type", "application/json")
		header, body := jsonType, answer
		if c.status != 200 {
			header = http.Header{"Content-Type": {"application/problem+json"}}
			body = []byte(`{"type":"/problems/invalid-request","title":"Bad Request","status":400,"detail":"width","request_id":"x"}`)
		}
		err := v.Check(req, []byte(c.body), c.status, header, body)
		if (err == nil) != c.ok {
			t.Errorf("%s: ok %v, error %v", c.name, c.ok, err)
		}
	}
}

// tilings is a real tilings answer.
const tilings = `{"count":0,"count_all":0,"symmetries":4,"solutions":[],"placements":[],"complete":true,"region":[".....",".....","....."],"pieces":"LNP","source":"search","stats":{"elapsed_ms":0.515,"nodes":12}}`

// doneJob is a done polyomino.tilings job with result.
func doneJob(result string) string {
	return `{"id":"a","href":"/v1/jobs/a","type":"polyomino.tilings","status":"done","created":"2026-11-26T00:00:00Z",` +
		`"progress":{"done":1,"total":1,"nodes":1,"elapsed_ms":5,"estimate_ms":0},"result":` + result + `}`
}

func TestHandler(t *testing.T) {
	v, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	var got []error
	h := v.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte(`{"status":"ok","uptime_seconds":"long","version":"v"}`))
	}), func(err error) { got = append(got, err) })
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", "/healthz", nil))
	if w.Code != 200 || !strings.Contains(w.Body.String(), "long") {
		t.Errorf("answer not passed on: %d %s", w.Code, w.Body)
	}
	if len(got) != 1 || !strings.Contains(got[0].Error(), "uptime_seconds") {
		t.Errorf("reports %v", got)
	}
}

// TestHandlerStream: an event stream is checked event by event however
// long it is, with the headers as they were sent.
func TestHandlerStream(t *testing.T) {
	v, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	progress := "event: progress\ndata: " + `{"id":"a","href":"/v1/jobs/a","type":"polyomino.tilings","status":"running","created":"2026-11-26T00:00:00Z","progress":{"done":0,"total":1,"nodes":0,"elapsed_ms":5,"estimate_ms":null}}` + "\n\n"
	for _, c := range []struct {
		name  string
		last  string
		count int
		want  string
	}{
		{"long and good", "event: done\ndata: " + doneJob(tilings) + "\n\n", 6000, ""},
		{"long, a bad last event", "event: done\ndata: " + doneJob(`{"count":"many"}`) + "\n\n", 6000, "count"},
		{"cut inside an event", "event: done\ndata: {", 1, "inside an event"},
	} {
		var got []error
		h := v.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			for range c.count {
				_, _ = w.Write([]byte(progress))
			}
			_, _ = w.Write([]byte(c.last))
		}), func(err error) { got = append(got, err) })
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/v1/jobs/a/events", nil))
		switch {
		case c.want == "" && len(got) > 0:
			t.Errorf("%s: %v", c.name, got)
		case c.want != "" && (len(got) != 1 || !strings.Contains(got[0].Error(), c.want)):
			t.Errorf("%s: reports %v, want one about %q", c.name, got, c.want)
		}
	}
	// A Content-Type set after the header was sent is not what the client
	// got.
	var got []error
	h := v.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusOK)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"status":"ok","uptime_seconds":1,"version":"v"}`))
	}), func(err error) { got = append(got, err) })
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/healthz", nil))
	if len(got) != 1 {
		t.Errorf("header set late: reports %v", got)
	}
}
