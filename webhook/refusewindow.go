package webhook

// Refusing connections needs overload, not only clients without a
// connection to spare.
//
// On a fast machine an open-loop client at half the capacity of a cheap
// review (conversions at 8,000–11,000/s) keeps all 32 connections busy
// between its requests for a second and more, and a guard that looked at
// connections alone refused dials the CPUs had room for (96–616 failed
// requests in 3 s phases at half capacity, docs/performance-log.md, "Runs on
// a fast host"). So refusing also needs one of two signs that the clients'
// surplus cannot be served:
//
//   - the CPUs are the bound: at least half of the reviews that reached the
//     slot gate over the last refuseAfter found every slot taken (the
//     server's own CPUs saturated, as in a pod with its own CPUs or limit);
//   - the clients pile up dials the server does not serve: the network
//     namespace's accept queues dropped at least refuseDropsPerReview SYNs
//     per review over the last refuseAfter. A client whose ephemeral ports
//     bound its dials (kube-apiserver's case) otherwise ends up walking its
//     port range in connect(2) for every request while the server idles
//     (12 % of the capacity answered, overloadrefuse.go).
//
// Neither holds for a client at half capacity: over any second, at most
// 0.59 dropped SYNs per review and 2.5 % of the reviews waiting for a
// slot were measured in such phases. At twice the capacity with the clients
// on the server's CPUs (the load test), the server's requests wait for a CPU
// rather than for a slot, but the dropped dials reach 1.75–2.21 per review
// within two seconds. A client stuck in connect(2) does not use the
// connections it has, so the second sign also counts as overload while
// connections sit idle (restoreWhenCalm). Measured in
// docs/performance-log.md, "Refusing only on a sign that the surplus cannot
// be served".

// Refusal signs (refuseWindow.sign).
const (
	refuseWaitedShare    = 0.5
	refuseMinReviews     = 64
	refuseDropsPerReview = 2
	refuseMinDrops       = 256
)

// refuseWindow keeps, per poll of restoreWhenCalm, the reviews that reached
// the slot gate, those that found no free slot, and the listen overflows,
// each since the poll before, for the last refuseAfter.
type refuseWindow struct {
	b      *overloadBacklog
	n      int // polls kept
	polls  []windowPoll
	last   windowPoll
	lastOK bool
}

type windowPoll struct {
	arrived, waited, drops uint64
	unknown                bool // the overflows could not be read
}

func (b *overloadBacklog) newRefuseWindow() *refuseWindow {
	w := &refuseWindow{b: b, n: max(1, int(b.refuseAfter/b.poll))}
	if b.reviews != nil {
		w.last = b.read()
		w.lastOK = !w.last.unknown
	}
	return w
}

// read returns the counters now.
func (b *overloadBacklog) read() windowPoll {
	var p windowPoll
	p.arrived, p.waited = b.reviews()
	ok := false
	if b.overflows != nil {
		p.drops, ok = b.overflows()
	}
	p.unknown = !ok
	return p
}

// add records the poll that has just passed.
func (w *refuseWindow) add() {
	if w.b.reviews == nil {
		return
	}
	now := w.b.read()
	d := windowPoll{arrived: now.arrived - w.last.arrived, waited: now.waited - w.last.waited}
	if w.lastOK && !now.unknown && now.drops >= w.last.drops {
		d.drops = now.drops - w.last.drops
	} else {
		d.unknown = true
	}
	w.polls = append(w.polls, d)
	if len(w.polls) > w.n {
		w.polls = w.polls[1:]
	}
	w.last, w.lastOK = now, !now.unknown
}

// sums returns the window's totals, and whether the overflows were read at
// every poll.
func (w *refuseWindow) sums() (sum windowPoll, dropsKnown bool) {
	dropsKnown = true
	for _, p := range w.polls {
		sum.arrived += p.arrived
		sum.waited += p.waited
		sum.drops += p.drops
		dropsKnown = dropsKnown && !p.unknown
	}
	return sum, dropsKnown
}

// cpuBound reports whether at least refuseWaitedShare of the reviews over
// the window found every slot taken.
func (w *refuseWindow) cpuBound() bool {
	sum, _ := w.sums()
	return w.b.reviews != nil && sum.cpuBound()
}

// pileUp reports whether the accept queues dropped at least
// refuseDropsPerReview SYNs per review over the window (and refuseMinDrops
// in all).
func (w *refuseWindow) pileUp() bool {
	sum, known := w.sums()
	return w.b.reviews != nil && known && sum.pileUp()
}

func (p windowPoll) cpuBound() bool {
	return p.arrived >= refuseMinReviews && float64(p.waited) >= refuseWaitedShare*float64(p.arrived)
}

func (p windowPoll) pileUp() bool {
	return p.drops >= refuseMinDrops && float64(p.drops) >= refuseDropsPerReview*float64(p.arrived)
}

// Signs (refuseWindow.sign), as the refusal's log line names them.
const (
	signNoCounters    = "no counters: busy connections alone"
	signSlotsSaturate = "reviews wait for slots"
	signDialsPileUp   = "dropped dials pile up"
)

// sign returns the sign that warrants refusing, "" for none. Without the
// counters, or when a poll could not read the overflows, busy connections
// alone decide, as before the signs.
func (w *refuseWindow) sign() string {
	sum, known := w.sums()
	switch {
	case w.b.reviews == nil || !known:
		return signNoCounters
	case sum.cpuBound():
		return signSlotsSaturate
	case sum.pileUp():
		return signDialsPileUp
	}
	return ""
}
