package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"

	"github.com/google/uuid"
)

// MaxHeaderBytes is the server's limit on a request's request line and
// header lines (http.Server.MaxHeaderBytes; net/http takes up to 4 KiB
// more): beyond, net/http answers 431 itself (rawProblem).
const MaxHeaderBytes = 32 << 10

// netHTTPErrorHeaders is what net/http writes after the status line of
// the answers it gives itself, before any handler runs, to a request it
// cannot read (malformed, its headers too large, an unknown transfer
// coding, an HTTP version it does not speak): a text/plain body, in one
// write to the connection, which it then closes. A handler's answer
// always has a Date header (net/http adds it), so never these headers
// alone.
const netHTTPErrorHeaders = "\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n"

// netHTTPExpectationFailed begins net/http's own answer (after
// "HTTP/1.1 ") to a request whose Expect header is not 100-continue,
// given before any handler: a Date and "Content-Length: 0" follow, and
// no body (no handler of the API answers 417).
const netHTTPExpectationFailed = "417 Expectation Failed\r\nConnection: close\r\n"

// rawKinds are the problem kinds of net/http's own answers, by status.
var rawKinds = map[int]string{
	http.StatusBadRequest:                  "malformed-request",
	http.StatusRequestHeaderFieldsTooLarge: "headers-too-large",
	http.StatusNotImplemented:              "not-implemented",
	http.StatusHTTPVersionNotSupported:     "http-version",
}

// rawProblem returns, for b one of net/http's own answers (text/plain,
// netHTTPErrorHeaders; or the empty 417, netHTTPExpectationFailed), the
// same answer as the API's problem+json, with
// a request id, and its status; nil when b is anything else. The API so
// answers every bad request with a problem, even one net/http refuses
// before any handler ("400 Bad Request: missing required Host header"
// was text/plain).
func rawProblem(b []byte) ([]byte, int) {
	rest, ok := bytes.CutPrefix(b, []byte("HTTP/1.1 "))
	if !ok {
		return nil, 0
	}
	if bytes.HasPrefix(rest, []byte(netHTTPExpectationFailed)) && bytes.HasSuffix(rest, []byte("\r\nContent-Length: 0\r\n\r\n")) {
		return connProblem(kindProblem("expectation-failed", "the Expect header takes 100-continue only")), http.StatusExpectationFailed
	}
	// The status line's end, then those headers alone (a handler's
	// answer, every answer but these, costs this look at its first line).
	end := bytes.IndexByte(rest, '\r')
	if end < 4 || rest[3] != ' ' || !bytes.HasPrefix(rest[end:], []byte(netHTTPErrorHeaders)) {
		return nil, 0
	}
	line, body := rest[:end], rest[end+len(netHTTPErrorHeaders):]
	if bytes.ContainsAny(line, "\n") || bytes.ContainsAny(body, "\r\n") {
		return nil, 0
	}
	status, err := strconv.Atoi(string(line[:3]))
	kind, known := rawKinds[status]
	if err != nil || !known {
		return nil, 0
	}
	// "400 Bad Request: missing required Host header": net/http's reason
	// is the detail when it gives one.
	detail := ""
	if _, reason, ok := bytes.Cut(line[4:], []byte(": ")); ok {
		detail = string(reason)
	}
	switch status {
	case http.StatusBadRequest:
		if detail == "" {
			detail = "the request line or a header line is not valid HTTP/1.1"
		}
	case http.StatusRequestHeaderFieldsTooLarge:
		detail = fmt.Sprintf("the request line and header lines exceed the server's limit (%d bytes, and up to 4096 more)", MaxHeaderBytes)
	case http.StatusNotImplemented:
		detail = "unsupported transfer encoding: chunked is the only one the server takes"
	case http.StatusHTTPVersionNotSupported:
		detail = "send HTTP/1.1 (or 1.0)"
	}
	return connProblem(kindProblem(kind, detail)), status
}

// connProblem is p as a whole answer written to a connection outside
// net/http (a refused connection's, or for net/http's own answers), with
// a new request id, which closes the connection.
func connProblem(p Problem) []byte {
	p.RequestID = uuid.NewString()
	js, _ := json.Marshal(p)
	retry := ""
	if p.RetryAfterSeconds > 0 {
		retry = fmt.Sprintf("Retry-After: %d\r\n", p.RetryAfterSeconds)
	}
	out := fmt.Appendf(nil, "HTTP/1.1 %d %s\r\nContent-Type: application/problem+json\r\nX-Content-Type-Options: nosniff\r\nCache-Control: no-store\r\n%sX-Request-ID: %s\r\nConnection: close\r\nContent-Length: %d\r\n\r\n",
		p.Status, http.StatusText(p.Status), retry, p.RequestID, len(js))
	return append(out, js...)
}
