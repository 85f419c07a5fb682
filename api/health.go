package api

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/gamesolver/gamesolver/service"
)

// Health is the liveness answer.
type Health struct {
	Status  string `json:"status" example:"ok"`
	Version string `json:"version" example:"v0.1.0"`
	// Seconds since the process started.
	UptimeSeconds float64 `json:"uptime_seconds" example:"12.5"`
}

// healthz godoc
//
//	@Summary		Liveness
//	@Description	200 while the process serves HTTP.
//	@Tags			service
//	@Produce		json
//	@Success		200	{object}	Health
//	@Header			all		{string}	X-Request-ID	"the request's id: the client's X-Request-ID when it sent a valid one, else a new one; in the logs and in every problem"
//	@ID				getHealth
//	@Router			/healthz [get]
func (h *handlers) healthz(c *gin.Context) {
	c.JSON(http.StatusOK, Health{Status: "ok", Version: h.deps.Version, UptimeSeconds: time.Since(h.deps.StartedAt).Seconds()})
}

// readyz godoc
//
//	@Summary		Readiness
//	@Description	200 once every engine can answer, 503 while one is still loading or building (its progress is given): the Teeko tablebases (`teeko`), the Pentominoes opening book (`book`, about 2 s from the start; until then a Pentominoes request with a budget of 500 ms or more waits for it within half its budget, then searches; a book that failed to load leaves the service ready, the search answering). `cache.backend` names the cache in use (`memory`, or `redis+memory` for Redis with an in-process layer in front) and `cache.reachable` whether Redis answers; an unreachable Redis does not make the service unready, only slower.
//	@Tags			service
//	@Produce		json
//	@Success		200	{object}	service.ReadyReport
//	@Failure		503	{object}	service.ReadyReport
//	@Header			all		{string}	X-Request-ID	"the request's id: the client's X-Request-ID when it sent a valid one, else a new one; in the logs and in every problem"
//	@Header			503	{integer}	Retry-After	"seconds to wait before retrying"
//	@ID				getReadiness
//	@Router			/readyz [get]
func (h *handlers) readyz(c *gin.Context) {
	rep := h.deps.Readiness.Report(c.Request.Context())
	status := http.StatusOK
	if !rep.Ready {
		status = http.StatusServiceUnavailable
		c.Header("Retry-After", "1")
	}
	c.JSON(status, rep)
}

// GamesResponse lists the games served.
type GamesResponse struct {
	Games []service.GameInfo `json:"games"`
}

// games godoc
//
//	@Summary		Games served
//	@Description	The games, presets, variants and piece sets served, with their parameters, house rules and piece pictures.
//	@Tags			service
//	@Produce		json,application/problem+json
//	@Param			If-None-Match	header	string	false	"the ETag of a copy the client has: 304 while it is current"
//	@Success		200	{object}	GamesResponse
//	@Success		304	"the client's copy (If-None-Match) is current"
//	@Header			200,304	{string}	ETag	"the answer's version (a hash of it): send it back in If-None-Match"
//	@Header			200,304	{string}	Cache-Control	"no-cache: keep it, but revalidate it (If-None-Match) before use"
//	@Failure		429		{object}	Problem	"rate limit exceeded, or --max-client-requests requests of this client in flight (Retry-After given)"
//	@Failure		400		{object}	Problem	"a query parameter: this endpoint takes none"
//	@Header			all		{string}	X-Request-ID	"the request's id: the client's X-Request-ID when it sent a valid one, else a new one; in the logs and in every problem"
//	@Header			all		{integer}	X-RateLimit-Limit	"requests allowed to this client per period (when the server limits rates)"
//	@Header			all		{integer}	X-RateLimit-Remaining	"requests left in the period (when the server limits rates)"
//	@Header			all		{integer}	X-RateLimit-Reset	"Unix time (s) at which the period ends (when the server limits rates)"
//	@Header			429	{integer}	Retry-After	"seconds to wait before retrying"
//	@ID				listGames
//	@Router			/v1/games [get]
func (h *handlers) games(c *gin.Context) {
	body, err := json.Marshal(GamesResponse{Games: h.deps.Catalogue.Games()})
	if err != nil {
		fail(c, err)
		return
	}
	revalidated(c, "application/json; charset=utf-8", body, "")
}
