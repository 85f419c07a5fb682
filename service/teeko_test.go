package service_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gamesolver/gamesolver/engine/teeko"
	"github.com/gamesolver/gamesolver/service"
	"github.com/gamesolver/gamesolver/service/servicetest"
)

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestTeekoRebuildsDamagedTable: a damaged table file is never served: the
// service reports the rebuild, answers 503-kind errors with progress until
// it is done, then answers from the new table.
func TestTeekoRebuildsDamagedTable(t *testing.T) {
	servicetest.Teeko(t) // make sure valid tables exist to copy
	shared := servicetest.DataDir(t)
	dir := t.TempDir()
	copyFile(t, teeko.TablePath(shared, teeko.Advanced), teeko.TablePath(dir, teeko.Advanced))
	std := teeko.TablePath(dir, teeko.Standard)
	copyFile(t, teeko.TablePath(shared, teeko.Standard), std)
	b, _ := os.ReadFile(std)
	b[len(b)/2] ^= 0x40
	if err := os.WriteFile(std, b, 0o644); err != nil {
		t.Fatal(err)
	}

	svc := service.NewTeeko(service.TeekoOptions{DataDir: dir})
	done := svc.Start(context.Background())
	sawBuilding := false
	for {
		_, err := svc.Analyze(context.Background(), service.TeekoQuery{})
		// Only the standard table builds: while the component still says
		// so afterwards, the answer must have been "not ready".
		if c := svc.Component(); c.State == "building" {
			sawBuilding = true
			if service.KindOf(err) != service.KindNotReady {
				t.Fatalf("Analyze while building: %v", err)
			}
			// The advanced table, whose file is sound, is served
			// meanwhile (it waited for the standard table's build).
			if _, err := svc.Analyze(context.Background(), service.TeekoQuery{Rules: "advanced"}); err != nil {
				t.Fatalf("the advanced table while the standard one builds: %v", err)
			}
		}
		select {
		case <-done:
		case <-time.After(10 * time.Millisecond): // a spin would take a core from the build
			continue
		}
		break
	}
	if !sawBuilding {
		t.Error("the damaged table was not rebuilt")
	}
	if c := svc.Component(); !c.Ready {
		t.Fatalf("after rebuild: %+v", c)
	}
	if _, err := teeko.LoadFile(std, teeko.Standard); err != nil {
		t.Errorf("rebuilt file does not load: %v", err)
	}
	a, err := svc.Analyze(context.Background(), service.TeekoQuery{})
	if err != nil || a.Analysis.Value.Outcome != teeko.Draw {
		t.Errorf("standard Teeko from the rebuilt table: %+v, %v", a.Analysis.Value, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "teeko-standard-v1.tb")); err != nil {
		t.Error(err)
	}
}
