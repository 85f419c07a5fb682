package polyomino

import (
	"bufio"
	"context"
	"flag"
	"os"
	"strings"
	"testing"
	"time"
)

var (
	updateSuite = flag.Bool("update-suite", false, "regenerate testdata/suite8x8.txt")
	runSuite    = flag.String("suite", "", "solve the 8x8 suite positions of this depth (3, 4 or all) and print times")
)

// The suite: random positions 3 and 4 plies deep from the empty 8 x 8
// pentomino board, drawn once with a fixed seed and kept in testdata.
const suiteFile = "testdata/suite8x8.txt"

type suitePos struct {
	depth int
	moves []string
}

func loadSuite(t testing.TB) []suitePos {
	f, err := os.Open(suiteFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []suitePos
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		moves := strings.Fields(line)
		out = append(out, suitePos{depth: len(moves), moves: moves})
	}
	return out
}

// suitePositions are the pentomino positions of the suite of that depth,
// each with its moves.
func suitePositions(t testing.TB, depth int) ([]*Position, [][]string) {
	cfg, err := Preset("pentominoes")
	if err != nil {
		t.Fatal(err)
	}
	var ps []*Position
	var ms [][]string
	for _, sp := range loadSuite(t) {
		if sp.depth != depth {
			continue
		}
		pos, err := NewPosition(cfg, nil, sp.moves, DefaultToMove)
		if err != nil {
			t.Fatal(err)
		}
		ps, ms = append(ps, pos), append(ms, sp.moves)
	}
	return ps, ms
}

func TestSuiteFile(t *testing.T) {
	cfg, _ := Preset("pentominoes")
	if *updateSuite {
		g, _ := NewGame(cfg)
		rng := splitmix64(2026)
		var sb strings.Builder
		sb.WriteString("# Fixed suite of 8x8 pentomino positions: random legal moves from the empty board\n# (seed 2026), one position per line as its moves. Regenerate: go test -run TestSuiteFile -update-suite\n")
		for _, depth := range []int{3, 3, 3, 3, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4} {
			pos := g.Start()
			var ms []string
			for i := 0; i < depth; i++ {
				moves := pos.LegalMoves()
				m := moves[rng.next()%uint64(len(moves))]
				ms = append(ms, m.String())
				pos, _ = pos.Play(m)
			}
			sb.WriteString(strings.Join(ms, " ") + "\n")
		}
		if err := os.WriteFile(suiteFile, []byte(sb.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, sp := range loadSuite(t) {
		if _, err := NewPosition(cfg, nil, sp.moves, DefaultToMove); err != nil {
			t.Errorf("%v: %v", sp.moves, err)
		}
	}
}

// TestSuiteSolve solves the suite when asked: go test -run TestSuiteSolve -suite 3
func TestSuiteSolve(t *testing.T) {
	if *runSuite == "" {
		t.Skip("use -suite 3|4|all")
	}
	cfg, _ := Preset("pentominoes")
	tt := NewTable(512)
	for i, sp := range loadSuite(t) {
		if *runSuite != "all" && *runSuite != string(rune('0'+sp.depth)) {
			continue
		}
		pos, _ := NewPosition(cfg, nil, sp.moves, DefaultToMove)
		tt.Clear()
		t0 := time.Now()
		res, err := Solve(context.Background(), pos, Options{FirstWin: true, Table: tt})
		if err != nil {
			t.Fatal(err)
		}
		el := time.Since(t0)
		t.Logf("#%d depth %d %-40s %-7s proven %v nodes %12d  %8.3fs  %5.1f Mn/s  best %d moves", i+1, sp.depth, strings.Join(sp.moves, " "), res.Outcome, res.Proven, res.Nodes, el.Seconds(), float64(res.Nodes)/el.Seconds()/1e6, len(res.BestMoves))
	}
}
