package jobs

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// dropAfterCreate is a TCP proxy to addr that, the first time a client
// sends createScript, lets Redis run it and then drops the connection
// before the answer: go-redis (MaxRetries) sends the script again on a new
// connection.
func dropAfterCreate(t *testing.T, addr string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	var fired atomic.Bool
	sha := []byte(createScript.Hash())
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", addr)
			if err != nil {
				_ = c.Close()
				continue
			}
			var once sync.Once
			closeBoth := func() { once.Do(func() { _ = c.Close(); _ = s.Close() }) }
			var mute atomic.Bool // the answers to this connection are lost
			go func() {
				defer closeBoth()
				buf := make([]byte, 1<<16)
				for {
					n, err := s.Read(buf)
					if mute.Load() {
						return
					}
					if n > 0 {
						if _, err := c.Write(buf[:n]); err != nil {
							return
						}
					}
					if err != nil {
						return
					}
				}
			}()
			go func() {
				defer closeBoth()
				buf := make([]byte, 1<<16)
				var seen []byte
				for {
					n, err := c.Read(buf)
					if n > 0 {
						seen = append(seen[max(0, len(seen)-64):], buf[:n]...)
						drop := bytes.Contains(seen, sha) && fired.CompareAndSwap(false, true)
						if drop {
							mute.Store(true)
						}
						if _, werr := s.Write(buf[:n]); werr != nil {
							return
						}
						if drop {
							time.Sleep(200 * time.Millisecond) // Redis runs it; its answer is lost
							return
						}
					}
					if err != nil {
						return
					}
				}
			}()
		}
	}()
	return ln.Addr().String()
}

// TestRedisCreateRetriedWritesOnce: go-redis sends a command again when
// its connection broke before the answer (io.EOF; the service's jobs
// client keeps the default MaxRetries), though Redis may have run it: the
// job's write then runs twice. It must leave the job as one write does:
// its first units once in the stream (twice, each would run twice and
// finish twice, queuing two of the next units), and the job as it is
// (a worker may have begun it between the two).
func TestRedisCreateRetriedWritesOnce(t *testing.T) {
	rdb, _ := newWindowedStore(t)
	ctx := context.Background()
	retrying := redis.NewClient(&redis.Options{Addr: dropAfterCreate(t, rdb.Options().Addr), MaxRetries: 3})
	t.Cleanup(func() { _ = retrying.Close() })
	store := NewRedisStore(retrying).Window(2)
	if err := createScript.Load(ctx, rdb).Err(); err != nil {
		t.Fatal(err)
	}
	units := []json.RawMessage{json.RawMessage(`{"u":0}`), json.RawMessage(`{"u":1}`), json.RawMessage(`{"u":2}`)}
	for _, lim := range []limits{{}, {all: 10, client: 10}} {
		s := state{ID: newID(), Type: "toy.squares", Status: StatusQueued, Created: time.Now().UTC(),
			Request: json.RawMessage(`{}`), Total: len(units), Client: "ip:192.0.2.1"}
		if err := rdb.Del(ctx, streamKey).Err(); err != nil {
			t.Fatal(err)
		}
		if err := store.ensureGroup(ctx); err != nil {
			t.Fatal(err)
		}
		err := store.create(ctx, s, units, lim)
		n, _ := rdb.XLen(ctx, streamKey).Result()
		t.Logf("limits %+v: create: %v, %d entries", lim, err, n)
		time.Sleep(300 * time.Millisecond) // an undo, if any
		if n, _ := rdb.XLen(ctx, streamKey).Result(); err == nil && n != 2 {
			t.Errorf("limits %+v: %d units in the stream, want 2", lim, n)
		}
	}
}
