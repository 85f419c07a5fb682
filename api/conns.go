package api

import (
	"fmt"
	"io"
	"math"
	"net"
	"net/netip"
	"strconv"
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
// answered at once, before any request is read (a 429 or 503 problem,
// then closed: ConnLimits.Answered at most at a time; beyond, closed
// bare).
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
	// Answered: refused connections answered at once (a 429 or 503
	// problem, then closed) at most; beyond, they are closed bare, so
	// that a flood of them holds no more descriptors. 0: refusalSlots.
	Answered int
}

// refusalSlots is ConnLimits.Answered's default; refusalLinger bounds the
// time each answered refusal holds its connection (the answer written,
// what the client sent read and dropped: closing with unread input would
// reset the connection, and the client could lose the answer).
const (
	refusalSlots  = 32
	refusalLinger = 500 * time.Millisecond
)

// RefusalLogEvery is the least time between two log lines about refused
// connections (each says how many since the last).
const RefusalLogEvery = 10 * time.Second

// LimitConns wraps ln so that the connections it accepts keep within
// lim's caps. It fails only on a trusted proxy that is neither an
// address nor a CIDR.
func LimitConns(ln net.Listener, lim ConnLimits) (net.Listener, error) {
	l := &limitedListener{Listener: ln, log: lim.Log}
	if l.log == nil {
		l.log = zap.NewNop()
	}
	if lim.TrustedProxies == nil {
		l.trustAll = true
	}
	if lim.Answered <= 0 {
		lim.Answered = refusalSlots
	}
	l.answering, l.linger = make(chan struct{}, lim.Answered), refusalLinger
	l.logEvery = RefusalLogEvery
	l.lim = lim
	var err error
	if l.trusted, err = trustedPrefixes(lim.TrustedProxies); err != nil {
		return nil, err
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
		Help: "TCP connections refused as soon as accepted (answered 429 or 503, then closed), by the cap they met: client (--max-client-connections) or all (--max-connections).",
	}, []string{"cap"})
	for _, c := range []string{"client", "all"} {
		l.refused.WithLabelValues(c)
	}
	l.raw = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "gamesolver", Name: "http_unreadable_requests_total",
		Help: "Requests the HTTP server refused before any handler, by status: 400 malformed, 417 an Expect other than 100-continue, 431 headers too large, 501 transfer encoding, 505 HTTP version (answered as problems, then the connection closed; not in the access log).",
	}, []string{"code"})
	for _, code := range []string{"400", "417", "431", "501", "505"} {
		l.raw.WithLabelValues(code)
	}
	if lim.Registry != nil {
		lim.Registry.MustRegister(l.open, l.refused, l.raw)
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
	raw      *prometheus.CounterVec
	// answering holds a place for each refusal being answered, for at
	// most linger (refusalLinger; a test's longer).
	answering chan struct{}
	linger    time.Duration

	// Refusals since the last log line, and when it was written; the
	// last refusal's cap and client; the timer that writes the line about
	// refusals a window held back (pending), and the window (logEvery:
	// RefusalLogEvery, a test's shorter).
	logMu      sync.Mutex
	unlogged   int64
	loggedAt   time.Time
	lastCap    string
	lastClient string
	pending    *time.Timer
	logEvery   time.Duration
	closed     bool // the listener closed: a refusal accepted before is logged at once
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
			return &limitedConn{Conn: c, release: release, raw: l.raw}, nil
		}
		which := "all"
		if clientFull {
			which = "client"
		}
		select {
		case l.answering <- struct{}{}:
			go func() {
				defer func() { <-l.answering }()
				l.answer(c, clientFull)
			}()
		default:
			_ = c.Close()
		}
		l.refused.WithLabelValues(which).Inc()
		l.logRefusal(client, which)
	}
}

// answer tells a refused connection's client why, as the API's problems
// do (429 rate-limited for its address's cap, 503 busy for the server's),
// and closes it after a short linger.
func (l *limitedListener) answer(c net.Conn, clientFull bool) {
	defer c.Close()
	p := kindProblem("busy", fmt.Sprintf("the server holds as many connections as it allows (--max-connections, %d): retry, or reuse a connection", l.lim.All))
	if clientFull {
		p = kindProblem("rate-limited", fmt.Sprintf("this address holds as many connections as it may (--max-client-connections, %d): close some, or reuse them", l.lim.PerClient))
	}
	p.RetryAfterSeconds = 1
	_ = c.SetDeadline(time.Now().Add(l.linger))
	if _, err := c.Write(connProblem(p)); err != nil {
		return
	}
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		_ = cw.CloseWrite()
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(c, 64<<10))
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
	if trustedPeer(l.trusted, ap.Addr()) {
		return "proxy:" + a.String(), math.MaxInt
	}
	return (*service.APIKeys)(nil).ClientID("", a.String()), l.lim.PerClient
}

// logRefusal writes a line about refused connections, at most every
// RefusalLogEvery (a flood of them must not flood the log). Refusals held
// back get their line when the window ends, so that the last of a flood
// is logged too, and when the listener closes.
func (l *limitedListener) logRefusal(client, which string) {
	l.logMu.Lock()
	defer l.logMu.Unlock()
	l.unlogged++
	l.lastCap, l.lastClient = which, client
	if wait := l.logEvery - time.Since(l.loggedAt); wait > 0 && !l.closed {
		if l.pending == nil {
			l.pending = time.AfterFunc(wait, l.flushRefusals)
		}
		return
	}
	l.writeRefusals()
}

// flushRefusals writes the line about refusals held back, if any.
func (l *limitedListener) flushRefusals() {
	l.logMu.Lock()
	defer l.logMu.Unlock()
	l.pending = nil
	if l.unlogged > 0 {
		l.writeRefusals()
	}
}

// writeRefusals writes the line; logMu is held.
func (l *limitedListener) writeRefusals() {
	n := l.unlogged
	l.loggedAt, l.unlogged = time.Now(), 0
	l.log.Warn("connections refused: a cap on open connections was met",
		zap.String("cap", l.lastCap), zap.String("last_client", l.lastClient), zap.Int64("refused", n),
		zap.Int("max_client_connections", l.lim.PerClient), zap.Int("max_connections", l.lim.All))
}

// Close closes the listener and writes the line about refusals held back.
func (l *limitedListener) Close() error {
	err := l.Listener.Close()
	l.logMu.Lock()
	l.closed = true
	if l.pending != nil && l.pending.Stop() {
		l.pending = nil
	}
	l.logMu.Unlock()
	l.flushRefusals()
	return err
}

// trustedPrefixes parses trusted proxies: addresses or CIDRs, IPv4-mapped
// ones as IPv4 (::ffff:10.0.0.0/104 is 10.0.0.0/8), as gin reads them.
func trustedPrefixes(list []string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, p := range list {
		if a, err := netip.ParseAddr(p); err == nil {
			out = append(out, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
			continue
		}
		pre, err := netip.ParsePrefix(p)
		if err != nil {
			return nil, fmt.Errorf("trusted proxy %q is neither an address nor a CIDR", p)
		}
		if a := pre.Addr(); a.Is4In6() && pre.Bits() >= 96 {
			pre = netip.PrefixFrom(a.Unmap(), pre.Bits()-96)
		}
		out = append(out, pre.Masked())
	}
	return out, nil
}

// trustedPeer tells whether a peer's address is a trusted proxy's. An
// address with a zone (fe80::1%eth0) is none, as gin reads it.
func trustedPeer(trusted []netip.Prefix, a netip.Addr) bool {
	if a.Zone() != "" {
		return false
	}
	a = a.Unmap()
	for _, p := range trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// limitedConn gives its place back when it closes (once), and sends
// net/http's own answers as problems (rawProblem).
type limitedConn struct {
	net.Conn
	once    sync.Once
	release func()
	// raw counts an answer net/http gave itself, by status.
	raw *prometheus.CounterVec
}

// Write writes b, or for one of net/http's own answers to a
// request it could not read, the same answer as a problem+json.
func (c *limitedConn) Write(b []byte) (int, error) {
	p, status := rawProblem(b)
	if p == nil {
		return c.Conn.Write(b)
	}
	c.raw.WithLabelValues(strconv.Itoa(status)).Inc()
	if _, err := c.Conn.Write(p); err != nil {
		return 0, err
	}
	return len(b), nil
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
