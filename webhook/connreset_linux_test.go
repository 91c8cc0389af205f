package webhook

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"
)

// rawGet sends a keep-alive GET on c and reads its answer.
func rawGet(t *testing.T, c net.Conn, r *bufio.Reader) {
	t.Helper()
	if _, err := io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	readAnswer(t, r)
}

func readAnswer(t *testing.T, r *bufio.Reader) {
	t.Helper()
	resp, err := http.ReadResponse(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
}

func dialRaw(t *testing.T, url string) (net.Conn, *bufio.Reader) {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	return c, bufio.NewReader(c)
}

var okHandler = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) })

// A connection idle long enough to be reclaimed, on which a request has
// begun to arrive that net/http has not finished reading (so it still counts
// as idle), is passed over: the request is answered, not cut off.
func TestConnLimiterPassesOverConnectionWithArrivingRequest(t *testing.T) {
	l, url := limitedHTTP(t, 1, okHandler)
	a, ar := dialRaw(t, url)
	rawGet(t, a, ar)
	time.Sleep(l.minReapIdle + 50*time.Millisecond)
	if _, err := io.WriteString(a, "GET / HTTP/1.1\r\n"); err != nil { // the header's first line only
		t.Fatal(err)
	}
	dialRaw(t, url) // waits for the place a holds
	time.Sleep(reapGrace + 2*reapPoll)
	if got := value(t, l.reaped); got != 0 {
		t.Fatalf("reclaimed %v connections, want 0: a request was arriving on the idle one", got)
	}
	if _, err := io.WriteString(a, "Host: x\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	readAnswer(t, ar)
}

// A reclaimed idle connection is closed with a reset, so that a client
// writing a request on it at that moment fails to write it (and Go's and
// client-go's transports send it again on another connection) instead of
// writing it and reading EOF.
func TestConnLimiterResetsReclaimedConnection(t *testing.T) {
	l, url := limitedHTTP(t, 1, okHandler)
	a, ar := dialRaw(t, url)
	rawGet(t, a, ar)
	time.Sleep(l.minReapIdle)
	b, br := dialRaw(t, url)
	waitFor(t, func() bool { return value(t, l.reaped) == 1 })
	if _, err := ar.ReadByte(); !errors.Is(err, syscall.ECONNRESET) {
		t.Fatalf("reading the reclaimed connection: %v, want a reset", err)
	}
	if _, err := io.WriteString(a, "GET / HTTP/1.1\r\nHost: x\r\n\r\n"); err == nil {
		t.Fatal("a request was written on the reclaimed connection")
	}
	rawGet(t, b, br)
}

// A connection that never sent a request is closed with a reset by the
// header timeout once it is older than freshAbortAfter; a busy connection
// that is closed after its answer (Connection: close) ends with a FIN, so
// the answer is read in full.
func TestConnLimiterResetsOnlyQuietConnections(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := newConnLimiter(ln, 2, nil)
	srv := &http.Server{Handler: l.closeOneAfterAnswer(okHandler), ConnState: l.connState, ReadHeaderTimeout: freshAbortAfter + 200*time.Millisecond}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	url := "http://" + ln.Addr().String() + "/"

	_, fr := dialRaw(t, url)
	if _, err := fr.ReadByte(); !errors.Is(err, syscall.ECONNRESET) {
		t.Fatalf("reading a connection closed by the header timeout: %v, want a reset", err)
	}

	c, cr := dialRaw(t, url)
	if _, err := io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	readAnswer(t, cr)
	if _, err := cr.ReadByte(); err != io.EOF {
		t.Fatalf("after an answer with Connection: close: %v, want EOF", err)
	}
}

// abortClose resets only when everything written before has been
// acknowledged: with an answer still unacknowledged (the client's receive
// window is full) it closes with a FIN and the client reads all of it; so
// does closing a connection idle after such an answer (reclaimed).
func TestAbortCloseKeepsUnacknowledgedAnswer(t *testing.T) {
	for _, tc := range []struct {
		name  string
		write func(server *net.TCPConn, answer []byte) (close func() error, err error)
	}{
		{"abortClose", func(server *net.TCPConn, answer []byte) (func() error, error) {
			_, err := server.Write(answer)
			return func() error { return abortClose(server, int64(len(answer))) }, err
		}},
		{"an idle connection closed", func(server *net.TCPConn, answer []byte) (func() error, error) {
			l := newConnLimiter(nil, 1, nil)
			l.sem <- struct{}{}
			lc := l.track(server)
			_, err := lc.Write(answer)
			l.connState(lc, http.StateIdle)
			return lc.Close, err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer ln.Close()
			d := net.Dialer{Control: func(_, _ string, rc syscall.RawConn) error {
				return rc.Control(func(fd uintptr) { _ = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) })
			}}
			client, err := d.Dial("tcp", ln.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer client.Close()
			sc, err := ln.Accept()
			if err != nil {
				t.Fatal(err)
			}
			server := sc.(*net.TCPConn)
			if err := server.SetWriteBuffer(4 << 20); err != nil {
				t.Fatal(err)
			}
			answer := make([]byte, 64<<10)
			_ = server.SetWriteDeadline(time.Now().Add(10 * time.Second))
			closeServer, err := tc.write(server, answer)
			if err != nil {
				t.Fatal(err)
			}
			if err := closeServer(); err != nil {
				t.Fatal(err)
			}
			_ = client.SetReadDeadline(time.Now().Add(10 * time.Second))
			n, err := io.Copy(io.Discard, client)
			if err != nil || n != int64(len(answer)) {
				t.Fatalf("read %d of %d bytes, error %v", n, len(answer), err)
			}
		})
	}
}
