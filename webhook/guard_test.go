package webhook

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// TestGuard: /guard admits with the judge's findings as warnings, what the
// guarded release rejects first, in its name; enforce denies that (403,
// the judge's words); a status write, a DELETE and an object of another
// group are not judged.
func TestGuard(t *testing.T) {
	judged := 0
	judge := func(obj map[string]interface{}) ([]string, []string) {
		judged++
		if obj["apiVersion"] == "resource.k8s.io/v1beta1" {
			return []string{"apiVersion: Kubernetes 1.38 no longer serves resource.k8s.io/v1beta1 DeviceClass: its apiserver rejects this object"}, []string{"a warning"}
		}
		return nil, nil
	}
	req := func(op admissionv1.Operation, sub, apiVersion string) admissionv1.AdmissionRequest {
		return admissionv1.AdmissionRequest{UID: "req-uid", Operation: op, SubResource: sub, Name: "gpu",
			Kind:     metav1.GroupVersionKind{Group: "resource.k8s.io", Version: "v1beta1", Kind: "DeviceClass"},
			Resource: metav1.GroupVersionResource{Group: "resource.k8s.io", Version: "v1beta1", Resource: "deviceclasses"},
			Object:   runtime.RawExtension{Raw: []byte(`{"apiVersion":"` + apiVersion + `","kind":"DeviceClass","metadata":{"name":"gpu"}}`)}}
	}
	for _, enforce := range []bool{false, true} {
		h := newServer(t, func(c *Config) { c.Guard = &Guard{Release: "1.38", Judge: judge, Enforce: enforce} }).Handler()
		rec := serve(h, "/guard", admissionReview(req(admissionv1.Create, "", "resource.k8s.io/v1beta1")))
		r := decodeAdmission(t, rec.Code, rec.Body.Bytes())
		reject := "Kubernetes 1.38 would reject this: apiVersion: Kubernetes 1.38 no longer serves resource.k8s.io/v1beta1 DeviceClass: its apiserver rejects this object"
		if !enforce {
			if d := cmp.Diff([]string{reject, "a warning"}, r.Warnings); d != "" || !r.Allowed {
				t.Errorf("warn mode: allowed %t, warnings (-want +got):\n%s", r.Allowed, d)
			}
			continue
		}
		if r.Allowed || r.Result.Code != 403 || r.Result.Message != `deviceclasses.resource.k8s.io "gpu" is forbidden: `+reject {
			t.Errorf("enforce mode: %s", rec.Body)
		}
	}
	judged = 0
	h := newServer(t, func(c *Config) { c.Guard = &Guard{Release: "1.38", Judge: judge, Enforce: true} }).Handler()
	other := req(admissionv1.Create, "", "example.com/v1")
	other.Kind.Group = "example.com"
	for name, rq := range map[string]admissionv1.AdmissionRequest{
		"status": req(admissionv1.Update, "status", "resource.k8s.io/v1beta1"), "delete": req(admissionv1.Delete, "", "resource.k8s.io/v1beta1"), "other group": other,
		"v1": req(admissionv1.Update, "", "resource.k8s.io/v1"),
	} {
		rec := serve(h, "/guard", admissionReview(rq))
		if r := decodeAdmission(t, rec.Code, rec.Body.Bytes()); !r.Allowed || len(r.Warnings) != 0 {
			t.Errorf("%s: %s", name, rec.Body)
		}
	}
	if judged != 1 {
		t.Errorf("%d objects judged, want 1 (the v1 update)", judged)
	}
	if rec := serve(newServer(t, nil).Handler(), "/guard", admissionReview(req(admissionv1.Create, "", "resource.k8s.io/v1beta1"))); rec.Code != 404 {
		t.Errorf("without a guard, /guard answers %d, want 404", rec.Code)
	}
}
