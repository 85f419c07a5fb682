package capture

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// randomSetup places up to pieces random pieces with random markers (none,
// first's or second's) and picks the player to move.
func randomSetup(rng *rand.Rand, g *Game, pieces int) *Position {
	s := g.emptyState()
	for range pieces {
		var cands []int32
		for p := s.pool; p != 0; p &= p - 1 {
			for _, pi := range g.byPiece[p.lowest()] {
				if !g.placements[pi].mask.intersects(s.occ) {
					cands = append(cands, pi)
				}
			}
		}
		if len(cands) == 0 {
			break
		}
		pi := cands[rng.IntN(len(cands))]
		s.put(g, pi)
		if m := rng.IntN(3); m > 0 {
			s.mark(g, g.placements[pi].piece, m-1)
		}
	}
	s.setToMove(g, rng.IntN(2))
	p := &Position{game: g, st: s}
	p.history = []histEntry{entryOf(&p.st)}
	return p
}

// exactCase is a position for the comparison with plain minimax: a start
// position and turns played from it (the history matters).
type exactCase struct {
	name  string
	start *Position
	turns []string
}

func (c exactCase) position(t *testing.T) *Position {
	pos := c.start
	for _, s := range c.turns {
		var err error
		if pos, err = pos.PlayString(s); err != nil {
			t.Fatalf("%s: %s: %v", c.name, s, err)
		}
	}
	return pos
}

func (c exactCase) reference(t *testing.T, rg *refGame) *refPos {
	rp := refFrom(t, rg, c.start)
	for _, s := range c.turns {
		var ok bool
		if rp, ok = rp.playString(s); !ok {
			t.Fatalf("%s: the reference rejects %s", c.name, s)
		}
	}
	return rp
}

// exactCases builds the positions: random boards and markers on small
// boards, positions a few random turns later, and positions on and around
// the four-piece cycle of TestRepetition (a board where the repetition
// rule comes into play), with histories that already hold repetitions.
func exactCases(t *testing.T) map[string][]exactCase {
	rng := rand.New(rand.NewPCG(2026, 8))
	out := map[string][]exactCase{}
	configs := []struct {
		cfg   Config
		n     int
		turns int
	}{
		{Config{Width: 4, Height: 4, Order: 4}, 30, 3},
		{Config{Width: 5, Height: 4, Order: 4}, 30, 3},
		{Config{Width: 4, Height: 4, Order: 4, Pieces: []string{"I", "L", "T"}, Blocked: []string{"b2"}}, 15, 2},
		{Config{Width: 5, Height: 4, Order: 5, Pieces: []string{"I", "L", "P", "U", "T"}}, 30, 3},
		{Config{Width: 4, Height: 6, Order: 5, Pieces: []string{"F", "I", "P", "Y", "L"}}, 20, 4},
	}
	for _, c := range configs {
		g, err := NewGame(c.cfg)
		if err != nil {
			t.Fatal(err)
		}
		key := fmt.Sprint(c.cfg)
		for i := range c.n {
			start := randomSetup(rng, g, 1+rng.IntN(4))
			ec := exactCase{name: fmt.Sprintf("%v #%d", c.cfg, i), start: start}
			pos := start
			for range rng.IntN(c.turns + 1) {
				ts := pos.LegalTurns()
				if len(ts) == 0 {
					break
				}
				tt := ts[rng.IntN(len(ts))]
				ec.turns = append(ec.turns, tt.String())
				pos, _ = pos.Play(tt)
			}
			out[key] = append(out[key], ec)
		}
	}
	// The cycle: columns a..d of the preset's cycle board, with F I P Y and
	// sometimes another piece; cells outside the cycle blocked at random.
	base := []string{"FF..", "IFF.", "IF..", "IPP.", "IPP.", "IP..", "...."}
	ring := map[[2]int]bool{}
	for _, tr := range cycleTurns {
		turn, _ := ParseTurn(tr)
		for _, c := range turn.Cells {
			ring[[2]int{c.X, c.Y}] = true
		}
	}
	for i := 0; len(out["cycle"]) < 40; i++ {
		pieces := []string{"F", "I", "P", "Y"}
		if extra := rng.IntN(4); extra < 2 {
			pieces = append(pieces, []string{"L", "U"}[extra])
		}
		rows := slices.Clone(base)
		for y := range rows {
			r := []byte(rows[y])
			for x := range r {
				if r[x] == '.' && !ring[[2]int{x, y}] && rng.IntN(2) == 0 {
					r[x] = '#'
				}
			}
			rows[y] = string(r)
		}
		start, err := NewPosition(Config{Width: 4, Height: 7, Order: 5, Pieces: pieces}, rows, cycleMarkers, nil, "first", nil)
		if err != nil {
			t.Fatal(err)
		}
		// Follow the cycle for a while (possibly round it more than once),
		// then maybe deviate at random.
		ec := exactCase{name: fmt.Sprintf("cycle #%d %v", i, pieces), start: start}
		pos := start
		for k := range rng.IntN(9) {
			if pos.Over() {
				break
			}
			next, err := pos.PlayString(cycleTurns[k%4])
			if err != nil {
				break
			}
			ec.turns = append(ec.turns, cycleTurns[k%4])
			pos = next
		}
		if rng.IntN(3) == 0 && !pos.Over() {
			ts := pos.LegalTurns()
			tt := ts[rng.IntN(len(ts))]
			ec.turns = append(ec.turns, tt.String())
		}
		out["cycle"] = append(out["cycle"], ec)
	}
	// Positions whose value the history changes: on these boards, after
	// going round the cycle once and then k-4 more turns, the player to
	// move draws by completing the third occurrence where, without the
	// history, he would lose or win (found by a search over such boards
	// with the reference minimax). Each comes with the positions one and
	// two turns earlier.
	for i, h := range []struct {
		rows   []string
		pieces []string
		k      int
	}{
		{[]string{"FF..", "IFF.", "IF..", "IPP.", "IPP.", "IP.#", ".##."}, []string{"F", "I", "P", "Y", "U"}, 6},
		{[]string{"FF..", "IFF.", "IF..", "IPP.", "IPP.", "IP.#", "#.##"}, []string{"F", "I", "P", "Y", "U"}, 7},
		{[]string{"FF.#.", "IFF..", "IF..#", "IPP.#", "IPP.#", "IP...", "##.#."}, []string{"F", "I", "P", "Y", "U"}, 7},
		{[]string{"FF##", "IFF.", "IF..", "IPP.", "IPP.", "IP.#", "...."}, []string{"F", "I", "P", "Y", "N"}, 7},
		{[]string{"FF..", "IFF.", "IF..", "IPP.", "IPP.", "IP##", "#.#."}, []string{"F", "I", "P", "Y", "L", "W"}, 7},
	} {
		cfg := Config{Width: len(h.rows[0]), Height: 7, Order: 5, Pieces: h.pieces}
		start, err := NewPosition(cfg, h.rows, cycleMarkers, nil, "first", nil)
		if err != nil {
			t.Fatal(err)
		}
		for back := 0; back <= 2; back++ {
			turns := append(slices.Clone(cycleTurns), cycleTurns[:h.k-4-back]...)
			out["history"] = append(out["history"], exactCase{name: fmt.Sprintf("history #%d-%d", i, back), start: start, turns: turns})
		}
	}
	return out
}

// TestExactAgainstMinimax checks Solve's values (the position's and every
// turn's) and the legal turns against the plain rules and minimax of
// ref_test.go on 185 positions.
func TestExactAgainstMinimax(t *testing.T) {
	total, draws, repeats := 0, 0, 0
	for family, cases := range exactCases(t) {
		began := time.Now()
		var engine time.Duration
		for _, c := range cases {
			pos := c.position(t)
			rg := newRefGame(t, pos.game.cfg)
			rp := c.reference(t, rg)
			total++

			var want []string
			if rp.hist[rp.key()] < 3 {
				for _, tr := range rp.turns() {
					want = append(want, tr.String())
				}
			}
			got := turnStrings(pos.LegalTurns())
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Fatalf("%s: legal turns\n got %v\nwant %v\n%s", c.name, got, want, pos)
			}

			nodes := 0
			v := rp.value(&nodes)
			t0 := time.Now()
			res, err := Solve(t.Context(), pos, Options{AllMoves: true})
			engine += time.Since(t0)
			if err != nil || !res.Proven {
				t.Fatalf("%s: not proven: %v %+v", c.name, err, res)
			}
			if res.Outcome != outcomeOf(int8(v)) {
				t.Fatalf("%s: Solve says %s, minimax %d\n%s\nturns %v", c.name, res.Outcome, v, pos, c.turns)
			}
			if v == 0 {
				draws++
			}
			if rp.hist[rp.key()] > 1 {
				repeats++
			}
			// Every turn's value, from the reference after that turn.
			for _, tr := range res.Turns {
				child, ok := rp.playString(tr.Turn.String())
				if !ok {
					t.Fatalf("%s: reference rejects %s", c.name, tr.Turn)
				}
				n := 0
				if cv := -child.value(&n); tr.Outcome != outcomeOf(int8(cv)) {
					t.Fatalf("%s: turn %s: Solve says %s, minimax %d\n%s\nturns %v", c.name, tr.Turn, tr.Outcome, cv, pos, c.turns)
				}
			}
			for _, bt := range res.BestTurns {
				if !slices.Contains(turnStrings(pos.LegalTurns()), bt.String()) {
					t.Fatalf("%s: best turn %s is not legal", c.name, bt)
				}
			}
		}
		t.Logf("%s: %d positions in %v (Solve %v)", family, len(cases), time.Since(began), engine)
	}
	t.Logf("%d positions, %d drawn, %d repeated", total, draws, repeats)
	if total < 100 || repeats == 0 {
		t.Errorf("%d positions, %d with a repeated position: the cases do not cover what they should", total, repeats)
	}
}

// TestTableValuesHoldWithoutHistory checks the rule that keeps the table
// sound with the repetition rule: a value the search stores must not
// depend on the history before the position, so it must be the plain
// minimax value of the position as the start of a game. The positions
// are those of the exact cases, the cycle's (histories full of
// repetitions) included.
func TestTableValuesHoldWithoutHistory(t *testing.T) {
	checked := 0
	for _, cases := range exactCases(t) {
		for _, c := range cases {
			pos := c.position(t)
			rg := newRefGame(t, pos.game.cfg)
			type entry struct {
				st  state
				val int8
			}
			var stored []entry
			_, err := solve(t.Context(), pos, Options{}, func(st *state, val int8) {
				if len(stored) < 100000 {
					stored = append(stored, entry{*st, val})
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range stored {
				val := e.val
				fresh := &Position{game: pos.game, st: e.st}
				fresh.history = []histEntry{entryOf(&fresh.st)}
				n := 0
				if v := refFrom(t, rg, fresh).value(&n); int8(v) != val {
					t.Fatalf("%s: the table holds %d for\n%s\nbut its value without history is %d", c.name, val, fresh, v)
				}
				checked++
			}
		}
	}
	t.Logf("%d table entries checked", checked)
}

// TestLengthAgainstMinimax checks Length (the game's length, the perfect
// turns and every turn's length) against the plain minimax over lengths
// of ref_test.go, on the positions of TestExactAgainstMinimax, the
// repetition cycle and histories that change values included.
func TestLengthAgainstMinimax(t *testing.T) {
	total, wins, losses, long, atOnce := 0, 0, 0, 0, 0
	for family, cases := range exactCases(t) {
		for _, c := range cases {
			pos := c.position(t)
			rg := newRefGame(t, pos.game.cfg)
			rp := c.reference(t, rg)
			nodes := 0
			v, n := rp.length(&nodes)
			l := Length(t.Context(), pos, Options{AllMoves: true})
			// After a proof on a shared table (as the service runs it),
			// the same answer.
			table := NewTable(pos.game, 1)
			if _, err := Solve(t.Context(), pos, Options{AllMoves: true, Table: table}); err != nil {
				t.Fatal(err)
			}
			shared := Length(t.Context(), pos, Options{AllMoves: true, Table: table})
			if shared.Known != l.Known || shared.Plies != l.Plies || shared.Outcome != l.Outcome ||
				!slices.Equal(turnStrings(shared.Perfect), turnStrings(l.Perfect)) || fmt.Sprint(shared.Turns) != fmt.Sprint(l.Turns) {
				t.Fatalf("%s/%s: Length after Solve on its table %+v, on a table of its own %+v", family, c.name, shared, l)
			}
			total++
			switch v {
			case 0:
				if l.Known || !l.Drawn {
					t.Fatalf("%s/%s: drawn, Length says %+v\n%s", family, c.name, l, pos)
				}
				continue
			case 1:
				wins++
			case -1:
				losses++
			}
			long = max(long, n)
			if !l.Known || l.Outcome != outcomeOf(int8(v)) || l.Plies != n {
				t.Fatalf("%s/%s: minimax %d in %d plies, Length %s in %d (known %v)\n%s\nturns %v", family, c.name, v, n, l.Outcome, l.Plies, l.Known, pos, c.turns)
			}
			res, _ := Solve(t.Context(), pos, Options{})
			if res.Outcome != l.Outcome {
				t.Fatalf("%s/%s: Solve says %s, Length %s", family, c.name, res.Outcome, l.Outcome)
			}
			// Solve's wins at once are the perfect turns of a win in one,
			// and there are none otherwise.
			if n == 1 {
				atOnce++
			}
			got, want := turnStrings(res.AtOnce), []string{}
			if n == 1 && v == 1 {
				want = turnStrings(l.Perfect)
			}
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Fatalf("%s/%s: %d in %d plies, Solve's wins at once %v, want %v", family, c.name, v, n, got, want)
			}
			// Every turn: its value and length from the reference after
			// it; the perfect turns are those that last as long as the
			// game.
			byTurn := map[string]TurnLength{}
			for _, tl := range l.Turns {
				byTurn[tl.Turn.String()] = tl
			}
			perfect := turnStrings(l.Perfect)
			for _, tr := range rp.turns() {
				child := rp.play(tr)
				cn := 0
				cv, cp := child.length(&cn)
				tl, ok := byTurn[tr.String()]
				if cv == 0 {
					if ok {
						t.Fatalf("%s/%s: turn %s draws, Length gives %+v", family, c.name, tr, tl)
					}
					continue
				}
				if !ok || tl.Outcome != outcomeOf(int8(-cv)) || tl.Plies != cp {
					t.Fatalf("%s/%s: turn %s: minimax %d then %d plies, Length %+v (found %v)", family, c.name, tr, -cv, cp, tl, ok)
				}
				if want := -cv == v && cp+1 == n; slices.Contains(perfect, tr.String()) != want {
					t.Fatalf("%s/%s: turn %s (%d then %d plies) perfect %v, want %v", family, c.name, tr, -cv, cp, !want, want)
				}
			}
		}
	}
	t.Logf("%d positions: %d won, %d lost (%d in one ply), the longest %d plies", total, wins, losses, atOnce, long)
	if wins == 0 || losses == 0 || long < 3 || atOnce == 0 {
		t.Errorf("%d won, %d lost (%d in one ply), longest %d plies: the cases do not cover what they should", wins, losses, atOnce, long)
	}
}

// TestBestTurnPlaysFastestWin: in the won positions of the exact cases,
// the player's turn (within its default node budget) is a fastest win:
// the game lasts one ply less after it, lost for the opponent. (Solve
// deepens its horizon, so the first win it proves is a fastest one.)
func TestBestTurnPlaysFastestWin(t *testing.T) {
	checked := 0
	for family, cases := range exactCases(t) {
		for _, c := range cases {
			pos := c.position(t)
			l := Length(t.Context(), pos, Options{})
			if !l.Known || l.Outcome != Win {
				continue
			}
			turn, res, err := BestTurn(t.Context(), pos, Options{})
			if err != nil || !res.Proven {
				continue // beyond the player's budget: nothing to check
			}
			child, err := pos.Play(turn)
			if err != nil {
				t.Fatalf("%s/%s: %s: %v", family, c.name, turn, err)
			}
			after := Length(t.Context(), child, Options{})
			if child.Over() {
				after = LengthResult{Known: true, Outcome: Loss}
			}
			if !after.Known || after.Outcome != Loss || after.Plies != l.Plies-1 {
				t.Fatalf("%s/%s: won in %d plies, BestTurn %s leaves %+v\n%s", family, c.name, l.Plies, turn, after, pos)
			}
			checked++
		}
	}
	if checked < 20 {
		t.Fatalf("%d won positions checked", checked)
	}
	t.Logf("%d won positions: BestTurn plays a fastest win", checked)
}
