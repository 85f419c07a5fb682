package service

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"

	"github.com/gamesolver/gamesolver/engine/teeko"
)

// Teeko answers Teeko questions from the tablebases of both rule sets. The
// tables are loaded from the data directory at start, or built there in the
// background when missing or damaged; until a rule set's table is ready its
// questions get KindNotReady with the build's progress.
type Teeko struct {
	dataDir    string
	workers    int
	log        *zap.Logger
	retryEvery time.Duration
	assembly   *Assembly
	tables     [2]*teekoTable // by teeko.Rules
}

type teekoTable struct {
	rules teeko.Rules

	mu       sync.Mutex
	tb       *teeko.Tablebase
	state    string // "waiting", "loading", "building", "ready", "failed"
	phase    string
	progress float64
	err      error
	loadTime time.Duration
}

// TeekoOptions configures the Teeko service.
type TeekoOptions struct {
	DataDir string
	Workers int // build goroutines; 0: every core
	Log     *zap.Logger
	// RetryEvery is the wait after a failed build before the table is
	// looked for and built again, doubling up to 10 minutes [30s]: a full
	// disk freed, a data directory made writable, or tables put there
	// serve without a restart.
	RetryEvery time.Duration
	// Assembly, when set, is the gate a long game's annotation and its
	// encoding take (TeekoBigGame plies or more): the requests' shared
	// gate of big answers.
	Assembly *Assembly
}

// NewTeeko returns the service; Start loads or builds its tables.
func NewTeeko(o TeekoOptions) *Teeko {
	if o.Log == nil {
		o.Log = zap.NewNop()
	}
	if o.RetryEvery <= 0 {
		o.RetryEvery = 30 * time.Second
	}
	t := &Teeko{dataDir: o.DataDir, workers: o.Workers, log: o.Log, retryEvery: o.RetryEvery, assembly: o.Assembly}
	for _, r := range []teeko.Rules{teeko.Standard, teeko.Advanced} {
		t.tables[r] = &teekoTable{rules: r, state: "waiting"}
	}
	return t
}

// Start loads each rule set's table, building the missing ones in the
// background (one after the other, each on every core). It returns at once;
// done is closed when every table is ready or its first build failed. A
// table whose build failed is looked for and built again later (every
// RetryEvery, doubling up to 10 minutes) until ctx ends.
func (t *Teeko) Start(ctx context.Context) (done <-chan struct{}) {
	ch := make(chan struct{})
	go func() {
		// Every table on disk first: one that loads is served while
		// another is built (a damaged standard table kept the advanced
		// one, loaded in 0.15 s, waiting for the standard one's build).
		var missing []*teekoTable
		for _, tt := range t.tables {
			if !t.load(tt) {
				missing = append(missing, tt)
			}
		}
		for _, tt := range missing {
			tt.set("waiting", "", 0, nil)
		}
		var failed []*teekoTable
		for _, tt := range missing {
			if !t.build(ctx, tt) {
				failed = append(failed, tt)
			}
		}
		close(ch)
		t.retry(ctx, failed)
	}()
	return ch
}

// retry looks for the tables whose build failed and builds them again,
// waiting RetryEvery, then twice as long each time up to 10 minutes, until
// every one is ready or ctx ends: a full disk freed, a data directory made
// writable, or tables put there serve without a restart.
func (t *Teeko) retry(ctx context.Context, failed []*teekoTable) {
	wait := t.retryEvery
	for len(failed) > 0 && ctx.Err() == nil {
		t.log.Warn("teeko table build failed: looking for the table and building it again later", zap.Int("tables", len(failed)), zap.Duration("retry_in", wait))
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		wait = min(2*wait, 10*time.Minute)
		var still []*teekoTable
		for _, tt := range failed {
			if ctx.Err() == nil && !t.load(tt) && !t.build(ctx, tt) {
				still = append(still, tt)
			}
		}
		failed = still
	}
}

// load serves the table of tt from the data directory, and reports
// whether it could: a missing or damaged file is left to build. A damaged
// file is never served: it is replaced.
func (t *Teeko) load(tt *teekoTable) bool {
	path := teeko.TablePath(t.dataDir, tt.rules)
	tt.set("loading", "", 0, nil)
	start := time.Now()
	tb, err := teeko.LoadFile(path, tt.rules)
	switch {
	case err == nil:
		tt.ready(tb, time.Since(start))
		t.log.Info("teeko table loaded", zap.Stringer("rules", tt.rules), zap.String("path", path), zap.Duration("took", time.Since(start)))
		return true
	case errors.Is(err, os.ErrNotExist):
		t.log.Info("teeko table missing: building it", zap.Stringer("rules", tt.rules), zap.String("path", path))
	default:
		t.log.Warn("teeko table unusable: rebuilding it", zap.Stringer("rules", tt.rules), zap.String("path", path), zap.Error(err))
	}
	return false
}

// build builds the table of tt, saves it and serves it, and reports
// whether it could.
func (t *Teeko) build(ctx context.Context, tt *teekoTable) bool {
	path := teeko.TablePath(t.dataDir, tt.rules)
	tt.set("building", "starting", 0, nil)
	start := time.Now()
	if _, err := teeko.BuildFile(ctx, t.dataDir, tt.rules, t.workers, func(p teeko.Progress) {
		if p.Total > 0 {
			tt.set("building", p.Phase, float64(p.Done)/float64(p.Total), nil)
		}
	}); err != nil {
		tt.set("failed", "", 0, err)
		if ctx.Err() != nil {
			t.log.Info("teeko table build stopped", zap.Stringer("rules", tt.rules), zap.Error(err))
		} else {
			t.log.Error("teeko table build failed", zap.Stringer("rules", tt.rules), zap.Error(err))
		}
		return false
	}
	built := time.Since(start)
	start = time.Now()
	tb, err := teeko.LoadFile(path, tt.rules)
	if err != nil {
		tt.set("failed", "", 0, err)
		t.log.Error("teeko table unreadable after build", zap.Stringer("rules", tt.rules), zap.Error(err))
		return false
	}
	tt.ready(tb, time.Since(start))
	t.log.Info("teeko table built", zap.Stringer("rules", tt.rules), zap.String("path", path), zap.Duration("took", built))
	return true
}

func (tt *teekoTable) set(state, phase string, progress float64, err error) {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	tt.state, tt.phase, tt.progress, tt.err = state, phase, progress, err
}

func (tt *teekoTable) ready(tb *teeko.Tablebase, load time.Duration) {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	tt.tb, tt.state, tt.loadTime, tt.err = tb, "ready", load, nil
}

// Component reports the readiness of both tables.
func (t *Teeko) Component() Component {
	c := Component{Name: "teeko", Ready: true, State: "ready"}
	var details []string
	var progress []float64
	for _, tt := range t.tables {
		tt.mu.Lock()
		switch tt.state {
		case "ready":
			details = append(details, fmt.Sprintf("%s: ready", tt.rules))
		case "failed":
			c.Ready, c.State = false, "failed"
			details = append(details, fmt.Sprintf("%s: failed: %v", tt.rules, tt.err))
		default:
			c.Ready = false
			// The most telling state wins: failed, building, loading, waiting.
			if teekoStateRank[tt.state] > teekoStateRank[c.State] {
				c.State = tt.state
			}
			d := fmt.Sprintf("%s: %s", tt.rules, tt.state)
			if tt.state == "building" {
				d += fmt.Sprintf(" (%s %.0f%%)", tt.phase, 100*tt.progress)
			}
			details = append(details, d)
		}
		progress = append(progress, tt.fraction())
		tt.mu.Unlock()
	}
	if !c.Ready {
		p := (progress[0] + progress[1]) / 2
		c.Progress = &p
	}
	c.Detail = strings.Join(details, "; ")
	return c
}

var teekoStateRank = map[string]int{"ready": 0, "waiting": 1, "loading": 2, "building": 3, "failed": 4}

var (
	teekoProgressDesc = prometheus.NewDesc("gamesolver_teeko_table_progress",
		"How far each rule set's Teeko tablebase is towards serving (0 to 1): 1 ready, the build's fraction while it builds (its phases' units), 0 while waiting, loading or failed.",
		[]string{"rules"}, nil)
	teekoStateDesc = prometheus.NewDesc("gamesolver_teeko_table_state",
		"1 for each rule set's Teeko tablebase's state now, 0 for the others: waiting, loading, building, ready, failed (a failed build is retried, 30 s doubling to 10 min).",
		[]string{"rules", "state"}, nil)
)

// Collector reports the tables' states and build progress at each scrape
// (gamesolver_teeko_table_progress, gamesolver_teeko_table_state): a build
// after a deploy takes minutes, and /readyz is what the probes read.
func (t *Teeko) Collector() prometheus.Collector { return teekoCollector{t} }

type teekoCollector struct{ t *Teeko }

func (c teekoCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- teekoProgressDesc
	ch <- teekoStateDesc
}

func (c teekoCollector) Collect(ch chan<- prometheus.Metric) {
	for _, tt := range c.t.tables {
		tt.mu.Lock()
		state, progress := tt.state, tt.fraction()
		tt.mu.Unlock()
		rules := tt.rules.String()
		ch <- prometheus.MustNewConstMetric(teekoProgressDesc, prometheus.GaugeValue, progress, rules)
		for _, s := range teekoStates {
			v := 0.0
			if s == state {
				v = 1
			}
			ch <- prometheus.MustNewConstMetric(teekoStateDesc, prometheus.GaugeValue, v, rules, s)
		}
	}
}

// teekoStates are a table's states, in the order of teekoStateRank.
var teekoStates = []string{"ready", "waiting", "loading", "building", "failed"}

// fraction is how far this table is towards ready (0..1); call with mu held.
func (tt *teekoTable) fraction() float64 {
	switch tt.state {
	case "ready":
		return 1
	case "building":
		return tt.progress
	}
	return 0
}

// table returns the ready tablebase of a rule set, or KindNotReady.
func (t *Teeko) table(r teeko.Rules) (*teeko.Tablebase, error) {
	tt := t.tables[r]
	tt.mu.Lock()
	defer tt.mu.Unlock()
	if tt.tb != nil {
		return tt.tb, nil
	}
	e := &Error{Kind: KindNotReady, RetryAfter: 5 * time.Second}
	p := tt.fraction()
	e.Progress = &p
	switch tt.state {
	case "failed":
		e.Message = fmt.Sprintf("the %s Teeko tablebase could not be built: %v", r, tt.err)
		e.RetryAfter = time.Minute
	case "building":
		e.Message = fmt.Sprintf("the %s Teeko tablebase is being built (%s, %.0f%%); retry shortly", r, tt.phase, 100*tt.progress)
	default:
		e.Message = fmt.Sprintf("the %s Teeko tablebase is %s; retry shortly", r, tt.state)
	}
	return nil, e
}

// TeekoQuery is a position as a client may give it: a board string, or the
// squares of each side, or the moves from the empty board.
type TeekoQuery struct {
	Rules     string
	DropStyle string
	Board     *string
	Black     []int
	Red       []int
	Moves     []string
	HasMoves  bool
	ToMove    string
}

// TeekoAnalysis is the analysis of one position.
type TeekoAnalysis struct {
	Analysis teeko.Analysis
	Elapsed  time.Duration
}

// parseRulesAndStyle reads the rule set and drop style fields.
func parseRulesAndStyle(rules, style string) (teeko.Rules, teeko.DropStyle, error) {
	if rules == "" {
		rules = "standard"
	}
	r, err := teeko.ParseRules(rules)
	if err != nil {
		return 0, 0, Invalid("rules", err, "rules %q: expected standard or advanced", rules)
	}
	if style == "" {
		style = "standard"
	}
	s, err := teeko.ParseDropStyle(style)
	if err != nil {
		return 0, 0, Invalid("drop_style", err, "drop_style %q: expected one of %s", style, strings.Join(teekoDropStyles(), ", "))
	}
	return r, s, nil
}

// teekoVariants are the 16 forms: 2 rule sets x 8 drop styles.
func teekoVariants() []Variant {
	rules := map[string]string{
		"standard": "standard rules (44 winning configurations)",
		"advanced": "advanced rules (58 winning configurations)",
	}
	drops := map[string]string{
		"standard":             "each side places its own four pieces",
		"alternate":            "the opponent places all four of each side's pieces",
		"one-move-alternate":   "the opponent places each side's first piece, the owner the others",
		"two-move-alternate":   "the opponent places each side's first two pieces, the owner the others",
		"three-move-alternate": "the opponent places each side's first three pieces, the owner the last",
		"one-move-standard":    "the owner places his first piece, the opponent the others",
		"two-move-standard":    "the owner places his first two pieces, the opponent the others",
		"three-move-standard":  "the owner places his first three pieces, the opponent the last",
	}
	var out []Variant
	for _, r := range []string{"standard", "advanced"} {
		for _, d := range teekoDropStyles() {
			out = append(out, Variant{Name: r + " rules, " + d + " drops", Description: rules[r] + "; " + drops[d],
				Request: map[string]string{"rules": r, "drop_style": d}})
		}
	}
	return out
}

func teekoDropStyles() []string {
	var out []string
	for s := teeko.DropStyle(0); ; s++ {
		name := s.String()
		if _, err := teeko.ParseDropStyle(name); err != nil {
			return out
		}
		out = append(out, name)
	}
}

// position builds the engine position a query describes.
func (q TeekoQuery) position(r teeko.Rules) (teeko.Position, error) {
	given := 0
	if q.Board != nil {
		given++
	}
	if q.Black != nil || q.Red != nil {
		given++
	}
	if q.HasMoves {
		given++
	}
	if given > 1 {
		msg := "give the position one way only: board, black and red, or moves"
		if len(q.Black) == 0 && len(q.Red) == 0 && q.Board == nil {
			// {"black":[],"red":[],"moves":[...]}: an empty list is a
			// position (the empty board), not a field left out.
			msg += " (black and red given as empty lists are the empty board: leave them out, or send null, to give moves)"
		}
		return teeko.Position{}, Invalid("board", nil, "%s", msg)
	}
	var toMove teeko.Color
	if q.ToMove != "" {
		c, err := teeko.ParseColor(q.ToMove)
		if err != nil || c == teeko.NoColor {
			return teeko.Position{}, Invalid("to_move", err, "to_move %q: expected black or red", q.ToMove)
		}
		toMove = c
	}
	switch {
	case q.HasMoves:
		pos, err := teeko.ParseGame(r, q.Moves)
		if err != nil {
			return teeko.Position{}, movesError(err)
		}
		// to_move is implied by moves: given as well, it must agree.
		if q.ToMove != "" && toMove != pos.ToMove() {
			return teeko.Position{}, Invalid("to_move", nil, "to_move %s contradicts moves: after them %s is to move (to_move may be left out)", toMove, pos.ToMove())
		}
		return pos, nil
	case q.Board != nil:
		b, err := teeko.ParseBoard(*q.Board)
		if err != nil {
			return teeko.Position{}, Invalid("board", err, "%s", err.Error())
		}
		return newTeekoPosition(r, b, toMove, "board")
	case q.Black != nil || q.Red != nil:
		b, err := teeko.BoardFromSquares(q.Black, q.Red)
		if err != nil {
			return teeko.Position{}, Invalid(squaresField(err), err, "%s", err.Error())
		}
		return newTeekoPosition(r, b, toMove, "black")
	}
	pos := teeko.Start(r)
	if q.ToMove != "" && toMove != pos.ToMove() {
		return teeko.Position{}, Invalid("to_move", nil, "to_move %s contradicts the start: with no position given the game starts, %s to move (to_move may be left out)", toMove, pos.ToMove())
	}
	return pos, nil
}

// newTeekoPosition makes the position of board b; a fault of the board is
// reported on field (board, or black for the lists of squares: red when
// the fault is of red's pieces alone).
func newTeekoPosition(r teeko.Rules, b teeko.Board, toMove teeko.Color, field string) (teeko.Position, error) {
	pos, err := teeko.NewPosition(r, b, toMove)
	if err == nil {
		return pos, nil
	}
	if errors.Is(err, teeko.ErrToMoveRequired) {
		return pos, Invalid("to_move", err, "%s", err.Error())
	}
	if toMove != teeko.NoColor {
		// Blame to_move when the board is fine without it (or would be
		// fine with the other side to move).
		_, errNone := teeko.NewPosition(r, b, teeko.NoColor)
		_, errOther := teeko.NewPosition(r, b, toMove.Other())
		if errNone == nil || errOther == nil {
			return pos, Invalid("to_move", err, "%s", err.Error())
		}
	}
	if field == "black" {
		field = squaresField(err)
	}
	return pos, Invalid(field, err, "%s", err.Error())
}

// squaresField is the list of squares a fault of a board given by lists is
// reported on: red for a fault of red's pieces alone (teeko.SideError),
// else black.
func squaresField(err error) string {
	if se := (*teeko.SideError)(nil); errors.As(err, &se) && se.Side == teeko.Red {
		return "red"
	}
	return "black"
}

// Analyze values a position and every legal move.
func (t *Teeko) Analyze(_ context.Context, q TeekoQuery) (TeekoAnalysis, error) {
	start := time.Now()
	r, style, err := parseRulesAndStyle(q.Rules, q.DropStyle)
	if err != nil {
		return TeekoAnalysis{}, err
	}
	pos, err := q.position(r)
	if err != nil {
		return TeekoAnalysis{}, err
	}
	tb, err := t.table(r)
	if err != nil {
		return TeekoAnalysis{}, err
	}
	a, err := tb.Analyze(pos, style)
	if err != nil {
		return TeekoAnalysis{}, fmt.Errorf("teeko analyze %s: %w", pos, err)
	}
	return TeekoAnalysis{Analysis: a, Elapsed: time.Since(start)}, nil
}

// TeekoAnnotation is an annotated game.
type TeekoAnnotation struct {
	Rules     teeko.Rules
	DropStyle teeko.DropStyle
	Plies     []teeko.AnnotatedPly
	Final     teeko.Analysis
	Elapsed   time.Duration
}

// TeekoBigGame is the length of game (plies) from which an annotation is
// a big answer (service.Assembly): a ply is about 250 bytes of JSON, a game
// of 9,280 plies (a 64 KB request) 2.4 MB, 40 ms of a core. Sixty such
// requests at once had kept the health checks waiting 1.8 s.
const TeekoBigGame = 256

// Annotate marks every ply of a game. A game of TeekoBigGame plies or
// more is annotated with a place in the assembly gate (kept to the end of
// the request when ctx holds it: HoldAssembly).
func (t *Teeko) Annotate(ctx context.Context, rules, style string, moves []string) (TeekoAnnotation, error) {
	start := time.Now()
	r, s, err := parseRulesAndStyle(rules, style)
	if err != nil {
		return TeekoAnnotation{}, err
	}
	switch {
	case moves == nil:
		return TeekoAnnotation{}, Invalid("moves", nil, "moves is required: give the game as a list of moves from the empty board, e.g. [\"13\",\"7\"]")
	case len(moves) == 0:
		return TeekoAnnotation{}, Invalid("moves", nil, "moves is empty: give the game as a list of moves from the empty board, e.g. [\"13\",\"7\"]")
	}
	final, err := teeko.ParseGame(r, moves)
	if err != nil {
		return TeekoAnnotation{}, movesError(err)
	}
	tb, err := t.table(r)
	if err != nil {
		return TeekoAnnotation{}, err
	}
	release, err := t.assembly.Enter(ctx, len(moves) >= TeekoBigGame)
	if err != nil {
		return TeekoAnnotation{}, err
	}
	defer release()
	plies, err := tb.Annotate(s, moves)
	if err != nil {
		return TeekoAnnotation{}, movesError(err)
	}
	fa, err := tb.Analyze(final, s)
	if err != nil {
		return TeekoAnnotation{}, fmt.Errorf("teeko analyze final position: %w", err)
	}
	return TeekoAnnotation{Rules: r, DropStyle: s, Plies: plies, Final: fa, Elapsed: time.Since(start)}, nil
}

// TeekoTableStats describes one rule set's table under one drop style.
type TeekoTableStats struct {
	Stats     teeko.Stats
	FileBytes int64
	Path      string
	LoadTime  time.Duration
}

// TableStats returns the statistics of a table.
func (t *Teeko) TableStats(_ context.Context, rules, style string) (TeekoTableStats, error) {
	r, s, err := parseRulesAndStyle(rules, style)
	if err != nil {
		return TeekoTableStats{}, err
	}
	tb, err := t.table(r)
	if err != nil {
		return TeekoTableStats{}, err
	}
	st, err := tb.Stats(s)
	if err != nil {
		return TeekoTableStats{}, fmt.Errorf("teeko stats: %w", err)
	}
	out := TeekoTableStats{Stats: st, Path: teeko.TablePath(t.dataDir, r)}
	if fi, err := os.Stat(out.Path); err == nil {
		out.FileBytes = fi.Size()
	}
	tt := t.tables[r]
	tt.mu.Lock()
	out.LoadTime = tt.loadTime
	tt.mu.Unlock()
	return out, nil
}

// TeekoInfo describes the game for the catalogue.
func TeekoInfo() GameInfo {
	return GameInfo{
		ID:          "teeko",
		Name:        "Teeko",
		Description: "John Scarne's Teeko (1937) on a 5 x 5 board, four pieces a side, Black first: a drop phase of eight plies, then slides to adjacent squares in 8 directions. Solved exactly by tablebase for both rule sets and all eight of Scarne's drop styles (16 forms).",
		Endpoints:   []string{"POST /v1/teeko/analyze", "POST /v1/teeko/annotate", "GET /v1/teeko/tablebase"},
		Variants:    teekoVariants(),
		Parameters: []Parameter{
			{Name: "rules", Type: "string", Description: "standard: 44 winning configurations (lines of four, 2 x 2 squares); advanced: 58 (also the corners of every 3 x 3, 4 x 4 and 5 x 5 block)", Values: []string{"standard", "advanced"}, Default: "standard"},
			{Name: "drop_style", Type: "string", Description: "who chooses the square of each of the eight drops (the piece's colour and the drop order never change)", Values: teekoDropStyles(), Default: "standard"},
			{Name: "board", Type: "string", Description: "25 characters in Scarne's square order 1..25 (reading order): b black, r red, . empty; upper case accepted"},
			{Name: "black", Type: "array", Description: "instead of board: the square numbers (1..25) of Black's pieces, e.g. [12,16,20,23]"},
			{Name: "red", Type: "array", Description: "instead of board: the square numbers (1..25) of Red's pieces"},
			{Name: "moves", Type: "array", Description: "instead of board: the game from the empty board; a drop is its square (\"13\"), a slide from-to (\"14-9\")"},
			{Name: "to_move", Type: "string", Description: "black or red; needed only with all eight pieces down and neither side on a winning configuration (the loser of a finished game is to move)", Values: []string{"black", "red"}},
		},
		HouseRules: []string{
			"A side to move with no legal move loses (never happens with four pieces a side).",
		},
		Notes: []string{
			"Scarne's history-dependent rules (the four-move limit against shuttling, the boxed-in ten-move limit) are not applied: a position is analyzed without its history.",
			"Distances are in plies counting the winning move itself; perfect play prefers the fastest win, then a draw, then the slowest loss.",
			"In the drop phase the player who decides a ply may be the opponent of the piece's owner (drop_style); values and best moves are for the one who decides.",
		},
	}
}

// movesError is the 400 of a refused list of Teeko moves: the move at
// fault's index when the engine names it (teeko.MoveError).
func movesError(err error) *Error {
	var me *teeko.MoveError
	if errors.As(err, &me) && me.Index > 0 {
		return InvalidMove("moves", me.Index-1, err, "%s", err.Error())
	}
	return Invalid("moves", err, "%s", err.Error())
}
