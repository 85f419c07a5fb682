package polyomino

import (
	"context"
	"flag"
	"strings"
	"testing"
	"time"
)

var probeMoves = flag.String("probe", "", "solve the 8x8 position after these moves (space separated) and print stats")
var probeBudget = flag.Duration("probe-budget", time.Minute, "time budget of -probe")
var probeWorkers = flag.Int("probe-workers", 0, "workers of -probe")
var probeAll = flag.Bool("probe-all", false, "-probe: all moves")

func TestProbe(t *testing.T) {
	if *probeMoves == "" {
		t.Skip("use -probe 'moves'")
	}
	cfg, _ := Preset("pentominoes")
	pos, err := NewPosition(cfg, nil, strings.Fields(*probeMoves), DefaultToMove)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), *probeBudget)
	defer cancel()
	t0 := time.Now()
	res, err := Solve(ctx, pos, Options{FirstWin: !*probeAll, AllMoves: *probeAll, TableMB: 1024, Workers: *probeWorkers,
		Progress: func(n int64) {
			if n%(1<<27) < 1<<20 {
				t.Logf("%6.1fs %d nodes", time.Since(t0).Seconds(), n)
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	el := time.Since(t0)
	t.Logf("%s proven %v value %d nodes %d %.2fs %.2f Mn/s best %d moves %v", res.Outcome, res.Proven, res.Value, res.Nodes, el.Seconds(), float64(res.Nodes)/el.Seconds()/1e6, len(res.BestMoves), res.BestMoves[:min(3, len(res.BestMoves))])
}
