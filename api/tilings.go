package api

import (
	"encoding/json"
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/gamesolver/gamesolver/service"
)

// TilingsRequest is a tiling puzzle: a region (width, height and blocked
// cells, or board rows) and the pieces to fill it with.
type TilingsRequest struct {
	Width  int `json:"width" example:"10"`
	Height int `json:"height" example:"6"`
	// Blocked cells by name: column letter from a (left), row number from
	// 1 (top), e.g. "d4".
	Blocked []string `json:"blocked" example:"d4,e4,d5,e5"`
	// Board rows instead of width/height/blocked: '.' open, '#' blocked.
	Board []string `json:"board" example:"........,........,........,...##...,...##...,........,........,........"`
	// Piece names concatenated or comma separated ("FILNPTUVWXYZ",
	// "H01,H02"), a list of names (["F","I","L"]), or a whole set
	// ("tetrominoes", "pentominoes", "hexominoes"); default the twelve
	// pentominoes.
	Pieces *service.PieceNames `json:"pieces" swaggertype:"string" example:"FILNPTUVWXYZ"`
	// Piece order (4, 5 or 6), fixed when names are ambiguous.
	Order int `json:"order" example:"5"`
	// When true, a piece may be listed more than once.
	Multiset bool `json:"multiset" example:"false"`
	// When true, the pieces may cover fewer cells than are open.
	AllowLeftover bool `json:"allow_leftover" example:"false"`
	// How many solutions to list (0..1000).
	Limit int `json:"limit" example:"5"`
	// When true, solutions lists every tiling (symmetric images
	// included) instead of one per class.
	EveryTiling bool `json:"every_tiling" example:"false"`
	// Bound on the search time in milliseconds (server default when 0,
	// capped by the server); complete is false when it runs out.
	BudgetMs int64 `json:"budget_ms" example:"2000"`
}

// TilingsResponse counts the tilings.
type TilingsResponse struct {
	// Tilings distinct up to the symmetries of the region (the rotations
	// and reflections mapping its open cells onto themselves, wherever
	// they lie in the rectangle).
	Count int64 `json:"count" example:"2339"`
	// Every tiling, symmetric images counted separately.
	CountAll int64 `json:"count_all" example:"9356"`
	// Symmetries of the region (1, 2, 4 or 8).
	Symmetries int `json:"symmetries" example:"4"`
	// Up to limit tilings, rows top first, each cell the letter of its
	// piece ('#' blocked, '.' uncovered); without every_tiling one per
	// class, in search order (a search cut short by its budget lists one
	// tiling of each class it found, its first tiling or another).
	Solutions [][]string `json:"solutions"`
	// The same tilings, piece by piece, in move notation.
	Placements [][]string `json:"placements"`
	// False when the budget stopped the search: count_all is then the
	// tilings found so far, and count their share (the symmetries each
	// found tiling has, summed and divided by the region's, rounded down:
	// no count of classes, which solutions may list more of).
	Complete bool     `json:"complete" example:"true"`
	Region   []string `json:"region" example:"..........,..........,..........,..........,..........,.........."`
	Pieces   string   `json:"pieces" example:"FILNPTUVWXYZ"`
	Source   string   `json:"source" enums:"search,cache" example:"search"`
	Stats    Stats    `json:"stats"`
}

// tilings godoc
//
//	@Summary		Count and list tilings
//	@Description	Counts every way to cover the open cells of a region exactly once with the given pieces (each once unless `multiset`), in total (`count_all`) and distinct up to the symmetries of the region (`count`), and lists up to `limit` of them. A search that runs out of budget answers with `complete: false` and the counts so far; use POST /v1/jobs with type `polyomino.tilings` for long counts. Solutions are printed with the piece letters (hexominoes: the symbol of each piece in the piece sets of /v1/games, 1..9 then A..Z; `placements` tells repeated pieces apart).
//	@Tags			polyomino
//	@Accept			json
//	@Produce		json,application/problem+json
//	@Param			request	body		TilingsRequest	true	"the puzzle"
//	@Success		200		{object}	TilingsResponse
//	@Failure		400		{object}	Problem	"bad region, unknown piece, area mismatch"
//	@Failure		503		{object}	Problem	"every solver slot busy"
//	@Failure		413		{object}	Problem	"body over the size limit"
//	@Failure		408		{object}	Problem	"the body did not arrive within the server's read timeout (Connection: close)"
//	@Failure		415		{object}	Problem	"Content-Type is not application/json"
//	@Failure		429		{object}	Problem	"rate limit exceeded, or --max-client-requests requests of this client in flight (Retry-After given)"
//	@Header			all		{string}	X-Request-ID	"the request's id: the client's X-Request-ID when it sent a valid one, else a new one; in the logs and in every problem"
//	@Header			all		{integer}	X-RateLimit-Limit	"requests allowed to this client per period (when the server limits rates)"
//	@Header			all		{integer}	X-RateLimit-Remaining	"requests left in the period (when the server limits rates)"
//	@Header			all		{integer}	X-RateLimit-Reset	"Unix time (s) at which the period ends (when the server limits rates)"
//	@Header			429,503	{integer}	Retry-After	"seconds to wait before retrying"
//	@ID				countTilings
//	@Router			/v1/polyomino/tilings [post]
func (h *handlers) tilings(c *gin.Context) {
	var req TilingsRequest
	if !decodeJSON(c, &req) {
		return
	}
	a, err := h.deps.Tilings.Solve(c.Request.Context(), fromTilingsRequest(req))
	if err != nil {
		fail(c, err)
		return
	}
	c.JSON(http.StatusOK, toTilingsResponse(a))
}

func fromTilingsRequest(r TilingsRequest) service.TilingQuery {
	return service.TilingQuery{Width: r.Width, Height: r.Height, Blocked: r.Blocked, Board: r.Board, Pieces: r.Pieces,
		Order: r.Order, Multiset: r.Multiset, AllowLeftover: r.AllowLeftover, Limit: r.Limit, EveryTiling: r.EveryTiling, BudgetMs: r.BudgetMs}
}

func toTilingsResponse(a service.TilingAnswer) TilingsResponse {
	r := a.Result
	out := TilingsResponse{
		Count: r.Count, CountAll: r.CountAll, Symmetries: r.Symmetries, Solutions: r.Solutions,
		Placements: make([][]string, len(r.Placements)), Complete: r.Complete, Region: a.Rows, Pieces: a.Pieces,
		Source: a.Source, Stats: Stats{ElapsedMs: ms(r.Elapsed)},
	}
	if out.Solutions == nil {
		out.Solutions = [][]string{}
	}
	if a.Source == service.SourceSearch {
		n := r.Nodes
		out.Stats.Nodes = &n
	} else {
		out.Stats.ElapsedMs = 0
	}
	for i, ps := range r.Placements {
		for _, p := range ps {
			out.Placements[i] = append(out.Placements[i], p.String())
		}
	}
	return out
}

func tilingsJobResult(raw json.RawMessage) (any, error) {
	var a service.TilingAnswer
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, err
	}
	return toTilingsResponse(a), nil
}
