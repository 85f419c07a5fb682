package api

import "github.com/gamesolver/gamesolver/service"

// RequestExample is a valid request body of some operations, shown in the
// OpenAPI document as the example of its schema: Swagger UI's "Try it out"
// starts from it. (swag can give an example per field only, and the merge
// of those is no valid request: board and moves together, hands with a
// common pool, Teeko's board and its lists of squares.) make openapi puts
// them into openapi/swagger.json and swagger.yaml; a test sends each to
// its operations.
type RequestExample struct {
	Definition string   // the schema's name in the document
	Paths      []string // the operations (POST) that take it
	Body       string
}

// RequestExamples returns the examples of every request body schema.
func RequestExamples() []RequestExample {
	return []RequestExample{
		{"api.PolyominoRequest", []string{"/v1/polyomino/analyze", "/v1/polyomino/moves"},
			`{"game": "pentominoes", "moves": ["L:c4,d4,e4,f4,c5"], "budget_ms": 2000}`},
		{"api.TilingsRequest", []string{"/v1/polyomino/tilings"},
			`{"width": 10, "height": 6, "pieces": "FILNPTUVWXYZ", "limit": 2}`},
		{"api.TeekoAnalyzeRequest", []string{"/v1/teeko/analyze"},
			`{"rules": "standard", "moves": ["13", "7", "12"]}`},
		{"api.TeekoAnnotateRequest", []string{"/v1/teeko/annotate"},
			`{"rules": "standard", "moves": ["13", "7", "12", "8", "14", "9", "11"]}`},
		{"api.JobRequest", []string{"/v1/jobs"},
			`{"type": "polyomino.tilings", "request": {"width": 12, "height": 5, "limit": 1}}`},
	}
}

// UntypedFields returns the request fields whose JSON type varies, which
// Swagger 2.0 cannot say (it has no "one of"), by schema: make openapi
// leaves their type open in the document (swag writes the type of the
// swaggertype tag), and their description says what they take. pool is
// true or false, or in the capture variant a list of pieces; pieces a
// string or a list of names.
func UntypedFields() map[string][]string {
	return map[string][]string{"api.PolyominoRequest": {"pool", "pieces"}, "api.TilingsRequest": {"pieces"}}
}

// ResponseTypes returns a value of every type an operation answers with:
// make openapi marks the fields encoding/json always writes (not
// omitempty, and not a pointer, slice, map or interface, which may be
// null, unless the schema says the field may be null: a Teeko answer's
// plies) as required in their schemas and in those of the types they hold,
// so that generated clients need not treat them as optional. A test checks
// that every response schema of the document is listed.
func ResponseTypes() []any {
	return []any{GamesResponse{}, Health{}, Job{}, JobCreated{}, PolyominoAnalysis{}, PolyominoAnnotation{}, PolyominoMovesResponse{},
		Problem{}, TeekoAnalysis{}, TeekoAnnotation{}, TeekoTablebase{}, TilingsResponse{}, problemKind{}, service.ReadyReport{}}
}

// ResponseExample is a real answer shown as the example of a response
// schema: swag merges the examples of its fields, and for some schemas
// that merge is an answer no request gets (a Teeko ply marked "!" at the
// first ply, lost in 5; the empty Teeko board won). make openapi puts
// them into the document; a test sends Request (the body of a POST, or
// none for a GET) to Path and finds Body in the answer (the element of
// the answer's list Within, when set), its timings aside.
type ResponseExample struct {
	Definition string
	Method     string
	Path       string
	Request    string
	Within     string
	Body       string
}

// ResponseExamples returns the examples of the response schemas whose
// fields' examples do not make a real answer.
func ResponseExamples() []ResponseExample {
	return []ResponseExample{
		{"api.PolyominoAnalysis", "POST", "/v1/polyomino/analyze", RequestExamples()[0].Body, "",
			`{"game": "pentominoes", "config": {"game": "pentominoes", "width": 8, "height": 8, "blocked": [], "order": 5,
			"pieces": ["F", "I", "L", "N", "P", "T", "U", "V", "W", "X", "Y", "Z"], "pool": true, "neutral": [], "end_rule": "normal"},
			"board": ["........", "........", "........", "..LLLL..", "..L.....", "........", "........", "........"],
			"to_move": "second", "result": "win", "outcome": "second_wins", "proven": true, "plies": 9, "scores": [1, 0],
			"pieces_left": {"pool": ["F", "I", "N", "P", "T", "U", "V", "W", "X", "Y", "Z"]},
			"best_moves": ["I:c8,d8,e8,f8,g8", "I:d8,e8,f8,g8,h8"], "best_complete": true, "perfect_first": true,
			"heuristic": false, "legal_moves": 1181, "game_over": false, "pass": false, "source": "book", "stats": {"elapsed_ms": 0.99}}`},
		{"api.TeekoAnnotatedPly", "POST", "/v1/teeko/annotate", RequestExamples()[3].Body, "plies",
			`{"ply": 4, "player": "red", "decides": "red", "move": "8", "mark": "??",
			"before": {"outcome": "draw", "plies": null}, "after": {"outcome": "black_wins", "plies": 3},
			"best_moves": ["14"], "best_value": {"outcome": "draw", "plies": null}, "is_best": false}`},
		{"api.TeekoTablebase", "GET", "/v1/teeko/tablebase", "", "",
			`{"rules": "standard", "drop_style": "standard",
			"positions": {"move_phase": {"black_wins": 25606338, "red_wins": 7493341, "draws": 42347231, "total": 75446910},
			"move_phase_over": 262332,
			"drop_phase": {"black_wins": 1988088, "red_wins": 6818486, "draws": 12174652, "total": 20981226},
			"drop_levels": [{"black_wins": 0, "red_wins": 0, "draws": 1, "total": 1}, {"black_wins": 0, "red_wins": 0, "draws": 25, "total": 25},
			{"black_wins": 152, "red_wins": 0, "draws": 448, "total": 600}, {"black_wins": 180, "red_wins": 1970, "draws": 4750, "total": 6900},
			{"black_wins": 19822, "red_wins": 2820, "draws": 53258, "total": 75900}, {"black_wins": 15578, "red_wins": 189292, "draws": 326430, "total": 531300},
			{"black_wins": 1025052, "red_wins": 225328, "draws": 2291620, "total": 3542000}, {"black_wins": 927304, "red_wins": 6399076, "draws": 9498120, "total": 16824500}]},
			"empty_board": {"outcome": "draw", "plies": null}, "longest_win_plies": 39, "file_bytes": 3229193, "load_ms": 407.5}`},
		{"api.PolyominoMovesResponse", "POST", "/v1/polyomino/moves",
			`{"game": "tetrominoes", "width": 4, "height": 4, "board": ["IIII", "....", "TTT.", ".T.."]}`, "",
			`{"count": 3, "distinct_up_to_symmetry": 3, "moves": ["L:b2,c2,d2,d3", "L:c2,d2,d3,d4", "L:d2,d3,c4,d4"],
			"to_move": "first", "board": ["IIII", "....", "TTT.", ".T.."], "game_over": false, "pass": false,
			"scores": [1, 1], "pieces_left": {"pool": ["O", "S", "L"]}, "config": {"game": "tetrominoes", "width": 4, "height": 4,
			"blocked": [], "order": 4, "pieces": ["I", "O", "T", "S", "L"], "pool": true, "neutral": [], "end_rule": "normal"}}`},
		{"api.PolyominoAnnotation", "POST", "/v1/polyomino/annotate", `{"game": "tetrominoes", "width": 4, "height": 4, "moves": ["I:a1,b1,c1,d1", "T:a2,b2,c2,b3"]}`, "",
			`{"game": "tetrominoes", "config": {"game": "tetrominoes", "width": 4, "height": 4, "blocked": [], "order": 4, "pieces": ["I", "O", "T", "S", "L"],
			"pool": true, "neutral": [], "end_rule": "normal"},
			"plies": [{"ply": 1, "player": "first", "move": "I:a1,b1,c1,d1", "mark": "???",
			"before": {"outcome": "first_wins", "result": "win", "proven": true, "plies": 3},
			"after": {"outcome": "second_wins", "result": "loss", "proven": true, "plies": 1},
			"best_moves": ["O:b2,c2,b3,c3", "T:a2,b2,c2,b3", "T:b2,c2,d2,c3", "T:b2,a3,b3,c3", "T:c2,b3,c3,d3", "T:b1,b2,c2,b3", "T:b2,b3,c3,b4",
			"T:c1,b2,c2,c3", "T:c2,b3,c3,c4", "S:a2,b2,b3,c3", "S:b2,c2,c3,d3", "S:b2,c2,a3,b3", "S:c2,d2,b3,c3", "S:b1,b2,c2,c3", "S:b2,b3,c3,c4",
			"S:c1,b2,c2,b3", "S:c2,b3,c3,b4"], "best_complete": true, "is_best": false, "after_pass": false},
			{"ply": 2, "player": "second", "move": "T:a2,b2,c2,b3", "mark": "???",
			"before": {"outcome": "second_wins", "result": "win", "proven": true, "plies": 1},
			"after": {"outcome": "first_wins", "result": "loss", "proven": true, "plies": 1},
			"best_moves": ["L:a3,b3,c3,a4", "L:b3,c3,d3,d4", "L:a2,a3,b3,c3", "L:d2,b3,c3,d3", "L:b3,c3,d3,b4", "L:a3,b3,c3,c4", "L:b2,b3,c3,d3", "L:c2,a3,b3,c3"],
			"best_complete": true, "is_best": false, "after_pass": false}],
			"final": {"game": "tetrominoes", "config": {"game": "tetrominoes", "width": 4, "height": 4, "blocked": [], "order": 4,
			"pieces": ["I", "O", "T", "S", "L"], "pool": true, "neutral": [], "end_rule": "normal"},
			"board": ["IIII", "TTT.", ".T..", "...."], "to_move": "first", "result": "win", "outcome": "first_wins", "proven": true, "plies": 1,
			"scores": [1, 1], "pieces_left": {"pool": ["O", "S", "L"]},
			"best_moves": ["O:c3,d3,c4,d4", "S:c3,d3,b4,c4", "S:d2,c3,d3,c4", "L:a3,a4,b4,c4", "L:c3,a4,b4,c4", "L:d3,b4,c4,d4", "L:d2,d3,c4,d4"],
			"best_complete": true, "perfect_first": true, "heuristic": false, "legal_moves": 7, "game_over": false, "pass": false, "source": "search",
			"stats": {"elapsed_ms": 0.21, "nodes": 2}},
			"unanalyzed": 0, "source": "search", "stats": {"elapsed_ms": 36.1, "nodes": 238}}`},
		{"api.TilingsResponse", "POST", "/v1/polyomino/tilings", `{"width": 5, "height": 3, "pieces": "LTY", "limit": 1}`, "",
			`{"count": 1, "count_all": 4, "symmetries": 4, "solutions": [["LLLLT", "LYTTT", "YYYYT"]],
			"placements": [["L:a1,b1,c1,d1,a2", "T:e1,c2,d2,e2,e3", "Y:b2,a3,b3,c3,d3"]], "complete": true,
			"region": [".....", ".....", "....."], "pieces": "LTY", "source": "search", "stats": {"elapsed_ms": 0.23, "nodes": 7}}`},
	}
}
