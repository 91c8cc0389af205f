package webhook

import (
	"net"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
)

// readTurns bounds the connections whose data is read and processed at once
// (TLS records decrypted, the HTTP request parsed, its body read) however
// many connections are open (--max-connections); see
// --max-reading-connections.
//
// A connection takes a turn when data has arrived on it, before the data is
// processed, and gives it back as soon as it has nothing more to read (its
// next read would wait: the request has been read and waits for a slot or
// runs, or the answer has been written and the client has not sent the
// next request) or closes. The connections whose data waits for a turn keep
// their goroutines blocked on a channel, not runnable, and the data in their
// sockets. So with hundreds of connections open, as many as the clients
// have requests outstanding (a client whose request finds no idle
// connection dials a new one, docs/server.md, "Overload"), the reading and
// parsing of their requests does not crowd the scheduler's run queues and
// the memory of parsed requests waiting for a slot stays bounded by the
// slot queue.
//
// Turns are given in arrival order: a channel's blocked senders are woken
// first in, first out.
type readTurns struct {
	ch   chan struct{}
	done <-chan struct{} // closed when the listener closes
}

func newReadTurns(n int, done <-chan struct{}) *readTurns {
	return &readTurns{ch: make(chan struct{}, n), done: done}
}

// take waits for a turn, recorded in held; false: the listener or the
// connection (closed) was closed first.
func (t *readTurns) take(held *atomic.Bool, closed <-chan struct{}) bool {
	if held.Load() {
		return true
	}
	select {
	case t.ch <- struct{}{}:
		held.Store(true)
		// A Close that gave back no turn before this one was taken has
		// closed closed first: the turn goes back here.
		select {
		case <-closed:
			t.give(held)
			return false
		default:
			return true
		}
	case <-t.done:
	case <-closed:
	}
	return false
}

// give gives back the turn recorded in held, if any.
func (t *readTurns) give(held *atomic.Bool) {
	if held.CompareAndSwap(true, false) {
		<-t.ch
	}
}

// inUse is the number of turns held.
func (t *readTurns) inUse() int { return len(t.ch) }

// errClosedWaitingForTurn is what a read returns when its connection or the
// listener closed while its data waited for a turn.
var errClosedWaitingForTurn = &net.OpError{Op: "read", Net: "tcp", Err: net.ErrClosed}

// registerReadTurns exports the turns held.
func (m *metrics) registerReadTurns(t *readTurns) {
	if m == nil {
		return
	}
	m.registry.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "claimbridge_webhook_reading_connections",
		Help: "Connections whose data is being read and processed (at most --max-reading-connections); the others wait with their data unread.",
	}, func() float64 { return float64(t.inUse()) }))
}
