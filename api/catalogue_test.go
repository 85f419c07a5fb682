package api

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/gamesolver/gamesolver/service"
)

// TestCatalogueParameters: each game's parameters in /v1/games are the
// fields of its request, one entry a field, each with its JSON type, and
// every field is listed (the entries had lumped "width, height, blocked,
// ..." together: a front end building a form could not read them).
func TestCatalogueParameters(t *testing.T) {
	for _, tc := range []struct {
		info service.GameInfo
		req  any
	}{
		{service.PolyominoInfo(), PolyominoRequest{}},
		{service.TeekoInfo(), TeekoAnalyzeRequest{}},
		{service.TilingInfo(), TilingsRequest{}},
	} {
		t.Run(tc.info.ID, func(t *testing.T) {
			var fields []string
			types := map[string]reflect.Type{}
			rt := reflect.TypeOf(tc.req)
			for i := range rt.NumField() {
				name, _, _ := strings.Cut(rt.Field(i).Tag.Get("json"), ",")
				if name != "" && name != "-" {
					fields = append(fields, name)
					types[name] = rt.Field(i).Type
				}
			}
			var listed []string
			for _, p := range tc.info.Parameters {
				if !slices.Contains(fields, p.Name) {
					t.Errorf("parameter %q is no field of the request (%v)", p.Name, fields)
					continue
				}
				if slices.Contains(listed, p.Name) {
					t.Errorf("parameter %q listed twice", p.Name)
				}
				listed = append(listed, p.Name)
				if want := jsonType(types[p.Name]); want != "" && p.Type != want {
					t.Errorf("parameter %q: type %q, want %q", p.Name, p.Type, want)
				}
				for _, one := range strings.Split(p.Type, "|") {
					if !slices.Contains([]string{"string", "integer", "boolean", "array", "object"}, one) {
						t.Errorf("parameter %q: type %q", p.Name, p.Type)
					}
				}
			}
			for _, f := range fields {
				if !slices.Contains(listed, f) {
					t.Errorf("request field %q missing from the parameters", f)
				}
			}
		})
	}
}

// jsonType is the JSON type a Go field decodes from, "" for the fields
// that decode themselves (pieces, pool: their parameters say which types
// they read).
func jsonType(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if reflect.PointerTo(t).Implements(reflect.TypeFor[json.Unmarshaler]()) {
		return ""
	}
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Int, reflect.Int64, reflect.Uint64:
		return "integer"
	case reflect.Bool:
		return "boolean"
	case reflect.Slice:
		return "array"
	case reflect.Map:
		return "object"
	case reflect.Struct:
		return "object"
	}
	return ""
}

// TestWordsSpacedNotFolded: words are matched without regard to case or
// to spaces around them, as the document says (a preset, the capture
// variant, an end rule, a piece set's name were refused with spaces), and
// only in ASCII: "tetrominoeſ" (a long s) named no preset, though Go's
// Unicode folding took it for one; to_move takes 1 and 2 in every
// placement game (the capture variant refused them).
func TestWordsSpacedNotFolded(t *testing.T) {
	r, _ := newGatedServer()
	for _, tc := range []struct {
		body string
		code int
	}{
		{`{"game":" Capture "}`, 200},
		{`{"game":" tetrominoes "}`, 200},
		{`{"game":"tetrominoes","end_rule":" Score "}`, 200},
		{`{"game":"tetrominoes","pieces":" Tetrominoes "}`, 200},
		{`{"game":"capture","to_move":"1"}`, 200},
		{`{"game":"tetrominoeſ"}`, 400},
		{`{"game":"tetrominoes","pieces":"tetrominoeſ"}`, 400},
	} {
		w := do(r, "POST", "/v1/polyomino/moves", "application/json", tc.body)
		if w.Code != tc.code {
			t.Errorf("%s: %d %.300s, want %d", tc.body, w.Code, w.Body, tc.code)
		}
	}
}
