package api

import (
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/gamesolver/gamesolver/openapi/openapitest"
)

// Every answer the tests of this package get, through do and through the
// job servers, is checked against the OpenAPI document: its status must be
// one the operation lists and its body must match that status's schema.
// The violations are reported once, when every test has run.
var conformance struct {
	sync.Mutex
	v      *openapitest.Validator
	checks int
	errs   map[string]int
}

func TestMain(m *testing.M) {
	v, err := openapitest.Load()
	if err != nil {
		fmt.Fprintln(os.Stderr, "openapitest:", err)
		os.Exit(1)
	}
	conformance.v = v
	conformance.errs = map[string]int{}
	code := m.Run()
	if len(conformance.errs) > 0 {
		fmt.Fprintf(os.Stderr, "%d answers of %d break the OpenAPI document:\n", len(conformance.errs), conformance.checks)
		for e, n := range conformance.errs {
			fmt.Fprintf(os.Stderr, "- (%d x) %s\n", n, e)
		}
		code = 1
	}
	os.Exit(code)
}

// conform records whether one answer matches the document.
func conform(req *http.Request, reqBody []byte, status int, header http.Header, body []byte) {
	if req.URL.Path == "/test" || strings.HasPrefix(req.URL.Path, "/test/") {
		return
	}
	record(conformance.v.Check(req, reqBody, status, header, body))
}

// conforming wraps a test server's handler in the check.
func conforming(h http.Handler) http.Handler {
	return conformance.v.Handler(h, record)
}

// record counts a check and keeps its violation, if any.
func record(err error) {
	conformance.Lock()
	defer conformance.Unlock()
	conformance.checks++
	if err != nil {
		conformance.errs[err.Error()]++
	}
}
