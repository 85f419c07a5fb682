// Package openapitest checks real answers against the committed OpenAPI
// document, so that a client generated from the document can read what
// the server sends: the status must be one the operation lists, and the
// body must match the schema given for that status.
//
// It is for tests only: nothing outside _test files imports it, so the
// validator (kin-openapi) is not linked into the server.
package openapitest

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi2"
	"github.com/getkin/kin-openapi/openapi2conv"
	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"github.com/gamesolver/gamesolver/openapi"
)

// Validator checks answers against the document.
type Validator struct {
	doc    *openapi3.T
	router routers.Router
}

var (
	once    sync.Once
	shared  *Validator
	loadErr error
)

// Load reads the document the service serves (openapi.JSON) once per
// test binary.
func Load() (*Validator, error) {
	once.Do(func() { shared, loadErr = parse(openapi.JSON) })
	return shared, loadErr
}

func parse(raw []byte) (*Validator, error) {
	raw, err := nullableRefs(raw)
	if err != nil {
		return nil, err
	}
	var v2 openapi2.T
	if err := json.Unmarshal(raw, &v2); err != nil {
		return nil, fmt.Errorf("swagger.json: %w", err)
	}
	v3, err := openapi2conv.ToV3(&v2)
	if err != nil {
		return nil, fmt.Errorf("swagger.json to OpenAPI 3: %w", err)
	}
	// Match any host: tests serve on loopback ports.
	v3.Servers = nil
	// A field the document does not name is a violation too: a client
	// generated from the document would drop it.
	closed := false
	for _, ref := range v3.Components.Schemas {
		if s := ref.Value; s != nil && len(s.Properties) > 0 &&
			s.AdditionalProperties.Has == nil && s.AdditionalProperties.Schema == nil {
			s.AdditionalProperties.Has = &closed
		}
	}
	if err := v3.Validate(context.Background()); err != nil {
		return nil, fmt.Errorf("the document is not valid OpenAPI: %w", err)
	}
	r, err := gorillamux.NewRouter(v3)
	if err != nil {
		return nil, err
	}
	return &Validator{doc: v3, router: r}, nil
}

func init() {
	openapi3filter.RegisterBodyDecoder("text/html", openapi3filter.PlainBodyDecoder)
	openapi3filter.RegisterBodyDecoder("text/event-stream", eventDecoder)
}

// nullableRefs rewrites a property that is a reference with x-nullable
// beside it ({"$ref": ..., "x-nullable": true}: swag's pointer to a
// struct, which go-swagger reads as a nullable reference) as allOf the
// reference, x-nullable: the conversion to OpenAPI 3 drops a $ref's
// siblings, and null would be refused.
func nullableRefs(raw []byte) ([]byte, error) {
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("swagger.json: %w", err)
	}
	defs, _ := doc["definitions"].(map[string]any)
	for _, d := range defs {
		props, _ := d.(map[string]any)["properties"].(map[string]any)
		for name, p := range props {
			prop, _ := p.(map[string]any)
			if ref, ok := prop["$ref"]; ok && prop["x-nullable"] == true {
				props[name] = map[string]any{"allOf": []any{map[string]any{"$ref": ref}}, "x-nullable": true}
			}
		}
	}
	return json.Marshal(doc)
}

// eventDecoder reads one server-sent event and decodes the JSON of its
// data lines.
func eventDecoder(body io.Reader, _ http.Header, _ *openapi3.SchemaRef, _ openapi3filter.EncodingFn) (any, error) {
	raw, err := io.ReadAll(body)
	if err != nil {
		return nil, err
	}
	var data []string
	for _, line := range strings.Split(string(raw), "\n") {
		if d, ok := strings.CutPrefix(line, "data:"); ok {
			data = append(data, strings.TrimPrefix(d, " "))
		}
	}
	var v any
	if err := json.Unmarshal([]byte(strings.Join(data, "\n")), &v); err != nil {
		return nil, fmt.Errorf("event data: %w", err)
	}
	return v, nil
}

// checkEvent checks one event of a stream: its data against the schema
// of the answer's status, but a `gone` event's (the job vanished from the
// store) against the operation's 404 Problem, which Swagger 2.0 cannot
// name as one event's schema.
func (v *Validator) checkEvent(req *http.Request, status int, header http.Header, ev []byte) error {
	for _, line := range strings.Split(string(ev), "\n") {
		if name, ok := strings.CutPrefix(line, "event:"); ok && strings.TrimSpace(name) == "gone" {
			data, err := eventDecoder(bytes.NewReader(ev), nil, nil, nil)
			if err != nil {
				return err
			}
			raw, _ := json.Marshal(data)
			h := header.Clone()
			h.Set("Content-Type", "application/problem+json")
			return v.check(req, http.StatusNotFound, h, raw, true)
		}
	}
	return v.check(req, status, header, ev, true)
}

// events splits a stream into its events that carry data.
func events(stream []byte) [][]byte {
	var out [][]byte
	for _, ev := range bytes.Split(stream, []byte("\n\n")) {
		if hasData(ev) {
			out = append(out, ev)
		}
	}
	return out
}

// hasData tells whether an event has a data line.
func hasData(ev []byte) bool {
	for _, line := range bytes.Split(ev, []byte("\n")) {
		if bytes.HasPrefix(line, []byte("data:")) {
			return true
		}
	}
	return false
}

// Check validates one exchange: the answer to req, and, when the answer
// is a success, the request itself (its body is reqBody): a request the
// server accepts must be one the document describes. An event stream's
// answer is checked event by event, and a job's result (whose type the
// document leaves open) against the schema of its kind's synchronous
// answer. Requests outside every operation, paths outside the document
// (Swagger UI's assets) and methods a path does not take, are answered
// 404 and 405 problems that the document's description promises: only
// such a problem's body is checked, against the Problem schema.
func (v *Validator) Check(req *http.Request, reqBody []byte, status int, header http.Header, body []byte) error {
	if status >= 200 && status < 300 {
		if err := v.checkRequest(req, reqBody); err != nil {
			return err
		}
	}
	if strings.HasPrefix(header.Get("Content-Type"), "text/event-stream") {
		evs := events(body)
		if len(evs) == 0 {
			return v.check(req, status, header, nil, false)
		}
		for _, ev := range evs {
			if err := v.checkEvent(req, status, header, ev); err != nil {
				return err
			}
		}
		return nil
	}
	return v.check(req, status, header, body, true)
}

func (v *Validator) checkRequest(req *http.Request, reqBody []byte) error {
	route, params, err := v.router.FindRoute(req)
	if err != nil {
		return nil
	}
	r := req.Clone(context.Background())
	// The server skips a UTF-8 byte-order mark before a body (RFC 8259
	// allows a parser to), as the schema's validator does not.
	reqBody = bytes.TrimPrefix(reqBody, []byte("\ufeff"))
	r.URL.RawQuery, reqBody = foldWords(route, r.URL.Query(), reqBody)
	r.Body = io.NopCloser(bytes.NewReader(reqBody))
	in := &openapi3filter.RequestValidationInput{
		Request:    r,
		PathParams: params,
		Route:      route,
		Options: &openapi3filter.Options{
			AuthenticationFunc: openapi3filter.NoopAuthenticationFunc,
			MultiError:         true,
		},
	}
	if err := openapi3filter.ValidateRequest(context.Background(), in); err != nil {
		return fmt.Errorf("%s %s with %s was accepted, but the document refuses it: %w", req.Method, req.URL.RequestURI(), clip(reqBody), err)
	}
	return nil
}

// foldWords lower-cases and trims the words of a request (the string
// values of query parameters and top-level body fields whose schema lists
// words), which the service matches without regard to case or to spaces
// around them, as the document says.
func foldWords(route *routers.Route, query url.Values, body []byte) (string, []byte) {
	for _, p := range route.Operation.Parameters {
		if p.Value == nil || p.Value.In != "query" || p.Value.Schema == nil || len(p.Value.Schema.Value.Enum) == 0 {
			continue
		}
		for i, s := range query[p.Value.Name] {
			query[p.Value.Name][i] = strings.ToLower(strings.TrimSpace(s))
		}
	}
	rb := route.Operation.RequestBody
	if rb == nil || rb.Value == nil || rb.Value.Content.Get("application/json") == nil {
		return query.Encode(), body
	}
	schema := rb.Value.Content.Get("application/json").Schema
	var fields map[string]any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber() // large integers (seed) stay exact
	if schema == nil || schema.Value == nil || dec.Decode(&fields) != nil {
		return query.Encode(), body
	}
	for name, prop := range schema.Value.Properties {
		if s, ok := fields[name].(string); ok && prop.Value != nil && len(prop.Value.Enum) > 0 {
			fields[name] = strings.ToLower(strings.TrimSpace(s))
		}
	}
	folded, err := json.Marshal(fields)
	if err != nil {
		return query.Encode(), body
	}
	return query.Encode(), folded
}

func (v *Validator) check(req *http.Request, status int, header http.Header, body []byte, withBody bool) error {
	route, params, err := v.router.FindRoute(req)
	if err != nil {
		// Outside every operation (404, 405): a problem must still be one.
		if withBody && strings.HasPrefix(header.Get("Content-Type"), "application/problem+json") {
			if err := v.visit("api.Problem", body); err != nil {
				return fmt.Errorf("%s %s answered %d %s: %w", req.Method, req.URL.Path, status, clip(body), err)
			}
		}
		return nil
	}
	in := &openapi3filter.RequestValidationInput{
		Request:    req,
		PathParams: params,
		Route:      route,
		Options:    &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc},
	}
	out := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: in,
		Status:                 status,
		Header:                 header,
		Options:                &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true, ExcludeResponseBody: !withBody},
	}
	out.SetBodyBytes(body)
	if err := openapi3filter.ValidateResponse(context.Background(), out); err != nil {
		return fmt.Errorf("%s %s answered %d %s: %w", req.Method, req.URL.Path, status, clip(body), err)
	}
	if withBody && status == http.StatusOK && strings.HasPrefix(route.Path, "/v1/jobs/{id}") {
		if err := v.checkResult(header, body); err != nil {
			return fmt.Errorf("%s %s answered %d %s: %w", req.Method, req.URL.Path, status, clip(body), err)
		}
	}
	return nil
}

// resultSchemas are the schemas of the job kinds whose result is, as the
// document says, in the shape of a synchronous answer.
var resultSchemas = map[string]string{
	"polyomino.analyze": "api.PolyominoAnalysis",
	"polyomino.tilings": "api.TilingsResponse",
}

// checkResult checks a job's result (a JSON object, or an event whose data
// is one) against the schema of its kind's synchronous answer: the
// document leaves the result's type open.
func (v *Validator) checkResult(header http.Header, body []byte) error {
	if strings.HasPrefix(header.Get("Content-Type"), "text/event-stream") {
		data, err := eventDecoder(bytes.NewReader(body), nil, nil, nil)
		if err != nil {
			return err
		}
		if body, err = json.Marshal(data); err != nil {
			return err
		}
	}
	var job struct {
		Type   string          `json:"type"`
		Result json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal(body, &job); err != nil {
		return err
	}
	name, ok := resultSchemas[job.Type]
	if !ok || len(job.Result) == 0 || string(job.Result) == "null" {
		return nil
	}
	if err := v.visit(name, job.Result); err != nil {
		return fmt.Errorf("the %s job's result: %w", job.Type, err)
	}
	return nil
}

// visit checks a JSON value against a schema of the document.
func (v *Validator) visit(schema string, raw []byte) error {
	ref, ok := v.doc.Components.Schemas[schema]
	if !ok || ref.Value == nil {
		return fmt.Errorf("no schema %s in the document", schema)
	}
	var value any
	if err := json.Unmarshal(raw, &value); err != nil {
		return err
	}
	return ref.Value.VisitJSON(value, openapi3.MultiErrors())
}

func clip(b []byte) string {
	b = bytes.TrimSpace(b)
	if len(b) > 300 {
		return string(b[:300]) + "..."
	}
	return string(b)
}

// maxChecked bounds the copy of a request or answer body kept for the
// check; a larger one is reported as unchecked. An event stream is checked
// event by event as it is written, whatever its length.
const maxChecked = 16 << 20

// Handler serves h and checks every answer it gives, handing each
// violation to report.
func (v *Validator) Handler(h http.Handler, report func(error)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The request as the client sent it: the handler may read the body.
		req := r.Clone(r.Context())
		req.Body = http.NoBody
		// What the handler reads of the body is kept (it reads all of it
		// before it succeeds).
		sent := &capped{n: maxChecked}
		if r.Body != nil && r.Body != http.NoBody {
			r.Body = struct {
				io.Reader
				io.Closer
			}{io.TeeReader(r.Body, sent), r.Body}
		}
		tw := &teeWriter{ResponseWriter: w, v: v, req: req, report: report, body: capped{n: maxChecked}}
		h.ServeHTTP(tw, r)
		tw.finish(sent)
	})
}

// capped keeps what is written to it up to n bytes, and whether more came.
type capped struct {
	bytes.Buffer
	n    int
	over bool
}

func (c *capped) Write(p []byte) (int, error) {
	room := c.n - c.Len()
	if room < len(p) {
		c.over = true
	}
	c.Buffer.Write(p[:max(0, min(room, len(p)))])
	return len(p), nil
}

// teeWriter passes the answer on and checks it: the headers as they were
// when the answer began, an event stream's events as they are written,
// any other body when the handler is done.
type teeWriter struct {
	http.ResponseWriter
	v      *Validator
	req    *http.Request
	report func(error)

	status   int
	header   http.Header
	stream   bool
	events   int
	pending  []byte // an event stream's incomplete event
	body     capped
	hijacked bool
}

func (t *teeWriter) begin(code int) {
	if t.status == 0 {
		t.status = code
		t.header = t.ResponseWriter.Header().Clone()
		t.stream = strings.HasPrefix(t.header.Get("Content-Type"), "text/event-stream")
	}
}

func (t *teeWriter) WriteHeader(code int) {
	t.begin(code)
	t.ResponseWriter.WriteHeader(code)
}

func (t *teeWriter) Write(b []byte) (int, error) {
	t.begin(http.StatusOK)
	if !t.stream {
		_, _ = t.body.Write(b)
		return t.ResponseWriter.Write(b)
	}
	t.pending = append(t.pending, b...)
	for {
		i := bytes.Index(t.pending, []byte("\n\n"))
		if i < 0 {
			break
		}
		ev := t.pending[:i]
		t.pending = t.pending[i+2:]
		if hasData(ev) {
			t.events++
			if err := t.v.checkEvent(t.req, t.status, t.header, ev); err != nil {
				t.report(err)
			}
		}
	}
	return t.ResponseWriter.Write(b)
}

// finish checks what was not checked on the way.
func (t *teeWriter) finish(sent *capped) {
	if t.hijacked {
		return
	}
	t.begin(http.StatusOK)
	ok := t.status >= 200 && t.status < 300
	switch {
	case ok && sent.over:
		t.report(fmt.Errorf("%s %s: a request body of more than %d bytes was accepted: not checked", t.req.Method, t.req.URL.Path, maxChecked))
	case ok:
		if err := t.v.checkRequest(t.req, sent.Bytes()); err != nil {
			t.report(err)
		}
	}
	switch {
	case t.stream && len(bytes.TrimSpace(t.pending)) > 0:
		t.report(fmt.Errorf("%s %s: the event stream ended inside an event: %s", t.req.Method, t.req.URL.Path, clip(t.pending)))
	case t.stream && t.events == 0:
		if err := t.v.check(t.req, t.status, t.header, nil, false); err != nil {
			t.report(err)
		}
	case t.stream:
	case t.body.over:
		t.report(fmt.Errorf("%s %s: an answer of more than %d bytes: not checked", t.req.Method, t.req.URL.Path, maxChecked))
	default:
		body := t.body.Bytes()
		if t.header.Get("Content-Encoding") == "gzip" {
			// Compressed by the handler itself (the documents it keeps
			// compressed): the document describes what is inside.
			zr, err := gzip.NewReader(bytes.NewReader(body))
			if err == nil {
				body, err = io.ReadAll(zr)
			}
			if err != nil {
				t.report(fmt.Errorf("%s %s: a gzip answer that does not decompress: %v", t.req.Method, t.req.URL.Path, err))
				return
			}
		}
		if err := t.v.check(t.req, t.status, t.header, body, true); err != nil {
			t.report(err)
		}
	}
}

func (t *teeWriter) Flush() {
	if f, ok := t.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// FlushError lets http.ResponseController see the writer's error.
func (t *teeWriter) FlushError() error {
	return http.NewResponseController(t.ResponseWriter).Flush()
}

// Hijack hands the connection over; the answer is then not checked.
func (t *teeWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	t.hijacked = true
	return http.NewResponseController(t.ResponseWriter).Hijack()
}

// CloseNotify is passed on: gin's writer calls it without asking.
func (t *teeWriter) CloseNotify() <-chan bool {
	//lint:ignore SA1019 gin's writer calls it
	if cn, ok := t.ResponseWriter.(http.CloseNotifier); ok {
		return cn.CloseNotify()
	}
	return make(chan bool)
}

// Unwrap lets http.ResponseController reach the connection.
func (t *teeWriter) Unwrap() http.ResponseWriter { return t.ResponseWriter }
