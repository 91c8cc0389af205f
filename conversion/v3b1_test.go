package conversion_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

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
	got, err := conversion.Convert(in, conversion.V1beta1)
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
