package api

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/gin-contrib/sse"
	"github.com/gin-gonic/gin"
	"go.uber.org/zap"

	"github.com/gamesolver/gamesolver/service"
	"github.com/gamesolver/gamesolver/service/jobs"
)

// JobRequest asks for a long computation.
type JobRequest struct {
	// Type of job: polyomino.analyze, polyomino.tilings or polyomino.book.
	Type string `json:"type" binding:"required" enums:"polyomino.analyze,polyomino.tilings,polyomino.book" example:"polyomino.tilings"`
	// The body the synchronous endpoint of that type takes (required;
	// {} stands for the defaults where the endpoint has them: the start of
	// the pentominoes preset for polyomino.analyze; a tiling needs its
	// region);
	// for polyomino.book: {"moves": [...], "classes": [...], "until_win": bool}
	// (classify the symmetry classes of the moves of a Pentominoes position
	// reached by moves, each with a winning reply when it loses; with
	// until_win the job ends at the first winning class, and its result
	// says so with ended_on_win).
	Request json.RawMessage `json:"request" binding:"required" swaggertype:"object"`
}

// JobCreated is the answer to a submitted job.
type JobCreated struct {
	ID     string `json:"id" example:"o2iWq1Zx3mJ8b9Qk7tV0aA"`
	Status string `json:"status" enums:"queued,running,done,failed,canceled" example:"queued"`
	Href   string `json:"href" example:"/v1/jobs/o2iWq1Zx3mJ8b9Qk7tV0aA"`
}

// JobProgress counts measured work: units done of the total, nodes
// searched, elapsed time and, once a unit has finished, the estimated time
// left at the rate measured so far (wall-clock: elapsed_ms * (total -
// done) / done, the time the job waited for a worker included, so it
// holds while the load stays as it was). A job can end done with done below
// total: the units it no longer needed were dropped (a polyomino.analyze
// job without all_moves stops at its first winning move, a polyomino.book
// job at its first winning reply).
type JobProgress struct {
	// Units finished. A job done early (it needed no more) ends with done
	// below total: status, not done = total, says that a job has ended.
	Done int `json:"done" example:"3"`
	// Units the job was split into.
	Total int `json:"total" example:"12"`
	// Nodes searched: for each unit, finished or running, the most nodes
	// it reported. A unit run again (handed back, or its worker died)
	// counts from zero again and adds nothing until it passes its earlier
	// run: the count never goes down (the work lost is not counted). The
	// units' searches only: a polyomino.analyze job's result, once done,
	// counts in its stats.nodes the search that combines the units'
	// answers too (its plies, best moves), so it may be a little higher.
	Nodes int64 `json:"nodes" example:"123456789"`
	// Wall time from the start of the first unit to the end of the job
	// (or now). The result's stats add up the units' own times and nodes
	// (their length searches included), which can differ.
	ElapsedMs int64 `json:"elapsed_ms" example:"4200"`
	// Estimated wall time left: elapsed_ms * (total - done) / done; null
	// until a unit has finished and after a failure or cancel, 0 when done.
	EstimateMs *int64 `json:"estimate_ms" example:"12600" extensions:"x-nullable"`
}

// Job is the state of a job.
type Job struct {
	ID       string      `json:"id" example:"o2iWq1Zx3mJ8b9Qk7tV0aA"`
	Type     string      `json:"type" example:"polyomino.tilings"`
	Status   string      `json:"status" enums:"queued,running,done,failed,canceled" example:"running"`
	Href     string      `json:"href" example:"/v1/jobs/o2iWq1Zx3mJ8b9Qk7tV0aA"`
	Created  time.Time   `json:"created" example:"2026-11-24T14:05:00Z"`
	Started  *time.Time  `json:"started,omitempty" example:"2026-11-24T14:05:01Z"`
	Finished *time.Time  `json:"finished,omitempty" example:"2026-11-24T14:07:12Z"`
	Progress JobProgress `json:"progress"`
	// The answer, when done: for polyomino.analyze the shape of
	// /v1/polyomino/analyze's answer (api.PolyominoAnalysis; each
	// unit solves one class of moves and, within a quarter of its time,
	// their plies; when the position's plies do not follow from them, the
	// job's last step searches them, for at most 3 s), for
	// polyomino.tilings /v1/polyomino/tilings's (api.TilingsResponse); for
	// polyomino.book, which has no synchronous endpoint, {moves, lines,
	// wins, complete, ended_on_win, nodes}: moves the position's, lines
	// one per classified move class {index (the class's), move (its
	// canonical representative), images (moves in the class), wins (the
	// move wins for its maker), reply (a losing move's winning reply),
	// plies (when known), nodes, elapsed_ns}, wins how many classes win,
	// complete whether every requested class is classified, ended_on_win
	// whether until_win stopped it at a winning class.
	Result any `json:"result,omitempty" swaggertype:"object"`
	// Why the job failed, when it did.
	Error string `json:"error,omitempty" example:""`
}

func jobHref(id string) string { return "/v1/jobs/" + id }

func toJob(j jobs.Job, convert func(request, result json.RawMessage) (any, error)) (Job, error) {
	// Times to the millisecond, what the stores keep: the same before and
	// after a restart, in memory and in Redis.
	ms := func(t time.Time) time.Time { return t.UTC().Truncate(time.Millisecond) }
	j.Created, j.Started, j.Finished = ms(j.Created), ms(j.Started), ms(j.Finished)
	out := Job{
		ID: j.ID, Type: j.Type, Status: string(j.Status), Href: jobHref(j.ID), Created: j.Created,
		Progress: JobProgress{Done: j.Progress.Done, Total: j.Progress.Total, Nodes: j.Progress.Nodes,
			ElapsedMs: j.Progress.ElapsedMS, EstimateMs: j.Progress.EstimateMS},
		Error: j.Error,
	}
	if !j.Started.IsZero() {
		out.Started = &j.Started
	}
	if !j.Finished.IsZero() {
		out.Finished = &j.Finished
	}
	if len(j.Result) > 0 {
		if convert == nil {
			out.Result = j.Result
		} else {
			r, err := convert(j.Request, j.Result)
			if err != nil {
				return out, err
			}
			out.Result = r
		}
	}
	return out, nil
}

// jobResultConverter turns a job type's stored result (of its request)
// into the wire shape of its synchronous endpoint.
func jobResultConverter(typ string) func(request, result json.RawMessage) (any, error) {
	switch typ {
	case "polyomino.tilings":
		return func(_, result json.RawMessage) (any, error) { return tilingsJobResult(result) }
	case "polyomino.analyze":
		return polyominoJobResult
	}
	return nil
}

func (h *handlers) jobView(j jobs.Job) (Job, error) { return toJob(j, jobResultConverter(j.Type)) }

// createJob godoc
//
//	@Summary		Start a long computation
//	@Description	Queues a job of the given type; `request` is the body the synchronous endpoint takes. Answers 202 with the job's id and a Location header. Job ids are unguessable (128 random bits): an id is the job's capability, whoever holds it may read, watch and cancel the job (with API keys, any valid key; share an id only with whom may cancel it). With Redis, jobs and their work units live in Redis (Streams with a consumer group) and survive restarts; without, they are kept in process and logged to the data directory. Jobs take turns in the workers (a job of many units does not hold back the jobs after it), and the server caps the unfinished jobs (503 beyond). Units: polyomino.analyze one per class of moves (one for the capture variant, a position the opening book answers, or one whose finished answer the cache holds: the same job again, answered with `"source": "cache"`); polyomino.tilings 16 parts of the search (one unit with `budget_ms`, or when the cache holds the count; a finished count serves the synchronous endpoint); polyomino.book one per class of moves.
//	@Tags			jobs
//	@Accept			json
//	@Produce		json,application/problem+json
//	@Param			request	body		JobRequest	true	"job type and request"
//	@Success		202		{object}	JobCreated
//	@Header			202		{string}	Location	"/v1/jobs/{id}"
//	@Failure		400		{object}	Problem	"unknown type, or a request its synchronous endpoint would refuse (fields named request.<field>)"
//	@Failure		401		{object}	Problem	"API key required (when the server has keys)"
//	@Failure		503		{object}	Problem	"jobs store unavailable, or --max-active-jobs unfinished jobs already, or (polyomino.analyze) too many new game configurations waiting to be built: /problems/busy (Retry-After given; not counted against --job-rate-limit)"
//	@Security		APIKey
//	@Failure		413		{object}	Problem	"body over the size limit"
//	@Failure		408		{object}	Problem	"the body did not arrive within the server's read timeout (Connection: close)"
//	@Failure		415		{object}	Problem	"Content-Type is not application/json"
//	@Failure		429		{object}	Problem	"rate limit exceeded, --max-client-requests requests of this client in flight, more job submissions from this client than --job-rate-limit allows (60 a minute by default), or --max-client-jobs unfinished jobs of this client already (Retry-After given)"
//	@Header			all		{string}	X-Request-ID	"the request's id: the client's X-Request-ID when it sent a valid one, else a new one; in the logs and in every problem"
//	@Header			401		{string}	WWW-Authenticate	"names the scheme: APIKey, in the X-API-Key header"
//	@Header			all		{integer}	X-RateLimit-Limit	"requests allowed to this client per period (when the server limits rates)"
//	@Header			all		{integer}	X-RateLimit-Remaining	"requests left in the period (when the server limits rates)"
//	@Header			all		{integer}	X-RateLimit-Reset	"Unix time (s) at which the period ends (when the server limits rates)"
//	@Header			429,503	{integer}	Retry-After	"seconds to wait before retrying"
//	@ID				createJob
//	@Router			/v1/jobs [post]
func (h *handlers) createJob(c *gin.Context) {
	var req JobRequest
	if !decodeJSON(c, &req) {
		return
	}
	req.Type = strings.ToLower(strings.TrimSpace(req.Type)) // words are matched without regard to case or spaces around them
	if req.Type == "" {
		fail(c, service.Invalid("type", nil, "type is required: one of %s", strings.Join(h.deps.Jobs.Types(), ", ")))
		return
	}
	if len(req.Request) == 0 || string(req.Request) == "null" {
		// {} would be a job too (the preset's empty board: for
		// polyomino.analyze, a proof of the 8 x 8 game), so ask for it.
		fail(c, service.Invalid("request", nil, "request is required: the body its synchronous endpoint takes ({} where that endpoint's defaults suffice)"))
		return
	}
	if req.Type == (service.PolyominoAnalyzeJob{}).Name() {
		// The synchronous endpoint's body, whose pool may be a list (the
		// capture variant), in the service's form.
		var pr PolyominoRequest
		if err := service.DecodeRequest(req.Request, &pr); err != nil {
			fail(c, err)
			return
		}
		req.Request, _ = json.Marshal(fromPolyominoRequest(pr))
	}
	j, err := h.deps.Jobs.Submit(c.Request.Context(), req.Type, req.Request)
	if err != nil {
		fail(c, err)
		return
	}
	// The manager logs the job with the request's id ("job submitted").
	c.Header("Location", jobHref(j.ID))
	c.JSON(http.StatusAccepted, JobCreated{ID: j.ID, Status: string(j.Status), Href: jobHref(j.ID)})
}

// getJob godoc
//
//	@Summary		A job's state
//	@Description	Status, exact progress (units done of the total, nodes, elapsed, estimate from the measured rate) and, when done, the result: for polyomino.analyze and polyomino.tilings in the shape of the synchronous answer, for polyomino.book as the result field describes. Times are UTC to the millisecond. Not to be cached (Cache-Control: no-store).
//	@Tags			jobs
//	@Produce		json,application/problem+json
//	@Param			id	path		string	true	"job id"
//	@Success		200	{object}	Job
//	@Header			200	{string}	Cache-Control	"no-store: a job's state changes"
//	@Failure		404	{object}	Problem	"no job with this id (unknown, or expired: a finished job is kept 7 days, at most the latest 20,000 and 256 MiB of requests and answers)"
//	@Security		APIKey
//	@Failure		401		{object}	Problem	"API key required (when the server has keys)"
//	@Failure		429		{object}	Problem	"rate limit exceeded, or --max-client-requests requests of this client in flight (Retry-After given)"
//	@Failure		503		{object}	Problem	"jobs store unavailable (Retry-After given)"
//	@Failure		400		{object}	Problem	"a query parameter: this endpoint takes none"
//	@Header			all		{string}	X-Request-ID	"the request's id: the client's X-Request-ID when it sent a valid one, else a new one; in the logs and in every problem"
//	@Header			401		{string}	WWW-Authenticate	"names the scheme: APIKey, in the X-API-Key header"
//	@Header			all		{integer}	X-RateLimit-Limit	"requests allowed to this client per period (when the server limits rates)"
//	@Header			all		{integer}	X-RateLimit-Remaining	"requests left in the period (when the server limits rates)"
//	@Header			all		{integer}	X-RateLimit-Reset	"Unix time (s) at which the period ends (when the server limits rates)"
//	@Header			429,503	{integer}	Retry-After	"seconds to wait before retrying"
//	@ID				getJob
//	@Router			/v1/jobs/{id} [get]
func (h *handlers) getJob(c *gin.Context) {
	j, err := h.deps.Jobs.Get(c.Request.Context(), c.Param("id"))
	h.answerJob(c, j, err)
}

// answerJob sends a job's view, or the error that kept it from us.
func (h *handlers) answerJob(c *gin.Context, j jobs.Job, err error) {
	var b []byte
	if err == nil {
		b, err = h.encodeJob(c.Request.Context(), j)
	}
	if err != nil {
		fail(c, err)
		return
	}
	// A job's state changes: no cache (nor a proxy) may keep it.
	c.Header("Cache-Control", "no-store")
	c.Data(http.StatusOK, "application/json; charset=utf-8", b)
}

// encodeJob is a job's view in JSON. A big result (BigAnswerBytes or
// more stored) is converted and encoded with a place in the assembly
// gate, as a synchronous answer of its size is (16 clients reading a
// 310 KB result had a cheap request's median latency at 163 ms against
// 6.5 ms through the synchronous endpoint); the place is given up before
// the bytes go out.
func (h *handlers) encodeJob(ctx context.Context, j jobs.Job) ([]byte, error) {
	release, err := h.deps.Assembly.Enter(ctx, len(j.Result) >= service.BigAnswerBytes)
	if err != nil {
		return nil, err
	}
	defer release()
	view, err := h.jobView(j)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(view)
	if err != nil {
		return nil, fmt.Errorf("encode the job: %w", err)
	}
	return b, nil
}

// cancelJob godoc
//
//	@Summary		Cancel a job
//	@Description	Cancels a queued or running job; running units stop within a heartbeat. Canceling a canceled job is harmless; a finished job answers 409. A canceled job has no result, but what its finished units proved stays in the cache: a polyomino.analyze job's units are the positions after its moves, whose values a later analyze request of its position (`all_moves: true` to see every move's) takes without searching them again (a unit the opening book answered is not cached: the book answers it again). Whoever holds the id may cancel the job (with API keys, under any valid key): the id is the capability.
//	@Tags			jobs
//	@Produce		json,application/problem+json
//	@Param			id	path		string	true	"job id"
//	@Success		200	{object}	Job
//	@Header			200	{string}	Cache-Control	"no-store: a job's state changes"
//	@Failure		404	{object}	Problem	"no job with this id (unknown, or expired: a finished job is kept 7 days, at most the latest 20,000 and 256 MiB of requests and answers)"
//	@Failure		409	{object}	Problem	"job already finished"
//	@Security		APIKey
//	@Failure		401		{object}	Problem	"API key required (when the server has keys)"
//	@Failure		429		{object}	Problem	"rate limit exceeded, or --max-client-requests requests of this client in flight (Retry-After given)"
//	@Failure		503		{object}	Problem	"jobs store unavailable (Retry-After given)"
//	@Failure		400		{object}	Problem	"a query parameter: this endpoint takes none"
//	@Header			all		{string}	X-Request-ID	"the request's id: the client's X-Request-ID when it sent a valid one, else a new one; in the logs and in every problem"
//	@Header			401		{string}	WWW-Authenticate	"names the scheme: APIKey, in the X-API-Key header"
//	@Header			all		{integer}	X-RateLimit-Limit	"requests allowed to this client per period (when the server limits rates)"
//	@Header			all		{integer}	X-RateLimit-Remaining	"requests left in the period (when the server limits rates)"
//	@Header			all		{integer}	X-RateLimit-Reset	"Unix time (s) at which the period ends (when the server limits rates)"
//	@Header			429,503	{integer}	Retry-After	"seconds to wait before retrying"
//	@ID				cancelJob
//	@Router			/v1/jobs/{id} [delete]
func (h *handlers) cancelJob(c *gin.Context) {
	j, err := h.deps.Jobs.Cancel(c.Request.Context(), c.Param("id"))
	h.answerJob(c, j, err)
}

// jobEvents godoc
//
//	@Summary		Stream a job's progress
//	@Description	Server-sent events: a `progress` event with the job (same shape as GET /v1/jobs/{id}) whenever its status, units done or nodes change, then one final event named after the final status (`done`, `failed` or `canceled`), after which the stream ends; or, should the job vanish from the store meanwhile (a Redis restarted without its data), a final `gone` event whose data is a 404 /problems/not-found problem. A comment line is sent every 15 s to keep proxies from closing the stream. Every event has an `id` naming the job's state (status, units done, nodes: none of them goes back, so an id is never sent twice). When the server shuts down the stream ends early with a `retry` field (2 s): the job goes on, and an EventSource client reconnects and follows it. A client that reconnects sends the last id it got as `Last-Event-ID`: the stream then leaves out the job's state if it has not changed since, and after a final event the answer is 204, which tells an EventSource to stop reconnecting.
//	@Tags			jobs
//	@Produce		text/event-stream,application/problem+json
//	@Param			id				path		string	true	"job id"
//	@Param			Last-Event-ID	header		string	false	"the id of the last event received (sent by an EventSource when it reconnects)"
//	@Param			api_key			query		string	false	"the API key (when the server has keys), for an EventSource, which cannot send the X-API-Key header; the header wins when both are sent. The server's log leaves query strings out; a proxy in front may log them"
//	@Success		200	{object}	Job	"a stream of events whose data is a Job (a final gone event's, a Problem as the 404's)"
//	@Success		204	"the client has had the job's final event (Last-Event-ID): nothing more will come"
//	@Failure		404	{object}	Problem	"no job with this id (unknown, or expired: a finished job is kept 7 days, at most the latest 20,000 and 256 MiB of requests and answers)"
//	@Security		APIKey
//	@Failure		401		{object}	Problem	"API key required (when the server has keys)"
//	@Failure		429		{object}	Problem	"rate limit exceeded, or 32 event streams of this client open (Retry-After given)"
//	@Failure		503		{object}	Problem	"jobs store unavailable, or 2048 event streams open on this server (Retry-After given)"
//	@Failure		400		{object}	Problem	"a query parameter other than api_key"
//	@Header			all		{string}	X-Request-ID	"the request's id: the client's X-Request-ID when it sent a valid one, else a new one; in the logs and in every problem"
//	@Header			401		{string}	WWW-Authenticate	"names the scheme: APIKey, in the X-API-Key header"
//	@Header			all		{integer}	X-RateLimit-Limit	"requests allowed to this client per period (when the server limits rates)"
//	@Header			all		{integer}	X-RateLimit-Remaining	"requests left in the period (when the server limits rates)"
//	@Header			all		{integer}	X-RateLimit-Reset	"Unix time (s) at which the period ends (when the server limits rates)"
//	@Header			429,503	{integer}	Retry-After	"seconds to wait before retrying"
//	@ID				streamJobEvents
//	@Router			/v1/jobs/{id}/events [get]
func (h *handlers) jobEvents(c *gin.Context) {
	ctx := c.Request.Context()
	release, err := h.streams.open(service.Client(ctx))
	if err != nil {
		fail(c, err)
		return
	}
	defer release()
	updates, err := h.deps.Jobs.Watch(ctx, c.Param("id"))
	if err != nil {
		fail(c, err)
		return
	}
	// A client reconnecting after a final event (an EventSource does,
	// unless closed) is told to stop: 204.
	seen := c.GetHeader("Last-Event-ID")
	first, ok := <-updates
	if !ok {
		return // the request ended
	}
	if first.Status.Final() && eventID(first) == seen {
		c.Status(http.StatusNoContent)
		return
	}
	// The stream lives as long as the job: each event and keep-alive is
	// written under a deadline of its own (writeStall), none between.
	c.Header("Content-Type", "text/event-stream")
	c.Header("Cache-Control", "no-store")
	c.Header("X-Accel-Buffering", "no")
	c.Status(http.StatusOK)
	c.Writer.Flush() // the headers, whether or not an event follows now
	// send writes j's event, and reports whether the stream ends.
	send := func(j jobs.Job) bool {
		view, err := h.encodeJob(ctx, j)
		if err != nil {
			if ctx.Err() == nil {
				logger(c).Error("job event", zap.Error(err))
			}
			return true
		}
		event := "progress"
		if j.Status.Final() {
			event = string(j.Status)
		}
		c.Render(-1, sse.Event{Id: eventID(j), Event: event, Data: json.RawMessage(view)})
		c.Writer.Flush()
		return j.Status.Final()
	}
	// The first state is left out when the client had it before it
	// reconnected (not final: that was the 204 above); Watch sends
	// changes only after it.
	if eventID(first) != seen && send(first) {
		return
	}
	keepAlive := time.NewTicker(15 * time.Second)
	defer keepAlive.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-h.deps.Draining:
			// The job goes on (another process takes its units, or this
			// one after its restart); EventSource clients reconnect
			// after the retry delay and follow it from there.
			_, _ = c.Writer.WriteString("retry: 2000\n: server shutting down, reconnect to follow the job\n\n")
			c.Writer.Flush()
			return
		case <-keepAlive.C:
			if _, err := c.Writer.WriteString(": keep-alive\n\n"); err != nil {
				return
			}
			c.Writer.Flush()
		case j, ok := <-updates:
			if !ok {
				if ctx.Err() == nil {
					// The job can no longer be read: say so, where the
					// stream ended without a word (a Redis restarted
					// empty, an audit): a client that reconnects would
					// only get 404.
					gone := newProblem(c, "not-found", "the job is gone from the jobs store: it expired, or the store lost it (a Redis restarted without its data); submit it again")
					c.Render(-1, sse.Event{Event: "gone", Data: gone})
					c.Writer.Flush()
				}
				return
			}
			if send(j) {
				return
			}
		}
	}
}

// eventID names a job's state in its event stream: equal ids, equal
// status, units done and nodes. An EventSource sends the last one back
// (Last-Event-ID) when it reconnects.
func eventID(j jobs.Job) string {
	return fmt.Sprintf("%s.%d.%d", j.Status, j.Progress.Done, j.Progress.Nodes)
}

// Event streams open at once: each holds a connection, goroutines and a
// watch that polls the jobs store, for as long as its job runs.
const (
	maxClientStreams = 32   // of one client (its API key, else its address)
	maxStreams       = 2048 // in all
)

// streamCount counts the open event streams, in all and by client.
type streamCount struct{ held clientCount }

// open takes a place for a stream of client, or says why there is none
// (429 past the client's, 503 past the server's); release gives it back.
func (s *streamCount) open(client string) (release func(), err error) {
	release, clientFull, allFull := s.held.take(client, maxClientStreams, maxStreams)
	switch {
	case clientFull:
		return nil, &service.Error{Kind: service.KindRateLimited, RetryAfter: 5 * time.Second,
			Message: fmt.Sprintf("%d job event streams are open for this client, the most it may have: close one (or poll GET /v1/jobs/{id})", maxClientStreams)}
	case allFull:
		return nil, &service.Error{Kind: service.KindBusy, RetryAfter: 5 * time.Second,
			Message: fmt.Sprintf("%d job event streams are open, the most this server serves: poll GET /v1/jobs/{id}, or retry later", maxStreams)}
	}
	return release, nil
}

// clientCount counts what clients hold (event streams, requests in
// flight), in all and by client.
type clientCount struct {
	mu       sync.Mutex
	total    int
	byClient map[string]int
}

// take counts one more for client, unless it holds perClient already
// (clientFull) or all clients hold all (allFull; 0: no cap in all);
// release gives it back.
func (c *clientCount) take(client string, perClient, all int) (release func(), clientFull, allFull bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.byClient[client] >= perClient:
		return nil, true, false
	case all > 0 && c.total >= all:
		return nil, false, true
	}
	if c.byClient == nil {
		c.byClient = map[string]int{}
	}
	c.total++
	c.byClient[client]++
	return func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.total--
		if c.byClient[client]--; c.byClient[client] == 0 {
			delete(c.byClient, client)
		}
	}, false, false
}
