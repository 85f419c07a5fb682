package api

import (
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

// TestLimitConns: connections beyond a cap are closed as soon as accepted,
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
					if !closedByPeer(t, c) {
						t.Fatal("a connection neither accepted nor closed")
					}
					refused++
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
			for range 2 {
				c, err := net.Dial("tcp", ln.Addr().String())
				if err != nil {
					t.Fatal(err)
				}
				clients = append(clients, c)
				select {
				case s := <-accepted:
					served = append(served, s)
				case <-time.After(500 * time.Millisecond):
					if len(served) == tc.open-tc.refused {
						t.Fatal("after a connection closed, the next was refused")
					}
					closedByPeer(t, c) // the second: the cap again
				}
			}
			if len(served) != tc.open-tc.refused+1 {
				t.Errorf("after one closed, %d held, want %d", len(served), tc.open-tc.refused+1)
			}
		})
	}
}

// closedByPeer reports whether the server closed c (a read ends without
// data within a second).
func closedByPeer(t *testing.T, c net.Conn) bool {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(time.Second))
	_, err := c.Read(make([]byte, 1))
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return false
	}
	return errors.Is(err, io.EOF) || err != nil && strings.Contains(err.Error(), "reset")
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
