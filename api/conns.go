package api

import (
	"fmt"
	"math"
	"net"
	"net/netip"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"

	"github.com/gamesolver/gamesolver/service"
)

// ConnLimits caps the TCP connections a server holds, each holding a
// file descriptor until it closes: one address that opened 20,000 idle
// keep-alive connections used up the process's open-file limit, and the
// server then accepted no one (every client waited out its timeout) and
// could open no file (a job's log, a table). A connection beyond a cap is
// closed as soon as it is accepted, before any request is read.
type ConnLimits struct {
	// PerClient: connections from one peer address (an IPv4 address, an
	// IPv6 address's /64, as rate limits tell clients apart), peers among
	// TrustedProxies aside: an ingress carries every client's. 0: no cap.
	PerClient int
	// All: connections in all; 0: no cap.
	All int
	// TrustedProxies are addresses or CIDRs (Config.TrustedProxies: nil
	// trusts every peer, empty none).
	TrustedProxies []string
	// Registry takes the connection metrics (nil: none).
	Registry prometheus.Registerer
	// Log says when connections are refused, at most every RefusalLogEvery.
	Log *zap.Logger
}

// RefusalLogEvery is the least time between two log lines about refused
// connections (each says how many since the last).
const RefusalLogEvery = 10 * time.Second

// LimitConns wraps ln so that the connections it accepts keep within
// lim's caps. It fails only on a trusted proxy that is neither an
// address nor a CIDR.
func LimitConns(ln net.Listener, lim ConnLimits) (net.Listener, error) {
	l := &limitedListener{Listener: ln, lim: lim, log: lim.Log}
	if l.log == nil {
		l.log = zap.NewNop()
	}
	if lim.TrustedProxies == nil {
		l.trustAll = true
	}
	for _, p := range lim.TrustedProxies {
		if a, err := netip.ParseAddr(p); err == nil {
			l.trusted = append(l.trusted, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
			continue
		}
		pre, err := netip.ParsePrefix(p)
		if err != nil {
			return nil, fmt.Errorf("trusted proxy %q is neither an address nor a CIDR", p)
		}
		l.trusted = append(l.trusted, pre.Masked())
	}
	l.open = prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Namespace: "gamesolver", Name: "http_connections",
		Help: "TCP connections the HTTP server holds open (each a file descriptor), for --max-connections.",
	}, func() float64 {
		l.held.mu.Lock()
		defer l.held.mu.Unlock()
		return float64(l.held.total)
	})
	l.refused = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "gamesolver", Name: "http_connections_refused_total",
		Help: "TCP connections closed as soon as accepted, by the cap they met: client (--max-client-connections) or all (--max-connections).",
	}, []string{"cap"})
	for _, c := range []string{"client", "all"} {
		l.refused.WithLabelValues(c)
	}
	if lim.Registry != nil {
		lim.Registry.MustRegister(l.open, l.refused)
	}
	return l, nil
}

type limitedListener struct {
	net.Listener
	lim      ConnLimits
	log      *zap.Logger
	trustAll bool
	trusted  []netip.Prefix
	held     clientCount
	open     prometheus.GaugeFunc
	refused  *prometheus.CounterVec

	// Refusals since the last log line, and when it was written.
	logMu    sync.Mutex
	unlogged int64
	loggedAt time.Time
}

// Accept returns the next connection within the caps, closing those
// beyond them.
func (l *limitedListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return c, err
		}
		client, perClient := l.client(c.RemoteAddr())
		release, clientFull, _ := l.held.take(client, perClient, l.lim.All)
		if release != nil {
			return &limitedConn{Conn: c, release: release}, nil
		}
		_ = c.Close()
		which := "all"
		if clientFull {
			which = "client"
		}
		l.refused.WithLabelValues(which).Inc()
		l.logRefusal(client, which)
	}
}

// client is the address a connection counts against, and its cap: none
// for a trusted proxy's.
func (l *limitedListener) client(addr net.Addr) (string, int) {
	ap, err := netip.ParseAddrPort(addr.String())
	if err != nil {
		return "peer:" + addr.String(), math.MaxInt
	}
	a := ap.Addr().Unmap().WithZone("")
	if l.trustAll || l.lim.PerClient <= 0 {
		return "peer:" + a.String(), math.MaxInt
	}
	for _, p := range l.trusted {
		if p.Contains(a) {
			return "proxy:" + a.String(), math.MaxInt
		}
	}
	return (*service.APIKeys)(nil).ClientID("", a.String()), l.lim.PerClient
}

// logRefusal writes a line about refused connections, at most every
// RefusalLogEvery (a flood of them must not flood the log).
func (l *limitedListener) logRefusal(client, which string) {
	l.logMu.Lock()
	defer l.logMu.Unlock()
	l.unlogged++
	if time.Since(l.loggedAt) < RefusalLogEvery {
		return
	}
	n := l.unlogged
	l.loggedAt, l.unlogged = time.Now(), 0
	l.log.Warn("connections refused: a cap on open connections was met",
		zap.String("cap", which), zap.String("last_client", client), zap.Int64("refused", n),
		zap.Int("max_client_connections", l.lim.PerClient), zap.Int("max_connections", l.lim.All))
}

// limitedConn gives its place back when it closes (once).
type limitedConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}

// CloseWrite half-closes the connection, as net/http does before it
// closes one whose request it refused (431, 413: it then reads what the
// client still sends for a while): hidden by the wrapper, the client got a
// reset 500 ms later instead of the answer and an end (a review's).
func (c *limitedConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}
