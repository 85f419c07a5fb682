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
// null) as required in their schemas and in those of the types they hold,
// so that generated clients need not treat them as optional. A test checks
// that every response schema of the document is listed.
func ResponseTypes() []any {
	return []any{GamesResponse{}, Health{}, Job{}, JobCreated{}, PolyominoAnalysis{}, PolyominoMovesResponse{},
		Problem{}, TeekoAnalysis{}, TeekoAnnotation{}, TeekoTablebase{}, TilingsResponse{}, problemKind{}, service.ReadyReport{}}
}
