package main

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// dialer is the load generator's transport's dialling, TLS handshake
// included, bounded by the phase it was started in. Go's transport lets a
// dial run on after the request it was started for has been served (and a
// dial whose SYN a full accept queue dropped lives up to its 30 s timeout),
// so without the bound what one phase leaves behind — thousands of dials after
// an overload, or after a phase that collapsed the null server — would hold
// the generator's file descriptors and ports, and its CPU for their
// handshakes, in the phases after it, against the other server too.
// Established connections stay in the transport's idle pool: every phase but
// a server's first starts warm, as a long-running client does.
type dialer struct {
	tls   *tls.Config
	dials *atomic.Int64
	mu    sync.Mutex
	phase context.Context // the current phase's; cancelled when it ends
}

func newTransport(d *dialer) *http.Transport {
	return &http.Transport{
		// As kube-apiserver's webhook client: no per-host connection limit
		// (a limit would queue requests in the client, not the server),
		// idle connections kept for reuse (-max-idle-per-host).
		MaxIdleConnsPerHost: maxIdlePerHost, ForceAttemptHTTP2: false,
		DialTLSContext: d.dial,
	}
}

// startPhase bounds the dials from now on by a new phase; the function it
// returns ends the phase: its dials still connecting or handshaking fail.
func (d *dialer) startPhase() (end func()) {
	ctx, cancel := context.WithCancel(context.Background())
	d.mu.Lock()
	d.phase = ctx
	d.mu.Unlock()
	return cancel
}

var errHandshakeTimeout = errors.New("TLS handshake timeout")

func (d *dialer) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	d.dials.Add(1)
	d.mu.Lock()
	phase := d.phase
	d.mu.Unlock()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if phase != nil {
		defer context.AfterFunc(phase, cancel)()
	}
	c, err := (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	cfg := d.tls.Clone()
	if cfg.ServerName == "" {
		cfg.ServerName, _, _ = net.SplitHostPort(addr)
	}
	tc := tls.Client(c, cfg)
	// As client-go (utilnet.SetTransportDefaults): a dial whose TLS
	// handshake waits in the server's accept queue is given up after 10 s
	// instead of holding a socket for the rest of the run.
	hctx, hcancel := context.WithTimeout(ctx, handshakeTimeout)
	defer hcancel()
	if err := tc.HandshakeContext(hctx); err != nil {
		c.Close()
		if errors.Is(hctx.Err(), context.DeadlineExceeded) {
			return nil, errHandshakeTimeout
		}
		return nil, err
	}
	return tc, nil
}
