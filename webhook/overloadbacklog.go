package webhook

import (
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
)

// overloadBacklog shortens the webhook listener's accept queue while the
// server is overloaded, and gives it its length back once it is not.
//
// Under sustained overload with a connection bound, clients whose requests
// find no idle connection dial new ones (Go's and client-go's transports),
// and with the system's long queue (net.core.somaxconn, 4,096) the kernel
// completes thousands of them at once: each client then builds a TLS
// ClientHello (an X25519 and an ML-KEM key) for a handshake the server will
// not start before the client gives up (10 s), and gives up on all of them
// together. With a short queue the kernel drops the surplus SYNs and their
// clients' kernels retransmit them, which costs no CPU. A short queue all
// the time, though, slows the recovery after an overload (the
// retransmissions of the dropped dials fill it ahead of new ones for up to
// the clients' 30 s dial timeout) and has been seen to start a dial storm in
// a closed loop at the connection bound (docs/server.md, "Overload"). So the
// queue is short only while the clients want more connections than the
// server has places and have none to spare:
//
//   - engage: a connection waits for a place (--max-connections), at least
//     engageFactor × short connections wait in the accept queue, and no
//     open connection has been idle, or open without a request, for
//     spareIdle (each is taken for the next request as soon as it is
//     answered); a burst of dials below capacity rarely queues that many;
//   - restore: for calmFor, at every poll a place was free or some open
//     connection had been idle, or open without a request, for spareIdle
//     (the clients have connections to spare).
type overloadBacklog struct {
	ln          net.Listener
	long, short int
	spareIdle   time.Duration
	calmFor     time.Duration
	poll        time.Duration

	// spare reports whether a place is free or a connection has been idle,
	// or open without a request, for at least the given time
	// (connLimiter.spare).
	spare func(time.Duration) bool

	// queueLen and setBacklog are acceptQueueLen and setListenBacklog
	// (tests replace them).
	queueLen   func(net.Listener) (int, error)
	setBacklog func(net.Listener, int) error

	shortened atomic.Bool
	done      <-chan struct{}
	log       logr.Logger

	// reviews returns the reviews that reached the slot gate and those
	// that found every slot taken (slotGate.counts), overflows the
	// namespace's listen overflows (listenOverflows): refusing also needs
	// them to show that the surplus cannot be served (refuseWindow). nil:
	// connections alone decide.
	reviews   func() (arrived, waited uint64)
	overflows func() (uint64, bool)

	// refuseAfter: no connection to spare at every poll for this long
	// starts refusing connections (overloadrefuse.go); 0: never.
	// refusePause and refuseWindow are refusePauseDefault and
	// refuseWindowDefault (tests shorten them).
	refuseAfter, refusePause, refuseWindow time.Duration
	// pause is pauseListener (tests replace it); resumeFn is what the last
	// pause returned.
	pause    func(net.Listener, int) (func() error, error)
	resumeFn func() error
	// listening is nil while the listener listens, and is closed when it
	// listens again after a pause; gen counts pauses and resumes, so that
	// an Accept that failed across one is retried (retryAccept).
	pmu       sync.Mutex
	listening chan struct{}
	gen       atomic.Uint64

	backlog    prometheus.Gauge
	shortenedN prometheus.Counter
	refusingG  prometheus.Gauge
	refusingN  prometheus.Counter
}

// Overload backlog timings (see overloadBacklog). backlogCheckPoll is how
// often a connection waiting for a place checks for overload: at 2×
// capacity the accept queue fills at thousands of connections a second.
const (
	backlogSpareIdleDefault = 100 * time.Millisecond
	backlogCalmForDefault   = 2 * time.Second
	backlogPollDefault      = 250 * time.Millisecond
	backlogCheckPoll        = 10 * time.Millisecond
	// engageFactor × the short backlog connections in the accept queue
	// shorten it (256 for the default 64: at 2× capacity the queue passes
	// that within tens of milliseconds).
	engageFactor = 4
)

// newOverloadBacklog returns the guard for ln, whose backlog is long now,
// or nil when short would not shorten it.
func newOverloadBacklog(ln net.Listener, long, short int, spare func(time.Duration) bool, done <-chan struct{}, m *metrics, log logr.Logger) *overloadBacklog {
	if short <= 0 || long <= short {
		return nil
	}
	b := &overloadBacklog{
		ln: ln, long: long, short: short,
		spareIdle: backlogSpareIdleDefault, calmFor: backlogCalmForDefault, poll: backlogPollDefault,
		spare:    spare,
		queueLen: acceptQueueLen, setBacklog: setListenBacklog,
		refusePause: refusePauseDefault, refuseWindow: refuseWindowDefault, pause: pauseListener,
		done: done, log: log,
		backlog: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "claimbridge_webhook_listen_backlog",
			Help: "The webhook listener's accept queue length limit now: --listen-backlog (or the system's), or --overload-listen-backlog while overloaded.",
		}),
		shortenedN: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "claimbridge_webhook_listen_backlog_shortened_total",
			Help: "Times the webhook listener's accept queue was shortened to --overload-listen-backlog because the server was overloaded.",
		}),
		refusingG: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "claimbridge_webhook_listen_refusing",
			Help: "1 while the webhook listener refuses new connections between short windows, because the server has been overloaded for --overload-refuse-after; 0 otherwise.",
		}),
		refusingN: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "claimbridge_webhook_listen_refusing_started_total",
			Help: "Times the webhook listener started refusing new connections because the server had been overloaded for --overload-refuse-after.",
		}),
	}
	b.backlog.Set(float64(long))
	if m != nil {
		m.registry.MustRegister(b.backlog, b.shortenedN, b.refusingG, b.refusingN)
	}
	return b
}

// watching reports whether check should be called: a guard whose queue is
// long.
func (b *overloadBacklog) watching() bool { return b != nil && !b.shortened.Load() }

// check is called while an accepted connection waits for a place: it
// shortens the queue when the server is overloaded.
func (b *overloadBacklog) check() {
	if !b.watching() || b.spare(b.spareIdle) {
		return
	}
	n, err := b.queueLen(b.ln)
	if err != nil || n < engageFactor*b.short {
		return
	}
	if !b.shortened.CompareAndSwap(false, true) {
		return
	}
	if err := b.setBacklog(b.ln, b.short); err != nil {
		b.log.Error(err, "Shortening the accept queue")
		b.shortened.Store(false)
		return
	}
	b.backlog.Set(float64(b.short))
	b.shortenedN.Inc()
	b.log.Info("Overloaded: accept queue shortened", "queued", n, "backlog", b.short)
	go b.restoreWhenCalm()
}

// restoreWhenCalm gives the queue its length back once the clients have had
// connections to spare, and no dials piling up, at every poll for calmFor.
// Until then, once they have had none to spare (or dials piling up) at
// every poll for refuseAfter (not at one poll only: a burst at half
// capacity can keep every place busy at a poll a second after the queue
// was shortened) and the last refuseAfter shows a sign that the surplus
// cannot be served (refusewindow.go), the listener refuses connections
// between short windows (overloadrefuse.go).
func (b *overloadBacklog) restoreWhenCalm() {
	t := time.NewTicker(b.poll)
	defer t.Stop()
	var stopRefusing func()
	defer func() {
		if stopRefusing != nil {
			stopRefusing()
		}
	}()
	var calm, busy time.Duration
	w := b.newRefuseWindow()
	for {
		select {
		case <-b.done:
			return
		case <-t.C:
		}
		w.add()
		// Idle connections are not calm while dials pile up: their client
		// is stuck in connect(2) (refusewindow.go).
		if b.spare(b.spareIdle) && !w.pileUp() {
			calm, busy = calm+b.poll, 0
		} else {
			calm, busy = 0, busy+b.poll
		}
		if calm < b.calmFor {
			if stopRefusing == nil && b.refuseAfter > 0 && busy >= b.refuseAfter {
				if sign := w.sign(); sign != "" {
					stopRefusing = b.startRefusing(busy, sign)
				}
			}
			continue
		}
		if stopRefusing != nil {
			stopRefusing()
			stopRefusing = nil
			b.log.Info("Clients have connections to spare: connections accepted again")
		}
		if err := b.setBacklog(b.ln, b.long); err != nil {
			b.log.Error(err, "Restoring the accept queue")
			calm = 0
			continue
		}
		b.backlog.Set(float64(b.long))
		b.shortened.Store(false)
		b.log.Info("Clients have connections to spare: accept queue restored", "backlog", b.long)
		return
	}
}
