package api

import (
	"encoding/json"
	"net/http"
	"os"
	"reflect"
	"slices"
	"testing"
	"time"
)

// exampleServers are the handlers of the operations the examples of the
// OpenAPI document name, by path.
func exampleServers(t *testing.T) map[string]http.Handler {
	polyomino, teeko := newPolyominoServer(t, 10*time.Second), newTeekoServer(t)
	return map[string]http.Handler{
		"/v1/polyomino/analyze":  polyomino,
		"/v1/polyomino/moves":    polyomino,
		"/v1/polyomino/annotate": polyomino,
		"/v1/polyomino/tilings":  newTilingServer(t),
		"/v1/teeko/analyze":      teeko,
		"/v1/teeko/annotate":     teeko,
		"/v1/teeko/tablebase":    teeko,
		"/v1/jobs":               newJobServer(t).Config.Handler,
	}
}

// TestRequestExamplesAccepted: every example body of the OpenAPI document
// is a request its operations answer with success.
func TestRequestExamplesAccepted(t *testing.T) {
	servers := exampleServers(t)
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

// TestResponseExamplesReal: each response example of the OpenAPI document
// is what its request gets, timings aside.
func TestResponseExamplesReal(t *testing.T) {
	servers := exampleServers(t)
	var untimed func(v any) any
	untimed = func(v any) any {
		if m, ok := v.(map[string]any); ok {
			delete(m, "stats")
			delete(m, "load_ms")
			untimed(m["final"]) // an annotation's last position
		}
		return v
	}
	for _, ex := range ResponseExamples() {
		r, ok := servers[ex.Path]
		if !ok {
			t.Fatalf("%s: no server for %s", ex.Definition, ex.Path)
		}
		w := do(r, ex.Method, ex.Path, "application/json", ex.Request)
		if w.Code != http.StatusOK {
			t.Errorf("%s: %s %s: %d %s", ex.Definition, ex.Method, ex.Path, w.Code, w.Body)
			continue
		}
		var want, got any
		if err := json.Unmarshal([]byte(ex.Body), &want); err != nil {
			t.Fatalf("%s: %v", ex.Definition, err)
		}
		if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil {
			t.Fatalf("%s: %v", ex.Definition, err)
		}
		candidates := []any{got}
		if ex.Within != "" {
			candidates, _ = got.(map[string]any)[ex.Within].([]any)
		}
		if !slices.ContainsFunc(candidates, func(c any) bool { return reflect.DeepEqual(untimed(c), untimed(want)) }) {
			t.Errorf("%s: the example is not the answer to %s %s %s:\nexample %s\nanswer  %s", ex.Definition, ex.Method, ex.Path, ex.Request, ex.Body, w.Body)
		}
	}
}

// TestAnswerExamplesPossible: the response examples of the polyomino
// answers are values a real game can have: under normal play a position
// won for the player to move lasts an odd number of plies, a lost one an
// even number; a winning move leaves an even number, a losing one an odd
// number (a review found a loss in 7 and a losing move with 4 left).
func TestAnswerExamplesPossible(t *testing.T) {
	raw, err := os.ReadFile("../openapi/swagger.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Definitions map[string]struct {
			Properties map[string]struct {
				Example any `json:"example"`
			} `json:"properties"`
		} `json:"definitions"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	for name, afterMove := range map[string]bool{"api.PolyominoAnalysis": false, "api.PolyominoMoveValue": true} {
		def, ok := doc.Definitions[name]
		if !ok {
			t.Fatalf("no %s in the document", name)
		}
		result, _ := def.Properties["result"].Example.(string)
		plies, ok := def.Properties["plies"].Example.(float64)
		if !ok || result != "win" && result != "loss" {
			t.Fatalf("%s: example result %q, plies %v", name, result, def.Properties["plies"].Example)
		}
		odd := int(plies)%2 == 1
		if want := (result == "win") != afterMove; odd != want {
			t.Errorf("%s: example %s with %d plies cannot happen", name, result, int(plies))
		}
	}
}
