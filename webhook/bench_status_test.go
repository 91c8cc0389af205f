package webhook

import (
	"encoding/json"
	"io"
	"net/http"
	"syscall"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// The status update is the hot write path of a DRA cluster: the scheduler
// allocates and reserves through it. BenchmarkStatusUpdate sends, per
// version, a create and a status update that adds a consumer to
// status.reservedFor of an allocated claim (old: the testdata fixture
// without reservedFor, new: the fixture) through the real handler, beside a
// baseline that decodes the review and both objects and encodes an
// allowing response. docs/performance.md holds the ratios.

// baselineValidateUpdate is baselineValidate that also decodes oldObject.
var baselineValidateUpdate = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var review admissionv1.AdmissionReview
	if err := json.Unmarshal(body, &review); err != nil {
		panic(err)
	}
	for _, raw := range [][]byte{review.Request.Object.Raw, review.Request.OldObject.Raw} {
		var obj map[string]interface{}
		if err := json.Unmarshal(raw, &obj); err != nil {
			panic(err)
		}
	}
	out, _ := json.Marshal(&admissionv1.AdmissionReview{TypeMeta: review.TypeMeta, Response: &admissionv1.AdmissionResponse{UID: review.Request.UID, Allowed: true}})
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(out)
})

// reserveRequest is a status update of the fixture of version whose old
// object has no consumer and whose new object has the fixture's.
func reserveRequest(tb testing.TB, version string) admissionv1.AdmissionRequest {
	tb.Helper()
	req := claimRequest(&testing.T{}, admissionv1.Update, version, "status")
	var old map[string]interface{}
	if err := json.Unmarshal(req.Object.Raw, &old); err != nil {
		tb.Fatal(err)
	}
	delete(old["status"].(map[string]interface{}), "reservedFor")
	raw, err := json.Marshal(old)
	if err != nil {
		tb.Fatal(err)
	}
	req.OldObject = runtime.RawExtension{Raw: raw}
	return req
}

func BenchmarkStatusUpdate(b *testing.B) {
	h := newTestValidateHandler(defaultValidator)
	for _, version := range versions {
		bodies := []struct {
			name string
			body []byte
			base http.Handler
		}{
			{"create", admissionReview("admission.k8s.io/v1", claimRequest(&testing.T{}, admissionv1.Create, version, "")), baselineValidate},
			{"status", admissionReview("admission.k8s.io/v1", reserveRequest(b, version)), baselineValidateUpdate},
		}
		for _, c := range bodies {
			if out := decodeAdmissionResponse(b, post(h, c.body)); !out.Response.Allowed {
				b.Fatalf("%s %s fixture denied: %+v", version, c.name, out.Response.Result)
			}
			b.Run(version+"-"+c.name+"/handler", func(b *testing.B) { runBenchCPU(b, h, c.body) })
			b.Run(version+"-"+c.name+"/baseline", func(b *testing.B) { runBenchCPU(b, c.base, c.body) })
		}
	}
}

// runBenchCPU is runBench that also reports the process CPU time per
// operation (cpu-ns/op): on a shared machine wall time (ns/op) includes the
// time other processes held the CPU, CPU time much less so.
func runBenchCPU(b *testing.B, h http.Handler, body []byte) {
	serverGC.Do(ApplyGCDefault)
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	start := processCPU()
	for b.Loop() {
		if rec := post(h, body); rec.Code != http.StatusOK {
			b.Fatalf("status %d", rec.Code)
		}
	}
	b.ReportMetric(float64(processCPU()-start)/float64(b.N), "cpu-ns/op")
}

func processCPU() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic(err)
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
