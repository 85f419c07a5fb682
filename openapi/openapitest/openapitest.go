// Package openapitest checks real answers against the committed OpenAPI
// document, so that a client generated from the document can read what
// the server sends: the status must be one the operation lists, and the
// body must match the schema given for that status.
//
// It is for tests only: nothing outside _test files imports it, so the
// validator (kin-openapi) is not linked into the server.
package openapitest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
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
	return &Validator{router: r}, nil
}

func init() {
	openapi3filter.RegisterBodyDecoder("text/html", openapi3filter.PlainBodyDecoder)
	openapi3filter.RegisterBodyDecoder("text/event-stream", eventDecoder)
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

// events splits a stream into its events that carry data.
func events(stream []byte) [][]byte {
	var out [][]byte
	for _, ev := range bytes.Split(stream, []byte("\n\n")) {
		for _, line := range bytes.Split(ev, []byte("\n")) {
			if bytes.HasPrefix(line, []byte("data:")) {
				out = append(out, ev)
				break
			}
		}
	}
	return out
}

// Check validates one exchange: the answer to req, and, when the answer
// is a success, the request itself (its body is reqBody): a request the
// server accepts must be one the document describes. An event stream's
// answer is checked event by event. Check returns nil for requests the
// document does not describe: paths outside it (Swagger UI's assets) and
// methods a path does not take (answered 404 and 405 problems that the
// document's description promises, outside any operation).
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
			if err := v.check(req, status, header, ev, true); err != nil {
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

func (v *Validator) check(req *http.Request, status int, header http.Header, body []byte, withBody bool) error {
	route, params, err := v.router.FindRoute(req)
	if err != nil {
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
	return nil
}

func clip(b []byte) string {
	b = bytes.TrimSpace(b)
	if len(b) > 300 {
		return string(b[:300]) + "..."
	}
	return string(b)
}

// Handler serves h and checks every answer it gives (event streams only by
// status and headers), handing each violation to report.
func (v *Validator) Handler(h http.Handler, report func(error)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The request as the client sent it: the handler may read the body.
		req := r.Clone(r.Context())
		req.Body = http.NoBody
		// What the handler reads of the body is kept (it reads all of it
		// before it succeeds).
		var sent bytes.Buffer
		if r.Body != nil && r.Body != http.NoBody {
			r.Body = struct {
				io.Reader
				io.Closer
			}{io.TeeReader(r.Body, &capped{&sent, 1 << 20}), r.Body}
		}
		tw := &teeWriter{ResponseWriter: w}
		h.ServeHTTP(tw, r)
		if tw.status == 0 {
			tw.status = http.StatusOK
		}
		if err := v.Check(req, sent.Bytes(), tw.status, w.Header(), tw.body.Bytes()); err != nil {
			report(err)
		}
	})
}

// capped writes to a buffer up to n bytes and drops the rest.
type capped struct {
	b *bytes.Buffer
	n int
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.n - c.b.Len(); room > 0 {
		c.b.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

// teeWriter keeps a copy of the answer while passing it on.
type teeWriter struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
}

func (t *teeWriter) WriteHeader(code int) {
	if t.status == 0 {
		t.status = code
	}
	t.ResponseWriter.WriteHeader(code)
}

func (t *teeWriter) Write(b []byte) (int, error) {
	if t.status == 0 {
		t.status = http.StatusOK
	}
	if t.body.Len() < 1<<20 {
		t.body.Write(b)
	}
	return t.ResponseWriter.Write(b)
}

func (t *teeWriter) Flush() {
	if f, ok := t.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection.
func (t *teeWriter) Unwrap() http.ResponseWriter { return t.ResponseWriter }
