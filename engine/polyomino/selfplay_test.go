package polyomino

import (
	"context"
	"flag"
	"math/bits"
	"testing"
	"time"
)

var selfPlayGames = flag.Int("selfplay", 0, "play this many self-play games per pairing (sides swapped) and print win rates")

// selfPlayOnly restricts TestSelfPlay to one pairing, named preset/opponent
// (e.g. hexominoes/greedy), to measure it alone while tuning the player.
var selfPlayOnly = flag.String("selfplay-only", "", "play only this pairing, preset/opponent (e.g. hexominoes/greedy)")

// selfPlaySeed is the seed of the first deal of a hexomino pairing (game
// pair i is dealt with seed selfPlaySeed+i), to measure on deals other than
// those the player was tuned on.
var selfPlaySeed = flag.Uint64("selfplay-seed", 0, "deal hexomino game pair i with seed selfplay-seed+i")

// A player picks a move for the player to move (who has one).
type player func(pos *Position, rng *splitmix64) Move

func randomPlayer(pos *Position, rng *splitmix64) Move {
	moves := pos.LegalMoves()
	return moves[rng.next()%uint64(len(moves))]
}

// greedyPlayer is the one-ply greedy mobility player: the move that
// maximises his own moves minus the opponent's after it (in a common pool
// the two are equal, so: the fewest replies), ties broken at random.
func greedyPlayer(pos *Position, rng *splitmix64) Move {
	h := newHeuristic(pos)
	g := &h.g
	buf := make([]uint64, g.words) // a row of a lazy graph (the hexomino opening)
	best, bestScore, ties := -1, 0, 0
	for i, word := range h.L {
		word &= g.own[h.side][i]
		for ; word != 0; word &= word - 1 {
			v := i*64 + bits.TrailingZeros64(word)
			row := g.rowOf(v, buf)
			_, mine := andNotCountOwn(h.L, row, g.own[h.side])
			_, theirs := andNotCountOwn(h.L, row, g.own[1-h.side])
			score := mine - theirs
			if pos.game.pool {
				score = -theirs
			}
			switch {
			case best < 0 || score > bestScore:
				best, bestScore, ties = v, score, 1
			case score == bestScore:
				ties++
				if rng.next()%uint64(ties) == 0 {
					best = v
				}
			}
		}
	}
	return pos.game.move(g.place[best])
}

func enginePlayer(nodes int64, tt *Table) player {
	return func(pos *Position, rng *splitmix64) Move {
		m, _, err := BestMove(context.Background(), pos, Options{MaxNodes: nodes, Workers: 1, Table: tt})
		if err != nil {
			panic(err)
		}
		return m
	}
}

// playGame returns the result for the first player: 1 win, 0.5 draw, 0 loss.
func playGame(t testing.TB, g *Game, first, second player, rng *splitmix64) float64 {
	pos := g.Start()
	players := [2]player{first, second}
	for !pos.Over() {
		if pos.MustPass() {
			q := pos.clone()
			q.toMove = pos.toMove.Opponent()
			pos = q
			continue
		}
		m := players[pos.toMove](pos, rng)
		next, err := pos.Play(m)
		if err != nil {
			t.Fatalf("%s: %v", m, err)
		}
		pos = next
	}
	if !g.score {
		if pos.toMove == First {
			return 0
		}
		return 1
	}
	switch d := pos.score[0] - pos.score[1]; {
	case d > 0:
		return 1
	case d < 0:
		return 0
	}
	return 0.5
}

// TestSelfPlay measures the engine's player against the random mover and
// the greedy mobility player: go test -run TestSelfPlay -selfplay 100 -v
// (100 games with each side, so 200 per pairing). -selfplay-only plays one
// pairing, -selfplay-seed deals other hexomino hands.
func TestSelfPlay(t *testing.T) {
	n := *selfPlayGames
	if n == 0 {
		// Without the flag, one game pair per pairing: every player moves
		// legally to the end (the greedy player once indexed the rows of a
		// lazy graph and crashed on the hexomino opening).
		n = 1
	}
	for _, preset := range []string{"pentominoes", "hexominoes"} {
		g, _ := NewGame(mustPreset(t, preset))
		for _, opp := range []struct {
			name string
			p    player
		}{{"random", randomPlayer}, {"greedy", greedyPlayer}} {
			if *selfPlayOnly != "" && *selfPlayOnly != preset+"/"+opp.name {
				continue
			}
			tt := NewTable(32)
			engine := enginePlayer(200000, tt)
			t0 := time.Now()
			score := 0.0
			for i := 0; i < n; i++ {
				// Each game pair on its own: its own random stream and an
				// empty table, so that two versions of a player meet the
				// same opponent's moves where they play alike, deal by
				// deal, whatever the games before.
				seed := *selfPlaySeed + uint64(i)
				rng := splitmix64(1 + seed)
				tt.Clear()
				g2 := g
				if preset == "hexominoes" { // a fresh deal each game pair
					cfg := mustPreset(t, preset)
					cfg.Seed = seed
					g2, _ = NewGame(cfg)
				}
				score += playGame(t, g2, engine, opp.p, &rng)
				score += 1 - playGame(t, g2, opp.p, engine, &rng)
			}
			t.Logf("%s: engine vs %s: %.1f / %d = %.1f%% (%.0fs)", preset, opp.name, score, 2*n, 100*score/float64(2*n), time.Since(t0).Seconds())
		}
	}
}
