package webhook

import (
	"context"
	"encoding/json"
	"testing"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/conversion"
)

// FuzzDefaultHandler feeds /default's decider arbitrary claims (and old
// claims for updates) of every served version: it never fails with an
// internal error, a patch it answers applies with the JSON Patch library
// kube-apiserver uses, and its answer for the patched object is no patch:
// defaulting twice (a reinvocation) changes nothing more.
func FuzzDefaultHandler(f *testing.F) {
	for i, v := range versions {
		obj := fixture(&testing.T{}, v)
		f.Add(obj, []byte(nil), uint8(i))
		f.Add(obj, obj, uint8(i+3))
		// A copy of a claim allocated through v1alpha2, read in v, with its
		// status restore data.
		allocated := map[string]interface{}{
			"apiVersion": api.Group + "/v1alpha2", "kind": "ResourceClaim",
			"metadata": map[string]interface{}{"name": "c", "namespace": "ns"},
			"spec":     map[string]interface{}{"resourceClassName": "gpu", "allocationMode": "Immediate"},
			"status": map[string]interface{}{"driverName": "d", "allocation": map[string]interface{}{"shareable": false,
				"resourceHandles": []interface{}{map[string]interface{}{"driverName": "d", "data": "h"}}}},
		}
		if view, err := conversion.Convert(allocated, v); err == nil {
			delete(view, "status")
			raw, _ := json.Marshal(view)
			f.Add(raw, []byte(nil), uint8(i))
			f.Add(raw, obj, uint8(i+3))
		}
	}
	d := &defaulter{metrics: newMetrics()}
	handle := func(obj, old []byte, op admissionv1.Operation, version string) admission.Response {
		req := admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
			UID: "u", Operation: op, Name: "c", Namespace: "ns",
			Kind:   metav1.GroupVersionKind{Group: api.Group, Version: version, Kind: api.KindClaim},
			Object: runtime.RawExtension{Raw: obj},
		}}
		if op == admissionv1.Update {
			req.OldObject.Raw = old
		}
		return d.Handle(context.Background(), req)
	}
	f.Fuzz(func(t *testing.T, obj, old []byte, sel uint8) {
		version := versions[int(sel)%len(versions)]
		op := admissionv1.Create
		if sel/3%2 == 1 {
			op = admissionv1.Update
		}
		resp := handle(obj, old, op, version)
		if r := resp.Result; r != nil && r.Code == 500 {
			t.Fatalf("internal error: %s", r.Message)
		}
		if !resp.Allowed || len(resp.Patch) == 0 {
			return
		}
		patch, err := jsonpatch.DecodePatch(resp.Patch)
		if err != nil {
			t.Fatalf("patch %s does not decode: %v", resp.Patch, err)
		}
		patched, err := patch.Apply(obj)
		if err != nil {
			t.Fatalf("patch %s does not apply to %s: %v", resp.Patch, obj, err)
		}
		if again := handle(patched, old, op, version); len(again.Patch) != 0 {
			t.Fatalf("defaulting %s again patches %s (first patch %s)", patched, again.Patch, resp.Patch)
		}
	})
}
