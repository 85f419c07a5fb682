package openapi_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/go-openapi/spec"
	"github.com/swaggo/swag/gen"
	"sigs.k8s.io/yaml"

	"github.com/gamesolver/gamesolver/api"
)

var update = flag.Bool("update", false, "regenerate the committed OpenAPI document")

// generated are the files swag writes; each is compared with the
// committed copy.
var generated = []string{"docs.go", "swagger.json", "swagger.yaml"}

// generate runs swag over the repository into dir, with the one
// configuration used everywhere.
func generate(t *testing.T, dir string) {
	t.Helper()
	err := gen.New().Build(&gen.Config{
		SearchDir:          "../api,../service",
		MainAPIFile:        "api.go",
		OutputDir:          dir,
		OutputTypes:        []string{"go", "json", "yaml"},
		PackageName:        "openapi",
		ParseDependency:    0,
		ParseDepth:         100,
		PropNamingStrategy: "snakecase",
		Strict:             true,
		LeftTemplateDelim:  "{{",
		RightTemplateDelim: "}}",
		CollectionFormat:   "csv",
	})
	if err != nil {
		t.Fatalf("swag: %v", err)
	}
	addExamples(t, dir)
}

// addExamples puts the request and response examples of package api into
// the JSON and YAML documents swag wrote in dir (as the example of each
// request body's schema, and of the response schemas listed), and leaves the type of api.UntypedFields open, written the way
// swag writes them. docs.go keeps swag's template
// without them: the service serves swagger.json, at /openapi.json and at
// /swagger/doc.json.
func addExamples(t *testing.T, dir string) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, "swagger.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc spec.Swagger
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	examples := map[string]string{}
	for _, ex := range api.RequestExamples() {
		examples[ex.Definition] = ex.Body
	}
	for _, ex := range api.ResponseExamples() {
		examples[ex.Definition] = ex.Body
	}
	for name, body := range examples {
		def, ok := doc.Definitions[name]
		if !ok {
			t.Fatalf("example of %s: no such definition", name)
		}
		var v any
		if err := json.Unmarshal([]byte(body), &v); err != nil {
			t.Fatalf("example of %s: %v", name, err)
		}
		def.Example = v
		doc.Definitions[name] = def
	}
	for name, fields := range api.UntypedFields() {
		def, ok := doc.Definitions[name]
		if !ok {
			t.Fatalf("untyped fields of %s: no such definition", name)
		}
		for _, f := range fields {
			prop, ok := def.Properties[f]
			if !ok {
				t.Fatalf("%s has no field %s", name, f)
			}
			prop.Type = nil
			def.Properties[f] = prop
		}
		doc.Definitions[name] = def
	}
	// Every request body has its example.
	for path, item := range doc.Paths.Paths {
		for _, op := range []*spec.Operation{item.Get, item.Put, item.Post, item.Delete, item.Patch} {
			if op == nil {
				continue
			}
			for _, p := range op.Parameters {
				if p.In != "body" || p.Schema == nil {
					continue
				}
				name := strings.TrimPrefix(p.Schema.Ref.String(), "#/definitions/")
				if doc.Definitions[name].Example == nil {
					t.Errorf("%s: the body %s has no example in api.RequestExamples", path, name)
				}
			}
		}
	}
	addRequired(t, &doc)
	indented, err := json.MarshalIndent(&doc, "", "    ")
	if err != nil {
		t.Fatal(err)
	}
	compact, err := json.Marshal(&doc)
	if err != nil {
		t.Fatal(err)
	}
	y, err := yaml.JSONToYAML(compact)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "swagger.json"), indented, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "swagger.yaml"), y, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestDocumentIsFresh(t *testing.T) {
	dir := t.TempDir()
	generate(t, dir)
	for _, name := range generated {
		want, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if *update {
			if err := os.WriteFile(name, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(name)
		if err != nil {
			t.Fatalf("%s is missing: run `make openapi`", name)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("openapi/%s is stale: run `make openapi` and commit the result", name)
		}
	}
}

// addRequired marks as required, in the schemas of api.ResponseTypes and
// of the types they hold, every field encoding/json always writes. Schemas
// that request bodies use are left alone: there a field is optional
// whatever its Go type, and each optional one is marked x-nullable (null
// is the same as absent); they take no other fields
// (additionalProperties: false). Every response schema of the document must be
// among api.ResponseTypes.
func addRequired(t *testing.T, doc *spec.Swagger) {
	t.Helper()
	requests := map[string]bool{}
	responses := map[string]bool{}
	for _, item := range doc.Paths.Paths {
		for _, op := range []*spec.Operation{item.Get, item.Put, item.Post, item.Delete, item.Patch, item.Head} {
			if op == nil {
				continue
			}
			for _, p := range op.Parameters {
				if p.In == "body" && p.Schema != nil {
					reach(doc, p.Schema, requests)
				}
			}
			if op.Responses == nil {
				continue
			}
			for _, r := range op.Responses.StatusCodeResponses {
				if r.Schema != nil {
					if name := defName(r.Schema); name != "" {
						responses[name] = true
					}
				}
			}
		}
	}
	// In a request, null, or "" for a field that takes one of a list of
	// words, is the same as a field left out (TestNullIsAbsent in package
	// api): an optional field may be null, and "" is among its words. A
	// field the schema does not name is refused (400): the schemas say so,
	// for clients generated from them.
	for name := range requests {
		def := doc.Definitions[name]
		if len(def.Properties) > 0 {
			def.AdditionalProperties = &spec.SchemaOrBool{Allows: false}
		}
		for prop, schema := range def.Properties {
			if slices.Contains(def.Required, prop) {
				continue
			}
			schema.AddExtension("x-nullable", true)
			if len(schema.Enum) > 0 && !slices.Contains(schema.Enum, any("")) {
				schema.Enum = append(schema.Enum, "")
			}
			def.Properties[prop] = schema
		}
		doc.Definitions[name] = def
	}
	// So is an empty query parameter.
	for _, item := range doc.Paths.Paths {
		if op := item.Get; op != nil {
			for i, p := range op.Parameters {
				if p.In == "query" && !p.Required && len(p.Enum) > 0 && !slices.Contains(p.Enum, any("")) {
					op.Parameters[i].AllowEmptyValue = true
					op.Parameters[i].Enum = append(p.Enum, "")
				}
			}
		}
	}
	seen := map[reflect.Type]bool{}
	for _, v := range api.ResponseTypes() {
		typ := reflect.TypeOf(v)
		delete(responses, goDefName(typ))
		markRequired(t, doc, typ, requests, seen)
	}
	for name := range responses {
		t.Errorf("response schema %s is not in api.ResponseTypes", name)
	}
}

// markRequired sets the required fields of typ's schema and of the
// struct types its fields hold.
func markRequired(t *testing.T, doc *spec.Swagger, typ reflect.Type, requests map[string]bool, seen map[reflect.Type]bool) {
	for typ.Kind() == reflect.Pointer || typ.Kind() == reflect.Slice || typ.Kind() == reflect.Array || typ.Kind() == reflect.Map {
		typ = typ.Elem()
	}
	if typ.Kind() != reflect.Struct || seen[typ] {
		return
	}
	seen[typ] = true
	name := goDefName(typ)
	def, ok := doc.Definitions[name]
	if !ok {
		return // a type swag inlines, such as time.Time
	}
	marshaler := reflect.TypeFor[json.Marshaler]()
	custom := typ.Implements(marshaler) || reflect.PointerTo(typ).Implements(marshaler)
	var required []string
	for _, f := range reflect.VisibleFields(typ) {
		if !f.IsExported() || f.Anonymous {
			continue
		}
		markRequired(t, doc, f.Type, requests, seen)
		tag, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if tag == "-" || tag == "" || slices.Contains(strings.Split(opts, ","), "omitempty") ||
			slices.Contains(strings.Split(opts, ","), "omitzero") || viaPointer(typ, f.Index) {
			continue
		}
		prop, ok := def.Properties[tag]
		if !ok {
			t.Errorf("%s: field %s is not in its schema", name, tag)
			continue
		}
		switch f.Type.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface:
			// May be written as null: required (always there) only when
			// its schema says it may be null (a Teeko answer's plies).
			if nullable, _ := prop.Extensions.GetBool("x-nullable"); !nullable {
				continue
			}
		}
		required = append(required, tag)
	}
	if custom || requests[name] || len(required) == 0 {
		return
	}
	for _, r := range def.Required {
		if !slices.Contains(required, r) {
			required = append(required, r)
		}
	}
	slices.Sort(required)
	def.Required = required
	doc.Definitions[name] = def
}

// viaPointer tells whether the field at index is promoted from a struct
// embedded by pointer, absent when the pointer is nil.
func viaPointer(typ reflect.Type, index []int) bool {
	for k := 1; k < len(index); k++ {
		if typ.FieldByIndex(index[:k]).Type.Kind() == reflect.Pointer {
			return true
		}
	}
	return false
}

// goDefName is the name swag gives a Go type's schema: its package's name
// and its own.
func goDefName(typ reflect.Type) string {
	return path.Base(typ.PkgPath()) + "." + typ.Name()
}

// defName is the definition a schema refers to, through arrays.
func defName(s *spec.Schema) string {
	for s.Items != nil && s.Items.Schema != nil {
		s = s.Items.Schema
	}
	return strings.TrimPrefix(s.Ref.String(), "#/definitions/")
}

// reach records every definition s refers to, at any depth.
func reach(doc *spec.Swagger, s *spec.Schema, into map[string]bool) {
	if s == nil {
		return
	}
	if name := strings.TrimPrefix(s.Ref.String(), "#/definitions/"); name != "" {
		if into[name] {
			return
		}
		into[name] = true
		def := doc.Definitions[name]
		reach(doc, &def, into)
	}
	for _, p := range s.Properties {
		reach(doc, &p, into)
	}
	if s.Items != nil {
		reach(doc, s.Items.Schema, into)
		for i := range s.Items.Schemas {
			reach(doc, &s.Items.Schemas[i], into)
		}
	}
	if s.AdditionalProperties != nil {
		reach(doc, s.AdditionalProperties.Schema, into)
	}
	for i := range s.AllOf {
		reach(doc, &s.AllOf[i], into)
	}
}

// TestDocumentGeneratesClients: what client generators trip on. Every
// operation has a unique operationId (method names); an object property
// of a request is a plain reference, never allOf (go-swagger made
// hands an embedded object always sent, {"first":null,"second":null}:
// a deal instead of the preset's pool); no enum holds two values that
// name alike once punctuation is dropped (a Go client did not compile).
func TestDocumentGeneratesClients(t *testing.T) {
	doc := committed(t)
	ids := map[string]string{}
	for p, item := range doc.Paths.Paths {
		for method, op := range map[string]*spec.Operation{"get": item.Get, "post": item.Post, "delete": item.Delete, "put": item.Put, "head": item.Head} {
			if op == nil {
				continue
			}
			where := method + " " + p
			if op.ID == "" {
				t.Errorf("%s has no operationId (@ID)", where)
			} else if other, dup := ids[op.ID]; dup {
				t.Errorf("%s and %s share the operationId %s", where, other, op.ID)
			}
			ids[op.ID] = where
		}
	}
	alnum := func(v any) string {
		return strings.Map(func(r rune) rune {
			if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
				return r
			}
			return -1
		}, strings.ToLower(fmt.Sprint(v)))
	}
	for name, def := range doc.Definitions {
		for prop, s := range def.Properties {
			if strings.HasSuffix(name, "Request") && len(s.AllOf) > 0 {
				t.Errorf("%s.%s is allOf: give the field no doc comment, so that swag writes a plain $ref", name, prop)
			}
			seen := map[string]any{}
			for _, v := range s.Enum {
				if other, dup := seen[alnum(v)]; dup {
					t.Errorf("%s.%s: enum values %q and %q name alike", name, prop, other, v)
				}
				seen[alnum(v)] = v
			}
		}
	}
}

// committed reads the committed document.
func committed(t *testing.T) spec.Swagger {
	t.Helper()
	raw, err := os.ReadFile("swagger.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc spec.Swagger
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

// TestDocumentHeaders: every answer of every operation declares the
// headers the server always sends: X-Request-ID; under /v1 the rate
// limit's; Retry-After with 429 and 503 (three operations' 400s declared
// none: swag's "all" reaches only the statuses listed before it).
func TestDocumentHeaders(t *testing.T) {
	doc := committed(t)
	for path, item := range doc.Paths.Paths {
		for method, op := range map[string]*spec.Operation{"get": item.Get, "post": item.Post, "delete": item.Delete} {
			if op == nil || op.Responses == nil {
				continue
			}
			for code, r := range op.Responses.StatusCodeResponses {
				want := []string{"X-Request-ID"}
				if strings.HasPrefix(path, "/v1/") {
					want = append(want, "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset")
				}
				if code == 429 || code == 503 {
					want = append(want, "Retry-After")
				}
				for _, h := range want {
					if _, ok := r.Headers[h]; !ok {
						t.Errorf("%s %s: %d does not declare %s", method, path, code, h)
					}
				}
			}
		}
	}
}
