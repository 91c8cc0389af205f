package webhook

import (
	"errors"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	"github.com/google/go-cmp/cmp"
)

// fakeOverload drives an overloadBacklog without a socket or a server.
type fakeOverload struct {
	idle  atomic.Int64 // longest idle time, ns
	queue atomic.Int64

	mu  sync.Mutex
	set []int // backlogs set, in order
}

func (f *fakeOverload) backlogs() []int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]int(nil), f.set...)
}

func newFakeOverloadBacklog(t *testing.T, f *fakeOverload) *overloadBacklog {
	t.Helper()
	done := make(chan struct{})
	t.Cleanup(func() { close(done) })
	b := newOverloadBacklog(nil, 4096, 64, func(d time.Duration) bool { return time.Duration(f.idle.Load()) >= d }, done, nil, logr.Discard())
	b.calmFor, b.poll = 50*time.Millisecond, 5*time.Millisecond
	b.queueLen = func(net.Listener) (int, error) { return int(f.queue.Load()), nil }
	b.setBacklog = func(_ net.Listener, n int) error {
		f.mu.Lock()
		f.set = append(f.set, n)
		f.mu.Unlock()
		return nil
	}
	return b
}

// The queue is shortened only while no connection has been idle for
// spareIdle and at least engageFactor × the short backlog's worth of
// connections wait in the accept queue.
func TestOverloadBacklogShortens(t *testing.T) {
	for _, tc := range []struct {
		name  string
		idle  time.Duration
		queue int64
		want  []int
	}{
		{"a connection to spare", 100 * time.Millisecond, 4000, nil},
		{"the accept queue is short", 99 * time.Millisecond, 255, nil},
		{"overloaded", 99 * time.Millisecond, 256, []int{64}},
		{"overloaded, none idle, long queue", 0, 4000, []int{64}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeOverload{}
			f.idle.Store(int64(tc.idle))
			f.queue.Store(tc.queue)
			b := newFakeOverloadBacklog(t, f)
			for range 3 {
				b.check()
			}
			if diff := cmp.Diff(tc.want, f.backlogs()); diff != "" {
				t.Errorf("backlogs set (-want +got):\n%s", diff)
			}
			wantGauge := 4096.0
			if tc.want != nil {
				wantGauge = 64
			}
			if got := value(t, b.backlog); got != wantGauge {
				t.Errorf("backlog gauge %v, want %v", got, wantGauge)
			}
			if got, want := value(t, b.shortenedN), float64(len(tc.want)); got != want {
				t.Errorf("shortened %v times, want %v", got, want)
			}
		})
	}
}

// Once some connection has been idle for spareIdle at every poll for
// calmFor, the queue gets its length back, and a new overload shortens it
// again.
func TestOverloadBacklogRestores(t *testing.T) {
	f := &fakeOverload{}
	f.queue.Store(500)
	b := newFakeOverloadBacklog(t, f)

	b.check()
	time.Sleep(20 * b.calmFor) // no connection to spare throughout: still short
	if diff := cmp.Diff([]int{64}, f.backlogs()); diff != "" {
		t.Fatalf("while overloaded (-want +got):\n%s", diff)
	}

	f.idle.Store(int64(b.spareIdle))
	waitFor(t, func() bool { return !b.shortened.Load() })
	if diff := cmp.Diff([]int{64, 4096}, f.backlogs()); diff != "" {
		t.Errorf("after the overload (-want +got):\n%s", diff)
	}
	if got := value(t, b.backlog); got != 4096 {
		t.Errorf("backlog gauge %v, want 4096", got)
	}

	f.idle.Store(0)
	b.check()
	if diff := cmp.Diff([]int{64, 4096, 64}, f.backlogs()); diff != "" {
		t.Errorf("a second overload (-want +got):\n%s", diff)
	}
	if got := value(t, b.shortenedN); got != 2 {
		t.Errorf("shortened %v times, want 2", got)
	}
}

// No guard when the short backlog would not be shorter, or is off.
func TestOverloadBacklogDisabled(t *testing.T) {
	for _, tc := range []struct{ long, short int }{{4096, 0}, {64, 64}, {32, 64}} {
		if b := newOverloadBacklog(nil, tc.long, tc.short, nil, nil, nil, logr.Discard()); b != nil {
			t.Errorf("long %d, short %d: a guard", tc.long, tc.short)
		}
	}
	var b *overloadBacklog
	b.check() // a nil guard does nothing
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached within 10 s")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// The clients have connections to spare when a place is free or a
// connection has been idle, or open without a request, long enough.
func TestConnLimiterSpare(t *testing.T) {
	l := newConnLimiter(nil, 2, nil)
	a, b := &net.TCPConn{}, &net.TCPConn{}
	since := func(m map[net.Conn]time.Time, c net.Conn, ago time.Duration) func() {
		return func() { l.mu.Lock(); m[c] = time.Now().Add(-ago); l.mu.Unlock() }
	}
	for _, step := range []struct {
		name string
		do   func()
		want bool
	}{
		{"no connection open", func() {}, true},
		{"a place free", func() { l.sem <- struct{}{} }, true},
		{"both places busy", func() { l.sem <- struct{}{} }, false},
		{"one idle, one new, both for less than 1 s", func() { l.connState(a, http.StateIdle); l.connState(b, http.StateNew) }, false},
		{"one idle for 2 s", since(l.idle, a, 2*time.Second), true},
		{"that one active again", func() { l.connState(a, http.StateActive) }, false},
		{"the other open for 2 s without a request", since(l.fresh, b, 2*time.Second), true},
		{"both closed, their places not yet given back", func() { l.connState(b, http.StateClosed) }, false},
	} {
		step.do()
		if got := l.spare(time.Second); got != step.want {
			t.Errorf("%s: spare %v, want %v", step.name, got, step.want)
		}
	}
}

// fakePauses records a fake listener's pauses and resumes.
type fakePauses struct {
	mu  sync.Mutex
	ops []string
}

func (f *fakePauses) pause(net.Listener, int) (func() error, error) {
	f.mu.Lock()
	f.ops = append(f.ops, "pause")
	f.mu.Unlock()
	return func() error {
		f.mu.Lock()
		f.ops = append(f.ops, "resume")
		f.mu.Unlock()
		return nil
	}, nil
}

func (f *fakePauses) count(op string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, o := range f.ops {
		if o == op {
			n++
		}
	}
	return n
}

func (f *fakePauses) last() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.ops) == 0 {
		return ""
	}
	return f.ops[len(f.ops)-1]
}

// With the queue short for refuseAfter and no connection to spare, the
// listener is paused and resumed in turn; once the clients have connections
// to spare for calmFor, it listens again and the queue is long again.
func TestOverloadBacklogRefusesUntilCalm(t *testing.T) {
	f := &fakeOverload{}
	f.queue.Store(500)
	b := newFakeOverloadBacklog(t, f)
	p := &fakePauses{}
	b.pause = p.pause
	b.refuseAfter, b.refusePause, b.refuseWindow = 20*time.Millisecond, 5*time.Millisecond, 5*time.Millisecond

	b.check()
	waitFor(t, func() bool { return p.count("pause") >= 3 })
	if got := value(t, b.refusingG); got != 1 {
		t.Errorf("refusing gauge %v while overloaded, want 1", got)
	}

	f.idle.Store(int64(b.spareIdle))
	waitFor(t, func() bool { return !b.shortened.Load() })
	if got := p.last(); got != "resume" {
		t.Errorf("last listener operation %q after the overload, want resume", got)
	}
	if got, want := p.count("resume"), p.count("pause"); got != want {
		t.Errorf("%d resumes for %d pauses", got, want)
	}
	if diff := cmp.Diff([]int{64, 4096}, f.backlogs()); diff != "" {
		t.Errorf("backlogs set (-want +got):\n%s", diff)
	}
	if got := value(t, b.refusingG); got != 0 {
		t.Errorf("refusing gauge %v after the overload, want 0", got)
	}
	if got := value(t, b.refusingN); got != 1 {
		t.Errorf("started refusing %v times, want 1", got)
	}
	if b.listening != nil {
		t.Error("still marked paused after the overload")
	}
}

// Without --overload-refuse-after, or while the clients have a connection
// to spare now and then, the listener is never paused.
func TestOverloadBacklogDoesNotRefuse(t *testing.T) {
	for _, tc := range []struct {
		name        string
		refuseAfter time.Duration
		spareEvery  int // polls; 0: never
	}{
		{"refusing off", 0, 0},
		{"a connection to spare at every other poll", 20 * time.Millisecond, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeOverload{}
			f.queue.Store(500)
			b := newFakeOverloadBacklog(t, f)
			b.calmFor = time.Hour
			p := &fakePauses{}
			b.pause = p.pause
			b.refuseAfter = tc.refuseAfter
			var polls atomic.Int64
			b.spare = func(time.Duration) bool {
				n := polls.Add(1)
				return tc.spareEvery > 0 && n%int64(tc.spareEvery) == 0
			}
			b.check()
			time.Sleep(100 * time.Millisecond) // 20 polls, 5 × refuseAfter
			if n := p.count("pause"); n != 0 {
				t.Errorf("paused %d times", n)
			}
			if !b.shortened.Load() {
				t.Error("queue restored within calmFor")
			}
		})
	}
}

// retryAccept retries an Accept only when the listener was paused since it
// started, waiting until it listens again, and never once the server is
// closing.
func TestRetryAccept(t *testing.T) {
	b := newFakeOverloadBacklog(t, &fakeOverload{})
	p := &fakePauses{}
	b.pause = p.pause
	done := make(chan struct{})

	gen := b.acceptGen()
	if b.retryAccept(gen, done) {
		t.Error("retry after an error with no pause")
	}
	b.pauseListening()
	retried := make(chan bool, 1)
	go func() { retried <- b.retryAccept(gen, done) }()
	select {
	case r := <-retried:
		t.Fatalf("retryAccept returned %v while paused", r)
	case <-time.After(50 * time.Millisecond):
	}
	b.resumeListening()
	if !<-retried {
		t.Error("no retry after the listener listened again")
	}
	if !b.retryAccept(gen, done) {
		t.Error("no retry of an Accept that started before a pause and resume")
	}
	if b.retryAccept(b.acceptGen(), done) {
		t.Error("retry of an Accept that started after them")
	}
	b.pauseListening()
	close(done)
	if b.retryAccept(b.acceptGen(), done) {
		t.Error("retry while the server is closing")
	}
	var nilGuard *overloadBacklog
	if nilGuard.retryAccept(0, make(chan struct{})) {
		t.Error("retry without a guard")
	}
}

// Refusing that stops ends with the listener listening and does not pause
// it again: a pause resets the connections in the accept queue, so one
// after the stop would reset those queued in the last window. Stopped
// during a pause, the listener is resumed; stopped during a window, it is
// left listening.
func TestRefusingStopsWithoutPausingAgain(t *testing.T) {
	for _, tc := range []struct {
		name                string
		refusePause, window time.Duration
		want                []string
	}{
		{"stopped while paused", time.Hour, time.Hour, []string{"pause", "resume"}},
		{"stopped while listening in a window", 0, time.Hour, []string{"pause", "resume"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newFakeOverloadBacklog(t, &fakeOverload{})
			p := &fakePauses{}
			paused, windowed := make(chan struct{}, 1), make(chan struct{}, 1)
			b.pause = func(ln net.Listener, n int) (func() error, error) {
				defer func() { paused <- struct{}{} }()
				return p.pause(ln, n)
			}
			b.queueLen = func(net.Listener) (int, error) { // listenWindow's poll: the window is open
				select {
				case windowed <- struct{}{}:
				default:
				}
				return 0, nil
			}
			b.refusePause, b.refuseWindow = tc.refusePause, tc.window
			stop := b.startRefusing(time.Second, signSlotsSaturate)
			<-paused
			if tc.refusePause == 0 {
				<-windowed
			}
			stop()
			if diff := cmp.Diff(tc.want, p.ops); diff != "" {
				t.Errorf("listener operations (-want +got):\n%s", diff)
			}
			if got := value(t, b.refusingG); got != 0 {
				t.Errorf("refusing gauge %v after the stop, want 0", got)
			}
		})
	}
}

// restoreWhenCalm counts polls: the queue is restored at the poll that
// completes calmFor of consecutive polls with a connection to spare, and
// after a failed restore only once calmFor has passed again; refusing
// starts at the poll that completes refuseAfter of consecutive polls
// without one. A poll of the other kind starts the count again.
func TestOverloadBacklogCountsPolls(t *testing.T) {
	const poll = 5 * time.Millisecond
	for _, tc := range []struct {
		name               string
		spare              string // per poll: + a connection to spare, - none; the last repeats
		calmFor            int    // polls
		refuseAfter        int    // polls; 0: never
		failRestores       int    // restores that fail first
		wantRestores       []int  // polls at which the queue is restored (tried)
		wantRefuseFromPoll int    // 0: never
	}{
		{"calm for calmFor", "++++", 4, 0, 0, []int{4}, 0},
		{"calm interrupted", "+++-+", 4, 0, 0, []int{8}, 0},
		{"restore fails", "+", 4, 0, 1, []int{4, 8}, 0},
		{"busy for refuseAfter", "---------------", 99, 3, 0, nil, 3},
		{"busy interrupted", "--+-", 99, 3, 0, nil, 6},
		{"busy, then calm", "---+", 2, 3, 0, []int{5}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeOverload{}
			f.queue.Store(500)
			b := newFakeOverloadBacklog(t, f)
			b.poll, b.calmFor, b.refuseAfter = poll, time.Duration(tc.calmFor)*poll, time.Duration(tc.refuseAfter)*poll
			b.refusePause, b.refuseWindow = time.Hour, time.Hour
			p := &fakePauses{}
			b.pause = p.pause
			var (
				mu         sync.Mutex
				polls      int // spare's calls by restoreWhenCalm
				refuseFrom int
				restores   []int
				returned   bool
			)
			b.spare = func(time.Duration) bool {
				mu.Lock()
				defer mu.Unlock()
				if !b.shortened.Load() {
					return false // check's call: overloaded
				}
				if refuseFrom == 0 && value(t, b.refusingN) > 0 {
					refuseFrom = polls // started at the poll before this one
				}
				polls++
				return tc.spare[min(polls, len(tc.spare))-1] == '+'
			}
			b.setBacklog = func(_ net.Listener, n int) error {
				mu.Lock()
				defer mu.Unlock()
				if n == b.short {
					return nil
				}
				restores = append(restores, polls)
				if len(restores) <= tc.failRestores {
					return errors.New("setsockopt failed")
				}
				returned = true
				return nil
			}
			b.check()
			waitFor(t, func() bool {
				mu.Lock()
				defer mu.Unlock()
				return returned || polls >= 20
			})
			mu.Lock()
			defer mu.Unlock()
			if diff := cmp.Diff(tc.wantRestores, restores); diff != "" {
				t.Errorf("restores at polls (-want +got):\n%s", diff)
			}
			if refuseFrom != tc.wantRefuseFromPoll {
				t.Errorf("refusing from poll %d, want %d", refuseFrom, tc.wantRefuseFromPoll)
			}
		})
	}
}

// A queue that cannot be shortened stays long as far as the gauge and the
// counter tell, and the next check tries again; a queue length that cannot
// be read shortens nothing.
func TestOverloadBacklogShortenFails(t *testing.T) {
	f := &fakeOverload{}
	f.queue.Store(500)
	b := newFakeOverloadBacklog(t, f)
	b.calmFor = time.Hour
	var tries []int
	b.setBacklog = func(_ net.Listener, n int) error {
		tries = append(tries, n)
		if len(tries) == 1 {
			return errors.New("setsockopt failed")
		}
		return nil
	}
	b.check()
	if got := value(t, b.backlog); got != 4096 {
		t.Errorf("backlog gauge %v after a failed shortening, want 4096", got)
	}
	if got := value(t, b.shortenedN); got != 0 {
		t.Errorf("shortened %v times after a failed shortening, want 0", got)
	}
	b.check()
	if diff := cmp.Diff([]int{64, 64}, tries); diff != "" {
		t.Errorf("backlogs tried (-want +got):\n%s", diff)
	}
	if got := value(t, b.backlog); got != 64 {
		t.Errorf("backlog gauge %v, want 64", got)
	}

	b = newFakeOverloadBacklog(t, f)
	b.queueLen = func(net.Listener) (int, error) { return 5000, errors.New("no TCP_INFO") }
	b.check()
	if b.shortened.Load() || value(t, b.shortenedN) != 0 {
		t.Error("shortened on a queue length that could not be read")
	}
}

// Connections that wait for a place at the same moment shorten the queue
// once.
func TestOverloadBacklogShortensOnce(t *testing.T) {
	f := &fakeOverload{}
	f.queue.Store(500)
	b := newFakeOverloadBacklog(t, f)
	b.calmFor = time.Hour
	var both sync.WaitGroup
	both.Add(2)
	b.spare = func(time.Duration) bool {
		if !b.shortened.Load() {
			both.Done()
			both.Wait() // both checks have found the queue long
		}
		return false
	}
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() { defer wg.Done(); b.check() }()
	}
	wg.Wait()
	if diff := cmp.Diff([]int{64}, f.backlogs()); diff != "" {
		t.Errorf("backlogs set (-want +got):\n%s", diff)
	}
	if got := value(t, b.shortenedN); got != 1 {
		t.Errorf("shortened %v times, want 1", got)
	}
}

// A server that closes while refusing connections ends refusing: the
// listener listens again and the gauge is 0.
func TestOverloadBacklogStopsRefusingWhenClosing(t *testing.T) {
	f := &fakeOverload{}
	f.queue.Store(500)
	b := newFakeOverloadBacklog(t, f)
	done := make(chan struct{})
	b.done = done
	p := &fakePauses{}
	b.pause = p.pause
	b.calmFor, b.refuseAfter, b.refusePause = time.Hour, b.poll, time.Hour
	b.check()
	f.queue.Store(0) // a window would last refuseWindow
	waitFor(t, func() bool { return value(t, b.refusingG) == 1 && p.count("pause") == 1 })
	close(done)
	waitFor(t, func() bool { return value(t, b.refusingG) == 0 })
	if got := p.last(); got != "resume" || p.count("pause") != 1 {
		t.Errorf("%d pauses, last listener operation %q, want 1 and resume", p.count("pause"), got)
	}
}

// A listening window ends, to pause again, once the accept queue holds the
// short backlog (a length that cannot be read does not count); refusing
// that stops, or a server that closes, ends it without a pause.
func TestListenWindow(t *testing.T) {
	for _, tc := range []struct {
		name      string
		window    time.Duration
		queue     int
		err       error
		closeDone bool // at the third poll, instead of stopping refusing
		want      bool
		wantPolls int
	}{
		{"the short backlog queued", time.Hour, 64, nil, false, true, 1},
		{"one less queued", time.Hour, 63, nil, false, false, 3},
		{"queue length unreadable", time.Hour, 4096, errors.New("no TCP_INFO"), false, false, 3},
		{"the server closes", time.Hour, 0, nil, true, false, 3},
		{"refuseWindow passed", 0, 0, nil, false, true, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newFakeOverloadBacklog(t, &fakeOverload{})
			done := make(chan struct{})
			b.done = done
			b.refuseWindow = tc.window
			stop := make(chan struct{})
			polls := 0
			b.queueLen = func(net.Listener) (int, error) {
				if polls++; polls == 3 {
					if tc.closeDone {
						close(done)
					} else {
						close(stop)
					}
				}
				return tc.queue, tc.err
			}
			if got := b.listenWindow(stop); got != tc.want {
				t.Errorf("listenWindow %v, want %v", got, tc.want)
			}
			if polls != tc.wantPolls {
				t.Errorf("%d polls of the accept queue, want %d", polls, tc.wantPolls)
			}
		})
	}
}

// A listener that cannot be paused keeps listening: refusing ends at once,
// with the gauge 0 and an Accept that failed meanwhile retried; the error
// is logged unless the server is closing.
func TestRefusingEndsWhenPauseFails(t *testing.T) {
	for _, closing := range []bool{false, true} {
		b := newFakeOverloadBacklog(t, &fakeOverload{})
		done := make(chan struct{})
		b.done = done
		if closing {
			close(done)
		}
		var errs atomic.Int64
		b.log = funcr.New(func(_, args string) {
			if strings.Contains(args, `"error"`) {
				errs.Add(1)
			}
		}, funcr.Options{})
		b.pause = func(net.Listener, int) (func() error, error) { return nil, errors.New("setsockopt failed") }
		gen := b.acceptGen()
		b.refusingG.Set(1)
		b.refuse(make(chan struct{})) // returns
		if got := value(t, b.refusingG); got != 0 {
			t.Errorf("closing %v: refusing gauge %v, want 0", closing, got)
		}
		if b.listening != nil {
			t.Fatalf("closing %v: marked paused", closing) // an Accept would wait for ever
		}
		if !closing && !b.retryAccept(gen, make(chan struct{})) {
			t.Error("an Accept that failed during the attempt is not retried")
		}
		if got, want := errs.Load(), int64(1); closing && got != 0 || !closing && got != want {
			t.Errorf("closing %v: %d errors logged", closing, got)
		}
	}
}

// A listener that cannot listen again is retried until it can, or until
// the server closes; either way it ends marked listening, and closing logs
// no error.
func TestResumeListening(t *testing.T) {
	for _, tc := range []struct {
		name     string
		failures int    // resumes that fail
		close    string // "": never; "resume": during the failing resume; "log": while it waits to retry
		want     bool
		wantErrs int64
	}{
		{"listens at once", 0, "", true, 0},
		{"listens at the second try", 1, "", true, 1},
		{"closing", 5, "resume", false, 0},
		{"closing while it waits to retry", 5, "log", false, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newFakeOverloadBacklog(t, &fakeOverload{})
			done := make(chan struct{})
			b.done = done
			var errs int64
			b.log = funcr.New(func(_, args string) {
				if strings.Contains(args, `"error"`) {
					errs++
					if tc.close == "log" {
						close(done)
					}
				}
			}, funcr.Options{})
			tries := 0
			b.pause = func(net.Listener, int) (func() error, error) {
				return func() error {
					if tries++; tries <= tc.failures {
						if tc.close == "resume" {
							close(done)
						}
						return errors.New("address in use")
					}
					return nil
				}, nil
			}
			gen := b.acceptGen()
			if !b.pauseListening() {
				t.Fatal("pause failed")
			}
			if got := b.resumeListening(); got != tc.want {
				t.Errorf("resumeListening %v, want %v", got, tc.want)
			}
			if b.listening != nil {
				t.Error("still marked paused")
			}
			if b.acceptGen() == gen {
				t.Error("pause generation unchanged")
			}
			if errs != tc.wantErrs {
				t.Errorf("%d errors logged, want %d", errs, tc.wantErrs)
			}
		})
	}
}

// retryAccept across pauses: an Accept that started during a pause and
// failed is retried even when the listener listens again before it asks;
// none is retried once the server is closing.
func TestRetryAcceptAcrossPauses(t *testing.T) {
	b := newFakeOverloadBacklog(t, &fakeOverload{})
	p := &fakePauses{}
	b.pause = p.pause
	done := make(chan struct{})

	b.pauseListening()
	gen := b.acceptGen() // started during the pause
	b.resumeListening()
	if !b.retryAccept(gen, done) {
		t.Error("no retry of an Accept that started during a pause that has ended")
	}
	close(done)
	if b.retryAccept(gen, done) {
		t.Error("retry of an Accept across a pause once the server is closing")
	}
}

// A server that closes while the listener is paused ends refusing once the
// listener cannot listen again: it is not paused again.
func TestRefusingEndsWhenClosingWhilePaused(t *testing.T) {
	b := newFakeOverloadBacklog(t, &fakeOverload{})
	done := make(chan struct{})
	b.done = done
	b.refusePause, b.refuseWindow = 0, time.Hour
	b.queueLen = func(net.Listener) (int, error) { return b.short, nil } // a window would end at once
	pauses := 0
	b.pause = func(net.Listener, int) (func() error, error) {
		if pauses++; pauses > 1 {
			return nil, errors.New("listener closed")
		}
		return func() error {
			close(done) // the server closes; its listener is gone
			return errors.New("listener closed")
		}, nil
	}
	b.refuse(make(chan struct{})) // returns
	if pauses != 1 {
		t.Errorf("paused %d times, want 1", pauses)
	}
}
