// Package redistest starts real redis-server processes for integration
// tests, on free loopback ports, and can kill and restart them.
package redistest

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Server is one redis-server process owned by a test.
type Server struct {
	t    testing.TB
	bin  string
	dir  string
	Port int
	cmd  *exec.Cmd
}

// Required reports whether integration tests must not skip for lack of
// Redis: `make test` and CI set GAMESOLVER_REQUIRE_REDIS=1.
func Required() bool { return os.Getenv("GAMESOLVER_REQUIRE_REDIS") == "1" }

// Start launches a private redis-server on a free port, stopped when the
// test ends. Tests that kill Redis use their own server, not REDIS_URL's.
func Start(t testing.TB) *Server {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		if Required() {
			t.Fatal("redis-server not found on PATH")
		}
		t.Skip("redis-server not found; run `make test` for the integration tests")
	}
	s := &Server{t: t, bin: bin, dir: t.TempDir(), Port: freePort(t)}
	s.Restart()
	t.Cleanup(s.Kill)
	return s
}

// URL is the redis:// URL of this server.
func (s *Server) URL() string { return fmt.Sprintf("redis://127.0.0.1:%d/0", s.Port) }

// Addr is host:port of this server.
func (s *Server) Addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(s.Port)) }

// Kill stops the server at once (SIGKILL), as a crash would.
func (s *Server) Kill() {
	if s.cmd == nil || s.cmd.Process == nil {
		return
	}
	_ = s.cmd.Process.Kill()
	_ = s.cmd.Wait()
	s.cmd = nil
}

// Restart starts the server again on the same port with the same data
// directory (append-only file on, so data written before a kill survives)
// and waits until it answers commands: a server still loading its
// append-only file accepts connections but answers -LOADING, which made a
// transaction sent right after a restart fail with EXECABORT.
func (s *Server) Restart() {
	s.t.Helper()
	s.Kill()
	s.cmd = exec.Command(s.bin,
		"--port", strconv.Itoa(s.Port), "--bind", "127.0.0.1",
		"--dir", s.dir, "--appendonly", "yes", "--appendfsync", "always",
		"--save", "", "--protected-mode", "no")
	s.cmd.Stdout, s.cmd.Stderr = nil, nil
	if err := s.cmd.Start(); err != nil {
		s.t.Fatalf("start redis-server: %v", err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if s.ready() {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	s.t.Fatalf("redis-server on %s did not start (dir %s)", s.Addr(), filepath.Clean(s.dir))
}

// ready reports whether the server answers PING with PONG.
func (s *Server) ready() bool {
	c, err := net.DialTimeout("tcp", s.Addr(), 100*time.Millisecond)
	if err != nil {
		return false
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(time.Second))
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return false
	}
	buf := make([]byte, 64)
	n, err := c.Read(buf)
	return err == nil && strings.HasPrefix(string(buf[:n]), "+PONG")
}

func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("free port: %v", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
