package webhook

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

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

var baselineValidate = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var review admissionv1.AdmissionReview
	if err := json.Unmarshal(body, &review); err != nil {
		panic(err)
	}
	var obj map[string]interface{}
	if err := json.Unmarshal(review.Request.Object.Raw, &obj); err != nil {
		panic(err)
	}
	out, _ := json.Marshal(&admissionv1.AdmissionReview{TypeMeta: review.TypeMeta, Response: &admissionv1.AdmissionResponse{UID: review.Request.UID, Allowed: true}})
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(out)
})

func runBench(b *testing.B, h http.Handler, body []byte) {
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if rec := post(h, body); rec.Code != http.StatusOK {
			b.Fatalf("status %d", rec.Code)
		}
	}
}

func BenchmarkConvert(b *testing.B) {
	h := newTestConvertHandler(defaultConverter)
	for _, from := range versions {
		for _, to := range versions {
			if from == to {
				continue
			}
			for _, n := range []int{1, 100} {
				objs := make([][]byte, n)
				for i := range objs {
					objs[i] = withName(b, fixture(b, from), fmt.Sprintf("claim-%03d", i))
				}
				body := conversionReview("apiextensions.k8s.io/v1", "bench", api.Group+"/"+to, objs...)
				b.Run(fmt.Sprintf("%s-to-%s/objects=%d", from, to, n), func(b *testing.B) {
					if rec := post(h, body); !bytes.Contains(rec.Body.Bytes(), []byte(`"status":"Success"`)) {
						b.Skipf("conversion not ready: %.200s", rec.Body)
					}
					b.Run("handler", func(b *testing.B) { runBench(b, h, body) })
					b.Run("baseline", func(b *testing.B) { runBench(b, baselineConvert, body) })
				})
			}
		}
	}
}

func BenchmarkValidate(b *testing.B) {
	h := newTestValidateHandler(defaultValidator)
	body := admissionReview("admission.k8s.io/v1", claimRequest(&testing.T{}, admissionv1.Create, "v1alpha3", ""))
	if out := decodeAdmissionResponse(b, post(h, body)); !out.Response.Allowed {
		b.Fatalf("fixture denied: %+v", out.Response.Result)
	}
	b.Run("v1alpha3-create/handler", func(b *testing.B) { runBench(b, h, body) })
	b.Run("v1alpha3-create/baseline", func(b *testing.B) { runBench(b, baselineValidate, body) })
}
