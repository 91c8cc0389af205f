package webhook

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/conversion"
	"github.com/claimbridge/claimbridge/defaulting"
	"github.com/claimbridge/claimbridge/validation"
)

// TestDefaultCreateDropsStatusRestoreData: a copy of a claim allocated
// through v1alpha2, as read through v1alpha3 (a backup, re-created by a
// restore tool that strips status and server-set metadata but keeps the
// annotations), carries status data in its restore-v1alpha2 annotation,
// which /validate refuses on a create ("a create cannot set status"). The
// defaulter takes that data out on a create, with a warning, and keeps the
// annotation's spec data, so the copy is created with its meaning in every
// version; an update is left to /validate, which refuses it as before.
func TestDefaultCreateDropsStatusRestoreData(t *testing.T) {
	allocated := map[string]interface{}{
		"apiVersion": api.Group + "/v1alpha2", "kind": "ResourceClaim",
		"metadata": map[string]interface{}{"name": "c", "namespace": "ns"},
		"spec": map[string]interface{}{"resourceClassName": "gpu", "allocationMode": "Immediate",
			"parametersRef": map[string]interface{}{"kind": "ConfigMap", "name": "params"}},
		"status": map[string]interface{}{
			"driverName": "gpu.example.com",
			"allocation": map[string]interface{}{"shareable": false, "resourceHandles": []interface{}{
				map[string]interface{}{"driverName": "gpu.example.com", "data": "handle"}}},
		},
	}
	stored, err := conversion.Convert(allocated, "v1alpha3")
	if err != nil {
		t.Fatal(err)
	}
	// What a restore tool creates: the v1alpha3 view without status.
	backup := api.DeepCopyJSON(stored)
	delete(backup, "status")
	key := conversion.RestoreAnnotation("v1alpha2")
	create := func(obj map[string]interface{}) (validation.Response, error) {
		return validation.Validate(validation.Request{Operation: validation.Create, Object: obj})
	}
	if resp, err := create(backup); err != nil || len(resp.Errors) != 1 || !strings.Contains(resp.Errors[0].Error(), "holds status restore data") {
		t.Fatalf("the backup as read: %v %v, want the status restore data refused on create (else this test proves nothing)", resp.Errors, err)
	}

	handle := func(op admissionv1.Operation, obj, old map[string]interface{}) admission.Response {
		raw, _ := json.Marshal(obj)
		req := admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
			UID: "u", Operation: op, Name: "c", Namespace: "ns",
			Kind:   metav1.GroupVersionKind{Group: api.Group, Version: "v1alpha3", Kind: "ResourceClaim"},
			Object: runtime.RawExtension{Raw: raw},
		}}
		if old != nil {
			req.OldObject.Raw, _ = json.Marshal(old)
		}
		return (&defaulter{metrics: newMetrics()}).Handle(context.Background(), req)
	}
	resp := handle(admissionv1.Create, backup, nil)
	if !resp.Allowed {
		t.Fatalf("not allowed: %+v", resp.Result)
	}
	wantWarnings := []string{"metadata.annotations[" + key + "]: its status restore data was removed: a created claim starts without status"}
	if diff := cmp.Diff(wantWarnings, resp.Warnings); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
	var ops []defaulting.Operation
	if err := json.Unmarshal(resp.Patch, &ops); err != nil {
		t.Fatalf("patch %s: %v", resp.Patch, err)
	}
	created := api.DeepCopyJSON(backup)
	if err := defaulting.Apply(created, ops); err != nil {
		t.Fatalf("applying %s: %v", resp.Patch, err)
	}
	if resp, err := create(created); err != nil || len(resp.Errors) != 0 {
		t.Fatalf("the defaulted backup: %v %v, want valid", resp.Errors, err)
	}
	ann := created["metadata"].(map[string]interface{})["annotations"].(map[string]interface{})
	if strings.Contains(ann[key].(string), `"status"`) || !strings.Contains(ann[key].(string), `"spec"`) {
		t.Errorf("%s = %s, want its spec data without status data", key, ann[key])
	}
	// Created, the copy means what the original spec meant through v1alpha2,
	// without an allocation.
	view, err := conversion.Convert(created, "v1alpha2")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(allocated["spec"], view["spec"]); diff != "" {
		t.Errorf("v1alpha2 spec of the created copy (-want +got):\n%s", diff)
	}
	if st, _ := view["status"].(map[string]interface{}); len(st) != 0 {
		t.Errorf("v1alpha2 status of the created copy %v, want none", st)
	}

	// Applied again (kubectl apply, a GitOps sync of the backup): the update
	// keeps the stored object's status data (none) instead of the
	// manifest's, which /validate refuses ("the update changes its status
	// restore data"), with a warning.
	storedObj := api.DeepCopyJSON(created)
	storedObj["metadata"].(map[string]interface{})["resourceVersion"] = "1"
	again := api.DeepCopyJSON(backup)
	again["metadata"].(map[string]interface{})["resourceVersion"] = "1"
	update := func(obj map[string]interface{}) (validation.Response, error) {
		return validation.Validate(validation.Request{Operation: validation.Update, Object: obj, OldObject: storedObj})
	}
	if resp, err := update(again); err != nil || len(resp.Errors) == 0 {
		t.Fatalf("applying the backup again as sent: %v %v, want it refused (else this part proves nothing)", resp.Errors, err)
	}
	resp = handle(admissionv1.Update, again, storedObj)
	wantWarnings = []string{"metadata.annotations[" + key + "]: its status restore data was kept as stored: status is written through the status subresource"}
	if diff := cmp.Diff(wantWarnings, resp.Warnings); diff != "" {
		t.Errorf("update warnings (-want +got):\n%s", diff)
	}
	ops = nil
	if err := json.Unmarshal(resp.Patch, &ops); err != nil {
		t.Fatalf("update patch %s: %v", resp.Patch, err)
	}
	if err := defaulting.Apply(again, ops); err != nil {
		t.Fatalf("applying %s: %v", resp.Patch, err)
	}
	if resp, err := update(again); err != nil || len(resp.Errors) != 0 {
		t.Errorf("the backup applied again, defaulted: %v %v, want valid", resp.Errors, err)
	}
	// An update that keeps the stored status data gets no patch for it.
	if resp := handle(admissionv1.Update, storedObj, storedObj); len(resp.Warnings) != 0 || strings.Contains(string(resp.Patch), "annotations") {
		t.Errorf("unchanged update: warnings %v, patch %s", resp.Warnings, resp.Patch)
	}
}
