package api

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"go.uber.org/zap"
)

// TestCompress: an answer of 2 KiB or more goes out gzip-compressed to a
// client that accepts it (the documents compressed once: with a length),
// the same bytes once decompressed, its ETag
// suffixed and still revalidated (304); small answers, clients that do not
// accept gzip and event streams get the bytes as they are.
func TestCompress(t *testing.T) {
	r, logs, _ := newTestServer(t, Config{})
	h := Compress(r)
	get := func(path string, headers ...string) *httptest.ResponseRecorder {
		req := httptest.NewRequest("GET", path, nil)
		for i := 0; i+1 < len(headers); i += 2 {
			req.Header.Set(headers[i], headers[i+1])
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		return w
	}
	for _, path := range []string{"/openapi.json"} { // (the test server's games are few)
		plain := get(path)
		if plain.Header().Get("Content-Encoding") != "" || plain.Header().Get("Vary") != "Accept-Encoding" {
			t.Errorf("%s without Accept-Encoding: Content-Encoding %q, Vary %q", path, plain.Header().Get("Content-Encoding"), plain.Header().Get("Vary"))
		}
		w := get(path, "Accept-Encoding", "gzip, deflate, br")
		// Compressed once and kept, so sent with its length (it was
		// compressed at each request, chunked).
		if w.Code != 200 || w.Header().Get("Content-Encoding") != "gzip" || w.Header().Get("Content-Length") != fmt.Sprint(w.Body.Len()) {
			t.Fatalf("%s: %d, Content-Encoding %q, Content-Length %q", path, w.Code, w.Header().Get("Content-Encoding"), w.Header().Get("Content-Length"))
		}
		// gzip by another name (gzhttp takes gzip named only).
		for _, ae := range []string{"x-gzip", "*", "br;q=1, *;q=0.1"} {
			if w := get(path, "Accept-Encoding", ae); w.Header().Get("Content-Encoding") != "gzip" {
				t.Errorf("%s, Accept-Encoding %q: Content-Encoding %q", path, ae, w.Header().Get("Content-Encoding"))
			}
		}
		zr, err := gzip.NewReader(w.Body)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(zr)
		if err != nil || !bytes.Equal(body, plain.Body.Bytes()) {
			t.Fatalf("%s: decompressed %d bytes (%v), the answer's %d", path, len(body), err, plain.Body.Len())
		}
		if w.Body.Len()*3 > len(body) {
			t.Errorf("%s: %d bytes compressed to %d", path, len(body), w.Body.Len())
		}
		// The access lines say which went out compressed (bytes is the
		// size before).
		var flags []any
		for _, e := range logs.FilterField(zap.String("path", path)).All() {
			flags = append(flags, e.ContextMap()["gzip"])
		}
		if fmt.Sprint(flags) != "[<nil> true true true true]" {
			t.Errorf("%s: the access lines' gzip %v, want [<nil> true true true true]", path, flags)
		}
		etag, zetag := plain.Header().Get("ETag"), w.Header().Get("ETag")
		if zetag != strings.TrimSuffix(etag, `"`)+`-gzip"` {
			t.Errorf("%s: ETag %s compressed, %s plain", path, zetag, etag)
		}
		// Each tag revalidates the representation it names: the
		// compressed copy's for a request that gets it, the plain one's
		// for one that does not (a cache holding both may send both).
		for _, tc := range []struct {
			ae, inm, tag string
		}{
			{"gzip", zetag, zetag}, {"identity", etag, etag}, {"", etag, etag},
			{"gzip", etag + ", " + zetag, zetag}, {"identity", zetag + ", " + etag, etag},
		} {
			if w := get(path, "Accept-Encoding", tc.ae, "If-None-Match", tc.inm); w.Code != 304 || w.Body.Len() != 0 || w.Header().Get("ETag") != tc.tag {
				t.Errorf("%s If-None-Match %s, Accept-Encoding %q: %d, %d bytes, ETag %s", path, tc.inm, tc.ae, w.Code, w.Body.Len(), w.Header().Get("ETag"))
			}
		}
		for _, tc := range [][2]string{{"gzip", etag}, {"identity", zetag}, {"gzip;q=0", zetag}} {
			if w := get(path, "Accept-Encoding", tc[0], "If-None-Match", tc[1]); w.Code != 200 {
				t.Errorf("%s If-None-Match %s, Accept-Encoding %s (another representation): %d", path, tc[1], tc[0], w.Code)
			}
		}
		if w := get(path, "Accept-Encoding", "gzip", "If-None-Match", `"`+strings.Repeat("0", 24)+`-gzip"`); w.Code != 200 {
			t.Errorf("%s If-None-Match stale compressed tag: %d", path, w.Code)
		}
	}
	// The Swagger UI's files (served by a handler that knows no
	// compression) revalidate with the compressed copy's tag too.
	const bundle = "/swagger/swagger-ui-bundle.js"
	w := get(bundle, "Accept-Encoding", "gzip")
	ztag := w.Header().Get("ETag")
	if w.Code != 200 || w.Header().Get("Content-Encoding") != "gzip" || !strings.HasSuffix(ztag, `-gzip"`) {
		t.Fatalf("%s: %d, Content-Encoding %q, ETag %s", bundle, w.Code, w.Header().Get("Content-Encoding"), ztag)
	}
	if w := get(bundle, "Accept-Encoding", "gzip", "If-None-Match", ztag); w.Code != 304 {
		t.Errorf("%s If-None-Match %s: %d, want 304", bundle, ztag, w.Code)
	}
	// Small answers: a problem, the liveness check.
	for _, path := range []string{"/healthz", "/v1/nowhere"} {
		if w := get(path, "Accept-Encoding", "gzip"); w.Header().Get("Content-Encoding") != "" || w.Body.Len() == 0 || w.Body.Bytes()[0] != '{' {
			t.Errorf("%s: Content-Encoding %q, %.40q", path, w.Header().Get("Content-Encoding"), w.Body)
		}
	}
	// An event stream: each event as written, flushed.
	events := Compress(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, "data: "+strings.Repeat("x", 4<<10)+"\n\n")
		w.(http.Flusher).Flush()
	}))
	req := httptest.NewRequest("GET", "/events", nil)
	req.Header.Set("Accept-Encoding", "gzip")
	w = httptest.NewRecorder()
	events.ServeHTTP(w, req)
	if w.Header().Get("Content-Encoding") != "" || !strings.HasPrefix(w.Body.String(), "data: xxx") || !w.Flushed {
		t.Errorf("an event stream: Content-Encoding %q, flushed %v, %.20q", w.Header().Get("Content-Encoding"), w.Flushed, w.Body)
	}
}

// TestCompressedFor: when an answer goes out compressed, as gzhttp decides.
func TestCompressedFor(t *testing.T) {
	for _, tc := range []struct {
		method, ae string
		size       int
		want       bool
	}{
		{"GET", "gzip", 4096, true},
		{"GET", "deflate, GZIP;q=0.5, br", 4096, true},
		{"GET", "gzip;q=0", 4096, false},
		{"GET", "gzip; q=0.000", 4096, false},
		{"GET", "*", 4096, true}, // any coding: gzip too (gzhttp takes gzip named only)
		{"GET", "*;q=0.5", 4096, true},
		{"GET", "*;q=0", 4096, false},
		{"GET", "gzip;q=0, *", 4096, false}, // gzip refused by name
		{"GET", "x-gzip", 4096, true},       // the same coding (RFC 9110)
		{"GET", "br, X-GZIP;q=0.3", 4096, true},
		{"GET", "x-gzip;q=0", 4096, false},
		{"GET", "x-gzip;q=0, *", 4096, false},
		{"GET", "identity", 4096, false},
		{"GET", "", 4096, false},
		{"GET", "gzip", 100, false},
		{"HEAD", "gzip", 4096, false},
		{"GET", "gzip;q=abc", 4096, false},
	} {
		r := httptest.NewRequest(tc.method, "/x", nil)
		r.Header.Set("Accept-Encoding", tc.ae)
		if got := compressedFor(r, tc.size); got != tc.want {
			t.Errorf("%s %q %d bytes: %v, want %v", tc.method, tc.ae, tc.size, got, tc.want)
		}
	}
	if got := gzipTag(`"abc"`); got != `"abc-gzip"` {
		t.Errorf("gzipTag: %s", got)
	}
}

// TestCompressVaryWithCORS: with CORS origins set (every answer varies by
// Origin), a compressed answer still varies by Accept-Encoding: cors set
// Vary over it, and a shared cache could give the compressed body to a
// client that never asked for it.
func TestCompressVaryWithCORS(t *testing.T) {
	r, _, _ := newTestServer(t, Config{CORSOrigins: []string{"https://app.example"}})
	for _, origin := range []string{"", "https://app.example", "https://other.example"} {
		req := httptest.NewRequest("GET", "/openapi.json", nil)
		req.Header.Set("Accept-Encoding", "gzip")
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		w := httptest.NewRecorder()
		Compress(r).ServeHTTP(w, req)
		vary := strings.Join(w.Header().Values("Vary"), ",")
		if w.Header().Get("Content-Encoding") != "gzip" || !strings.Contains(vary, "Accept-Encoding") || !strings.Contains(vary, "Origin") {
			t.Errorf("origin %q: Content-Encoding %q, Vary %q", origin, w.Header().Get("Content-Encoding"), vary)
		}
	}
}

// TestCompressLeavesEventStreams: a job's event stream goes out as it is,
// its headers at once, though it writes no event yet (gzhttp held them
// back until a body's first bytes: a stream resumed at the job's current
// state hung until the next event).
func TestCompressLeavesEventStreams(t *testing.T) {
	h := Compress(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		w.(http.Flusher).Flush()
	}))
	req := httptest.NewRequest("GET", "/v1/jobs/abc/events", nil)
	req.Header.Set("Accept-Encoding", "gzip")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	if !w.Flushed || w.Header().Get("Content-Encoding") != "" {
		t.Errorf("headers flushed %v, Content-Encoding %q", w.Flushed, w.Header().Get("Content-Encoding"))
	}
}

// TestPrecompressedBounded: the documents kept compressed are at most
// maxPrecompressed, and a new one is compressed still once that many are
// kept (the first 16 stayed, and the current catalogue went compressed at
// each request: a review).
func TestPrecompressedBounded(t *testing.T) {
	for i := range 3 * maxPrecompressed {
		body := []byte(fmt.Sprintf(`{"version":%d,"pad":%q}`, i, strings.Repeat("x", 4096)))
		gz := precompressed(etagOf(body), body)
		zr, err := gzip.NewReader(bytes.NewReader(gz))
		if err != nil {
			t.Fatalf("document %d: %v", i, err)
		}
		if got, err := io.ReadAll(zr); err != nil || !bytes.Equal(got, body) {
			t.Fatalf("document %d: %v", i, err)
		}
	}
	precompressedMu.Lock()
	defer precompressedMu.Unlock()
	if n := len(precompressedDocs); n > maxPrecompressed {
		t.Errorf("%d documents kept", n)
	}
}

// TestCompressAcceptEncodingLines: an Accept-Encoding sent as several
// header lines is read as their list joined (RFC 9110, 5.3): Compress
// rewrote the first line alone in place of them all, so a gzip;q=0 of a
// later line was dropped and "*" of the first compressed the answer.
func TestCompressAcceptEncodingLines(t *testing.T) {
	r, _, _ := newTestServer(t, Config{})
	h := Compress(r)
	for _, tc := range []struct {
		lines []string
		gzip  bool
	}{
		{[]string{"*", "gzip;q=0"}, false},
		{[]string{"x-gzip;q=0", "*"}, false},
		{[]string{"br", "x-gzip"}, true},
		{[]string{"br", "gzip"}, true},
		{[]string{"br", "*"}, true},
	} {
		req := httptest.NewRequest("GET", "/openapi.json", nil)
		for _, l := range tc.lines {
			req.Header.Add("Accept-Encoding", l)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if got := w.Header().Get("Content-Encoding") == "gzip"; got != tc.gzip {
			t.Errorf("Accept-Encoding lines %q: compressed %v, want %v", tc.lines, got, tc.gzip)
		}
	}
}
