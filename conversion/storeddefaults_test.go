package conversion_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimbridge/claimbridge/conversion"
)

func TestStoredDefaultsAnnotations(t *testing.T) {
	// A v1alpha3 claim stored without its defaults, read through v1alpha2:
	// its restore annotation records that the request had no mode and count.
	undefaulted := tblDecode(t, `{"apiVersion":"resource.claimbridge.dev/v1alpha3","kind":"ResourceClaim",
		"metadata":{"name":"c","namespace":"ns","annotations":{"team":"a"}},
		"spec":{"devices":{"requests":[{"name":"request","deviceClassName":"gpu"},{"name":"nic","deviceClassName":"nic","allocationMode":"All"}]}}}`)
	view, err := conversion.Convert(undefaulted, conversion.V1alpha2)
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
	stored, err := conversion.Convert(written, conversion.V1alpha3)
	if err != nil {
		t.Fatal(err)
	}
	want := tblDecode(t, `{"apiVersion":"resource.claimbridge.dev/v1alpha3","kind":"ResourceClaim",
		"metadata":{"name":"c","namespace":"ns","annotations":{"team":"a"}},
		"spec":{"devices":{"requests":[{"name":"request","deviceClassName":"gpu","allocationMode":"ExactCount","count":1},{"name":"nic","deviceClassName":"nic","allocationMode":"All"}]}}}`)
	if diff := cmp.Diff(want, tblDecode(t, tblJSON(t, stored))); diff != "" {
		t.Errorf("stored (-want +got):\n%s", diff)
	}
	again, err := conversion.Convert(stored, conversion.V1alpha2)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(tblDecode(t, tblJSON(t, written)), tblDecode(t, tblJSON(t, again))); diff != "" {
		t.Errorf("read again through v1alpha2 (-written +read):\n%s", diff)
	}

	// Unchanged: a view of a defaulted claim, a v1alpha3 object, and a view
	// whose spec is not what storage shows (a write that changes it is
	// validation's to judge, not defaulting's).
	defaulted, err := conversion.Convert(want, conversion.V1alpha2)
	if err != nil {
		t.Fatal(err)
	}
	edited := tblDecode(t, tblJSON(t, view))
	edited["spec"].(map[string]interface{})["resourceClassName"] = "other"
	for name, obj := range map[string]map[string]interface{}{"defaulted": defaulted, "v1alpha3": undefaulted, "edited spec": edited} {
		if _, _, changed, err := conversion.StoredDefaultsAnnotations(obj); changed || err != nil {
			t.Errorf("%s: changed %v, err %v; want no change", name, changed, err)
		}
	}
}
