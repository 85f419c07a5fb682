package service

import (
	"context"
	"crypto/pbkdf2"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"net/netip"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"
	"github.com/ulule/limiter/v3"
	"github.com/ulule/limiter/v3/drivers/store/memory"
	redisstore "github.com/ulule/limiter/v3/drivers/store/redis"
	"go.uber.org/zap"
)

// RateLimiter limits each client's requests per period (a fixed window,
// github.com/ulule/limiter). With Redis the counters live there, so a
// client's rate holds across replicas; without, or while Redis cannot be
// reached, each process counts in memory: a Redis failure relaxes the limit
// to per-replica, it never refuses or fails requests. After a failed call
// the shared counters are left alone for a while (sharedBackoff), then one
// request tries them again while the others count locally, so that a dead
// or frozen Redis costs one request per while its timeout, not every
// request.
type RateLimiter struct {
	rate    limiter.Rate
	local   *limiter.Limiter
	shared  atomic.Pointer[limiter.Limiter]
	timeout time.Duration
	log     *zap.Logger
	stop    chan struct{}
	// downUntil: until this time (nanoseconds since start, a monotonic
	// clock) count locally; 0 while the shared counters answer.
	downUntil atomic.Int64
	start     time.Time
	now       func() time.Time
	// checks count the checks by the counters that answered (Observe).
	sharedChecks, localChecks prometheus.Counter
}

// sharedBackoff is how long the limiter counts locally after the shared
// counters failed once.
const sharedBackoff = 2 * time.Second

// RateDecision is the outcome of one request's check.
type RateDecision struct {
	Allowed   bool
	Limit     int64
	Remaining int64
	Reset     time.Time
}

// NewRateLimiter parses a rate such as "100-S" (per second), "3000-M" or
// "50000-H". client may be nil for memory only; the Redis store is created
// in the background (it loads scripts) and retried until Redis answers.
func NewRateLimiter(rate string, client *redis.Client, timeout time.Duration, log *zap.Logger) (*RateLimiter, error) {
	r, err := parseRate(rate)
	if err != nil {
		return nil, err
	}
	if log == nil {
		log = zap.NewNop()
	}
	rl := &RateLimiter{rate: r, local: limiter.New(memory.NewStore(), r), timeout: timeout, log: log, stop: make(chan struct{}), start: time.Now(), now: time.Now}
	if client != nil {
		go rl.connect(client)
	}
	return rl, nil
}

func (rl *RateLimiter) connect(client *redis.Client) {
	for {
		store, err := redisstore.NewStoreWithOptions(client, limiter.StoreOptions{Prefix: "gs:rate", MaxRetry: 1})
		if err == nil {
			rl.shared.Store(limiter.New(store, rl.rate))
			return
		}
		select {
		case <-rl.stop:
			return
		case <-time.After(2 * time.Second):
		}
	}
}

// Observe counts each check in m.RateChecks under limiter's name, by the
// counters that answered it (shared or local); call it before the first
// check.
func (rl *RateLimiter) Observe(m *Metrics, limiter string) {
	rl.sharedChecks = m.RateChecks.WithLabelValues(limiter, "shared")
	rl.localChecks = m.RateChecks.WithLabelValues(limiter, "local")
}

// Close stops the background connection attempts.
func (rl *RateLimiter) Close() { close(rl.stop) }

// Allow counts one request of the client identified by key.
func (rl *RateLimiter) Allow(ctx context.Context, key string) RateDecision {
	return rl.check(ctx, key, (*limiter.Limiter).Get, true)
}

// Peek reports whether Allow would allow the client's next request,
// without counting one.
func (rl *RateLimiter) Peek(ctx context.Context, key string) RateDecision {
	d := rl.check(ctx, key, (*limiter.Limiter).Peek, false)
	if d.Limit > 0 { // (none when no counter answered: allowed)
		d.Allowed = d.Remaining > 0
	}
	return d
}

// check reads (get) the client's counter, shared or local; counted, it
// counts the check in the metrics (Allow's, not Peek's: a job submission
// peeks, then counts).
func (rl *RateLimiter) check(ctx context.Context, key string, get func(*limiter.Limiter, context.Context, string) (limiter.Context, error), counted bool) RateDecision {
	sharedChecks, localChecks := rl.sharedChecks, rl.localChecks
	if !counted {
		sharedChecks, localChecks = nil, nil
	}
	if shared := rl.shared.Load(); shared != nil && rl.tryShared() {
		sctx, cancel := context.WithTimeout(ctx, rl.timeout)
		c, err := get(shared, sctx, key)
		cancel()
		switch {
		case err == nil:
			rl.downUntil.Store(0)
			count(sharedChecks)
			return decision(c)
		case ctx.Err() != nil:
			rl.downUntil.Store(rl.since()) // the client left: the next request tries
		default:
			rl.downUntil.Store(rl.since() + int64(sharedBackoff))
			rl.log.Debug("shared rate limit unavailable, counting locally", zap.Error(err), zap.Duration("for", sharedBackoff))
		}
	}
	c, err := get(rl.local, ctx, key)
	if err != nil {
		return RateDecision{Allowed: true}
	}
	if ctx.Err() == nil { // (a client that left is no fallback)
		count(localChecks)
	}
	return decision(c)
}

func count(c prometheus.Counter) {
	if c != nil {
		c.Inc()
	}
}

func (rl *RateLimiter) since() int64 { return int64(rl.now().Sub(rl.start)) + 1 }

// tryShared reports whether this request uses the shared counters: always
// while they answer; after a failure, once the backoff is over, only the
// one request that takes the lease (the others count locally meanwhile).
func (rl *RateLimiter) tryShared() bool {
	old := rl.downUntil.Load()
	if old == 0 {
		return true
	}
	now := rl.since()
	return now >= old && rl.downUntil.CompareAndSwap(old, now+int64(rl.timeout))
}

func decision(c limiter.Context) RateDecision {
	// The limiter's Reset is the period's end rounded down to the second:
	// a client retrying then (or after a Retry-After counted from it) was
	// refused again. The next second is past the end.
	return RateDecision{Allowed: !c.Reached, Limit: c.Limit, Remaining: c.Remaining, Reset: time.Unix(c.Reset+1, 0)}
}

// APIKeys checks API keys in constant time. Keys are kept hashed, so that a
// key never sits in memory next to its neighbours in plain text longer
// than the configuration parse.
type APIKeys struct {
	hashes [][32]byte
	// ids are the keys' client ids, hashes[i]'s at i: derived slowly
	// (clientIDOf), once, here.
	ids []string
}

// Client ids of API keys are written to Redis (per-client counters and
// job sets) and to the job logs. A fast hash of the key there let anyone
// who reads them test guesses of a weak key offline at a GPU's pace (a
// security review); PBKDF2 with 2^16 rounds makes each guess cost about
// 20 ms of a core here. The salt is fixed, not drawn per process, so that
// every replica of a deployment names a key alike.
const (
	clientIDRounds = 1 << 16
	clientIDSalt   = "gamesolver client id v2"
)

// clientIDOf is a valid key's client id: 64 bits of PBKDF2-SHA256 (the
// first 8 of 16 bytes derived, which are those 8 bytes derived would be:
// FIPS 140-only mode refuses to derive fewer than 14).
func clientIDOf(key string) string {
	b, err := pbkdf2.Key(sha256.New, key, []byte(clientIDSalt), clientIDRounds, 16)
	if err != nil { // another refusal of FIPS 140-only mode: still a key's own id
		h := sha256.Sum256([]byte(clientIDSalt + key))
		b = h[:]
	}
	return "key:" + hex.EncodeToString(b[:8])
}

// NewAPIKeys holds the given keys (empty strings are ignored). It derives
// each key's client id, about 20 ms a key.
func NewAPIKeys(keys []string) *APIKeys {
	k := &APIKeys{}
	for _, key := range keys {
		if key != "" {
			k.hashes = append(k.hashes, sha256.Sum256([]byte(key)))
			k.ids = append(k.ids, clientIDOf(key))
		}
	}
	return k
}

// Enabled reports whether any key is configured.
func (k *APIKeys) Enabled() bool { return k != nil && len(k.hashes) > 0 }

// Valid reports whether key is one of the configured keys.
func (k *APIKeys) Valid(key string) bool {
	return k.index(key) >= 0
}

// index is key's place among the configured keys, -1 if none; every key
// is compared, in constant time.
func (k *APIKeys) index(key string) int {
	if !k.Enabled() || key == "" {
		return -1
	}
	h := sha256.Sum256([]byte(key))
	at := -1
	for i, want := range k.hashes {
		eq := subtle.ConstantTimeCompare(h[:], want[:])
		at = subtle.ConstantTimeSelect(eq, i, at)
	}
	return at
}

// ClientID names the client of a request for rate limiting: its API key
// (a slow hash of it, never the key itself) when it sent a valid one, else its
// address: an IPv4 address, or an IPv6 address's /64 network (one
// host's usual share: an audit's host with a /64 was a new client at
// each of its addresses, past every per-client rate and cap), but for
// the translation prefixes (NAT64, Teredo), whose /64 holds many clients.
func (k *APIKeys) ClientID(key, addr string) string {
	if i := k.index(key); i >= 0 {
		return k.ids[i]
	}
	if a, err := netip.ParseAddr(addr); err == nil {
		a = a.Unmap().WithZone("")
		switch {
		case nat64.Contains(a):
			// An IPv4 client through a NAT64 translator: its IPv4
			// address, in the low 32 bits (a /64 would make every such
			// client one).
			b := a.As16()
			return "ip:" + netip.AddrFrom4([4]byte(b[12:])).String()
		case a.Is6() && !localNAT64.Contains(a) && !teredo.Contains(a):
			p, _ := a.Prefix(64)
			return "ip:" + p.String()
		}
		// IPv4; or an address that tells clients apart below its /64
		// (a local NAT64 prefix, Teredo): the whole address.
		return "ip:" + a.String()
	}
	return "ip:" + addr
}

// The IPv6 prefixes whose /64 holds many clients: NAT64's well-known
// prefix (RFC 6052, the IPv4 address in the last 32 bits), the local-use
// NAT64 prefix (RFC 8215) and Teredo (RFC 4380).
var (
	nat64      = netip.MustParsePrefix("64:ff9b::/96")
	localNAT64 = netip.MustParsePrefix("64:ff9b:1::/48")
	teredo     = netip.MustParsePrefix("2001::/32")
)

// CheckRate reports whether rate is a rate NewRateLimiter takes, so that a
// configuration can be checked before anything starts.
func CheckRate(rate string) error {
	_, err := parseRate(rate)
	return err
}

func parseRate(rate string) (limiter.Rate, error) {
	r, err := limiter.NewRateFromFormatted(rate)
	if err != nil {
		return r, fmt.Errorf("rate limit %q: expected <requests>-<S|M|H|D>, such as 100-S: %w", rate, err)
	}
	return r, nil
}
