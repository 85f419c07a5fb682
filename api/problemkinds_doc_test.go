package api

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/gamesolver/gamesolver/openapi"
)

// The document lists every problem type the service sends, so that a
// client can branch on them: the enum of /problems/{name} is the kinds.
func TestProblemKindsAreDocumented(t *testing.T) {
	var doc struct {
		Paths map[string]map[string]struct {
			Parameters []struct {
				Name string   `json:"name"`
				Enum []string `json:"enum"`
			} `json:"parameters"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(openapi.JSON, &doc); err != nil {
		t.Fatal(err)
	}
	var listed []string
	for _, p := range doc.Paths["/problems/{name}"]["get"].Parameters {
		if p.Name == "name" {
			listed = p.Enum
		}
	}
	var kinds []string
	for name := range problemKinds {
		kinds = append(kinds, name)
	}
	slices.Sort(kinds)
	listed = slices.Sorted(slices.Values(listed))
	if !slices.Equal(listed, kinds) {
		t.Errorf("the document lists the problem types %v; the service has %v", listed, kinds)
	}
}
