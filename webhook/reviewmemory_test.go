package webhook

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"

	"github.com/claimbridge/claimbridge/api"
)

func TestDecodedCost(t *testing.T) {
	pad := strings.Repeat(" ", costScanMin) // whitespace: bytes, no tokens
	tests := map[string]struct {
		body   string
		tokens int64 // -1: not scanned
	}{
		"small":                    {body: `{"a":[0,0,{},[]]}`, tokens: -1},
		"just-below-the-scan":      {body: pad[:costScanMin-1], tokens: -1},
		"whitespace":               {body: pad, tokens: 0},
		"numbers":                  {body: `{"a":[0,0,0]}` + pad, tokens: 5},
		"structure-inside-strings": {body: `{"a":"{[:,\"{[:,"}` + pad, tokens: 2},
		"escaped-backslash":        {body: `["\\",{}]` + pad, tokens: 3},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			want := int64(len(tt.body))*bytesPerByte + tt.tokens*bytesPerToken
			if tt.tokens < 0 {
				want = 0
			}
			if got := decodedCost([]byte(tt.body)); got != want {
				t.Errorf("decodedCost = %d, want %d", got, want)
			}
		})
	}
}

// filler is n JSON values of a shape, as one value.
func filler(shape string, n int) string {
	var b strings.Builder
	open, end := "[", "]"
	if shape == "keys" {
		open, end = "{", "}"
	}
	b.WriteString(open)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		switch shape {
		case "numbers":
			b.WriteString("0")
		case "empty-objects":
			b.WriteString("{}")
		case "strings":
			b.WriteString(`"a"`)
		case "long-strings":
			b.WriteString(`"` + strings.Repeat("x", 300) + `"`)
		case "non-ascii-strings":
			b.WriteString(`"` + strings.Repeat("é", 100) + `"`)
		case "escaped-strings":
			b.WriteString(`"` + strings.Repeat(`\"`, 100) + `"`)
		case "tiny-objects":
			b.WriteString(`{"a":0}`)
		case "keys":
			fmt.Fprintf(&b, `"k%d":0`, i)
		}
	}
	b.WriteString(end)
	return b.String()
}

// largeClaim is the v1alpha3 fixture with filler in its spec's and status's
// opaque parameters.
func largeClaim(t *testing.T, filler string) []byte {
	t.Helper()
	s := strings.ReplaceAll(string(fixture(t, "v1alpha3")), `"timeSlicing":{"interval":"Long"}`, `"timeSlicing":{"interval":"Long"},"filler":`+filler)
	if !json.Valid([]byte(s)) {
		t.Fatal("largeClaim: invalid JSON")
	}
	return []byte(s)
}

func largeAdmissionReview(t *testing.T, op admissionv1.Operation, subResource string, obj []byte) []byte {
	t.Helper()
	req := claimRequest(t, op, "v1alpha3", subResource)
	req.Object = kruntime.RawExtension{Raw: obj}
	if op == admissionv1.Update {
		req.OldObject = kruntime.RawExtension{Raw: obj}
	}
	return admissionReview("admission.k8s.io/v1", req)
}

// maxAllocationsPerEstimate bounds what a review allocates in all, garbage
// included, against decodedCost. Most shapes and paths allocate less than
// the estimate; string-heavy creates, and conversions to an older version,
// re-encode the strings into the older versions' restore annotations and
// allocate up to about twice it (three times in a reviewer's probes), most of
// it garbage at once: the peak RSS the real binary adds stays a tenth to a
// third of the estimate (docs/performance-log.md, "A bound on the memory of
// large reviews").
const maxAllocationsPerEstimate = 4

// TestDecodedCostBoundsAllocations: for bodies dense in each shape of small
// values, for string-heavy ones and for many ordinary claims, what the review
// allocates in all from its arrival to its answer stays within
// maxAllocationsPerEstimate times decodedCost, on every endpoint and
// operation with the real converter, validator and defaulter.
func TestDecodedCostBoundsAllocations(t *testing.T) {
	bodies := map[string][]byte{}
	for shape, n := range map[string]int{"numbers": 20000, "empty-objects": 20000, "strings": 20000, "long-strings": 400,
		"non-ascii-strings": 400, "escaped-strings": 400, "keys": 20000, "tiny-objects": 20000} {
		obj := largeClaim(t, filler(shape, n))
		bodies[shape+"/convert-to-v1alpha1"] = conversionReview("apiextensions.k8s.io/v1", "u", api.Group+"/v1alpha1", obj)
		bodies[shape+"/convert-to-v1alpha2"] = conversionReview("apiextensions.k8s.io/v1", "u", api.Group+"/v1alpha2", obj)
		bodies[shape+"/validate-update"] = largeAdmissionReview(t, admissionv1.Update, "", obj)
		bodies[shape+"/validate-status"] = largeAdmissionReview(t, admissionv1.Update, "status", obj)
		bodies[shape+"/validate-create"] = largeAdmissionReview(t, admissionv1.Create, "", obj)
		bodies[shape+"/default-create"] = largeAdmissionReview(t, admissionv1.Create, "", obj)
	}
	// String-heavy creates of megabytes.
	for _, shape := range []string{"non-ascii-strings", "long-strings"} {
		bodies[shape+"-large/validate-create"] = largeAdmissionReview(t, admissionv1.Create, "", largeClaim(t, filler(shape, 9000)))
	}
	var many [][]byte
	for range 200 {
		many = append(many, fixture(t, "v1alpha3"))
	}
	bodies["ordinary-claims/convert-to-v1alpha1"] = conversionReview("apiextensions.k8s.io/v1", "u", api.Group+"/v1alpha1", many...)
	bodies["ordinary-claims/convert-to-v1alpha2"] = conversionReview("apiextensions.k8s.io/v1", "u", api.Group+"/v1alpha2", many...)

	for name, body := range bodies {
		t.Run(name, func(t *testing.T) {
			var h http.Handler
			switch endpoint := name[strings.Index(name, "/")+1:]; {
			case strings.HasPrefix(endpoint, "convert"):
				h = newTestConvertHandler(defaultConverter)
			case strings.HasPrefix(endpoint, "validate"):
				h = newTestValidateHandler(defaultValidator)
			default:
				d := newTestValidateHandler(defaultValidator)
				d.endpoint, d.decide = "/default", &defaulter{metrics: d.metrics}
				h = d
			}
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			rec := post(h, body)
			runtime.ReadMemStats(&after)
			if rec.Code != http.StatusOK {
				t.Fatalf("status %d: %s", rec.Code, rec.Body)
			}
			alloc, cost := int64(after.TotalAlloc-before.TotalAlloc), decodedCost(body)
			if cost == 0 || alloc > maxAllocationsPerEstimate*cost {
				t.Errorf("body of %d bytes allocated %d bytes, %.2f times decodedCost %d", len(body), alloc, float64(alloc)/float64(cost), cost)
			}
		})
	}
}

// memoryServer runs a server whose reviews may hold maxMemory of estimated
// decoded memory, with two slots, and whose validator blocks until release
// is closed; entered receives once per validation started.
func memoryServer(t *testing.T, maxMemory int64) (ts *testServer, entered, release chan struct{}) {
	t.Helper()
	return blockingServer(t, func(o *Config) {
		o.MaxInFlight, o.MaxQueueWait, o.MaxReviewMemory = 2, 200*time.Millisecond, maxMemory
	})
}

// A large review waits for room within --max-review-memory and is shed with
// a retried 429 when none is made in time; one that could never fit is
// refused at once with 413 (a denial on /validate, so that failurePolicy
// Ignore does not admit it, an HTTP error on /convert); small reviews pass
// whatever the large ones hold; nothing refused is started.
func TestReviewMemoryBound(t *testing.T) {
	large := largeAdmissionReview(t, admissionv1.Update, "", largeClaim(t, filler("numbers", 20000)))
	cost := decodedCost(large)
	ts, entered, release := memoryServer(t, cost+cost/2) // room for one
	c := ts.client(t, nil)
	c.Timeout = 20 * time.Second // a review the bound lets through blocks in the validator

	first := occupyWith(t, ts, c, entered, large)

	// A second large review finds no room and is shed after waiting.
	resp, body, err := postJSON(c, ts.url("/validate"), large)
	if err != nil {
		t.Fatal(err)
	}
	wantShed := &admissionv1.AdmissionResponse{UID: "req-uid", Result: &metav1.Status{
		Status: metav1.StatusFailure, Code: http.StatusTooManyRequests, Reason: metav1.StatusReasonTooManyRequests,
		Message: fmt.Sprintf("claimbridge webhook overloaded (memory: large reviews in progress hold the %d MiB of --max-review-memory); retry after 1s", (cost+cost/2)>>20),
		Details: &metav1.StatusDetails{RetryAfterSeconds: 1},
	}}
	if diff := cmp.Diff(wantShed, admissionResponse(t, resp, body)); diff != "" {
		t.Errorf("large review without room (-want +got):\n%s", diff)
	}

	// A small review is not held back.
	small := make(chan error, 1)
	go func() {
		_, _, err := postJSON(c, ts.url("/validate"), admissionReview("admission.k8s.io/v1", claimRequest(t, admissionv1.Create, "v1alpha3", "")))
		small <- err
	}()
	select {
	case <-entered:
	case <-time.After(10 * time.Second):
		t.Fatal("a small review did not start while a large one held the memory")
	}

	// Twice the bound never fits: refused at once, on both endpoints.
	huge := largeClaim(t, filler("numbers", 150000)) // also in one object, as /convert gets it
	resp, body, err = postJSON(c, ts.url("/validate"), largeAdmissionReview(t, admissionv1.Update, "", huge))
	if err != nil {
		t.Fatal(err)
	}
	got := admissionResponse(t, resp, body)
	if got.Result == nil || got.Result.Code != http.StatusRequestEntityTooLarge || got.Result.Reason != metav1.StatusReasonRequestEntityTooLarge ||
		got.Result.Details != nil || got.Allowed || got.UID != "req-uid" ||
		!strings.Contains(got.Result.Message, fmt.Sprintf("more than --max-review-memory allows (%d MiB)", (cost+cost/2)>>20)) {
		t.Errorf("too large a review: %+v", got)
	}
	resp, body, err = postJSON(c, ts.url("/convert"), conversionReview("apiextensions.k8s.io/v1", "u", api.Group+"/v1alpha1", huge))
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusRequestEntityTooLarge || resp.Header.Get("Retry-After") != "" || !strings.Contains(string(body), "is estimated at") {
		t.Errorf("too large a conversion: status %d, Retry-After %q: %s", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}

	checkSheds(t, ts, shedCount{"/validate", shedMemory, 1}, shedCount{"/validate", shedTooLarge, 1},
		shedCount{"/convert", shedTooLarge, 1}, shedCount{"/validate", shedOverloaded, 0})
	releaseAll(t, release, entered, first, small)
	// The memory is given back: the large review passes again.
	resp, body, err = postJSON(c, ts.url("/validate"), large)
	if err != nil || resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"allowed":true`) {
		t.Errorf("large review after the first finished: %v %v %s", err, resp, body)
	}
}

// Without a bound (--max-review-memory=0) any body within the caps runs.
func TestReviewMemoryUnbounded(t *testing.T) {
	ts, entered, release := memoryServer(t, 0)
	close(release)
	resp, body, err := postJSON(ts.client(t, nil), ts.url("/validate"), largeAdmissionReview(t, admissionv1.Update, "", largeClaim(t, filler("numbers", 60000))))
	if err != nil || resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"allowed":true`) || len(entered) != 1 {
		t.Errorf("large review without a bound: %v %v %s, %d validated", err, resp, body, len(entered))
	}
}

// admissionResponse decodes the AdmissionReview answer of a 200.
func admissionResponse(t *testing.T, resp *http.Response, body []byte) *admissionv1.AdmissionResponse {
	t.Helper()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %s", resp.StatusCode, body)
	}
	var out admissionv1.AdmissionReview
	if err := json.Unmarshal(body, &out); err != nil {
		t.Fatal(err)
	}
	return out.Response
}

// A too-large body sent chunked (no Content-Length) is refused with its
// real size in the message, not "-1 bytes".
func TestReviewMemoryTooLargeChunked(t *testing.T) {
	ts, _, release := memoryServer(t, 1<<20)
	close(release)
	body := largeAdmissionReview(t, admissionv1.Update, "", largeClaim(t, filler("numbers", 20000)))
	req, err := http.NewRequest(http.MethodPost, ts.url("/validate"), io.MultiReader(bytes.NewReader(body))) // unknown length: chunked
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := ts.client(t, nil).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	got := admissionResponse(t, resp, out)
	if want := fmt.Sprintf("request body of %d bytes is estimated at", len(body)); got.Result == nil || got.Result.Code != http.StatusRequestEntityTooLarge || !strings.Contains(got.Result.Message, want) {
		t.Errorf("too large a chunked review: %+v, want a 413 saying %q", got.Result, want)
	}
}

// shedCount is how many reviews of an endpoint were not started for a reason.
type shedCount struct {
	endpoint, reason string
	n                float64
}

// checkSheds wants ts's shed counters at want.
func checkSheds(t *testing.T, ts *testServer, want ...shedCount) {
	t.Helper()
	for _, w := range want {
		if got := value(t, ts.admission.sheds.WithLabelValues(w.endpoint, w.reason)); got != w.n {
			t.Errorf("%s %s sheds: %v, want %v", w.endpoint, w.reason, got, w.n)
		}
	}
}

// releaseAll lets the blocked validations finish, wants every review of
// done to have succeeded and no other review to have been validated.
func releaseAll(t *testing.T, release, entered chan struct{}, done ...chan error) {
	t.Helper()
	close(release)
	for _, d := range done {
		if err := <-d; err != nil {
			t.Error(err)
		}
	}
	if len(entered) != 0 {
		t.Errorf("%d refused reviews were validated", len(entered))
	}
}
