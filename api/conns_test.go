package api

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

// TestLimitConns: connections beyond a cap are refused as soon as accepted
// (answered as the API answers its caps, 429 or 503, and closed),
// per peer address (a trusted proxy's aside) and in all; a closed one
// gives its place back.
func TestLimitConns(t *testing.T) {
	cases := []struct {
		name      string
		lim       ConnLimits
		open      int // connections held
		refused   int // of those, closed by the server
		which     string
		afterFree bool // one of the held closed: the next is accepted
	}{
		{"per client", ConnLimits{PerClient: 2, TrustedProxies: []string{}}, 4, 2, "client", true},
		{"in all", ConnLimits{All: 3, TrustedProxies: []string{}}, 5, 2, "all", true},
		{"both, the client's first", ConnLimits{PerClient: 2, All: 3, TrustedProxies: []string{}}, 3, 1, "client", true},
		{"a trusted proxy's connections", ConnLimits{PerClient: 2, TrustedProxies: []string{"127.0.0.0/8"}}, 5, 0, "", false},
		{"a trusted proxy by address", ConnLimits{PerClient: 2, TrustedProxies: []string{"127.0.0.1"}}, 5, 0, "", false},
		{"every peer trusted", ConnLimits{PerClient: 2}, 5, 0, "", false},
		{"another proxy trusted", ConnLimits{PerClient: 2, TrustedProxies: []string{"10.0.0.0/8", "::1"}}, 4, 2, "client", false},
		{"no caps", ConnLimits{TrustedProxies: []string{}}, 6, 0, "", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			core, logs := observer.New(zap.WarnLevel)
			tc.lim.Log, tc.lim.Registry = zap.New(core), prometheus.NewRegistry()
			inner, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			ln, err := LimitConns(inner, tc.lim)
			if err != nil {
				t.Fatal(err)
			}
			defer ln.Close()
			accepted := make(chan net.Conn, 16)
			go func() {
				for {
					c, err := ln.Accept()
					if err != nil {
						return
					}
					accepted <- c
				}
			}()
			var clients []net.Conn
			defer func() {
				for _, c := range clients {
					c.Close()
				}
			}()
			served, refused := []net.Conn{}, 0
			for range tc.open {
				c, err := net.Dial("tcp", ln.Addr().String())
				if err != nil {
					t.Fatal(err)
				}
				clients = append(clients, c)
				select {
				case s := <-accepted:
					served = append(served, s)
				case <-time.After(500 * time.Millisecond):
					if closed, answer := closedByPeer(t, c); closed {
						// Answered as the API answers its caps.
						status := map[string]string{"client": "429", "all": "503"}[tc.which]
						if !strings.HasPrefix(answer, "HTTP/1.1 "+status+" ") || !strings.Contains(answer, "application/problem+json") || !strings.Contains(answer, "Retry-After: 1") {
							t.Errorf("a refused connection was answered %q", answer)
						}
						refused++
						break
					}
					select { // accepted late (a loaded machine)
					case s := <-accepted:
						served = append(served, s)
					case <-time.After(10 * time.Second):
						t.Fatal("a connection neither accepted nor closed")
					}
				}
			}
			if refused != tc.refused {
				t.Errorf("%d connections refused, want %d", refused, tc.refused)
			}
			l := ln.(*limitedListener)
			if got := testutil.ToFloat64(l.open); int(got) != tc.open-tc.refused {
				t.Errorf("gamesolver_http_connections %v, want %d", got, tc.open-tc.refused)
			}
			if tc.refused > 0 {
				if got := testutil.ToFloat64(l.refused.WithLabelValues(tc.which)); int(got) != tc.refused {
					t.Errorf("refused{cap=%q} %v, want %d", tc.which, got, tc.refused)
				}
				// One line, not one a refusal.
				if n := logs.FilterMessageSnippet("connections refused").Len(); n != 1 {
					t.Errorf("%d log lines about refusals, want 1", n)
				}
			}
			if !tc.afterFree {
				return
			}
			served[0].Close()
			served[0].Close() // a second Close gives nothing back again
			// The place is given back when the server's side closes: the
			// next connection is accepted, the one after it refused.
			dial := func() net.Conn {
				c, err := net.Dial("tcp", ln.Addr().String())
				if err != nil {
					t.Fatal(err)
				}
				clients = append(clients, c)
				return c
			}
			dial()
			select {
			case <-accepted:
			case <-time.After(10 * time.Second):
				t.Fatal("after a connection closed, the next was not accepted")
			}
			c := dial()
			select {
			case <-accepted:
				t.Error("after one closed, two more accepted")
			case <-time.After(500 * time.Millisecond):
				if closed, _ := closedByPeer(t, c); !closed {
					t.Error("the connection past the cap again: neither accepted nor closed")
				}
			}
		})
	}
}

// closedByPeer reports whether the server closed c (a read ends within
// 3 s), and what it sent before.
func closedByPeer(t *testing.T, c net.Conn) (bool, string) {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(3 * time.Second))
	var got bytes.Buffer
	_, err := io.Copy(&got, c)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return false, got.String()
	}
	return true, got.String()
}

// TestLimitConnsBadProxy: a trusted proxy that is neither an address nor
// a CIDR is refused (the configuration checks it first).
func TestLimitConnsBadProxy(t *testing.T) {
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer inner.Close()
	if _, err := LimitConns(inner, ConnLimits{TrustedProxies: []string{"example.com"}}); err == nil {
		t.Error("a host name taken as a trusted proxy")
	}
}

// TestLimitConnsRefusedRequests: a request net/http refuses (headers past
// MaxHeaderBytes: 431; a body past the handler's cap: 413) is answered and
// the connection ended (EOF at once), through the wrapper as without it:
// the wrapper hid CloseWrite, and the client got a reset 500 ms later.
func TestLimitConnsRefusedRequests(t *testing.T) {
	requests := map[string]string{
		"431": "GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + strings.Repeat("a", 200<<10) + "\r\n\r\n",
		"413": "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1048576\r\n\r\n" + strings.Repeat("a", 1<<20),
	}
	for _, limited := range []bool{false, true} {
		inner, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ln := net.Listener(inner)
		if limited {
			if ln, err = LimitConns(inner, ConnLimits{PerClient: 256, TrustedProxies: []string{}}); err != nil {
				t.Fatal(err)
			}
		}
		srv := &http.Server{MaxHeaderBytes: 32 << 10, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if _, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 64<<10)); err != nil {
				http.Error(w, "body too large", http.StatusRequestEntityTooLarge)
			}
		})}
		go func() { _ = srv.Serve(ln) }()
		for status, req := range requests {
			c, err := net.Dial("tcp", inner.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			go func() { _, _ = io.WriteString(c, req) }()
			_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
			var out bytes.Buffer
			_, err = io.Copy(&out, c)
			c.Close()
			if !strings.HasPrefix(out.String(), "HTTP/1.1 "+status) || err != nil {
				t.Errorf("limited %v, a request refused %s: %.20q, then %v (want EOF)", limited, status, out.String(), err)
			}
		}
		srv.Close()
	}
}

// TestLimitConnsAnsweredAtMost: refusals are answered (a problem) only so
// many at a time; beyond, a connection is closed bare, holding nothing.
func TestLimitConnsAnsweredAtMost(t *testing.T) {
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln, err := LimitConns(inner, ConnLimits{PerClient: 1, TrustedProxies: []string{}, Answered: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	// The answered refusal holds its place while its client keeps its side
	// open, for longer than a loaded machine may take to accept the next.
	ln.(*limitedListener).linger = 10 * time.Second
	// One held, one answered (its client keeps its side open), one closed
	// bare; accepted in order.
	conns := holdAndDial(t, ln, inner.Addr().String(), 3, 50*time.Millisecond)
	_, first := closedByPeer(t, conns[1])
	closed, second := closedByPeer(t, conns[2])
	if !strings.HasPrefix(first, "HTTP/1.1 429 ") || !closed || second != "" {
		t.Errorf("answered %.20q, then %.20q (closed %v)", first, second, closed)
	}
}

// TestRefusalsLoggedAtLast: refusals a log window held back get their line
// when the window ends, and when the listener closes: the last of a flood
// was never logged, though the metric counted it.
func TestRefusalsLoggedAtLast(t *testing.T) {
	for _, closeEarly := range []bool{false, true} {
		core, logs := observer.New(zap.WarnLevel)
		inner, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ln, err := LimitConns(inner, ConnLimits{PerClient: 1, TrustedProxies: []string{}, Log: zap.New(core)})
		if err != nil {
			t.Fatal(err)
		}
		l := ln.(*limitedListener)
		l.logEvery = time.Hour
		if !closeEarly {
			l.logEvery = 300 * time.Millisecond
		}
		// One held, three refused: the first logged, two held back.
		conns := holdAndDial(t, ln, inner.Addr().String(), 4, 0)
		for _, c := range conns[1:] {
			if closed, _ := closedByPeer(t, c); !closed {
				t.Fatal("a connection past the cap was not refused")
			}
		}
		if closeEarly {
			ln.Close()
		} else {
			time.Sleep(time.Second)
		}
		var counts []int64
		for _, e := range logs.FilterMessageSnippet("connections refused").All() {
			counts = append(counts, e.ContextMap()["refused"].(int64))
		}
		if fmt.Sprint(counts) != "[1 2]" {
			t.Errorf("close early %v: lines counting %v refusals, want [1 2]", closeEarly, counts)
		}
		ln.Close()
	}
}

// TestUntrustedForwarding: X-Forwarded-For from a peer that is not a
// trusted proxy is ignored, and said once (an operator behind a proxy the
// default no longer trusts learns what to set); a trusted proxy's is not.
func TestUntrustedForwarding(t *testing.T) {
	r, logs, _ := newTestServer(t, Config{TrustedProxies: []string{"10.0.0.0/8"}})
	send := func(peer, forwarded string) {
		req := httptest.NewRequest("GET", "/healthz", nil)
		req.RemoteAddr = peer
		if forwarded != "" {
			req.Header.Set("X-Forwarded-For", forwarded)
		}
		r.ServeHTTP(httptest.NewRecorder(), req)
	}
	warnings := func() []observer.LoggedEntry {
		return logs.FilterMessageSnippet("not a trusted proxy").All()
	}
	send("192.0.2.7:4000", "")
	send("10.1.2.3:4000", "198.51.100.9")
	if n := len(warnings()); n != 0 {
		t.Fatalf("%d warnings without an untrusted forwarding", n)
	}
	send("192.0.2.7:4000", "198.51.100.9")
	send("[::ffff:192.0.2.8]:4000", "198.51.100.9")
	w := warnings()
	if len(w) != 1 || w[0].ContextMap()["peer"] != "192.0.2.7" {
		t.Fatalf("warnings %v, want one naming 192.0.2.7", w)
	}
	// The forwarded address named the client of the trusted proxy's
	// request only.
	if n := len(logs.FilterField(zap.String("client", "198.51.100.9")).All()); n != 1 {
		t.Errorf("the forwarded address named the client %d times, want once", n)
	}
	// Trusting every peer: nothing to warn about.
	r, logs, _ = newTestServer(t, Config{})
	send("192.0.2.7:4000", "198.51.100.9")
	if n := len(warnings()); n != 0 {
		t.Errorf("%d warnings with every peer trusted", n)
	}
}

// TestTrustedPeer: trusted proxies match as gin matches them: an
// IPv4-mapped CIDR is its IPv4 one, and a peer with an IPv6 zone is no
// trusted proxy (a review found the middleware and gin disagreeing).
func TestTrustedPeer(t *testing.T) {
	trusted, err := trustedPrefixes([]string{"::ffff:10.0.0.0/104", "fe80::/10", "192.0.2.1"})
	if err != nil {
		t.Fatal(err)
	}
	for addr, want := range map[string]bool{
		"10.1.2.3": true, "::ffff:10.1.2.3": true, "11.0.0.1": false,
		"fe80::1": true, "fe80::1%eth0": false, "192.0.2.1": true, "::ffff:192.0.2.1": true, "192.0.2.2": false,
	} {
		if got := trustedPeer(trusted, netip.MustParseAddr(addr)); got != want {
			t.Errorf("%s: trusted %v, want %v", addr, got, want)
		}
	}
}

// holdAndDial accepts (and holds until ln closes) every connection of ln,
// and dials n to addr, gap apart; they are closed at the test's end.
func holdAndDial(t *testing.T, ln net.Listener, addr string, n int, gap time.Duration) []net.Conn {
	t.Helper()
	go func() {
		var held []net.Conn
		defer func() {
			for _, c := range held {
				c.Close()
			}
		}()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			held = append(held, c)
		}
	}()
	var conns []net.Conn
	for range n {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		conns = append(conns, c)
		time.Sleep(gap)
	}
	return conns
}
