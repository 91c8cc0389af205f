package conversion_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/conversion"
)

// TestUnappliedRestoreDataMakesNoOlderBuildOutput: restore data that is not
// applied (not as conversion writes it, or made for another spec) says
// nothing about which build wrote the object, so a spec without the
// default the step writes for its target (allocationMode of a v1alpha2
// claim, mode and count of a v1alpha3 request) keeps that absence in the
// restore data of the way back: converted there and back, the claim is
// its original again, without the annotation that was not applied.
func TestUnappliedRestoreDataMakesNoOlderBuildOutput(t *testing.T) {
	const (
		v2 = `{"apiVersion":"resource.claimbridge.dev/v1alpha2","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns","annotations":{"team":"a"}},
			"spec":{"resourceClassName":"gpu"}}`
		v3 = `{"apiVersion":"resource.claimbridge.dev/v1alpha3","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns","annotations":{"team":"a"}},
			"spec":{"devices":{"requests":[{"name":"request","deviceClassName":"gpu"}]}}}`
		malformed = `{"spec":{"base":"x","patch":[{"op":"test","path":"/spec/controller","value":"c"}]}}`
		stale     = `{"spec":{"base":"x","patch":[{"op":"add","path":"/spec/controller","value":"c"}]}}`
	)
	for _, tc := range []struct {
		name, obj, from, to, annotation string
	}{
		{"v1alpha2 via v1alpha3, restore data not as conversion writes it", v2, api.V1alpha2, api.V1alpha3, malformed},
		{"v1alpha2 via v1alpha3, restore data made for another spec", v2, api.V1alpha2, api.V1alpha3, stale},
		{"v1alpha3 via v1alpha2, restore data made for another spec", v3, api.V1alpha3, api.V1alpha2, stale},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := tblDecode(t, tc.obj)
			in["metadata"].(map[string]interface{})["annotations"].(map[string]interface{})[api.RestoreAnnotation(tc.to)] = tc.annotation
			there, err := conversion.Convert(api.DeepCopyJSON(in), tc.to)
			if err != nil {
				t.Fatal(err)
			}
			back, err := conversion.Convert(there, tc.from)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tblDecode(t, tc.obj), back); diff != "" {
				t.Errorf("back in %s (-want: the original without the annotation, +got):\n%s", tc.from, diff)
			}
		})
	}
}

// TestDroppedRestoreDataNamesWhatItWouldRestore: the warning for restore
// data that is not applied names the fields its section's operations would
// have added or replaced, not those it would have removed (their absence is
// no content) nor those of operations outside the section (never applied);
// data that would have restored no field is not reported.
func TestDroppedRestoreDataNamesWhatItWouldRestore(t *testing.T) {
	const path = "metadata.annotations[claimbridge.dev/restore-v1alpha3].spec"
	for _, tc := range []struct {
		name, annotation string
		want             []string
	}{{
		name:       "made for another spec",
		annotation: `{"spec":{"base":"x","patch":[{"op":"remove","path":"/spec/a"},{"op":"add","path":"/spec/controller","value":"c"},{"op":"add","path":"/status/b","value":"d"}]}}`,
		want:       []string{"its spec data was made for another spec than the object has (changed through another version since, or written back by an apiserver that adds defaults and leaves out empty fields, as one of a later release does with a GA version) and is not applied: what only v1alpha3 held there is not restored: spec.controller"},
	}, {
		name:       "not as conversion writes it",
		annotation: `{"spec":{"base":"x","patch":[{"op":"remove","path":"/spec/a"},{"op":"replace","path":"/spec/devices/requests/0/name","value":"b"},{"op":"add","path":"/spec/controller","value":5}]}}`,
		want:       []string{"its spec data is not as conversion writes it and is not applied: what only v1alpha3 held there is not restored: spec.devices.requests[0].name, spec.controller"},
	}, {
		name:       "only removals",
		annotation: `{"spec":{"base":"x","patch":[{"op":"remove","path":"/spec/a"},{"op":"remove","path":"spec/b"}]}}`,
	}, {
		name:       "only removals and operations outside the section",
		annotation: `{"spec":{"base":"x","patch":[{"op":"remove","path":"/spec/a"},{"op":"add","path":"/status/b","value":"c"}]}}`,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			v1 := tblDecode(t, `{"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns","annotations":{}},
				"spec":{"devices":{"requests":[{"name":"r","exactly":{"deviceClassName":"gpu","allocationMode":"ExactCount","count":1}}]}}}`)
			v1["metadata"].(map[string]interface{})["annotations"].(map[string]interface{})[api.RestoreAnnotation(api.V1alpha3)] = tc.annotation
			_, ws, err := conversion.ConvertWithWarnings(v1, api.V1alpha3)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, w := range ws {
				if w.Path == path {
					got = append(got, w.Message)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("warnings at %s (-want +got):\n%s\nall: %v", path, diff, ws)
			}
		})
	}
}

// TestRestoreOperationsOnNoArrayElementAreSkipped: an operation of a restore
// patch whose path has an array index that is no element of the array
// (negative, the length or beyond, not a number), in its last token or on
// the way to it, or that removes an element (diff replaces arrays of
// another length whole), writes nothing; the rest of the patch applies.
func TestRestoreOperationsOnNoArrayElementAreSkipped(t *testing.T) {
	in := tblDecode(t, `{"apiVersion":"resource.claimbridge.dev/v1alpha3","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns"},
		"spec":{"devices":{"requests":[{"name":"request","deviceClassName":"gpu","allocationMode":"ExactCount","count":1}]},"unknown":true}}`)
	// A genuine restore-v1alpha3 annotation: the one of the v1alpha2 view.
	v2, err := conversion.Convert(api.DeepCopyJSON(in), api.V1alpha2)
	if err != nil {
		t.Fatal(err)
	}
	genuine := v2["metadata"].(map[string]interface{})["annotations"].(map[string]interface{})[api.RestoreAnnotation(api.V1alpha3)].(string)
	request := map[string]interface{}{"name": "other", "deviceClassName": "other"}
	for name, op := range map[string]map[string]interface{}{
		"replace the element after the last": {"op": "replace", "path": "/spec/devices/requests/1", "value": request},
		"replace the element at -1":          {"op": "replace", "path": "/spec/devices/requests/-1", "value": request},
		"replace the element at a name":      {"op": "replace", "path": "/spec/devices/requests/x", "value": request},
		"remove an element":                  {"op": "remove", "path": "/spec/devices/requests/0"},
		"add in the element after the last":  {"op": "add", "path": "/spec/devices/requests/1/name", "value": "other"},
		"add in the element at -1":           {"op": "add", "path": "/spec/devices/requests/-1/name", "value": "other"},
		"add in the element at a name":       {"op": "add", "path": "/spec/devices/requests/x/name", "value": "other"},
	} {
		t.Run(name, func(t *testing.T) {
			r := tblDecode(t, genuine)
			spec := r["spec"].(map[string]interface{})
			spec["patch"] = append(spec["patch"].([]interface{}), op)
			obj := api.DeepCopyJSON(v2)
			obj["metadata"].(map[string]interface{})["annotations"].(map[string]interface{})[api.RestoreAnnotation(api.V1alpha3)] = tblJSON(t, r)
			got, err := conversion.Convert(obj, api.V1alpha3)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(in["spec"], got["spec"]); diff != "" {
				t.Errorf("v1alpha3 spec, want the original (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRestoreRemoveIgnoresAValue: a remove operation of a restore patch
// that carries a value (RFC 6902 ignores it) is applied whatever the
// value's JSON type: only the values a patch writes must fit their field.
func TestRestoreRemoveIgnoresAValue(t *testing.T) {
	in := tblDecode(t, `{"apiVersion":"resource.claimbridge.dev/v1alpha3","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns"},
		"spec":{"devices":{"requests":[{"name":"request","deviceClassName":"gpu","allocationMode":"ExactCount","count":1}]}}}`)
	mapped, err := conversion.Convert(api.DeepCopyJSON(in), api.V1alpha2)
	if err != nil {
		t.Fatal(err)
	}
	// A genuine restore-v1alpha2 annotation: the v1alpha2 view with an
	// unknown spec field, stored.
	v2 := api.DeepCopyJSON(mapped)
	v2["spec"].(map[string]interface{})["unknown"] = true
	back, err := conversion.Convert(v2, api.V1alpha3)
	if err != nil {
		t.Fatal(err)
	}
	annotations := back["metadata"].(map[string]interface{})["annotations"].(map[string]interface{})
	r := tblDecode(t, annotations[api.RestoreAnnotation(api.V1alpha2)].(string))
	spec := r["spec"].(map[string]interface{})
	spec["patch"] = append(spec["patch"].([]interface{}), map[string]interface{}{"op": "remove", "path": "/spec/resourceClassName", "value": 5.0})
	annotations[api.RestoreAnnotation(api.V1alpha2)] = tblJSON(t, r)
	got, err := conversion.Convert(back, api.V1alpha2)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(tblDecode(t, `{"allocationMode":"WaitForFirstConsumer","unknown":true}`), got["spec"]); diff != "" {
		t.Errorf("v1alpha2 spec (-want +got):\n%s", diff)
	}
}
