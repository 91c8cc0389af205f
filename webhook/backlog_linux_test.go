package webhook

import (
	"errors"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
)

// backlogOf reads a listening socket's backlog.
func backlogOf(t *testing.T, ln net.Listener) int {
	t.Helper()
	n, err := listenBacklog(ln)
	if err != nil {
		t.Fatal(err)
	}
	return n
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
			if got := backlogOf(t, ts.conns.Listener); got != tc.want {
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
	if got := backlogOf(t, ln); got <= 1 {
		t.Fatalf("Go's own backlog is %d", got)
	}
	if err := setListenBacklog(ln, 1); err != nil {
		t.Fatal(err)
	}
	if got := backlogOf(t, ln); got != 1 {
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

// overload is a server with two places, one slot and an overload backlog of
// 4, overloaded: one review runs (blocked), one waits for its slot, and
// more connections than engageFactor × 4 wait for a place. end releases the
// reviews, closes the waiting connections and returns the two reviews'
// errors.
type overload struct {
	ts    *testServer
	conns []net.Conn
	end   func() []error
}

func overloadServer(t *testing.T, mutate func(*Config)) *overload {
	t.Helper()
	entered, release := make(chan struct{}, 16), make(chan struct{})
	ts := startServer(t, func(c *Config) {
		c.MaxConnections, c.MaxInFlight, c.MaxQueueWait, c.OverloadListenBacklog = 2, 1, time.Minute, 4
		c.Validator = func(ValidationRequest) (ValidationResponse, error) {
			entered <- struct{}{}
			<-release
			return ValidationResponse{}, nil
		}
		if mutate != nil {
			mutate(c)
		}
	})
	o := &overload{ts: ts}
	released := false
	t.Cleanup(func() {
		if !released {
			close(release)
		}
		for _, c := range o.conns {
			c.Close()
		}
	})
	first := occupy(t, ts, ts.client(t, nil), entered)
	second := make(chan error, 1)
	go func() {
		_, _, err := postJSON(ts.client(t, nil), ts.url("/validate"), admissionReview("admission.k8s.io/v1", claimRequest(t, admissionv1.Create, "v1alpha3", "")))
		second <- err
	}()
	waitFor(t, func() bool { q, _ := ts.admission.state(); return q == 1 })
	// Connections the server has no place for: one waits in Accept, the
	// rest (at least engageFactor × 4) in the kernel's accept queue.
	for range engageFactor*4 + 4 {
		c, err := net.DialTimeout("tcp", ts.Addr().String(), time.Second)
		if err != nil {
			t.Fatal(err)
		}
		o.conns = append(o.conns, c)
	}
	o.end = func() []error {
		close(release)
		released = true
		for _, c := range o.conns {
			c.Close()
		}
		return []error{<-first, <-second}
	}
	return o
}

// The server shortens its accept queue while it is overloaded, to
// --overload-listen-backlog, and gives it its length back once its
// connections have been idle (to spare) for a while.
func TestServerShortensAcceptQueueUnderOverload(t *testing.T) {
	long := somaxconn(t)
	o := overloadServer(t, func(c *Config) { c.OverloadRefuseAfter = 0 })
	ts, guard := o.ts, o.ts.conns.backlog
	waitFor(t, func() bool { return backlogOf(t, ts.conns.Listener) == 4 })
	if got := value(t, guard.shortenedN); got != 1 {
		t.Errorf("shortened %v times, want 1", got)
	}
	if got := value(t, guard.backlog); got != 4 {
		t.Errorf("backlog gauge %v, want 4", got)
	}

	// The overload ends: both reviews are answered, their connections are
	// idle from then on, the waiting connections leave, and after calmFor
	// the queue is long again.
	for _, err := range o.end() {
		if err != nil {
			t.Errorf("a review accepted before the overload: %v", err)
		}
	}
	waitFor(t, func() bool { return backlogOf(t, ts.conns.Listener) == long })
	if got := value(t, guard.backlog); got != float64(long) {
		t.Errorf("backlog gauge %v, want %d", got, long)
	}
}
