package conversion_test

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/conversion"
)

// TestExactlyWinsOverAStrayFlatField: a v1 or v1beta2 request with an
// unknown flat field beside the same field under exactly asks a 1.33+
// consumer for exactly's; v1beta1 and the alpha versions must ask for the
// same (the stray field travels in the restore annotation and comes back).
func TestExactlyWinsOverAStrayFlatField(t *testing.T) {
	in := func(version string) map[string]interface{} {
		var obj map[string]interface{}
		if err := json.Unmarshal([]byte(`{"apiVersion":"resource.k8s.io/`+version+`","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns"},
			"spec":{"devices":{"requests":[{"name":"r","deviceClassName":"stray","allocationMode":"All",
			"exactly":{"deviceClassName":"right","allocationMode":"ExactCount","count":2}}]}}}`), &obj); err != nil {
			t.Fatal(err)
		}
		return obj
	}
	for _, from := range []string{api.V1, api.V1beta2} {
		for _, to := range []string{api.V1beta1, api.V1alpha3} {
			t.Run(from+"-to-"+to, func(t *testing.T) {
				out, err := conversion.Convert(in(from), to)
				if err != nil {
					t.Fatal(err)
				}
				request := out["spec"].(map[string]interface{})["devices"].(map[string]interface{})["requests"].([]interface{})[0].(map[string]interface{})
				got := map[string]interface{}{"deviceClassName": request["deviceClassName"], "allocationMode": request["allocationMode"], "count": request["count"]}
				want := map[string]interface{}{"deviceClassName": "right", "allocationMode": "ExactCount", "count": float64(2)}
				if d := cmp.Diff(want, got); d != "" {
					t.Errorf("request (-want +got):\n%s", d)
				}
				back, err := conversion.Convert(out, from)
				if err != nil {
					t.Fatal(err)
				}
				if d := cmp.Diff(in(from), back); d != "" {
					t.Errorf("round trip (-want +got):\n%s", d)
				}
			})
		}
	}
}

// TestRequestsBetweenV1beta1AndV1beta2: from v1beta1 to v1beta2 the flat
// fields of a request for one kind of device move under exactly, and a
// request without any of them (firstAvailable, or only a name) gets no
// exactly (v1beta2 allows exactly or firstAvailable, not both); back in
// v1beta1 the requests are the original ones.
func TestRequestsBetweenV1beta1AndV1beta2(t *testing.T) {
	const requests = `[{"name":"a","firstAvailable":[{"name":"x","deviceClassName":"gpu","count":2}]},{"name":"b"},
		{"name":"c","deviceClassName":"gpu","allocationMode":"ExactCount","count":2,"adminAccess":true}]`
	in := tblDecode(t, `{"apiVersion":"resource.k8s.io/v1beta1","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns"},
		"spec":{"devices":{"requests":`+requests+`}}}`)
	got, err := conversion.Convert(in, api.V1beta2)
	if err != nil {
		t.Fatal(err)
	}
	want := tblDecode(t, `{"apiVersion":"resource.k8s.io/v1beta2","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns"},
		"spec":{"devices":{"requests":[{"name":"a","firstAvailable":[{"name":"x","deviceClassName":"gpu","count":2}]},{"name":"b"},
		{"name":"c","exactly":{"deviceClassName":"gpu","allocationMode":"ExactCount","count":2,"adminAccess":true}}]}}}`)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("v1beta2 (-want +got):\n%s", diff)
	}
	back, err := conversion.Convert(got, api.V1beta1)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(tblDecode(t, `{"apiVersion":"resource.k8s.io/v1beta1","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns"},
		"spec":{"devices":{"requests":`+requests+`}}}`), back); diff != "" {
		t.Errorf("back in v1beta1 (-want +got):\n%s", diff)
	}
}
