package conversion_test

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/conversion"
)

func TestStoredDefaultsAnnotations(t *testing.T) {
	// A v1alpha3 claim stored without its defaults, read through v1alpha2:
	// its restore annotation records that the request had no mode and count.
	undefaulted := tblDecode(t, `{"apiVersion":"resource.claimbridge.dev/v1alpha3","kind":"ResourceClaim",
		"metadata":{"name":"c","namespace":"ns","annotations":{"team":"a"}},
		"spec":{"devices":{"requests":[{"name":"request","deviceClassName":"gpu"},{"name":"nic","deviceClassName":"nic","allocationMode":"All"}]}}}`)
	view, err := conversion.Convert(undefaulted, api.V1alpha2)
	if err != nil {
		t.Fatal(err)
	}
	annotations, present, changed, err := conversion.StoredDefaultsAnnotations(view)
	if err != nil || !changed || !present {
		t.Fatalf("annotations %v, present %v, changed %v, err %v; want new ones", annotations, present, changed, err)
	}
	// Written with them, the view is stored defaulted, and reads the same.
	written := tblDecode(t, tblJSON(t, view))
	written["metadata"].(map[string]interface{})["annotations"] = annotations
	stored, err := conversion.Convert(written, api.V1alpha3)
	if err != nil {
		t.Fatal(err)
	}
	want := tblDecode(t, `{"apiVersion":"resource.claimbridge.dev/v1alpha3","kind":"ResourceClaim",
		"metadata":{"name":"c","namespace":"ns","annotations":{"team":"a"}},
		"spec":{"devices":{"requests":[{"name":"request","deviceClassName":"gpu","allocationMode":"ExactCount","count":1},{"name":"nic","deviceClassName":"nic","allocationMode":"All"}]}}}`)
	if diff := cmp.Diff(want, tblDecode(t, tblJSON(t, stored))); diff != "" {
		t.Errorf("stored (-want +got):\n%s", diff)
	}
	again, err := conversion.Convert(stored, api.V1alpha2)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(tblDecode(t, tblJSON(t, written)), tblDecode(t, tblJSON(t, again))); diff != "" {
		t.Errorf("read again through v1alpha2 (-written +read):\n%s", diff)
	}

	// Unchanged, with nothing returned: a view of a defaulted claim, a view
	// without restore data of v1alpha3, objects of other versions (a
	// v1alpha3 one, and a v1beta1 one whose restore data of v1alpha3 a 1.32+
	// apiserver's defaults made stale: /default sees neither), and a view
	// whose spec was edited (its restore data of v1alpha3 no longer applies,
	// so what it stores is defaulted already; a write that changes the spec
	// is validation's to judge, not defaulting's).
	defaulted, err := conversion.Convert(want, api.V1alpha2)
	if err != nil {
		t.Fatal(err)
	}
	edited := tblDecode(t, tblJSON(t, view))
	edited["spec"].(map[string]interface{})["resourceClassName"] = "other"
	plain := tblDecode(t, `{"apiVersion":"resource.claimbridge.dev/v1alpha2","kind":"ResourceClaim",
		"metadata":{"name":"c","namespace":"ns","annotations":{"team":"a"}},
		"spec":{"resourceClassName":"gpu","allocationMode":"WaitForFirstConsumer"}}`)
	for name, obj := range map[string]map[string]interface{}{
		"defaulted": defaulted, "no restore annotation of v1alpha3": plain, "v1alpha3": undefaulted,
		"v1beta1 stored with its defaults": gaStoredWithDefaults(t), "edited spec": edited,
	} {
		if annotations, present, changed, err := conversion.StoredDefaultsAnnotations(obj); annotations != nil || present || changed || err != nil {
			t.Errorf("%s: annotations %v, present %v, changed %v, err %v; want none and no change", name, annotations, present, changed, err)
		}
	}

	// A view that does not convert: the error, and nothing else.
	malformed := tblDecode(t, tblJSON(t, view))
	malformed["status"] = map[string]interface{}{"allocation": map[string]interface{}{"resourceHandles": map[string]interface{}{}}}
	if annotations, present, changed, err := conversion.StoredDefaultsAnnotations(malformed); annotations != nil || present || changed || err == nil {
		t.Errorf("malformed: annotations %v, present %v, changed %v, err %v; want the error only", annotations, present, changed, err)
	}
}

// gaStoredWithDefaults is a v1beta1 claim converted from a v1alpha3 one
// without its defaults (its restore annotation of v1alpha3 keeps the
// controller v1beta1 has no place for), as a 1.32+ apiserver stores it: with
// each request's mode and count.
func gaStoredWithDefaults(t *testing.T) map[string]interface{} {
	t.Helper()
	v1beta1, err := conversion.Convert(tblDecode(t, `{"apiVersion":"resource.k8s.io/v1alpha3","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns"},
		"spec":{"controller":"dra.example.com","devices":{"requests":[{"name":"a","deviceClassName":"gpu"}]}}}`), api.V1beta1)
	if err != nil {
		t.Fatal(err)
	}
	req := v1beta1["spec"].(map[string]interface{})["devices"].(map[string]interface{})["requests"].([]interface{})[0].(map[string]interface{})
	req["allocationMode"], req["count"] = "ExactCount", json.Number("1")
	return v1beta1
}

// TestStoredDefaultsAnnotationsOfEachView: the views StoredDefaultsAnnotations
// rewrites, through v1alpha1 as through v1alpha2, and with the annotations
// they get: none at all (present false) where the restore annotation of
// v1alpha3 recorded only the defaults' absence and the object had no others.
// Written with them, each view is stored defaulted and reads the same.
func TestStoredDefaultsAnnotationsOfEachView(t *testing.T) {
	for _, tc := range []struct {
		name, stored, version string
		// want: the stored object once written with the annotations.
		want    string
		present bool
	}{{
		name: "two requests, through v1alpha1",
		stored: `{"apiVersion":"resource.claimbridge.dev/v1alpha3","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns","annotations":{"team":"a"}},
			"spec":{"devices":{"requests":[{"name":"request","deviceClassName":"gpu"},{"name":"nic","deviceClassName":"nic","allocationMode":"All"}]}}}`,
		version: api.V1alpha1,
		want: `{"apiVersion":"resource.claimbridge.dev/v1alpha3","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns","annotations":{"team":"a"}},
			"spec":{"devices":{"requests":[{"name":"request","deviceClassName":"gpu","allocationMode":"ExactCount","count":1},{"name":"nic","deviceClassName":"nic","allocationMode":"All"}]}}}`,
		present: true,
	}, {
		name: "one request, no other annotation",
		stored: `{"apiVersion":"resource.claimbridge.dev/v1alpha3","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns"},
			"spec":{"devices":{"requests":[{"name":"request","deviceClassName":"gpu"}]}}}`,
		version: api.V1alpha2,
		want: `{"apiVersion":"resource.claimbridge.dev/v1alpha3","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns"},
			"spec":{"devices":{"requests":[{"name":"request","deviceClassName":"gpu","allocationMode":"ExactCount","count":1}]}}}`,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			view, err := conversion.Convert(tblDecode(t, tc.stored), tc.version)
			if err != nil {
				t.Fatal(err)
			}
			annotations, present, changed, err := conversion.StoredDefaultsAnnotations(view)
			if err != nil || !changed || present != tc.present || (annotations != nil) != tc.present {
				t.Fatalf("annotations %v, present %v, changed %v, err %v; want changed, present %v", annotations, present, changed, err, tc.present)
			}
			written := tblDecode(t, tblJSON(t, view))
			meta := written["metadata"].(map[string]interface{})
			delete(meta, "annotations")
			if present {
				meta["annotations"] = annotations
			}
			stored, err := conversion.Convert(written, api.V1alpha3)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tblDecode(t, tc.want), tblDecode(t, tblJSON(t, stored))); diff != "" {
				t.Errorf("stored (-want +got):\n%s", diff)
			}
			again, err := conversion.Convert(stored, tc.version)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tblDecode(t, tblJSON(t, written)), tblDecode(t, tblJSON(t, again))); diff != "" {
				t.Errorf("read again through %s (-written +read):\n%s", tc.version, diff)
			}
		})
	}
}
