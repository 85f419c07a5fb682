package service

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// TestEveryCachedGameVersioned: every game whose answers are cached has an
// engine version in its keys (the capture variant's had none: a change of
// its engine would have read the answers of the one before).
func TestEveryCachedGameVersioned(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	call := regexp.MustCompile(`cacheKey\("([a-z]+)"`)
	seen := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range call.FindAllSubmatch(b, -1) {
			seen++
			if engineVersion[string(m[1])] == "" {
				t.Errorf("%s: cache keys of %q without an engine version", f, m[1])
			}
		}
	}
	if seen == 0 {
		t.Fatal("no cacheKey call found")
	}
}
