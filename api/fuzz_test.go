package api

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"

	"github.com/gamesolver/gamesolver/service"
	"github.com/gamesolver/gamesolver/service/cache"
	"github.com/gamesolver/gamesolver/service/jobs"
	"github.com/gamesolver/gamesolver/service/servicetest"
)

var (
	fuzzOnce   sync.Once
	fuzzRouter *gin.Engine
)

// fuzzServer is the real router with every engine, small budgets.
func fuzzServer(t testing.TB) *gin.Engine {
	fuzzOnce.Do(func() {
		gin.SetMode(gin.TestMode)
		reg := prometheus.NewRegistry()
		s := newSearcher(reg, 50*time.Millisecond)
		// Jobs are planned and stored, never run (no worker): at most
		// 64 of them, the others refused as too many.
		store, err := jobs.NewMemoryStore("")
		if err != nil {
			t.Fatal(err)
		}
		jm, err := jobs.NewManager(store, []jobs.Kind{service.TilingsJob{Tilings: service.NewTilings(s), MaxDuration: time.Second},
			service.PolyominoAnalyzeJob{Search: s, MaxDuration: time.Second, Workers: 1}, service.NewBookJob(time.Second, 1, 8)},
			jobs.Options{Logger: zap.NewNop(), MaxActive: 64})
		if err != nil {
			t.Fatal(err)
		}
		fuzzRouter = New(Config{MaxBodyBytes: 64 << 10}, Deps{
			Log: zap.NewNop(), Registry: reg,
			Readiness: service.NewReadiness(cache.NewMemory(1<<20, 0)), Catalogue: &service.Catalogue{},
			Teeko: servicetest.Teeko(t), Polyomino: service.NewPolyomino(s), Tilings: service.NewTilings(s), Jobs: jm,
		})
	})
	return fuzzRouter
}

// checkAnswer: user input never causes a 5xx other than 503, and every
// error is problem+json.
func checkAnswer(t *testing.T, path, body string, code int, ct string) {
	t.Helper()
	if code >= 500 && code != http.StatusServiceUnavailable {
		t.Fatalf("POST %s %q: status %d", path, body, code)
	}
	if code >= 400 && ct != "application/problem+json" {
		t.Fatalf("POST %s %q: %d with Content-Type %q", path, body, code, ct)
	}
}

func fuzzHandler(f *testing.F, path string, seeds ...string) {
	for _, s := range seeds {
		f.Add(s)
	}
	// Built before fuzzing: the Teeko tablebase takes longer than the fuzz
	// engine lets one input run before it calls the worker hung.
	r := fuzzServer(f)
	f.Fuzz(func(t *testing.T, body string) {
		w := do(r, "POST", path, "application/json", body)
		checkAnswer(t, path, body, w.Code, w.Header().Get("Content-Type"))
		if w.Code == 200 && !json.Valid(w.Body.Bytes()) {
			t.Fatalf("POST %s %q: invalid JSON answer", path, body)
		}
		req := httptest.NewRequest("POST", path, nil)
		req.Header.Set("Content-Type", "application/json")
		if err := conformance.v.Check(req, []byte(body), w.Code, w.Header(), w.Body.Bytes()); err != nil {
			t.Fatalf("body %q: %v", body, err)
		}
	})
}

func FuzzTeekoAnalyzeHandler(f *testing.F) {
	fuzzHandler(f, "/v1/teeko/analyze", `{}`, `{"rules":"advanced"}`,
		`{"board":"...........br.rb.r.b..b..","to_move":"red"}`, `{"black":[1,7,13,20],"red":[2,3,9,25],"to_move":"red"}`,
		`{"moves":["13","7","12-8"]}`, `{"drop_style":"three-move-standard","moves":["1"]}`, `{"board":"BBBB.RRR................."}`,
		`{"black":[0],"red":[26]}`, `[]`, `{"board":null}`, `{"moves":["14-9","x"]}`, `{"rules":" Advanced ","drop_style":"Alternate "}`)
}

func FuzzTeekoAnnotateHandler(f *testing.F) {
	fuzzHandler(f, "/v1/teeko/annotate", `{"moves":["13","7","12","8","14","9","11"]}`,
		`{"rules":"advanced","drop_style":"alternate","moves":["13"]}`, `{"moves":[]}`, `{"moves":["1","2","3","4","5","6","7","8","1-9"]}`)
}

func FuzzPolyominoAnalyzeHandler(f *testing.F) {
	fuzzHandler(f, "/v1/polyomino/analyze", `{"game":"tetrominoes"}`, `{"moves":["L:a1,a2,a3,a4,b4"],"budget_ms":1}`,
		`{"width":5,"height":5,"hands":{"first":["F","I"],"second":["L","N"]},"end_rule":"score"}`,
		`{"board":["AA......","AA......"]}`, `{"game":"hexominoes","seed":7,"budget_ms":1}`, `{"width":0}`, `{"pieces":"H01,O"}`,
		`{"blocked":["a1","p16"],"to_move":"second"}`, `{"neutral":["X:c2,b3,c3,d3,c4"],"pool":false}`,
		`{"width":16,"height":16,"budget_ms":1}`, `{"game":"tetrominoes","board":["IIII....","........"],"pieces":"pentominoes"}`,
		`{"width":6,"height":6,"pieces":"H09,H10,H12,H15","neutral":["H10:a2,b2,c2,d2,a3,a4"],"hands":{"first":["H09"],"second":["H12","H15"]},"board":["......","####..","#.....","#.....","......","......"],"budget_ms":1}`,
		`{"game":"capture","width":4,"height":4,"pieces":"tetrominoes","moves":["I:a1,b1,c1,d1"],"to_move":"first","budget_ms":1}`,
		`{"game":"capture","width":4,"height":4,"order":4,"pieces":"ILT","budget_ms":1}`, `{"order":6,"width":6,"height":6,"budget_ms":1}`,
		`{"game":"capture","width":4,"height":4,"pieces":"IOTSL","moves":["I:a1,b1,c1,d1"],"all_moves":true,"budget_ms":50}`)
}

func FuzzPolyominoMovesHandler(f *testing.F) {
	fuzzHandler(f, "/v1/polyomino/moves", `{}`, `{"game":"capture"}`, `{"moves":["I:a1,a2,a3,a4,a5","L:c1,c2,c3,c4,d4"]}`,
		`{"board":["I.......","I.......","I.......","I.......","I......."]}`,
		`{"game":"capture","moves":["I:b1,c1,d1,e1,f1","T:c2,d2,e2,d3,d4","X:d5,c6,d6,e6,d7"]}`, `{"game":"capture","width":16,"height":16}`,
		`{"game":"tetrominoes","width":4,"height":4,"board":["LLL.","L...","....","...."],"blocked":["d1","d2"]}`,
		`{"game":"capture","board":["FF.....","IFF....","IF.....","IPP....","IPP....","IP.....","......."],"markers":{"I":"second","P":"first"},"to_move":"first","moves":["~P Y:d2,c3,d3,d4,d5","~I P:b4,c4,b5,c5,b6","~F I:a2,a3,a4,a5,a6","~Y F:a1,b1,b2,c2,b3","~P Y:d2,c3,d3,d4,d5","~I P:b4,c4,b5,c5,b6","~F I:a2,a3,a4,a5,a6","~Y F:a1,b1,b2,c2,b3"]}`,
		`{"width":4,"height":2,"hands":{"first":["I"],"second":["P"]},"end_rule":"score"}`)
}

func FuzzPolyominoAnnotateHandler(f *testing.F) {
	fuzzHandler(f, "/v1/polyomino/annotate", `{"game":"tetrominoes","width":4,"height":4,"moves":["I:a1,b1,c1,d1","T:a2,b2,c2,b3"]}`,
		`{"moves":[]}`, `{"game":"tetrominoes","moves":["I:a1,b1,c1,d1","I:a1,b1,c1,d1"]}`,
		`{"game":"capture","width":5,"height":5,"pieces":"tetrominoes","moves":["L:b4,c4,d4,d5","S:d2,e2,c3,d3","~L T:a2,b2,c2,b3"],"budget_ms":5}`,
		`{"width":6,"height":6,"hands":{"first":["F","I","L","N","P","T"],"second":["U","V","W","X","Y","Z"]},"end_rule":"score","moves":["L:f1,f2,f3,e4,f4","W:d2,c3,d3,b4,c4","P:d5,e5,f5,d6,e6","Y:a1,a2,b2,a3,a4","U:a5,a6,b6,c6,c5"],"budget_ms":5}`,
		`{"game":"tetrominoes","board":["IIII.",".....",".....",".....","....."],"to_move":"second","moves":["O:a2,b2,a3,b3"]}`,
		`{"game":"hexominoes","moves":["H01:a1,b1,c1,d1,e1,f1"],"budget_ms":1}`)
}

func FuzzTilingsHandler(f *testing.F) {
	fuzzHandler(f, "/v1/polyomino/tilings", `{"width":10,"height":6,"limit":1,"budget_ms":1}`, `{"width":5,"height":4,"pieces":"tetrominoes"}`,
		`{"board":["#....","....."],"pieces":"II","multiset":true,"allow_leftover":true}`, `{"width":3,"height":3,"pieces":"h1"}`)
}

func TestFuzzSeedsDoNotPanicOnPrefixes(t *testing.T) {
	// Every prefix of a valid body: truncated JSON must be a clean 400.
	r := fuzzServer(t)
	body := `{"rules":"standard","drop_style":"alternate","moves":["13","7","12"]}`
	for i := range len(body) {
		w := do(r, "POST", "/v1/teeko/analyze", "application/json", body[:i])
		checkAnswer(t, "/v1/teeko/analyze", body[:i], w.Code, w.Header().Get("Content-Type"))
		if w.Code != 400 {
			t.Fatalf("prefix %q: %d", body[:i], w.Code)
		}
	}
}

func FuzzJobsCreateHandler(f *testing.F) {
	fuzzHandler(f, "/v1/jobs", `{"type":"polyomino.tilings","request":{"width":12,"height":5}}`,
		`{"type":"polyomino.analyze","request":{"game":"tetrominoes","all_moves":true}}`,
		`{"type":"polyomino.analyze","request":{"game":"capture","moves":["I:a1,b1,c1,d1,e1"]}}`,
		`{"type":"polyomino.analyze","request":{"moves":["L:c4,d4,e4,f4,c5","I:a1,a2,a3,a4,a5"],"all_moves":true}}`,
		`{"type":"polyomino.book","request":{"moves":["L:c4,d4,e4,f4,c5"],"classes":[0,1],"until_win":true}}`,
		`{"type":"polyomino.analyze","request":{"game":"tetrominoes","budget_ms":-5}}`,
		`{"type":"polyomino.analyze","request":{"board":[]}}`, `{"type":"polyomino.analyze"}`,
		`{"type":"chess","request":{}}`, `{"type":"polyomino.tilings","request":null}`, `[]`)
}

// FuzzQueryHandler: the query string of the GET endpoints that read one
// (the Teeko tablebase's parameters) or refuse any (the catalogue).
func FuzzQueryHandler(f *testing.F) {
	for _, s := range []string{"rules=standard&drop_style=standard", "rules=advanced", "", "rules=&drop_style=",
		"rules=standard&rules=advanced", "colour=red", "rules=%zz", "drop_style=three-move-standard&rules=standard", "a=1;b=2"} {
		f.Add(s)
	}
	r := fuzzServer(f)
	f.Fuzz(func(t *testing.T, query string) {
		for _, path := range []string{"/v1/teeko/tablebase", "/v1/games"} {
			req := httptest.NewRequest("GET", path, nil)
			req.URL.RawQuery = query
			sent := req.Clone(req.Context())
			w := httptest.NewRecorder()
			r.ServeHTTP(w, req)
			checkAnswer(t, path+"?"+query, "", w.Code, w.Header().Get("Content-Type"))
			if w.Code == 200 && !json.Valid(w.Body.Bytes()) {
				t.Fatalf("GET %s?%s: invalid JSON answer", path, query)
			}
			if err := conformance.v.Check(sent, nil, w.Code, w.Header(), w.Body.Bytes()); err != nil {
				t.Fatalf("GET %s?%q: %v", path, query, err)
			}
		}
	})
}
