package api

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// TestUnreadableRequestsAsProblems: the requests net/http refuses before
// any handler (malformed, headers too large, an unknown transfer coding,
// an HTTP version it does not speak) are answered as problems, as every
// other bad request is (they were text/plain), and counted; a handler's
// own text/plain answer that closes the connection is left as it is.
func TestUnreadableRequestsAsProblems(t *testing.T) {
	reg := prometheus.NewRegistry()
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln, err := LimitConns(inner, ConnLimits{PerClient: 256, TrustedProxies: []string{}, Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{MaxHeaderBytes: MaxHeaderBytes, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Connection", "close")
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = io.WriteString(w, "400 Bad Request")
	})}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()
	cases := []struct {
		name, request string
		status        int
		kind, detail  string
	}{
		{"no Host", "GET / HTTP/1.1\r\n\r\n", 400, "malformed-request", "missing required Host header"},
		{"a bad request line", "GARBAGE\r\n\r\n", 400, "malformed-request", "the request line or a header line is not valid HTTP/1.1"},
		{"a bad header name", "GET / HTTP/1.1\r\nHost: x\r\nBad Name: 1\r\n\r\n", 400, "malformed-request", "invalid header name"},
		{"headers too large", "GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + strings.Repeat("a", 40<<10) + "\r\n\r\n", 431, "headers-too-large", "the request line and header lines exceed the server's limit (32768 bytes, and up to 4096 more)"},
		{"a transfer coding", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n", 501, "not-implemented", "unsupported transfer encoding: chunked is the only one the server takes"},
		{"HTTP/3", "GET / HTTP/3.0\r\nHost: x\r\n\r\n", 505, "http-version", "send HTTP/1.1 (or 1.0)"},
		{"an Expect", "GET / HTTP/1.1\r\nHost: x\r\nExpect: 200-ok\r\n\r\n", 417, "expectation-failed", "the Expect header takes 100-continue only"},
		{"a handler's text/plain", "GET / HTTP/1.1\r\nHost: x\r\n\r\n", 200, "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := net.Dial("tcp", inner.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			go func() { _, _ = io.WriteString(c, tc.request) }()
			_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
			resp, err := http.ReadResponse(bufio.NewReader(c), nil)
			if err != nil {
				t.Fatal(err)
			}
			body, err := io.ReadAll(resp.Body)
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tc.status, body)
			}
			if tc.kind == "" {
				if string(body) != "400 Bad Request" || resp.Header.Get("Content-Type") != "text/plain; charset=utf-8" {
					t.Errorf("the handler's answer changed: %q, %q", resp.Header.Get("Content-Type"), body)
				}
				return
			}
			var p Problem
			if err := json.Unmarshal(body, &p); err != nil {
				t.Fatalf("%v: %s", err, body)
			}
			if ct := resp.Header.Get("Content-Type"); ct != "application/problem+json" || !resp.Close || resp.ContentLength != int64(len(body)) ||
				resp.Header.Get("X-Content-Type-Options") != "nosniff" || resp.Header.Get("Cache-Control") != "no-store" {
				t.Errorf("Content-Type %q, close %v, length %d for %d bytes, headers %v", ct, resp.Close, resp.ContentLength, len(body), resp.Header)
			}
			if p.Type != "/problems/"+tc.kind || p.Status != tc.status || p.Detail != tc.detail || p.Title != problemKinds[tc.kind].Title {
				t.Errorf("problem %+v, want %s, %d, %q", p, tc.kind, tc.status, tc.detail)
			}
			if p.RequestID == "" || resp.Header.Get("X-Request-ID") != p.RequestID {
				t.Errorf("request id %q, header %q", p.RequestID, resp.Header.Get("X-Request-ID"))
			}
		})
	}
	want := map[string]float64{"400": 3, "417": 1, "431": 1, "501": 1, "505": 1}
	for code, n := range want {
		if got := testutil.ToFloat64(ln.(*limitedListener).raw.WithLabelValues(code)); got != n {
			t.Errorf("%s counted %v times, want %v", code, got, n)
		}
	}
}

// TestRawProblemOnlyNetHTTPs: rawProblem takes net/http's own answers
// only: not a handler's (a Date header, another status), not one cut or
// joined to more.
func TestRawProblemOnlyNetHTTPs(t *testing.T) {
	for _, b := range []string{
		"",
		"HTTP/1.1 ",
		"HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\nDate: Sun, 29 Nov 2026 02:00:00 GMT\r\n\r\n400 Bad Request",
		"HTTP/1.1 200 OK" + netHTTPErrorHeaders + "200 OK",
		"HTTP/1.1 404 Not Found" + netHTTPErrorHeaders + "404 Not Found",
		"HTTP/1.1 400 Bad Request" + netHTTPErrorHeaders + "400 Bad Request\r\nHTTP/1.1 200 OK",
		"HTTP/1.0 400 Bad Request" + netHTTPErrorHeaders + "400 Bad Request",
		"HTTP/1.1 40 Bad Request" + netHTTPErrorHeaders + "40 Bad Request",
		"HTTP/1.1 400 Bad Request" + netHTTPErrorHeaders[:20],
		"HTTP/1.1 417 Expectation Failed\r\nConnection: close\r\nDate: Sun, 29 Nov 2026 02:00:00 GMT\r\nContent-Length: 5\r\n\r\nhello",
		"HTTP/1.1 417 Expectation Failed\r\nContent-Length: 0\r\n\r\n",
	} {
		if p, _ := rawProblem([]byte(b)); p != nil {
			t.Errorf("%q taken as net/http's answer: %q", b, p)
		}
	}
}

// FuzzRawProblem: whatever is written, rawProblem does not panic, and an
// answer it makes is one HTTP response holding a problem.
func FuzzRawProblem(f *testing.F) {
	f.Add([]byte("HTTP/1.1 400 Bad Request: missing required Host header" + netHTTPErrorHeaders + "400 Bad Request: missing required Host header"))
	f.Add([]byte("HTTP/1.1 431 Request Header Fields Too Large" + netHTTPErrorHeaders + "431 Request Header Fields Too Large"))
	f.Add([]byte("HTTP/1.1 200 OK\r\nDate: x\r\n\r\n"))
	f.Add([]byte("HTTP/1.1 417 Expectation Failed\r\nConnection: close\r\nDate: x\r\nContent-Length: 0\r\n\r\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, status := rawProblem(b)
		if p == nil {
			return
		}
		resp, err := http.ReadResponse(bufio.NewReader(strings.NewReader(string(p))), nil)
		if err != nil {
			t.Fatal(err)
		}
		var pr Problem
		if err := json.NewDecoder(resp.Body).Decode(&pr); err != nil || resp.StatusCode != status || pr.Status != status {
			t.Fatalf("%v: status %d, problem %+v, want %d", err, resp.StatusCode, pr, status)
		}
	})
}
