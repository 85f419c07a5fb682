package api

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

// TestJobIDNotLoggedOnMisses: a request naming a job by a path no route
// takes whole (a trailing slash, a method the job does not allow, a
// sub-resource that does not exist) logs the id cut as well: the client's
// slip does not put its job's only credential in the access log.
func TestJobIDNotLoggedOnMisses(t *testing.T) {
	core, logs := observer.New(zap.DebugLevel)
	srv := newLoggingJobServer(t, nil, zap.New(core))
	created := submitSmallTilings(t, srv, "req-misses")
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, c := range []struct{ method, path string }{
		{"GET", created.Href + "/"},
		{"PUT", created.Href},
		{"GET", created.Href + "/result"},
	} {
		req, _ := http.NewRequest(c.method, srv.URL+c.path, nil)
		r, err := noRedirect.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, r.Body)
		r.Body.Close()
	}
	for _, e := range logs.All() {
		if line, _ := json.Marshal(e.ContextMap()); bytes.Contains(line, []byte(created.ID)) || strings.Contains(e.Message, created.ID) {
			t.Errorf("a log line holds the whole job id: %s %s", e.Message, line)
		}
	}
}
