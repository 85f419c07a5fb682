package api

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gin-gonic/gin"
	"go.uber.org/zap"

	"github.com/gamesolver/gamesolver/service"
)

// Problem is an RFC 9457 problem detail, the body of every error answer
// (Content-Type application/problem+json).
type Problem struct {
	// Identifies the kind of problem; GET it for a description.
	Type   string `json:"type" example:"/problems/validation"`
	Title  string `json:"title" example:"Invalid request"`
	Status int    `json:"status" example:"400"`
	Detail string `json:"detail,omitempty" example:"board row 3 has 9 cells (characters), expected 8"`
	// The path of the request that failed.
	Instance  string `json:"instance,omitempty" example:"/v1/polyomino/analyze"`
	RequestID string `json:"request_id,omitempty" example:"3f2b7c1e-5d7a-4c8e-9b1a-2f6d9e0c4a11"`
	// Every invalid field, for validation problems.
	Errors []service.FieldError `json:"errors,omitempty"`
	// Repeats the Retry-After header for 429 and 503.
	RetryAfterSeconds int `json:"retry_after_seconds,omitempty" example:"1"`
	// While an engine is still building, the fraction done.
	Progress *float64 `json:"progress,omitempty" example:"0.42"`
}

// statusClientClosed is recorded when the client disconnected before the
// answer (nginx's convention); no body is written.
const statusClientClosed = 499

// problemKind is one kind of problem: its type URI (under /problems/), title
// and what it means, served at GET /problems/{name}.
type problemKind struct {
	Name        string `json:"name" example:"busy"`
	Title       string `json:"title" example:"Solver busy"`
	Status      int    `json:"status" example:"503"`
	Description string `json:"description" example:"Every solver slot and the queue are taken; retry after Retry-After seconds."`
}

var problemKinds = map[string]problemKind{
	"validation":         {"validation", "Invalid request", 400, "A field of the request is missing, malformed or not allowed; errors[] names each field and what was expected."},
	"malformed-json":     {"malformed-json", "Malformed JSON", 400, "The body is not one well-formed JSON object."},
	"not-found":          {"not-found", "Not found", 404, "No resource at this path, or no job with this id."},
	"method-not-allowed": {"method-not-allowed", "Method not allowed", 405, "The path exists but not with this method; the Allow header lists the methods."},
	"request-timeout":    {"request-timeout", "Request timeout", 408, "The body did not arrive within the server's read timeout (30 s for the whole request); send it whole, at once."},
	"conflict":           {"conflict", "Conflict", 409, "The resource is in a state that does not allow this operation."},
	"unauthorized":       {"unauthorized", "Unauthorized", 401, "This endpoint needs an API key in the X-API-Key header."},
	"body-too-large":     {"body-too-large", "Request body too large", 413, "The body exceeds the server's limit; the detail gives the limit."},
	"unsupported-media":  {"unsupported-media", "Unsupported media type", 415, "Send the body as application/json, in UTF-8 (no other charset), uncompressed (no Content-Encoding)."},
	"rate-limited":       {"rate-limited", "Too many requests", 429, "This client sent more requests than its rate allows, has as many requests in flight at once as the server allows one client (--max-client-requests), or has as many unfinished jobs as the server allows one client, or (on a new connection, answered before its request is read, then closed) its address holds as many connections open as the server allows one address (--max-client-connections); retry after Retry-After seconds."},
	"busy":               {"busy", "Solver busy", 503, "Every solver slot and the queue are taken, or too many new game configurations wait to be built (or, for jobs, the server has as many unfinished jobs as it allows; or, on a new connection, answered before its request is read, the server holds as many connections as it allows: --max-connections); retry after Retry-After seconds: when the first running search should end (1 to 30 s: by twice the time searches have been holding a slot, or its budget for one running longer), 1 s when the queue of game builds is full, or 30 s for jobs."},
	"unavailable":        {"unavailable", "Store unavailable", 503, "A store the request needs (the jobs store: Redis or the data directory) cannot be reached; retry after Retry-After seconds. Synchronous analysis does not need it (with background, its answer comes without a job, and job_error says why)."},
	"not-ready":          {"not-ready", "Engine not ready", 503, "The engine is still loading or building its tables; progress tells how far it is."},
	"internal":           {"internal", "Internal error", 500, "A bug on our side; the request id finds it in the logs."},
	// Answered for the HTTP server itself, before any handler (rawProblem).
	"malformed-request":  {"malformed-request", "Malformed HTTP request", 400, "The request is not valid HTTP/1.1: its request line or a header line is malformed, or its Host header is missing or malformed; detail says which when known. The connection is closed after the answer."},
	"headers-too-large":  {"headers-too-large", "Request headers too large", 431, "The request line and header lines exceed the server's limit (about 32 KiB in all: 32 KiB, and up to 4 KiB more the HTTP server reads ahead); send fewer or shorter headers. The connection is closed after the answer."},
	"not-implemented":    {"not-implemented", "Not implemented", 501, "The request uses a Transfer-Encoding the server does not implement (chunked is the only one it takes). The connection is closed after the answer."},
	"expectation-failed": {"expectation-failed", "Expectation failed", 417, "The request's Expect header asks for something other than 100-continue, the only expectation the server meets. The connection is closed after the answer."},
	"http-version":       {"http-version", "HTTP version not supported", 505, "The request's HTTP version is not one the server speaks: send HTTP/1.1 (or 1.0). The connection is closed after the answer."},
}

func problemType(name string) string { return "/problems/" + name }

// newProblem fills type, title and status from a kind.
func newProblem(c *gin.Context, kind, detail string) Problem {
	p := kindProblem(kind, detail)
	p.Instance, p.RequestID = clipAt(c.Request.URL.Path, maxLoggedPath), requestID(c)
	return p
}

// kindProblem is a problem of kind, outside any request.
func kindProblem(kind, detail string) Problem {
	k := problemKinds[kind]
	return Problem{Type: problemType(k.Name), Title: k.Title, Status: k.Status, Detail: detail}
}

// writeProblem sends p and aborts the chain. It is the only place that
// writes an error body.
func writeProblem(c *gin.Context, p Problem) {
	// Messages quote what the client sent: a 60,000-character field name
	// or value came back in full, two or three times over.
	// Whatever else a message repeats (a field's path of long keys came
	// back in full, 114 KB for a 59 KB body) is cut at maxMessage bytes.
	p.Detail = clipAt(clipQuoted(p.Detail), maxMessage)
	if len(p.Errors) > 0 {
		errs := make([]service.FieldError, len(p.Errors))
		for i, e := range p.Errors {
			e.Field, e.Message = clip(e.Field), clipAt(clipQuoted(e.Message), maxMessage)
			errs[i] = e
		}
		p.Errors = errs
	}
	if p.RetryAfterSeconds > 0 {
		c.Header("Retry-After", strconv.Itoa(p.RetryAfterSeconds))
	}
	c.Header("Cache-Control", "no-store")
	c.Set(ctxProblem, strings.TrimPrefix(p.Type, "/problems/"))
	if p.Status == http.StatusTooManyRequests || p.Status == http.StatusServiceUnavailable {
		// The server's own words (which limit, which queue), for the
		// access line: the problem's name alone does not say.
		c.Set(ctxProblemDetail, p.Detail)
	}
	c.Render(p.Status, problemRender{p})
	c.Abort()
}

// fail turns any error into its problem. Errors of package service carry
// their kind; anything else is a bug (500), logged with the request id.
func fail(c *gin.Context, err error) {
	var se *service.Error
	if !errors.As(err, &se) {
		if c.Request.Context().Err() != nil && errors.Is(err, context.Canceled) {
			// The client went away; nobody reads an answer. 499 is
			// nginx's "client closed request", kept for the access log.
			c.AbortWithStatus(statusClientClosed)
			return
		}
		logger(c).Error("internal error", zap.Error(err))
		writeProblem(c, newProblem(c, "internal", "the request could not be completed"))
		return
	}
	var p Problem
	switch se.Kind {
	case service.KindInvalid:
		p = newProblem(c, "validation", se.Message)
		p.Errors = se.Fields
	case service.KindNotFound:
		p = newProblem(c, "not-found", se.Message)
	case service.KindNotReady:
		p = newProblem(c, "not-ready", se.Message)
		p.Progress = se.Progress
	case service.KindBusy:
		p = newProblem(c, "busy", se.Message)
	case service.KindUnavailable:
		p = newProblem(c, "unavailable", se.Message)
		// The operator's clue (the access line says 503 only): what
		// failed, the store's error included.
		logger(c).Warn("unavailable", zap.Error(err))
	case service.KindRateLimited:
		p = newProblem(c, "rate-limited", se.Message)
	case service.KindConflict:
		p = newProblem(c, "conflict", se.Message)
	case service.KindUnauthorized:
		p = newProblem(c, "unauthorized", se.Message)
	default:
		logger(c).Error("internal error", zap.Error(err))
		p = newProblem(c, "internal", "the request could not be completed")
	}
	if se.RetryAfter > 0 {
		p.RetryAfterSeconds = service.RetrySeconds(se.RetryAfter)
	} else if p.Status == http.StatusServiceUnavailable || p.Status == http.StatusTooManyRequests {
		p.RetryAfterSeconds = int(time.Second.Seconds())
	}
	writeProblem(c, p)
}

// problemRender writes a Problem as application/problem+json.
type problemRender struct{ p Problem }

func (r problemRender) Render(w http.ResponseWriter) error {
	r.WriteContentType(w)
	return jsonRender(w, r.p)
}

func (problemRender) WriteContentType(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/problem+json")
}

// describeProblem godoc
//
//	@Summary		Describe a problem type
//	@Description	Every error answer is application/problem+json (RFC 9457) whose `type` is a path under /problems/ (the names this parameter lists: a client can branch on them); this returns what that type means.
//	@Tags			service
//	@Produce		json,application/problem+json
//	@Param			name	path		string	true	"problem type name, such as validation"	Enums(validation, malformed-json, not-found, method-not-allowed, request-timeout, conflict, unauthorized, body-too-large, unsupported-media, rate-limited, busy, unavailable, not-ready, internal, malformed-request, headers-too-large, not-implemented, expectation-failed, http-version)
//	@Success		200		{object}	problemKind
//	@Failure		404		{object}	Problem	"no such kind of problem"
//	@Header			all		{string}	X-Request-ID	"the request's id: the client's X-Request-ID when it sent a valid one, else a new one; in the logs and in every problem"
//	@ID				describeProblem
//	@Router			/problems/{name} [get]
func describeProblem(c *gin.Context) {
	k, ok := problemKinds[c.Param("name")]
	if !ok {
		writeProblem(c, newProblem(c, "not-found", "no problem type "+strconv.Quote(c.Param("name"))))
		return
	}
	c.JSON(http.StatusOK, k)
}

// clipLen is the longest piece of a client's input a problem repeats.
const clipLen = 64

// maxMessage bounds a problem's detail and each field error's message,
// whatever they repeat (the longest the service writes is a few hundred
// bytes).
const maxMessage = 2048

// clip shortens s to about clipLen bytes (on a character boundary) and
// says how long it was.
func clip(s string) string { return clipAt(s, clipLen) }

// clipAt is clip at n bytes.
func clipAt(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return head(s, n) + "…(" + strconv.Itoa(len(s)) + " bytes)"
}

// head is s cut to at most n bytes on a character boundary.
func head(s string, n int) string {
	cut := min(n, len(s))
	for cut > 0 && cut < len(s) && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}

// clipQuoted clips every long quoted string of msg ("abc…" (N bytes)),
// reading msg from the left so that a closing quote is never taken for an
// opening one; the cut never splits an escape.
func clipQuoted(msg string) string {
	if len(msg) <= 2*clipLen {
		return msg
	}
	var b strings.Builder
	for {
		open := strings.IndexByte(msg, '"')
		if open < 0 {
			b.WriteString(msg)
			return b.String()
		}
		b.WriteString(msg[:open+1])
		msg = msg[open+1:]
		// The closing quote, and where the last escape that fits in
		// clipLen bytes starts.
		end, cut := -1, -1
		for i := 0; i < len(msg); i++ {
			if cut < 0 && i == clipLen {
				cut = i
			}
			if msg[i] == '\\' {
				if i+1 < len(msg) {
					n := escapeLen(msg[i+1])
					if cut < 0 && i+1+n > clipLen {
						cut = i
					}
					i += n
				}
				continue
			}
			if msg[i] == '"' {
				end = i
				break
			}
		}
		if end < 0 { // no closing quote: the rest as it is
			b.WriteString(msg)
			return b.String()
		}
		body := msg[:end]
		if end > clipLen && cut >= 0 {
			for cut > 0 && !utf8.RuneStart(body[cut]) {
				cut--
			}
			b.WriteString(body[:cut] + "…\" (" + strconv.Itoa(end) + " bytes)")
		} else {
			b.WriteString(body + `"`)
		}
		msg = msg[end+1:]
	}
}

// escapeLen is the length of an escape of Go's %q after its backslash
// and the letter c: \xHH, \uHHHH, \UHHHHHHHH, or one character.
func escapeLen(c byte) int {
	switch c {
	case 'x':
		return 3
	case 'u':
		return 5
	case 'U':
		return 9
	}
	return 1
}
