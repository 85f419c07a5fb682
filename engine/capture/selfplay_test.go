package capture

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"sort"
	"testing"
	"time"
)

// go test ./engine/capture/ -run TestSelfPlay -selfplay 200 -timeout 2h plays the
// matches of BENCHMARKS.md ("Capture variant") on the capture preset.
var (
	selfPlayGames = flag.Int("selfplay", 0, "games per match for TestSelfPlay (0: skip)")
	selfPlayScale = flag.Int64("selfplayscale", 1, "multiply the engine's node budgets in TestSelfPlay")
)

// player chooses a turn; rng breaks ties and varies the openings.
type player struct {
	name   string
	choose func(pos *Position, rng *rand.Rand) Turn
}

// randomPlayer picks a placement uniformly, with the removals it needs.
var randomPlayer = player{"random", func(pos *Position, rng *rand.Rand) Turn {
	ts := pos.Placements()
	return ts[rng.IntN(len(ts))]
}}

// greedyPlayer captures as many pieces as it can (pieces not yet carrying
// its marker), then keeps the most mobility: its placements minus the
// opponent's after the turn. Placements with the removals they need.
var greedyPlayer = player{"greedy", func(pos *Position, rng *rand.Rand) Turn {
	g := pos.game
	ts := pos.st.appendPlacements(g, nil)
	me := pos.st.toMove
	best, bestCap, bestMob, ties := ts[0], -1, 0, 0
	for _, t := range ts {
		child := pos.st
		captured := child.play(g, t)
		caps := (captured &^ pos.st.marks[me]).count()
		theirs, mine := g.mobility(&child)
		mob := mine - theirs
		if theirs == 0 {
			caps, mob = 1<<20, 0 // the opponent is stuck
		}
		switch {
		case caps > bestCap || caps == bestCap && mob > bestMob:
			best, bestCap, bestMob, ties = t, caps, mob, 1
		case caps == bestCap && mob == bestMob:
			ties++
			if rng.IntN(ties) == 0 {
				best = t
			}
		}
	}
	return g.toTurn(best)
}}

// enginePlayer is BestTurn with the given node budgets for the exact
// search and the heuristic player (0: BestTurn's defaults). Its first two
// turns (the opening) are picked at random among the best three by one
// ply, so that self-play games differ.
func enginePlayer(nodes, heuristic int64) player {
	name := "engine"
	if nodes > 0 || heuristic > 0 {
		name = fmt.Sprintf("engine(%dk+%dk nodes)", nodes/1000, heuristic/1000)
	}
	return player{name, func(pos *Position, rng *rand.Rand) Turn {
		if pos.TurnsPlayed() < 4 {
			return pos.game.toTurn(openingChoice(pos, rng, 3))
		}
		t, _, err := BestTurn(context.Background(), pos, Options{MaxNodes: nodes, HeuristicNodes: heuristic, TableMB: 8})
		if err != nil {
			panic(err)
		}
		return t
	}}
}

// openingChoice picks at random among the k best turns by one ply.
func openingChoice(pos *Position, rng *rand.Rand, k int) turn {
	g := pos.game
	ts := pos.st.appendPlacements(g, nil)
	scores := make([]int, len(ts))
	for i, t := range ts {
		scores[i] = g.scoreTurn(&pos.st, t)
	}
	idx := make([]int, len(ts))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return scores[idx[a]] > scores[idx[b]] })
	return ts[idx[rng.IntN(min(k, len(idx)))]]
}

// maxGameTurns ends a game that has not finished (it never happened).
const maxGameTurns = 400

// playGame returns the winner ("first", "second", "" for a draw, "?" when
// cut off) and the number of turns.
func playGame(t testing.TB, g *Game, a, b player, rng *rand.Rand) (string, int) {
	pos := g.Start()
	for !pos.Over() {
		if pos.TurnsPlayed() >= maxGameTurns {
			return "?", pos.TurnsPlayed()
		}
		p := a
		if pos.ToMove() == "second" {
			p = b
		}
		next, err := pos.Play(p.choose(pos, rng))
		if err != nil {
			t.Fatalf("%s: %v\n%s", p.name, err, pos)
		}
		pos = next
	}
	return pos.Winner(), pos.TurnsPlayed()
}

type matchStats struct {
	games, aWins, bWins, draws, cut int
	firstWins, secondWins           int
	turns                           int
	elapsed                         time.Duration
}

// match plays n games between a and b, a moving first in the even games.
func match(t testing.TB, a, b player, n int, seed uint64) matchStats {
	g, err := NewGame(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 1))
	var st matchStats
	began := time.Now()
	for i := range n {
		first, second := a, b
		if i%2 == 1 {
			first, second = b, a
		}
		w, turns := playGame(t, g, first, second, rng)
		st.games++
		st.turns += turns
		switch w {
		case "first":
			st.firstWins++
		case "second":
			st.secondWins++
		case "":
			st.draws++
		default:
			st.cut++
		}
		if w == "first" && i%2 == 0 || w == "second" && i%2 == 1 {
			st.aWins++
		} else if w == "first" || w == "second" {
			st.bWins++
		}
	}
	st.elapsed = time.Since(began)
	return st
}

func (s matchStats) String() string {
	return fmt.Sprintf("%d games: %d-%d (draws %d, cut %d); first player won %d, second %d; %.1f turns a game; %v",
		s.games, s.aWins, s.bWins, s.draws, s.cut, s.firstWins, s.secondWins, float64(s.turns)/float64(s.games), s.elapsed.Round(time.Second))
}

func TestSelfPlay(t *testing.T) {
	n := *selfPlayGames
	if n == 0 {
		t.Skip("pass -selfplay N to play the matches")
	}
	engine := enginePlayer(0, 0)
	if k := *selfPlayScale; k > 1 {
		engine = enginePlayer(k*playerNodes, k*heuristicNodes)
	}
	for _, m := range []struct{ a, b player }{
		{engine, engine},
		{engine, randomPlayer},
		{engine, greedyPlayer},
		{greedyPlayer, randomPlayer},
		{greedyPlayer, greedyPlayer},
		{randomPlayer, randomPlayer},
	} {
		st := match(t, m.a, m.b, n, 1)
		t.Logf("%s vs %s: %s", m.a.name, m.b.name, st)
	}
}

var smallBoards = flag.Bool("smallboards", false, "TestSmallBoards: solve the capture game on small empty boards")

// TestSmallBoards solves the game from the empty board on small boards
// (go test ./engine/capture/ -run TestSmallBoards -smallboards), a minute
// at most each.
func TestSmallBoards(t *testing.T) {
	if !*smallBoards {
		t.Skip("pass -smallboards")
	}
	for _, cfg := range []Config{
		{Width: 4, Height: 4, Order: 4},
		{Width: 5, Height: 4, Order: 4},
		{Width: 5, Height: 5, Order: 4},
		{Width: 6, Height: 5, Order: 4},
		{Width: 5, Height: 5, Order: 5},
		{Width: 6, Height: 5, Order: 5},
	} {
		pos, err := NewPosition(cfg, nil, nil, nil, "", nil)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		res, _ := Solve(ctx, pos, Options{FirstWin: true})
		cancel()
		best := ""
		if res.Outcome == Win {
			best = res.BestTurns[0].String()
		}
		t.Logf("%dx%d, %d pieces of order %d: first player %s (proven %v), %d nodes, %v %s",
			cfg.Width, cfg.Height, len(pos.game.pieces), cfg.Order, res.Outcome, res.Proven, res.Nodes, res.Elapsed.Round(time.Millisecond), best)
		if res.Proven {
			// How long the game lasts, within another minute.
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			l := Length(ctx, pos, Options{})
			cancel()
			t.Logf("  length: %s in %d plies (known %v), perfect %v, %d nodes, %v",
				l.Outcome, l.Plies, l.Known, turnStrings(l.Perfect), l.Nodes, l.Elapsed.Round(time.Millisecond))
		}
	}
}
