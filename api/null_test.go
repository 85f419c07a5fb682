package api

import (
	"encoding/json"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gamesolver/gamesolver/openapi"
)

// TestNullIsAbsent: in a request, a field sent as null, or as "" where
// the field takes one of a list of words, is the same as the field left
// out (the document marks the optional ones x-nullable and lists "" among
// the words; the required ones are refused as missing). Each field of
// each request body's schema is tried so in a body that works, and the
// answer compared with the answer to that body without the field. A word
// in capitals is the same word.
func TestNullIsAbsent(t *testing.T) {
	var doc struct {
		Definitions map[string]struct {
			Required   []string `json:"required"`
			Properties map[string]struct {
				Enum []any `json:"enum"`
			} `json:"properties"`
		} `json:"definitions"`
	}
	if err := json.Unmarshal(openapi.JSON, &doc); err != nil {
		t.Fatal(err)
	}
	poly := newPolyominoServer(t, 10*time.Second)
	servers := map[string]http.Handler{
		"/v1/polyomino/analyze": poly, "/v1/polyomino/moves": poly, "/v1/polyomino/annotate": poly,
		"/v1/polyomino/tilings": newTilingServer(t),
		"/v1/teeko/analyze":     newTeekoServer(t),
		"/v1/jobs":              newJobServer(t).Config.Handler,
	}
	servers["/v1/teeko/annotate"] = servers["/v1/teeko/analyze"]
	bodies := []struct{ def, path, body string }{
		{"service.Hands", "/v1/polyomino/moves", `{"game": "pentominoes", "hands": {"first": "FILNPT", "second": "UVWXYZ"}}`},
		// An annotation of a short game (the document's example, one move
		// from the empty 8 x 8 board, takes a second a request).
		{"api.PolyominoRequest", "/v1/polyomino/annotate", `{"game": "tetrominoes", "width": 4, "height": 4, "moves": ["I:a1,b1,c1,d1"], "budget_ms": 2000}`},
	}
	for _, ex := range RequestExamples() {
		for _, p := range ex.Paths {
			bodies = append(bodies, struct{ def, path, body string }{ex.Definition, p, ex.Body})
		}
	}
	for _, b := range bodies {
		def, ok := doc.Definitions[b.def]
		if !ok {
			t.Fatalf("no definition %s", b.def)
		}
		server, ok := servers[b.path]
		if !ok {
			t.Fatalf("no server for %s", b.path)
		}
		for _, field := range slices.Sorted(maps.Keys(def.Properties)) {
			values := []any{nil}
			if slices.Contains(def.Properties[field].Enum, "") {
				values = append(values, "")
			} else if len(def.Properties[field].Enum) > 0 && !slices.Contains(def.Required, field) {
				t.Errorf("%s.%s: its words do not include \"\"", b.def, field)
			}
			for _, value := range values {
				without, with := edit(t, b.def, b.body, field, value)
				same(t, server, b.path, field, without, with, slices.Contains(def.Required, field))
			}
			// Words are matched without regard to case.
			if enum := def.Properties[field].Enum; len(enum) > 0 {
				word, _ := enum[0].(string)
				_, lower := edit(t, b.def, b.body, field, word)
				_, upper := edit(t, b.def, b.body, field, strings.ToUpper(word))
				same(t, server, b.path, field, lower, upper, false)
			}
		}
	}
}

// same checks that the answers to two bodies are the same, and, when
// refuse, that they are refusals.
func same(t *testing.T, server http.Handler, path, field, without, with string, refuse bool) {
	t.Helper()
	a := do(server, "POST", path, "application/json", without)
	n := do(server, "POST", path, "application/json", with)
	switch {
	case a.Code != n.Code:
		t.Errorf("%s: without it %d; %s: %d %s", path, a.Code, with, n.Code, n.Body)
		return
	case a.Code >= 400:
		if decodeProblem(t, a).Detail != decodeProblem(t, n).Detail {
			t.Errorf("%s: without it %s; %s: %s", path, a.Body, with, n.Body)
		}
	case a.Code == http.StatusOK:
		if x, y := steady(t, a.Body.Bytes()), steady(t, n.Body.Bytes()); x != y {
			t.Errorf("%s: without it %s; %s: %s", path, x, with, y)
		}
	}
	if refuse && n.Code < 400 {
		t.Errorf("%s: required %s accepted in %s", path, field, with)
	}
}

// steady is an answer without what changes from one request to the next
// (stats, source: the second may come from the cache; an annotation's
// final position's too).
func steady(t *testing.T, body []byte) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatal(err)
	}
	delete(m, "stats")
	delete(m, "source")
	if final, ok := m["final"].(map[string]any); ok { // an annotation's last position
		delete(final, "stats")
		delete(final, "source")
	}
	out, _ := json.Marshal(m)
	return string(out)
}

// edit returns body without field and with field set to value; for
// service.Hands, the field is the hands' (body.hands.first).
func edit(t *testing.T, def, body, field string, value any) (string, string) {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(body), &m); err != nil {
		t.Fatal(err)
	}
	target := m
	if def == "service.Hands" {
		target = m["hands"].(map[string]any)
	}
	delete(target, field)
	without, _ := json.Marshal(m)
	target[field] = value
	with, _ := json.Marshal(m)
	return string(without), string(with)
}
