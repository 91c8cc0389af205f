package conversion

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRestoreOfAWholeSectionRoundTrips: restore data that adds or removes a
// whole section (a status where the object has none, or none where it has
// one) applies, and the way back records the section's presence as it was
// (diffSection's add and remove of the section itself): converted back, the
// object is the one it was, annotation included.
func TestRestoreOfAWholeSectionRoundTrips(t *testing.T) {
	const spec = `"spec":{"resourceClassName":"gpu","allocationMode":"WaitForFirstConsumer"}`
	const status = `{"driverName":"gpu.example.com","allocation":{"resourceHandles":[{"driverName":"gpu.example.com","data":"h"}],"shareable":true}}`
	withStatus := decodeForTest(t, `{"apiVersion":"resource.claimbridge.dev/v1alpha2","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns"},`+spec+`,"status":`+status+`}`)
	mapped, err := Convert(deepCopyMap(withStatus), V1alpha3)
	if err != nil {
		t.Fatal(err)
	}
	mappedStatus := mapped["status"]
	for _, tc := range []struct {
		name string
		obj  string
		op   operation
		base string
		// want is the section in v1alpha3.
		want   interface{}
		wantOK bool
	}{
		{
			name:   "adds a status",
			obj:    `{"apiVersion":"resource.claimbridge.dev/v1alpha2","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns"},` + spec + `}`,
			op:     operation{Op: "add", Path: "/status", Value: mappedStatus},
			base:   sectionFingerprint("status", nil, false),
			want:   mappedStatus,
			wantOK: true,
		},
		{
			name: "removes the status",
			obj:  `{"apiVersion":"resource.claimbridge.dev/v1alpha2","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns"},` + spec + `,"status":` + status + `}`,
			op:   operation{Op: "remove", Path: "/status"},
			base: sectionFingerprint("status", mappedStatus, true),
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := decodeForTest(t, tc.obj)
			if err := pushRestore(in, V1alpha3, &restore{Status: &sectionPatch{Base: tc.base, Patch: []operation{tc.op}}}); err != nil {
				t.Fatal(err)
			}
			v3, err := Convert(deepCopyMap(in), V1alpha3)
			if err != nil {
				t.Fatal(err)
			}
			got, gotOK := v3["status"]
			if gotOK != tc.wantOK || !cmp.Equal(tc.want, got, numberComparer) {
				t.Fatalf("v1alpha3 status = %v (present: %v), want %v (present: %v)", got, gotOK, tc.want, tc.wantOK)
			}
			back, err := Convert(v3, V1alpha2)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(in, back, numberComparer); diff != "" {
				t.Errorf("back in v1alpha2 (-want +got):\n%s", diff)
			}
		})
	}
}

var numberComparer = cmp.Comparer(func(a, b json.Number) bool { return a == b })
