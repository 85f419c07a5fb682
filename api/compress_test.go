package api

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestCompress: an answer of 2 KiB or more goes out gzip-compressed to a
// client that accepts it, the same bytes once decompressed, its ETag
// suffixed and still revalidated (304); small answers, clients that do not
// accept gzip and event streams get the bytes as they are.
func TestCompress(t *testing.T) {
	r, _, _ := newTestServer(t, Config{})
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
		if w.Code != 200 || w.Header().Get("Content-Encoding") != "gzip" || w.Header().Get("Content-Length") != "" {
			t.Fatalf("%s: %d, Content-Encoding %q, Content-Length %q", path, w.Code, w.Header().Get("Content-Encoding"), w.Header().Get("Content-Length"))
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
		etag, zetag := plain.Header().Get("ETag"), w.Header().Get("ETag")
		if zetag != strings.TrimSuffix(etag, `"`)+`-gzip"` {
			t.Errorf("%s: ETag %s compressed, %s plain", path, zetag, etag)
		}
		// Either tag revalidates, compressed or not; the 304 names the
		// tag the client holds.
		for _, tag := range []string{etag, zetag} {
			for _, ae := range []string{"gzip", "identity"} {
				if w := get(path, "Accept-Encoding", ae, "If-None-Match", tag); w.Code != 304 || w.Body.Len() != 0 || w.Header().Get("ETag") != tag {
					t.Errorf("%s If-None-Match %s, Accept-Encoding %s: %d, %d bytes, ETag %s", path, tag, ae, w.Code, w.Body.Len(), w.Header().Get("ETag"))
				}
			}
		}
		if w := get(path, "Accept-Encoding", "gzip", "If-None-Match", `"`+strings.Repeat("0", 24)+`-gzip"`); w.Code != 200 {
			t.Errorf("%s If-None-Match stale compressed tag: %d", path, w.Code)
		}
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
	w := httptest.NewRecorder()
	events.ServeHTTP(w, req)
	if w.Header().Get("Content-Encoding") != "" || !strings.HasPrefix(w.Body.String(), "data: xxx") || !w.Flushed {
		t.Errorf("an event stream: Content-Encoding %q, flushed %v, %.20q", w.Header().Get("Content-Encoding"), w.Flushed, w.Body)
	}
}

// TestETagBase: the compressed copy's tag names the answer's own.
func TestETagBase(t *testing.T) {
	for in, want := range map[string]string{`"abc-gzip"`: `"abc"`, `"abc"`: `"abc"`, `"-gzip"`: `""`, `abc-gzip`: `abc-gzip`, `"abc-gzip-gzip"`: `"abc-gzip"`} {
		if got := etagBase(in); got != want {
			t.Errorf("etagBase(%s) = %s, want %s", in, got, want)
		}
	}
}
