package webhook

import (
	"net"
	"sync/atomic"
	"testing"
	"time"
)

func TestParseListenOverflows(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		want uint64
		ok   bool
	}{
		{"netstat", "TcpExt: SyncookiesSent ListenOverflows ListenDrops\nTcpExt: 0 1234 1300\nIpExt: InNoRoutes\nIpExt: 0\n", 1234, true},
		{"no counter", "TcpExt: SyncookiesSent\nTcpExt: 0\n", 0, false},
		{"no values", "TcpExt: ListenOverflows\n", 0, false},
		{"not a number", "TcpExt: ListenOverflows\nTcpExt: x\n", 0, false},
		{"empty", "", 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := parseListenOverflows([]byte(tc.in))
			if got != tc.want || ok != tc.ok {
				t.Errorf("parseListenOverflows = %d, %v; want %d, %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}

// The window's verdict: listen overflows per review over the last
// refuseAfter (four polls here) at least refuseDropsPerReview; true when
// that cannot be known, as before the window existed.
func TestDropWindowWarranted(t *testing.T) {
	type poll struct {
		drops, reviews uint64
		unreadable     bool
	}
	for _, tc := range []struct {
		name  string
		nilFn bool
		polls []poll
		want  bool
	}{
		{"no counters: connections alone decide", true, []poll{{0, 100, false}}, true},
		{"half capacity: bursts of dials", false, []poll{{477, 2461, false}, {6, 2464, false}, {305, 2487, false}, {2496, 2450, false}}, false},
		{"twice the capacity: a dial per surplus request", false, []poll{{3984, 1278, false}, {2609, 1627, false}, {1154, 1200, false}, {1550, 1506, false}}, true},
		{"only the last refuseAfter counts", false, []poll{{9000, 10, false}, {0, 1000, false}, {0, 1000, false}, {0, 1000, false}, {0, 1000, false}}, false},
		{"exactly the share", false, []poll{{80, 100, false}}, true},
		{"just below", false, []poll{{79, 100, false}}, false},
		{"no review at all", false, []poll{{0, 0, false}}, true},
		{"the counter unreadable at a poll", false, []poll{{0, 1000, false}, {0, 1000, true}, {0, 1000, false}}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var drops, reviews atomic.Uint64
			unreadable := false
			b := &overloadBacklog{poll: 250 * time.Millisecond, refuseAfter: time.Second}
			if !tc.nilFn {
				b.reviews = reviews.Load
				b.overflows = func() (uint64, bool) { return drops.Load(), !unreadable }
			}
			drops.Store(1 << 40) // counters start anywhere
			reviews.Store(5)
			w := b.newDropWindow()
			for _, p := range tc.polls {
				drops.Add(p.drops)
				reviews.Add(p.reviews)
				unreadable = p.unreadable
				w.add()
			}
			unreadable = false
			if got := w.warranted(); got != tc.want {
				t.Errorf("warranted() = %v, want %v", got, tc.want)
			}
		})
	}
}

// Connections without one to spare for refuseAfter start refusing only when
// the dropped SYNs show overload (TestDropWindowWarranted's "half capacity"
// and "twice the capacity").
func TestOverloadBacklogRefusesOnDroppedSYNs(t *testing.T) {
	f := &fakeOverload{}
	f.queue.Store(4000)
	b := newFakeOverloadBacklog(t, f)
	b.refuseAfter = 4 * b.poll
	var drops, reviews atomic.Uint64
	var dropsPerPoll atomic.Uint64
	b.reviews = reviews.Load
	b.overflows = func() (uint64, bool) {
		// Called once a poll: each poll sees 100 reviews and
		// dropsPerPoll overflows.
		reviews.Add(100)
		return drops.Add(dropsPerPoll.Load()), true
	}
	var pauses atomic.Int32
	b.pause = func(net.Listener, int) (func() error, error) {
		pauses.Add(1)
		return func() error { return nil }, nil
	}
	dropsPerPoll.Store(30) // 0.3 per review: bursts below capacity
	b.check()
	time.Sleep(40 * b.refuseAfter)
	if got := value(t, b.refusingN); got != 0 || pauses.Load() != 0 {
		t.Fatalf("0.3 dropped SYNs per review: started refusing %v times (%d pauses), want never", got, pauses.Load())
	}
	dropsPerPoll.Store(150) // 1.5 per review: a dial per surplus request
	waitFor(t, func() bool { return value(t, b.refusingN) == 1 && pauses.Load() > 0 })
}
