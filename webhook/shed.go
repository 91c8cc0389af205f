package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/sync/semaphore"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"

	"github.com/claimbridge/claimbridge/internal/jsontree"
)

// slotGate bounds the reviews in progress. Reviews are CPU-bound: more of
// them at once than the CPUs can run only makes each one slower and starves
// TLS handshakes and probes. A review waits for one of maxInFlight slots,
// but only if its expected wait (the reviews ahead of it times the recent
// mean review time, divided by the slots) fits into maxWait; otherwise, and
// when the wait runs out after all, it is shed at once with an answer that
// makes kube-apiserver's client retry later (see shedAdmission,
// shedConvert and docs/server.md, "Overload"). A review whose client has gone
// while it waited is dropped without being started.
type slotGate struct {
	slots   chan struct{}
	maxWait time.Duration

	mu      sync.Mutex
	queued  int
	meanDur time.Duration // exponentially weighted mean review time

	// arrived counts the reviews that reached the gate, waited those that
	// found every slot taken (shed or not), for the accept-queue guard
	// (refuseWindow).
	arrived, waited atomic.Uint64

	// memory bounds the estimated decoded memory (decodedCost) of the
	// large reviews in progress to memoryCap; nil: no bound.
	memory    *semaphore.Weighted
	memoryCap int64

	queueGauge   *prometheus.GaugeVec
	runningGauge *prometheus.GaugeVec
	sheds        *prometheus.CounterVec
	shedTime     *prometheus.HistogramVec
}

// RetryAfterSeconds is what a shed review tells the client to wait.
const RetryAfterSeconds = 1

// maxQueued bounds the waiting reviews whatever the mean review time says.
const maxQueued = 1024

// newSlotGate returns a gate of maxInFlight slots whose reviews wait at most
// maxWait, and whose large reviews run within maxMemory of estimated
// decoded memory (0: no bound).
func newSlotGate(maxInFlight int, maxWait time.Duration, maxMemory int64, m *metrics) *slotGate {
	a := &slotGate{
		slots:   make(chan struct{}, maxInFlight),
		maxWait: maxWait,
		queueGauge: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "claimbridge_webhook_queued_reviews",
			Help: "Reviews waiting for a slot (--max-in-flight), by endpoint.",
		}, []string{"endpoint"}),
		runningGauge: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "claimbridge_webhook_running_reviews",
			Help: "Reviews holding a slot (at most --max-in-flight in all), by endpoint.",
		}, []string{"endpoint"}),
		sheds: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "claimbridge_webhook_shed_total",
			Help: "Reviews not started, by endpoint and reason (overloaded: the expected wait exceeds --max-queue-wait; wait_expired: it waited --max-queue-wait; memory: its decoded size found no room within --max-review-memory in --max-queue-wait; too_large: its decoded size alone exceeds --max-review-memory; client_gone: the client left while it waited).",
		}, []string{"endpoint", "reason"}),
		shedTime: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "claimbridge_webhook_shed_duration_seconds",
			Help:    "Time from the handler's start (request headers read) to a shed review's answer, by endpoint and reason (overloaded, wait_expired, memory, too_large).",
			Buckets: []float64{0.0005, 0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5},
		}, []string{"endpoint", "reason"}),
	}
	if maxMemory > 0 {
		a.memory, a.memoryCap = semaphore.NewWeighted(maxMemory), maxMemory
	}
	if m != nil {
		m.registry.MustRegister(a.queueGauge, a.runningGauge, a.sheds, a.shedTime)
	}
	return a
}

// Shed reasons.
const (
	shedOverloaded  = "overloaded"
	shedWaitExpired = "wait_expired"
	shedClientGone  = "client_gone"
	// shedMemory: no room within the decoded-memory bound in time (429);
	// shedTooLarge: the review alone exceeds the bound (413, not retried).
	shedMemory   = "memory"
	shedTooLarge = "too_large"
)

// shedReasons are the reason label values of claimbridge_webhook_shed_total
// and claimbridge_webhook_shed_duration_seconds (docs/server.md, "Metrics").
var shedReasons = []string{shedOverloaded, shedWaitExpired, shedClientGone, shedMemory, shedTooLarge}

// wrap runs next in a slot; shed answers a review that gets none. The body
// (up to maxBytes+1) is read before a slot is taken, so that a client that
// sends slowly holds a connection, not a slot; next reads it as sent. A
// large body also waits for room within the decoded-memory bound
// (reviewmemory.go) before its slot, and one that could never fit is
// answered at once (shed with shedTooLarge). With the bound, a body
// announced larger than costScanMin (or chunked) first takes the weight of
// its bytes (rawWeight) before it is read ahead, so that the bodies read
// ahead are within the bound too, and then what its decoding needs beyond
// that (a chunked body, weighed as its cap, keeps only its estimate once
// read); one shed before it is read (no room for its bytes, or announced
// too long to ever fit) is answered from its head alone (readHead), its
// connection closed rather than the body drained.
//
// A request the handler refuses by its headers alone (refused: the method,
// the content type, an announced body over the cap, a missing client
// certificate) goes to it at once, without a slot and without its body
// being read: the refusal reads nothing, and with `Expect: 100-continue` the
// client is not even asked for the body.
func (a *slotGate) wrap(endpoint string, maxBytes int64, refused func(*http.Request) bool, shed func(w http.ResponseWriter, r *http.Request, reason string), next http.Handler) http.Handler {
	queued, running := a.queueGauge.WithLabelValues(endpoint), a.runningGauge.WithLabelValues(endpoint)
	// Every shed series exists from the start at 0, so that rate() and the
	// ClaimbridgeShedding alert see the first shed.
	for _, reason := range shedReasons {
		a.sheds.WithLabelValues(endpoint, reason)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if refused(r) {
			next.ServeHTTP(w, r)
			return
		}
		begin := time.Now()
		notStarted := func(reason string) {
			a.sheds.WithLabelValues(endpoint, reason).Inc()
			if reason != shedClientGone {
				shed(w, r, reason)
				a.shedTime.WithLabelValues(endpoint, reason).Observe(time.Since(begin).Seconds())
			}
		}
		// A large or chunked body takes memory for its bytes before they
		// are read (rawWeight); one announced too large to ever fit is
		// refused unread. Either shed answers from the body's head alone.
		var held int64
		defer func() { a.release(held) }()
		if raw, reason := a.rawWeight(r, maxBytes); reason != "" || raw > 0 {
			if reason == "" {
				reason = a.waitMemory(r, raw)
			}
			if reason != "" {
				a.arrived.Add(1)
				r.Body = unreadBody{r.Body}
				w.Header().Set("Connection", "close") // the body stays unread: no draining it after the answer
				notStarted(reason)
				return
			}
			held = raw
		}
		prefetchBody(r, maxBytes, begin)
		a.arrived.Add(1)
		cost := a.cost(r)
		if held > cost && readWhole(r) {
			// A chunked body weighed as its cap, read and found
			// smaller: its review keeps its estimate only.
			a.release(held - cost)
			held = cost
		}
		if cost > held {
			reason := shedTooLarge
			switch {
			case cost > a.memoryCap:
			case a.memory.TryAcquire(cost - held): // beyond what its bytes took
				reason = ""
			default:
				// No holding while waiting: reviews that hold their bytes'
				// weight and wait for the rest would starve one another
				// until shed. It gives its bytes' weight back and waits for
				// the whole estimate in turn; bodies that arrive later wait
				// behind it for the weight of theirs (the bound's waiters
				// are served in order), so that few bodies are held
				// unweighed while they wait.
				a.release(held)
				held = 0
				reason = a.waitMemory(r, cost)
			}
			if reason != "" {
				notStarted(reason)
				return
			}
			held = cost
		}
		select {
		case a.slots <- struct{}{}: // a free slot: no wait
		default:
			a.waited.Add(1)
			if reason := a.wait(r, queued); reason != "" {
				notStarted(reason)
				return
			}
		}
		running.Inc()
		start := time.Now()
		defer func() {
			a.observe(time.Since(start))
			running.Dec()
			<-a.slots
		}()
		next.ServeHTTP(w, r)
	})
}

// cost is the estimated decoded memory of r's body read ahead
// (decodedCost), kept with it for the answer's message; 0 without a bound,
// for a small body, and for one that was not read whole (its handler
// refuses it).
func (a *slotGate) cost(r *http.Request) int64 {
	p, ok := r.Body.(*prefetchedBody)
	if a.memory == nil || !ok || p.err != nil {
		return 0
	}
	p.cost = decodedCost(p.data)
	return p.cost
}

// readWhole reports whether r's body was read ahead to its end.
func readWhole(r *http.Request) bool {
	p, ok := r.Body.(*prefetchedBody)
	return ok && p.err == nil
}

// rawWeight is what r's body takes from the decoded-memory bound before it
// is read ahead: 0 without a bound and for a body announced at most
// costScanMin (the small reviews' path: no weight, no scan), else twice
// the announced length (readBody's buffers while the bytes arrive; a
// chunked body, of unknown length, weighs as maxBytes+1), at most the whole
// bound. A body announced so long that decodedCost, at least bytesPerByte
// a byte, could never fit is refused by it (shedTooLarge), unread.
func (a *slotGate) rawWeight(r *http.Request, maxBytes int64) (int64, string) {
	n := r.ContentLength
	if a.memory == nil || r.Body == nil || r.Body == http.NoBody || n >= 0 && n <= costScanMin {
		return 0, ""
	}
	if n > a.memoryCap/bytesPerByte {
		return 0, shedTooLarge
	}
	if n < 0 {
		n = maxBytes + 1
	}
	return min(2*n, a.memoryCap), ""
}

// release gives held back to the decoded-memory bound.
func (a *slotGate) release(held int64) {
	if held > 0 {
		a.memory.Release(held)
	}
}

// waitMemory takes cost from the decoded-memory bound and returns "", or
// returns why not: shedTooLarge when cost alone exceeds it, shedMemory when
// no room was made within maxWait, shedClientGone. cost is all a review
// needs, or what it needs beyond the weight of its bytes read ahead.
func (a *slotGate) waitMemory(r *http.Request, cost int64) string {
	if cost > a.memoryCap {
		return shedTooLarge
	}
	if a.memory.TryAcquire(cost) {
		return ""
	}
	ctx, cancel := context.WithTimeout(r.Context(), a.maxWait)
	defer cancel()
	if err := a.memory.Acquire(ctx, cost); err != nil {
		if r.Context().Err() != nil {
			return shedClientGone
		}
		return shedMemory
	}
	return ""
}

// arrival is when r arrived at the slot gate (its headers read), kept
// with its read-ahead body, or now for a request that did not pass the gate
// (refused by its headers, or a handler used alone in tests). The handlers
// measure claimbridge_webhook_request_duration_seconds and the review's
// deadline from it, so that the body's read and the wait for a slot count,
// as they do for the apiserver waiting for the answer.
func arrival(r *http.Request) time.Time {
	if p, ok := r.Body.(*prefetchedBody); ok {
		return p.arrived
	}
	return time.Now()
}

// prefetchBody replaces r.Body by what it yields up to maxBytes+1 bytes,
// followed by the read error if there was one (the handler's own limits
// and errors apply unchanged). The bytes are read into a buffer grown as
// they arrive up to the announced length (readBody), which readReview then
// takes as the body instead of copying it (a body is held once).
func prefetchBody(r *http.Request, maxBytes int64, arrived time.Time) {
	if r.Body == nil || r.Body == http.NoBody || r.ContentLength > maxBytes {
		return
	}
	data, err := readBody(io.LimitReader(r.Body, maxBytes+1), r.ContentLength)
	r.Body = &prefetchedBody{data: data, err: err, rest: bytes.NewReader(data), arrived: arrived}
}

// prefetchedBody is a request body read ahead of its handler: data, then
// err (nil for a body read to its end).
type prefetchedBody struct {
	data    []byte
	err     error
	rest    *bytes.Reader
	arrived time.Time
	cost    int64 // decodedCost(data), set by the slot gate when it bounds memory
}

func (p *prefetchedBody) Read(b []byte) (int, error) {
	n, err := p.rest.Read(b)
	if err == io.EOF && p.err != nil {
		return n, p.err
	}
	return n, err
}

func (p *prefetchedBody) Close() error { return nil }

// whole returns the body when it was read to its end within maxBytes and
// not yet read from, for readReview to take as it is.
func (p *prefetchedBody) whole(maxBytes int64) ([]byte, bool) {
	if p.err != nil || int64(len(p.data)) > maxBytes || p.rest.Len() != len(p.data) {
		return nil, false
	}
	p.rest.Reset(nil)
	return p.data, true
}

// wait queues r for a slot and returns "" once it holds one, or why not.
func (a *slotGate) wait(r *http.Request, gauge prometheus.Gauge) string {
	a.mu.Lock()
	ahead, mean := a.queued, a.meanDur
	expected := time.Duration(ahead+1) * mean / time.Duration(cap(a.slots))
	if expected > a.maxWait || ahead >= maxQueued {
		a.mu.Unlock()
		return shedOverloaded
	}
	a.queued++
	a.mu.Unlock()
	gauge.Inc()
	defer func() {
		a.mu.Lock()
		a.queued--
		a.mu.Unlock()
		gauge.Dec()
	}()
	timer := time.NewTimer(a.maxWait)
	defer timer.Stop()
	select {
	case a.slots <- struct{}{}:
		return ""
	case <-timer.C:
		return shedWaitExpired
	case <-r.Context().Done():
		return shedClientGone
	}
}

// observe folds one review time into the mean (weight 1/16).
func (a *slotGate) observe(d time.Duration) {
	a.mu.Lock()
	if a.meanDur == 0 {
		a.meanDur = d
	} else {
		a.meanDur += (d - a.meanDur) / 16
	}
	a.mu.Unlock()
}

// counts returns the reviews that reached the gate and those that found
// every slot taken, since the start.
func (a *slotGate) counts() (arrived, waited uint64) {
	return a.arrived.Load(), a.waited.Load()
}

// state returns the waiting and running reviews.
func (a *slotGate) state() (queued, running int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.queued, len(a.slots)
}

func (a *slotGate) overloadMessage(reason string) string {
	if reason == shedMemory {
		return fmt.Sprintf("claimbridge webhook overloaded (memory: large reviews in progress hold the %d MiB of --max-review-memory); retry after %ds",
			a.memoryCap>>20, RetryAfterSeconds)
	}
	queued, running := a.state()
	return fmt.Sprintf("claimbridge webhook overloaded (%s: %d reviews running, %d waiting); retry after %ds",
		reason, running, queued, RetryAfterSeconds)
}

// tooLargeMessage says why r's body is refused (shedTooLarge).
func (a *slotGate) tooLargeMessage(r *http.Request) string {
	size, cost := r.ContentLength, int64(0)
	if p, ok := r.Body.(*prefetchedBody); ok {
		size, cost = int64(len(p.data)), p.cost // as read: a chunked body announces no length (-1)
	}
	if cost == 0 { // refused by its announced length, unread
		return fmt.Sprintf("request body of %d bytes is estimated at %d MiB or more when decoded and checked, more than --max-review-memory allows (%d MiB)",
			size, (size*bytesPerByte+1<<20-1)>>20, a.memoryCap>>20)
	}
	return fmt.Sprintf("request body of %d bytes is estimated at %d MiB when decoded and checked, more than --max-review-memory allows (%d MiB)",
		size, (cost+1<<20-1)>>20, a.memoryCap>>20)
}

// shedConvert answers a ConversionReview that gets no slot with HTTP 429
// and Retry-After: kube-apiserver's REST client waits that long and sends
// the review again (client-go rest retries a 429 or 5xx that carries
// Retry-After, up to 10 times within the request's deadline), while a
// conversion failure would fail the client's read or write at once. The
// body is not read: shedding costs no decoding.
func (a *slotGate) shedConvert(w http.ResponseWriter, r *http.Request, reason string) {
	if reason == shedTooLarge {
		// Not retried: the same review would be refused again.
		http.Error(w, a.tooLargeMessage(r), http.StatusRequestEntityTooLarge)
		klog.FromContext(r.Context()).V(2).Info("Refused review", "endpoint", "/convert", "reason", reason)
		return
	}
	w.Header().Set("Retry-After", strconv.Itoa(RetryAfterSeconds))
	http.Error(w, a.overloadMessage(reason), http.StatusTooManyRequests)
	klog.FromContext(r.Context()).V(2).Info("Shed review", "endpoint", "/convert", "reason", reason)
}

// shedAdmission answers an AdmissionReview that gets no slot with a denial
// of code 429, reason TooManyRequests and retryAfterSeconds: kube-apiserver
// passes the status to the client as it is, with a Retry-After header, so
// that client-go retries the write itself. A denial, never an HTTP error:
// with failurePolicy Ignore an HTTP error would admit the write unvalidated.
// Only the review's apiVersion and uid are decoded; of a body shed before it
// was read (unreadBody), only the first headPrefix bytes are read at most.
// A review that cannot be read, or whose head is not in that prefix, gets
// the plain 429 (413) of shedConvert.
func (a *slotGate) shedAdmission(endpoint string, maxBytes int64, maxDepth int) func(w http.ResponseWriter, r *http.Request, reason string) {
	return func(w http.ResponseWriter, r *http.Request, reason string) {
		a.shedReview(w, r, endpoint, reason, maxBytes, maxDepth)
	}
}

func (a *slotGate) shedReview(w http.ResponseWriter, r *http.Request, endpoint, reason string, maxBytes int64, maxDepth int) {
	log := klog.FromContext(r.Context()).WithValues("endpoint", endpoint)
	var head reviewHead
	var ok bool
	if u, unread := r.Body.(unreadBody); unread {
		head, ok = readHead(u.ReadCloser) // shed before its body was read: its head only
	} else {
		// Read without the depth check: a review nested deeper than
		// --max-json-depth (which kube-apiserver sends for a claim whose
		// opaque parameters nest that deep) gets the denial too, from its
		// head, for the recursive scan would follow its depth.
		body, herr := readReview(w, r, maxBytes, 0)
		switch {
		case herr != nil && herr.code == http.StatusRequestEntityTooLarge:
			head, ok = headOf(body) // sent chunked: read up to the cap
		case herr != nil:
		case maxDepth > 0 && checkBodyDepth(body, maxDepth) != nil:
			head, ok = headOf(body)
		default:
			ok = head.scan(body)
		}
	}
	if !ok || head.uid == "" || !isAdmissionReview(head) {
		a.shedConvert(w, r, reason)
		return
	}
	resp := &admissionv1.AdmissionResponse{UID: types.UID(head.uid), Result: &metav1.Status{
		Status: metav1.StatusFailure, Code: http.StatusTooManyRequests, Reason: metav1.StatusReasonTooManyRequests,
		Message: a.overloadMessage(reason), Details: &metav1.StatusDetails{RetryAfterSeconds: RetryAfterSeconds},
	}}
	if reason == shedTooLarge { // a denial that is not retried
		resp.Result = &metav1.Status{Status: metav1.StatusFailure, Code: http.StatusRequestEntityTooLarge,
			Reason: metav1.StatusReasonRequestEntityTooLarge, Message: a.tooLargeMessage(r)}
	}
	log.V(2).Info("Shed review", "uid", logString(head.uid), "reason", reason)
	writeJSON(w, log, &admissionv1.AdmissionReview{TypeMeta: metav1.TypeMeta{APIVersion: head.apiVersion, Kind: head.kind}, Response: resp})
}

// reviewHead is what a shed answer echoes of an AdmissionReview.
type reviewHead struct {
	apiVersion, kind, uid string
}

// scan reads apiVersion, kind and request.uid of a review body without
// decoding the rest (the objects are skipped, not parsed: shedding stays
// cheap under overload). As encoding/json decodes into the review's
// structs, keys match without regard to case, a repeated key counts with
// its last value, and a repeated request object adds to the one before (a
// null request ends it); a key written with escapes is not recognised. It
// reports false when body is not one JSON object the scanner can follow or
// one of the three is present but not a string.
func (h *reviewHead) scan(body []byte) bool {
	ok := true
	str := func(span []byte, into *string) {
		if err := json.Unmarshal(span, into); err != nil {
			ok = false
		}
	}
	end := jsontree.ScanObject(body, 0, func(key []byte, start, end int) {
		switch {
		case bytes.EqualFold(key, []byte("apiVersion")):
			str(body[start:end], &h.apiVersion)
		case bytes.EqualFold(key, []byte("kind")):
			str(body[start:end], &h.kind)
		case bytes.EqualFold(key, []byte("request")):
			if body[start] == 'n' { // null
				h.uid = ""
				return
			}
			if jsontree.ScanObject(body, start, func(key []byte, s, e int) {
				if bytes.EqualFold(key, []byte("uid")) {
					str(body[s:e], &h.uid)
				}
			}) < 0 {
				ok = false
			}
		}
	})
	return ok && end >= 0 && len(bytes.TrimSpace(body[end:])) == 0
}
