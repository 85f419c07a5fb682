package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/gamesolver/gamesolver/engine/teeko"
	"github.com/gamesolver/gamesolver/service"
)

const solveUsage = `usage: gamesolver solve [flags] OPERATION [BODY]
       gamesolver tile [flags] [BODY]          (the same as: solve tilings)

Answers one request of the HTTP API in process and prints its JSON answer:
the same validation, limits and answers as the server, without a server.

OPERATION   teeko (POST /v1/teeko/analyze), teeko/annotate,
            polyomino (POST /v1/polyomino/analyze), polyomino/moves,
            polyomino/annotate, tilings (POST /v1/polyomino/tilings); a path such as
            /v1/polyomino/moves is taken too; games (GET /v1/games: the
            games, presets, pieces and house rules; no body)
BODY        the request body as in API.md: JSON on the command line,
            @FILE to read a file, - or nothing to read standard input

Flags come before OPERATION; they are serve's flags (gamesolver serve -h)
and read the same environment variables, with defaults fit for one
request: --default-budget 1m (the budget when the body has no budget_ms),
--max-budget 24h, --solver-workers every core, --log-level error, no rate
limit. --data-dir (default ./data) holds the Teeko tables: the Teeko
operations build them there first when missing (about 10 s on two idle
cores, once); the others write nothing. REDIS_URL shares the servers' cache, and there
"background": true queues a job for the workers; without it no job is
made (the answer says so in job_error). Exit status: 0 when the answer
is 2xx, 1 otherwise (the problem+json answer is printed all the same).

Examples:
  gamesolver solve polyomino '{"game":"pentominoes","moves":["L:c4,d4,e4,f4,c5"],"all_moves":true}'
  gamesolver solve polyomino/moves '{"game":"tetrominoes","width":5,"height":5}'
  echo '{"width":10,"height":6,"pieces":"FILNPTUVWXYZ","limit":1}' | gamesolver tile
  gamesolver solve teeko '{"rules":"advanced","moves":["13","3"]}'
`

// solveOperations maps the short operation names to their API paths.
var solveOperations = map[string]string{
	"teeko":              "/v1/teeko/analyze",
	"teeko/analyze":      "/v1/teeko/analyze",
	"teeko/annotate":     "/v1/teeko/annotate",
	"polyomino":          "/v1/polyomino/analyze",
	"polyomino/analyze":  "/v1/polyomino/analyze",
	"polyomino/moves":    "/v1/polyomino/moves",
	"polyomino/annotate": "/v1/polyomino/annotate",
	"tilings":            "/v1/polyomino/tilings",
	"polyomino/tilings":  "/v1/polyomino/tilings",
	"games":              "/v1/games",
}

// solveGets are the operations that take no body (GET).
var solveGets = map[string]bool{"/v1/games": true}

// solveCommand runs `gamesolver solve` (and `tile`, which names its
// operation itself): one request through the same handler as the server.
func solveCommand(name string, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	cfg, rest, err := parseConfigArgs(name, args, getenv, solveDefaults(), io.Discard)
	if errors.Is(err, errHelpShown) {
		fmt.Fprint(stdout, solveUsage)
		return nil
	}
	if err != nil {
		return fmt.Errorf("%w (gamesolver %s -h)", err, name)
	}
	for _, a := range rest {
		if strings.HasPrefix(a, "-") && a != "-" {
			return fmt.Errorf("%s: flag %s after the operation: flags come first (gamesolver %s -h)", name, a, name)
		}
	}
	if name == "tile" {
		if len(rest) > 1 {
			return errors.New("tile: expected at most one body (gamesolver tile -h)")
		}
		rest = append([]string{"tilings"}, rest...)
	}
	if len(rest) == 0 || len(rest) > 2 {
		return fmt.Errorf("%s: expected an operation and at most one body\n\n%s", name, solveUsage)
	}
	path, ok := solveOperations[strings.TrimPrefix(strings.TrimPrefix(rest[0], "/"), "v1/")]
	if !ok {
		return fmt.Errorf("%s: unknown operation %q\n\n%s", name, rest[0], solveUsage)
	}
	method, src := http.MethodPost, "-"
	if len(rest) == 2 {
		src = rest[1]
	}
	var body []byte
	if solveGets[path] {
		if len(rest) == 2 {
			return fmt.Errorf("%s: %s takes no body", name, rest[0])
		}
		method = http.MethodGet
	} else if body, err = readBody(src, stdin, cfg.MaxBodyBytes); err != nil {
		return err
	}
	cfg.noJournal = true
	cfg.noTeeko = !strings.HasPrefix(path, "/v1/teeko/")
	// One request in process: no metrics to serve (a worker container's
	// GAMESOLVER_METRICS_ADDR names the port its worker holds).
	cfg.MetricsAddr = ""

	log, err := newLogger(cfg)
	if err != nil {
		return err
	}
	return withApp(cfg, log, func(ctx context.Context, a *app) error {
		if a.teekoDone != nil {
			for _, r := range []teeko.Rules{teeko.Standard, teeko.Advanced} {
				if _, err := os.Stat(teeko.TablePath(cfg.DataDir, r)); err != nil {
					fmt.Fprintf(stderr, "gamesolver: building the Teeko tables in %s first (about 10 s on two idle cores, once)\n", cfg.DataDir)
					break
				}
			}
			select {
			case <-a.teekoDone:
			case <-ctx.Done():
				return context.Canceled // run says "interrupted"
			}
		}
		if path == "/v1/polyomino/analyze" || path == "/v1/polyomino/annotate" {
			service.LoadBookFor(body) // not in the request's budget
		}
		req := httptest.NewRequestWithContext(ctx, method, path, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		a.handler.ServeHTTP(rec, req)
		if ctx.Err() != nil {
			return context.Canceled // run says "interrupted"
		}
		out := rec.Body.Bytes()
		var pretty bytes.Buffer
		if json.Indent(&pretty, out, "", "  ") == nil {
			out = pretty.Bytes()
		}
		if _, err := fmt.Fprintf(stdout, "%s\n", bytes.TrimRight(out, "\n")); err != nil {
			return err
		}
		if rec.Code < 200 || rec.Code > 299 {
			return fmt.Errorf("%s: %d %s", path, rec.Code, http.StatusText(rec.Code))
		}
		return nil
	})
}

// solveDefaults are serve's defaults made for one request on this machine.
func solveDefaults() config {
	c := defaultConfig()
	c.LogLevel = "error"
	c.LogFormat = "console"
	c.RateLimit = "off"
	c.JobRateLimit = "off"
	c.DefaultBudget = time.Minute
	c.MaxBudget = 24 * time.Hour
	c.SolverWorkers = runtime.GOMAXPROCS(0)
	c.SolverSlots = 1
	c.Worker = false
	return c
}

// readBody reads the request body from the argument, a file (@FILE) or
// standard input (-), refusing more than limit bytes as the server does.
func readBody(src string, stdin io.Reader, limit int64) ([]byte, error) {
	var r io.Reader
	switch {
	case src == "-":
		r = stdin
	case strings.HasPrefix(src, "@"):
		f, err := os.Open(src[1:])
		if err != nil {
			return nil, fmt.Errorf("body: %w", err)
		}
		defer f.Close()
		r = f
	default:
		return []byte(src), nil
	}
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, fmt.Errorf("body: %w", err)
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("body: more than %d bytes (--max-body)", limit)
	}
	return b, nil
}
