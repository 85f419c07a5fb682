package openapi_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
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

// addExamples puts the request examples of package api into the JSON and
// YAML documents swag wrote in dir (as the example of each request body's
// schema), and leaves the type of api.UntypedFields open, written the way
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
	for _, ex := range api.RequestExamples() {
		def, ok := doc.Definitions[ex.Definition]
		if !ok {
			t.Fatalf("example of %s: no such definition", ex.Definition)
		}
		var v any
		if err := json.Unmarshal([]byte(ex.Body), &v); err != nil {
			t.Fatalf("example of %s: %v", ex.Definition, err)
		}
		def.Example = v
		doc.Definitions[ex.Definition] = def
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
