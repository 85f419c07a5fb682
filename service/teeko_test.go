package service_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

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

// teekoGauges gathers the service's Teeko metrics: "<rules> <state>" is
// gamesolver_teeko_table_state, "<rules>" gamesolver_teeko_table_progress.
func teekoGauges(t *testing.T, svc *service.Teeko) map[string]float64 {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	if err := reg.Register(svc.Collector()); err != nil {
		t.Fatal(err)
	}
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			var key []string
			for _, l := range m.GetLabel() {
				key = append(key, l.GetValue())
			}
			got[strings.Join(key, " ")] = m.GetGauge().GetValue()
		}
	}
	return got
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
			// (The build may end meanwhile: building, or ready.)
			if g := teekoGauges(t, svc); g["standard building"]+g["standard ready"] != 1 || g["standard waiting"]+g["standard failed"] != 0 ||
				g["advanced ready"] != 1 || g["standard"] < 0 || g["standard"] > 1 || g["advanced"] != 1 {
				t.Fatalf("metrics while the standard table builds: %v", g)
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
	if g := teekoGauges(t, svc); g["standard ready"] != 1 || g["standard building"] != 0 || g["standard"] != 1 || len(g) != 12 {
		t.Errorf("metrics after the rebuild: %v", g)
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

// TestTeekoBuildRetried: a table that could not be built (here: the data
// directory is under a file) is looked for and built again later, so that
// tables put there, a disk freed or a directory made writable serve
// without a restart; and a directory the table cannot be written to fails
// at once, not after the build.
func TestTeekoBuildRetried(t *testing.T) {
	servicetest.Teeko(t) // the shared tables, built
	shared := servicetest.DataDir(t)
	parent := filepath.Join(t.TempDir(), "not-a-dir")
	if err := os.WriteFile(parent, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(parent, "data")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	svc := service.NewTeeko(service.TeekoOptions{DataDir: dir, RetryEvery: 20 * time.Millisecond})
	done := svc.Start(ctx)
	deadline := time.Now().Add(30 * time.Second)
	for svc.Component().State != "failed" {
		if time.Now().After(deadline) {
			t.Fatalf("no failure: %+v", svc.Component())
		}
		time.Sleep(5 * time.Millisecond)
	}
	if g := teekoGauges(t, svc); g["standard failed"] != 1 || g["advanced failed"] != 1 || g["standard ready"] != 0 || g["standard"] != 0 {
		t.Errorf("metrics after the builds failed: %v", g)
	}
	// Start's done closes once the first builds failed (solve waits on
	// it: it hung while the builds were retried), the retries after it.
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		t.Fatalf("Start's done not closed after the first builds failed: %+v", svc.Component())
	}
	if err := os.Remove(parent); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, r := range []teeko.Rules{teeko.Standard, teeko.Advanced} {
		copyFile(t, teeko.TablePath(shared, r), teeko.TablePath(dir, r))
	}
	deadline = time.Now().Add(60 * time.Second)
	for !svc.Component().Ready {
		if time.Now().After(deadline) {
			t.Fatalf("the tables put in the directory were not taken: %+v", svc.Component())
		}
		time.Sleep(5 * time.Millisecond)
	}
	if g := teekoGauges(t, svc); g["standard ready"] != 1 || g["advanced ready"] != 1 || g["advanced failed"] != 0 || g["advanced"] != 1 {
		t.Errorf("metrics once served: %v", g)
	}
}

// TestTeekoLongGameInTheGate: a long game's annotation takes a place in the
// gate of big answers (sixty 64 KB games at once, 2.4 MB of answer each,
// had kept the health checks waiting 1.8 s); a short game never waits.
func TestTeekoLongGameInTheGate(t *testing.T) {
	servicetest.Teeko(t) // the tables, built once
	gate := service.NewAssembly(1, nil)
	svc := service.NewTeeko(service.TeekoOptions{DataDir: servicetest.DataDir(t), Assembly: gate})
	<-svc.Start(context.Background())
	game := []string{"1", "5", "3", "15", "11", "21", "23", "25"}
	for len(game) < service.TeekoBigGame {
		game = append(game, "1-2", "5-4", "2-1", "4-5")
	}
	held, err := gate.Enter(context.Background(), true)
	if err != nil {
		t.Fatal(err)
	}
	if a, err := svc.Annotate(context.Background(), "standard", "", game[:service.TeekoBigGame-1]); err != nil || len(a.Plies) != service.TeekoBigGame-1 {
		t.Fatalf("a game of %d plies while the gate is full: %v", service.TeekoBigGame-1, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := svc.Annotate(ctx, "standard", "", game); err != context.DeadlineExceeded {
		t.Fatalf("a game of %d plies while the gate is full: %v, want to wait for a place", len(game), err)
	}
	held()
	if a, err := svc.Annotate(context.Background(), "standard", "", game); err != nil || len(a.Plies) != len(game) {
		t.Fatalf("a game of %d plies with the gate free: %v", len(game), err)
	}
}
