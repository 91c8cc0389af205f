package main

import (
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// phaseTransport is the HTTP transport of one phase. Its dials and
// connections end with the phase: Go's transport lets a dial run on after the
// request it was started for has been served (and a dial whose SYN a full
// accept queue dropped lives up to its 30 s timeout), so without this what
// one phase leaves behind — thousands of dials after an overload, or after a
// phase that collapsed the null server — would hold the generator's file
// descriptors and ports, and its CPU for their handshakes, in the phases
// after it, against the other server too.
type phaseTransport struct {
	*http.Transport
	ctx    context.Context // cancelled when the phase ends: pending dials give up
	cancel context.CancelFunc
	mu     sync.Mutex
	conns  map[*trackedConn]struct{} // open connections; nil once closed
}

func newPhaseTransport(tlsConfig *tls.Config, dials *atomic.Int64) *phaseTransport {
	ctx, cancel := context.WithCancel(context.Background())
	t := &phaseTransport{ctx: ctx, cancel: cancel, conns: map[*trackedConn]struct{}{}}
	t.Transport = &http.Transport{
		TLSClientConfig: tlsConfig,
		// As kube-apiserver's webhook client: no per-host connection limit
		// (a limit would queue requests in the client, not the server),
		// idle connections kept for reuse (-max-idle-per-host).
		MaxIdleConnsPerHost: maxIdlePerHost, ForceAttemptHTTP2: false,
		// As client-go (utilnet.SetTransportDefaults): a dial whose TLS
		// handshake waits in the server's accept queue is given up after
		// 10 s instead of holding a socket for the rest of the run.
		TLSHandshakeTimeout: handshakeTimeout,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			dials.Add(1)
			ctx, cancel := context.WithCancel(ctx)
			defer cancel()
			defer context.AfterFunc(t.ctx, cancel)()
			c, err := (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			tc := &trackedConn{Conn: c, t: t}
			t.mu.Lock()
			defer t.mu.Unlock()
			if t.conns == nil {
				c.Close()
				return nil, context.Canceled
			}
			t.conns[tc] = struct{}{}
			return tc, nil
		},
	}
	return t
}

// close ends the phase: pending dials give up, and every connection the
// phase opened is closed (TLS handshakes still under way fail with it).
func (t *phaseTransport) close() {
	t.cancel()
	t.CloseIdleConnections()
	t.mu.Lock()
	conns := t.conns
	t.conns = nil
	t.mu.Unlock()
	for c := range conns {
		c.Conn.Close()
	}
}

// trackedConn is a connection of a phaseTransport.
type trackedConn struct {
	net.Conn
	t *phaseTransport
}

func (c *trackedConn) Close() error {
	c.t.mu.Lock()
	if c.t.conns != nil {
		delete(c.t.conns, c)
	}
	c.t.mu.Unlock()
	return c.Conn.Close()
}
