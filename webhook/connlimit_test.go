package webhook

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/google/go-cmp/cmp"

	"github.com/claimbridge/claimbridge/api"
)

// limitedHTTP serves h over plain HTTP on loopback behind a connLimiter of
// n connections, wired as Server.Run wires it.
func limitedHTTP(t *testing.T, n int, h http.Handler) (*connLimiter, string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := newConnLimiter(ln, n, nil)
	l.minReapIdle, l.rotateAfter = 200*time.Millisecond, 300*time.Millisecond
	srv := &http.Server{Handler: l.closeOneAfterAnswer(h), ConnState: l.connState, ConnContext: withConn}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	return l, "http://" + ln.Addr().String() + "/"
}

// get sends one request with its own client tr and reports whether it
// reused a connection.
func get(ctx context.Context, tr *http.Transport, url string) (reused bool, err error) {
	ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		GotConn: func(i httptrace.GotConnInfo) { reused = i.Reused },
	})
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return false, err
	}
	resp, err := tr.RoundTrip(req)
	if err != nil {
		return reused, err
	}
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return reused, err
}

func transport(t *testing.T) *http.Transport {
	tr := &http.Transport{MaxIdleConnsPerHost: 4}
	t.Cleanup(tr.CloseIdleConnections)
	return tr
}

// An idle keep-alive connection does not keep a new client out: once it has
// been idle minReapIdle, it is closed to admit the waiting connection, and
// its client re-dials on its next request.
func TestConnLimiterReclaimsIdleConnection(t *testing.T) {
	l, url := limitedHTTP(t, 1, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) }))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	first, second := transport(t), transport(t)
	if _, err := get(ctx, first, url); err != nil {
		t.Fatal(err)
	}
	// first's connection is now idle in its pool and holds the only place.
	if _, err := get(ctx, second, url); err != nil {
		t.Fatalf("second client shut out by an idle connection: %v", err)
	}
	if got := value(t, l.reaped); got != 1 {
		t.Errorf("reclaimed %v connections, want 1", got)
	}
	if got := value(t, l.rotated); got != 0 {
		t.Errorf("rotated %v busy connections, want 0", got)
	}
	// second now holds the place, idle; first's next request re-dials and
	// waits until second's connection is reclaimed in turn.
	reused, err := get(ctx, first, url)
	if err != nil {
		t.Fatalf("first client after its connection was reclaimed: %v", err)
	}
	if reused {
		t.Error("first client reused the connection that was reclaimed")
	}
}

// A client that keeps its connection busy does not keep another out either:
// after rotateAfter, one of its answers carries Connection: close. A
// connection between two requests is never reclaimed as idle.
func TestConnLimiterRotatesBusyConnection(t *testing.T) {
	l, url := limitedHTTP(t, 1, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		time.Sleep(5 * time.Millisecond)
		_, _ = w.Write([]byte("ok"))
	}))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	busy := transport(t)
	if _, err := get(ctx, busy, url); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var busyErrs atomic.Int64
	var busyErr atomic.Value
	wg.Add(1)
	go func() { // one request after another on the busy client's connection
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := get(ctx, busy, url); err != nil && ctx.Err() == nil {
				busyErrs.Add(1)
				busyErr.Store(err.Error())
			}
		}
	}()
	other := transport(t)
	other.DisableKeepAlives = true // its connection is not left idle to be reclaimed
	_, err := get(ctx, other, url)
	close(stop)
	wg.Wait()
	if err != nil {
		t.Fatalf("client shut out by a busy connection: %v", err)
	}
	if got := value(t, l.rotated); got < 1 {
		t.Errorf("rotated %v busy connections, want at least 1", got)
	}
	if got := value(t, l.reaped); got != 0 {
		t.Errorf("reclaimed %v connections as idle, want 0 (the busy one is idle only between requests)", got)
	}
	if n := busyErrs.Load(); n != 0 {
		t.Errorf("the busy client saw %d errors, e.g. %v", n, busyErr.Load())
	}
}

// Through the server: with --max-connections=1 a second apiserver is served
// although the first keeps its connection open and idle.
func TestMaxConnectionsIdleConnectionReclaimed(t *testing.T) {
	ts := startServer(t, func(c *Config) { c.MaxConnections = 1 })
	ts.conns.minReapIdle = 100 * time.Millisecond
	body := conversionReview("apiextensions.k8s.io/v1", "u1", api.Group+"/v1alpha2", fixture(t, "v1alpha3"))
	first, second := ts.client(t, nil), ts.client(t, nil)
	for i, c := range []*http.Client{first, second, first} {
		resp, out, err := postJSON(c, ts.url("/convert"), body)
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(out), `"status":"Success"`) {
			t.Fatalf("request %d: %d %s", i, resp.StatusCode, out)
		}
	}
	if got := value(t, ts.conns.reaped); got != 2 {
		t.Errorf("reclaimed %v idle connections, want 2", got)
	}
}

// Closing the listener ends an Accept that waits for a place (as the
// server's shutdown does), instead of leaving it waiting for a connection to
// close.
func TestConnLimiterCloseEndsWaitingAccept(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := newConnLimiter(ln, 1, nil)
	held, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	first, err := l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	waiting, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer waiting.Close()
	accepted := make(chan error, 1)
	go func() {
		c, err := l.Accept()
		if err == nil {
			c.Close()
		}
		accepted <- err
	}()
	time.Sleep(50 * time.Millisecond) // let Accept take the connection and wait for a place
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-accepted:
		if err == nil {
			t.Fatal("Accept returned a connection after Close with no place free")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Accept still waiting 10 s after Close")
	}
}

// A connection that sends no request does not keep a client out until the
// header timeout: once it has been open minReapFresh without receiving
// anything for half that, it is closed to admit the waiting connection.
func TestConnLimiterReclaimsUnusedConnection(t *testing.T) {
	l, url := limitedHTTP(t, 1, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) }))
	l.mu.Lock()
	l.minReapFresh = 300 * time.Millisecond
	l.mu.Unlock()
	silent, err := net.Dial("tcp", strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/"))
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	time.Sleep(50 * time.Millisecond) // accepted: it holds the only place
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	start := time.Now()
	if _, err := get(ctx, transport(t), url); err != nil {
		t.Fatalf("client shut out by a connection that sends nothing: %v", err)
	}
	if waited := time.Since(start); waited > 3*time.Second {
		t.Errorf("waited %v for the place", waited)
	}
	if got := value(t, l.reapedFresh); got != 1 {
		t.Errorf("reclaimed %v unused connections, want 1", got)
	}
	if got := value(t, l.reaped); got != 0 {
		t.Errorf("reclaimed %v idle connections, want 0", got)
	}
	// The silent connection was closed.
	_ = silent.SetReadDeadline(time.Now().Add(2 * time.Second))
	if _, err := silent.Read(make([]byte, 1)); err == nil {
		t.Error("the unused connection is still open")
	}
}

// TestConnLimiterReclaimsSlowRequests: a connection whose request is
// trickled in, a byte now and then so that it never looks quiet, is closed
// for a waiting connection once the request has been arriving for
// minReapSlow, in its headers as in its body. A request that arrived whole
// and is being answered slowly is not.
func TestConnLimiterReclaimsSlowRequests(t *testing.T) {
	readAll := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		_, _ = w.Write([]byte("ok"))
	})
	for name, c := range map[string]struct{ head, trickle string }{
		"headers": {"POST / HTTP/1.1\r\nHost: x\r\n", strings.Repeat("X-Slow: y\r\n", 20)},
		"body":    {"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n", strings.Repeat("z", 200)},
	} {
		t.Run(name, func(t *testing.T) {
			l, url := limitedHTTP(t, 1, readAll)
			l.mu.Lock()
			l.minReapSlow = 300 * time.Millisecond
			l.mu.Unlock()
			slow, err := net.Dial("tcp", strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/"))
			if err != nil {
				t.Fatal(err)
			}
			defer slow.Close()
			if _, err := io.WriteString(slow, c.head); err != nil {
				t.Fatal(err)
			}
			done := make(chan struct{})
			defer close(done)
			go func() { // a byte every 50 ms: never quiet for the fresh rule's second
				for i := 0; i < len(c.trickle); i++ {
					select {
					case <-done:
						return
					case <-time.After(50 * time.Millisecond):
					}
					if _, err := slow.Write([]byte{c.trickle[i]}); err != nil {
						return
					}
				}
			}()
			time.Sleep(100 * time.Millisecond) // accepted: it holds the only place
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			if _, err := get(ctx, transport(t), url); err != nil {
				t.Fatalf("client shut out by a connection that trickles its request: %v", err)
			}
			if got := value(t, l.reapedSlow); got != 1 {
				t.Errorf("reclaimed %v slow connections, want 1", got)
			}
			if got := value(t, l.reaped) + value(t, l.reapedFresh); got != 0 {
				t.Errorf("reclaimed %v idle or unused connections, want 0", got)
			}
		})
	}
	t.Run("whole request answered slowly", func(t *testing.T) {
		release := make(chan struct{})
		l, url := limitedHTTP(t, 1, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body)
			if r.URL.Path == "/slow" {
				<-release
			}
			_, _ = w.Write([]byte("ok"))
		}))
		l.mu.Lock()
		l.minReapSlow = 100 * time.Millisecond
		l.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		first := make(chan error, 1)
		go func() { _, err := get(ctx, transport(t), url+"slow"); first <- err }()
		time.Sleep(100 * time.Millisecond)
		second := make(chan error, 1)
		go func() { _, err := get(ctx, transport(t), url); second <- err }()
		time.Sleep(600 * time.Millisecond) // the second waits for the place, well past minReapSlow
		close(release)
		if err := <-first; err != nil {
			t.Errorf("the request being answered failed: %v", err)
		}
		if err := <-second; err != nil {
			t.Errorf("the waiting request failed: %v", err)
		}
		if got := value(t, l.reapedSlow); got != 0 {
			t.Errorf("reclaimed %v slow connections, want 0: the request had arrived whole", got)
		}
	})
}

// recConn is a connection without a socket that records its Close in
// closed (quietFor counts it as quiet, abortClose closes it).
type recConn struct {
	net.Conn
	name   string
	closed *[]string
}

func (c *recConn) Close() error { *c.closed = append(*c.closed, c.name); return nil }

// reapIdle chooses, among the connections past their threshold, the one
// idle longest, else the one open longest without a request, else the one
// whose request has been arriving longest, and closes one at a time: a
// closed connection is not chosen again. At exactly minReapIdle,
// minReapFresh or minReapSlow a connection is past its threshold.
func TestConnLimiterReapChoice(t *testing.T) {
	now := time.Now()
	type conn struct {
		name        string
		idle, fresh time.Duration // ago, in l.idle or l.fresh; 0: not there
		pending     time.Duration // ago, its request began to arrive; 0: none
	}
	for _, tc := range []struct {
		name  string
		conns []conn
		want  []string // closed by successive reapIdle calls, one each
	}{
		{"idle longest first", []conn{{name: "a", idle: 2 * time.Second}, {name: "b", idle: 3 * time.Second}, {name: "c", idle: time.Second}}, []string{"b", "a", "c"}},
		{"idle not long enough", []conn{{name: "a", idle: time.Second - time.Millisecond}}, nil},
		{"idle before unused", []conn{{name: "f", fresh: time.Hour}, {name: "i", idle: time.Second}}, []string{"i", "f"}},
		{"unused longest first", []conn{{name: "a", fresh: 2 * time.Second}, {name: "b", fresh: 5 * time.Second}, {name: "c", fresh: 3 * time.Second}}, []string{"b", "c", "a"}},
		{"unused not long enough", []conn{{name: "a", fresh: 2*time.Second - time.Millisecond}}, nil},
		{"unused before slow", []conn{{name: "s", pending: time.Hour}, {name: "f", fresh: 2 * time.Second}}, []string{"f", "s"}},
		{"slowest first", []conn{{name: "a", pending: 2 * time.Second}, {name: "b", pending: 4 * time.Second}, {name: "c", pending: 3 * time.Second}, {name: "answered"}}, []string{"b", "c", "a"}},
		{"request not slow yet", []conn{{name: "a", pending: 2*time.Second - time.Millisecond}}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := newConnLimiter(nil, len(tc.conns), nil)
			var closed []string
			for _, c := range tc.conns {
				l.sem <- struct{}{} // the place it holds
				lc := l.track(&recConn{name: c.name, closed: &closed})
				lc.pendingSince.Store(0)
				if c.pending > 0 {
					lc.pendingSince.Store(now.Add(-c.pending).UnixNano())
				}
				if c.idle > 0 {
					l.idle[lc] = now.Add(-c.idle)
				}
				if c.fresh > 0 {
					l.fresh[lc] = now.Add(-c.fresh)
				}
			}
			var calls []string // closed by each call, "" for none
			for range len(tc.want) + 1 {
				n := len(closed)
				l.reapIdle(now)
				calls = append(calls, strings.Join(closed[n:], "+"))
			}
			if diff := cmp.Diff(append(slices.Clone(tc.want), ""), calls); diff != "" {
				t.Errorf("closed by successive reapIdle calls (-want +got):\n%s", diff)
			}
			reaped := []float64{value(t, l.reaped), value(t, l.reapedFresh), value(t, l.reapedSlow)}
			want := make([]float64, 3)
			for _, c := range tc.conns {
				if slices.Contains(tc.want, c.name) {
					switch {
					case c.idle > 0:
						want[0]++
					case c.fresh > 0:
						want[1]++
					default:
						want[2]++
					}
				}
			}
			if diff := cmp.Diff(want, reaped); diff != "" {
				t.Errorf("reclaimed idle, unused, slow (-want +got):\n%s", diff)
			}
			if got := len(l.sem); got != len(tc.conns)-len(tc.want) {
				t.Errorf("%d places taken, want %d", got, len(tc.conns)-len(tc.want))
			}
		})
	}
}

// bareLimiter is a connLimiter of n places on a loopback listener, closed
// when the test ends, with nothing reclaimed on its own (every reclaim
// duration an hour), and dial, which connects to it (the connection closed
// when the test ends).
func bareLimiter(t *testing.T, n int) (l *connLimiter, ln net.Listener, dial func() net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l = newConnLimiter(ln, n, nil)
	l.minReapIdle, l.minReapFresh, l.minReapSlow = time.Hour, time.Hour, time.Hour
	t.Cleanup(func() { _ = l.Close() })
	return l, ln, func() net.Conn {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Close() })
		return c
	}
}

// An unused connection is reclaimed once it has received nothing for half
// of minReapFresh, not only after all of it.
func TestConnLimiterReapsUnusedQuietForHalf(t *testing.T) {
	l, _, dial := bareLimiter(t, 1)
	l.minReapFresh = 600 * time.Millisecond
	c := dial()
	lc, err := l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer lc.Close()
	if _, err := c.Write([]byte("G")); err != nil { // a request's first byte
		t.Fatal(err)
	}
	time.Sleep(l.minReapFresh/2 + quietSlack) // it has received nothing since
	l.mu.Lock()
	l.fresh[lc] = time.Now().Add(-l.minReapFresh)
	l.mu.Unlock()
	l.reapIdle(time.Now())
	if got := value(t, l.reapedFresh); got != 1 {
		t.Errorf("reclaimed %v unused connections, want 1", got)
	}
}

// A connection that waits for a place asks for a busy connection to be
// closed after its answer (rotate) once it has waited rotateAfter, and
// withdraws the request once it has a place or the listener is closed;
// closed while it waits, the waiting connection is closed, not left to its
// client.
func TestConnLimiterWaitingAcceptRotation(t *testing.T) {
	for _, tc := range []struct {
		name        string
		rotateAfter time.Duration
		end         func(l *connLimiter, held net.Conn)
		wantErr     bool
	}{
		{"a place comes free", 0, func(_ *connLimiter, held net.Conn) { held.Close() }, false},
		{"the listener is closed", 0, func(l *connLimiter, _ net.Conn) { l.Close() }, true},
		{"before rotateAfter", time.Hour, func(_ *connLimiter, held net.Conn) { held.Close() }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, ln, dial := bareLimiter(t, 1)
			l.rotateAfter = tc.rotateAfter
			var polls atomic.Int64 // of the waiting Accept (through its overload check)
			l.backlog = newOverloadBacklog(ln, 4096, 8, func(time.Duration) bool { polls.Add(1); return true }, l.done, nil, logr.Discard())
			dial()
			held, err := l.Accept()
			if err != nil {
				t.Fatal(err)
			}
			defer held.Close()
			waiting := dial()
			type result struct {
				c   net.Conn
				err error
			}
			accepted := make(chan result, 1)
			go func() {
				c, err := l.Accept()
				accepted <- result{c, err}
			}()
			waitFor(t, func() bool { return polls.Load() >= 3 })
			if got, want := l.rotate.Load(), tc.rotateAfter == 0; got != want {
				t.Errorf("a busy connection asked for %v while a connection waited, want %v", got, want)
			}
			tc.end(l, held)
			r := <-accepted
			if (r.err != nil) != tc.wantErr {
				t.Fatalf("Accept: %v, want an error %v", r.err, tc.wantErr)
			}
			if r.c != nil {
				defer r.c.Close()
			}
			if l.rotate.Load() {
				t.Error("a busy connection still asked for after the wait ended")
			}
			if tc.wantErr {
				_ = waiting.SetReadDeadline(time.Now().Add(10 * time.Second))
				if _, err := waiting.Read(make([]byte, 1)); err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
					t.Errorf("reading the connection that waited: %v, want it closed", err)
				}
			}
		})
	}
}

// scriptedListener returns its accept functions' results in turn.
type scriptedListener struct {
	net.Listener
	accepts []func() (net.Conn, error)
	calls   int
}

func (l *scriptedListener) Accept() (net.Conn, error) {
	l.calls++
	return l.accepts[min(l.calls, len(l.accepts))-1]()
}

func (l *scriptedListener) Close() error { return nil }

// An Accept that failed across a pause is retried once the listener
// listens again; an error after that, with no pause since, is the
// listener's own and is returned, not retried.
func TestConnLimiterReturnsErrorAfterPause(t *testing.T) {
	broken := errors.New("accept failed")
	sl := &scriptedListener{}
	l := newConnLimiter(sl, 1, nil)
	l.backlog = newOverloadBacklog(nil, 4096, 8, func(time.Duration) bool { return false }, l.done, nil, logr.Discard())
	p := &fakePauses{}
	l.backlog.pause = p.pause
	sl.accepts = []func() (net.Conn, error){
		func() (net.Conn, error) { // paused and resumed while it waited
			l.backlog.pauseListening()
			l.backlog.resumeListening()
			return nil, net.ErrClosed
		},
		func() (net.Conn, error) { return nil, broken },
		func() (net.Conn, error) { // retried in a loop: give up
			l.Close()
			return nil, net.ErrClosed
		},
	}
	if _, err := l.Accept(); err != broken {
		t.Errorf("Accept: %v, want %v", err, broken)
	}
	if sl.calls != 2 {
		t.Errorf("listener's Accept called %d times, want 2", sl.calls)
	}
}

// A request counts as arrived (pendingSince 0, so reapSlow passes its
// connection over) at once without a body, at the end of its body, or,
// when the handler does not read the body to its end, once the handler
// returns.
func TestConnLimiterMarksRequestReceived(t *testing.T) {
	type seen struct{ start, afterBody bool } // pending at the handler's start, after reading
	for _, tc := range []struct {
		name     string
		method   string
		body     string
		readBody bool
		want     seen
	}{
		{"without a body", http.MethodGet, "", false, seen{false, false}},
		{"body read to its end", http.MethodPost, "review", true, seen{true, false}},
		{"body not read", http.MethodPost, "review", false, seen{true, true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := make(chan seen, 1)
			l, url := limitedHTTP(t, 1, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				lc := limitedOf(connOf(r.Context()))
				var s seen
				s.start = lc.pendingSince.Load() != 0
				if tc.readBody {
					if b, err := io.ReadAll(r.Body); err != nil || string(b) != tc.body {
						t.Errorf("body %q, %v", b, err)
					}
				}
				s.afterBody = lc.pendingSince.Load() != 0
				got <- s
				_, _ = w.Write([]byte("ok"))
			}))
			req, err := http.NewRequest(tc.method, url, strings.NewReader(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			if tc.body == "" {
				req.Body = nil
			}
			resp, err := transport(t).RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if s := <-got; s != tc.want {
				t.Errorf("request pending at the handler's start, after the body: %+v, want %+v", s, tc.want)
			}
			l.openMu.Lock()
			defer l.openMu.Unlock()
			for lc := range l.open {
				if p := lc.pendingSince.Load(); p != 0 {
					t.Errorf("request still pending after its answer (since %v)", time.Unix(0, p))
				}
			}
		})
	}
}

// limitedConn counts what it writes (how much the client must have
// acknowledged before a reset, see abortClose), notes the first byte of a
// request only on a connection idle between requests, and gives its place
// back once however often it is closed.
func TestLimitedConn(t *testing.T) {
	for _, tc := range []struct {
		name        string
		states      []http.ConnState // set through connState in turn; none: fresh
		peer        string           // what the client sends; "": it closes
		wantPending bool
	}{
		{"idle, a request arrives", []http.ConnState{http.StateIdle}, "GET", true},
		{"idle, the client closes", []http.ConnState{http.StateIdle}, "", false},
		{"active again, data arrives", []http.ConnState{http.StateIdle, http.StateActive}, "GET", false},
		{"fresh, data arrives", nil, "GET", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := newConnLimiter(nil, 2, nil)
			l.sem <- struct{}{}
			l.sem <- struct{}{} // two places taken: one by lc
			server, client := net.Pipe()
			defer client.Close()
			lc := l.track(server)
			go func() { _, _ = io.Copy(io.Discard, client) }()
			if n, err := lc.Write([]byte("answer")); n != 6 || err != nil {
				t.Fatalf("Write: %d, %v", n, err)
			}
			if got := lc.written.Load(); got != 6 {
				t.Errorf("written %d, want 6", got)
			}
			for _, s := range tc.states {
				l.connState(lc, s)
			}
			lc.received() // its first request, if any, has arrived
			go func() {
				if tc.peer == "" {
					client.Close()
				} else {
					_, _ = client.Write([]byte(tc.peer))
				}
			}()
			_, _ = lc.Read(make([]byte, 16))
			if got := lc.pendingSince.Load() != 0; got != tc.wantPending {
				t.Errorf("request pending %v, want %v", got, tc.wantPending)
			}
			lc.Close()
			lc.Close()
			if got := len(l.sem); got != 1 {
				t.Errorf("%d places taken after closing twice, want 1", got)
			}
		})
	}
}

// A connection that waits for a place asks for at most one busy connection
// per rotateAfter: each answer that claims a rotation lets the next one
// wait rotateAfter again.
func TestConnLimiterRotatesOncePerRotateAfter(t *testing.T) {
	l, ln, dial := bareLimiter(t, 1)
	l.rotateAfter = 100 * time.Millisecond
	const want = 5
	var claims []time.Time
	claimed := make(chan struct{})
	// The overload check runs in the waiting Accept at every poll: claim
	// the rotation there, as an answer would.
	l.backlog = newOverloadBacklog(ln, 4096, 8, func(time.Duration) bool {
		if len(claims) < want && l.rotate.CompareAndSwap(true, false) {
			if claims = append(claims, time.Now()); len(claims) == want {
				close(claimed)
			}
		}
		return true
	}, l.done, nil, logr.Discard())
	for range 2 {
		dial()
	}
	held, err := l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	accepted := make(chan net.Conn, 1)
	go func() {
		c, _ := l.Accept()
		accepted <- c
	}()
	<-claimed
	held.Close()
	if c := <-accepted; c != nil {
		c.Close()
	}
	// Between the first claim and the last, want-2 whole rotateAfter have
	// passed at least (the first claim may come just before the second
	// rotation is asked for).
	if got, least := claims[want-1].Sub(claims[0]), (want-2)*l.rotateAfter; got < least {
		t.Errorf("%d rotations asked for within %v, want at least %v between the first and the last", want, got, least)
	}
}
