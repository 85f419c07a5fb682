package polyomino

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"
)

// benchMoves is a 2-ply position (a win for the player to move, about 5.3
// million nodes): a steady mix of all the search's work.
const benchMoves = "X:d4,c5,d5,e5,d6 I:a1,a2,a3,a4,a5"

func benchSolve(b *testing.B, moves []string, workers int) {
	cfg, _ := Preset("pentominoes")
	pos, err := NewPosition(cfg, nil, moves, DefaultToMove)
	if err != nil {
		b.Fatal(err)
	}
	tt := NewTable(512)
	var nodes, examined, settled int64
	b.ResetTimer()
	for range b.N {
		b.StopTimer() // clearing 512 MB is not search
		tt.Clear()
		b.StartTimer()
		res, err := Solve(context.Background(), pos, Options{FirstWin: true, Workers: workers, Table: tt})
		if err != nil || !res.Proven {
			b.Fatalf("%v %+v", err, res.Outcome)
		}
		nodes += res.Nodes
		examined += res.Examined
		settled += res.Settled
	}
	b.ReportMetric(float64(nodes)/b.Elapsed().Seconds(), "nodes/s")
	b.ReportMetric(float64(examined)/b.Elapsed().Seconds(), "examined/s")
	b.ReportMetric(float64(settled)/b.Elapsed().Seconds(), "settled/s")
	b.ReportMetric(float64(nodes)/float64(b.N), "nodes/op")
}

// go test -run '^$' -bench NodesPerSecond -benchtime 5x
func BenchmarkNodesPerSecond1Core(b *testing.B)  { benchSolve(b, strings.Fields(benchMoves), 1) }
func BenchmarkNodesPerSecond2Cores(b *testing.B) { benchSolve(b, strings.Fields(benchMoves), 2) }

// BenchmarkSuite3Ply / 4Ply solve every position of testdata/suite8x8.txt
// of that depth (one op = the whole set).
func BenchmarkSuite3Ply(b *testing.B) { benchSuite(b, 3) }
func BenchmarkSuite4Ply(b *testing.B) { benchSuite(b, 4) }

func benchSuite(b *testing.B, depth int) {
	tt := NewTable(256)
	benchOverSuite(b, depth, func(pos *Position, moves []string) int64 {
		b.StopTimer()
		tt.Clear()
		b.StartTimer()
		res, err := Solve(context.Background(), pos, Options{FirstWin: true, Table: tt})
		if err != nil || !res.Proven {
			b.Fatalf("%v: %v", moves, err)
		}
		return res.Nodes
	})
}

// BenchmarkLength3Ply / 4Ply time Length (how many plies the game lasts)
// on every position of the suite of that depth, the outcome solved first
// outside the timer (one op = the whole set); 2Ply on the first two moves
// of the first suite2Ply positions of three plies (seconds each).
func BenchmarkLength2Ply(b *testing.B) { benchLength(b, 2) }
func BenchmarkLength3Ply(b *testing.B) { benchLength(b, 3) }
func BenchmarkLength4Ply(b *testing.B) { benchLength(b, 4) }

func benchLength(b *testing.B, depth int) {
	benchOverSuite(b, depth, func(pos *Position, moves []string) int64 {
		b.StopTimer()
		// As the service does: the proof's table serves the length search.
		tt := NewTable(64)
		defer tt.Release()
		res, err := Solve(context.Background(), pos, Options{Table: tt})
		if err != nil || !res.Proven {
			b.Fatalf("%v: %v", moves, err)
		}
		b.StartTimer()
		l := Length(context.Background(), pos, res.Outcome, LengthOptions{Table: tt})
		if !l.Proven {
			b.Fatalf("%v: no length", moves)
		}
		return l.Nodes
	})
}

// BenchmarkLengthAfterProof times what a proven request asks after its
// proof, on the four-ply suite: with all_moves (moves) the position's
// length and every move's; without (fastest) the position's length and a
// move of perfect play (a fastest win, or in a lost position a slowest
// loss). Each by separate searches (separate) or
// by one Lengths whose bounds from the first question serve the second
// (shared, the service's way).
func BenchmarkLengthAfterProof(b *testing.B) {
	for _, all := range []bool{true, false} {
		for _, shared := range []bool{false, true} {
			name := map[bool]string{true: "moves", false: "fastest"}[all] + "/" + map[bool]string{true: "shared", false: "separate"}[shared]
			b.Run(name, func(b *testing.B) {
				benchOverSuite(b, 4, func(pos *Position, moves []string) int64 {
					return lengthAfterProof(b, pos, moves, all, shared)
				})
			})
		}
	}
}

func lengthAfterProof(b *testing.B, pos *Position, moves []string, all, shared bool) int64 {
	b.StopTimer()
	tt := NewTable(64)
	defer tt.Release()
	res, err := Solve(context.Background(), pos, Options{Table: tt, AllMoves: all})
	if err != nil || !res.Proven {
		b.Fatalf("%v: %v", moves, err)
	}
	b.StartTimer()
	ctx, opts := context.Background(), LengthOptions{Table: tt}
	x := NewLengths(ctx, pos, opts)
	defer x.Close()
	l := x.Length(res.Outcome)
	if !l.Proven {
		b.Fatalf("%v: no length", moves)
	}
	if !shared {
		x.Close()
		x = NewLengths(ctx, pos, opts)
	}
	nodes := l.Nodes
	if all {
		for _, ml := range x.MoveLengths(res.Moves) {
			if !ml.Proven {
				b.Fatalf("%v: a move without its length", moves)
			}
			nodes += ml.Nodes
		}
		return nodes
	}
	find := x.FastestWin
	if res.Outcome == Loss {
		find = x.Slowest // every move is a best one
	}
	i, n := find(res.BestMoves, l.Plies)
	if i < 0 && len(res.BestMoves) > 0 {
		b.Fatalf("%v: no best move of the position's length", moves)
	}
	return nodes + n
}

// suite2Ply is how many positions of two plies benchOverSuite takes.
const suite2Ply = 3

// benchOverSuite runs f on each suite position of the depth (one op = the
// whole set) and reports the nodes f returns.
func benchOverSuite(b *testing.B, depth int, f func(pos *Position, moves []string) int64) {
	cfg, _ := Preset("pentominoes")
	var nodes int64
	for range b.N {
		two := 0
		for _, sp := range loadSuite(b) {
			moves := sp.moves
			switch {
			case depth == 2 && sp.depth == 3 && two < suite2Ply:
				moves = moves[:2]
				two++
			case sp.depth != depth:
				continue
			}
			pos, _ := NewPosition(cfg, nil, moves, DefaultToMove)
			nodes += f(pos, moves)
		}
	}
	b.ReportMetric(float64(nodes)/b.Elapsed().Seconds(), "nodes/s")
	b.ReportMetric(float64(nodes)/float64(b.N), "nodes/op")
}

// BenchmarkHeuristicMove times one decision of the heuristic player on the
// hexomino start position.
func BenchmarkHeuristicMove(b *testing.B) {
	g, _ := NewGame(mustPreset(b, "hexominoes"))
	pos := g.Start()
	for range b.N {
		if _, ok := heuristicMove(context.Background(), pos, nil, nil); !ok {
			b.Fatal("no move")
		}
	}
}

// BenchmarkShortBudget times an answer with a budget of 1 ms on a hexomino
// position of about 7,000 placements (TestShortBudgetSkipsTheGraph): the
// heuristic's grace of 5 ms past the deadline and what comes before it.
func BenchmarkShortBudget(b *testing.B) {
	pos := hexominoMidgame(b, 3, 5)
	for range b.N {
		ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
		if res, err := Solve(ctx, pos, Options{Workers: 1, TableMB: 1}); err != nil || len(res.BestMoves) != 1 {
			b.Fatal(err)
		}
		cancel()
	}
}

// BenchmarkFirstWinSaving solves each won position of the 3-ply suite
// with FirstWin (stop at the first winning move, as a job's unit does)
// and without (every winning move), each on a cleared table, and reports
// the smallest and largest ratio of their nodes (one op = the whole set).
func BenchmarkFirstWinSaving(b *testing.B) {
	ps, ms := suitePositions(b, 3)
	tt := NewTable(256)
	defer tt.Release()
	solve := func(pos *Position, moves []string, first bool) Result {
		tt.Clear()
		res, err := Solve(context.Background(), pos, Options{FirstWin: first, Workers: 1, Table: tt})
		if err != nil || !res.Proven {
			b.Fatalf("%v: %v", moves, err)
		}
		return res
	}
	lo, hi, won := 0.0, 0.0, 0
	for b.Loop() {
		lo, hi, won = 0, 0, 0
		for i, pos := range ps {
			first := solve(pos, ms[i], true)
			if first.Outcome != Win {
				continue
			}
			all := solve(pos, ms[i], false)
			r := float64(all.Nodes) / float64(max(first.Nodes, 1))
			b.Logf("%v: %d nodes with FirstWin, %d without (%.1fx)", ms[i], first.Nodes, all.Nodes, r)
			if won == 0 || r < lo {
				lo = r
			}
			hi = max(hi, r)
			won++
		}
	}
	b.ReportMetric(lo, "min-ratio")
	b.ReportMetric(hi, "max-ratio")
	b.ReportMetric(float64(won), "won")
}

// BenchmarkShortBudgets answers random hexomino positions 2 to 20 plies
// into the deals of seeds 1 to 3 (hexominoMidgame) with a budget of 1, 10
// or 50 ms, one op = every position once, and reports, of each position's
// slowest answer over the ops, the smallest and largest (-benchtime 3x:
// the worst of three per position).
func BenchmarkShortBudgets(b *testing.B) {
	var ps []*Position
	for seed := uint64(1); seed <= 3; seed++ {
		for _, plies := range []int{2, 5, 10, 15, 20} {
			ps = append(ps, hexominoMidgame(b, seed, plies))
		}
	}
	for _, budget := range []time.Duration{time.Millisecond, 10 * time.Millisecond, 50 * time.Millisecond} {
		b.Run(budget.String(), func(b *testing.B) {
			worst := make([]time.Duration, len(ps))
			for b.Loop() {
				for i, pos := range ps {
					start := time.Now()
					ctx, cancel := context.WithTimeout(context.Background(), budget)
					res, err := Solve(ctx, pos, Options{Workers: 1, TableMB: 1})
					cancel()
					if err != nil || len(res.BestMoves) == 0 && pos.LegalMoveCount() > 0 {
						b.Fatal(err)
					}
					worst[i] = max(worst[i], time.Since(start))
				}
			}
			b.ReportMetric(float64(slices.Min(worst).Microseconds())/1000, "fastest-ms")
			b.ReportMetric(float64(slices.Max(worst).Microseconds())/1000, "slowest-ms")
		})
	}
}
