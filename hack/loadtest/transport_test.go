package main

import (
	"crypto/tls"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
)

// TestDialerKeepsConnectionsAcrossPhases: an established connection stays in
// the idle pool when its phase ends, and the next phase reuses it.
func TestDialerKeepsConnectionsAcrossPhases(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	var dials atomic.Int64
	d := &dialer{tls: srv.Client().Transport.(*http.Transport).TLSClientConfig, dials: &dials}
	c := &http.Client{Transport: newTransport(d)}
	for range 2 {
		end := d.startPhase()
		resp, err := c.Get(srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		end()
	}
	if got := dials.Load(); got != 1 {
		t.Fatalf("dials = %d, want 1 (the second phase reuses the first's connection)", got)
	}
}

// TestDialerPhaseEndFailsPendingHandshake: a dial whose TLS handshake waits
// (nobody answers its ClientHello) fails when its phase ends, not at the
// 10 s handshake timeout.
func TestDialerPhaseEndFailsPendingHandshake(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var dials atomic.Int64
	d := &dialer{tls: &tls.Config{InsecureSkipVerify: true}, dials: &dials}
	end := d.startPhase()
	done := make(chan error, 1)
	go func() {
		_, err := d.dial(t.Context(), "tcp", l.Addr().String())
		done <- err
	}()
	// The ClientHello has arrived: the dial is in its handshake.
	conn, err := l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.Read(make([]byte, 1)); err != nil {
		t.Fatal(err)
	}
	end()
	err = <-done
	if err == nil || errors.Is(err, errHandshakeTimeout) {
		t.Fatalf("dial error = %v, want the handshake cancelled by the phase's end", err)
	}
}
