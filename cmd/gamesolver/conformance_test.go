package main

import (
	"net/http"
	"sync"
	"testing"

	"github.com/gamesolver/gamesolver/openapi/openapitest"
)

// conforming checks every answer h gives during the test against the
// OpenAPI document (see package openapitest) and fails the test, when it
// ends, with each answer that breaks it.
func conforming(t *testing.T, h http.Handler) http.Handler {
	t.Helper()
	v, err := openapitest.Load()
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var errs []error
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		for _, err := range errs {
			t.Errorf("the answer breaks the OpenAPI document: %v", err)
		}
	})
	return v.Handler(h, func(err error) {
		mu.Lock()
		defer mu.Unlock()
		errs = append(errs, err)
	})
}
