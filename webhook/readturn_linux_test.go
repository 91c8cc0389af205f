package webhook

import (
	"bytes"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/claimbridge/claimbridge/api"
)

// turnPair is a connLimiter with n turns and up to 8 places, and a way to
// open client connections and accept their server ends.
type turnPair struct {
	l  *connLimiter
	ln net.Listener
}

func newTurnPair(t *testing.T, n int) *turnPair {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := newConnLimiter(ln, 8, nil)
	l.minReapIdle, l.rotateAfter = time.Hour, time.Hour
	l.turns = newReadTurns(n, l.done)
	t.Cleanup(func() { _ = l.Close() })
	return &turnPair{l: l, ln: ln}
}

// open returns a client connection and its accepted server end.
func (p *turnPair) open(t *testing.T) (client, server net.Conn) {
	t.Helper()
	c, err := net.Dial("tcp", p.ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	s, err := p.l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close(); _ = s.Close() })
	return c, s
}

type readResult struct {
	data string
	err  error
}

func readAsync(c net.Conn) <-chan readResult {
	out := make(chan readResult, 1)
	go func() {
		buf := make([]byte, 16)
		n, err := c.Read(buf)
		out <- readResult{string(buf[:n]), err}
	}()
	return out
}

// Data that arrives while every turn is held waits, unread by the server,
// until the holder has nothing more to read; then it is returned. The
// holder's turn goes back when its read would wait, here until its read
// deadline, which still applies.
func TestConnLimiterReadsInTurns(t *testing.T) {
	p := newTurnPair(t, 1)
	c1, s1 := p.open(t)
	c2, s2 := p.open(t)

	io.WriteString(c1, "one")
	buf := make([]byte, 16)
	if n, err := s1.Read(buf); err != nil || string(buf[:n]) != "one" {
		t.Fatalf("first read: %q, %v", buf[:n], err)
	}
	if got := p.l.turns.inUse(); got != 1 {
		t.Fatalf("turns in use after the first read: %d, want 1", got)
	}

	p.l.connState(s2, http.StateNew)
	io.WriteString(c2, "two")
	second := readAsync(s2)
	// The second connection's data has arrived (it is no longer fresh) but
	// waits for the turn.
	eventually(t, "the second connection to wait for a turn", func() bool {
		p.l.mu.Lock()
		defer p.l.mu.Unlock()
		_, fresh := p.l.fresh[s2]
		return !fresh && len(second) == 0
	})
	select {
	case r := <-second:
		t.Fatalf("second read returned %q, %v while the only turn was held", r.data, r.err)
	case <-time.After(100 * time.Millisecond):
	}

	// The holder reads again: nothing has arrived, so its turn goes back
	// while it waits, until its deadline.
	_ = s1.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
	if _, err := s1.Read(buf); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("holder's read: %v, want the deadline", err)
	}
	r := <-second
	if r.err != nil || r.data != "two" {
		t.Fatalf("second read: %q, %v", r.data, r.err)
	}
	if got := p.l.turns.inUse(); got != 1 {
		t.Fatalf("turns in use: %d, want 1 (the second connection's)", got)
	}
}

// A connection closed while its data waits for a turn returns from the
// read without taking one; a connection whose client has closed reads EOF
// without waiting for a turn; closing the holder gives its turn back.
func TestConnLimiterReadTurnClosed(t *testing.T) {
	p := newTurnPair(t, 1)
	c1, s1 := p.open(t)
	c2, s2 := p.open(t)
	c3, s3 := p.open(t)

	io.WriteString(c1, "one")
	buf := make([]byte, 16)
	if _, err := s1.Read(buf); err != nil {
		t.Fatal(err)
	}

	p.l.connState(s2, http.StateNew)
	io.WriteString(c2, "two")
	second := readAsync(s2)
	eventually(t, "the second connection to wait for a turn", func() bool {
		p.l.mu.Lock()
		defer p.l.mu.Unlock()
		_, fresh := p.l.fresh[s2]
		return !fresh
	})
	_ = s2.Close()
	if r := <-second; r.err == nil {
		t.Fatalf("read of a connection closed while waiting for a turn: %q, no error", r.data)
	}

	_ = c3.Close()
	if n, err := s3.Read(buf); n != 0 || err != io.EOF {
		t.Fatalf("read after the client closed: %d, %v; want EOF without a turn", n, err)
	}

	if got := p.l.turns.inUse(); got != 1 {
		t.Fatalf("turns in use: %d, want 1 (the first connection's)", got)
	}
	_ = s1.Close()
	if got := p.l.turns.inUse(); got != 0 {
		t.Fatalf("turns in use after the holder closed: %d, want 0", got)
	}
}

// Through the server, with a single read turn: connections that send half
// a request hold no turn (their reads wait for data), so many clients, each
// on its own connection, are all answered; the turns in use are exported.
func TestServerReadsInTurns(t *testing.T) {
	ts := startServer(t, func(c *Config) {
		c.MaxConnections, c.MaxReadingConnections = 64, 1
	})
	pool := ts.caPool(t)
	for range 8 {
		c, err := tls.Dial("tcp", ts.Addr().String(), &tls.Config{RootCAs: pool})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Close() })
		io.WriteString(c, "POST /convert HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{\"apiVersion\":")
	}
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			client := ts.client(t, nil) // a connection of its own
			for range 5 {
				resp, body, err := postJSON(client, ts.url("/convert"), conversionReview("apiextensions.k8s.io/v1", "u", api.Group+"/v1alpha1", fixture(t, "v1alpha3")))
				if err != nil {
					errs <- err
					return
				}
				if resp.StatusCode != 200 || !bytes.Contains(body, []byte(`"status":"Success"`)) {
					errs <- errors.New(string(body))
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	resp, err := http.Get("http://" + ts.MetricsAddr().String() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	metrics, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(metrics), "claimbridge_webhook_reading_connections ") {
		t.Errorf("metrics lack claimbridge_webhook_reading_connections")
	}
}
