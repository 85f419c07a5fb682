package service

import (
	"cmp"
	"context"
	"encoding/json"
	"slices"

	"github.com/gamesolver/gamesolver/engine/capture"
	"github.com/gamesolver/gamesolver/engine/polyomino"
)

// GameSettings are a polyomino game's effective settings, named as a
// request names them: the preset's, with the request's overrides, a deal
// dealt (the hands as dealt, the neutral piece where it was placed). A
// request with these fields and the answer's board (and to_move), or with
// the moves that led there, is the same game: an answer posted back as it
// is needs nothing of the request that made it.
type GameSettings struct {
	Game    string   `json:"game"`
	Width   int      `json:"width"`
	Height  int      `json:"height"`
	Blocked []string `json:"blocked"`
	Order   int      `json:"order"`
	Pieces  []string `json:"pieces"`
	// Pool: a common pool (true) or hands (false); absent for the
	// capture variant, whose pool is a list of pieces (the answer's).
	Pool *bool `json:"pool,omitempty"`
	// Hands: each player's pieces at the start (hands only).
	Hands *Hands `json:"hands,omitempty"`
	// Neutral placements: absent for the capture variant, which has none.
	Neutral *[]string `json:"neutral,omitempty"`
	// EndRule: absent for the capture variant, which has its own.
	EndRule string `json:"end_rule,omitempty"`
}

// settingsOf is the game of pos's settings.
func settingsOf(pos *polyomino.Position) GameSettings {
	g := pos.Game()
	cfg := g.Config()
	start := g.Start()
	s := GameSettings{Game: cfg.Preset, Width: cfg.Width, Height: cfg.Height, Order: g.Set().Order,
		Blocked: blockedCells(g.Geometry()), Pieces: []string{}, Neutral: &[]string{}, EndRule: string(cfg.EndRule)}
	pool := cfg.Pool
	s.Pool = &pool
	in := map[string]bool{}
	for _, p := range []polyomino.Player{polyomino.First, polyomino.Second} {
		for _, name := range start.Available(p) {
			in[name] = true
		}
	}
	for _, pl := range start.Placed() {
		if pl.Owner == polyomino.Neutral {
			in[pl.Piece] = true
			*s.Neutral = append(*s.Neutral, polyomino.Move{Piece: pl.Piece, Cells: pl.Cells}.String())
		}
	}
	for _, p := range g.Set().Pieces {
		if in[p.Name] {
			s.Pieces = append(s.Pieces, p.Name)
		}
	}
	if !cfg.Pool {
		s.Hands = &Hands{First: nonNil(g.Hand(polyomino.First)), Second: nonNil(g.Hand(polyomino.Second))}
	}
	return s
}

// blockedCells lists the board's blocked cells in reading order.
func blockedCells(geo *polyomino.Geometry) []string {
	out := []string{}
	for i := range geo.Cells() {
		if geo.Blocked.Has(i) {
			out = append(out, geo.Cell(i).String())
		}
	}
	return out
}

// captureSettings is the capture game of pos's settings.
func captureSettings(pos *capture.Position) GameSettings {
	cfg := pos.Game().Config()
	var cells []polyomino.Cell
	for _, b := range cfg.Blocked { // as the request wrote them ("D4")
		if c, err := polyomino.ParseCell(b); err == nil {
			cells = append(cells, c)
		}
	}
	slices.SortFunc(cells, func(a, b polyomino.Cell) int { return cmp.Or(cmp.Compare(a.Y, b.Y), cmp.Compare(a.X, b.X)) }) // reading order
	blocked := []string{}
	for _, c := range slices.Compact(cells) {
		blocked = append(blocked, c.String())
	}
	return GameSettings{Game: "capture", Width: cfg.Width, Height: cfg.Height, Blocked: blocked, Order: cfg.Order,
		Pieces: nonNil(pos.Game().Pieces())}
}

// RequestSettings are the settings of the game of a polyomino request (a
// job's, as stored): ok false when the request does not make a game.
func RequestSettings(request json.RawMessage) (GameSettings, bool) {
	if q, ok := captureQuery(request); ok {
		// (The request's game, built in the requests' queue, without
		// the checks made since it was stored: an empty piece name.)
		pos, err := q.capturePositionFor(context.Background(), true)
		if err != nil {
			return GameSettings{}, false
		}
		return captureSettings(pos), true
	}
	var q PolyominoQuery
	if DecodeRequest(request, &q) != nil {
		return GameSettings{}, false
	}
	pos, err := q.position()
	if err != nil {
		return GameSettings{}, false
	}
	return settingsOf(pos), true
}
