package webhook

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/claimbridge/claimbridge/api"
)

// TestDefaultEndpoint posts AdmissionReviews to /default of a running
// server: a claim without its release's defaults gets them as a JSON Patch,
// a defaulted one and a status write get none, and a kind the webhook does
// not serve is refused as /validate refuses it.
func TestDefaultEndpoint(t *testing.T) {
	ts := startServer(t, nil)
	c := ts.client(t, nil)
	review := func(version, kind, subResource string, op admissionv1.Operation, object string) *admissionv1.AdmissionResponse {
		t.Helper()
		req := admissionv1.AdmissionRequest{
			UID:         "uid-1",
			Kind:        metav1.GroupVersionKind{Group: api.Group, Version: version, Kind: kind},
			Resource:    metav1.GroupVersionResource{Group: api.Group, Version: version, Resource: "resourceclaims"},
			SubResource: subResource, Name: "c", Namespace: "ns", Operation: op,
			Object: runtime.RawExtension{Raw: []byte(object)},
		}
		if op == admissionv1.Update {
			req.OldObject = req.Object
		}
		resp, body, err := postJSON(c, ts.url("/default"), admissionReview("admission.k8s.io/v1", req))
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("status %d: %s", resp.StatusCode, body)
		}
		var out admissionv1.AdmissionReview
		if err := json.Unmarshal(body, &out); err != nil || out.Response == nil {
			t.Fatalf("decoding %s: %v", body, err)
		}
		if out.Response.UID != "uid-1" {
			t.Errorf("uid %q", out.Response.UID)
		}
		return out.Response
	}
	patchOf := func(resp *admissionv1.AdmissionResponse) string {
		t.Helper()
		if !resp.Allowed {
			t.Fatalf("not allowed: %+v", resp.Result)
		}
		if resp.Patch == nil {
			if resp.PatchType != nil {
				t.Errorf("patch type %v without a patch", *resp.PatchType)
			}
			return ""
		}
		if resp.PatchType == nil || *resp.PatchType != admissionv1.PatchTypeJSONPatch {
			t.Errorf("patch type %v, want JSONPatch", resp.PatchType)
		}
		return string(resp.Patch)
	}

	v3 := `{"apiVersion":"resource.claimbridge.dev/v1alpha3","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns"},
		"spec":{"devices":{"requests":[{"name":"gpu","deviceClassName":"gpu.example.com"},{"name":"all","deviceClassName":"nic.example.com","allocationMode":"All"}]}}}`
	for _, op := range []admissionv1.Operation{admissionv1.Create, admissionv1.Update} {
		got := patchOf(review("v1alpha3", "ResourceClaim", "", op, v3))
		want := `[{"op":"add","path":"/spec/devices/requests/0/allocationMode","value":"ExactCount"},{"op":"add","path":"/spec/devices/requests/0/count","value":1}]`
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s v1alpha3 patch (-want +got):\n%s", op, diff)
		}
	}
	v2 := `{"apiVersion":"resource.claimbridge.dev/v1alpha2","kind":"ResourceClaimTemplate","metadata":{"name":"t","namespace":"ns"},"spec":{"spec":{"resourceClassName":"gpu.example.com"}}}`
	if got, want := patchOf(review("v1alpha2", "ResourceClaimTemplate", "", admissionv1.Create, v2)),
		`[{"op":"add","path":"/spec/spec/allocationMode","value":"WaitForFirstConsumer"}]`; got != want {
		t.Errorf("v1alpha2 template patch %s, want %s", got, want)
	}
	if got := patchOf(review("v1alpha3", "ResourceClaim", "status", admissionv1.Update, v3)); got != "" {
		t.Errorf("status write patched: %s", got)
	}
	if got := patchOf(review("v1alpha2", "ResourceClaim", "", admissionv1.Create, string(fixture(t, "v1alpha2")))); got != "" {
		t.Errorf("defaulted claim patched: %s", got)
	}
	// A v1alpha2 view of a claim stored without its defaults, written back:
	// its restore annotation of v1alpha3 is rewritten so that the claim is
	// stored with them (the annotation then records only what v1alpha2
	// cannot hold: here nothing, and the annotations go).
	view := `{"apiVersion":"resource.claimbridge.dev/v1alpha2","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns","annotations":{` +
		`"claimbridge.dev/restore-v1alpha3":"{\"spec\":{\"base\":\"f7db5b3a5438dc25\",\"patch\":[{\"op\":\"remove\",\"path\":\"/spec/devices/requests/0/allocationMode\"},{\"op\":\"remove\",\"path\":\"/spec/devices/requests/0/count\"}]},\"created\":\"annotations\"}"}},` +
		`"spec":{"allocationMode":"WaitForFirstConsumer","resourceClassName":"gpu.example.com"}}`
	if got, want := patchOf(review("v1alpha2", "ResourceClaim", "", admissionv1.Update, view)),
		`[{"op":"remove","path":"/metadata/annotations"}]`; got != want {
		t.Errorf("v1alpha2 view of an undefaulted claim: patch %s, want %s", got, want)
	}
	if resp := review("v1", "ResourceClaim", "", admissionv1.Create, v3); resp.Allowed || resp.Result == nil || resp.Result.Code != http.StatusBadRequest {
		t.Errorf("a version not served: %+v", resp)
	}
}
