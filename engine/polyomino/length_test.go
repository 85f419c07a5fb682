package polyomino

import (
	"context"
	"slices"
	"testing"
)

// plainLength is a deliberately simple game-length minimax over the
// game's placement tables (normal play): whether the player to move wins,
// and in how many plies when the winner hurries and the loser delays. An
// exact memo of whole states (cells, pieces, side), no graph, no symmetry,
// no bounds; ok is false after limit nodes.
type plainLength struct {
	plain
	memo map[plainState][2]int
}

type plainState struct {
	occ   Bits
	avail [2]uint64
	side  int
}

func (pl *plainLength) length(occ Bits, avail [2]uint64, side int) (win bool, plies int, ok bool) {
	st := plainState{occ, avail, side}
	if r, seen := pl.memo[st]; seen {
		return r[0] == 1, r[1], true
	}
	pl.nodes++
	if pl.nodes > pl.limit {
		return false, 0, false
	}
	g := pl.g
	fastest, slowest := -1, -1
	for m := avail[side]; m != 0; m &= m - 1 {
		for _, i := range g.byPiece[trailingZeros(m)] {
			p := &g.placements[i]
			if p.mask.Intersects(occ) {
				continue
			}
			a := avail
			a[0] &^= 1 << p.piece
			a[1] &^= 1 << p.piece
			w, n, ok := pl.length(occ.Or(p.mask), a, 1-side)
			if !ok {
				return false, 0, false
			}
			if !w && (fastest < 0 || n+1 < fastest) {
				fastest = n + 1
			}
			if w {
				slowest = max(slowest, n+1)
			}
		}
	}
	switch {
	case fastest >= 0:
		win, plies = true, fastest
	case slowest >= 0:
		plies = slowest
	} // else no move: lost now, 0 plies
	r := [2]int{0, plies}
	if win {
		r[0] = 1
	}
	pl.memo[st] = r
	return win, plies, true
}

func normalPlayConfigs() []Config {
	var out []Config
	for _, c := range crossConfigs() {
		if c.EndRule != ScoreRule {
			out = append(out, c)
		}
	}
	return append(out,
		Config{Preset: "tetrominoes 5x5 explicit hands normal", Width: 5, Height: 5, Order: 4, Hands: [2][]string{{"I", "O", "T"}, {"S", "L"}}},
		Config{Preset: "pentominoes 8x8", Width: 8, Height: 8, Order: 5, Pool: true},
		Config{Preset: "hexominoes 7x7 hands", Width: 7, Height: 7, Order: 6, Seed: 2, Pieces: []string{"H01", "H04", "H07", "H10", "H13", "H16", "H19", "H22", "H25", "H28", "H31", "H34"}},
		// More than 64 cells: states of several words, the piece bound only.
		Config{Preset: "pentominoes 9x8 5 pieces", Width: 9, Height: 8, Order: 5, Pool: true, Pieces: []string{"I", "L", "P", "T", "X"}},
		Config{Preset: "tetrominoes 11x6 hands", Width: 11, Height: 6, Order: 4, Hands: [2][]string{{"I", "O", "T"}, {"S", "L"}}},
	)
}

// TestLengthMatchesPlainMinimax checks Length against plainLength on
// random positions of small games, pools and hands, with a wrong outcome
// given too (it must not prove anything then), and with the solver's
// checks of the winner's moves made at every depth or at none.
func TestLengthMatchesPlainMinimax(t *testing.T) {
	usualAbove := lengthVerifyAbove
	defer func() { lengthVerifyAbove = usualAbove }()
	rng := splitmix64(7)
	checked, long, movesChecked, slowLosses, fastest := 0, 0, 0, 0, 0
	for _, cfg := range normalPlayConfigs() {
		g, err := NewGame(cfg)
		if err != nil {
			t.Fatalf("%s: %v", cfg.Preset, err)
		}
		perCfg := 0
		for trial := 0; trial < 200 && perCfg < 25; trial++ {
			n := int(rng.next() % 4)
			if g.geo.Cells() == 64 {
				n += 5 // the 8 x 8 game's late middle game
			}
			pos := randomPosition(t, g, n, &rng)
			pl := &plainLength{plain: plain{g: g, limit: 20000}, memo: map[plainState][2]int{}}
			win, want, ok := pl.length(pos.occ, pos.avail, int(pos.toMove&1))
			if !ok {
				continue
			}
			perCfg++
			outcome, wrong := Loss, Win
			if win {
				outcome, wrong = Win, Loss
			}
			got := Length(context.Background(), pos, outcome, LengthOptions{})
			if !got.Proven || got.Plies != want {
				t.Fatalf("%s\n%s\nto move %s (%s): Length %+v, plain minimax %d plies", cfg.Preset, pos, pos.toMove, outcome, got, want)
			}
			if got.Fastest != nil {
				// A fastest win: the game lasts one ply less after it,
				// the player who made it winning.
				if !win {
					t.Fatalf("%s\n%s\na lost position has a Fastest win %s", cfg.Preset, pos, got.Fastest)
				}
				child, err := pos.Play(*got.Fastest)
				if err != nil {
					t.Fatalf("%s\n%s\nFastest %s: %v", cfg.Preset, pos, got.Fastest, err)
				}
				cw, cn, ok := pl.length(child.occ, child.avail, int(child.toMove&1))
				if !ok || cw || cn != want-1 {
					t.Fatalf("%s\n%s\nFastest %s leaves %d plies (mover to play wins: %v), want a loss in %d", cfg.Preset, pos, got.Fastest, cn, cw, want-1)
				}
				fastest++
			}
			// The same without the solver's checks of the winner's moves
			// (states not known won reach the bound), and with every
			// move checked.
			for _, above := range []int{1 << 10, 1} {
				lengthVerifyAbove = above
				got := Length(context.Background(), pos, outcome, LengthOptions{})
				lengthVerifyAbove = usualAbove
				if !got.Proven || got.Plies != want {
					t.Fatalf("%s\n%s\nto move %s (%s): Length %+v with checks above %d plies, plain minimax %d plies", cfg.Preset, pos, pos.toMove, outcome, got, above, want)
				}
			}
			if bad := Length(context.Background(), pos, wrong, LengthOptions{}); bad.Proven {
				t.Fatalf("%s\n%s\nto move %s: Length proved %d plies for the wrong outcome %s", cfg.Preset, pos, pos.toMove, bad.Plies, wrong)
			}
			if want >= 4 {
				long++
			}
			checked++
			if trial%3 == 0 {
				n, slow := checkMoveLengths(t, pos, pl)
				movesChecked += n
				if slow {
					slowLosses++
				}
			}
		}
		if perCfg < 10 {
			t.Errorf("%s: only %d positions small enough for plain minimax", cfg.Preset, perCfg)
		}
	}
	if long < 10 {
		t.Errorf("only %d positions last 4 plies or more: the check is too easy", long)
	}
	if movesChecked < 300 {
		t.Errorf("only %d moves' lengths checked", movesChecked)
	}
	if slowLosses < 3 {
		t.Errorf("Slowest checked on %d lost positions only", slowLosses)
	}
	if fastest < 50 {
		t.Errorf("only %d positions with the fastest win Length found", fastest)
	}
	t.Logf("%d positions checked against plain minimax, %d of 4 plies or more; MoveLengths on %d moves, Slowest on %d lost positions, Length's fastest win on %d", checked, long, movesChecked, slowLosses, fastest)
}

// checkMoveLengths compares MoveLengths on every move of pos (values from
// Solve) with plainLength after each, and returns the moves checked.
func checkMoveLengths(t *testing.T, pos *Position, pl *plainLength) (moves int, slowChecked bool) {
	t.Helper()
	res, err := Solve(context.Background(), pos, Options{AllMoves: true, Workers: 1, TableMB: 1})
	if err != nil || !res.Proven {
		t.Fatalf("solve: %v %+v", err, res)
	}
	got := MoveLengths(context.Background(), pos, res.Moves, LengthOptions{})
	var wins, all []Move
	var winPlies, allPlies []int
	defer func() {
		if res.Outcome == Loss && len(all) > 0 {
			// Slowest: a move whose child lasts as long as the longest.
			slowest := slices.Max(allPlies)
			x := NewLengths(context.Background(), pos, LengthOptions{})
			defer x.Close()
			i, _ := x.Slowest(all, slowest+1)
			if i < 0 || allPlies[i] != slowest {
				t.Fatalf("%s\n%s\nSlowest %d of %v (plies after each), want one with %d", pos.game.cfg.Preset, pos, i, allPlies, slowest)
			}
			if i, _ := x.Slowest(all, slowest+3); i != -1 {
				t.Fatalf("%s\n%s\nSlowest found a move lasting %d plies, none does", pos.game.cfg.Preset, pos, slowest+2)
			}
			slowChecked = slices.Min(allPlies) < slowest // a choice to get right
		}
		// FastestWin: the first winning move whose child lasts one ply
		// less than the position.
		if len(wins) == 0 {
			return
		}
		fastest := winPlies[0]
		for _, n := range winPlies {
			fastest = min(fastest, n)
		}
		i, _ := FastestWin(context.Background(), pos, wins, fastest+1, LengthOptions{})
		if i < 0 || winPlies[i] != fastest || slices.Contains(winPlies[:i], fastest) {
			t.Fatalf("%s\n%s\nFastestWin %d of %v (plies after each), want the first with %d", pos.game.cfg.Preset, pos, i, winPlies, fastest)
		}
		// One Lengths asked all three questions, its bounds learnt by
		// the first serving the others, answers as the separate calls.
		x := NewLengths(context.Background(), pos, LengthOptions{})
		defer x.Close()
		if l := x.Length(res.Outcome); !l.Proven || l.Plies != fastest+1 {
			t.Fatalf("%s\n%s\nLengths.Length %+v, want %d plies", pos.game.cfg.Preset, pos, l, fastest+1)
		}
		for k, l := range x.MoveLengths(res.Moves) {
			if l.Proven != got[k].Proven || l.Plies != got[k].Plies {
				t.Fatalf("%s\n%s\nafter %s: Lengths.MoveLengths %+v, MoveLengths %+v", pos.game.cfg.Preset, pos, res.Moves[k].Move, l, got[k])
			}
		}
		if j, _ := x.FastestWin(wins, fastest+1); j != i {
			t.Fatalf("%s\n%s\nLengths.FastestWin %d, FastestWin %d", pos.game.cfg.Preset, pos, j, i)
		}
	}()
	for i, mr := range res.Moves {
		child, err := pos.Play(mr.Move)
		if err != nil {
			t.Fatal(err)
		}
		win, want, ok := pl.length(child.occ, child.avail, int(child.toMove&1))
		if !ok {
			t.Fatalf("plain minimax gave up after %s", mr.Move)
		}
		if win == (mr.Outcome == Win) || !got[i].Proven || got[i].Plies != want {
			t.Fatalf("%s\n%s\nafter %s (%s): MoveLengths %+v, plain minimax %d plies (the mover wins: %v)", pos.game.cfg.Preset, pos, mr.Move, mr.Outcome, got[i], want, !win)
		}
		if mr.Outcome == Win {
			wins, winPlies = append(wins, mr.Move), append(winPlies, want)
		}
		all, allPlies = append(all, mr.Move), append(allPlies, want)
	}
	return len(res.Moves), slowChecked
}

// TestLengthIsConsistent checks longer games, beyond plain minimax, on
// the 8 x 8 board by the recurrence that defines the length: a won
// position lasts one ply more than its fastest winning move's child, a lost
// one one more than its slowest move's child, with each child's outcome from
// Solve and its length from Length.
func TestLengthIsConsistent(t *testing.T) {
	cfg, _ := Preset("pentominoes")
	g, err := NewGame(cfg)
	if err != nil {
		t.Fatal(err)
	}
	rng := splitmix64(11)
	long, choices := 0, 0
	for checked := 0; checked < 6; {
		pos := randomPosition(t, g, 4, &rng)
		res, err := Solve(context.Background(), pos, Options{Workers: 1, TableMB: 8})
		if err != nil || !res.Proven {
			t.Fatalf("solve: %v %+v", err, res)
		}
		got := Length(context.Background(), pos, res.Outcome, LengthOptions{})
		if !got.Proven {
			t.Fatalf("%s\n%s: no length", res.Outcome, pos)
		}
		if got.Plies == 0 {
			continue
		}
		want := -1
		var best []Move // the moves perfect play chooses among
		var bestPlies []int
		for _, m := range pos.LegalMoves() {
			child, err := pos.Play(m)
			if err != nil {
				t.Fatal(err)
			}
			cr, err := Solve(context.Background(), child, Options{Workers: 1, TableMB: 8})
			if err != nil || !cr.Proven {
				t.Fatalf("solve: %v %+v", err, cr)
			}
			wins := cr.Outcome == Loss // the move wins for its maker
			if res.Outcome == Loss && wins {
				t.Fatalf("%s\n%s: move %s wins", res.Outcome, pos, m)
			}
			if res.Outcome == Win && !wins {
				continue
			}
			cl := Length(context.Background(), child, cr.Outcome, LengthOptions{})
			if !cl.Proven {
				t.Fatalf("%s: no length", child)
			}
			best, bestPlies = append(best, m), append(bestPlies, cl.Plies)
			switch {
			case want < 0:
				want = cl.Plies + 1
			case res.Outcome == Win:
				want = min(want, cl.Plies+1)
			default:
				want = max(want, cl.Plies+1)
			}
		}
		if got.Plies != want {
			t.Fatalf("%s\n%s: Length %d plies, its moves' children give %d", res.Outcome, pos, got.Plies, want)
		}
		if f := got.Fastest; f != nil {
			i := slices.IndexFunc(best, func(m Move) bool { return m.String() == f.String() })
			if res.Outcome != Win || i < 0 || bestPlies[i] != got.Plies-1 {
				t.Fatalf("%s\n%s: Length's fastest win %s, a best move %v (plies after each %v)", res.Outcome, pos, f, i >= 0, bestPlies)
			}
		}
		// The best move searches find a move of that length.
		x := NewLengths(context.Background(), pos, LengthOptions{})
		find := x.FastestWin
		if res.Outcome == Loss {
			find = x.Slowest
		}
		if i, _ := find(best, got.Plies); i < 0 || bestPlies[i] != got.Plies-1 {
			t.Fatalf("%s\n%s: best move %d of %v (plies after each), want one with %d", res.Outcome, pos, i, bestPlies, got.Plies-1)
		}
		x.Close()
		if slices.Min(bestPlies) < slices.Max(bestPlies) {
			choices++
		}
		if got.Plies >= 5 {
			long++
		}
		checked++
	}
	if long < 3 || choices < 3 {
		t.Errorf("only %d positions of 5 plies or more, %d with moves of different lengths", long, choices)
	}
}

// pentominoes6x6 is the pentominoes preset on a 6 x 6 board.
func pentominoes6x6(t *testing.T) *Game {
	t.Helper()
	cfg, _ := Preset("pentominoes")
	cfg.Width, cfg.Height = 6, 6
	g, err := NewGame(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestLengthAgreesWithSolve: the parity of the length is the outcome's
// (odd for a win of the player to move), and a game over lasts 0 plies.
func TestLengthAgreesWithSolve(t *testing.T) {
	g := pentominoes6x6(t)
	rng := splitmix64(3)
	for range 20 {
		pos := randomPosition(t, g, 2+int(rng.next()%3), &rng)
		res, err := Solve(context.Background(), pos, Options{Workers: 1, TableMB: 1})
		if err != nil || !res.Proven {
			t.Fatalf("solve: %v %+v", err, res)
		}
		got := Length(context.Background(), pos, res.Outcome, LengthOptions{})
		if !got.Proven || (got.Plies%2 == 1) != (res.Outcome == Win) || res.Over != (got.Plies == 0) {
			t.Fatalf("%s\n%s: Length %+v", res.Outcome, pos, got)
		}
	}
}

// TestLengthNotApplicable: the score rule, the capture variant and unknown
// outcomes prove nothing.
func TestLengthNotApplicable(t *testing.T) {
	for _, cfg := range crossConfigs() {
		if cfg.EndRule != ScoreRule {
			continue
		}
		g, err := NewGame(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if got := Length(context.Background(), g.Start(), Win, LengthOptions{}); got.Proven {
			t.Errorf("%s: score rule: %+v", cfg.Preset, got)
		}
		x := NewLengths(context.Background(), g.Start(), LengthOptions{})
		if x != nil {
			t.Errorf("%s: score rule: a length search", cfg.Preset)
		}
		// A nil Lengths answers, unproven.
		moves := g.Start().LegalMoves()[:1]
		if l := x.MoveLengths([]MoveResult{{Move: moves[0], Outcome: Win, Proven: true}}); l[0].Proven {
			t.Errorf("%s: score rule: %+v", cfg.Preset, l)
		}
		if i, _ := x.FastestWin(moves, 1); i != -1 {
			t.Errorf("%s: score rule: FastestWin %d", cfg.Preset, i)
		}
		x.Close()
	}
	cfg, _ := Preset("tetrominoes")
	g, _ := NewGame(cfg)
	if got := Length(context.Background(), g.Start(), OutcomeUnknown, LengthOptions{}); got.Proven {
		t.Errorf("unknown outcome: %+v", got)
	}
}

// TestLengthBudgets: a node budget and a deadline stop Length and
// MoveLengths unproven, on a position they prove without them (the 6 x 6
// Pentominoes opening: 47 k nodes).
func TestLengthBudgets(t *testing.T) {
	g := pentominoes6x6(t)
	pos := g.Start()
	res, err := Solve(context.Background(), pos, Options{Workers: 1, AllMoves: true})
	if err != nil || !res.Proven {
		t.Fatalf("solve: %v %+v", err, res)
	}
	if full := Length(context.Background(), pos, res.Outcome, LengthOptions{}); !full.Proven || full.Nodes < 20000 {
		t.Fatalf("without a budget: %+v", full)
	}
	got := Length(context.Background(), pos, res.Outcome, LengthOptions{MaxNodes: 5000})
	if got.Proven || got.Nodes == 0 || got.Nodes > 7000 {
		t.Errorf("node budget: %+v", got)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if got := Length(ctx, pos, res.Outcome, LengthOptions{}); got.Proven {
		t.Errorf("cancelled: %+v", got)
	}
	// MoveLengths stops part way: the moves before the stop proven, none
	// after it.
	lens := MoveLengths(context.Background(), pos, res.Moves, LengthOptions{MaxNodes: 20000})
	proven, stopped := 0, false
	for i, l := range lens {
		switch {
		case l.Proven && stopped:
			t.Fatalf("move %d proven after the stop", i)
		case l.Proven:
			proven++
		default:
			stopped = true
		}
	}
	if proven == 0 || !stopped {
		t.Errorf("a 20 k node budget proved %d of %d moves", proven, len(lens))
	}
}

// TestMoveLengthsSkips: moves not proven, of a wrong value or not legal
// get no plies; the others theirs.
func TestMoveLengthsSkips(t *testing.T) {
	cfg, _ := Preset("tetrominoes")
	cfg.Width, cfg.Height = 5, 5
	g, err := NewGame(cfg)
	if err != nil {
		t.Fatal(err)
	}
	pos := g.Start()
	res, err := Solve(context.Background(), pos, Options{Workers: 1, AllMoves: true})
	if err != nil || !res.Proven || len(res.Moves) < 4 {
		t.Fatalf("solve: %v %+v", err, res)
	}
	moves := append([]MoveResult(nil), res.Moves[:4]...)
	moves[1].Proven = false
	moves[2].Outcome = map[Outcome]Outcome{Win: Loss, Loss: Win}[moves[2].Outcome] // wrong
	lens := MoveLengths(context.Background(), pos, moves, LengthOptions{})
	if !lens[0].Proven || !lens[3].Proven {
		t.Errorf("proven moves: %+v %+v", lens[0], lens[3])
	}
	if lens[1].Proven || lens[2].Proven {
		t.Errorf("unproven or wrong: %+v %+v", lens[1], lens[2])
	}
	bad, _ := ParseMove("Q:a1,a2")
	if l := MoveLengths(context.Background(), pos, []MoveResult{{Move: bad, Outcome: Win, Proven: true}}, LengthOptions{}); l[0].Proven {
		t.Errorf("a move of no piece: %+v", l[0])
	}
}

// TestSlowest: in lost positions whose moves lose at different speeds,
// Lengths.Slowest finds a move after which the game lasts longest (each
// child's length from Length, checked against plain minimax above), and
// none when asked for a longer game.
func TestSlowest(t *testing.T) {
	rng := splitmix64(13)
	ctx := context.Background()
	checked := 0
	for _, cfg := range normalPlayConfigs() {
		g, err := NewGame(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if g.geo.Cells() > 64 {
			continue // its random positions are rarely solved in 10 k nodes
		}
		// One table for the game's searches (each would otherwise make
		// its own, and its worker's near table: most of the time).
		tt := NewTable(8)
		lo := LengthOptions{Table: tt}
		perCfg := 0
		for trial := 0; trial < 200 && perCfg < 6; trial++ {
			n := int(rng.next() % 4)
			if g.geo.Cells() == 64 {
				n += 5
			}
			pos := randomPosition(t, g, n, &rng)
			res, err := Solve(ctx, pos, Options{Workers: 1, Table: tt, MaxNodes: 10_000})
			if err != nil || !res.Proven || res.Outcome != Loss || res.Over {
				continue
			}
			moves := pos.LegalMoves()
			plies := make([]int, len(moves))
			for i, m := range moves {
				child, _ := pos.Play(m)
				l := Length(ctx, child, Win, lo)
				if !l.Proven {
					t.Fatalf("%s\n%s\nafter %s: no length", cfg.Preset, pos, m)
				}
				plies[i] = l.Plies
			}
			longest := slices.Max(plies)
			if slices.Min(plies) == longest {
				continue
			}
			x := NewLengths(ctx, pos, lo)
			i, _ := x.Slowest(moves, longest+1)
			if i < 0 || plies[i] != longest {
				t.Fatalf("%s\n%s\nSlowest %d of %v (plies after each), want one with %d", cfg.Preset, pos, i, plies, longest)
			}
			if j, _ := x.Slowest(moves, longest+3); j != -1 {
				t.Fatalf("%s\n%s\nSlowest found move %d lasting %d plies, none does", cfg.Preset, pos, j, longest+2)
			}
			x.Close()
			perCfg++
			checked++
		}
		tt.Release()
	}
	if checked < 20 {
		t.Errorf("only %d lost positions with moves of different lengths", checked)
	}
	t.Logf("%d lost positions checked", checked)
}

// TestLengthChecksAgree: the solver's checks of the winner's moves only
// save work. On the suite's 8 x 8 positions Length gives the same plies
// with its usual checks, with every move of the winner checked and each
// check given up at its first look at the budget (the move then searched
// unchecked, the check tried again with a larger allowance), and on the
// four-ply positions with no check at all.
func TestLengthChecksAgree(t *testing.T) {
	above, nodes := lengthVerifyAbove, lengthVerdictNodes
	defer func() { lengthVerifyAbove, lengthVerdictNodes = above, nodes }()
	usual := func() { lengthVerifyAbove, lengthVerdictNodes = above, nodes }
	giveUp := func() { lengthVerifyAbove, lengthVerdictNodes = 1, 1 }
	never := func() { lengthVerifyAbove = 1 << 10 }
	gaveUp := 0
	for _, depth := range []int{3, 4} {
		ps, ms := suitePositions(t, depth)
		if depth == 3 {
			ps, ms = ps[:3], ms[:3]
		}
		for i, pos := range ps {
			res, err := Solve(context.Background(), pos, Options{Workers: 1, TableMB: 8})
			if err != nil || !res.Proven {
				t.Fatalf("%v: solve %v %+v", ms[i], err, res)
			}
			settings := []func(){usual, giveUp}
			if depth == 4 {
				settings = append(settings, never)
			}
			want := -1
			for j, set := range settings {
				set()
				x := NewLengths(context.Background(), pos, LengthOptions{})
				got := x.Length(res.Outcome)
				gaveUp += x.ls.gaveUp
				x.Close()
				if !got.Proven {
					t.Fatalf("%v: setting %d proved no length", ms[i], j)
				}
				if j == 0 {
					want = got.Plies
				} else if got.Plies != want {
					t.Fatalf("%v: setting %d gives %d plies, the usual checks %d", ms[i], j, got.Plies, want)
				}
			}
		}
	}
	if gaveUp == 0 {
		t.Error("no check gave up: the unchecked path was not tested")
	}
	t.Logf("%d checks given up", gaveUp)
}

// TestWinsWithinMatchesPlainMinimax checks WinsWithin against plainLength
// on random won positions of small games: true from the game's length on,
// false below it. (In a lost position the outcome it is told is wrong: a
// false answer is right whatever it rests on, and a true one proves
// nothing, as the doc says.)
func TestWinsWithinMatchesPlainMinimax(t *testing.T) {
	rng := splitmix64(11)
	checked := 0
	for _, cfg := range normalPlayConfigs() {
		g, err := NewGame(cfg)
		if err != nil {
			t.Fatalf("%s: %v", cfg.Preset, err)
		}
		perCfg := 0
		for trial := 0; trial < 300 && perCfg < 15; trial++ {
			n := int(rng.next() % 4)
			if g.geo.Cells() == 64 {
				n += 5
			}
			pos := randomPosition(t, g, n, &rng)
			pl := &plainLength{plain: plain{g: g, limit: 20000}, memo: map[plainState][2]int{}}
			win, want, ok := pl.length(pos.occ, pos.avail, int(pos.toMove&1))
			if !ok || !win {
				continue
			}
			perCfg++
			for d := max(0, want-4); d <= want+2; d++ {
				x := NewLengths(context.Background(), pos, LengthOptions{})
				got, done, _ := x.WinsWithin(d)
				x.Close()
				if !done || got != (d >= want) {
					t.Fatalf("%s\n%s\nto move %s (wins in %d plies): WinsWithin(%d) = %v (done %v)", cfg.Preset, pos, pos.toMove, want, d, got, done)
				}
				checked++
			}
		}
	}
	if checked < 300 {
		t.Fatalf("%d bounds checked", checked)
	}
	t.Logf("%d bounds checked", checked)
}
