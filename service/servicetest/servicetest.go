// Package servicetest gives tests of every layer ready-made services that
// are expensive to build, such as the Teeko tablebases, built once per test
// run and shared between test binaries through a data directory.
package servicetest

import (
	"context"
	"os"
	"sync"
	"testing"

	"github.com/gamesolver/gamesolver/service"
)

var (
	dirOnce sync.Once
	dir     string
	dirErr  error

	teekoOnce sync.Once
	teekoSvc  *service.Teeko
)

// DataDir is the data directory tests share: GAMESOLVER_TEST_DATA_DIR when
// set (`make test` sets it, so tables built once serve every package and
// every later run), else one temporary directory for this test binary.
func DataDir(t testing.TB) string {
	t.Helper()
	dirOnce.Do(func() {
		if dir = os.Getenv("GAMESOLVER_TEST_DATA_DIR"); dir != "" {
			dirErr = os.MkdirAll(dir, 0o755)
			return
		}
		dir, dirErr = os.MkdirTemp("", "gamesolver-test-data-")
	})
	if dirErr != nil {
		t.Fatalf("test data dir: %v", dirErr)
	}
	return dir
}

// Teeko returns a Teeko service whose tables are ready: loaded from the
// shared data directory, or built there once.
func Teeko(t testing.TB) *service.Teeko {
	t.Helper()
	d := DataDir(t)
	teekoOnce.Do(func() {
		teekoSvc = service.NewTeeko(service.TeekoOptions{DataDir: d})
		<-teekoSvc.Start(context.Background())
	})
	if c := teekoSvc.Component(); !c.Ready {
		t.Fatalf("teeko tables not ready: %s", c.Detail)
	}
	return teekoSvc
}
