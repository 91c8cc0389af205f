package conversion_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/conversion"
)

// TestResultsGetAdminAccessOfTheirRequest: from v1alpha3 to v1beta1 a result
// gets adminAccess true when its request asks for admin access, and no
// adminAccess otherwise (a 1.32+ consumer reads a result without it as not
// admin, as the request meant).
func TestResultsGetAdminAccessOfTheirRequest(t *testing.T) {
	in := tblDecode(t, `{"apiVersion":"resource.k8s.io/v1alpha3","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns"},
		"spec":{"devices":{"requests":[{"name":"a","deviceClassName":"gpu","adminAccess":true},{"name":"b","deviceClassName":"gpu","adminAccess":false},{"name":"c","deviceClassName":"gpu"}]}},
		"status":{"allocation":{"devices":{"results":[
			{"request":"a","driver":"d","pool":"p","device":"0"},
			{"request":"b","driver":"d","pool":"p","device":"1"},
			{"request":"c","driver":"d","pool":"p","device":"2"},
			{"request":"a","driver":"d","pool":"p","device":"3"}]}}}}`)
	got, err := conversion.Convert(in, api.V1beta1)
	if err != nil {
		t.Fatal(err)
	}
	want := tblDecode(t, `{"allocation":{"devices":{"results":[
		{"request":"a","driver":"d","pool":"p","device":"0","adminAccess":true},
		{"request":"b","driver":"d","pool":"p","device":"1"},
		{"request":"c","driver":"d","pool":"p","device":"2"},
		{"request":"a","driver":"d","pool":"p","device":"3","adminAccess":true}]}}}`)
	if diff := cmp.Diff(want, got["status"]); diff != "" {
		t.Errorf("v1beta1 status (-want +got):\n%s", diff)
	}
}

// TestNullsStayNullBetweenV1alpha3AndV1beta1: a spec's devices, an
// allocation, and an allocation's devices that are null stay null between
// v1alpha3 and v1beta1, both ways, with no restore data: null is kept as
// null, not left out and restored on the way back.
func TestNullsStayNullBetweenV1alpha3AndV1beta1(t *testing.T) {
	for _, sections := range []string{
		`"spec":{"devices":null},"status":{"allocation":{"devices":null}}`,
		`"spec":{"devices":{"requests":[{"name":"r","deviceClassName":"gpu"}]}},"status":{"allocation":null}`,
	} {
		for _, tc := range []struct{ from, to string }{
			{api.V1alpha3, api.V1beta1},
			{api.V1beta1, api.V1alpha3},
		} {
			t.Run(tc.from+" to "+tc.to, func(t *testing.T) {
				in := tblDecode(t, `{"apiVersion":"resource.k8s.io/`+tc.from+`","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns"},`+sections+`}`)
				got, err := conversion.Convert(in, tc.to)
				if err != nil {
					t.Fatal(err)
				}
				want := tblDecode(t, `{"apiVersion":"resource.k8s.io/`+tc.to+`","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns"},`+sections+`}`)
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("%s (-want +got):\n%s", sections, diff)
				}
			})
		}
	}
}
