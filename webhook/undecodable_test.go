package webhook

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// deepParameters is the v1alpha3 claim fixture with its opaque parameters
// nested depth levels deeper: kube-apiserver stores such a claim (its JSON
// decoding allows 10,000 levels) and sends it to the webhooks in a review
// deeper than --max-json-depth.
func deepParameters(t *testing.T, depth int) []byte {
	t.Helper()
	obj := fixture(t, "v1alpha3")
	const params = `"parameters":{`
	i := bytes.Index(obj, []byte(params))
	if i < 0 {
		t.Fatal("the fixture has no opaque parameters")
	}
	i += len(params)
	deep := strings.Repeat(`"a":{`, depth) + strings.Repeat("}", depth) + ","
	return append(append(append([]byte{}, obj[:i]...), deep...), obj[i:]...)
}

// TestUndecodableReviewIsDenied: an AdmissionReview that is read but cannot
// be decoded (nested deeper than --max-json-depth, malformed) is answered
// with a denial of code 400 that echoes its uid, as a shed review is, when
// its head names an AdmissionReview and its uid; only without them with
// HTTP 400. kube-apiserver takes an HTTP error for a failed call, which
// failurePolicy: Ignore (a value the chart takes) admits unvalidated, and a
// namespace user makes it send the first kind: a claim whose opaque
// parameters nest 1,000 levels deep.
func TestUndecodableReviewIsDenied(t *testing.T) {
	deep := claimRequest(t, admissionv1.Create, "v1alpha3", "")
	deep.UID = "deep-uid"
	deep.Object.Raw = deepParameters(t, 1000)
	deepUpdate := claimRequest(t, admissionv1.Update, "v1alpha3", "")
	deepUpdate.UID = "deep-update-uid"
	deepUpdate.Object.Raw = deepParameters(t, 1000)
	c, m := testConfig(""), newMetrics()
	handlers := map[string]*admissionHandler{
		"/validate": newTestValidateHandler(allowAll),
		"/default": {endpoint: "/default", decide: &defaulter{metrics: m}, maxBytes: c.MaxValidateBodyBytes,
			maxDepth: c.MaxJSONDepth, timeout: c.RequestTimeout, metrics: m},
	}
	for _, tc := range []struct {
		name string
		body []byte
		uid  string // "": HTTP 400
	}{
		{"deep-create", admissionReview("admission.k8s.io/v1", deep), "deep-uid"},
		{"deep-update-v1beta1", admissionReview("admission.k8s.io/v1beta1", deepUpdate), "deep-update-uid"},
		{"malformed-object", []byte(`{"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","request":{"uid":"bad-uid","object":{"a":}}}`), "bad-uid"},
		{"deep-without-uid", []byte(`{"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","request":{"object":` + strings.Repeat("[", 2000) + strings.Repeat("]", 2000) + `}}`), ""},
		// The head is whole but not well formed: a uid repeated with a
		// value that is no string (the first one is not taken).
		{"uid-repeated-not-a-string", []byte(`{"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","request":{"uid":"u","uid":5,"object":{}}}`), ""},
		{"deep-other-review", []byte(`{"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v2","request":{"uid":"u","object":` + strings.Repeat("[", 2000) + strings.Repeat("]", 2000) + `}}`), ""},
	} {
		for endpoint, h := range handlers {
			t.Run(tc.name+endpoint, func(t *testing.T) {
				rec := post(h, tc.body)
				if tc.uid == "" {
					if rec.Code != http.StatusBadRequest {
						t.Errorf("status %d, want 400: %s", rec.Code, rec.Body)
					}
					return
				}
				if rec.Code != http.StatusOK {
					t.Fatalf("status %d, want 200 with a denial (an HTTP error is admitted under failurePolicy: Ignore): %s", rec.Code, rec.Body)
				}
				var out admissionv1.AdmissionReview
				if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
					t.Fatal(err)
				}
				r := out.Response
				if r == nil || r.UID != types.UID(tc.uid) || r.Allowed || r.Result == nil ||
					r.Result.Code != http.StatusBadRequest || r.Result.Reason != metav1.StatusReasonBadRequest || r.Patch != nil {
					t.Errorf("want a denial of code 400 (BadRequest) echoing uid %s, got %s", tc.uid, rec.Body)
				}
			})
		}
	}
}

// TestAdmittedObjectFitsConversionReview: /validate and /default admit no
// object that nests deeper than a ConversionReview within --max-json-depth
// can carry, so that kube-apiserver can convert every object they admit:
// one that nests a level deeper was stored through v1alpha3 and failed
// every read of it and every list of claims through v1alpha1 and v1alpha2,
// in all namespaces, since /convert refused its review as too deep.
func TestAdmittedObjectFitsConversionReview(t *testing.T) {
	const maxDepth = 1000 // testConfig's
	// withNesting is the v1alpha3 fixture nesting exactly depth levels.
	withNesting := func(depth int) []byte {
		for k := 1; k < depth; k++ {
			obj := deepParameters(t, k)
			if checkDepth(obj, depth) == nil && checkDepth(obj, depth-1) != nil {
				return obj
			}
		}
		t.Fatalf("no fixture nesting %d levels", depth)
		return nil
	}
	validate := newTestValidateHandler(allowAll)
	convert := newTestConvertHandler(fakeConvert)
	for _, tc := range []struct {
		name    string
		nesting int
		admit   bool
	}{
		{"fits-a-conversion-review", maxDepth - reviewNesting, true},
		{"one-level-deeper", maxDepth - reviewNesting + 1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			obj := withNesting(tc.nesting)
			req := claimRequest(t, admissionv1.Create, "v1alpha3", "")
			req.Object.Raw = obj
			rec := post(validate, admissionReview("admission.k8s.io/v1", req))
			if rec.Code != http.StatusOK {
				t.Fatalf("/validate: status %d: %s", rec.Code, rec.Body)
			}
			var out admissionv1.AdmissionReview
			if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
				t.Fatal(err)
			}
			if got := out.Response.Allowed; got != tc.admit {
				t.Fatalf("/validate allowed %v, want %v: %s", got, tc.admit, rec.Body)
			}
			if !tc.admit {
				if r := out.Response.Result; r == nil || r.Code != http.StatusBadRequest {
					t.Errorf("want a denial of code 400: %s", rec.Body)
				}
				return
			}
			// What /validate admits, /convert converts.
			review := decodeConversionResponse(t, post(convert, conversionReview("apiextensions.k8s.io/v1", "u", "resource.claimbridge.dev/v1alpha1", obj)))
			if review.Response.Result.Status != metav1.StatusSuccess {
				t.Errorf("/convert: %+v", review.Response.Result)
			}
		})
	}
}

// TestShedDeepReviewIsDenied: a review shed for want of a slot is denied
// (code 429, its uid echoed) also when it nests deeper than
// --max-json-depth; it got the plain HTTP 429 before, which kube-apiserver
// retries and, its retries spent, failurePolicy: Ignore admits unvalidated.
func TestShedDeepReviewIsDenied(t *testing.T) {
	ts, entered, release := blockingServer(t, func(o *Config) { o.MaxInFlight, o.MaxQueueWait = 1, time.Millisecond })
	c := ts.client(t, nil)
	first := occupy(t, ts, c, entered)
	deep := claimRequest(t, admissionv1.Create, "v1alpha3", "")
	deep.UID = "deep-uid"
	deep.Object.Raw = deepParameters(t, 1000)
	for _, path := range []string{"/validate", "/default"} {
		t.Run(path, func(t *testing.T) {
			resp, body, err := postJSON(c, ts.url(path), admissionReview("admission.k8s.io/v1", deep))
			if err != nil {
				t.Fatal(err)
			}
			got := admissionResponse(t, resp, body)
			if got.UID != "deep-uid" || got.Allowed || got.Result == nil || got.Result.Code != http.StatusTooManyRequests {
				t.Errorf("want a denial of code 429 echoing the uid, got %s", body)
			}
		})
	}
	checkSheds(t, ts, shedCount{"/validate", shedWaitExpired, 1}, shedCount{"/default", shedWaitExpired, 1})
	releaseAll(t, release, entered, first)
}

// TestAnnouncedTooLargeReviewIsDenied: a review announced over
// --max-validate-body-bytes is denied with code 413 echoing its uid, read
// from its head, on /validate and /default, through the real server: an
// HTTP 413 is admitted unvalidated under failurePolicy: Ignore (a cap set
// below what kube-apiserver sends).
func TestAnnouncedTooLargeReviewIsDenied(t *testing.T) {
	const limit = 64 << 10
	ts := startServer(t, func(o *Config) { o.MaxValidateBodyBytes = limit })
	c := ts.client(t, nil)
	large := paddedReview(t, "large-uid", limit)
	for _, path := range []string{"/validate", "/default"} {
		t.Run(path, func(t *testing.T) {
			resp, body, err := postJSON(c, ts.url(path), large)
			if err != nil {
				t.Fatal(err)
			}
			got := admissionResponse(t, resp, body)
			if got.UID != "large-uid" || got.Allowed || got.Result == nil || got.Result.Code != http.StatusRequestEntityTooLarge ||
				got.Result.Reason != metav1.StatusReasonRequestEntityTooLarge || !strings.Contains(got.Result.Message, "exceeds the limit of 65536 bytes") {
				t.Errorf("want a denial of code 413 echoing the uid, got %s", body)
			}
			// The body stays unread: the connection is closed, not drained.
			if !resp.Close {
				t.Errorf("connection kept open (Connection: %q) after a body left unread", resp.Header.Get("Connection"))
			}
		})
	}
}

// TestChunkedTooLargeReviewIsDenied: a review sent chunked (no
// Content-Length) that runs over --max-validate-body-bytes while it is read
// is denied with code 413 echoing its uid, from what was read up to the cap,
// on /validate and /default, and shed the same way (a denial echoing the
// uid) when it finds no slot: it got an HTTP 413 (a plain 429 when shed),
// which failurePolicy: Ignore admits unvalidated.
func TestChunkedTooLargeReviewIsDenied(t *testing.T) {
	const limit = 64 << 10
	large := paddedReview(t, "chunked-uid", limit)
	chunked := func(t *testing.T, c *http.Client, url string) (*http.Response, []byte) {
		t.Helper()
		req, err := http.NewRequest(http.MethodPost, url, io.MultiReader(bytes.NewReader(large))) // unknown length: chunked
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp, body
	}
	t.Run("served", func(t *testing.T) {
		ts := startServer(t, func(o *Config) { o.MaxValidateBodyBytes = limit })
		c := ts.client(t, nil)
		for _, path := range []string{"/validate", "/default"} {
			t.Run(path, func(t *testing.T) {
				resp, body := chunked(t, c, ts.url(path))
				got := admissionResponse(t, resp, body)
				if got.UID != "chunked-uid" || got.Allowed || got.Result == nil || got.Result.Code != http.StatusRequestEntityTooLarge ||
					got.Result.Reason != metav1.StatusReasonRequestEntityTooLarge || !strings.Contains(got.Result.Message, "exceeds the limit of 65536 bytes") {
					t.Errorf("want a denial of code 413 echoing the uid, got %s", body)
				}
			})
		}
	})
	t.Run("shed", func(t *testing.T) {
		ts, entered, release := blockingServer(t, func(o *Config) {
			o.MaxValidateBodyBytes, o.MaxInFlight, o.MaxQueueWait = limit, 1, time.Millisecond
		})
		c := ts.client(t, nil)
		first := occupy(t, ts, c, entered)
		for _, path := range []string{"/validate", "/default"} {
			t.Run(path, func(t *testing.T) {
				resp, body := chunked(t, c, ts.url(path))
				got := admissionResponse(t, resp, body)
				if got.UID != "chunked-uid" || got.Allowed || got.Result == nil || got.Result.Code != http.StatusTooManyRequests {
					t.Errorf("want a denial of code 429 echoing the uid, got %s", body)
				}
			})
		}
		releaseAll(t, release, entered, first)
	})
}

// paddedReview is a valid v1alpha3 claim's UPDATE review of uid, padded
// past limit bytes with a field after the request.
func paddedReview(t *testing.T, uid string, limit int) []byte {
	t.Helper()
	req := claimRequest(t, admissionv1.Update, "v1alpha3", "")
	req.UID = types.UID(uid)
	req.Object.Raw = deepParameters(t, 1)
	review := admissionReview("admission.k8s.io/v1", req)
	i := bytes.LastIndexByte(review, '}')
	return append(append(append([]byte{}, review[:i]...), []byte(`,"padding":"`+strings.Repeat("x", limit)+`"`)...), review[i:]...)
}
