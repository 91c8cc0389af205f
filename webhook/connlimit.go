package webhook

import (
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
//     busy client is idle for microseconds, and is never closed this way);
//   - and, when it has waited rotateAfter and no connection was idle that
//     long, asks for one busy connection to be closed after its current
//     answer (Connection: close, see closeOneAfterAnswer), so that a client
//     shut out by busy clients gets a place within about a second plus one
//     review, even under sustained overload.
//
// Closing an idle connection races with a request the client may be sending
// on it at that moment, exactly as the server's idle timeout does; a
// connection idle for a second is rarely picked by a client at that instant.
type connLimiter struct {
	net.Listener
	sem chan struct{} // one token per open connection

	done      chan struct{} // closed by Close: a waiting Accept gives up
	closeOnce sync.Once

	mu    sync.Mutex
	idle  map[net.Conn]time.Time // connections idle between requests, since
	fresh map[net.Conn]time.Time // accepted connections before their first request, since

	// rotate is set while an accepted connection waits for a place and no
	// connection could be reaped; the next answer that claims it closes its
	// connection.
	rotate atomic.Bool

	// minReapIdle and rotateAfter are minReapIdleDefault and
	// rotateAfterDefault (tests shorten them).
	minReapIdle, rotateAfter time.Duration

	// backlog shortens the accept queue under overload; nil: never.
	backlog *overloadBacklog

	reaped    prometheus.Counter
	rotated   prometheus.Counter
	abandoned prometheus.Counter
}

// Connection reclaiming timings (see connLimiter).
const (
	minReapIdleDefault = time.Second
	rotateAfterDefault = time.Second
	reapPoll           = 100 * time.Millisecond
)

func newConnLimiter(l net.Listener, n int, m *metrics) *connLimiter {
	c := &connLimiter{
		Listener: l,
		sem:      make(chan struct{}, n),
		done:     make(chan struct{}),
		idle:     map[net.Conn]time.Time{},
		fresh:    map[net.Conn]time.Time{},

		minReapIdle: minReapIdleDefault,
		rotateAfter: rotateAfterDefault,
		reaped: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "claimbridge_webhook_connections_reclaimed_total",
			Help: "Idle connections closed to admit a waiting one (--max-connections reached).",
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
		m.registry.MustRegister(c.reaped, c.rotated, c.abandoned)
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
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	select {
	case l.sem <- struct{}{}:
		return &limitedConn{Conn: c, release: l.release}, nil
	default:
	}
	start := time.Now()
	poll := reapPoll
	if l.backlog.watching() {
		poll = backlogCheckPoll
	}
	t := time.NewTicker(poll)
	defer t.Stop()
	for {
		l.backlog.check()
		l.reapIdle(time.Now())
		if time.Since(start) >= l.rotateAfter {
			// At most one busy connection per rotateAfter: the one that
			// claims it may first wait for a slot.
			l.rotate.Store(true)
			start = time.Now()
		}
		select {
		case l.sem <- struct{}{}:
			l.rotate.Store(false)
			return &limitedConn{Conn: c, release: l.release}, nil
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

func (l *connLimiter) release() { <-l.sem }

// reapIdle closes the connection idle longest if it has been idle for
// minReapIdle; its close frees a place.
func (l *connLimiter) reapIdle(now time.Time) {
	l.mu.Lock()
	var oldest net.Conn
	var since time.Time
	for c, t := range l.idle {
		if oldest == nil || t.Before(since) {
			oldest, since = c, t
		}
	}
	if oldest == nil || now.Sub(since) < l.minReapIdle {
		l.mu.Unlock()
		return
	}
	delete(l.idle, oldest)
	l.mu.Unlock()
	l.reaped.Inc()
	// In its own goroutine: a TLS connection sends its close_notify alert
	// first, which must not hold up accepting.
	go oldest.Close()
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

// closeOneAfterAnswer wraps the webhook handler: when the limiter asks for
// a busy connection to make room (rotate), the first answer to claim it
// carries Connection: close, and the server closes that connection after
// writing it. The client's next request opens a new connection, which
// waits its turn like any other.
func (l *connLimiter) closeOneAfterAnswer(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if l.rotate.Load() && l.rotate.CompareAndSwap(true, false) {
			w.Header().Set("Connection", "close")
			l.rotated.Inc()
		}
		h.ServeHTTP(w, r)
	})
}

// limitedConn gives its place back once, when closed.
type limitedConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}
