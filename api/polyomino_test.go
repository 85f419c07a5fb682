package api

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"

	"github.com/gamesolver/gamesolver/service"
	"github.com/gamesolver/gamesolver/service/cache"
)

func newPolyominoServer(t *testing.T, maxBudget time.Duration) *gin.Engine {
	t.Helper()
	gin.SetMode(gin.TestMode)
	reg := prometheus.NewRegistry()
	s := newSearcher(reg, maxBudget)
	s.MinCacheTime = 0
	s.MinLengthTime = maxBudget // plies within the budget, however slow the machine
	// Loaded, as serve has it two seconds after its start (PreloadBook): a
	// request finding it still loading may answer by search instead.
	service.LoadBookFor([]byte(`{"game":"pentominoes"}`))
	return New(Config{MaxBodyBytes: 64 << 10}, Deps{
		Log: zap.NewNop(), Registry: reg,
		Readiness: service.NewReadiness(cache.NewMemory(1<<20, 0)), Catalogue: &service.Catalogue{},
		Polyomino: service.NewPolyomino(s),
	})
}

func analyze(t *testing.T, r *gin.Engine, body string) PolyominoAnalysis {
	t.Helper()
	w := do(r, "POST", "/v1/polyomino/analyze", "application/json", body)
	if w.Code != 200 {
		t.Fatalf("%s: status %d %s", body, w.Code, w.Body)
	}
	var a PolyominoAnalysis
	if err := json.Unmarshal(w.Body.Bytes(), &a); err != nil {
		t.Fatal(err)
	}
	return a
}

func legalMoves(t *testing.T, r *gin.Engine, body string) PolyominoMovesResponse {
	t.Helper()
	w := do(r, "POST", "/v1/polyomino/moves", "application/json", body)
	if w.Code != 200 {
		t.Fatalf("%s: status %d %s", body, w.Code, w.Body)
	}
	var m PolyominoMovesResponse
	if err := json.Unmarshal(w.Body.Bytes(), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestPolyominoMovesKnownCounts(t *testing.T) {
	r := newPolyominoServer(t, 10*time.Second)
	m := legalMoves(t, r, `{}`)
	if m.Count != 2308 || *m.DistinctUpToSymmetry != 296 || len(m.Moves) != 2308 || m.ToMove != "first" {
		t.Errorf("empty 8x8: %d moves, %d distinct, to move %s", m.Count, *m.DistinctUpToSymmetry, m.ToMove)
	}
	m = legalMoves(t, r, `{"moves":["L:c4,d4,e4,f4,c5"]}`)
	if m.ToMove != "second" || m.Count == 0 || slices.Contains(m.Moves, "L:a1,a2,a3,a4,b4") {
		t.Errorf("after L: %d moves, to move %s", m.Count, m.ToMove)
	}
}

// TestPolyominoSymmetricPositionsAgree: a position and its mirror image
// have the same value; the second answer comes from the cache through the
// canonical frame, and its best moves are legal in the mirrored position.
func TestPolyominoSymmetricPositionsAgree(t *testing.T) {
	r := newPolyominoServer(t, 20*time.Second)
	base := `{"game":"pentominoes","width":6,"height":6,"pieces":"FILNPTUVWXYZ","moves":["%s"],"all_moves":true}`
	a := analyze(t, r, strings.Replace(base, "%s", "L:a1,a2,a3,a4,b4", 1))
	b := analyze(t, r, strings.Replace(base, "%s", "L:f1,f2,f3,f4,e4", 1)) // mirrored left-right
	if !a.Proven || !b.Proven || a.Result != b.Result || len(a.BestMoves) != len(b.BestMoves) {
		t.Fatalf("mirror images differ: %+v vs %+v", a, b)
	}
	if b.Source != "cache" {
		t.Errorf("mirror image answered from %s, want cache", b.Source)
	}
	legal := legalMoves(t, r, strings.Replace(base, "%s", "L:f1,f2,f3,f4,e4", 1))
	for _, m := range b.BestMoves {
		if !slices.Contains(legal.Moves, m) {
			t.Errorf("best move %s of the mirrored position is not legal there", m)
		}
	}
	if b.Moves == nil || len(*b.Moves) != legal.Count {
		t.Errorf("all_moves lists %v, %d are legal", b.Moves, legal.Count)
	}
	// Each move's plies: the game after a winning move lasts an even
	// number (the loser is to move), and the position's own length is one
	// more than its fastest winning move's.
	if a.Plies == nil || a.Result != "win" {
		t.Fatalf("plies %v, result %s", a.Plies, a.Result)
	}
	fastest := -1
	for _, m := range *a.Moves {
		if m.Plies == nil {
			t.Fatalf("move %s without plies", m.Move)
		}
		if (*m.Plies%2 == 0) != (m.Result == "win") {
			t.Errorf("move %s (%s): %d plies after it", m.Move, m.Result, *m.Plies)
		}
		if m.Result == "win" && (fastest < 0 || *m.Plies < fastest) {
			fastest = *m.Plies
		}
	}
	if *a.Plies != fastest+1 {
		t.Errorf("plies %d, fastest winning move then %d", *a.Plies, fastest)
	}
	// Perfect play's order: the fastest wins first, in moves and in
	// best_moves alike.
	if first := (*a.Moves)[0]; first.Result != "win" || *first.Plies != fastest || first.Move != a.BestMoves[0] {
		t.Errorf("first move %+v (plies %d), best_moves[0] %s; the fastest win takes %d", first, *first.Plies, a.BestMoves[0], fastest)
	}
	for i := 1; i < len(*a.Moves); i++ {
		prev, m := (*a.Moves)[i-1], (*a.Moves)[i]
		if prev.Result == m.Result && (m.Result == "win" && *m.Plies < *prev.Plies || m.Result == "loss" && *m.Plies > *prev.Plies) {
			t.Errorf("moves out of order: %s (%d plies) after %s (%d)", m.Move, *m.Plies, prev.Move, *prev.Plies)
		}
	}
	// With all_moves, the list is there even when no move is legal.
	for body, want := range map[string]bool{`{"game":"pentominoes","width":2,"height":2,"all_moves":true}`: true, `{"game":"pentominoes","width":2,"height":2}`: false} {
		w := do(r, "POST", "/v1/polyomino/analyze", "application/json", body)
		if got := strings.Contains(w.Body.String(), `"moves":[]`); got != want || w.Code != 200 {
			t.Errorf("%s: %d %s", body, w.Code, w.Body)
		}
	}
}

func TestPolyominoExactValues(t *testing.T) {
	r := newPolyominoServer(t, 20*time.Second)
	tests := []struct {
		name, body string
	}{
		{"tetrominoes preset", `{"game":"tetrominoes"}`},
		{"pentominoes 5x5 pool", `{"width":5,"height":5,"moves":["X:c2,b3,c3,d3,c4"]}`},
		{"score rule with hands", `{"width":6,"height":5,"hands":{"first":["F","I","L"],"second":["N","P","T"]},"end_rule":"score"}`},
		{"blocked cells", `{"width":6,"height":6,"blocked":["c3","d4"],"pieces":"FILNPTU"}`},
		// 29 winning moves, one of them wins in 3 plies.
		{"hands, a fastest win among many", `{"game":"pentominoes","width":6,"height":6,"pool":false,"hands":{"first":["F","I","L","N","P","T"],"second":["U","V","W","X","Y","Z"]},"moves":["P:d4,e4,f4,e5,f5"]}`},
		// Lost in 4 plies; its first move in the solver's order loses
		// in 2 (a black-box review found it first in best_moves).
		{"a slowest loss among many", `{"game":"pentominoes","width":6,"height":6,"moves":["V:d3,d4,d5,e5,f5","Y:b1,b2,c2,b3,b4"]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := analyze(t, r, tt.body)
			if !a.Proven || a.Result == "unknown" || len(a.BestMoves) == 0 || a.Source != "search" || a.Stats.Nodes == nil {
				t.Fatalf("%+v", a)
			}
			if strings.Contains(tt.body, "score") != (a.Score != nil) {
				t.Errorf("score %v for %s", a.Score, tt.body)
			}
			// A best move leads to a position the opponent cannot win.
			var q map[string]any
			_ = json.Unmarshal([]byte(tt.body), &q)
			moves, _ := q["moves"].([]any)
			q["moves"] = append(moves, a.BestMoves[0])
			next, _ := json.Marshal(q)
			b := analyze(t, r, string(next))
			if a.Result == "win" && b.Result != "loss" && !(a.Score != nil) {
				t.Errorf("after best move %s the opponent's result is %s", a.BestMoves[0], b.Result)
			}
			if a.Score != nil && b.Score != nil && b.Proven && !b.Pass && *b.Score != -*a.Score {
				t.Errorf("score after best move %d, want %d", *b.Score, -*a.Score)
			}
			// The game's length: normal play only, odd for a win, and a
			// winning move cannot shorten it by more than its own ply.
			if (a.Score == nil) != (a.Plies != nil) {
				t.Fatalf("plies %v with score %v", a.Plies, a.Score)
			}
			if a.Plies != nil {
				if (*a.Plies%2 == 1) != (a.Result == "win") || b.Plies == nil || (*b.Plies%2 == 1) != (b.Result == "win") {
					t.Errorf("plies %d (%s), after %s %v (%s)", *a.Plies, a.Result, a.BestMoves[0], b.Plies, b.Result)
				} else if *b.Plies != *a.Plies-1 {
					// best_moves[0] is a fastest win, or a slowest loss.
					t.Errorf("plies %d (%s), after the first best move %s %d", *a.Plies, a.Result, a.BestMoves[0], *b.Plies)
				}
			}
		})
	}
}

func TestPolyominoBudgetGivesUnknown(t *testing.T) {
	r := newPolyominoServer(t, 300*time.Millisecond)
	start := time.Now()
	a := analyze(t, r, `{"game":"hexominoes","budget_ms":100000}`)
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("capped search took %v", took)
	}
	if a.Proven || a.Result != "unknown" || a.Outcome != "unknown" || !a.Heuristic || len(a.BestMoves) != 1 || a.Source != "heuristic" {
		t.Errorf("unproven answer %+v", a)
	}
}

func TestPolyominoBadInput(t *testing.T) {
	r := newPolyominoServer(t, time.Second)
	tests := []struct {
		name, body, field, detail string
	}{
		{"unknown preset", `{"game":"chess"}`, "game", "chess"},
		{"board row length", `{"board":["........","........","..........","........","........","........","........","........"]}`, "board", "row 3"},
		{"short first board row", `{"board":[".......","........","........","........","........","........","........","........"]}`, "board", "board row 1 has 7 cells (characters), expected 8"},
		{"unknown shape on board", `{"board":["AA......","AA......","........","........","........","........","........","........"]}`, "board", ""},
		{"illegal move", `{"moves":["L:a1,a2,a3,a4,b4","L:c1,c2,c3,c4,d4"]}`, "moves", "move 2"},
		{"off the board", `{"moves":["I:a1,a2,a3,a4,a9"]}`, "moves", "a9"},
		{"bad notation", `{"moves":["hello"]}`, "moves", ""},
		{"bad to_move", `{"to_move":"third"}`, "to_move", "first or second"},
		{"bad end rule", `{"end_rule":"sudden"}`, "end_rule", "normal or score"},
		{"too wide", `{"width":17}`, "width", "16"},
		{"too tall", `{"width":5,"height":17}`, "height", "height must be 1..16"},
		{"hands hold every piece, the preset's neutral to deal", `{"game":"hexominoes","width":6,"height":6,"pieces":"H01,H02,H05","hands":{"first":["H01"],"second":["H02","H05"]}}`, "neutral", "give neutral [] for no neutral piece"},
		{"no height", `{"height":0}`, "height", "8 x 0"},
		{"capture too tall", `{"game":"capture","height":17}`, "height", "height must be 1..16"},
		{"unknown piece", `{"pieces":"FILQ"}`, "pieces", "Q"},
		{"negative budget", `{"budget_ms":-1}`, "budget_ms", ""},
		{"unknown field", `{"gmae":"pentominoes"}`, "gmae", "unknown field"},
		{"hands with a common pool", `{"pool":true,"hands":{"first":["F"],"second":["I"]}}`, "hands", "pool true"},
		{"board of another size than width", `{"width":6,"board":["........","........","........","........","........","........","........","........"]}`, "board", "expected 6"},
		{"board without rows", `{"board":[]}`, "board", "no rows"},
		{"capture board without rows", `{"game":"capture","board":[]}`, "board", "no rows"},
		{"board too tall", `{"board":["." ,".",".",".",".",".",".",".",".",".",".",".",".",".",".",".","."]}`, "board", "1 to 16"},
		{"pool list outside the capture variant", `{"game":"pentominoes","pool":["F","I"]}`, "pool", "capture variant"},
		{"markers outside the capture variant", `{"markers":{"I":"second"}}`, "markers", "capture variant"},
		{"banned outside the capture variant", `{"banned":["F"]}`, "banned", "capture variant"},
		{"pool of another type", `{"pool":"yes"}`, "pool", "expected true or false, or in the capture variant an array of piece names, got a string"},
		{"unknown key in hands", `{"hands":{"first":["F"],"third":["I"]}}`, "hands.third", "known fields: first, second"},
		{"board without its neutral piece", `{"width":6,"height":6,"pieces":"H09,H10,H12,H15","neutral":["H10:a2,b2,c2,d2,a3,a4"],"hands":{"first":["H09"],"second":["H12","H15"]},"board":["......","......","......","......","......","......"]}`, "board", "lacks the neutral piece H10"},
		{"neutral piece with too few cells", `{"neutral":["X:a1"]}`, "neutral", "neutral piece X"},
		{"integer out of range", `{"budget_ms":9223372036854775808}`, "budget_ms", "9223372036854775808 is out of range for an integer"},
		{"order out of range", `{"order":7}`, "order", "expected 4 (tetrominoes)"},
		{"order against a set name", `{"order":4,"pieces":"pentominoes"}`, "pieces", "of order 5, but order 4 was asked for"},
		{"names not of the order", `{"order":4,"pieces":"FIL"}`, "pieces", "F"},
		{"capture order out of range", `{"game":"capture","order":3}`, "order", "expected 4"},
		// Each field named by the engine's error itself (a review found a
		// neutral piece's fault blamed on hands: the service read words
		// of the message).
		{"neutral piece also in a hand", `{"hands":{"first":["F"],"second":["I"]},"neutral":["F:b1,c1,a2,b2,b3"]}`, "neutral", "neutral piece F is also in a hand"},
		{"unknown piece in a hand", `{"hands":{"first":["Q"],"second":["I"]}}`, "hands", "first hand: no piece \"Q\""},
		{"blocked cell twice", `{"blocked":["a1","a1"]}`, "blocked", "a1 listed twice"},
		{"a blocked cell named like another field", `{"blocked":["hand"]}`, "blocked", "hand"},
		{"capture blocked cell twice", `{"game":"capture","blocked":["a1","a1"]}`, "blocked", "a1 listed twice"},
		{"capture pool piece twice", `{"game":"capture","pool":["F","F"]}`, "pool", "listed twice"},
		{"capture banned piece unknown", `{"game":"capture","banned":["Q"]}`, "banned", "banned: "},
		{"capture marker of a piece off the board", `{"game":"capture","board":[".......",".......",".......",".......",".......",".......","......."],"markers":{"F":"first"}}`, "markers", "not on the board"},
		{"capture to_move against the turns", `{"game":"capture","moves":["I:a1,a2,a3,a4,a5"],"to_move":"first"}`, "to_move", "player to move first after 1 turns"},
	}
	// The pieces left: the pool's, or each hand's.
	if a := analyze(t, r, `{"game":"pentominoes","moves":["L:c5,d5,e5,f5,c6"]}`); a.PiecesLeft == nil || joined(a.PiecesLeft.Pool) != "FINPTUVWXYZ" || a.PiecesLeft.First != nil {
		t.Errorf("pieces left in the pool: %+v", a.PiecesLeft)
	}
	if a := analyze(t, r, `{"game":"pentominoes","width":7,"height":7,"hands":{"first":["F","I","L","N","P","T"],"second":["U","V","W","X","Y","Z"]},"moves":["I:a1,b1,c1,d1,e1"],"budget_ms":100}`); a.PiecesLeft == nil || joined(a.PiecesLeft.First) != "FLNPT" || joined(a.PiecesLeft.Second) != "UVWXYZ" {
		t.Errorf("pieces left in hand: %+v", a.PiecesLeft)
	}
	// A whole set by name.
	if a := analyze(t, r, `{"game":"pentominoes","width":5,"height":5,"pieces":"tetrominoes","budget_ms":2000}`); !a.Proven || a.LegalMoves == 0 {
		t.Errorf("pieces by set name: %+v", a)
	}
	// order picks the tetrominoes among names of two orders (I, L, T),
	// and alone gives its whole set.
	if a := analyze(t, r, `{"game":"pentominoes","width":4,"height":4,"order":4,"pieces":"ILT","budget_ms":2000}`); !a.Proven || a.PiecesLeft == nil || joined(a.PiecesLeft.Pool) != "ITL" || a.LegalMoves != 8+48+24 {
		t.Errorf("order 4 with pieces ILT: %+v", a)
	}
	if a := analyze(t, r, `{"game":"pentominoes","width":5,"height":5,"order":4,"budget_ms":2000}`); !a.Proven || a.PiecesLeft == nil || joined(a.PiecesLeft.Pool) != "IOTSL" {
		t.Errorf("order 4 alone: %+v", a.PiecesLeft)
	}
	// order 0 infers it, as in tilings: O makes these tetrominoes.
	if a := analyze(t, r, `{"game":"pentominoes","width":4,"height":4,"order":0,"pieces":"ILO","budget_ms":2000}`); a.PiecesLeft == nil || joined(a.PiecesLeft.Pool) != "IOL" {
		t.Errorf("order 0: %+v", a.PiecesLeft)
	}
	// The board's rows set its size: 8 x 8 tetrominoes.
	a := analyze(t, r, `{"game":"tetrominoes","board":["IIII....","........","........","........","........","........","........","........"],"budget_ms":100}`)
	if len(a.Board) != 8 || len(a.Board[0]) != 8 || a.LegalMoves == 0 {
		t.Errorf("size from the board: %+v", a)
	}
	for _, tt := range tests {
		for _, path := range []string{"/v1/polyomino/analyze", "/v1/polyomino/moves"} {
			t.Run(tt.name+path, func(t *testing.T) {
				w := do(r, "POST", path, "application/json", tt.body)
				if w.Code != 400 {
					t.Fatalf("status %d: %s", w.Code, w.Body)
				}
				p := decodeProblem(t, w)
				if len(p.Errors) == 0 || p.Errors[0].Field != tt.field || !strings.Contains(p.Detail, tt.detail) {
					t.Errorf("problem %+v; want field %q, detail containing %q", p, tt.field, tt.detail)
				}
			})
		}
	}
}

// The deal's house rules: neutral [] is no neutral piece (the hexominoes
// preset deals one otherwise); one hand given, the rest make the other;
// both given, the game's other pieces are out of it.
func TestPolyominoDealRules(t *testing.T) {
	r := newPolyominoServer(t, time.Second)
	empty := func(board []string) bool {
		return !strings.ContainsFunc(strings.Join(board, ""), func(c rune) bool { return c != '.' })
	}
	if a := analyze(t, r, `{"game":"hexominoes","budget_ms":20}`); empty(a.Board) {
		t.Errorf("the hexominoes preset placed no neutral piece: %q", a.Board)
	}
	if a := analyze(t, r, `{"game":"hexominoes","neutral":[],"budget_ms":20}`); !empty(a.Board) || len(*a.PiecesLeft.First)+len(*a.PiecesLeft.Second) != 35 {
		t.Errorf("neutral []: board %q, pieces left %+v", a.Board, a.PiecesLeft)
	}
	if a := analyze(t, r, `{"width":5,"height":5,"pieces":"FILX","hands":{"first":["F"]},"budget_ms":200}`); joined(a.PiecesLeft.First) != "F" || joined(a.PiecesLeft.Second) != "ILX" {
		t.Errorf("one hand given: %+v", a.PiecesLeft)
	}
	if a := analyze(t, r, `{"width":5,"height":5,"pieces":"FILX","hands":{"first":["F","I"],"second":["L"]},"budget_ms":200}`); joined(a.PiecesLeft.First) != "FI" || joined(a.PiecesLeft.Second) != "L" {
		t.Errorf("both hands given: %+v", a.PiecesLeft)
	}
}

// joined is a list of piece names as one string ("" for none or absent).
func joined(l *[]string) string {
	if l == nil {
		return ""
	}
	return strings.Join(*l, "")
}

// Empty lists are present, not dropped: the pool once every piece is
// placed, a hand once it is empty.
func TestPolyominoEmptyListsPresent(t *testing.T) {
	r := newPolyominoServer(t, time.Second)
	w := do(r, "POST", "/v1/polyomino/analyze", "application/json", `{"board":["IIIII"],"pieces":"I"}`)
	if !strings.Contains(w.Body.String(), `"pieces_left":{"pool":[]}`) {
		t.Errorf("pool emptied: %s", w.Body)
	}
	w = do(r, "POST", "/v1/polyomino/analyze", "application/json", `{"width":5,"height":1,"hands":{"first":["I"],"second":["L"]},"moves":["I:a1,b1,c1,d1,e1"]}`)
	if !strings.Contains(w.Body.String(), `"pieces_left":{"first":[],"second":["L"]}`) {
		t.Errorf("hand emptied: %s", w.Body)
	}
}

// TestPiecesAsList: pieces may be a list of names as well as a string (a
// review found arrays refused where hands, pool and blocked take them);
// an empty string is refused (it silently meant the whole set).
func TestPiecesAsList(t *testing.T) {
	r := newPolyominoServer(t, 10*time.Second)
	asString := legalMoves(t, r, `{"width":5,"height":5,"pieces":"FILN"}`)
	asList := legalMoves(t, r, `{"width":5,"height":5,"pieces":["F","I","L","N"]}`)
	if asString.Count != 210 || asList.Count != asString.Count || !slices.Equal(asList.Moves, asString.Moves) {
		t.Errorf("pieces FILN: %d moves as a string, %d as a list", asString.Count, asList.Count)
	}
	for body, want := range map[string]string{
		`{"pieces":""}`:  "pieces is empty",
		`{"pieces":" "}`: "pieces is empty",
		`{"pieces":[1]}`: "element 1 is a number, not a string",
		`{"pieces":{}}`:  "got an object",
		// read letter by letter, these named pieces of two orders, or none
		`{"pieces":"hexomino"}`:   `did you mean "hexominoes"`,
		`{"pieces":["F","","I"]}`: "an empty piece name",
		`{"pieces":"F,,I"}`:       "an empty piece name",
	} {
		w := do(r, "POST", "/v1/polyomino/moves", "application/json", body)
		p := decodeProblem(t, w)
		if w.Code != 400 || len(p.Errors) == 0 || p.Errors[0].Field != "pieces" || !strings.Contains(p.Detail, want) {
			t.Errorf("%s: %d %+v, want 400 on pieces with %q", body, w.Code, p, want)
		}
	}
}

// TestMovesGameOver checks that /moves says when the game has ended or the
// player to move must pass, as analyze does.
func TestMovesGameOver(t *testing.T) {
	r := newPolyominoServer(t, 5*time.Second)
	cycle := []string{"~P Y:d2,c3,d3,d4,d5", "~I P:b4,c4,b5,c5,b6", "~F I:a2,a3,a4,a5,a6", "~Y F:a1,b1,b2,c2,b3"}
	board := `["FF.....","IFF....","IF.....","IPP....","IPP....","IP.....","......."]`
	turns := func(list []string) string {
		b, _ := json.Marshal(list)
		return string(b)
	}
	for _, c := range []struct {
		name, body        string
		count             int
		over, pass, drawn bool
	}{
		{"start", `{"width":5,"height":5,"pieces":"ILT"}`, -1, false, false, false},
		{"normal play, stuck", `{"width":5,"height":1,"pieces":"IL","board":["IIIII"]}`, 0, true, false, false},
		{"score rule, first stuck, second not", `{"width":4,"height":2,"hands":{"first":["I"],"second":["P"]},"end_rule":"score"}`, 0, false, true, false},
		{"score rule, neither can place", `{"width":4,"height":2,"hands":{"first":["I"],"second":["L"]},"end_rule":"score","board":["LLLL","L..."]}`, 0, true, false, false},
		{"capture, second occurrence", `{"game":"capture","board":` + board + `,"markers":{"I":"second","P":"first"},"to_move":"first","moves":` + turns(cycle) + `}`, -1, false, false, false},
		{"capture, third occurrence", `{"game":"capture","board":` + board + `,"markers":{"I":"second","P":"first"},"to_move":"first","moves":` + turns(append(cycle, cycle...)) + `}`, 0, true, false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := do(r, "POST", "/v1/polyomino/moves", "application/json", c.body)
			var m PolyominoMovesResponse
			if err := json.Unmarshal(w.Body.Bytes(), &m); err != nil || w.Code != 200 {
				t.Fatalf("%d %s", w.Code, w.Body)
			}
			if c.count >= 0 && m.Count != c.count || c.count < 0 && m.Count == 0 {
				t.Errorf("count %d, want %d", m.Count, c.count)
			}
			if m.GameOver != c.over || m.Pass != c.pass || m.Drawn != c.drawn {
				t.Errorf("game_over %v pass %v drawn %v, want %v %v %v", m.GameOver, m.Pass, m.Drawn, c.over, c.pass, c.drawn)
			}
			// analyze agrees.
			w = do(r, "POST", "/v1/polyomino/analyze", "application/json", c.body)
			var a PolyominoAnalysis
			if err := json.Unmarshal(w.Body.Bytes(), &a); err != nil || w.Code != 200 {
				t.Fatalf("analyze: %d %s", w.Code, w.Body)
			}
			if a.GameOver != c.over || a.Pass != c.pass || a.Drawn != c.drawn || c.drawn && a.Result != "draw" {
				t.Errorf("analyze: game_over %v pass %v drawn %v result %s", a.GameOver, a.Pass, a.Drawn, a.Result)
			}
		})
	}
}

// TestMoveOutcomes: each move of an all_moves answer carries its value in
// absolute terms, as API.md asks where the game has named sides (the
// moves had only result); the player to move makes it.
func TestMoveOutcomes(t *testing.T) {
	r := newPolyominoServer(t, 10*time.Second)
	other := map[string]string{"first": "second", "second": "first"}
	seen := map[string]int{}
	for _, body := range []string{
		`{"width":5,"height":5,"pieces":"tetrominoes","all_moves":true}`,
		`{"width":5,"height":5,"pieces":"tetrominoes","moves":["I:a1,b1,c1,d1"],"all_moves":true}`,
		`{"game":"capture","width":4,"height":4,"pieces":"IOTSL","moves":["I:a1,b1,c1,d1"],"all_moves":true}`,
		`{"width":4,"height":4,"pieces":"tetrominoes","hands":{"first":["I","O"],"second":["T","S","L"]},"end_rule":"score","all_moves":true}`,
		`{"game":"hexominoes","all_moves":true,"budget_ms":50}`,
	} {
		a := analyze(t, r, body)
		if a.Moves == nil || len(*a.Moves) == 0 {
			t.Fatalf("%s: no moves: %+v", body, a)
		}
		for _, m := range *a.Moves {
			want := map[string]string{"win": a.ToMove + "_wins", "loss": other[a.ToMove] + "_wins", "draw": "draw", "unknown": "unknown"}[m.Result]
			if m.Outcome != want || want == "" {
				t.Fatalf("%s: move %s (%s for %s to move): outcome %q, want %q", body, m.Move, m.Result, a.ToMove, m.Outcome, want)
			}
			seen[m.Result+" "+a.ToMove]++
		}
	}
	for _, k := range []string{"win first", "loss first", "win second", "loss second", "unknown first"} {
		if seen[k] == 0 {
			t.Errorf("no move %s to move among %v: the cases do not cover what they should", k, seen)
		}
	}
}

// TestPassGoesOn: under the score rule a stuck player's answer says pass
// with no best move; the same position with to_move the other player
// gives the other's moves, and the moves may go on with his move (the
// pass is not written), as the pass field's description says.
func TestPassGoesOn(t *testing.T) {
	r := newPolyominoServer(t, 10*time.Second)
	const game = `"width":6,"height":6,"hands":{"first":["F","I","L","N","P","T"],"second":["U","V","W","X","Y","Z"]},"end_rule":"score"`
	const moves = `"L:f1,f2,f3,e4,f4","W:d2,c3,d3,b4,c4","P:d5,e5,f5,d6,e6","Y:a1,a2,b2,a3,a4"`
	stuck := analyze(t, r, `{`+game+`,"moves":[`+moves+`]}`)
	if !stuck.Pass || stuck.GameOver || len(stuck.BestMoves) != 0 || stuck.LegalMoves != 0 || stuck.ToMove != "first" {
		t.Fatalf("the stuck player's answer: %+v", stuck)
	}
	other := analyze(t, r, `{`+game+`,"moves":[`+moves+`],"to_move":"second"}`)
	if other.Pass || len(other.BestMoves) == 0 || other.Score == nil || stuck.Score == nil || *other.Score != -*stuck.Score {
		t.Fatalf("the other player's answer: %+v (the stuck player's score %v)", other, stuck.Score)
	}
	next := analyze(t, r, `{`+game+`,"moves":[`+moves+`,"`+other.BestMoves[0]+`"]}`)
	if next.Scores != [2]int{stuck.Scores[0], stuck.Scores[1] + 1} || next.ToMove != "first" {
		t.Errorf("after the other's move: scores %v, to move %s", next.Scores, next.ToMove)
	}
}

// TestMoveErrorIndex: a refused move of a list is named by its 0-based
// index beside the field, in every game (a front end points at it without
// reading "move 2" out of the message), as is an element of any list that
// is null or of the wrong type; other errors have none.
func TestMoveErrorIndex(t *testing.T) {
	poly := newPolyominoServer(t, time.Second)
	teeko := newTeekoServer(t)
	for _, tc := range []struct {
		name   string
		r      *gin.Engine
		path   string
		body   string
		field  string
		index  int // -1: none
		detail string
	}{
		{"an illegal placement", poly, "/v1/polyomino/analyze", `{"moves":["L:a1,a2,a3,a4,b4","L:c1,c2,c3,c4,d4"]}`, "moves", 1, "move 2"},
		{"bad notation first", poly, "/v1/polyomino/moves", `{"moves":["hello"]}`, "moves", 0, "move 1"},
		{"after board rows", poly, "/v1/polyomino/analyze", `{"width":5,"height":5,"pieces":"tetrominoes","board":["IIII.",".....",".....",".....","....."],"moves":["O:a2,b2,a3,b3","O:c2,d2,c3,d3"]}`, "moves", 1, "move 2"},
		{"a capture turn", poly, "/v1/polyomino/analyze", `{"game":"capture","moves":["I:b1,c1,d1,e1,f1","L:a1,a2,b2,c2,d2","~F Z:g1,e2,f2,g2,e3"]}`, "moves", 2, "turn 3"},
		{"a teeko move", teeko, "/v1/teeko/analyze", `{"moves":["13","13"]}`, "moves", 1, "move 2"},
		{"a teeko annotation", teeko, "/v1/teeko/annotate", `{"moves":["13","7","x"]}`, "moves", 2, "move 3"},
		{"a null move", poly, "/v1/polyomino/analyze", `{"moves":["L:a1,a2,a3,a4,b4",null]}`, "moves", 1, "element 2 is null"},
		{"a number for a move", poly, "/v1/polyomino/moves", `{"moves":["L:a1,a2,a3,a4,b4","L:c1,c2,c3,c4,d4",7]}`, "moves", 2, "element 3: expected a string"},
		{"an object for a move", teeko, "/v1/teeko/analyze", `{"moves":[{"from":"a1"}]}`, "moves", 0, "element 1: expected a string, got an object"},
		{"a number in a hand", poly, "/v1/polyomino/analyze", `{"hands":{"first":["F",["I"]],"second":["L"]}}`, "hands.first", 1, "element 2: expected a string, got an array"},
		{"a number in a piece list", poly, "/v1/polyomino/analyze", `{"pieces":["F","I",5]}`, "pieces", 2, "element 3 is a number, not a string"},
		{"an object in a capture pool", poly, "/v1/polyomino/moves", `{"game":"capture","pool":["F",{"I":1}]}`, "pool", 1, "element 2 is an object, not a string"},
		{"a number for pieces", poly, "/v1/polyomino/analyze", `{"pieces":5}`, "pieces", -1, "got a number"},
		{"a string for a list", poly, "/v1/polyomino/analyze", `{"blocked":"a1"}`, "blocked", -1, "expected an array"},
		{"not a move", poly, "/v1/polyomino/analyze", `{"to_move":"third"}`, "to_move", -1, "first or second"},
		{"a board row", poly, "/v1/polyomino/analyze", `{"board":["........","........","..........","........","........","........","........","........"]}`, "board", -1, "row 3"},
	} {
		w := do(tc.r, "POST", tc.path, "application/json", tc.body)
		var p Problem
		if err := json.Unmarshal(w.Body.Bytes(), &p); err != nil || w.Code != 400 || len(p.Errors) != 1 {
			t.Fatalf("%s: %d %s", tc.name, w.Code, w.Body)
		}
		e := p.Errors[0]
		got := -1
		if e.Index != nil {
			got = *e.Index
		}
		if e.Field != tc.field || got != tc.index || !strings.Contains(e.Message, tc.detail) {
			t.Errorf("%s: field %q index %d %q; want %q index %d, a message with %q", tc.name, e.Field, got, e.Message, tc.field, tc.index, tc.detail)
		}
	}
}

// TestMovesCarryState: /moves gives the position's scores and pieces left
// (capture: markers and pool) as analyze gives them, so that a front end
// needs one request a ply.
func TestMovesCarryState(t *testing.T) {
	r := newPolyominoServer(t, time.Second)
	for _, body := range []string{
		`{"moves":["L:a1,a2,a3,a4,b4"],"budget_ms":1}`,
		`{"width":6,"height":6,"hands":{"first":["F","I","L","N","P","T"],"second":["U","V","W","X","Y","Z"]},"end_rule":"score","moves":["L:f1,f2,f3,e4,f4"],"budget_ms":1}`,
		`{"game":"capture","moves":["I:b1,c1,d1,e1,f1","L:a1,a2,b2,c2,d2","Z:g1,e2,f2,g2,e3"],"budget_ms":1}`,
	} {
		a := analyze(t, r, body)
		m := legalMoves(t, r, body)
		state := func(v ...any) string { b, _ := json.Marshal(v); return string(b) }
		if got, want := state(m.Scores, m.PiecesLeft, m.Markers, m.Pool), state(a.Scores, a.PiecesLeft, a.Markers, a.Pool); got != want {
			t.Errorf("%s: moves' state %s; analyze's %s", body, got, want)
		}
		if a.Scores == [2]int{} || (a.PiecesLeft == nil) == (a.Markers == nil) {
			t.Errorf("%s: the case shows nothing: scores %v, pieces left %v, markers %v", body, a.Scores, a.PiecesLeft, a.Markers)
		}
	}
}

// TestConfigPostsBack: an answer's config, posted with its board and
// to_move (capture: its markers and pool), or with the moves that led
// there, is the same position: the same board, player to move, scores,
// pieces left, legal moves and config, for every preset, a deal, blocked
// cells, a subset of pieces, a neutral piece and the score rule; /moves
// gives the same config.
func TestConfigPostsBack(t *testing.T) {
	r := newPolyominoServer(t, time.Second)
	for _, base := range []string{
		`"game":"pentominoes"`,
		`"game":"hexominoes"`,
		`"game":"tetrominoes","blocked":["C3"],"pieces":"IOT"`,
		`"game":"pentominoes","width":6,"height":6,"hands":{},"seed":3`,
		`"game":"pentominoes","width":7,"height":7,"pieces":"FILNPTUVW","neutral":["W:d3,d4,e4,e5,f5"],"end_rule":"score"`,
		`"game":"pentominoes","width":6,"height":6,"pieces":["F","I","L"],"hands":{"first":["F"]},"end_rule":"score"`,
		`"game":"capture","width":6,"height":6,"blocked":["D4","a1"]`,
	} {
		var moves []string
		for range 3 {
			b, _ := json.Marshal(moves)
			m := legalMoves(t, r, `{`+base+`,"moves":`+string(b)+`}`)
			if len(m.Moves) == 0 {
				break
			}
			moves = append(moves, m.Moves[len(m.Moves)/2])
		}
		b, _ := json.Marshal(moves)
		body := `{` + base + `,"moves":` + string(b) + `,"budget_ms":1}`
		a := analyze(t, r, body)
		if m := legalMoves(t, r, body); !reflect.DeepEqual(m.Config, a.Config) {
			t.Errorf("%s: /moves config %+v, analyze's %+v", base, m.Config, a.Config)
		}
		back := map[string]any{}
		raw, _ := json.Marshal(a.Config)
		_ = json.Unmarshal(raw, &back)
		back["budget_ms"] = 1
		withMoves := maps.Clone(back)
		withMoves["moves"] = moves
		back["board"], back["to_move"] = a.Board, a.ToMove
		if a.Markers != nil {
			back["markers"], back["pool"] = *a.Markers, *a.Pool
		}
		for name, req := range map[string]map[string]any{"board": back, "moves": withMoves} {
			raw, _ := json.Marshal(req)
			got := analyze(t, r, string(raw))
			state := func(a PolyominoAnalysis) string {
				b, _ := json.Marshal([]any{a.Board, a.ToMove, a.Scores, a.PiecesLeft, a.LegalMoves, a.Config, a.Markers, a.Pool})
				return string(b)
			}
			if state(got) != state(a) {
				t.Errorf("%s posted back with its %s:\n%s\nwas\n%s", base, name, state(got), state(a))
			}
		}
	}
}

// TestPolyominoAnnotate: a game annotated over HTTP (a capture game, a
// game from board rows with to_move naming the first mover), and its
// refusals: no moves, a bad move named by its index.
func TestPolyominoAnnotate(t *testing.T) {
	r := newPolyominoServer(t, 10*time.Second)
	annotate := func(body string) (int, PolyominoAnnotation, Problem) {
		w := do(r, "POST", "/v1/polyomino/annotate", "application/json", body)
		var a PolyominoAnnotation
		var p Problem
		if w.Code == 200 {
			if err := json.Unmarshal(w.Body.Bytes(), &a); err != nil {
				t.Fatal(err)
			}
		} else if err := json.Unmarshal(w.Body.Bytes(), &p); err != nil {
			t.Fatal(err)
		}
		return w.Code, a, p
	}
	code, a, _ := annotate(`{"game":"capture","width":5,"height":5,"pieces":"tetrominoes","moves":["I:a1,b1,c1,d1","O:a2,b2,a3,b3","L:c2,d2,e2,e3"],"budget_ms":5000}`)
	if code != 200 || len(a.Plies) != 3 || a.Plies[1].Player != "second" || a.Final.Markers == nil || a.Config.Game != "capture" || a.Source != "search" {
		t.Fatalf("capture: %d %+v", code, a)
	}
	for _, p := range a.Plies {
		if !p.Before.Proven || !p.After.Proven {
			t.Errorf("capture ply %d not proven in 5 s: %+v", p.Ply, p)
		}
	}
	// Board rows: the second player to move first there.
	code, a, _ = annotate(`{"game":"tetrominoes","board":["IIII.",".....",".....",".....","....."],"to_move":"second","moves":["O:a2,b2,a3,b3","L:c2,d2,e2,e3"],"budget_ms":5000}`)
	if code != 200 || a.Plies[0].Player != "second" || a.Plies[1].Player != "first" || a.Final.ToMove != "second" || a.Plies[0].Before.Outcome == "unknown" {
		t.Fatalf("from board rows: %d %+v", code, a)
	}
	if p := a.Plies[0]; p.After.Outcome != a.Plies[1].Before.Outcome || (p.Before.Result == "win") != (p.Before.Outcome == "second_wins") {
		t.Errorf("the first ply's values: %+v, the next's before %+v", p, a.Plies[1].Before)
	}
	code, a, p := annotate(`{"game":"capture","width":5,"height":5,"pieces":"tetrominoes","board":["IIII.",".....",".....",".....","....."],"markers":{"I":"first"},"to_move":"second","moves":["O:a2,b2,a3,b3","L:c2,d2,e2,e3","T:c3,b4,c4,d4"],"budget_ms":3000}`)
	if code != 200 || a.Plies[0].Player != "second" || a.Plies[1].Player != "first" || a.Plies[2].Player != "second" || a.Final.ToMove != "first" {
		t.Fatalf("capture from board rows: %d %+v %+v", code, a, p)
	}
	// Marks from the outcomes in the capture variant (its answers carry no
	// value: a review found every blunder is_best and no !! there), and a
	// forced winning move is !! (as Teeko's annotation reads the rule).
	for body, want := range map[string]string{
		`{"game":"capture","width":5,"height":5,"pieces":"tetrominoes","moves":["L:b4,c4,d4,d5","S:d2,e2,c3,d3","T:a2,b2,c2,b3","I:a1,b1,c1,d1","~S O:d2,e2,d3,e3","~T S:a2,b2,b3,c3"],"budget_ms":5000}`: "??? false,??? false,??? false,!! true,! true, true",
		`{"game":"tetrominoes","moves":["L:a1,b1,c1,c2","T:d3,c4,d4,e4","S:a3,a4,b4,b5","O:d1,e1,d2,e2"]}`:                                                                                                "??? false,??? false,??? false,!! true",
	} {
		code, a, p := annotate(body)
		var got []string
		for _, ply := range a.Plies {
			got = append(got, fmt.Sprintf("%s %v", ply.Mark, ply.IsBest))
		}
		if code != 200 || strings.Join(got, ",") != want {
			t.Errorf("%s: %d %v %+v; want marks and is_best %s", body, code, got, p, want)
		}
	}
	long := strings.Repeat(`"I:a1,b1,c1,d1",`, service.MaxAnnotatedMoves) + `"I:a1,b1,c1,d1"`
	if code, _, p := annotate(`{"game":"tetrominoes","moves":[` + long + `]}`); code != 400 || !strings.Contains(p.Detail, "at most 200") {
		t.Errorf("a game of %d moves: %d %+v", service.MaxAnnotatedMoves+1, code, p)
	}
	for _, tc := range []struct {
		body, field string
		index       int
	}{
		{`{"game":"tetrominoes"}`, "moves", -1},
		{`{"game":"tetrominoes","moves":["I:a1,b1,c1,d1","I:a2,b2,c2,d2"]}`, "moves", 1},
		{`{"game":"tetrominoes","moves":["I:a1,b1,c1,d1",7]}`, "moves", 1},
	} {
		code, _, p := annotate(tc.body)
		if code != 400 || len(p.Errors) != 1 || p.Errors[0].Field != tc.field || (tc.index < 0) != (p.Errors[0].Index == nil) || p.Errors[0].Index != nil && *p.Errors[0].Index != tc.index {
			t.Errorf("%s: %d %+v", tc.body, code, p)
		}
	}
}
