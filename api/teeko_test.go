package api

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"

	"github.com/gamesolver/gamesolver/service"
	"github.com/gamesolver/gamesolver/service/cache"
	"github.com/gamesolver/gamesolver/service/servicetest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

func newTeekoServer(t *testing.T) *gin.Engine {
	t.Helper()
	gin.SetMode(gin.TestMode)
	return New(Config{MaxBodyBytes: 64 << 10}, Deps{
		Log: zap.NewNop(), Registry: prometheus.NewRegistry(),
		Readiness: service.NewReadiness(cache.NewMemory(1<<20, 0)), Catalogue: &service.Catalogue{},
		Version: "test", StartedAt: time.Now(), Teeko: servicetest.Teeko(t),
	})
}

// elapsed values change from run to run; golden files hold a placeholder.
var elapsedRE = regexp.MustCompile(`"(elapsed_ms|load_ms)": ?[0-9.e-]+`)

// golden compares body with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, body []byte) {
	t.Helper()
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("%s: not JSON: %s", name, body)
	}
	pretty, _ := json.MarshalIndent(v, "", "  ")
	pretty = elapsedRE.ReplaceAll(pretty, []byte(`"$1":"(varies)"`))
	pretty = append(pretty, '\n')
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, pretty, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./api -update to create it)", err)
	}
	if string(want) != string(pretty) {
		t.Errorf("%s differs from the golden file; got:\n%s", path, pretty)
	}
}

func TestTeekoGolden(t *testing.T) {
	r := newTeekoServer(t)
	tests := []struct {
		name, method, path, body string
		status                   int
	}{
		{"teeko_analyze_empty_standard.json", "POST", "/v1/teeko/analyze", `{}`, 200},
		{"teeko_analyze_empty_advanced.json", "POST", "/v1/teeko/analyze", `{"rules":"advanced"}`, 200},
		{"teeko_analyze_board.json", "POST", "/v1/teeko/analyze", `{"board":"...........br.rb.r.b..b..","to_move":"red"}`, 200},
		{"teeko_analyze_move_phase.json", "POST", "/v1/teeko/analyze", `{"black":[1,7,13,20],"red":[2,3,9,25],"to_move":"red"}`, 200},
		{"teeko_analyze_moves_alternate.json", "POST", "/v1/teeko/analyze", `{"drop_style":"alternate","moves":["13","7","12"]}`, 200},
		{"teeko_analyze_over.json", "POST", "/v1/teeko/analyze", `{"board":"bbbb.rrr................."}`, 200},
		{"teeko_analyze_won.json", "POST", "/v1/teeko/analyze", `{"moves":["1","6","2","7","3","8","4"]}`, 200},
		{"teeko_annotate.json", "POST", "/v1/teeko/annotate", `{"moves":["13","7","12","8","14","9","11"]}`, 200},
		{"teeko_tablebase_standard.json", "GET", "/v1/teeko/tablebase?rules=standard&drop_style=standard", ``, 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := do(r, tt.method, tt.path, "application/json", tt.body)
			if w.Code != tt.status {
				t.Fatalf("status %d, want %d: %s", w.Code, tt.status, w.Body)
			}
			golden(t, tt.name, w.Body.Bytes())
		})
	}
}

func TestTeekoBadInput(t *testing.T) {
	r := newTeekoServer(t)
	tests := []struct {
		name, path, body, field, detail string
	}{
		{"short board", "/v1/teeko/analyze", `{"board":"bbb"}`, "board", "25"},
		{"bad character", "/v1/teeko/analyze", `{"board":"x........................"}`, "board", "'x'"},
		{"two ways", "/v1/teeko/analyze", `{"board":".........................","moves":[]}`, "board", "one way only"},
		{"empty lists and moves", "/v1/teeko/analyze", `{"black":[],"red":[],"moves":["13","3"]}`, "board", "empty lists are the empty board: leave them out, or send null"},
		{"to_move required", "/v1/teeko/analyze", `{"black":[1,2,3,7],"red":[20,21,22,23]}`, "to_move", "to move"},
		{"to_move wrong word", "/v1/teeko/analyze", `{"board":".........................","to_move":"green"}`, "to_move", "expected black or red"},
		{"to_move contradicts", "/v1/teeko/analyze", `{"board":".........................","to_move":"red"}`, "to_move", ""},
		{"to_move contradicts moves", "/v1/teeko/analyze", `{"moves":["13"],"to_move":"black"}`, "to_move", "after them red is to move"},
		{"to_move contradicts the start", "/v1/teeko/analyze", `{"to_move":"red"}`, "to_move", "the game starts, black to move"},
		{"to_move contradicts the start, another drop style", "/v1/teeko/analyze", `{"drop_style":"alternate","to_move":"red"}`, "to_move", "contradicts the start"},
		{"square off board", "/v1/teeko/analyze", `{"black":[26]}`, "black", "26"},
		{"move off board", "/v1/teeko/analyze", `{"moves":["13","0"]}`, "moves", `move 2: "0": square 0 is off the board (1..25)`},
		{"red square off board", "/v1/teeko/analyze", `{"black":[1,2],"red":[30]}`, "red", "red square 30"},
		{"red square twice", "/v1/teeko/analyze", `{"black":[1,2],"red":[3,3]}`, "red", "listed twice for red"},
		{"both configured", "/v1/teeko/analyze", `{"black":[1,2,3,4],"red":[21,22,23,24],"to_move":"black"}`, "black", ""},
		{"too many black", "/v1/teeko/analyze", `{"black":[1,2,3],"red":[9]}`, "black", ""},
		{"too many red", "/v1/teeko/analyze", `{"black":[1,2,3,4],"red":[9,10,11,12,14]}`, "red", "red has 5 pieces"},
		{"fewer black than red", "/v1/teeko/analyze", `{"black":[1],"red":[9,10,11]}`, "black", "black has 1 pieces and red 3"},
		{"too many black on the board", "/v1/teeko/analyze", `{"board":"BBB......R..............."}`, "board", ""},
		{"illegal move", "/v1/teeko/analyze", `{"moves":["13","13"]}`, "moves", "move 2"},
		{"bad notation", "/v1/teeko/analyze", `{"moves":["13","x"]}`, "moves", "move 2"},
		{"bad rules", "/v1/teeko/analyze", `{"rules":"expert"}`, "rules", "expected standard or advanced"},
		{"bad drop style", "/v1/teeko/analyze", `{"drop_style":"random"}`, "drop_style", "three-move-standard"},
		{"annotate empty", "/v1/teeko/annotate", `{"moves":[]}`, "moves", "empty"},
		{"annotate without moves", "/v1/teeko/annotate", `{}`, "moves", "moves is required"},
		{"annotate null moves", "/v1/teeko/annotate", `{"moves":null}`, "moves", "moves is required"},
		{"annotate illegal", "/v1/teeko/annotate", `{"moves":["13","7","12-8"]}`, "moves", "move 3"},
		{"annotate unknown field", "/v1/teeko/annotate", `{"moves":["13"],"board":"x"}`, "board", "unknown field"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := do(r, "POST", tt.path, "application/json", tt.body)
			if w.Code != 400 {
				t.Fatalf("status %d, want 400: %s", w.Code, w.Body)
			}
			p := decodeProblem(t, w)
			if len(p.Errors) == 0 || p.Errors[0].Field != tt.field {
				t.Errorf("errors = %+v, want field %q", p.Errors, tt.field)
			}
			if !strings.Contains(p.Detail, tt.detail) {
				t.Errorf("detail %q lacks %q", p.Detail, tt.detail)
			}
		})
	}
	w := do(r, "GET", "/v1/teeko/tablebase?rules=standard&colour=red", "", "")
	if p := decodeProblem(t, w); w.Code != 400 || p.Errors[0].Field != "colour" {
		t.Errorf("unknown query parameter: %d %+v", w.Code, p)
	}
	w = do(r, "GET", "/v1/teeko/tablebase?rules=standard&rules=advanced", "", "")
	if p := decodeProblem(t, w); w.Code != 400 || p.Errors[0].Field != "rules" || !strings.Contains(p.Detail, "given 2 times") {
		t.Errorf("query parameter twice: %d %+v", w.Code, p)
	}
	// An empty value is the parameter left out, as the document says.
	if a, b := do(r, "GET", "/v1/teeko/tablebase", "", ""), do(r, "GET", "/v1/teeko/tablebase?rules=&drop_style=", "", ""); a.Code != 200 || b.Code != 200 || a.Body.String() != b.Body.String() {
		t.Errorf("empty query parameters: %d %s against %d %s", b.Code, b.Body, a.Code, a.Body)
	}
}

// TestTeekoMovesSortedBestFirst checks the order of moves for the decider
// on a sample of positions reached by the analysis itself.
func TestTeekoMovesSortedBestFirst(t *testing.T) {
	r := newTeekoServer(t)
	rank := func(m TeekoMove) int {
		switch m.Result {
		case "win":
			return 1000 - *m.Plies
		case "draw":
			return 0
		}
		return -1000 + *m.Plies
	}
	for _, body := range []string{`{}`, `{"rules":"advanced"}`, `{"moves":["13","7","12","8"],"drop_style":"one-move-standard"}`, `{"black":[1,7,13,20],"red":[2,3,9,25],"to_move":"black"}`, `{"moves":["13"],"to_move":"red"}`} {
		w := do(r, "POST", "/v1/teeko/analyze", "application/json", body)
		var a TeekoAnalysis
		if err := json.Unmarshal(w.Body.Bytes(), &a); err != nil || w.Code != 200 {
			t.Fatalf("%s: %d %s", body, w.Code, w.Body)
		}
		for i := 1; i < len(a.Moves); i++ {
			if rank(a.Moves[i]) > rank(a.Moves[i-1]) {
				t.Errorf("%s: move %d (%+v) better than move %d (%+v)", body, i, a.Moves[i], i-1, a.Moves[i-1])
			}
		}
		nBest := 0
		for _, m := range a.Moves {
			if rank(m) == rank(a.Moves[0]) {
				nBest++
			}
		}
		if nBest != len(a.BestMoves) || a.Result != a.Moves[0].Result {
			t.Errorf("%s: %d best moves listed, %d tie for best; result %s vs best move %s", body, len(a.BestMoves), nBest, a.Result, a.Moves[0].Result)
		}
	}
}
