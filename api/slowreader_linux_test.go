package api

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSlowReaderHoldsNoPlace: a client that asks for a big answer and
// never reads it must not keep its place in the assembly gate while the
// bytes wait to go out (a review found that with as many such clients as
// places, every other big answer waited for ever): the answer is encoded
// in the gate, and written after.
func TestSlowReaderHoldsNoPlace(t *testing.T) {
	r, _ := newGatedServer()
	srv := httptest.NewUnstartedServer(r)
	srv.Listener = smallSendBuf{srv.Listener}
	srv.Start()
	defer srv.Close()
	body := `{"game":"hexominoes","all_moves":true,"budget_ms":1000}`
	// The slow client: a tiny receive buffer, never reads.
	d := net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
		return c.Control(func(fd uintptr) { _ = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) })
	}}
	conn, err := d.Dial("tcp", strings.TrimPrefix(srv.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /v1/polyomino/analyze HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
	_, _ = bufio.NewReader(conn).Peek(1) // the answer has started
	time.Sleep(500 * time.Millisecond)
	// A well-behaved client of the same big answer.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "POST", srv.URL+"/v1/polyomino/analyze", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	start := time.Now()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("a good client waited %v for a big answer behind one slow reader: %v", time.Since(start), err)
	}
	n, _ := io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	t.Logf("good client: %d bytes in %v", n, time.Since(start))
}

// smallSendBuf gives accepted connections the send buffer of a WAN link
// (on loopback the kernel's autotuning buffers a whole megabyte).
type smallSendBuf struct{ net.Listener }

func (l smallSendBuf) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetWriteBuffer(64 << 10)
	}
	return c, err
}
