package service_test

import (
	"bufio"
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gamesolver/gamesolver/service"
	"github.com/gamesolver/gamesolver/service/cache"
)

// BenchmarkSmallSearches: the eight 4-ply positions of the engine's suite
// (engine/polyomino/testdata/suite8x8.txt), one synchronous analysis
// each, in turn, on a fresh searcher (a server just started: nothing
// cached, no table in its pool yet) with the server's defaults (2 s
// budget, one search goroutine); one op = the eight. It reports the
// fastest and slowest request.
func BenchmarkSmallSearches(b *testing.B) {
	f, err := os.Open("../engine/polyomino/testdata/suite8x8.txt")
	if err != nil {
		b.Fatal(err)
	}
	var positions [][]string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if moves := strings.Fields(sc.Text()); len(moves) == 4 && !strings.HasPrefix(moves[0], "#") {
			positions = append(positions, moves)
		}
	}
	f.Close()
	if len(positions) != 8 {
		b.Fatalf("%d 4-ply positions", len(positions))
	}
	fresh := func() *service.Searcher {
		return &service.Searcher{
			Loader:       cache.NewLoader(cache.NewMemory(256<<20, time.Hour), time.Hour),
			Slots:        service.NewSlots(1, 8, 2*time.Second, nil),
			Assembly:     service.NewAssembly(1, nil),
			Budgets:      service.Budgets{Default: 2 * time.Second, Max: 30 * time.Second},
			Workers:      1,
			MinCacheTime: 20 * time.Millisecond,
		}
	}
	// What a server loads before it is ready (the opening book) and the
	// game's compilation, shared by every searcher, come before any timing.
	if _, err := service.NewPolyomino(fresh()).Analyze(context.Background(), service.PolyominoQuery{Game: "pentominoes", Moves: positions[0][:3]}); err != nil {
		b.Fatal(err)
	}
	var fastest, slowest time.Duration
	for b.Loop() {
		p := service.NewPolyomino(fresh())
		fastest, slowest = time.Hour, 0
		for _, moves := range positions {
			start := time.Now()
			// The server's cap as budget: a loaded machine's search is
			// slower, never unproven (these take 7-663 ms).
			a, err := p.Analyze(context.Background(), service.PolyominoQuery{Game: "pentominoes", Moves: moves, BudgetMs: 30000})
			d := time.Since(start)
			if err != nil || !a.Proven {
				b.Fatalf("%v: %v (proven %v)", moves, err, a.Proven)
			}
			fastest, slowest = min(fastest, d), max(slowest, d)
			if testing.Verbose() {
				b.Logf("%v: %v, %s, plies %v, %d nodes", moves, d.Round(time.Millisecond), a.Outcome, a.Plies != nil, a.Nodes)
			}
		}
	}
	b.ReportMetric(float64(fastest.Microseconds())/1000, "fastest-ms")
	b.ReportMetric(float64(slowest.Microseconds())/1000, "slowest-ms")
}
