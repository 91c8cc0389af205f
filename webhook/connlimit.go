package webhook

import (
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// connLimiter bounds the open connections of the webhook listener, as
// netutil.LimitListener does: at the bound, Accept waits, and further
// connections wait in the kernel's accept queue while their clients send on
// the connections they have. Unlike LimitListener it does not let idle
// keep-alive connections hold every place. Each kube-apiserver keeps up to
// 25 idle connections per webhook host (client-go's transport), so a few
// apiservers can fill the bound with idle connections and shut another one
// out until they time out. While a connection waits to be accepted, the
// limiter therefore
//
//   - closes the connection that has been idle longest, once it has been
//     idle for at least minReapIdle (a connection between two requests of a
//     busy client is idle for microseconds, and is never closed this way),
//     and once the waiting connection has waited reapGrace; a connection on
//     which data has arrived since it became idle (a request net/http has not
//     read yet) is passed over;
//   - else closes the connection open longest without a first request, once
//     it has been open minReapFresh and has received nothing for
//     minReapFresh/2 (a client sends its request right after the TLS
//     handshake; one that opens connections and sends nothing, on purpose
//     or from a pool of spare dials, would otherwise hold a place until
//     --read-header-timeout);
//   - else closes the connection whose request (headers and body) has been
//     arriving longest, once that is minReapSlow (reapSlow: kube-apiserver
//     writes a review at once; a client that trickles one in would
//     otherwise hold a place until --read-timeout);
//   - and, when it has waited rotateAfter and no connection was idle that
//     long, asks for one busy connection to be closed after its current
//     answer (Connection: close, see closeOneAfterAnswer), so that a client
//     shut out by busy clients gets a place within about a second plus one
//     review, even under sustained overload.
//
// Closing an idle connection races with a request the client may be sending
// on it at that moment, as the server's idle timeout does, and the race is
// not rare: a client dials exactly when it has no idle connection left, so
// the connection the server sees idle longest is often one the client has
// just taken for a request. Hence the grace and the check for arrived data,
// and an idle connection is closed with a reset (abortClose): a client that
// has taken it but not yet written its request fails to write any of it,
// and Go's and client-go's transports send such a request again, POSTs
// included, where after a FIN the write would succeed and the request fail
// with EOF.
type connLimiter struct {
	net.Listener
	sem chan struct{} // one token per open connection

	done      chan struct{} // closed by Close: a waiting Accept gives up
	closeOnce sync.Once

	mu    sync.Mutex
	idle  map[net.Conn]time.Time // connections idle between requests, since
	fresh map[net.Conn]time.Time // accepted connections before their first request, since

	openMu sync.Mutex // taken after mu where both are held
	open   map[*limitedConn]struct{}

	// rotate is set while an accepted connection waits for a place and no
	// connection could be reaped; the next answer that claims it closes its
	// connection.
	rotate atomic.Bool

	// minReapIdle, minReapFresh, minReapSlow and rotateAfter are
	// minReapIdleDefault, minReapFreshDefault, minReapSlowDefault and
	// rotateAfterDefault (tests shorten them).
	minReapIdle, minReapFresh, minReapSlow, rotateAfter time.Duration

	// backlog shortens the accept queue under overload; nil: never.
	backlog *overloadBacklog

	reaped      prometheus.Counter
	reapedFresh prometheus.Counter
	reapedSlow  prometheus.Counter
	rotated     prometheus.Counter
	abandoned   prometheus.Counter
}

// Connection reclaiming timings (see connLimiter).
const (
	minReapIdleDefault  = time.Second
	minReapFreshDefault = 2 * time.Second
	// minReapSlowDefault: kube-apiserver writes a review's headers and
	// body at once; one still arriving after this long is trickled in.
	minReapSlowDefault = 2 * time.Second
	rotateAfterDefault = time.Second
	reapPoll           = 100 * time.Millisecond
	// reapGrace: a client that took its longest-idle connection for a
	// request as it dialled the waiting one has usually written the
	// request by then, and the check for arrived data sees it; one that
	// has not fails to write it after the reset and sends it again.
	reapGrace = 20 * time.Millisecond
	// quietSlack allows for the kernel's millisecond (jiffy) granularity of
	// the time since a connection last received data.
	quietSlack = 20 * time.Millisecond
)

func newConnLimiter(l net.Listener, n int, m *metrics) *connLimiter {
	c := &connLimiter{
		Listener: l,
		sem:      make(chan struct{}, n),
		done:     make(chan struct{}),
		idle:     map[net.Conn]time.Time{},
		fresh:    map[net.Conn]time.Time{},
		open:     map[*limitedConn]struct{}{},

		minReapIdle:  minReapIdleDefault,
		minReapFresh: minReapFreshDefault,
		minReapSlow:  minReapSlowDefault,
		rotateAfter:  rotateAfterDefault,
		reaped: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "claimbridge_webhook_connections_reclaimed_total",
			Help: "Idle connections closed to admit a waiting one (--max-connections reached).",
		}),
		reapedFresh: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "claimbridge_webhook_connections_reclaimed_unused_total",
			Help: "Connections that sent no request within 2 s of being accepted, closed to admit a waiting one (--max-connections reached).",
		}),
		reapedSlow: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "claimbridge_webhook_connections_reclaimed_slow_total",
			Help: "Connections whose request (headers and body) had not fully arrived 2 s after it began, closed to admit a waiting one (--max-connections reached).",
		}),
		rotated: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "claimbridge_webhook_connections_rotated_total",
			Help: "Busy connections closed after their answer to admit a connection that waited a second (--max-connections reached, none idle).",
		}),
		abandoned: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "claimbridge_webhook_connections_abandoned_total",
			Help: "Connections their client had closed while they waited to be accepted, closed without a TLS handshake.",
		}),
	}
	if m != nil {
		m.registry.MustRegister(c.reaped, c.reapedFresh, c.reapedSlow, c.rotated, c.abandoned)
	}
	return c
}

// Accept accepts the next connection and waits for a place for it. A
// connection whose client closed it while it waited (in the kernel's accept
// queue or here) is closed without a TLS handshake, and the next one is
// taken.
func (l *connLimiter) Accept() (net.Conn, error) {
	for {
		c, err := l.accept()
		if err != nil {
			return nil, err
		}
		if !peerGone(c.Conn) {
			return c, nil
		}
		l.abandoned.Inc()
		_ = c.Close()
	}
}

func (l *connLimiter) accept() (*limitedConn, error) {
	gen := l.backlog.acceptGen()
	c, err := l.Listener.Accept()
	for err != nil {
		// A listener paused to refuse connections (overloadrefuse.go)
		// fails its Accept: wait until it listens again.
		if !l.backlog.retryAccept(gen, l.done) {
			return nil, err
		}
		gen = l.backlog.acceptGen()
		c, err = l.Listener.Accept()
	}
	select {
	case l.sem <- struct{}{}:
		return l.track(c), nil
	default:
	}
	arrived := time.Now()
	start := arrived
	poll := reapPoll
	if l.backlog.watching() {
		poll = backlogCheckPoll
	}
	t := time.NewTicker(poll)
	defer t.Stop()
	for {
		l.backlog.check()
		if now := time.Now(); now.Sub(arrived) >= reapGrace {
			l.reapIdle(now)
		}
		if time.Since(start) >= l.rotateAfter {
			// At most one busy connection per rotateAfter: the one that
			// claims it may first wait for a slot.
			l.rotate.Store(true)
			start = time.Now()
		}
		select {
		case l.sem <- struct{}{}:
			l.rotate.Store(false)
			return l.track(c), nil
		case <-l.done:
			l.rotate.Store(false)
			_ = c.Close()
			return nil, net.ErrClosed
		case <-t.C:
		}
	}
}

// Close closes the listener; an Accept waiting for a place returns.
func (l *connLimiter) Close() error {
	l.closeOnce.Do(func() { close(l.done) })
	return l.Listener.Close()
}

// track wraps a connection that has a place; closing it gives the place
// back and forgets it.
func (l *connLimiter) track(c net.Conn) *limitedConn {
	var lc *limitedConn
	lc = newLimitedConn(c, func() {
		l.openMu.Lock()
		delete(l.open, lc)
		l.openMu.Unlock()
		l.release()
	})
	l.openMu.Lock()
	l.open[lc] = struct{}{}
	l.openMu.Unlock()
	return lc
}

func (l *connLimiter) release() { <-l.sem }

// reapIdle closes the connection idle longest that has been idle for
// minReapIdle and has received no data since (a request arriving that
// net/http has not read yet), else the oldest connection without a first
// request (reapFresh), else the slowest request (reapSlow); its close frees
// a place.
func (l *connLimiter) reapIdle(now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.reapOldestIdle(now) && !l.reapFresh(now) {
		l.reapSlow(now)
	}
}

// reapSlow closes the connection whose request has been arriving longest,
// once that is minReapSlow: a client that trickles its headers or body in
// (a byte now and then keeps it from looking quiet) would otherwise hold
// its place until --read-header-timeout or --read-timeout, and a few dozen
// such connections would shut every apiserver out. l.mu is held.
func (l *connLimiter) reapSlow(now time.Time) bool {
	var oldest *limitedConn
	var since int64
	l.openMu.Lock()
	for lc := range l.open {
		if p := lc.pendingSince.Load(); p != 0 && now.Sub(time.Unix(0, p)) >= l.minReapSlow && (oldest == nil || p < since) {
			oldest, since = lc, p
		}
	}
	l.openMu.Unlock()
	if oldest == nil {
		return false
	}
	l.reapedSlow.Inc()
	_ = oldest.Close()
	return true
}

// reapFresh closes the connection open longest without a first request
// once it has been open minReapFresh and quiet for minReapFresh/2 (a
// connection whose request is arriving is passed over); l.mu is held.
func (l *connLimiter) reapFresh(now time.Time) bool {
	var oldest net.Conn
	var since time.Time
	for c, t := range l.fresh {
		if now.Sub(t) >= l.minReapFresh && (oldest == nil || t.Before(since)) {
			if lc := limitedOf(c); lc != nil && quietFor(lc.Conn, l.minReapFresh/2) {
				oldest, since = c, t
			}
		}
	}
	if oldest == nil {
		return false
	}
	delete(l.fresh, oldest)
	l.reapedFresh.Inc()
	_ = limitedOf(oldest).Close() // with a reset (freshAbortAfter)
	return true
}

// reapOldestIdle is reapIdle's choice among the idle connections; l.mu is
// held. It reports whether it closed one.
func (l *connLimiter) reapOldestIdle(now time.Time) bool {
	for {
		var oldest net.Conn
		var since time.Time
		for c, t := range l.idle {
			if oldest == nil || t.Before(since) {
				oldest, since = c, t
			}
		}
		if oldest == nil || now.Sub(since) < l.minReapIdle {
			return false
		}
		delete(l.idle, oldest)
		if lc := limitedOf(oldest); lc != nil && quietFor(lc.Conn, now.Sub(since)-quietSlack) {
			// At once, right after the check, and under the TLS layer
			// (no close_notify first): a request written from now on
			// meets the reset (abortClose). The connection's goroutine
			// then fails its read and finishes.
			l.reaped.Inc()
			_ = lc.Close()
			return true
		}
		// Data has arrived: net/http is about to make it active; it
		// stays out of l.idle until it is idle again.
	}
}

// spare reports whether the clients have connections to spare: a place is
// free, or a connection has been idle between requests for at least d, or
// has been open that long without a first request (a client's dial that
// completed after its request had been sent on another connection).
func (l *connLimiter) spare(d time.Duration) bool {
	if len(l.sem) < cap(l.sem) {
		return true
	}
	now := time.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, m := range []map[net.Conn]time.Time{l.idle, l.fresh} {
		for _, since := range m {
			if now.Sub(since) >= d {
				return true
			}
		}
	}
	return false
}

// connState is the http.Server's ConnState hook: it tracks which
// connections are idle between requests and which have not sent a first
// request yet.
func (l *connLimiter) connState(c net.Conn, s http.ConnState) {
	if lc := limitedOf(c); lc != nil {
		switch s {
		case http.StateIdle:
			lc.idleAt.Store(lc.written.Load())
		case http.StateActive:
			lc.idleAt.Store(connActive)
		}
	}
	l.mu.Lock()
	switch s {
	case http.StateIdle:
		l.idle[c] = time.Now()
	case http.StateNew:
		l.fresh[c] = time.Now()
	default:
		delete(l.idle, c)
		delete(l.fresh, c)
	}
	l.mu.Unlock()
}

// limitedOf is the limitedConn under an http.Server's connection (a TLS
// connection, or the limitedConn itself when served without TLS).
func limitedOf(c net.Conn) *limitedConn {
	if tc, ok := c.(*tls.Conn); ok {
		c = tc.NetConn()
	}
	lc, _ := c.(*limitedConn)
	return lc
}

// closeOneAfterAnswer wraps the webhook handler: when the limiter asks for
// a busy connection to make room (rotate), the first answer to claim it
// carries Connection: close, and the server closes that connection after
// writing it. The client's next request opens a new connection, which
// waits its turn like any other.
//
// It also tells the connection when its request has fully arrived: at the
// end of the body (or at once without one), or when the handler returns.
func (l *connLimiter) closeOneAfterAnswer(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if l.rotate.Load() && l.rotate.CompareAndSwap(true, false) {
			w.Header().Set("Connection", "close")
			l.rotated.Inc()
		}
		if lc := limitedOf(connOf(r.Context())); lc != nil {
			if r.Body == nil || r.Body == http.NoBody {
				lc.received()
			} else {
				r.Body = &receiptBody{ReadCloser: r.Body, conn: lc}
			}
			defer lc.received()
		}
		h.ServeHTTP(w, r)
	})
}

// receiptBody marks its connection's request received at the end of the
// body.
type receiptBody struct {
	io.ReadCloser
	conn *limitedConn
}

func (b *receiptBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF {
		b.conn.received()
	}
	return n, err
}

type connContextKey struct{}

// withConn is the http.Server's ConnContext hook: the request's context
// carries its connection, for connOf.
func withConn(ctx context.Context, c net.Conn) context.Context {
	return context.WithValue(ctx, connContextKey{}, c)
}

// connOf is the connection a request arrived on (nil outside a server with
// withConn).
func connOf(ctx context.Context) net.Conn {
	c, _ := ctx.Value(connContextKey{}).(net.Conn)
	return c
}

// limitedConn gives its place back once, when closed. Closed between
// requests (reclaimed, the idle timeout, shutdown) or, a second after it was
// accepted, before its first request (the header timeout, shutdown), it is
// closed with a reset once all it wrote before has been acknowledged
// (abortClose, see connLimiter): a client may have taken it for a request.
type limitedConn struct {
	net.Conn
	once     sync.Once
	release  func()
	accepted time.Time
	written  atomic.Int64 // bytes written
	// pendingSince is when the request now arriving began (its first
	// byte, or the accept for the first request), in Unix nanoseconds,
	// until the whole request has arrived; 0 between requests and while
	// one is answered (see received).
	pendingSince atomic.Int64
	// idleAt is written when the connection became idle between
	// requests, or connActive or connFresh (set by connLimiter.connState).
	idleAt atomic.Int64
}

// limitedConn.idleAt when not idle between requests.
const (
	connActive = -1 // a request is being read or answered
	connFresh  = -2 // no request yet
)

// freshAbortAfter: a connection accepted this long ago has had its TLS
// handshake acknowledged (or is broken); what it wrote since, without a
// request, is TLS's close_notify at most.
const freshAbortAfter = time.Second

func newLimitedConn(c net.Conn, release func()) *limitedConn {
	lc := &limitedConn{Conn: c, release: release, accepted: time.Now()}
	lc.idleAt.Store(connFresh)
	lc.pendingSince.Store(lc.accepted.UnixNano())
	return lc
}

// Read notes the first byte of a request that arrives on a connection idle
// between requests.
func (c *limitedConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 && c.idleAt.Load() >= 0 && c.pendingSince.Load() == 0 {
		c.pendingSince.CompareAndSwap(0, time.Now().UnixNano())
	}
	return n, err
}

// received marks the connection's request as fully arrived.
func (c *limitedConn) received() { c.pendingSince.Store(0) }

func (c *limitedConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	c.written.Add(int64(n))
	return n, err
}

func (c *limitedConn) Close() error {
	var err error
	switch w := c.idleAt.Load(); {
	case w >= 0:
		err = abortClose(c.Conn, w)
	case w == connFresh && time.Since(c.accepted) >= freshAbortAfter:
		err = abortClose(c.Conn, 0)
	default:
		err = c.Conn.Close()
	}
	c.once.Do(c.release)
	return err
}
