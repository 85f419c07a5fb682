package openapi_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/swaggo/swag/gen"
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
