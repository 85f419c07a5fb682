package polyomino

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"
)

func TestZZExp(t *testing.T) {
	mv := os.Getenv("EXP_MOVES")
	if mv == "" {
		t.Skip()
	}
	cfg, _ := Preset("pentominoes")
	pos, err := NewPosition(cfg, nil, strings.Fields(mv), DefaultToMove)
	if err != nil {
		t.Fatal(err)
	}
	tt := NewTable(64)
	t0 := time.Now()
	res, err := Solve(context.Background(), pos, Options{Table: tt, Workers: 1, FirstWin: true})
	t.Logf("solve %v %v nodes %d in %v", res.Outcome, res.Proven, res.Nodes, time.Since(t0))
	t0 = time.Now()
	x := NewLengths(context.Background(), pos, LengthOptions{Table: tt})
	l := x.Length(res.Outcome)
	t.Logf("length %+v in %v: within %d solver %d memo %d wins %d verdicts %d gaveUp %d", l, time.Since(t0), x.ls.nodes, x.ls.w.nodes, len(x.ls.memo), len(x.ls.wins), len(x.ls.verdicts), x.ls.gaveUp)
	x.Close()
}
