package webhook

import (
	"context"
	"encoding/json"
	"net/http"
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
)

// TestDefaultHandlerScope: /default allows what it does not default
// (DELETE, CONNECT) without looking at it, and refuses with 400, as
// /validate does, a kind it does not serve and an object that is no JSON
// object.
func TestDefaultHandlerScope(t *testing.T) {
	claim := metav1.GroupVersionKind{Group: api.Group, Version: "v1alpha3", Kind: api.KindClaim}
	for name, tc := range map[string]struct {
		op     admissionv1.Operation
		kind   metav1.GroupVersionKind
		object string
		want   string // "": allowed without a patch, else in the message of a 400
	}{
		"delete":       {op: admissionv1.Delete, kind: claim},
		"connect":      {op: admissionv1.Connect, kind: metav1.GroupVersionKind{Version: "v1", Kind: "Pod"}},
		"other-group":  {op: admissionv1.Create, kind: metav1.GroupVersionKind{Group: "resource.k8s.io", Version: "v1alpha3", Kind: api.KindClaim}, object: string(fixture(t, "v1alpha3")), want: "not served"},
		"other-kind":   {op: admissionv1.Create, kind: metav1.GroupVersionKind{Group: api.Group, Version: "v1alpha3", Kind: "DeviceClass"}, object: `{}`, want: "not served"},
		"no-object":    {op: admissionv1.Create, kind: claim, want: "object is empty"},
		"object-array": {op: admissionv1.Update, kind: claim, object: `[]`, want: "object is not a JSON object"},
	} {
		t.Run(name, func(t *testing.T) {
			req := admissionv1.AdmissionRequest{UID: "u", Operation: tc.op, Name: "c", Namespace: "ns", Kind: tc.kind}
			if tc.object != "" {
				req.Object.Raw = []byte(tc.object)
				req.OldObject.Raw = []byte(tc.object)
			}
			resp := (&defaulter{metrics: newMetrics()}).Handle(context.Background(), admission.Request{AdmissionRequest: req})
			if tc.want == "" {
				if !resp.Allowed || resp.Result != nil || len(resp.Patch) != 0 {
					t.Errorf("allowed %v, status %+v, patch %s; want allowed without a patch", resp.Allowed, resp.Result, resp.Patch)
				}
				return
			}
			if resp.Allowed || resp.Result == nil || resp.Result.Code != http.StatusBadRequest || !strings.Contains(resp.Result.Message, tc.want) {
				t.Errorf("allowed %v, status %+v; want a denial 400 containing %q", resp.Allowed, resp.Result, tc.want)
			}
		})
	}
}

// TestDefaultHandlerDecodesOnlyWhatItNeeds: /default decodes the stored
// object of an update only when the update gets defaults or carries restore
// annotations; an update that needs neither is allowed without a patch
// whatever its oldObject (/validate refuses what is broken), and one that
// needs it is refused with 400 when it does not decode.
func TestDefaultHandlerDecodesOnlyWhatItNeeds(t *testing.T) {
	undefaulted := `{"apiVersion":"resource.claimbridge.dev/v1alpha3","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns"},` +
		`"spec":{"devices":{"requests":[{"name":"gpu","deviceClassName":"gpu.example.com"}]}}}`
	var claim map[string]interface{}
	if err := json.Unmarshal(fixture(t, "v1alpha3"), &claim); err != nil {
		t.Fatal(err)
	}
	claim["metadata"].(map[string]interface{})["annotations"] = map[string]interface{}{conversion.RestoreAnnotation("v1alpha2"): "{}"}
	raw, err := json.Marshal(claim)
	if err != nil {
		t.Fatal(err)
	}
	restoreAnnotated := string(raw)
	// Its own version's restore annotation is not stored (converting the
	// claim to the storage version applies it): nothing to keep from old.
	if err := json.Unmarshal(fixture(t, "v1alpha2"), &claim); err != nil {
		t.Fatal(err)
	}
	claim["metadata"].(map[string]interface{})["annotations"] = map[string]interface{}{conversion.RestoreAnnotation("v1alpha2"): "{}"}
	if raw, err = json.Marshal(claim); err != nil {
		t.Fatal(err)
	}
	ownAnnotation := string(raw)
	for name, tc := range map[string]struct {
		version string // "": v1alpha3
		object  string
		code    int32 // 0: allowed
	}{
		"defaulted":              {object: string(fixture(t, "v1alpha3"))},
		"undefaulted":            {object: undefaulted, code: http.StatusBadRequest},
		"restore-annotated":      {object: restoreAnnotated, code: http.StatusBadRequest},
		"own-restore-annotation": {version: "v1alpha2", object: ownAnnotation},
	} {
		t.Run(name, func(t *testing.T) {
			version := tc.version
			if version == "" {
				version = "v1alpha3"
			}
			resp := (&defaulter{metrics: newMetrics()}).Handle(context.Background(), admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
				UID: "u", Operation: admissionv1.Update, Name: "c", Namespace: "ns",
				Kind:      metav1.GroupVersionKind{Group: api.Group, Version: version, Kind: api.KindClaim},
				Object:    runtime.RawExtension{Raw: []byte(tc.object)},
				OldObject: runtime.RawExtension{Raw: []byte(`[]`)},
			}})
			if tc.code == 0 {
				if !resp.Allowed || resp.Result != nil || len(resp.Patch) != 0 {
					t.Errorf("allowed %v, status %+v, patch %s; want allowed without a patch", resp.Allowed, resp.Result, resp.Patch)
				}
				return
			}
			if resp.Allowed || resp.Result == nil || resp.Result.Code != tc.code || !strings.Contains(resp.Result.Message, "oldObject") {
				t.Errorf("allowed %v, status %+v; want a denial %d for the oldObject", resp.Allowed, resp.Result, tc.code)
			}
		})
	}
}

// TestDefaultTemplateStatusRestoreData: only a claim's status restore data
// is taken out on a write (a claim has status); a template carrying such an
// annotation (copied from a claim) gets no patch and no warning from
// /default, whatever /validate makes of it.
func TestDefaultTemplateStatusRestoreData(t *testing.T) {
	allocated := map[string]interface{}{
		"apiVersion": api.Group + "/v1alpha2", "kind": api.KindClaim,
		"metadata": map[string]interface{}{"name": "c", "namespace": "ns"},
		"spec":     map[string]interface{}{"resourceClassName": "gpu", "allocationMode": "Immediate"},
		"status": map[string]interface{}{"driverName": "d", "allocation": map[string]interface{}{"shareable": false,
			"resourceHandles": []interface{}{map[string]interface{}{"driverName": "d", "data": "h"}}}},
	}
	stored, err := conversion.Convert(allocated, "v1alpha3")
	if err != nil {
		t.Fatal(err)
	}
	ann := stored["metadata"].(map[string]interface{})["annotations"].(map[string]interface{})
	if !strings.Contains(ann[conversion.RestoreAnnotation("v1alpha2")].(string), `"status"`) {
		t.Fatalf("annotations %v hold no status restore data (else this test proves nothing)", ann)
	}
	raw, err := json.Marshal(map[string]interface{}{"apiVersion": api.Group + "/v1alpha3", "kind": "ResourceClaimTemplate",
		"metadata": map[string]interface{}{"name": "t", "namespace": "ns", "annotations": ann},
		"spec":     map[string]interface{}{"spec": stored["spec"]}})
	if err != nil {
		t.Fatal(err)
	}
	resp := (&defaulter{metrics: newMetrics()}).Handle(context.Background(), admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
		UID: "u", Operation: admissionv1.Create, Name: "t", Namespace: "ns",
		Kind:   metav1.GroupVersionKind{Group: api.Group, Version: "v1alpha3", Kind: "ResourceClaimTemplate"},
		Object: runtime.RawExtension{Raw: raw},
	}})
	if !resp.Allowed || resp.Result != nil || len(resp.Patch) != 0 || len(resp.Warnings) != 0 {
		t.Errorf("allowed %v, status %+v, patch %s, warnings %q; want allowed without a patch or warnings", resp.Allowed, resp.Result, resp.Patch, resp.Warnings)
	}
}

// TestDefaultUpdateKeepsStoredManagedFields: through the handler, an
// unchanged apply of requests without their defaults, which kube-apiserver
// timed anew and reordered, gets the defaults and the stored managedFields
// back (TestStoredManagedFields has the cases).
func TestDefaultUpdateKeepsStoredManagedFields(t *testing.T) {
	const (
		team    = `{"manager":"team","operation":"Apply","apiVersion":"resource.claimbridge.dev/v1alpha3","time":"TIME","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:devices":{"f:requests":{}}}}}`
		labeler = `{"manager":"labeler","operation":"Apply","apiVersion":"resource.claimbridge.dev/v1alpha2","time":"2020-01-01T00:00:02Z","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:labels":{"f:tier":{}}}}}`
	)
	claim := func(managedFields, request string) string {
		return `{"apiVersion":"resource.claimbridge.dev/v1alpha3","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns","resourceVersion":"7","labels":{"tier":"x"},` +
			`"managedFields":` + managedFields + `},"spec":{"devices":{"requests":[` + request + `]}}}`
	}
	storedFields := `[` + strings.Replace(team, "TIME", "2020-01-01T00:00:00Z", 1) + `,` + labeler + `]`
	old := claim(storedFields, `{"name":"gpu","deviceClassName":"gpu.example.com","allocationMode":"ExactCount","count":1}`)
	obj := claim(`[`+labeler+`,`+strings.Replace(team, "TIME", "2026-11-25T04:49:10Z", 1)+`]`, `{"name":"gpu","deviceClassName":"gpu.example.com"}`)
	resp := (&defaulter{metrics: newMetrics()}).Handle(context.Background(), admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
		UID: "u", Operation: admissionv1.Update, Name: "c", Namespace: "ns",
		Kind:      metav1.GroupVersionKind{Group: api.Group, Version: "v1alpha3", Kind: api.KindClaim},
		Object:    runtime.RawExtension{Raw: []byte(obj)},
		OldObject: runtime.RawExtension{Raw: []byte(old)},
	}})
	want := `[{"op":"add","path":"/spec/devices/requests/0/allocationMode","value":"ExactCount"},{"op":"add","path":"/spec/devices/requests/0/count","value":1},` +
		`{"op":"add","path":"/metadata/managedFields","value":` + storedFields + `}]`
	if !resp.Allowed || resp.Result != nil {
		t.Fatalf("allowed %v, status %+v", resp.Allowed, resp.Result)
	}
	var got, wantOps []defaulting.Operation
	if err := json.Unmarshal(resp.Patch, &got); err != nil {
		t.Fatalf("patch %s: %v", resp.Patch, err)
	}
	if err := json.Unmarshal([]byte(want), &wantOps); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(wantOps, got); d != "" {
		t.Errorf("patch (-want +got):\n%s", d)
	}
}

// TestDefaultViewWithStoredDefaults: a v1alpha2 view of a claim stored with
// its defaults, its restore-v1alpha3 annotation recording what v1alpha2
// cannot hold, is written back without a patch: the annotation already
// stores the defaults.
func TestDefaultViewWithStoredDefaults(t *testing.T) {
	var stored map[string]interface{}
	if err := json.Unmarshal(fixture(t, "v1alpha3"), &stored); err != nil {
		t.Fatal(err)
	}
	view, err := conversion.Convert(stored, "v1alpha2")
	if err != nil {
		t.Fatal(err)
	}
	if ann, _ := view["metadata"].(map[string]interface{})["annotations"].(map[string]interface{}); ann[conversion.RestoreAnnotation("v1alpha3")] == nil {
		t.Fatalf("the v1alpha2 view has no restore-v1alpha3 annotation (else this test proves nothing): %v", ann)
	}
	raw, err := json.Marshal(view)
	if err != nil {
		t.Fatal(err)
	}
	resp := (&defaulter{metrics: newMetrics()}).Handle(context.Background(), admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
		UID: "u", Operation: admissionv1.Update, Name: "c", Namespace: "ns",
		Kind:      metav1.GroupVersionKind{Group: api.Group, Version: "v1alpha2", Kind: api.KindClaim},
		Object:    runtime.RawExtension{Raw: raw},
		OldObject: runtime.RawExtension{Raw: raw},
	}})
	if !resp.Allowed || resp.Result != nil || len(resp.Patch) != 0 || len(resp.Warnings) != 0 {
		t.Errorf("allowed %v, status %+v, patch %s, warnings %q; want allowed without a patch", resp.Allowed, resp.Result, resp.Patch, resp.Warnings)
	}
}
