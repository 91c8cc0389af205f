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
		{"v1alpha2 via v1alpha3, restore data not as conversion writes it", v2, conversion.V1alpha2, conversion.V1alpha3, malformed},
		{"v1alpha2 via v1alpha3, restore data made for another spec", v2, conversion.V1alpha2, conversion.V1alpha3, stale},
		{"v1alpha3 via v1alpha2, restore data made for another spec", v3, conversion.V1alpha3, conversion.V1alpha2, stale},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := tblDecode(t, tc.obj)
			in["metadata"].(map[string]interface{})["annotations"].(map[string]interface{})[conversion.RestoreAnnotation(tc.to)] = tc.annotation
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
