package service

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// TestJobUnitsCarryCompactRequest: a polyomino.analyze job's units carry
// its request without the padding it was sent with (an audit's 60 KB of
// spaces in to_move were stored in each of a 16 x 16 board's 12,392
// units: 711 MB), and it reads back as the same position; a request too
// long for its units in all is refused.
func TestJobUnitsCarryCompactRequest(t *testing.T) {
	pad := strings.Repeat(" ", 4000)
	cases := []struct {
		name     string
		request  string
		maxQuery int // bytes of a unit's query at most
	}{
		{"padded words", `{"game":" pentominoes` + pad + `","width":8,"height":8,"pieces":"` + pad + `Y N  Z` + pad + `T V","end_rule":"` + pad + `normal","board":["........","..VVV...","..V.....","..V.....","........","........","........","....#..."],"to_move":"` + pad + `Second` + pad + `"}`, 300},
		{"padded between tokens", `{"game":"pentominoes",` + pad + `"width":8,"height":8,"pieces":"YNZTV","moves":["V:c2,d2,e2,c3,c4"]` + pad + `,"all_moves":true}`, 200},
		{"padded cells, moves and pieces", `{"game":"pentominoes","width":8,"height":8,"blocked":["` + pad + `h8` + pad + `"],"hands":{"first":["` + pad + `V","N"],"second":["Z` + pad + `","T","Y"]},"moves":["` + pad[:60] + `V:` + pad[:60] + `c2, d2,e2,c3,c4` + pad[:60] + `"],"budget_ms":700}`, 250},
		{"not padded", `{"game":"pentominoes","width":8,"height":8,"pieces":"YNZTV","moves":["V:c2,d2,e2,c3,c4"]}`, 200},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			j := PolyominoAnalyzeJob{}
			units, err := j.Plan(context.Background(), json.RawMessage(tc.request))
			if err != nil {
				t.Fatal(err)
			}
			q0, pos0, err := decodeQuery(json.RawMessage(tc.request))
			if err != nil {
				t.Fatal(err)
			}
			children := pos0.Children()
			if len(units) != len(children) {
				t.Fatalf("%d units, %d classes of moves", len(units), len(children))
			}
			var last json.RawMessage
			for i, raw := range units {
				var u polyUnit
				if err := json.Unmarshal(raw, &u); err != nil {
					t.Fatal(err)
				}
				if len(u.Query) > tc.maxQuery {
					t.Fatalf("unit %d carries %d bytes of query: %s", i, len(u.Query), u.Query)
				}
				if i > 0 && string(u.Query) == string(last) {
					continue // checked
				}
				last = u.Query
				q, pos, err := decodeQuery(u.Query)
				if err != nil {
					t.Fatalf("unit %d's query: %v", i, err)
				}
				if pos.String() != pos0.String() || pos.ToMove() != pos0.ToMove() || q.AllMoves != q0.AllMoves || q.BudgetMs != q0.BudgetMs {
					t.Fatalf("unit %d's query reads as another position:\n%s\nnot\n%s", i, pos, pos0)
				}
				if got := children[u.Index].Moves[0].String(); got != u.Move {
					t.Fatalf("unit %d: move %s, its class's %s", i, u.Move, got)
				}
			}
		})
	}
	// Its units' queries in all past maxJobQueryBytes, a job is refused,
	// not stored.
	request := json.RawMessage(`{"game":"pentominoes","width":8,"height":8,"pieces":"YNZTV","moves":["V:c2,d2,e2,c3,c4"]}`)
	units, err := PolyominoAnalyzeJob{}.Plan(context.Background(), request)
	if err != nil {
		t.Fatal(err)
	}
	defer func(was int) { maxJobQueryBytes = was }(maxJobQueryBytes)
	maxJobQueryBytes = len(units) * len(request) / 2
	_, err = PolyominoAnalyzeJob{}.Plan(context.Background(), request)
	var se *Error
	if !errors.As(err, &se) || se.Kind != KindInvalid || !strings.Contains(se.Message, "more than") {
		t.Errorf("a job past its cap: %v", err)
	}
}
