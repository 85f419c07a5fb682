package polyomino

import (
	"context"
	"errors"
	"math/bits"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gamesolver/gamesolver/engine/internal/buildcache"
)

func mustPreset(t testing.TB, name string) Config {
	t.Helper()
	cfg, err := Preset(name)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func TestNotationRoundTrip(t *testing.T) {
	tests := []struct{ in, want string }{
		{"L:a1,a2,a3,a4,b4", "L:a1,a2,a3,a4,b4"},
		{"l:b4,a4,a3,a2,a1", "L:a1,a2,a3,a4,b4"},
		{" X : d5, c4,d3 ,e4,d4 ", "X:d3,c4,d4,e4,d5"},
		{"H17:p16,o16,n16,m16,l16,k16", "H17:k16,l16,m16,n16,o16,p16"},
	}
	for _, tt := range tests {
		m, err := ParseMove(tt.in)
		if err != nil {
			t.Errorf("ParseMove(%q): %v", tt.in, err)
			continue
		}
		if got := m.String(); got != tt.want {
			t.Errorf("ParseMove(%q) = %s, want %s", tt.in, got, tt.want)
		}
		if m2, err := ParseMove(m.String()); err != nil || m2.String() != tt.want {
			t.Errorf("round trip of %s: %v %v", tt.want, m2, err)
		}
	}
	// Every legal move of the empty board prints and parses back to itself.
	pos, _ := NewPosition(mustPreset(t, "pentominoes"), nil, nil, DefaultToMove)
	for _, m := range pos.LegalMoves() {
		back, err := ParseMove(m.String())
		if err != nil || back.String() != m.String() {
			t.Fatalf("%s: %v %v", m, back, err)
		}
		if _, err := pos.Play(back); err != nil {
			t.Fatalf("%s: %v", m, err)
		}
	}
}

func TestParseMoveErrors(t *testing.T) {
	tests := []struct {
		in   string
		want error
		msg  string
	}{
		{"", ErrBadNotation, "expected <piece>:<cells>"},
		{"L", ErrBadNotation, "expected <piece>:<cells>"},
		{"L:", ErrBadNotation, "cell"},
		{"L:a1,a1,a2,a3,a4", ErrBadNotation, "twice"},
		{"L:a0,a1", ErrBadNotation, "row number"},
		{"L-:a1", ErrBadNotation, "letters and digits"},
		{"L:q1,a1", ErrOffBoard, "off every board"},
		{"~Y Z:b3,c3,c4,c5,d5", ErrUnsupported, "capture"},
	}
	for _, tt := range tests {
		_, err := ParseMove(tt.in)
		if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("ParseMove(%q) error = %v, want %v containing %q", tt.in, err, tt.want, tt.msg)
		}
	}
}

func TestPositionErrors(t *testing.T) {
	pent := mustPreset(t, "pentominoes")
	empty := strings.Split(strings.Repeat("........\n", 8), "\n")[:8]
	with := func(rows ...string) []string { return append(rows, empty[len(rows):]...) }
	hex := mustPreset(t, "hexominoes")
	tests := []struct {
		name  string
		cfg   Config
		board []string
		moves []string
		want  error
		msg   string
	}{
		{"row count", pent, empty[:7], nil, ErrBadBoard, "board has 7 rows, expected 8"},
		{"row length", pent, with("........", "........", "........."), nil, ErrBadBoard, "board row 3 has 9 cells (characters), expected 8"},
		{"piece size", pent, with("LLLL...."), nil, ErrBadBoard, "has 4 cells"},
		{"one cell", pent, with("....Q..."), nil, ErrBadBoard, "piece labelled 'Q' has 1 cell (e1), expected 5"},
		{"two pieces, one label", pent, with("LLLL.LLL", "L....LL."), nil, ErrBadBoard, "piece labelled 'L' has 10 cells (a1,b1,c1,d1,f1,g1,h1,a2,f2,g2), expected 5 (each placed piece needs a character of its own)"},
		{"disconnected", pent, with("LLLL.L.."), nil, ErrBadBoard, "not connected"},
		{"used twice", pent, with("LLLL....", "L.......", "MMMM....", "M......."), nil, ErrPieceUsed, "piece L is placed twice"},
		{"not in game", Config{Width: 8, Height: 8, Order: 5, Pool: true, Pieces: []string{"F", "I"}}, with("LLLL....", "L......."), nil, ErrBadBoard, "not in this game"},
		{"control char", pent, with("...\t...."), nil, ErrBadBoard, "control"},
		{"off board", pent, nil, []string{"I:k3,k4,k5,k6,k7"}, ErrOffBoard, "move 1: cell k3 is off the 8x8 board"},
		{"already placed", pent, nil, []string{"L:a1,a2,a3,a4,b4", "L:c1,c2,c3,c4,d4"}, ErrPieceUsed, "move 2: piece L is already placed"},
		{"overlap", pent, nil, []string{"L:a1,a2,a3,a4,b4", "I:a1,b1,c1,d1,e1"}, ErrIllegalMove, "move 2: cell a1 is covered"},
		{"shape", pent, nil, []string{"L:a1,a2,a3,a4,b3"}, ErrIllegalMove, "do not form piece L"},
		{"cell count", pent, nil, []string{"L:a1,a2,a3,a4"}, ErrIllegalMove, "has 5 cells"},
		{"unknown piece", pent, nil, []string{"Q:a1,a2,a3,a4,a5"}, ErrUnknownPiece, "no piece \"Q\""},
		{"bad syntax", pent, nil, []string{"L a1"}, ErrBadNotation, "move 1"},
		{"hexomino hand", hex, nil, []string{"H01:a1,b1,c1,d1,e1,f1", "H01:a3,b3,c3,d3,e3,f3"}, nil, "move"},
	}
	for _, tt := range tests {
		_, err := NewPosition(tt.cfg, tt.board, tt.moves, DefaultToMove)
		if err == nil || (tt.want != nil && !errors.Is(err, tt.want)) || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("%s: error = %v, want %v containing %q", tt.name, err, tt.want, tt.msg)
		}
		// A move's fault is the moves' (FieldError), a board's none.
		if fe := (*FieldError)(nil); errors.As(err, &fe) != (tt.moves != nil) || tt.moves != nil && fe.Field != "Moves" {
			t.Errorf("%s: error %v of field %+v", tt.name, err, fe)
		}
	}
}

func TestConfigErrors(t *testing.T) {
	base := mustPreset(t, "pentominoes")
	mod := func(f func(*Config)) Config { c := base; f(&c); return c }
	// field: the FieldError's, which a caller reads to blame its input.
	tests := []struct {
		cfg        Config
		msg, field string
	}{
		{mod(func(c *Config) { c.Width = 17 }), "board size 17 x 8 (width must be 1..16)", "Width"},
		{mod(func(c *Config) { c.Height = 0 }), "board size 8 x 0 (height must be 1..16)", "Height"},
		{mod(func(c *Config) { c.Width, c.Height = -1, 17 }), "(width and height must be 1..16)", "Width"},
		{mod(func(c *Config) { c.Order = 7 }), "order 7", "Order"},
		{mod(func(c *Config) { c.Pieces = []string{"L", "Q"} }), "no piece \"Q\"", "Pieces"},
		{mod(func(c *Config) { c.Pieces = []string{"L", "l"} }), "listed twice", "Pieces"},
		{mod(func(c *Config) { c.Blocked = []string{"i9"} }), "cell i9 is off the 8x8 board", "Blocked"},
		{mod(func(c *Config) { c.EndRule = "sudden" }), "end rule", "EndRule"},
		{mod(func(c *Config) { c.Variant = "x" }), "variant", "Variant"},
		{mod(func(c *Config) { c.Pool = false; c.Hands = [2][]string{{"L"}, {"L"}} }), "in both hands", "Hands"},
		{mod(func(c *Config) { c.Hands = [2][]string{{"L"}, nil} }), "hands given for a common-pool game", "Hands"},
		{mod(func(c *Config) {
			c.Pool = false
			c.Hands = [2][]string{{"F"}, {"I"}}
			c.Neutral = []string{"F:b1,c1,a2,b2,b3"}
		}), "neutral piece F is also in a hand", "Neutral"},
		{mod(func(c *Config) { c.Blocked = []string{"a1", "a1"} }), "listed twice", "Blocked"},
	}
	for _, tt := range tests {
		err := tt.cfg.Validate()
		if !errors.Is(err, ErrBadConfig) || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("%+v: error = %v, want %q", tt.cfg, err, tt.msg)
		}
		if fe := (*FieldError)(nil); !errors.As(err, &fe) || fe.Field != tt.field {
			t.Errorf("%+v: error %v of field %+v, want %s", tt.cfg, err, fe, tt.field)
		}
	}
	if _, err := Preset("chess"); !errors.Is(err, ErrUnknownPreset) {
		t.Errorf("Preset(chess) = %v", err)
	}
}

func TestPresets(t *testing.T) {
	for _, p := range Presets() {
		g, err := NewGame(p.Config)
		if err != nil {
			t.Fatalf("%s: %v", p.Name, err)
		}
		t.Logf("%s: %d placements, first hand %v", p.Name, g.Placements(), g.Hand(First))
	}
	g, _ := NewGame(mustPreset(t, "hexominoes"))
	start := g.Start()
	if n := len(g.Hand(First)); n != 17 || len(g.Hand(Second)) != 17 {
		t.Errorf("hexomino hands %d and %d pieces, want 17 each", n, len(g.Hand(Second)))
	}
	placed := start.Placed()
	if len(placed) != 1 || placed[0].Owner != Neutral {
		t.Fatalf("hexomino start: %+v", placed)
	}
	for _, c := range placed[0].Cells {
		if c.X < 4 || c.X > 10 || c.Y < 4 || c.Y > 10 {
			t.Errorf("neutral piece cell %s is near the edge", c)
		}
	}
	// The deal is a function of the seed.
	cfg := mustPreset(t, "hexominoes")
	cfg.Seed = 1
	g1, _ := NewGame(cfg)
	if strings.Join(g1.Hand(First), " ") == strings.Join(g.Hand(First), " ") {
		t.Errorf("seeds 0 and 1 deal the same hand")
	}
	cfg.Seed = 0
	g0, _ := NewGame(cfg)
	if strings.Join(g0.Hand(First), " ") != strings.Join(g.Hand(First), " ") {
		t.Errorf("seed 0 deals differently twice")
	}
	// Capture: positions work, analysis is not supported yet.
	cap, err := NewPosition(mustPreset(t, "capture"), nil, []string{"X:d3,c4,d4,e4,d5"}, DefaultToMove)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Solve(context.Background(), cap, Options{}); !errors.Is(err, ErrUnsupported) {
		t.Errorf("capture analysis: %v", err)
	}
}

// TestBoardRoundTrip reads back the board rows of random positions.
func TestBoardRoundTrip(t *testing.T) {
	rng := splitmix64(9)
	for _, cfg := range append(crossConfigs(), mustPreset(t, "hexominoes"), mustPreset(t, "pentominoes")) {
		g, _ := NewGame(cfg)
		for i := 0; i < 10; i++ {
			pos := randomPosition(t, g, int(rng.next()%8), &rng)
			back, err := g.NewPosition(pos.Board(), nil, pos.ToMove())
			if err != nil {
				t.Fatalf("%s\n%s\n%v", cfg.Preset, pos, err)
			}
			if back.occ != pos.occ || back.avail != pos.avail || back.LegalMoveCount() != pos.LegalMoveCount() {
				t.Fatalf("%s: board round trip differs\n%s\n%s", cfg.Preset, pos, back)
			}
			if !g.pool && back.score != pos.score {
				t.Fatalf("%s: scores %v, want %v", cfg.Preset, back.score, pos.score)
			}
		}
	}
}

func TestFrameTransforms(t *testing.T) {
	rng := splitmix64(3)
	naive := func(x uint64, f func(c Cell) Cell) uint64 {
		var out uint64
		for i := 0; i < 64; i++ {
			if x>>uint(i)&1 != 0 {
				c := f(Cell{i % 8, i / 8})
				out |= 1 << uint(c.Y*8+c.X)
			}
		}
		return out
	}
	for i := 0; i < 200; i++ {
		//lint:ignore SA4000 two draws of the generator: a sparser word
		x := rng.next() & rng.next()
		if got, want := flipH(x), naive(x, func(c Cell) Cell { return Cell{7 - c.X, c.Y} }); got != want {
			t.Fatalf("flipH(%x) = %x, want %x", x, got, want)
		}
		if got, want := flipV(x), naive(x, func(c Cell) Cell { return Cell{c.X, 7 - c.Y} }); got != want {
			t.Fatalf("flipV(%x) = %x, want %x", x, got, want)
		}
		if got, want := transpose(x), naive(x, func(c Cell) Cell { return Cell{c.Y, c.X} }); got != want {
			t.Fatalf("transpose(%x) = %x, want %x", x, got, want)
		}
		if x != 0 {
			o := toOrigin8(x)
			if o&0xff == 0 || o&0x0101010101010101 == 0 || bits.OnesCount64(o) != bits.OnesCount64(x) {
				t.Fatalf("toOrigin8(%x) = %x", x, o)
			}
		}
	}
}

// TestSymmetricPositions: images of a position under the board's
// symmetries have the same key and value, and canonical moves agree.
func TestSymmetricPositions(t *testing.T) {
	rng := splitmix64(11)
	identities, others := 0, 0 // images in their canonical frame or not
	defer func() {
		if identities == 0 || others == 0 {
			t.Errorf("%d images in an identity frame, %d in another: Frame.Identity untested", identities, others)
		}
	}()
	for _, cfg := range []Config{mustPreset(t, "tetrominoes"), crossConfigs()[2], crossConfigs()[5]} {
		g, _ := NewGame(cfg)
		for i := 0; i < 8; i++ {
			pos := randomPosition(t, g, 1+int(rng.next()%3), &rng)
			key := CanonicalKey(pos)
			res, _ := Solve(context.Background(), pos, Options{Workers: 1, TableMB: 1})
			var canon []string
			for _, m := range res.BestMoves {
				canon = append(canon, pos.ToCanonical(m).String())
				if back := pos.FromCanonical(pos.ToCanonical(m)); back.String() != m.String() {
					t.Fatalf("FromCanonical(ToCanonical(%s)) = %s", m, back)
				}
			}
			for s := range g.geo.Symmetries {
				img := pos.clone()
				img.occ = g.geo.MapBits(s, pos.occ)
				if k := CanonicalKey(img); k != key {
					t.Fatalf("%s symmetry %d: key %s, want %s", cfg.Preset, s, k, key)
				}
				r2, _ := Solve(context.Background(), img, Options{Workers: 1, TableMB: 1})
				if r2.Value != res.Value || len(r2.BestMoves) != len(res.BestMoves) {
					t.Fatalf("%s symmetry %d: value %d (%d best), want %d (%d)", cfg.Preset, s, r2.Value, len(r2.BestMoves), res.Value, len(res.BestMoves))
				}
				got := map[string]bool{}
				identity := img.Frame().Identity()
				for _, m := range r2.BestMoves {
					got[img.ToCanonical(m).String()] = true
					if identity && img.ToCanonical(m).String() != m.String() {
						t.Fatalf("%s symmetry %d: an identity frame maps %s to %s", cfg.Preset, s, m, img.ToCanonical(m))
					}
				}
				if identity {
					identities++
				} else {
					others++
				}
				for _, c := range canon {
					if !got[c] {
						t.Fatalf("%s symmetry %d: canonical best move %s missing", cfg.Preset, s, c)
					}
				}
			}
		}
	}
}

func TestChildrenCombine(t *testing.T) {
	rng := splitmix64(5)
	for _, cfg := range crossConfigs() {
		g, _ := NewGame(cfg)
		pos := randomPosition(t, g, 2, &rng)
		want, _ := Solve(context.Background(), pos, Options{Workers: 1, TableMB: 1})
		children := pos.Children()
		results := make([]Result, len(children))
		for i, c := range children {
			results[i], _ = Solve(context.Background(), c.Position, Options{Workers: 1, TableMB: 1})
		}
		got, err := Combine(pos, children, results)
		if err != nil {
			t.Fatal(err)
		}
		if got.Value != want.Value || got.Proven != want.Proven || len(got.BestMoves) != len(want.BestMoves) {
			t.Errorf("%s: combined %d/%v/%d best, solved %d/%v/%d", cfg.Preset, got.Value, got.Proven, len(got.BestMoves), want.Value, want.Proven, len(want.BestMoves))
		}
	}
}

func TestPieceList(t *testing.T) {
	list, err := PieceList(5)
	if err != nil || len(list) != 12 || list[1].Name != "I" || list[1].Picture[0] != "XXXXX" {
		t.Errorf("PieceList(5) = %+v, %v", list, err)
	}
}

func FuzzParseMove(f *testing.F) {
	for _, s := range []string{"L:a1,a2,a3,a4,b4", "x:d5,c4,d3,e4,d4", "H01:a1,b1,c1,d1,e1,f1", ":", "L:", "~Y Z:a1", "L:a99", "L:p16"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := ParseMove(s)
		if err != nil {
			return
		}
		back, err := ParseMove(m.String())
		if err != nil || back.String() != m.String() {
			t.Fatalf("%q: %s does not parse back (%v)", s, m, err)
		}
	})
}

func FuzzParseBoard(f *testing.F) {
	f.Add("LLLL..../L......./......../......../......../......../......../........", "I:h1,h2,h3,h4,h5")
	f.Add("##......", "")
	f.Add("AAAAA.../......../BB....../BB....../B......./......../......../........", "X:d3,c4,d4,e4,d5")
	cfg, _ := Preset("pentominoes")
	g, _ := NewGame(cfg)
	f.Fuzz(func(t *testing.T, board, moves string) {
		rows := strings.Split(board, "/")
		pos, err := g.NewPosition(rows, strings.Fields(moves), DefaultToMove)
		if err != nil {
			return
		}
		// A position read back from its own rows is the same position.
		back, err := g.NewPosition(pos.Board(), nil, pos.ToMove())
		if err != nil || back.occ != pos.occ || back.LegalMoveCount() != pos.LegalMoveCount() {
			t.Fatalf("%q %q: read back %v", board, moves, err)
		}
	})
}

// TestBoardWithNeutralPiece: board rows show the whole position; a neutral
// piece may be drawn by its letter or as '#' on its cells, but not left
// out (the piece would silently leave the game).
func TestBoardWithNeutralPiece(t *testing.T) {
	cfg := Config{Width: 6, Height: 6, Order: 6, Pieces: []string{"H09", "H10", "H12", "H15"},
		Hands: [2][]string{{"H09"}, {"H12", "H15"}}, Neutral: []string{"H10:a2,b2,c2,d2,a3,a4"}}
	start, err := NewPosition(cfg, nil, nil, DefaultToMove)
	if err != nil {
		t.Fatal(err)
	}
	hashed := []string{"......", "####..", "#.....", "#.....", "......", "......"}
	for _, tt := range []struct {
		name string
		rows []string
		ok   bool
	}{
		{"as the server writes it", start.Board(), true},
		{"as '#'", hashed, true},
		{"left out", []string{"......", "......", "......", "......", "......", "......"}, false},
		{"partly '#'", []string{"......", "####..", "#.....", "......", "......", "......"}, false},
	} {
		pos, err := NewPosition(cfg, tt.rows, nil, DefaultToMove)
		switch {
		case tt.ok && err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case !tt.ok && !errors.Is(err, ErrBadBoard):
			t.Errorf("%s: %v, want ErrBadBoard", tt.name, err)
		case tt.ok && (len(pos.LegalMoves()) != len(start.LegalMoves()) || pos.ToMove() != start.ToMove()):
			t.Errorf("%s: %d moves, %s to move; the start has %d, %s", tt.name, len(pos.LegalMoves()), pos.ToMove(), len(start.LegalMoves()), start.ToMove())
		}
	}
}

// TestBoardSymbols: a board draws each piece with its symbol, the one
// /v1/games and tiling solutions use (a review found hexominoes drawn A,
// B, C... in the order they were placed, so that H11 showed as H10's
// symbol); the board reads back as the same position.
func TestBoardSymbols(t *testing.T) {
	for name, want := range map[string]byte{"L": 'L', "I": 'I', "H01": '1', "H09": '9', "H10": 'A', "H11": 'B', "H35": 'Z'} {
		if got := Symbol(name); got != want {
			t.Errorf("Symbol(%s) = %c, want %c", name, got, want)
		}
	}
	cfg := Config{Width: 12, Height: 12, Order: 6, Pool: true}
	pos, err := NewPosition(cfg, nil, nil, First)
	if err != nil {
		t.Fatal(err)
	}
	for _, piece := range []string{"H11", "H01", "H35"} {
		for _, m := range pos.LegalMoves() {
			if m.Piece == piece {
				if pos, err = pos.Play(m); err != nil {
					t.Fatal(err)
				}
				break
			}
		}
	}
	board := pos.Board()
	count := map[byte]int{}
	for _, row := range board {
		for i := range len(row) {
			count[row[i]]++
		}
	}
	if count['B'] != 6 || count['1'] != 6 || count['Z'] != 6 {
		t.Errorf("board %q: %d cells of B (H11), %d of 1 (H01), %d of Z (H35); want 6 each", board, count['B'], count['1'], count['Z'])
	}
	back, err := NewPosition(cfg, board, nil, First)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(back.Board(), board) || !slices.Equal(back.Available(First), pos.Available(First)) {
		t.Errorf("the board read back: %q, pieces %v; want %q, %v", back.Board(), back.Available(First), board, pos.Available(First))
	}
}

// TestGameBuildsBounded: a game is built only with a build slot free (at
// most every core but one at once); the others wait.
func TestGameBuildsBounded(t *testing.T) {
	builds := buildcache.Shared()
	for range cap(builds) {
		builds <- struct{}{}
	}
	cfg, _ := Preset("hexominoes")
	cfg.Blocked = []string{"c7", "n2"} // a board no other test builds
	done := make(chan error, 1)
	go func() {
		_, err := NewGame(cfg)
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("built with every build slot taken (%v)", err)
	case <-time.After(200 * time.Millisecond):
	}
	<-builds
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	for range cap(builds) - 1 {
		<-builds
	}
}

// TestToMoveCountsBack: after board rows, the player to move given is the
// one after the moves, and the moves are credited counting back from it;
// when no crediting ends with it, the moves are credited from the rows'
// player and the one given moves next.
func TestToMoveCountsBack(t *testing.T) {
	tetro := mustPreset(t, "tetrominoes")
	tetro.Width, tetro.Height, tetro.Pieces, tetro.EndRule = 4, 4, []string{"I", "L", "T"}, ScoreRule
	hands := tetro
	hands.Pool, hands.Hands = false, [2][]string{{"I"}, {"L", "T"}}
	empty := []string{"....", "....", "....", "...."}
	tests := []struct {
		name   string
		cfg    Config
		board  []string
		moves  []string
		toMove Player
		scores [2]int
		next   Player
		err    string
	}{
		{"pool, to_move as the rows say", tetro, empty, []string{"I:a1,b1,c1,d1"}, Second, [2]int{1, 0}, Second, ""},
		{"pool, counted back", tetro, empty, []string{"I:a1,b1,c1,d1"}, First, [2]int{0, 1}, First, ""},
		{"pool, two moves counted back", tetro, empty, []string{"I:a1,b1,c1,d1", "L:a2,b2,c2,a3"}, Second, [2]int{1, 1}, Second, ""},
		{"pool, default", tetro, empty, []string{"I:a1,b1,c1,d1"}, DefaultToMove, [2]int{1, 0}, Second, ""},
		{"pool from the start: to_move takes the turn", tetro, nil, []string{"I:a1,b1,c1,d1"}, First, [2]int{1, 0}, First, ""},
		{"hands, the owner moved from the rows", hands, empty, []string{"L:a1,b1,c1,a2"}, First, [2]int{0, 1}, First, ""},
		{"hands, the owners fix the crediting", hands, empty, []string{"I:a1,b1,c1,d1"}, First, [2]int{1, 0}, First, ""},
		{"hands from the start: the first moves first", hands, nil, []string{"L:a1,b1,c1,a2"}, First, [2]int{}, First, "belongs to the second player, but the first player is to move"},
		// A pool's rows of an odd number of pieces: the player to move
		// at them placed the smaller half (the mover's lead is 0 or -1).
		{"pool, odd rows, counted back", tetro, []string{"IIII", "....", "....", "...."}, []string{"L:a2,b2,c2,a3"}, Second, [2]int{1, 1}, Second, ""},
		{"pool, odd rows, as the rows say", tetro, []string{"IIII", "....", "....", "...."}, []string{"L:a2,b2,c2,a3"}, First, [2]int{1, 1}, First, ""},
		{"pool, odd rows, to_move without moves", tetro, []string{"IIII", "....", "....", "...."}, nil, First, [2]int{0, 1}, First, ""},
		{"pool, odd rows, default", tetro, []string{"IIII", "....", "....", "...."}, nil, DefaultToMove, [2]int{1, 0}, Second, ""},
		// In hand mode the owners say who moved: a to_move that disagrees
		// takes the turn after moves legal from either player at the rows.
		{"hands, legal from the other player only", hands, empty, []string{"L:a1,b1,c1,a2", "I:a4,b4,c4,d4"}, First, [2]int{1, 1}, First, ""},
		{"hands, the furthest fault", hands, empty, []string{"L:a1,b1,c1,a2", "I:a1,b1,c1,d1"}, First, [2]int{}, First, "move 2: cell a1 is covered"},
	}
	for _, tt := range tests {
		pos, err := NewPosition(tt.cfg, tt.board, tt.moves, tt.toMove)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: error %v, want %q", tt.name, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if pos.Scores() != tt.scores || pos.ToMove() != tt.next {
			t.Errorf("%s: scores %v, %s to move; want %v, %s", tt.name, pos.Scores(), pos.ToMove(), tt.scores, tt.next)
		}
	}
}

// TestSolveKnown: a search told some of its root moves' values
// (Options.Known, as the service's cache gives them) answers as one that
// searched them all (values, best moves, every move's value), asks once
// per class of moves, and does not search them: a value it is told is the
// one it reports (a wrong one shows).
func TestSolveKnown(t *testing.T) {
	rng := splitmix64(11)
	for _, cfg := range crossConfigs() {
		g, err := NewGame(cfg)
		if err != nil {
			t.Fatal(err)
		}
		for n := range 3 {
			pos := randomPosition(t, g, 2+n%2, &rng)
			if pos.MustPass() || pos.LegalMoveCount() == 0 {
				continue
			}
			want, _ := Solve(context.Background(), pos, Options{Workers: 1, TableMB: 1, AllMoves: true})
			children := pos.Children()
			known := map[string]Result{}
			for i, c := range children {
				if (n == 0 || rng.next()%2 == 0) && i != len(children)-1 {
					r, _ := Solve(context.Background(), c.Position, Options{Workers: 1, TableMB: 1, FirstWin: true})
					for _, m := range c.Moves {
						known[m.String()] = r
					}
				}
			}
			for _, workers := range []int{1, 2} {
				asked := map[string]int{}
				got, err := Solve(context.Background(), pos, Options{Workers: workers, TableMB: 1, AllMoves: true, Known: func(class []Move) (Result, bool) {
					asked[class[0].String()]++
					r, ok := known[class[0].String()]
					return r, ok
				}})
				if err != nil {
					t.Fatal(err)
				}
				if len(asked) != len(children) {
					t.Errorf("%s: asked about %d classes, the position has %d", cfg.Preset, len(asked), len(children))
				}
				for m, k := range asked {
					if k != 1 {
						t.Errorf("%s: asked %d times about %s", cfg.Preset, k, m)
					}
				}
				if got.Value != want.Value || got.Proven != want.Proven || !slices.Equal(moveStrings(got.BestMoves), moveStrings(want.BestMoves)) || len(got.Moves) != len(want.Moves) {
					t.Fatalf("%s workers %d (%d of %d classes known): %d/%v, %d best; searched %d/%v, %d best", cfg.Preset, workers, len(known), len(children),
						got.Value, got.Proven, len(got.BestMoves), want.Value, want.Proven, len(want.BestMoves))
				}
				for i := range got.Moves {
					if got.Moves[i].Move.String() != want.Moves[i].Move.String() || got.Moves[i].Value != want.Moves[i].Value {
						t.Fatalf("%s: move %d %s %d, searched %s %d", cfg.Preset, i, got.Moves[i].Move, got.Moves[i].Value, want.Moves[i].Move, want.Moves[i].Value)
					}
				}
			}
			if len(known) == 0 || cfg.EndRule == ScoreRule {
				continue
			}
			// Told a known move loses when it wins (or the other way), the
			// search reports what it was told: it did not search it.
			lie := map[string]Result{}
			var liedAbout string
			for m, r := range known {
				r.Value = -r.Value
				r.Outcome = outcomeOf(r.Value)
				lie[m] = r
				liedAbout = m
				break
			}
			got, _ := Solve(context.Background(), pos, Options{Workers: 1, TableMB: 1, AllMoves: true, Known: func(class []Move) (Result, bool) {
				for _, m := range class {
					if r, ok := lie[m.String()]; ok {
						return r, true
					}
				}
				return Result{}, false
			}})
			for _, mr := range got.Moves {
				// The mover's value is minus the child's: the lie's.
				if mr.Move.String() == liedAbout && mr.Value != -lie[liedAbout].Value {
					t.Errorf("%s: %s valued %d, told %d: the search searched it", cfg.Preset, liedAbout, mr.Value, -lie[liedAbout].Value)
				}
			}
		}
	}
}

func moveStrings(ms []Move) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.String()
	}
	slices.Sort(out)
	return out
}
