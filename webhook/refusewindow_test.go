package webhook

import (
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

// testPoll is one poll's growth of the counters a refuseWindow reads.
type testPoll struct {
	arrived, waited, drops uint64
	unreadable             bool
}

// fakeCounters stands for the slot gate's counts and the namespace's listen
// overflows; they start anywhere.
type fakeCounters struct {
	arrived, waited, drops atomic.Uint64
	unreadable             atomic.Bool
}

func newFakeCounters() *fakeCounters {
	c := &fakeCounters{}
	c.arrived.Store(5)
	c.waited.Store(3)
	c.drops.Store(1 << 40)
	return c
}

func (c *fakeCounters) reviews() (uint64, uint64) { return c.arrived.Load(), c.waited.Load() }

func (c *fakeCounters) overflows() (uint64, bool) { return c.drops.Load(), !c.unreadable.Load() }

func (c *fakeCounters) add(p testPoll) {
	c.arrived.Add(p.arrived)
	c.waited.Add(p.waited)
	c.drops.Add(p.drops)
	c.unreadable.Store(p.unreadable)
}

// The signs over the last refuseAfter (four polls here). The polls of the
// first cases are measured ones (250 ms each, docs/performance-log.md,
// "Refusing only when the surplus cannot be served").
func TestRefuseWindow(t *testing.T) {
	type want struct {
		cpuBound, pileUp bool
		sign             string
	}
	for _, tc := range []struct {
		name   string
		noFns  bool
		polls  []testPoll
		expect want
	}{
		{"no counters: connections alone decide", true, []testPoll{{100, 0, 0, false}}, want{false, false, signNoCounters}},
		{"half capacity, clients on the same CPUs: bursts of dials", false,
			[]testPoll{{2461, 0, 477, false}, {2464, 3, 6, false}, {2487, 0, 305, false}, {2450, 1, 2496, false}}, want{}},
		{"twice the capacity, clients on the same CPUs: a dial per surplus request", false,
			[]testPoll{{822, 0, 4016, false}, {1226, 1, 2721, false}, {1082, 17, 2278, false}, {1417, 0, 2597, false}}, want{false, true, signDialsPileUp}},
		{"a client walking its ports: connections idle, dials dropped", false,
			[]testPoll{{212, 0, 898, false}, {71, 0, 3968, false}, {21, 0, 2895, false}, {32, 0, 1785, false}}, want{false, true, signDialsPileUp}},
		{"the server's own CPUs the bound", false,
			[]testPoll{{600, 450, 0, false}, {600, 500, 10, false}, {600, 400, 0, false}, {600, 500, 0, false}}, want{true, false, signSlotsSaturate}},
		{"exactly half the reviews waited", false, []testPoll{{64, 32, 0, false}}, want{true, false, signSlotsSaturate}},
		{"just below half", false, []testPoll{{65, 32, 0, false}}, want{}},
		{"too few reviews to tell", false, []testPoll{{63, 63, 0, false}}, want{}},
		{"exactly the drops per review", false, []testPoll{{128, 0, 256, false}}, want{false, true, signDialsPileUp}},
		{"just below", false, []testPoll{{129, 0, 257, false}}, want{}},
		{"too few drops to tell", false, []testPoll{{0, 0, 255, false}}, want{}},
		{"only the last refuseAfter counts", false,
			[]testPoll{{10, 0, 9000, false}, {1000, 0, 0, false}, {1000, 0, 0, false}, {1000, 0, 0, false}, {1000, 0, 0, false}}, want{}},
		{"the overflows unreadable at a poll", false,
			[]testPoll{{1000, 0, 0, false}, {1000, 0, 0, true}, {1000, 0, 0, false}}, want{false, false, signNoCounters}},
		{"the reviews of every poll count", false, []testPoll{{100, 0, 0, false}, {100, 60, 0, false}}, want{}},
		{"both signs: the slots named", false, []testPoll{{600, 400, 1200, false}}, want{true, true, signSlotsSaturate}},
		{"the overflows unreadable at the last poll", false,
			[]testPoll{{10, 0, 3000, false}, {10, 0, 0, true}}, want{false, false, signNoCounters}},
		{"the poll after an unreadable one is unknown too", false,
			[]testPoll{{10, 0, 0, true}, {10, 0, 300, false}, {10, 0, 300, false}, {10, 0, 300, false}, {10, 0, 300, false}}, want{false, false, signNoCounters}},
		{"an unreadable poll leaves the window", false,
			[]testPoll{{10, 0, 0, true}, {10, 0, 0, false}, {10, 0, 300, false}, {10, 0, 300, false}, {10, 0, 300, false}, {10, 0, 300, false}}, want{false, true, signDialsPileUp}},
		{"the overflows counter went back", false, // by 1000 (the growth wraps around)
			[]testPoll{{10, 0, 300, false}, {10, 0, 1<<64 - 1000, false}}, want{false, false, signNoCounters}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newFakeCounters()
			b := &overloadBacklog{poll: 250 * time.Millisecond, refuseAfter: time.Second}
			if !tc.noFns {
				b.reviews, b.overflows = c.reviews, c.overflows
			}
			w := b.newRefuseWindow()
			for _, p := range tc.polls {
				c.add(p)
				w.add()
			}
			c.unreadable.Store(false)
			got := want{w.cpuBound(), w.pileUp(), w.sign()}
			if got != tc.expect {
				t.Errorf("cpuBound, pileUp, sign = %+v, want %+v", got, tc.expect)
			}
		})
	}
}

// The first poll's drops are known only when the overflows were read as
// the window started; without a way to read them, the drops are never known.
func TestRefuseWindowStart(t *testing.T) {
	for _, tc := range []struct {
		name             string
		startUnreadable  bool // the overflows as the window starts
		noOverflows      bool
		poll             testPoll
		cpuBound, pileUp bool
		sign             string
	}{
		{name: "read at the start", poll: testPoll{10, 0, 300, false}, pileUp: true, sign: signDialsPileUp},
		{name: "unreadable at the start", startUnreadable: true, poll: testPoll{10, 0, 300, false}, sign: signNoCounters},
		{name: "no overflows to read", noOverflows: true, poll: testPoll{100, 80, 300, false}, cpuBound: true, sign: signNoCounters},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newFakeCounters()
			b := &overloadBacklog{poll: 250 * time.Millisecond, refuseAfter: time.Second, reviews: c.reviews}
			if !tc.noOverflows {
				b.overflows = c.overflows
			}
			c.unreadable.Store(tc.startUnreadable)
			w := b.newRefuseWindow()
			c.add(tc.poll)
			w.add()
			if got, want := [3]any{w.cpuBound(), w.pileUp(), w.sign()}, [3]any{tc.cpuBound, tc.pileUp, tc.sign}; got != want {
				t.Errorf("cpuBound, pileUp, sign = %v, want %v", got, want)
			}
		})
	}
}

// The guard with the counters: busy connections alone never refuse; busy
// connections and saturated slots do; dropped SYNs piling up refuse even
// while connections sit idle (the client is stuck in connect(2)), and keep
// the queue short until they stop.
func TestOverloadBacklogRefusesOnlyOnASign(t *testing.T) {
	for _, tc := range []struct {
		name    string
		idle    time.Duration // of the longest idle connection
		perPoll testPoll
		refuse  bool
	}{
		{"busy connections, free slots, few drops: half capacity", 0, testPoll{100, 2, 40, false}, false},
		{"busy connections, saturated slots", 0, testPoll{100, 80, 0, false}, true},
		{"busy connections, dials piling up", 0, testPoll{100, 0, 300, false}, true},
		{"idle connections, dials piling up", time.Hour, testPoll{10, 0, 300, false}, true},
		{"idle connections, saturated slots: calm", time.Hour, testPoll{100, 80, 0, false}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeOverload{}
			f.queue.Store(4000)
			f.idle.Store(int64(tc.idle))
			b := newFakeOverloadBacklog(t, f)
			b.calmFor = time.Hour
			b.refuseAfter = 4 * b.poll
			c := newFakeCounters()
			b.reviews = func() (uint64, uint64) {
				c.add(tc.perPoll) // called once a poll
				return c.reviews()
			}
			b.overflows = c.overflows
			p := &fakePauses{}
			b.pause = p.pause
			b.shortened.Store(true) // as check does, without its conditions
			go b.restoreWhenCalm()
			if tc.refuse {
				waitFor(t, func() bool { return value(t, b.refusingN) == 1 && p.count("pause") > 0 })
				return
			}
			time.Sleep(40 * b.refuseAfter)
			if got := value(t, b.refusingN); got != 0 || p.count("pause") != 0 {
				t.Errorf("started refusing %v times (%d pauses), want never", got, p.count("pause"))
			}
		})
	}
}

// Idle connections are calm only once the dials stop piling up: the queue
// stays short while they do, and is long again after calmFor without.
func TestOverloadBacklogNotCalmWhileDialsPileUp(t *testing.T) {
	f := &fakeOverload{}
	f.queue.Store(4000)
	f.idle.Store(int64(time.Hour))
	b := newFakeOverloadBacklog(t, f)
	b.refuseAfter = 0 // no refusing: calm alone
	c := newFakeCounters()
	var drops atomic.Uint64
	drops.Store(1000)
	b.reviews = func() (uint64, uint64) {
		c.add(testPoll{arrived: 10, drops: drops.Load()})
		return c.reviews()
	}
	b.overflows = c.overflows
	b.shortened.Store(true)
	go b.restoreWhenCalm()
	time.Sleep(4 * b.calmFor)
	if !b.shortened.Load() {
		t.Fatal("queue restored while the dials piled up")
	}
	drops.Store(0)
	waitFor(t, func() bool { return !b.shortened.Load() })
}
