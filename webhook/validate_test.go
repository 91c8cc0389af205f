package webhook

import (
	"encoding/json"
	"maps"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"

	"github.com/claimbridge/claimbridge/api"
)

// BenchmarkValidateStatusReview: a scheduler's status write through
// /validate, of the testdata claim: its allocation, then the release of its
// pod (validation's BenchmarkValidateStatusUpdateV1alpha3 through the handler).
func BenchmarkValidateStatusReview(b *testing.B) {
	var reserved map[string]any
	if err := json.Unmarshal(fixture(b, api.V1alpha3), &reserved); err != nil {
		b.Fatal(err)
	}
	allocated, unallocated := maps.Clone(reserved), maps.Clone(reserved)
	allocated["status"] = maps.Clone(reserved["status"].(map[string]any))
	delete(allocated["status"].(map[string]any), "reservedFor")
	delete(unallocated, "status")
	h := newServer(b, nil).Handler()
	for _, bm := range []struct {
		name     string
		new, old map[string]any
	}{{"allocate", allocated, unallocated}, {"unreserve", allocated, reserved}} {
		b.Run(bm.name, func(b *testing.B) {
			req := claimRequest(b, admissionv1.Update, api.V1alpha3)
			req.SubResource = "status"
			req.Object.Raw, req.OldObject.Raw = mustJSON(bm.new), mustJSON(bm.old)
			body := admissionReview(req)
			b.ReportAllocs()
			for b.Loop() {
				rec := serve(h, "/validate", body)
				if resp := decodeAdmission(b, rec.Code, rec.Body.Bytes()); !resp.Allowed {
					b.Fatal(resp.Result)
				}
			}
		})
	}
}
