package teeko

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestNewPosition(t *testing.T) {
	for _, tc := range []struct {
		name   string
		rules  Rules
		board  string
		toMove Color
		want   Color // side to move when valid
		err    error
		msg    string // part of the message
	}{
		{name: "empty", board: ".........................", want: Black},
		{name: "red to drop", board: "............b............", want: Red},
		{name: "red given", board: "............b............", toMove: Red, want: Red},
		{name: "contradicting side", board: "............b............", toMove: Black,
			err: ErrImpossiblePosition, msg: "with 1 black and 0 red pieces red is to drop, not black"},
		{name: "red first", board: "............r............",
			err: ErrImpossiblePosition, msg: "must have as many pieces as red or one more"},
		{name: "five black", board: "bbbbb....rrrr............", toMove: Red,
			err: ErrImpossiblePosition, msg: "black has 5 pieces: at most 4"},
		{name: "side required", board: "b.b.b.b.r.r.r.r..........",
			err: ErrToMoveRequired, msg: "give the side to move"},
		{name: "move phase", board: "b.b.b.b.r.r.r.r..........", toMove: Red, want: Red},
		{name: "both configurations", board: "bbbb.rrrr................", toMove: Black,
			err: ErrImpossiblePosition, msg: "both black and red"},
		{name: "mover has won", board: "bbbb.r.r.r.r.............", toMove: Black,
			err: ErrImpossiblePosition, msg: "black is to move but already has a winning configuration"},
		{name: "black has won", board: "bbbb.r.r.r.r.............", toMove: Red, want: Red},
		// A finished game needs no side to move: the winner made the
		// last move. The impossible board is said so first.
		{name: "black has won, side implied", board: "bbbb.r.r.r.r.............", want: Red},
		{name: "red has won, side implied", board: "b.b.b.b...rrrr...........", want: Black},
		{name: "both configurations, no side", board: "bbbb.rrrr................",
			err: ErrImpossiblePosition, msg: "both black and red"},
		{name: "black won by drop", board: "bbbb.r.r.r...............", want: Red},
		{name: "red won by drop", board: "b.b.b.b...rrrr...........", toMove: Black, want: Black},
		// The corners of the 5 x 5 block are a configuration under
		// advanced rules only.
		{name: "advanced corners", rules: Advanced, board: "b...b..r.r.....r.r..b...b", toMove: Black,
			err: ErrImpossiblePosition, msg: "already has a winning configuration"},
		{name: "standard corners", rules: Standard, board: "b...b..r.r.....r.r..b...b", toMove: Black, want: Black},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := NewPosition(tc.rules, mustBoard(t, tc.board), tc.toMove)
			if tc.err != nil {
				if !errors.Is(err, tc.err) || !strings.Contains(err.Error(), tc.msg) {
					t.Fatalf("error %v, want %v containing %q", err, tc.err, tc.msg)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if p.ToMove() != tc.want || p.Board().String() != tc.board {
				t.Errorf("got %v, want %s to move", p, tc.want)
			}
		})
	}
}

func TestPlay(t *testing.T) {
	drop := mustPosition(t, Standard, "............b............", NoColor)
	slide := mustPosition(t, Standard, "b.b.b.b.r.r.r.r..........", Black)
	won := mustPosition(t, Standard, "bbbb.r.r.r...............", NoColor)
	for _, tc := range []struct {
		pos  Position
		move string
		want string // board after, or the error message
		err  bool
	}{
		{pos: drop, move: "7", want: "......r.....b............"},
		{pos: drop, move: "13", err: true, want: "square 13 is occupied"},
		{pos: drop, move: "12-7", err: true, want: "12-7 is a slide, but this is the drop phase (1 of 8 pieces down): expected a drop such as 13"},
		{pos: slide, move: "7-12", want: "b.b.b...r.rbr.r.........."},
		{pos: slide, move: "13", err: true, want: "13 is a drop, but all 8 pieces are down: expected a slide such as 14-9"},
		{pos: slide, move: "9-14", err: true, want: "square 9 holds no black piece"},
		{pos: slide, move: "1-13", err: true, want: "square 13 is not adjacent to square 1"},
		{pos: slide, move: "7-9", err: true, want: "square 9 is not adjacent to square 7"},
		{pos: slide, move: "7-11", err: true, want: "square 11 is occupied"},
		{pos: won, move: "20", err: true, want: "the game is over: black has won"},
	} {
		m, err := ParseMove(tc.move)
		if err != nil {
			t.Fatal(err)
		}
		q, err := tc.pos.Play(m)
		if tc.err {
			if !errors.Is(err, ErrIllegalMove) || err.Error() != tc.want {
				t.Errorf("%v: play %s: error %v, want %q", tc.pos, tc.move, err, tc.want)
			}
			continue
		}
		if err != nil || q.Board().String() != tc.want || q.ToMove() != tc.pos.ToMove().Other() {
			t.Errorf("%v: play %s: %v, %v; want %s", tc.pos, tc.move, q, err, tc.want)
		}
	}
}

func TestLegalMovesAndGame(t *testing.T) {
	p := Start(Standard)
	if n := len(p.LegalMoves()); n != 25 {
		t.Errorf("empty board: %d legal drops, want 25", n)
	}
	q, err := ParseGame(Standard, []string{"13", "7", "12", "8", "18", "19", "1", "25", "1-2"})
	if err != nil {
		t.Fatal(err)
	}
	if q.Phase() != MovePhase || q.ToMove() != Red || q.Board().String() != ".b....rr...bb....br.....r" {
		t.Fatalf("after the drops and 1-2: %v", q)
	}
	if n := len(q.LegalMoves()); n != 15 { // 4 from 7, 4 from 8, 5 from 19, 2 from 25
		t.Errorf("%v: %d legal slides, want 15", q, n)
	}
	for _, tc := range []struct {
		moves []string
		err   error
		msg   string
	}{
		{[]string{"13", "7", "x"}, ErrBadNotation,
			`move 3: "x" is not a move: expected a square such as 13 or a slide such as 14-9`},
		{[]string{"13", "13"}, ErrIllegalMove, "move 2 (13): square 13 is occupied"},
		// Black completes the row 11-14 with the 7th ply.
		{[]string{"13", "7", "12", "8", "14", "9", "11", "6"}, ErrIllegalMove,
			"move 8 (6): the game is over: black has won"},
	} {
		_, err := ParseGame(Standard, tc.moves)
		if !errors.Is(err, tc.err) || err.Error() != tc.msg {
			t.Errorf("ParseGame(%v): %v, want %q", tc.moves, err, tc.msg)
		}
	}
}

func TestPlayLegal(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	for i := 0; i < 2000; i++ {
		p := randomPosition(rng, AllRules()[i%2], i%(DropPlies+1))
		for _, m := range p.LegalMoves() {
			q, err := p.Play(m)
			if err != nil || q != p.playLegal(m) {
				t.Fatalf("%v: %v gives %v, %v by Play and %v by playLegal", p, m, q, err, p.playLegal(m))
			}
		}
	}
}
