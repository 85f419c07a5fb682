package api

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestCaptureOverHTTP(t *testing.T) {
	r := newPolyominoServer(t, 5*time.Second)
	// The start: markers present and empty.
	w := do(r, "POST", "/v1/polyomino/analyze", "application/json", `{"game":"capture","budget_ms":200}`)
	if w.Code != 200 || !strings.Contains(w.Body.String(), `"markers":{}`) {
		t.Fatalf("start: %d %s", w.Code, w.Body)
	}
	// L captures I (4 shared edges): I carries second's marker.
	a := analyze(t, r, `{"game":"capture","moves":["I:b1,c1,d1,e1,f1","L:a1,a2,b2,c2,d2"],"budget_ms":300}`)
	if a.ToMove != "first" || (*a.Markers)["I"] != "second" || len(*a.Markers) != 1 || len(a.BestMoves) == 0 {
		t.Errorf("after a capture: %+v", a)
	}
	// Z recaptures: the marker flips.
	b := analyze(t, r, `{"game":"capture","moves":["I:b1,c1,d1,e1,f1","L:a1,a2,b2,c2,d2","Z:g1,e2,f2,g2,e3"],"budget_ms":300}`)
	if (*b.Markers)["I"] != "first" || b.Scores != [2]int{1, 0} {
		t.Errorf("after the recapture: markers %v, scores %v (the marked pieces of each)", b.Markers, b.Scores)
	}
	// From board, markers and pool: second removes his I and places Y.
	c := analyze(t, r, `{"game":"capture","board":["LIIIII.","LLLL...",".......",".......",".......",".......","......."],"markers":{"I":"second"},"pool":["Y","T","X"],"to_move":"second","budget_ms":300}`)
	if c.Pool == nil || len(*c.Pool) != 3 || (*c.Markers)["I"] != "second" {
		t.Errorf("from a board: %+v", c)
	}
	// A small board solved exactly: 4 x 4 with the tetrominoes.
	e := analyze(t, r, `{"game":"capture","width":4,"height":4,"pieces":"IOTSL","moves":["I:a1,b1,c1,d1"],"all_moves":true}`)
	if !e.Proven || e.Result != "win" || e.Outcome != "second_wins" || e.Moves == nil || len(*e.Moves) != e.LegalMoves {
		t.Errorf("4x4 capture: %+v", e)
	}
	// A whole set by name, as the other presets take it.
	g := analyze(t, r, `{"game":"capture","width":4,"height":4,"pieces":"tetrominoes","moves":["I:a1,b1,c1,d1"],"all_moves":true}`)
	if !g.Proven || g.Result != e.Result || g.Pool == nil || len(*g.Pool) != 4 {
		t.Errorf("4x4 capture with pieces \"tetrominoes\": %+v", g)
	}
	// order 4 makes I, L and T tetrominoes (else the preset's pentominoes).
	o := analyze(t, r, `{"game":"capture","width":4,"height":4,"order":4,"pieces":"ILT","all_moves":true}`)
	if !o.Proven || o.Pool == nil || joined(o.Pool) != "ITL" || o.LegalMoves != 8+48+24 {
		t.Errorf("4x4 capture with order 4, pieces ILT: %+v", o)
	}
	// The board rows give the board's size, as in the other presets.
	f := analyze(t, r, `{"game":"capture","board":["IIII","....","....","...."],"pieces":"IOTSL","all_moves":true}`)
	if len(f.Board) != 4 || f.Board[0] != "IIII" || !f.Proven || f.Moves == nil || len(*f.Moves) != f.LegalMoves {
		t.Errorf("4x4 capture from its rows: %+v", f)
	}
	if f.Result != e.Result || f.Outcome != e.Outcome {
		t.Errorf("4x4 capture from its rows: %s %s, from the moves: %s %s", f.Result, f.Outcome, e.Result, e.Outcome)
	}
	// Legal turns with their count.
	w = do(r, "POST", "/v1/polyomino/moves", "application/json", `{"game":"capture","moves":["I:b1,c1,d1,e1,f1","L:a1,a2,b2,c2,d2"]}`)
	var m PolyominoMovesResponse
	_ = json.Unmarshal(w.Body.Bytes(), &m)
	if w.Code != 200 || m.Count == 0 || m.DistinctUpToSymmetry == nil || *m.DistinctUpToSymmetry > m.Count {
		t.Errorf("capture moves: %d %+v", w.Code, m)
	}
	// The empty 7 x 7 board: the eight symmetries make classes.
	w = do(r, "POST", "/v1/polyomino/moves", "application/json", `{"game":"capture"}`)
	m = PolyominoMovesResponse{}
	_ = json.Unmarshal(w.Body.Bytes(), &m)
	if w.Code != 200 || m.DistinctUpToSymmetry == nil || 8**m.DistinctUpToSymmetry < m.Count || 2**m.DistinctUpToSymmetry > m.Count {
		t.Errorf("capture moves, empty board: %d %+v", w.Code, m.DistinctUpToSymmetry)
	}
}

func TestCaptureIllegalTurns(t *testing.T) {
	r := newPolyominoServer(t, time.Second)
	tests := []struct {
		name, body, field, detail string
	}{
		{"removal of the opponent's piece", `{"game":"capture","moves":["I:b1,c1,d1,e1,f1","L:a1,a2,b2,c2,d2","~I Z:g1,e2,f2,g2,e3"]}`, "moves", "carries second's marker"},
		{"piece already placed", `{"game":"capture","moves":["I:b1,c1,d1,e1,f1","I:a3,b3,c3,d3,e3"]}`, "moves", "turn 2"},
		{"hands do not apply", `{"game":"capture","hands":{"first":["F"],"second":["I"]}}`, "hands", "common pool"},
		{"no deal", `{"game":"capture","seed":1}`, "seed", "deals no hands"},
		{"no neutral piece", `{"game":"capture","neutral":["X:b2,a3,b3,c3,b4"]}`, "neutral", "no neutral piece"},
		{"markers outside capture", `{"game":"pentominoes","markers":{"I":"first"}}`, "markers", "capture"},
		{"to_move against the turns from the start", `{"game":"capture","width":3,"height":5,"pieces":"TSL","moves":["S:b1,b2,c2,c3","T:b3,b4,c4,b5"],"to_move":"second"}`, "to_move", "first player moves first"},
		{"to_move read as the first turn's player", `{"game":"capture","width":5,"height":6,"pieces":"PTVWXY","board":[".T...",".TTT.",".TWW.","..VWW","..V.W","..VVV"],"markers":{"V":"first","W":"second"},"pool":["P","X","Y"],"to_move":"first","moves":["~V Y:a2,a3,a4,b4,a5"]}`, "moves", "to_move names the player to move after the moves, first here: the turns are credited counting back from it; with to_move second they are legal"},
		{"a bad turn with to_move and board rows: no hint", `{"game":"capture","width":5,"height":6,"pieces":"PTVWXY","board":[".T...",".TTT.",".TWW.","..VWW","..V.W","..VVV"],"markers":{"V":"first","W":"second"},"pool":["P","X","Y"],"to_move":"second","moves":["Y:a2,a3,a4,b4,zz9"]}`, "moves", "zz9"},
		{"board wider than any", `{"game":"capture","board":["` + strings.Repeat(".", 17) + `"]}`, "board", "1 to 16"},
		{"pool false", `{"game":"capture","pool":false}`, "pool", ""},
		{"pool of the wrong type", `{"game":"capture","pool":7}`, "pool", ""},
		{"banned piece not in the pool", `{"game":"capture","board":["IIIII..",".......",".......",".......",".......",".......","......."],"banned":["I"]}`, "banned", "not in the pool"},
		{"pool piece on the board", `{"game":"capture","board":["IIIII..",".......",".......",".......",".......",".......","......."],"pool":["I"]}`, "pool", "on the board"},
		{"marker on a piece off the board", `{"game":"capture","board":["IIIII..",".......",".......",".......",".......",".......","......."],"markers":{"L":"first"}}`, "markers", "not on the board"},
		{"all_moves on 845,056 turns", manyTurns(`,"all_moves":true,"budget_ms":1`), "all_moves", "this position has 845056"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := do(r, "POST", "/v1/polyomino/analyze", "application/json", tt.body)
			if w.Code != 400 {
				t.Fatalf("status %d: %s", w.Code, w.Body)
			}
			p := decodeProblem(t, w)
			if len(p.Errors) == 0 || p.Errors[0].Field != tt.field || !strings.Contains(p.Detail, tt.detail) {
				t.Errorf("problem %+v; want field %q, detail containing %q", p, tt.field, tt.detail)
			}
			if strings.Contains(tt.name, "no hint") && strings.Contains(p.Detail, "to_move names") {
				t.Errorf("a hint about to_move on a turn no to_move makes legal: %s", p.Detail)
			}
		})
	}
}

// TestCapturePlies checks the capture variant's plies: odd for a win, even
// for a loss, the perfect move first, every move's own plies in the
// order perfect play prefers them, and each agreeing with the analysis of
// the position after it.
func TestCapturePlies(t *testing.T) {
	r := newPolyominoServer(t, 5*time.Second)
	const game = `"game":"capture","width":4,"height":4,"pieces":"IOTSL"`
	a := analyze(t, r, `{`+game+`,"moves":["I:a1,b1,c1,d1"],"all_moves":true,"budget_ms":3000}`)
	if !a.Proven || a.Result != "win" || a.Plies == nil || *a.Plies%2 != 1 || !a.PerfectFirst || a.Moves == nil {
		t.Fatalf("won position: %+v", a)
	}
	moves := *a.Moves
	if moves[0].Move != a.BestMoves[0] || moves[0].Plies == nil || *moves[0].Plies != *a.Plies-1 {
		t.Fatalf("the perfect move %s first, lasting %d plies after it: %+v", a.BestMoves[0], *a.Plies-1, moves[0])
	}
	last := map[string]int{"win": -1, "loss": 1 << 30}
	for _, m := range moves {
		if m.Plies == nil {
			t.Fatalf("%s (%s): no plies", m.Move, m.Result)
		}
		p := *m.Plies
		switch {
		case m.Result == "win" && (p%2 != 0 || p < last["win"] || p < *a.Plies-1):
			t.Errorf("win %s then %d plies (after %d, the game %d)", m.Move, p, last["win"], *a.Plies)
		case m.Result == "loss" && (p%2 != 1 || p > last["loss"]):
			t.Errorf("loss %s then %d plies (after %d)", m.Move, p, last["loss"])
		}
		last[m.Result] = p
	}
	// The position after each of a few moves lasts as long as the move
	// said; after the perfect move the opponent loses in plies - 1.
	for i, m := range moves {
		if i%7 != 0 {
			continue
		}
		b := analyze(t, r, `{`+game+`,"moves":["I:a1,b1,c1,d1","`+m.Move+`"],"budget_ms":3000}`)
		if want := map[string]string{"win": "loss", "loss": "win"}[m.Result]; b.Result != want || b.Plies == nil || *b.Plies != *m.Plies {
			t.Errorf("after %s (%s, %d plies): %s in %v", m.Move, m.Result, *m.Plies, b.Result, b.Plies)
		}
	}
	// A drawn position (a cycle played round, so that some turns repeat a
	// position for the third time): no plies, but its winning and losing
	// moves have theirs (an independent check found them missing).
	d := analyze(t, r, `{"game":"capture","width":5,"height":5,"pieces":["T","X","V","P","W"],"order":5,"board":["..T.#","..TTT","W.TX.","WWXXX",".WWX."],"pool":["V","P"],"markers":{"W":"first","X":"second"},"to_move":"second","moves":["~W P:a1,b1,a2,b2,b3","~X W:a3,a4,b4,b5,c5","~T X:d3,c4,d4,e4,d5","~P T:c1,c2,d2,e2,c3","~W P:a1,b1,a2,b2,b3","~X W:a3,a4,b4,b5,c5","~T X:d3,c4,d4,e4,d5"],"all_moves":true,"budget_ms":5000}`)
	if d.Result != "draw" || d.Plies != nil || d.Moves == nil {
		t.Fatalf("drawn position: %+v", d)
	}
	losses := 0
	for _, m := range *d.Moves {
		switch {
		case m.Result == "draw" && m.Plies != nil:
			t.Errorf("drawn position: the draw %s has plies %d", m.Move, *m.Plies)
		case m.Result == "loss" && (m.Plies == nil || *m.Plies%2 != 1):
			t.Errorf("drawn position: the loss %s has plies %v", m.Move, m.Plies)
		case m.Result == "loss":
			losses++
		}
	}
	if losses == 0 {
		t.Errorf("drawn position: no losing move (%d moves)", len(*d.Moves))
	}
	// A stuck player: the game is over, 0 plies.
	o := analyze(t, r, `{`+game+`,"board":["IIII","OOLL","OO.L","...L"],"to_move":"first"}`)
	if !o.GameOver || o.Result != "loss" || o.Plies == nil || *o.Plies != 0 {
		t.Errorf("stuck: %+v", o)
	}
}

// TestCaptureMovesListed: past 20,000 turns the capture variant lists each
// placement once and says the list is cut only when optional removals
// make more turns than placements; a complete list has its classes.
func TestCaptureMovesListed(t *testing.T) {
	r := newPolyominoServer(t, 5*time.Second)
	moves := func(body string) PolyominoMovesResponse {
		t.Helper()
		w := do(r, "POST", "/v1/polyomino/moves", "application/json", body)
		var m PolyominoMovesResponse
		if err := json.Unmarshal(w.Body.Bytes(), &m); w.Code != 200 || err != nil {
			t.Fatalf("%s: %d %s", body, w.Code, w.Body)
		}
		return m
	}
	// The empty 16 x 16 board with hexominoes: every turn a placement.
	capt := moves(`{"game":"capture","width":16,"height":16,"order":6}`)
	plain := moves(`{"game":"pentominoes","width":16,"height":16,"order":6}`)
	if capt.Count <= 20000 || capt.Truncated || len(capt.Moves) != capt.Count || capt.Count != plain.Count ||
		capt.DistinctUpToSymmetry == nil || plain.DistinctUpToSymmetry == nil || *capt.DistinctUpToSymmetry != *plain.DistinctUpToSymmetry {
		t.Errorf("empty 16 x 16 board: capture %d turns (truncated %v, %d listed, classes %v), without capture %d moves (classes %v)",
			capt.Count, capt.Truncated, len(capt.Moves), capt.DistinctUpToSymmetry, plain.Count, plain.DistinctUpToSymmetry)
	}
	// One marked piece of the mover's: each placement with or without its
	// removal.
	rows := `"AAAAAA.........."` + strings.Repeat(`,"................"`, 15)
	marked := moves(`{"game":"capture","width":16,"height":16,"order":6,"board":[` + rows + `],"markers":{"H01":"first"},"to_move":"first"}`)
	if !marked.Truncated || len(marked.Moves) >= marked.Count || marked.DistinctUpToSymmetry != nil {
		t.Errorf("a marked piece: %d turns, truncated %v, %d listed, classes %v", marked.Count, marked.Truncated, len(marked.Moves), marked.DistinctUpToSymmetry)
	}
}

// manyTurns is a capture position on 16 x 16 whose mover has eight marked
// pieces (each removal optional): 845,056 turns; extra ends its request.
func manyTurns(extra string) string {
	return `{"game":"capture","width":16,"height":16,"board":["IIIII.LLLL.NN...","......L.....NNN.","................","PP.TTT.U.U.V....","PP..T..UUU.V....","P...T......VVV..","................","W...............","WW..............",".WW.............","................","................","................","................","................","................"],` +
		`"markers":{"I":"first","L":"first","N":"first","P":"first","T":"first","U":"first","V":"first","W":"first"},"to_move":"first"` + extra + `}`
}

// TestCaptureManyTurns: a capture position of more turns than all_moves
// values (maxAllMovesTurns) is analyzed without all_moves, and annotated
// (an audit's all_moves request of 845,056 turns took 6-10 s of CPU with a
// 1 ms budget and answered 82 MB).
func TestCaptureManyTurns(t *testing.T) {
	r := newPolyominoServer(t, time.Second)
	a := analyze(t, r, manyTurns(`,"budget_ms":1`))
	if a.LegalMoves != 845056 || len(a.BestMoves) != 1 || a.Moves != nil {
		t.Errorf("without all_moves: %d legal moves, best %v, moves %v", a.LegalMoves, a.BestMoves, a.Moves != nil)
	}
	// An annotation whose first position has the turns: I removed, X
	// placed.
	body := manyTurns(`,"budget_ms":1,"moves":["~I X:b12,a13,b13,c13,b14"]`)
	w := do(r, "POST", "/v1/polyomino/annotate", "application/json", body)
	if w.Code != 200 {
		t.Fatalf("annotate: %d %s", w.Code, w.Body)
	}
}
