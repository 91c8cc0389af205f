package webhook

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/claimbridge/claimbridge/api"
)

// Each benchmark has a baseline sibling that only reads, decodes and
// encodes the same review with encoding/json into the same types, so the
// ratio handler/baseline is the cost of conversion or validation plus the
// handler's checks. See docs/performance.md.

// baselineConvert echoes the objects as a ConversionReview response.
var baselineConvert = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var review apiextensionsv1.ConversionReview
	if err := json.Unmarshal(body, &review); err != nil {
		panic(err)
	}
	out, _ := json.Marshal(&apiextensionsv1.ConversionReview{TypeMeta: review.TypeMeta, Response: &apiextensionsv1.ConversionResponse{
		UID: review.Request.UID, ConvertedObjects: review.Request.Objects, Result: metav1.Status{Status: metav1.StatusSuccess},
	}})
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(out)
})

// baselineValidate decodes the review and its object (and old object) into
// maps and answers allowed.
var baselineValidate = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var review admissionv1.AdmissionReview
	if err := json.Unmarshal(body, &review); err != nil {
		panic(err)
	}
	for _, raw := range []runtime.RawExtension{review.Request.Object, review.Request.OldObject} {
		if raw.Raw == nil {
			continue
		}
		var obj map[string]interface{}
		if err := json.Unmarshal(raw.Raw, &obj); err != nil {
			panic(err)
		}
	}
	out, _ := json.Marshal(&admissionv1.AdmissionReview{TypeMeta: review.TypeMeta, Response: &admissionv1.AdmissionResponse{UID: review.Request.UID, Allowed: true}})
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(out)
})

// serverGC gives the benchmarks the GC setting of `claimbridge serve`
// (ApplyGCDefault: GOGC=200 unless the GOGC environment variable is set),
// for handler and baseline alike.
var serverGC sync.Once

func runBench(b *testing.B, h http.Handler, body []byte) {
	serverGC.Do(ApplyGCDefault)
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if rec := post(h, body); rec.Code != http.StatusOK {
			b.Fatalf("status %d", rec.Code)
		}
	}
}

// runBenchRenamed is runBench with a review whose object has another name
// every time: body holds the name placeholder benchName, rewritten in place.
func runBenchRenamed(b *testing.B, h http.Handler, body []byte) {
	serverGC.Do(ApplyGCDefault)
	at := bytes.Index(body, []byte(benchName))
	if at < 0 {
		b.Fatal("no name placeholder")
	}
	body = bytes.Clone(body)
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		copy(body[at+len(benchName)-8:], fmt.Sprintf("%08d", benchRenames.Add(1)%100_000_000))
		if rec := post(h, body); rec.Code != http.StatusOK {
			b.Fatalf("status %d", rec.Code)
		}
	}
}

// benchRenames numbers the renamed objects of all runs, so that no run
// sends a review an earlier one sent.
var benchRenames atomic.Int64

// benchName is the name of the renamed benchmark object; its last 8
// characters are replaced by a counter.
const benchName = "bench-claim-00000000"

// BenchmarkConvert sends one-object ConversionReviews, the only shape the
// apiserver sends, in every direction. "handler" converts every time (no
// conversion cache: the cost of a review not seen before); "cache-hit" is
// the same review answered from the conversion cache, as a repeated GET or
// etcd LIST of an unchanged object is; "object-hit" is an object under
// another name each time, answered from the cache's object entry (a claim
// created from the same template, or the object the apiserver stored and
// converts back) beside "baseline-renamed", the baseline of the same
// reviews.
func BenchmarkConvert(b *testing.B) {
	h := newTestConvertHandler(defaultConverter)
	cached := newCachingConvertHandler(defaultConverter, 16<<20)
	objects := newCachingConvertHandler(defaultConverter, 16<<20)
	objects.cacheObjects = true
	for _, from := range versions {
		for _, to := range versions {
			if from == to {
				continue
			}
			body := conversionReview("apiextensions.k8s.io/v1", "bench", api.Group+"/"+to, fixture(b, from))
			renamed := conversionReview("apiextensions.k8s.io/v1", "bench", api.Group+"/"+to, withName(b, fixture(b, from), benchName))
			b.Run(fmt.Sprintf("%s-to-%s", from, to), func(b *testing.B) {
				if rec := post(h, body); !bytes.Contains(rec.Body.Bytes(), []byte(`"status":"Success"`)) {
					b.Fatalf("conversion failed: %.300s", rec.Body)
				}
				b.Run("handler", func(b *testing.B) { runBench(b, h, body) })
				b.Run("cache-hit", func(b *testing.B) { runBench(b, cached, body) })
				b.Run("baseline", func(b *testing.B) { runBench(b, baselineConvert, body) })
				b.Run("object-hit", func(b *testing.B) { runBenchRenamed(b, objects, renamed) })
				b.Run("baseline-renamed", func(b *testing.B) { runBenchRenamed(b, baselineConvert, renamed) })
			})
		}
	}
}

// BenchmarkValidate sends a create and an update AdmissionReview of each
// version; the update's old object differs from the new one in a label.
func BenchmarkValidate(b *testing.B) {
	h := newTestValidateHandler(defaultValidator)
	for _, version := range versions {
		for _, op := range []admissionv1.Operation{admissionv1.Create, admissionv1.Update} {
			req := claimRequest(&testing.T{}, op, version, "")
			if op == admissionv1.Update {
				req.Object.Raw = withLabel(b, req.Object.Raw, "bench", "updated")
			}
			body := admissionReview("admission.k8s.io/v1", req)
			b.Run(fmt.Sprintf("%s-%s", version, strings.ToLower(string(op))), func(b *testing.B) {
				if out := decodeAdmissionResponse(b, post(h, body)); !out.Response.Allowed {
					b.Fatalf("fixture denied: %+v", out.Response.Result)
				}
				b.Run("handler", func(b *testing.B) { runBench(b, h, body) })
				b.Run("baseline", func(b *testing.B) { runBench(b, baselineValidate, body) })
			})
		}
	}
}

// BenchmarkDefault measures /default on the create of each version's
// fixture (defaulted already: no patch) and, for v1alpha3, of the fixture
// with its requests' modes and counts removed (a patch for each), beside
// the decode/encode baseline of /validate.
func BenchmarkDefault(b *testing.B) {
	m := newMetrics()
	c := testConfig("")
	h := &admissionHandler{endpoint: "/default", decide: &defaulter{metrics: m}, maxBytes: c.MaxValidateBodyBytes,
		maxDepth: c.MaxJSONDepth, timeout: c.RequestTimeout, metrics: m}
	for _, version := range versions {
		for _, undefaulted := range []bool{false, true} {
			if undefaulted && version != "v1alpha3" {
				continue
			}
			req := claimRequest(&testing.T{}, admissionv1.Create, version, "")
			name := version + "-create"
			if undefaulted {
				req.Object.Raw = withoutRequestDefaults(b, req.Object.Raw)
				name += "-undefaulted"
			}
			body := admissionReview("admission.k8s.io/v1", req)
			b.Run(name, func(b *testing.B) {
				out := decodeAdmissionResponse(b, post(h, body))
				if !out.Response.Allowed || (out.Response.Patch != nil) != undefaulted {
					b.Fatalf("allowed %v, patch %s", out.Response.Allowed, out.Response.Patch)
				}
				b.Run("handler", func(b *testing.B) { runBench(b, h, body) })
				b.Run("baseline", func(b *testing.B) { runBench(b, baselineValidate, body) })
			})
		}
	}
}

// withoutRequestDefaults returns a v1alpha3 claim without its requests'
// allocationMode and count.
func withoutRequestDefaults(tb testing.TB, data []byte) []byte {
	tb.Helper()
	var obj map[string]interface{}
	if err := json.Unmarshal(data, &obj); err != nil {
		tb.Fatal(err)
	}
	for _, r := range obj["spec"].(map[string]interface{})["devices"].(map[string]interface{})["requests"].([]interface{}) {
		delete(r.(map[string]interface{}), "allocationMode")
		delete(r.(map[string]interface{}), "count")
	}
	out, err := json.Marshal(obj)
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

// withLabel returns the object with metadata.labels[key] = value.
func withLabel(tb testing.TB, data []byte, key, value string) []byte {
	tb.Helper()
	var obj map[string]interface{}
	if err := json.Unmarshal(data, &obj); err != nil {
		tb.Fatal(err)
	}
	md := obj["metadata"].(map[string]interface{})
	labels, _ := md["labels"].(map[string]interface{})
	if labels == nil {
		labels = map[string]interface{}{}
	}
	labels[key] = value
	md["labels"] = labels
	out, err := json.Marshal(obj)
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

// BenchmarkShed answers a status-update AdmissionReview as a shed review
// (the denial with code 429): "answer" is the whole shed answer, "scan" the
// reading of apiVersion, kind and uid it does, beside "decode", the same
// three read with encoding/json (which parses the objects too).
func BenchmarkShed(b *testing.B) {
	req := claimRequest(&testing.T{}, admissionv1.Update, "v1alpha3", "status")
	body := admissionReview("admission.k8s.io/v1", req)
	gate := newSlotGate(1, time.Second, 0, nil)
	b.Run("answer", func(b *testing.B) {
		runBench(b, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			gate.shedReview(w, r, "/validate", shedOverloaded, 1<<20, 64)
		}), body)
	})
	b.Run("scan", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var h reviewHead
			if !h.scan(body) || h.uid == "" {
				b.Fatal("no uid")
			}
		}
	})
	b.Run("decode", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var review struct {
				metav1.TypeMeta `json:",inline"`
				Request         *struct {
					UID string `json:"uid"`
				} `json:"request"`
			}
			if err := json.Unmarshal(body, &review); err != nil || review.Request == nil {
				b.Fatal(err)
			}
		}
	})
}
