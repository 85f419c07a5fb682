package api

import (
	"net/http"
	"testing"
	"time"
)

// TestRequestExamplesAccepted: every example body of the OpenAPI document
// is a request its operations answer with success.
func TestRequestExamplesAccepted(t *testing.T) {
	servers := map[string]http.Handler{
		"/v1/polyomino/analyze": newPolyominoServer(t, 10*time.Second),
		"/v1/polyomino/tilings": newTilingServer(t),
		"/v1/teeko/analyze":     newTeekoServer(t),
		"/v1/jobs":              newJobServer(t).Config.Handler,
	}
	servers["/v1/polyomino/moves"] = servers["/v1/polyomino/analyze"]
	servers["/v1/teeko/annotate"] = servers["/v1/teeko/analyze"]
	for _, ex := range RequestExamples() {
		for _, path := range ex.Paths {
			r, ok := servers[path]
			if !ok {
				t.Fatalf("%s: no server for %s", ex.Definition, path)
			}
			w := do(r, "POST", path, "application/json", ex.Body)
			if w.Code != http.StatusOK && w.Code != http.StatusAccepted {
				t.Errorf("%s to %s: %d %s", ex.Definition, path, w.Code, w.Body)
			}
		}
	}
}
