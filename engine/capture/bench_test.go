package capture

import (
	"context"
	"testing"
)

// benchGame is a game of the capture preset played by the engine against
// itself (seeded openings): the benchmarks cut it at various turns.
var benchGame = []string{
	"F:a1,b1,b2,c2,b3", "L:a2,a3,a4,a5,b5", "Y:c3,b4,c4,c5,c6", "I:d1,d2,d3,d4,d5",
	"~L T:b5,b6,a7,b7,c7", "P:e1,f1,e2,f2,e3", "~Y Z:b4,c4,c5,c6,d6", "X:f3,e4,f4,g4,f5",
	"L:g6,d7,e7,f7,g7", "~P W:e1,f1,f2,g2,g3", "~I U:d3,e3,d4,d5,e5", "I:a2,a3,a4,a5,a6",
}

func benchPosition(b *testing.B, turns int) *Position {
	pos, err := NewPosition(DefaultConfig(), nil, nil, nil, "", benchGame[:turns])
	if err != nil {
		b.Fatal(err)
	}
	return pos
}

// BenchmarkLegalTurns lists the 440 turns of the position after 8 turns
// (second carries two markers).
func BenchmarkLegalTurns(b *testing.B) {
	pos := benchPosition(b, 8)
	buf := make([]turn, 0, 1024)
	n := 0
	for b.Loop() {
		n = len(pos.st.appendTurns(pos.game, buf[:0], 0))
	}
	b.ReportMetric(float64(n), "turns")
}

// BenchmarkSolveLate proves the position after 9 turns of benchGame (a
// loss for the player to move, 7 legal turns).
func BenchmarkSolveLate(b *testing.B) {
	benchSolve(b, benchPosition(b, 9))
}

// BenchmarkLengthLate finds how long the game lasts from the position of
// BenchmarkSolveLate (compare the two in one run): on a table of its own,
// and after the proof on the proof's table, as the service runs it (the
// proof and the length search timed together; nodes/op are the length
// search's).
func BenchmarkLengthLate(b *testing.B) {
	pos := benchPosition(b, 9)
	for _, afterProof := range []bool{false, true} {
		name := "own"
		if afterProof {
			name = "afterProof"
		}
		b.Run(name, func(b *testing.B) { benchLength(b, pos, afterProof) })
	}
}

// benchLength times Length of pos on a table of its own, or (afterProof)
// after a proof on the table it then reads, the proof timed too; it
// reports the plies and the length search's nodes a run.
func benchLength(b *testing.B, pos *Position, afterProof bool) {
	var nodes int64
	plies := 0
	for b.Loop() {
		opts := Options{TableMB: 16}
		if afterProof {
			opts.Table = NewTable(pos.game, 16)
			if res, err := Solve(context.Background(), pos, opts); err != nil || !res.Proven {
				b.Fatalf("not proven: %v %+v", err, res)
			}
		}
		l := Length(context.Background(), pos, opts)
		if !l.Known {
			b.Fatalf("length not found: %+v", l)
		}
		nodes, plies = nodes+l.Nodes, l.Plies
	}
	b.ReportMetric(float64(plies), "plies")
	b.ReportMetric(float64(nodes)/float64(b.N), "nodes/op")
}

// BenchmarkSolveTetrominoes4x4 solves the 4 x 4 tetromino game from the
// empty board.
func BenchmarkSolveTetrominoes4x4(b *testing.B) {
	pos, err := NewPosition(Config{Width: 4, Height: 4, Order: 4}, nil, nil, nil, "", nil)
	if err != nil {
		b.Fatal(err)
	}
	benchSolve(b, pos)
}

func benchSolve(b *testing.B, pos *Position) {
	var nodes int64
	for b.Loop() {
		res, err := Solve(context.Background(), pos, Options{TableMB: 16})
		if err != nil || !res.Proven {
			b.Fatalf("not proven: %v %+v", err, res)
		}
		nodes += res.Nodes
	}
	b.ReportMetric(float64(nodes)/float64(b.N), "nodes/op")
	b.ReportMetric(float64(nodes)/b.Elapsed().Seconds(), "nodes/s")
}

// BenchmarkBestTurnMiddle is the computer player's turn after 4 turns
// (1058 legal turns): exact search over its budget, then the heuristic.
func BenchmarkBestTurnMiddle(b *testing.B) {
	pos := benchPosition(b, 4)
	for b.Loop() {
		if _, _, err := BestTurn(context.Background(), pos, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGame16x16Hexominoes: the 16 x 16 hexomino capture game, built
// (validated and its tables made, as every request did before the game
// cache) and found built (NewGameContext, as a request does now).
func BenchmarkGame16x16Hexominoes(b *testing.B) {
	cfg := Config{Width: 16, Height: 16, Order: 6}
	b.Run("build", func(b *testing.B) {
		for b.Loop() {
			g, err := validate(cfg)
			if err != nil {
				b.Fatal(err)
			}
			g.build()
		}
	})
	b.Run("cached", func(b *testing.B) {
		for b.Loop() {
			if _, err := NewGameContext(context.Background(), cfg); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkLengthSmallBoards: the length search from three small empty
// boards, on a table of its own (own) and on the proof's (afterProof, as
// BenchmarkLengthLate; the proof timed too); nodes/op are the length
// search's.
func BenchmarkLengthSmallBoards(b *testing.B) {
	for _, c := range []struct {
		name string
		cfg  Config
	}{
		{"5x5-pentominoes", Config{Width: 5, Height: 5, Order: 5}},
		{"5x5-tetrominoes", Config{Width: 5, Height: 5, Order: 4}},
		{"6x4-tetrominoes", Config{Width: 6, Height: 4, Order: 4}},
	} {
		pos, err := NewPosition(c.cfg, nil, nil, nil, "", nil)
		if err != nil {
			b.Fatal(err)
		}
		for _, afterProof := range []bool{false, true} {
			name := c.name + "/own"
			if afterProof {
				name = c.name + "/afterProof"
			}
			b.Run(name, func(b *testing.B) { benchLength(b, pos, afterProof) })
		}
	}
}
