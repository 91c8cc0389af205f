package webhook

// Refusing connections needs overload, not only clients without a
// connection to spare.
//
// On a fast machine an open-loop client at half the capacity of a cheap
// review (conversions at 8,000–11,000/s) keeps all 32 connections busy
// between its requests for a second and more, and the guard, seeing no
// connection to spare, refused dials the CPUs had room for: 96–616 failed
// requests in 3 s phases at half capacity (docs/performance-log.md, "Runs on
// a fast host"). What differs at twice the capacity is how many dials the
// short accept queue drops: every surplus request of such a client dials,
// so the SYNs dropped per review answered are about one or more, where
// below capacity only bursts dial. Measured over 1 s on the same machine:
// 0.33–0.44 overflows per review in a conversion phase at half capacity
// (9,864/s, SYNs retransmitted after 1 s and dropped again included), 1.66
// in the first second of the 2× step. The server's own queues cannot tell the
// two apart when the clients share its CPUs (the review slots were free in
// both), nor can the CPU pressure reliably (same section).

// refuseDropsPerReview is the listen overflows per review reaching the slot
// gate, over the last refuseAfter, from which refusing is warranted.
const refuseDropsPerReview = 0.8

// dropWindow keeps, per poll of restoreWhenCalm, the listen overflows and
// the reviews since the poll before, for the last refuseAfter.
type dropWindow struct {
	b                  *overloadBacklog
	n                  int // polls kept
	drops, reviews     []uint64
	unknown            []bool
	lastDrops, lastRev uint64
	lastOK             bool
}

func (b *overloadBacklog) newDropWindow() *dropWindow {
	w := &dropWindow{b: b, n: max(1, int(b.refuseAfter/b.poll))}
	if b.reviews != nil && b.overflows != nil {
		w.lastDrops, w.lastOK = b.overflows()
		w.lastRev = b.reviews()
	}
	return w
}

// add records the poll that has just passed.
func (w *dropWindow) add() {
	if w.b.reviews == nil || w.b.overflows == nil {
		return
	}
	d, ok := w.b.overflows()
	r := w.b.reviews()
	known := ok && w.lastOK && d >= w.lastDrops
	var dd uint64
	if known {
		dd = d - w.lastDrops
	}
	w.drops = append(w.drops, dd)
	w.reviews = append(w.reviews, r-w.lastRev)
	w.unknown = append(w.unknown, !known)
	if len(w.drops) > w.n {
		w.drops, w.reviews, w.unknown = w.drops[1:], w.reviews[1:], w.unknown[1:]
	}
	w.lastDrops, w.lastRev, w.lastOK = d, r, ok
}

// warranted reports whether the overflows per review over the window reach
// refuseDropsPerReview; true when they cannot be known (no counter, a poll
// that could not read it, no review at all), as connections alone decided
// before.
func (w *dropWindow) warranted() bool {
	if w.b.reviews == nil || w.b.overflows == nil {
		return true
	}
	var drops, reviews uint64
	for i := range w.drops {
		if w.unknown[i] {
			return true
		}
		drops += w.drops[i]
		reviews += w.reviews[i]
	}
	return reviews == 0 || float64(drops) >= refuseDropsPerReview*float64(reviews)
}
