package validation

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/claimbridge/claimbridge/conversion"
	"github.com/claimbridge/claimbridge/validation/common"
)

// editRestore rewrites the restore annotation of version on o through edit,
// as a client editing it by hand would.
func editRestore(t *testing.T, o map[string]interface{}, version string, edit func(r map[string]interface{})) {
	t.Helper()
	ann := o["metadata"].(map[string]interface{})["annotations"].(map[string]interface{})
	key := conversion.RestoreAnnotation(version)
	var r map[string]interface{}
	if err := json.Unmarshal([]byte(ann[key].(string)), &r); err != nil {
		t.Fatalf("%s: %v", key, err)
	}
	edit(r)
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	ann[key] = string(data)
}

// setPatchValue sets the value of the patch operation on path.
func setPatchValue(t *testing.T, section, path string, value interface{}) func(r map[string]interface{}) {
	return func(r map[string]interface{}) {
		for _, op := range r[section].(map[string]interface{})["patch"].([]interface{}) {
			if op := op.(map[string]interface{}); op["path"] == path {
				op["value"] = value
				return
			}
		}
		t.Fatalf("no operation on %s in %v", path, r)
	}
}

func TestCreateThroughRestoreAnnotations(t *testing.T) {
	requireConversion(t)
	withSelector := `{"apiVersion":"resource.claimbridge.dev/v1alpha3","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns"},"spec":{"devices":{"requests":[{"name":"gpu","deviceClassName":"gpu.example.com","selectors":[{"cel":{"expression":"true"}}]}]}}}`
	noRequests := `{"apiVersion":"resource.claimbridge.dev/v1alpha3","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns"},"spec":{"devices":{"requests":[]}}}`
	immediate := `{"apiVersion":"resource.claimbridge.dev/v1alpha2","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns"},"spec":{"resourceClassName":"gpu.example.com","parametersRef":{"kind":"Params","name":"p"}}}`
	annotations := field.NewPath("metadata", "annotations")

	scenarios := map[string]struct {
		obj  func(t *testing.T) map[string]interface{}
		want field.ErrorList
	}{
		"copy-of-a-converted-view-is-valid": {
			obj: func(t *testing.T) map[string]interface{} { return mustConvert(t, obj(t, withSelector), "v1alpha1") },
		},
		"v1alpha3-claim-without-requests-is-valid": {
			// Its v1alpha2 view has no class; that is not the annotations' doing.
			obj: func(t *testing.T) map[string]interface{} { return obj(t, noRequests) },
		},
		"v1alpha1-create-smuggling-a-bad-cel-selector": {
			obj: func(t *testing.T) map[string]interface{} {
				o := mustConvert(t, obj(t, withSelector), "v1alpha1")
				editRestore(t, o, "v1alpha3", setPatchValue(t, "spec", "/spec/devices/requests/0/selectors", []interface{}{map[string]interface{}{"cel": map[string]interface{}{"expression": "1 + 1"}}}))
				return o
			},
			want: field.ErrorList{field.Invalid(annotations, common.OmittedValue,
				`the restore annotations make the object invalid as seen through v1alpha3: spec.devices.requests[0].selectors[0].cel.expression: Invalid value: "1 + 1": must evaluate to bool or the unknown type, not int`)},
		},
		"v1alpha3-create-smuggling-an-empty-parameters-kind": {
			obj: func(t *testing.T) map[string]interface{} {
				o := mustConvert(t, obj(t, immediate), "v1alpha3")
				editRestore(t, o, "v1alpha2", setPatchValue(t, "spec", "/spec/parametersRef", map[string]interface{}{"kind": "", "name": "p"}))
				return o
			},
			want: field.ErrorList{
				field.Invalid(annotations, common.OmittedValue, "the restore annotations make the object invalid as seen through v1alpha1: spec.parametersRef.kind: Required value"),
				field.Invalid(annotations, common.OmittedValue, "the restore annotations make the object invalid as seen through v1alpha2: spec.parametersRef.kind: Required value"),
			},
		},
	}
	scenarios["v1alpha1-create-smuggling-a-value-of-the-wrong-type"] = struct {
		obj  func(t *testing.T) map[string]interface{}
		want field.ErrorList
	}{
		obj: func(t *testing.T) map[string]interface{} {
			o := mustConvert(t, obj(t, withSelector), "v1alpha1")
			editRestore(t, o, "v1alpha3", setPatchValue(t, "spec", "/spec/devices/requests/0/selectors", "not a list"))
			return o
		},
		want: field.ErrorList{field.Invalid(annotations, common.OmittedValue,
			"the restore annotations make the object unusable as seen through v1alpha3: validating the v1alpha3 view: decoding object: json: cannot unmarshal string into Go struct field DeviceRequest.spec.devices.requests.selectors of type []v1alpha3.DeviceSelector")},
	}
	for name, sc := range scenarios {
		t.Run(name, func(t *testing.T) {
			resp, err := Validate(Request{Operation: Create, Object: sc.obj(t)})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(sc.want, resp.Errors); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}

// A valid v1alpha2 claim whose handles cannot be shown as v1alpha1 (32
// handles of 16 KiB exceed the annotation limit there) is validated as
// upstream 1.30 did, without an error for the missing view.
func TestUpdateOfObjectWithoutAView(t *testing.T) {
	requireConversion(t)
	handles := make([]interface{}, 32)
	for i := range handles {
		handles[i] = map[string]interface{}{"driverName": "gpu.example.com", "data": strings.Repeat("x", 16*1024)}
	}
	claim := func(reservedFor ...interface{}) map[string]interface{} {
		o := map[string]interface{}{
			"apiVersion": "resource.claimbridge.dev/v1alpha2", "kind": "ResourceClaim",
			"metadata": map[string]interface{}{"name": "c", "namespace": "ns", "resourceVersion": "1"},
			"spec":     map[string]interface{}{"resourceClassName": "gpu.example.com"},
			"status": map[string]interface{}{"driverName": "gpu.example.com",
				"allocation": map[string]interface{}{"resourceHandles": handles, "shareable": true}},
		}
		if len(reservedFor) > 0 {
			o["status"].(map[string]interface{})["reservedFor"] = reservedFor
		}
		return o
	}
	if _, err := conversion.Convert(claim(), "v1alpha1"); err == nil {
		t.Fatal("the claim was expected not to fit v1alpha1; the test no longer tests what it says")
	}
	for name, req := range map[string]Request{
		"status-update-adding-a-reservation": {Operation: Update, SubResource: "status", OldObject: claim(),
			Object: claim(map[string]interface{}{"resource": "pods", "name": "p", "uid": "1"})},
		"main-update": {Operation: Update, OldObject: claim(), Object: claim()},
	} {
		t.Run(name, func(t *testing.T) {
			resp, err := Validate(req)
			if err != nil {
				t.Fatal(err)
			}
			if len(resp.Errors) != 0 {
				t.Errorf("want no errors, got %v", resp.Errors)
			}
		})
	}
}
