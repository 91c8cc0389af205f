package webhook

import (
	"math/rand/v2"
	"time"
)

// Refusing connections under sustained overload (overloadBacklog).
//
// The shortened accept queue drops the surplus SYNs, and each client's
// kernel keeps such a dial in SYN_SENT, retransmitting its SYN after 1 s,
// 3 s, 7 s … until the client's dial timeout (30 s in Go's and client-go's
// transports). A client that dials for every request finding no idle
// connection, as those transports do, therefore collects a socket per
// surplus request, thousands a second at twice the capacity. Once it holds
// more than half its ephemeral ports towards the server's address, every
// connect(2) walks all the ports of one parity (Linux's
// __inet_hash_connect), and once it holds them all, every connect walks
// them all and fails (EADDRNOTAVAIL): the client's CPU goes to the kernel's
// port search. (kube-apiserver runs with a large file descriptor limit, so
// its ports run out first; in the load test with the generator's ports as
// the bound, claimbridge answered 12 % of its capacity and the generator
// used 1.9 cores.)
//
// So once the clients have had no connection to spare at every poll for
// refuseAfter (a burst below capacity is ridden out as before), the
// listener refuses connections (pauseListener) except for a short window
// about every refusePause: a dial then fails at once with "connection
// refused" (its request too, unless a connection of its client came free
// first: under sustained overload the server answers its capacity either
// way, and the surplus requests fail in their clients one way or another),
// and a SYN retransmitted into a pause is refused as well, so the dials
// left waiting end within a second or so.
// Each window listens until the short queue is full or refuseWindow has
// passed: a client without a connection still gets one, through the
// rotation of busy connections (connLimiter). Refusing ends when the queue
// is restored (overloadBacklog.restoreWhenCalm).

// Refusal timings. The pauses vary by ±20 %, so that a SYN retransmitted
// 1 s after it was dropped in a window does not meet the next window.
const (
	refusePauseDefault  = 750 * time.Millisecond
	refuseWindowDefault = 100 * time.Millisecond
	refuseWindowPoll    = 5 * time.Millisecond
	resumeRetry         = 100 * time.Millisecond
	resumeLogEvery      = 100 // a failed resume is logged every 10 s
)

// startRefusing starts the refusal cycle; stop ends it with the listener
// listening (with the short backlog) and returns once it has ended.
func (b *overloadBacklog) startRefusing(since time.Duration, sign string) (stop func()) {
	stopc, finished := make(chan struct{}), make(chan struct{})
	b.refusingG.Set(1)
	b.refusingN.Inc()
	b.log.Info("Overloaded: refusing connections between short windows", "overloadedFor", since.String(), "sign", sign, "backlog", b.short)
	go func() {
		defer close(finished)
		b.refuse(stopc)
	}()
	return func() {
		close(stopc)
		<-finished
		b.refusingG.Set(0)
	}
}

func (b *overloadBacklog) refuse(stop <-chan struct{}) {
	for {
		if !b.pauseListening() {
			b.refusingG.Set(0) // it keeps listening
			return
		}
		pause := time.Duration(float64(b.refusePause) * (0.8 + 0.4*rand.Float64()))
		t := time.NewTimer(pause)
		select {
		case <-stop:
		case <-b.done:
		case <-t.C:
		}
		t.Stop()
		if !b.resumeListening() {
			return
		}
		select {
		case <-stop:
			return
		default:
		}
		if !b.listenWindow(stop) {
			return // it keeps listening: a pause now would reset the connections queued in the window
		}
	}
}

// listenWindow returns true once the accept queue holds the short backlog
// or refuseWindow has passed, false once refusing stops or the server is
// closing.
func (b *overloadBacklog) listenWindow(stop <-chan struct{}) bool {
	end := time.Now().Add(b.refuseWindow)
	t := time.NewTicker(refuseWindowPoll)
	defer t.Stop()
	for time.Now().Before(end) {
		if n, err := b.queueLen(b.ln); err == nil && n >= b.short {
			return true
		}
		select {
		case <-stop:
			return false
		case <-b.done:
			return false
		case <-t.C:
		}
	}
	return true
}

// pauseListening stops the listener; false if it could not (it then keeps
// listening, and refusing ends).
func (b *overloadBacklog) pauseListening() bool {
	b.pmu.Lock()
	b.gen.Add(1)
	b.listening = make(chan struct{})
	b.pmu.Unlock()
	resume, err := b.pause(b.ln, b.short)
	if err != nil {
		if !isClosed(b.done) {
			b.log.Error(err, "Refusing connections: pausing the listener")
		}
		b.markListening()
		return false
	}
	b.resumeFn = resume
	return true
}

// resumeListening listens again, retrying while the address cannot be
// bound; false once the server is closing.
func (b *overloadBacklog) resumeListening() bool {
	for try := 0; ; try++ {
		err := b.resumeFn()
		if err == nil {
			if try > 0 {
				b.log.Info("Listening again", "tries", try+1)
			}
			b.markListening()
			return true
		}
		if isClosed(b.done) {
			b.markListening()
			return false
		}
		if try%resumeLogEvery == 0 {
			b.log.Error(err, "Refusing connections: cannot listen again; retrying", "every", resumeRetry.String(), "tries", try+1)
		}
		select {
		case <-b.done:
			b.markListening()
			return false
		case <-time.After(resumeRetry):
		}
	}
}

func (b *overloadBacklog) markListening() {
	b.pmu.Lock()
	defer b.pmu.Unlock()
	if b.listening != nil {
		close(b.listening)
		b.listening = nil
	}
	b.gen.Add(1)
}

// acceptGen is the listener's pause generation, read before an Accept.
func (b *overloadBacklog) acceptGen() uint64 {
	if b == nil {
		return 0
	}
	return b.gen.Load()
}

// retryAccept reports whether an Accept that failed, started at generation
// gen, failed because the listener was paused: it then waits until the
// listener listens again and returns true. False when the server is
// closing or the listener was not paused.
func (b *overloadBacklog) retryAccept(gen uint64, done <-chan struct{}) bool {
	if b == nil || isClosed(done) {
		return false
	}
	b.pmu.Lock()
	listening, paused := b.listening, b.gen.Load() != gen
	b.pmu.Unlock()
	if listening == nil {
		return paused
	}
	select {
	case <-listening:
		return true
	case <-done:
		return false
	}
}

func isClosed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}
