package webhook

import (
	"errors"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// listenBacklog reads a listening socket's backlog: for a listener, Linux
// reports sk_max_ack_backlog in TCP_INFO's tcpi_sacked.
func listenBacklog(t *testing.T, ln net.Listener) int {
	t.Helper()
	info, err := tcpInfo(ln.(*net.TCPListener))
	if err != nil {
		t.Fatal(err)
	}
	return int(info.Sacked)
}

func somaxconn(t *testing.T) int {
	t.Helper()
	b, err := os.ReadFile("/proc/sys/net/core/somaxconn")
	if err != nil {
		t.Fatal(err)
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestServerListenBacklog(t *testing.T) {
	for _, tc := range []struct {
		name                          string
		maxConnections, listenBacklog int
		want                          int
	}{
		{"the system's by default", 5, 0, somaxconn(t)},
		{"set", 5, 9, 9},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts := startServer(t, func(c *Config) { c.MaxConnections, c.ListenBacklog = tc.maxConnections, tc.listenBacklog })
			if got := listenBacklog(t, ts.conns.Listener); got != tc.want {
				t.Errorf("listen backlog %d, want %d", got, tc.want)
			}
		})
	}
}

// A full accept queue completes no further connection: the kernel drops the
// SYN (its client retransmits it after 1 s), so the client spends nothing
// on a TLS handshake nobody answers in time.
func TestListenBacklogDropsSurplusConnections(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if got := listenBacklog(t, ln); got <= 1 {
		t.Fatalf("Go's own backlog is %d", got)
	}
	if err := setListenBacklog(ln, 1); err != nil {
		t.Fatal(err)
	}
	if got := listenBacklog(t, ln); got != 1 {
		t.Fatalf("backlog %d, want 1", got)
	}
	// Nothing accepts: Linux queues backlog+1 connections, then drops.
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for i := range 4 {
		c, err := net.DialTimeout("tcp", ln.Addr().String(), 300*time.Millisecond)
		if err == nil {
			conns = append(conns, c)
			continue
		}
		if ne := net.Error(nil); !errors.As(err, &ne) || !ne.Timeout() {
			t.Fatalf("dial %d: %v, want a timeout", i, err)
		}
		if i < 2 {
			t.Fatalf("dial %d timed out with %d queued, want 2 queued first", i, len(conns))
		}
		return
	}
	t.Fatalf("%d connections completed with a backlog of 1", len(conns))
}
