package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// blockedServer runs a server with one slot whose validator blocks until
// release is closed; entered receives once per validation started.
func blockedServer(t *testing.T, maxWait time.Duration) (ts *testServer, entered chan struct{}, release chan struct{}) {
	t.Helper()
	return blockingServer(t, func(o *Config) { o.MaxInFlight, o.MaxQueueWait = 1, maxWait })
}

// blockingServer runs a server configured by mutate whose validator blocks
// until release is closed; entered receives once per validation started.
func blockingServer(t *testing.T, mutate func(*Config)) (ts *testServer, entered chan struct{}, release chan struct{}) {
	t.Helper()
	entered, release = make(chan struct{}, 16), make(chan struct{})
	ts = startServer(t, func(o *Config) {
		mutate(o)
		o.Validator = func(ValidationRequest) (ValidationResponse, error) {
			entered <- struct{}{}
			<-release
			return ValidationResponse{}, nil
		}
	})
	closeOnCleanup(t, release)
	return ts, entered, release
}

// occupy sends one review that takes the only slot and waits until it runs.
func occupy(t *testing.T, ts *testServer, c *http.Client, entered chan struct{}) chan error {
	t.Helper()
	return occupyWith(t, ts, c, entered, admissionReview("admission.k8s.io/v1", claimRequest(t, admissionv1.Create, "v1alpha3", "")))
}

// occupyWith sends review to /validate and waits until its validation runs
// (blocked until the test releases it); the channel gets nil once it was
// allowed.
func occupyWith(t *testing.T, ts *testServer, c *http.Client, entered chan struct{}, review []byte) chan error {
	t.Helper()
	done := sendAllowed(c, ts.url("/validate"), review)
	<-entered
	return done
}

// sendAllowed posts review to url in the background; the channel gets nil
// once it was allowed, else the error or the answer.
func sendAllowed(c *http.Client, url string, review []byte) chan error {
	done := make(chan error, 1)
	go func() {
		resp, body, err := postJSON(c, url, review)
		if err == nil && (resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"allowed":true`)) {
			err = &httpError{code: resp.StatusCode, msg: string(body)}
		}
		done <- err
	}()
	return done
}

// closeOnCleanup closes release when the test ends unless it was closed.
func closeOnCleanup(t *testing.T, release chan struct{}) {
	t.Cleanup(func() {
		select {
		case <-release:
		default:
			close(release)
		}
	})
}

// With the only slot taken and a queue whose expected wait exceeds
// --max-queue-wait, reviews are answered at once with the chosen overload
// answers, and the probes keep answering.
func TestShedWhenQueueFull(t *testing.T) {
	ts, entered, release := blockedServer(t, time.Minute)
	c := ts.client(t, nil)
	first := occupy(t, ts, c, entered)
	// The mean review time says one review takes two minutes: any review
	// that would wait has an expected wait above the one-minute limit.
	ts.admission.observe(2 * time.Minute)

	// /validate: a denial with code 429 and retryAfterSeconds, uid echoed.
	for _, rv := range []string{"admission.k8s.io/v1", "admission.k8s.io/v1beta1"} {
		start := time.Now()
		resp, body, err := postJSON(c, ts.url("/validate"), admissionReview(rv, claimRequest(t, admissionv1.Update, "v1alpha3", "status")))
		if err != nil {
			t.Fatal(err)
		}
		if time.Since(start) > 10*time.Second {
			t.Errorf("%s: shed after %v, want at once", rv, time.Since(start))
		}
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: status %d: %s", rv, resp.StatusCode, body)
		}
		var out admissionv1.AdmissionReview
		if err := json.Unmarshal(body, &out); err != nil {
			t.Fatal(err)
		}
		got := out.Response
		want := &admissionv1.AdmissionResponse{UID: "req-uid", Allowed: false, Result: &metav1.Status{
			Status: metav1.StatusFailure, Code: 429, Reason: metav1.StatusReasonTooManyRequests,
			Message: "claimbridge webhook overloaded (overloaded: 1 reviews running, 0 waiting); retry after 1s",
			Details: &metav1.StatusDetails{RetryAfterSeconds: 1},
		}}
		if diff := cmp.Diff(want, got); diff != "" || out.APIVersion != rv || out.Kind != "AdmissionReview" {
			t.Errorf("%s: response %s %s (-want +got):\n%s", rv, out.Kind, out.APIVersion, diff)
		}
	}

	// /convert: HTTP 429 with Retry-After, which client-go retries.
	resp, body, err := postJSON(c, ts.url("/convert"), conversionReview("apiextensions.k8s.io/v1", "u", Group+"/v1alpha1", fixture(t, "v1alpha3")))
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") != "1" {
		t.Errorf("convert: status %d, Retry-After %q: %s", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}

	// An unreadable review on /validate gets the plain 429 too.
	resp, _, err = postJSON(c, ts.url("/validate"), []byte(`{"not":"a review"}`))
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusTooManyRequests {
		t.Errorf("unreadable review: status %d, want 429", resp.StatusCode)
	}

	// The probes answer while every slot is taken.
	for _, path := range []string{"/healthz", "/readyz"} {
		if code := mustGet(t, "http://"+ts.HealthAddr().String()+path); code != http.StatusOK {
			t.Errorf("%s: %d", path, code)
		}
	}

	for endpoint, want := range map[string]float64{"/validate": 3, "/convert": 1} {
		if got := value(t, ts.admission.sheds.WithLabelValues(endpoint, shedOverloaded)); got != want {
			t.Errorf("%s sheds: %v, want %v", endpoint, got, want)
		}
		if got, _ := histogram(t, ts.admission.shedTime, endpoint, shedOverloaded); got != uint64(want) {
			t.Errorf("%s shed durations observed: %d, want %v", endpoint, got, want)
		}
	}
	if got := value(t, ts.admission.runningGauge.WithLabelValues("/validate")); got != 1 {
		t.Errorf("running reviews: %v, want 1", got)
	}
	close(release)
	if err := <-first; err != nil {
		t.Errorf("the review that held the slot: %v", err)
	}
	if len(entered) != 0 {
		t.Errorf("%d shed reviews were validated", len(entered))
	}
}

// A review that waits longer than --max-queue-wait is shed.
func TestShedQueueWait(t *testing.T) {
	ts, entered, release := blockedServer(t, 200*time.Millisecond)
	c := ts.client(t, nil)
	first := occupy(t, ts, c, entered)

	// No review has finished yet, so the expected wait is zero: it queues,
	// waits 200ms and is shed.
	resp, body, err := postJSON(c, ts.url("/convert"), conversionReview("apiextensions.k8s.io/v1", "u", Group+"/v1alpha1", fixture(t, "v1alpha3")))
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusTooManyRequests {
		t.Errorf("convert after waiting: status %d: %s", resp.StatusCode, body)
	}
	if got := value(t, ts.admission.sheds.WithLabelValues("/convert", shedWaitExpired)); got != 1 {
		t.Errorf("wait_expired sheds: %v, want 1", got)
	}
	if n, sum := histogram(t, ts.admission.shedTime, "/convert", shedWaitExpired); n != 1 || sum < 0.2 {
		t.Errorf("wait_expired shed durations: %d observed, sum %vs; want 1 of at least the 0.2s waited", n, sum)
	}

	close(release)
	if err := <-first; err != nil {
		t.Error(err)
	}
}

// A review whose client leaves while it waits is never started; a queued
// review runs once the slot frees.
func TestShedClientGoneAndQueued(t *testing.T) {
	ts, entered, release := blockedServer(t, time.Minute)
	c := ts.client(t, nil)
	first := occupy(t, ts, c, entered)

	// A client that gives up while queued: its review is never validated.
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, ts.url("/validate"),
		strings.NewReader(string(admissionReview("admission.k8s.io/v1", claimRequest(t, admissionv1.Create, "v1alpha3", "")))))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	gone := make(chan error, 1)
	go func() {
		resp, err := c.Do(req)
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		gone <- err
	}()
	eventually(t, "the review to queue", func() bool {
		return value(t, ts.admission.queueGauge.WithLabelValues("/validate")) == 1
	})
	cancel()
	if err := <-gone; err == nil {
		t.Error("the cancelled request succeeded")
	}
	eventually(t, "the client_gone shed", func() bool {
		return value(t, ts.admission.sheds.WithLabelValues("/validate", shedClientGone)) == 1
	})

	// A queued review runs once the slot frees.
	queued := make(chan error, 1)
	go func() {
		resp, body, err := postJSON(c, ts.url("/validate"), admissionReview("admission.k8s.io/v1", claimRequest(t, admissionv1.Create, "v1alpha3", "")))
		if err == nil && (resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"allowed":true`)) {
			err = &httpError{code: resp.StatusCode, msg: string(body)}
		}
		queued <- err
	}()
	eventually(t, "the review to queue", func() bool {
		return value(t, ts.admission.queueGauge.WithLabelValues("/validate")) == 1
	})
	time.Sleep(300 * time.Millisecond) // the queued review waits at least this long
	close(release)
	for _, ch := range []chan error{first, queued} {
		if err := <-ch; err != nil {
			t.Error(err)
		}
	}
	if got := len(entered); got != 1 { // the queued one; the first was drained by occupy
		t.Errorf("validations after the first: %d, want 1", got)
	}
	// Both reviews took at least the 0.3 s as the apiserver saw them: the
	// first blocked in its handler, the queued one waiting for its slot,
	// which claimbridge_webhook_request_duration_seconds counts (it would
	// not see a queue otherwise). Bucket 0.256 s holds neither.
	var m dto.Metric
	if err := ts.metrics.duration.WithLabelValues("/validate", "allowed").(prometheus.Metric).Write(&m); err != nil {
		t.Fatal(err)
	}
	for _, b := range m.Histogram.GetBucket() {
		if b.GetUpperBound() == 0.256 && b.GetCumulativeCount() != 0 {
			t.Errorf("%d of %d allowed reviews took at most 0.256 s; want none: the wait for a slot is part of a review's duration", b.GetCumulativeCount(), m.Histogram.GetSampleCount())
		}
	}
}

// histogram reads the sample count and sum of one series of h.
func histogram(t *testing.T, h *prometheus.HistogramVec, labels ...string) (uint64, float64) {
	t.Helper()
	var out dto.Metric
	if err := h.WithLabelValues(labels...).(prometheus.Metric).Write(&out); err != nil {
		t.Fatal(err)
	}
	return out.Histogram.GetSampleCount(), out.Histogram.GetSampleSum()
}

// value reads a gauge or counter.
func value(t *testing.T, m prometheus.Metric) float64 {
	t.Helper()
	var out dto.Metric
	if err := m.Write(&out); err != nil {
		t.Fatal(err)
	}
	if out.Gauge != nil {
		return out.Gauge.GetValue()
	}
	return out.Counter.GetValue()
}

// A shed answer echoes apiVersion, kind and request.uid, read without
// decoding the objects; whatever the scan cannot read gets the plain 429.
func TestReviewHeadScan(t *testing.T) {
	full := string(admissionReview("admission.k8s.io/v1", claimRequest(t, admissionv1.Update, "v1alpha3", "status")))
	for _, tc := range []struct {
		name, body string
		want       reviewHead
		ok         bool
	}{
		{name: "a real review", body: full, want: reviewHead{apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", uid: "req-uid"}, ok: true},
		{name: "whitespace", body: " {\n \"kind\" : \"K\" , \"request\" : { \"uid\" : \"u\\u0031\" } }\n", want: reviewHead{kind: "K", uid: "u1"}, ok: true},
		{name: "last key wins; a repeated request adds to the one before", body: `{"kind":"A","kind":"B","request":{"uid":"1"},"request":{"x":{"uid":"2"}}}`, want: reviewHead{kind: "B", uid: "1"}, ok: true},
		{name: "a later uid in a repeated request", body: `{"request":{"uid":"1"},"request":{"uid":"2"}}`, want: reviewHead{uid: "2"}, ok: true},
		{name: "a null request ends the one before", body: `{"request":{"uid":"1"},"request":null}`, want: reviewHead{}, ok: true},
		{name: "keys without regard to case", body: `{"APIVERSION":"v","Kind":"K","Request":{"UID":"u"}}`, want: reviewHead{apiVersion: "v", kind: "K", uid: "u"}, ok: true},
		{name: "nested uid is not the request's", body: `{"request":{"object":{"metadata":{"uid":"o"}},"uid":"r"}}`, want: reviewHead{uid: "r"}, ok: true},
		{name: "null request", body: `{"kind":"K","request":null}`, want: reviewHead{kind: "K"}, ok: true},
		{name: "uid not a string", body: `{"request":{"uid":7}}`},
		{name: "kind not a string", body: `{"kind":["K"]}`},
		{name: "request not an object", body: `{"request":"r"}`},
		{name: "not an object", body: `["AdmissionReview"]`},
		{name: "truncated", body: full[:len(full)/2]},
		{name: "trailing data", body: `{"kind":"K"} {}`},
		{name: "bad string", body: `{"kind":"\x"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got reviewHead
			ok := got.scan([]byte(tc.body))
			if ok != tc.ok || (ok && got != tc.want) {
				t.Errorf("scan = %v %+v, want %v %+v", ok, got, tc.ok, tc.want)
			}
			if !ok {
				return
			}
			// What the full decoding reads of the same body.
			var review admissionv1.AdmissionReview
			if err := json.Unmarshal([]byte(tc.body), &review); err != nil {
				t.Fatalf("encoding/json: %v", err)
			}
			ref := reviewHead{apiVersion: review.APIVersion, kind: review.Kind}
			if review.Request != nil {
				ref.uid = string(review.Request.UID)
			}
			if got != ref {
				t.Errorf("scan = %+v, encoding/json reads %+v", got, ref)
			}
		})
	}
}

// A review that finds every slot taken queues only while its expected wait
// (the reviews ahead and itself × the mean review time ÷ the slots) is
// within maxWait, and at most maxQueued of them queue; one that queues
// leaves the queue and its gauge as it found them. The slot is free here,
// so that a queued review takes it at once.
func TestSlotGateWaitEstimate(t *testing.T) {
	for _, tc := range []struct {
		name   string
		slots  int
		queued int
		mean   time.Duration
		want   string
	}{
		{name: "no review timed yet", slots: 1, want: ""},
		{name: "exactly maxWait", slots: 1, mean: time.Second, want: ""},
		{name: "just over maxWait", slots: 1, mean: time.Second + time.Nanosecond, want: shedOverloaded},
		{name: "the slots share the wait", slots: 2, mean: 2 * time.Second, want: ""},
		{name: "the slots share the wait, just over", slots: 2, mean: 2*time.Second + 2*time.Nanosecond, want: shedOverloaded},
		{name: "the reviews ahead count", slots: 2, queued: 1, mean: time.Second, want: ""},
		{name: "the reviews ahead count, just over", slots: 2, queued: 2, mean: time.Second, want: shedOverloaded},
		{name: "one short of maxQueued", slots: 1, queued: maxQueued - 1, want: ""},
		{name: "maxQueued", slots: 1, queued: maxQueued, want: shedOverloaded},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := newSlotGate(tc.slots, time.Second, 0, nil)
			a.queued, a.meanDur = tc.queued, tc.mean
			gauge := prometheus.NewGauge(prometheus.GaugeOpts{Name: "queued"})
			r := httptest.NewRequest(http.MethodPost, "/validate", nil)
			if got := a.wait(r, gauge); got != tc.want {
				t.Errorf("wait = %q, want %q", got, tc.want)
			}
			wantRunning := 0
			if tc.want == "" {
				wantRunning = 1 // the slot it took
			}
			if queued, running := a.state(); queued != tc.queued || running != wantRunning {
				t.Errorf("after the wait: %d queued, %d running; want %d, %d", queued, running, tc.queued, wantRunning)
			}
			if got := value(t, gauge); got != 0 {
				t.Errorf("queued gauge after the wait: %v, want 0", got)
			}
		})
	}
}

// The mean review time starts at the first review's and then moves by a
// sixteenth of the difference.
func TestSlotGateObserve(t *testing.T) {
	for _, tc := range []struct {
		name string
		durs []time.Duration
		want time.Duration
	}{
		{name: "none", want: 0},
		{name: "the first", durs: []time.Duration{160 * time.Millisecond}, want: 160 * time.Millisecond},
		{name: "longer", durs: []time.Duration{160 * time.Millisecond, 320 * time.Millisecond}, want: 170 * time.Millisecond},
		{name: "shorter", durs: []time.Duration{160 * time.Millisecond, 0}, want: 150 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := newSlotGate(1, time.Second, 0, nil)
			for _, d := range tc.durs {
				a.observe(d)
			}
			if a.meanDur != tc.want {
				t.Errorf("mean = %v, want %v", a.meanDur, tc.want)
			}
		})
	}
}

// The overload message counts the reviews running (slots taken, not the
// slots) and those waiting.
func TestSlotGateOverloadMessage(t *testing.T) {
	a := newSlotGate(4, time.Second, 64<<20, nil)
	a.slots <- struct{}{}
	a.slots <- struct{}{}
	a.queued = 3
	for reason, want := range map[string]string{
		shedOverloaded:  "claimbridge webhook overloaded (overloaded: 2 reviews running, 3 waiting); retry after 1s",
		shedWaitExpired: "claimbridge webhook overloaded (wait_expired: 2 reviews running, 3 waiting); retry after 1s",
		shedMemory:      "claimbridge webhook overloaded (memory: large reviews in progress hold the 64 MiB of --max-review-memory); retry after 1s",
	} {
		if got := a.overloadMessage(reason); got != want {
			t.Errorf("%s: %q, want %q", reason, got, want)
		}
	}
}

// The gate counts the reviews that reach it and those that find every slot
// taken (the refuse window's counters), but not the requests refused by
// their headers; a review runs in a slot, counted by the running gauge, and
// its time goes into the mean.
func TestSlotGateCounts(t *testing.T) {
	a := newSlotGate(1, time.Second, 1<<20, nil)
	var sheds []string
	h := a.wrap("/validate", 1<<20, func(r *http.Request) bool { return r.Method != http.MethodPost },
		func(w http.ResponseWriter, _ *http.Request, reason string) {
			sheds = append(sheds, reason)
			w.WriteHeader(http.StatusTooManyRequests)
		},
		http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method != http.MethodPost {
				return // refused, without a slot
			}
			if got := value(t, a.runningGauge.WithLabelValues("/validate")); got != 1 {
				t.Errorf("running gauge in the handler: %v, want 1", got)
			}
			for start := time.Now(); time.Since(start) == 0; { // a review takes time
			}
		}))
	serve := func(method string, body []byte) {
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(method, "/validate", bytes.NewReader(body)))
	}
	check := func(what string, arrived, waited uint64, shed []string) {
		t.Helper()
		if gotA, gotW := a.counts(); gotA != arrived || gotW != waited {
			t.Errorf("%s: counts %d arrived, %d waited; want %d, %d", what, gotA, gotW, arrived, waited)
		}
		if !slices.Equal(sheds, shed) {
			t.Errorf("%s: shed %q, want %q", what, sheds, shed)
		}
	}

	serve(http.MethodPost, []byte(`{}`))
	check("a review run", 1, 0, nil)
	if got := value(t, a.runningGauge.WithLabelValues("/validate")); got != 0 {
		t.Errorf("running gauge after the review: %v, want 0", got)
	}
	if _, running := a.state(); running != 0 || a.meanDur <= 0 {
		t.Errorf("after the review: %d running, mean %v; want 0 and the review's time", running, a.meanDur)
	}

	serve(http.MethodGet, nil)
	check("a request refused by its headers", 1, 0, nil)

	// Too large to ever fit: shed unread, before the slots.
	serve(http.MethodPost, make([]byte, (1<<20)/bytesPerByte+1))
	check("a review too large", 2, 0, []string{shedTooLarge})

	a.slots <- struct{}{}
	a.meanDur = time.Hour
	serve(http.MethodPost, []byte(`{}`))
	check("a review that finds every slot taken", 3, 1, []string{shedTooLarge, shedOverloaded})
}

// A review queued for a slot that stays taken is shed once maxWait has
// passed, or as soon as its client has gone.
func TestSlotGateWaitEnds(t *testing.T) {
	for _, tc := range []struct {
		name    string
		maxWait time.Duration
		gone    bool
		want    string
	}{
		{name: "the wait runs out", maxWait: 50 * time.Millisecond, want: shedWaitExpired},
		{name: "the client has gone", maxWait: time.Minute, gone: true, want: shedClientGone},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := newSlotGate(1, tc.maxWait, 0, nil)
			a.slots <- struct{}{}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tc.gone {
				cancel()
			}
			r := httptest.NewRequest(http.MethodPost, "/validate", nil).WithContext(ctx)
			start := time.Now()
			done := make(chan string, 1)
			go func() { done <- a.wait(r, prometheus.NewGauge(prometheus.GaugeOpts{Name: "queued"})) }()
			select {
			case got := <-done:
				if got != tc.want {
					t.Errorf("wait = %q, want %q", got, tc.want)
				}
				if waited := time.Since(start); tc.want == shedWaitExpired && waited < tc.maxWait {
					t.Errorf("shed after %v, want after maxWait (%v)", waited, tc.maxWait)
				}
			case <-time.After(20 * time.Second): // a safety net: a wait that does not end fails the test, not hangs it
				t.Fatalf("wait still waiting after 20 s, want %q", tc.want)
			}
		})
	}
}

// A large review's estimate may fill the decoded-memory bound exactly; one
// that finds part of the bound taken waits for the whole estimate and is
// shed when it gets no room (giving back the weight of its bytes once); a
// body announced at the bound's bytes is read and refused by its estimate
// (rounded up to MiB), one announced a byte longer is refused unread (its
// connection closed) as estimated at least bytesPerByte a byte; a
// body of costScanMin bytes takes no weight before it is read; a review
// whose client has gone while it waited for room is dropped unanswered. The
// bound is wholly free after each.
func TestSlotGateMemoryBoundary(t *testing.T) {
	body := []byte(`{"a":"` + strings.Repeat("x", 20<<10) + `"}`)
	n, cost := int64(len(body)), decodedCost(body)
	small := []byte(`{"a":"` + strings.Repeat("x", costScanMin-8) + `"}`)
	for _, tc := range []struct {
		name    string
		body    []byte // the large one if nil
		bound   int64
		taken   int64 // of the bound, by another review
		reason  string
		status  int
		message string // in the answer
		unread  bool   // shed before its body was read: the connection is closed
		gone    bool   // the client has gone
		handled bool   // the handler ran
	}{
		{name: "the estimate fills the bound", bound: cost, handled: true},
		{name: "the estimate fills the bound, a byte of it taken", bound: cost, taken: 1, reason: shedMemory, status: http.StatusTooManyRequests},
		{name: "announced at the bound's bytes", bound: n * bytesPerByte, reason: shedTooLarge, status: http.StatusRequestEntityTooLarge,
			message: fmt.Sprintf("request body of %d bytes is estimated at 1 MiB when decoded and checked, more than --max-review-memory allows (0 MiB)", n)},
		{name: "announced a byte over the bound's bytes", bound: (n - 1) * bytesPerByte, reason: shedTooLarge, status: http.StatusRequestEntityTooLarge, unread: true,
			message: fmt.Sprintf("request body of %d bytes is estimated at 1 MiB or more when decoded and checked, more than --max-review-memory allows (0 MiB)", n)},
		{name: "costScanMin bytes, without room for their weight", body: small, bound: decodedCost(small), taken: decodedCost(small) - 2*costScanMin + 1,
			reason: shedMemory, status: http.StatusTooManyRequests},
		{name: "the client gone while it waits for room", body: small, bound: decodedCost(small), taken: 1, gone: true, reason: shedClientGone},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := newSlotGate(1, 10*time.Millisecond, tc.bound, nil)
			if tc.taken > 0 && !a.memory.TryAcquire(tc.taken) {
				t.Fatal("the bound is taken")
			}
			var answered string
			ran := false
			h := a.wrap("/convert", 1<<20, func(*http.Request) bool { return false },
				func(w http.ResponseWriter, r *http.Request, why string) {
					answered = why
					a.shedConvert(w, r, why)
				},
				http.HandlerFunc(func(http.ResponseWriter, *http.Request) { ran = true }))
			sent := tc.body
			if sent == nil {
				sent = body
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tc.gone {
				cancel()
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/convert", bytes.NewReader(sent)).WithContext(ctx))
			for _, reason := range shedReasons {
				want := 0.0
				if reason == tc.reason {
					want = 1
				}
				if got := value(t, a.sheds.WithLabelValues("/convert", reason)); got != want {
					t.Errorf("%s sheds: %v, want %v", reason, got, want)
				}
			}
			wantAnswered := tc.reason
			if tc.gone {
				wantAnswered = "" // nobody to answer
			}
			if answered != wantAnswered || ran != tc.handled {
				t.Errorf("answered as shed %q, handler ran %v; want %q, %v", answered, ran, wantAnswered, tc.handled)
			}
			if tc.status != 0 && w.Code != tc.status {
				t.Errorf("status %d, want %d: %s", w.Code, tc.status, w.Body)
			}
			if got := w.Header().Get("Connection") == "close"; got != tc.unread {
				t.Errorf("connection closed %v, want %v", got, tc.unread)
			}
			if !strings.Contains(w.Body.String(), tc.message) {
				t.Errorf("answer %q, want %q", w.Body, tc.message)
			}
			a.release(tc.taken)
			if !a.memory.TryAcquire(a.memoryCap) {
				t.Error("the bound is not wholly free")
			}
		})
	}
}

// A large body sent chunked whose read fails goes to its handler, which
// answers the read error, whatever the estimate of the bytes that arrived:
// it takes the weight of its bytes (twice the cap's, as it announced no
// length) and holds it until its handler returns.
func TestSlotGateBodyNotReadWhole(t *testing.T) {
	partial := []byte(`{"a":"` + strings.Repeat("x", 20<<10))
	const maxBytes = 64 << 10
	bound := decodedCost(partial) - 1 // the bytes that arrived, estimated, would not fit
	if bound < 2*(maxBytes+1) {
		t.Fatalf("the bound %d does not hold the weight of a chunked body's bytes", bound)
	}
	a := newSlotGate(1, time.Second, bound, nil)
	var sheds []string
	ran := false
	h := a.wrap("/convert", maxBytes, func(*http.Request) bool { return false },
		func(_ http.ResponseWriter, _ *http.Request, reason string) { sheds = append(sheds, reason) },
		http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
			ran = true
			if _, err := io.ReadAll(r.Body); err == nil || err.Error() != "stalled" {
				t.Errorf("the handler read %v, want the read error", err)
			}
			if free := a.memoryCap - 2*(maxBytes+1); !a.memory.TryAcquire(free) || a.memory.TryAcquire(1) {
				t.Errorf("the bound does not have %d bytes free while the handler runs, want the weight of the body's bytes held", free)
			} else {
				a.memory.Release(free)
			}
		}))
	r := httptest.NewRequest(http.MethodPost, "/convert", io.MultiReader(bytes.NewReader(partial), iotest.ErrReader(errors.New("stalled"))))
	r.ContentLength = -1
	h.ServeHTTP(httptest.NewRecorder(), r)
	if !ran || sheds != nil {
		t.Errorf("handler ran %v, shed %q; want the handler only", ran, sheds)
	}
	if !a.memory.TryAcquire(a.memoryCap) {
		t.Error("the bound is not wholly free")
	}
}

// A shed AdmissionReview is denied, its uid echoed, when the scan of its
// body (or of its head, when it is over the cap or nested deeper than
// --max-json-depth) finds an AdmissionReview of a known version with a uid;
// any other body gets the plain 429 with Retry-After. One too large for the
// decoded-memory bound is denied with 413, not retried.
func TestShedAdmissionAnswers(t *testing.T) {
	review := string(admissionReview("admission.k8s.io/v1", claimRequest(t, admissionv1.Create, "v1alpha3", "")))
	lateUID := `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"object":{"a":"` + strings.Repeat("x", headPrefix) + `"},"uid":"req-uid"}}`
	for _, tc := range []struct {
		name, body, reason string
		chunked            bool // sent without its length
		maxBytes           int64
		maxDepth           int
		code               int32 // of the denial; 0: the plain 429
	}{
		{name: "a review", body: review, reason: shedOverloaded, code: http.StatusTooManyRequests},
		{name: "too large", body: review, reason: shedTooLarge, code: http.StatusRequestEntityTooLarge},
		{name: "no uid", body: `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"operation":"CREATE"}}`, reason: shedOverloaded},
		{name: "not an AdmissionReview", body: `{"apiVersion":"admission.k8s.io/v1","kind":"ConversionReview","request":{"uid":"req-uid"}}`, reason: shedOverloaded},
		{name: "over the cap, sent chunked: its head", body: review, chunked: true, maxBytes: int64(len(review)) - 1, reason: shedOverloaded, code: http.StatusTooManyRequests},
		{name: "uid beyond the head, no depth bound: scanned", body: lateUID, reason: shedOverloaded, code: http.StatusTooManyRequests},
		{name: "uid beyond the head, nested deeper than the bound: its head", body: lateUID, maxDepth: 2, reason: shedOverloaded},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := newSlotGate(1, time.Second, 64<<20, nil)
			maxBytes := tc.maxBytes
			if maxBytes == 0 {
				maxBytes = 1 << 20
			}
			r := httptest.NewRequest(http.MethodPost, "/validate", strings.NewReader(tc.body))
			r.Header.Set("Content-Type", "application/json")
			if tc.chunked {
				r.ContentLength = -1
			}
			w := httptest.NewRecorder()
			a.shedAdmission("/validate", maxBytes, tc.maxDepth)(w, r, tc.reason)
			if tc.code == 0 {
				if w.Code != http.StatusTooManyRequests || w.Header().Get("Retry-After") != "1" {
					t.Errorf("status %d, Retry-After %q, want 429 and 1: %s", w.Code, w.Header().Get("Retry-After"), w.Body)
				}
				return
			}
			var out admissionv1.AdmissionReview
			if err := json.Unmarshal(w.Body.Bytes(), &out); err != nil || w.Code != http.StatusOK {
				t.Fatalf("status %d, %v: %s", w.Code, err, w.Body)
			}
			if got := out.Response; got == nil || got.UID != "req-uid" || got.Allowed || got.Result == nil || got.Result.Code != tc.code {
				t.Errorf("response %+v, want a denial of code %d for req-uid", got, tc.code)
			}
		})
	}
}
