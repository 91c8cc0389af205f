package webhook

import (
	"errors"
	"net"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/go-logr/logr"
	admissionv1 "k8s.io/api/admission/v1"
)

// A paused listener refuses connections at once (its SYNs are answered with
// a reset), and after resume listens on the same address again.
func TestPauseListenerRefusesThenListensAgain(t *testing.T) {
	t.Run("port chosen by the kernel", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		testPauseListener(t, ln)
	})
	for _, h := range []struct{ name, host string }{
		{"loopback", "127.0.0.1"},
		{"all addresses", ""}, // dual stack where there is IPv6
	} {
		t.Run("port given, "+h.name, func(t *testing.T) {
			free, err := net.Listen("tcp", net.JoinHostPort(h.host, "0"))
			if err != nil {
				t.Fatal(err)
			}
			addr := free.Addr().String()
			free.Close()
			ln, err := net.Listen("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			testPauseListener(t, ln)
		})
	}
}

func testPauseListener(t *testing.T, ln net.Listener) {
	defer ln.Close()
	addr := ln.Addr().String()
	accepted := make(chan error, 1)
	go func() {
		c, err := ln.Accept()
		if err == nil {
			c.Close()
		}
		accepted <- err
	}()

	resume, err := pauseListener(ln, 8)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-accepted:
		if err == nil {
			t.Fatal("a waiting Accept returned a connection after the pause")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a waiting Accept still blocked 10 s after the pause")
	}
	if _, err := net.DialTimeout("tcp", addr, 5*time.Second); !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("dial while paused: %v, want connection refused", err)
	}

	if err := resume(); err != nil {
		t.Fatal(err)
	}
	if got := ln.Addr().String(); got != addr {
		t.Errorf("listening on %s after resume, want %s", got, addr)
	}
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatalf("dial after resume: %v", err)
	}
	defer c.Close()
	a, err := ln.Accept()
	if err != nil {
		t.Fatalf("Accept after resume: %v", err)
	}
	a.Close()
	if got := backlogOf(t, ln); got != 8 {
		t.Errorf("backlog %d after resume, want 8", got)
	}
}

// The connection limiter's Accept rides out a pause: it waits until the
// listener listens again instead of failing the server's Serve loop, and
// still ends when the limiter is closed while paused.
func TestConnLimiterAcceptWaitsOutPause(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := newConnLimiter(ln, 4, nil)
	l.backlog = newOverloadBacklog(ln, 4096, 8, func(time.Duration) bool { return false }, l.done, nil, logr.Discard())
	type result struct {
		c   net.Conn
		err error
	}
	accepted := make(chan result, 1)
	accept := func() {
		c, err := l.Accept()
		accepted <- result{c, err}
	}
	go accept()
	time.Sleep(20 * time.Millisecond) // let Accept block in the poller

	if !l.backlog.pauseListening() {
		t.Fatal("pause failed")
	}
	if _, err := net.DialTimeout("tcp", ln.Addr().String(), 5*time.Second); !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("dial while paused: %v, want connection refused", err)
	}
	select {
	case r := <-accepted:
		t.Fatalf("Accept returned while paused: %v, %v", r.c, r.err)
	case <-time.After(100 * time.Millisecond):
	}
	if !l.backlog.resumeListening() {
		t.Fatal("resume failed")
	}
	c, err := net.DialTimeout("tcp", ln.Addr().String(), 5*time.Second)
	if err != nil {
		t.Fatalf("dial after resume: %v", err)
	}
	defer c.Close()
	select {
	case r := <-accepted:
		if r.err != nil {
			t.Fatalf("Accept after resume: %v", r.err)
		}
		r.c.Close()
	case <-time.After(10 * time.Second):
		t.Fatal("Accept still blocked 10 s after resume and a dial")
	}

	go accept()
	time.Sleep(20 * time.Millisecond)
	if !l.backlog.pauseListening() {
		t.Fatal("second pause failed")
	}
	time.Sleep(20 * time.Millisecond)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-accepted:
		if r.err == nil {
			t.Fatal("Accept returned a connection after Close")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Accept still waiting 10 s after Close while paused")
	}
}

// Under sustained overload the server first shortens its accept queue, and
// with no connection to spare it does not refuse on that alone (a client
// below capacity can keep every place busy); once the short queue drops
// dials by the hundred, it refuses connections between short windows; once
// the overload ends it takes connections again with its long queue.
func TestServerRefusesConnectionsUnderSustainedOverload(t *testing.T) {
	o := overloadServer(t, func(c *Config) { c.OverloadRefuseAfter = time.Millisecond })
	ts, guard := o.ts, o.ts.conns.backlog
	waitFor(t, func() bool { return backlogOf(t, ts.conns.Listener) == 4 })
	time.Sleep(4 * backlogPollDefault)
	if got := value(t, guard.refusingN); got != 0 {
		t.Fatalf("started refusing %v times with every place busy but no sign of overload, want 0", got)
	}

	// Dials piling up: the short queue is full, and their SYNs are dropped
	// (and retransmitted) until the server refuses them.
	var wg sync.WaitGroup
	t.Cleanup(wg.Wait)
	for range 2 * refuseMinDrops {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if c, err := net.DialTimeout("tcp", ts.Addr().String(), 3*time.Second); err == nil {
				c.Close()
			}
		}()
	}
	waitFor(t, func() bool { return value(t, guard.refusingG) == 1 })
	refused := false
	for deadline := time.Now().Add(10 * time.Second); !refused && time.Now().Before(deadline); {
		c, err := net.DialTimeout("tcp", ts.Addr().String(), time.Second)
		if err == nil {
			c.Close()
			time.Sleep(5 * time.Millisecond)
			continue
		}
		if !errors.Is(err, syscall.ECONNREFUSED) {
			t.Fatalf("dial while refusing: %v, want connection refused or a connection", err)
		}
		refused = true
	}
	if !refused {
		t.Fatal("no dial refused within 10 s of refusing")
	}
	if got := value(t, guard.refusingN); got != 1 {
		t.Errorf("started refusing %v times, want 1", got)
	}

	// The overload ends: the reviews accepted before it are answered, and
	// the listener takes connections again, with its long queue.
	for _, err := range o.end() {
		if err != nil {
			t.Errorf("a review accepted before the overload: %v", err)
		}
	}
	waitFor(t, func() bool { return value(t, guard.refusingG) == 0 && backlogOf(t, ts.conns.Listener) == somaxconn(t) })
	resp, _, err := postJSON(ts.client(t, nil), ts.url("/validate"), admissionReview("admission.k8s.io/v1", claimRequest(t, admissionv1.Create, "v1alpha3", "")))
	if err != nil {
		t.Fatalf("a review after the overload: %v", err)
	}
	if resp.StatusCode != 200 {
		t.Errorf("a review after the overload: HTTP %d", resp.StatusCode)
	}
}
