package webhook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/claimbridge/claimbridge/api"
)

// stallingBody yields the first sent bytes of a body, then blocks until
// stop is closed (the test's end): a client that sends a prefix and stalls.
type stallingBody struct {
	data []byte
	stop chan struct{}
	sent atomic.Int64
}

func (b *stallingBody) Read(p []byte) (int, error) {
	if len(b.data) == 0 {
		select {
		case <-b.stop:
		case <-time.After(15 * time.Second): // a safety net: a server that waits for the body fails the test, not hangs it
		}
		return 0, errors.New("stalled")
	}
	n := copy(p, b.data)
	b.data = b.data[n:]
	b.sent.Add(int64(n))
	return n, nil
}

// postStalled posts a request announcing length bytes of which it sends
// only prefix, then stalls until the test ends, and returns the answer.
func postStalled(t *testing.T, c *http.Client, url string, prefix []byte, length int64) (*http.Response, []byte, error) {
	t.Helper()
	body := &stallingBody{data: prefix, stop: make(chan struct{})}
	t.Cleanup(func() { close(body.stop) })
	req, err := http.NewRequest(http.MethodPost, url, body)
	if err != nil {
		t.Fatal(err)
	}
	req.ContentLength = length
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	return resp, out, err
}

// With --max-review-memory, the bodies read ahead are within the bound: a
// body announced too long to ever fit is refused at once, unread; a large
// body that finds no room for its bytes is shed before it is read; both are
// answered from the body's head alone (a client that sends the head and
// stalls gets the answer); small reviews pass all the same, and the weight
// is given back.
func TestReadAheadWithinMemoryBound(t *testing.T) {
	large := largeAdmissionReview(t, admissionv1.Update, "", largeClaim(t, filler("numbers", 20000)))
	cost := decodedCost(large)
	capacity := cost + 64<<10 // room for one, and less than the bytes of another
	ts, entered, release := memoryServer(t, capacity)
	c := ts.client(t, nil)
	c.Timeout = 20 * time.Second // before the change the stalled requests hang in the read ahead
	convertLarge := conversionReview("apiextensions.k8s.io/v1", "u", api.Group+"/v1alpha1", largeClaim(t, filler("numbers", 20000)))
	tooLong := capacity/bytesPerByte + 1

	tooLargeDenial := func(t *testing.T, got *admissionv1.AdmissionResponse) {
		if got.Result == nil || got.Result.Code != http.StatusRequestEntityTooLarge || got.Result.Reason != metav1.StatusReasonRequestEntityTooLarge ||
			got.Result.Details != nil || got.Allowed || got.UID != "req-uid" ||
			!strings.Contains(got.Result.Message, fmt.Sprintf("request body of %d bytes is estimated at %d MiB or more", tooLong, (tooLong*bytesPerByte+1<<20-1)>>20)) {
			t.Errorf("announced too long: %+v", got)
		}
	}
	for _, tc := range []struct {
		name, path string
		prefix     []byte
		length     int64
		check      func(t *testing.T, resp *http.Response, body []byte)
	}{
		{name: "validate announced too long", path: "/validate", prefix: large[:1<<10], length: tooLong,
			check: func(t *testing.T, resp *http.Response, body []byte) {
				tooLargeDenial(t, admissionResponse(t, resp, body))
			}},
		{name: "validate announced too long, no uid in the head", path: "/validate", prefix: []byte(`{"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","request":{"uid":7,`), length: tooLong,
			check: func(t *testing.T, resp *http.Response, body []byte) {
				if resp.StatusCode != http.StatusRequestEntityTooLarge || resp.Header.Get("Retry-After") != "" {
					t.Errorf("status %d, Retry-After %q: %s", resp.StatusCode, resp.Header.Get("Retry-After"), body)
				}
			}},
		{name: "convert announced too long", path: "/convert", prefix: convertLarge[:1<<10], length: tooLong,
			check: func(t *testing.T, resp *http.Response, body []byte) {
				if resp.StatusCode != http.StatusRequestEntityTooLarge || resp.Header.Get("Retry-After") != "" || !strings.Contains(string(body), "or more when decoded") {
					t.Errorf("status %d, Retry-After %q: %s", resp.StatusCode, resp.Header.Get("Retry-After"), body)
				}
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, body, err := postStalled(t, c, ts.url(tc.path), tc.prefix, tc.length)
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, resp, body)
		})
	}

	// A large review holds the bound.
	first := occupyWith(t, ts, c, entered, large)

	// Another large body finds no room for its bytes: shed unread.
	for _, tc := range []struct {
		name, path string
		body       []byte
		check      func(t *testing.T, resp *http.Response, body []byte)
	}{
		{name: "validate", path: "/validate", body: large, check: func(t *testing.T, resp *http.Response, body []byte) {
			want := &admissionv1.AdmissionResponse{UID: "req-uid", Result: &metav1.Status{
				Status: metav1.StatusFailure, Code: http.StatusTooManyRequests, Reason: metav1.StatusReasonTooManyRequests,
				Message: fmt.Sprintf("claimbridge webhook overloaded (memory: large reviews in progress hold the %d MiB of --max-review-memory); retry after 1s", capacity>>20),
				Details: &metav1.StatusDetails{RetryAfterSeconds: 1},
			}}
			if diff := cmp.Diff(want, admissionResponse(t, resp, body)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		}},
		{name: "convert", path: "/convert", body: convertLarge, check: func(t *testing.T, resp *http.Response, body []byte) {
			if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") != "1" {
				t.Errorf("status %d, Retry-After %q: %s", resp.StatusCode, resp.Header.Get("Retry-After"), body)
			}
		}},
	} {
		t.Run("no room/"+tc.name, func(t *testing.T) {
			resp, body, err := postStalled(t, c, ts.url(tc.path), tc.body[:2<<10], int64(len(tc.body)))
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, resp, body)
		})
	}

	// A small review is not held back.
	small := make(chan error, 1)
	go func() {
		_, _, err := postJSON(c, ts.url("/validate"), admissionReview("admission.k8s.io/v1", claimRequest(t, admissionv1.Create, "v1alpha3", "")))
		small <- err
	}()
	<-entered

	checkSheds(t, ts, shedCount{"/validate", shedMemory, 1}, shedCount{"/validate", shedTooLarge, 2},
		shedCount{"/convert", shedMemory, 1}, shedCount{"/convert", shedTooLarge, 1})
	releaseAll(t, release, entered, first, small)
	assertReleased(t, ts)
}

// assertReleased fails unless the whole bound is free (it is taken and
// handed back in the handler's defers before the answer is written).
func assertReleased(t *testing.T, ts *testServer) {
	t.Helper()
	if !boundFree(ts) {
		t.Fatal("the review-memory bound is not wholly free")
	}
}

// boundFree reports whether the whole review-memory bound is free (and no
// review waits for it), taking nothing.
func boundFree(ts *testServer) bool {
	if !ts.admission.memory.TryAcquire(ts.admission.memoryCap) {
		return false
	}
	ts.admission.memory.Release(ts.admission.memoryCap)
	return true
}

// doInBackground sends req with c and sends the error (nil once an answer
// arrived, whatever it was) to the returned channel.
func doInBackground(c *http.Client, req *http.Request) chan error {
	done := make(chan error, 1)
	go func() {
		resp, err := c.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		done <- err
	}()
	return done
}

// A large body takes the weight of its bytes while they arrive, and gives
// back all it took after a client that left mid-body, a panic, a too-large
// estimate and a client that left while it waited for a slot.
func TestReadAheadWeightReleased(t *testing.T) {
	large := largeAdmissionReview(t, admissionv1.Update, "", largeClaim(t, filler("numbers", 20000)))
	status := largeAdmissionReview(t, admissionv1.Update, "status", largeClaim(t, filler("numbers", 20000)))
	cost := decodedCost(large)
	entered, release := make(chan struct{}, 16), make(chan struct{})
	ts := startServer(t, func(o *Config) {
		o.MaxInFlight, o.MaxQueueWait, o.MaxReviewMemory = 2, time.Minute, cost+64<<10
		o.Validator = func(req ValidationRequest) (ValidationResponse, error) {
			if req.SubResource == "status" {
				panic("validator panics")
			}
			entered <- struct{}{}
			<-release
			return ValidationResponse{}, nil
		}
	})
	closeOnCleanup(t, release)
	c := ts.client(t, nil)
	c.Timeout = 20 * time.Second

	// A client that sends part of a large body and leaves: the weight of
	// its bytes is held while they arrive, and given back.
	ctx, cancel := context.WithCancel(context.Background())
	partial := &stallingBody{data: large[:4<<10], stop: make(chan struct{})}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, ts.url("/validate"), partial)
	if err != nil {
		t.Fatal(err)
	}
	req.ContentLength = int64(len(large))
	req.Header.Set("Content-Type", "application/json")
	gone := doInBackground(c, req)
	eventually(t, "the body's bytes to take their weight", func() bool { return !boundFree(ts) })
	cancel()
	close(partial.stop)
	<-gone
	eventually(t, "the weight of the bytes to be given back", func() bool { return boundFree(ts) })

	// A panic in the handler: the weight is given back as it unwinds.
	h := ts.admission.wrap("/validate", 7<<20, func(*http.Request) bool { return false }, ts.admission.shedConvert,
		http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("handler panics") }))
	r := httptest.NewRequest(http.MethodPost, "/validate", bytes.NewReader(status))
	r.Header.Set("Content-Type", "application/json")
	func() {
		defer func() {
			if recover() == nil {
				t.Error("the handler did not panic")
			}
		}()
		h.ServeHTTP(httptest.NewRecorder(), r)
	}()
	assertReleased(t, ts)

	// Too large once read (within the announced bound, not the estimate).
	huge := largeAdmissionReview(t, admissionv1.Update, "", largeClaim(t, filler("numbers", 40000)))
	resp, body, err := postJSON(c, ts.url("/validate"), huge)
	if err != nil {
		t.Fatal(err)
	}
	if got := admissionResponse(t, resp, body); got.Result == nil || got.Result.Code != http.StatusRequestEntityTooLarge {
		t.Fatalf("too large a review: %+v", got)
	}
	assertReleased(t, ts)

	// A client that leaves while its large review waits for a slot.
	small := admissionReview("admission.k8s.io/v1", claimRequest(t, admissionv1.Create, "v1alpha3", ""))
	done := make(chan error, 2)
	for range 2 {
		go func() {
			_, _, err := postJSON(c, ts.url("/validate"), small)
			done <- err
		}()
		<-entered
	}
	ctx, cancel = context.WithCancel(context.Background())
	req, err = http.NewRequestWithContext(ctx, http.MethodPost, ts.url("/validate"), bytes.NewReader(large))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	gone = doInBackground(c, req)
	eventually(t, "the large review to queue", func() bool {
		return value(t, ts.admission.queueGauge.WithLabelValues("/validate")) == 1
	})
	cancel()
	<-gone
	eventually(t, "the client_gone shed", func() bool {
		return value(t, ts.admission.sheds.WithLabelValues("/validate", shedClientGone)) == 1
	})
	close(release)
	for range 2 {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
	assertReleased(t, ts)
}

// The head of a body cut anywhere: what is complete before the cut counts.
func TestScanHead(t *testing.T) {
	full := string(admissionReview("admission.k8s.io/v1", claimRequest(t, admissionv1.Update, "v1alpha3", "status")))
	uidAt := strings.Index(full, `"req-uid"`)
	requestAt := strings.Index(full, `"request"`)
	all := reviewHead{apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", uid: "req-uid"}
	for _, tc := range []struct {
		name, prefix string
		want         reviewHead
		found        int
		ended, bad   bool
	}{
		{name: "complete", prefix: full, want: all, found: foundAll, ended: true},
		{name: "cut after the uid", prefix: full[:uidAt+len(`"req-uid"`)], want: all, found: foundAll},
		{name: "cut inside the uid", prefix: full[:uidAt+4], want: reviewHead{apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview"}, found: foundAPIVersion | foundKind},
		{name: "cut before request", prefix: full[:requestAt], want: reviewHead{apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview"}, found: foundAPIVersion | foundKind},
		{name: "cut inside a key", prefix: `{"kind":"K","apiVer`, want: reviewHead{kind: "K"}, found: foundKind},
		{name: "cut in a skipped value", prefix: `{"kind":"K","x":{"a":["}",`, want: reviewHead{kind: "K"}, found: foundKind},
		{name: "cut in a number", prefix: `{"kind":"K","x":12`, want: reviewHead{kind: "K"}, found: foundKind},
		{name: "empty", prefix: ``},
		{name: "keys in other case", prefix: `{"KIND":"K","ApiVersion":"v","REQUEST":{"Uid":"u"`, want: reviewHead{apiVersion: "v", kind: "K", uid: "u"}, found: foundAll},
		{name: "escaped strings", prefix: `{"kind":"A\"\u0042","request":{"uid":"\u00e9\\/"}}`, want: reviewHead{kind: `A"B`, uid: `é\/`}, found: foundKind | foundUID, ended: true},
		{name: "escaped key", prefix: `{"\u006bind":"K"}`, want: reviewHead{kind: "K"}, found: foundKind, ended: true},
		{name: "last key wins", prefix: `{"kind":"A","kind":"B","request":{"uid":"1"},"request":{"uid":"2"`, want: reviewHead{kind: "B", uid: "2"}, found: foundKind | foundUID},
		{name: "a null request ends the one before", prefix: `{"request":{"uid":"1"},"request":null,`, want: reviewHead{}},
		{name: "skipped values", prefix: `{"a":[1,{"b":"]"}],"b":true,"c":null,"d":-1.5e3,"request":{"object":{"uid":"o"},"uid":"r"}}`, want: reviewHead{uid: "r"}, found: foundUID, ended: true},
		{name: "uid not a string", prefix: `{"kind":"K","request":{"uid":7,`, want: reviewHead{kind: "K"}, found: foundKind, bad: true},
		{name: "kind not a string", prefix: `{"kind":["K"],`, bad: true},
		{name: "request not an object", prefix: `{"request":"r",`, bad: true},
		{name: "not an object", prefix: `["AdmissionReview",`, bad: true},
		{name: "bad string", prefix: `{"kind":"\x",`, bad: true},
		{name: "no colon", prefix: `{"kind" "K"`, bad: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := scanHead([]byte(tc.prefix))
			want := headScan{reviewHead: tc.want, found: tc.found, ended: tc.ended, bad: tc.bad}
			if tc.bad { // what was read before the error does not matter
				got.reviewHead, got.found, want.reviewHead, want.found = reviewHead{}, 0, reviewHead{}, 0
			}
			if got != want {
				t.Errorf("scanHead = %+v, want %+v", got, want)
			}
		})
	}
}

// readHead reads no further than the head it needs, and at most headPrefix.
func TestReadHead(t *testing.T) {
	full := admissionReview("admission.k8s.io/v1", claimRequest(t, admissionv1.Update, "v1alpha3", "status"))
	body := &stallingBody{data: full, stop: make(chan struct{})}
	close(body.stop)
	h, ok := readHead(iotestOneByte{body})
	if want := (reviewHead{apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", uid: "req-uid"}); !ok || h != want {
		t.Errorf("readHead = %+v %v, want %+v", h, ok, want)
	}
	if end := int64(bytes.Index(full, []byte(`"req-uid"`)) + len(`"req-uid"`)); body.sent.Load() > end+1 {
		t.Errorf("read %d bytes, the head ends at %d", body.sent.Load(), end)
	}

	// A head that never comes: headPrefix bytes at most.
	long := &stallingBody{data: []byte(`{"kind":"AdmissionReview","x":"` + strings.Repeat("x", 4*headPrefix)), stop: make(chan struct{})}
	close(long.stop)
	if _, ok := readHead(long); !ok || long.sent.Load() > headPrefix {
		t.Errorf("readHead read %d bytes (ok %v), want at most %d", long.sent.Load(), ok, headPrefix)
	}
}

// iotestOneByte reads one byte at a time.
type iotestOneByte struct{ r io.Reader }

func (o iotestOneByte) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	return o.r.Read(p[:1])
}

// FuzzScanHead: scanHead never panics, and on a whole review without
// escapes (scanHead decodes escaped keys, reviewHead.scan does not) that
// reviewHead.scan reads it finds what that finds.
func FuzzScanHead(f *testing.F) {
	f.Add([]byte(`{"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","request":{"uid":"u","object":{"a":[1,2,{"b":"\"}"}]}}}`))
	f.Add([]byte(`{"request":null,"KIND":"x","apiVersion":"\u0061"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		h := scanHead(data)
		var whole reviewHead
		if h.ended && !h.bad && bytes.IndexByte(data, '\\') < 0 && whole.scan(data) && h.reviewHead != whole {
			t.Errorf("scanHead %+v, reviewHead.scan %+v", h.reviewHead, whole)
		}
	})
}

// A chunked body weighs as its cap while it arrives; once read, its review
// keeps only its estimate (nothing for a small body), so that the weight
// of bytes it does not have leaves no large review waiting or shed.
func TestReadAheadChunkedKeepsItsEstimate(t *testing.T) {
	large := largeAdmissionReview(t, admissionv1.Update, "", largeClaim(t, filler("numbers", 20000)))
	cost := decodedCost(large)
	for name, chunked := range map[string][]byte{
		"small":  admissionReview("admission.k8s.io/v1", claimRequest(t, admissionv1.Create, "v1alpha3", "")),
		"medium": largeAdmissionReview(t, admissionv1.Update, "", largeClaim(t, filler("numbers", 2000))),
	} {
		t.Run(name, func(t *testing.T) {
			// Room for the large review beside the chunked one's estimate,
			// not beside the weight of its cap (2 × 7 MiB).
			ts, entered, release := memoryServer(t, cost+cost/2)
			if ts.admission.rawWeightOf(t, -1, ts.cfg.MaxValidateBodyBytes)+cost <= ts.admission.memoryCap || decodedCost(chunked)+cost > ts.admission.memoryCap {
				t.Fatal("the bound does not tell the cap's weight from the estimate")
			}
			c := ts.client(t, nil)
			c.Timeout = 20 * time.Second
			first := make(chan error, 1)
			go func() {
				req, err := http.NewRequest(http.MethodPost, ts.url("/validate"), io.MultiReader(bytes.NewReader(chunked))) // unknown length: chunked
				if err != nil {
					first <- err
					return
				}
				req.Header.Set("Content-Type", "application/json")
				resp, err := c.Do(req)
				if err == nil {
					out, _ := io.ReadAll(resp.Body)
					resp.Body.Close()
					if got := admissionResponse(t, resp, out); !got.Allowed {
						err = fmt.Errorf("the chunked review: %+v", got.Result)
					}
				}
				first <- err
			}()
			<-entered
			second := sendAllowed(c, ts.url("/validate"), large)
			select {
			case <-entered: // the large review runs beside the chunked one
			case err := <-second:
				t.Fatalf("the large review was not started: %v", err)
			}
			checkSheds(t, ts, shedCount{"/validate", shedMemory, 0})
			releaseAll(t, release, entered, first, second)
			assertReleased(t, ts)
		})
	}
}

// rawWeightOf is rawWeight of a body announced as length (-1: chunked).
func (a *slotGate) rawWeightOf(t *testing.T, length, maxBytes int64) int64 {
	t.Helper()
	r := httptest.NewRequest(http.MethodPost, "/validate", strings.NewReader("{}"))
	r.ContentLength = length
	w, reason := a.rawWeight(r, maxBytes)
	if reason != "" {
		t.Fatalf("rawWeight: %s", reason)
	}
	return w
}

// A large review whose bytes' weight fits but whose estimate does not gives
// that weight back and waits for the whole estimate; it is served once a
// review before it ends, not shed, and every weight comes back once: the
// path of wrap's release-and-wait, which a double release would panic in
// and a lost one would leave the bound short.
func TestReadAheadWaitsForTheWholeEstimate(t *testing.T) {
	large := largeAdmissionReview(t, admissionv1.Update, "", largeClaim(t, filler("numbers", 20000)))
	cost, raw := decodedCost(large), 2*int64(len(large))
	// Room for one estimate and the bytes' weight of another, not for
	// the rest of its estimate.
	ts, entered, release := blockingServer(t, func(o *Config) {
		o.MaxInFlight, o.MaxQueueWait, o.MaxReviewMemory = 2, 10*time.Second, cost+raw+1<<10
	})
	c := ts.client(t, nil)
	c.Timeout = 20 * time.Second
	first := occupyWith(t, ts, c, entered, large)
	second := sendAllowed(c, ts.url("/validate"), large)
	// It read its body (the weight of its bytes was free) and waits for
	// its estimate: not in a slot, not shed.
	eventually(t, "the second review to be read ahead", func() bool { return ts.admission.arrived.Load() == 2 })
	select {
	case <-entered:
		t.Fatal("the second review ran beside the first: its estimate does not fit")
	case err := <-second:
		t.Fatalf("the second review was answered while the first held the bound: %v", err)
	case <-time.After(200 * time.Millisecond):
	}
	release <- struct{}{} // the first review ends, its estimate given back
	<-entered             // the second runs
	releaseAll(t, release, entered, first, second)
	checkSheds(t, ts, shedCount{"/validate", shedMemory, 0}, shedCount{"/validate", shedWaitExpired, 0})
	assertReleased(t, ts)
}
