package main

import (
	"crypto/tls"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestPhaseTransportCloseEndsConnections: closing a phase closes the
// connections it opened, idle ones included.
func TestPhaseTransportCloseEndsConnections(t *testing.T) {
	closed := make(chan struct{}, 1)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateClosed {
			closed <- struct{}{}
		}
	}
	srv.StartTLS()
	defer srv.Close()
	var dials atomic.Int64
	tr := newPhaseTransport(srv.Client().Transport.(*http.Transport).TLSClientConfig, &dials)
	resp, err := (&http.Client{Transport: tr}).Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got := dials.Load(); got != 1 {
		t.Fatalf("dials = %d, want 1", got)
	}
	tr.mu.Lock()
	open := len(tr.conns)
	tr.mu.Unlock()
	if open != 1 {
		t.Fatalf("open connections = %d, want 1 (idle, kept for reuse)", open)
	}
	tr.close()
	select {
	case <-closed: // the server saw the idle connection closed
	case <-time.After(30 * time.Second):
		t.Fatal("the idle connection was not closed")
	}
	if tr.conns != nil {
		t.Fatal("connections still tracked after close")
	}
}

// TestPhaseTransportCloseFailsPendingHandshake: a dial whose TLS handshake
// waits (a listener that never accepts: the kernel completes the TCP
// connection, nobody answers the ClientHello) fails when its phase ends,
// instead of at the 10 s handshake timeout.
func TestPhaseTransportCloseFailsPendingHandshake(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var dials atomic.Int64
	tr := newPhaseTransport(&tls.Config{InsecureSkipVerify: true}, &dials)
	done := make(chan error, 1)
	go func() {
		resp, err := (&http.Client{Transport: tr}).Get("https://" + l.Addr().String())
		if err == nil {
			resp.Body.Close()
		}
		done <- err
	}()
	for {
		tr.mu.Lock()
		n := len(tr.conns)
		tr.mu.Unlock()
		if n == 1 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	tr.close()
	err = <-done
	if err == nil || strings.Contains(err.Error(), "timeout") {
		t.Fatalf("request error = %v, want the handshake to fail on the closed connection", err)
	}
}
