package conversion

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimbridge/claimbridge/api"
)

// TestRestoreOfAWholeSectionRoundTrips: restore data that adds or removes a
// whole section (a status where the object has none, or none where it has
// one) applies, and the way back records the section's presence as it was
// (diffSection's add and remove of the section itself): converted back, the
// object is the one it was, annotation included.
func TestRestoreOfAWholeSectionRoundTrips(t *testing.T) {
	spec, status, mappedStatus := statusRestoreFixture(t)
	for _, tc := range []statusRestoreCase{
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
			in, v3, ok := tc.convert(t)
			if !ok {
				t.FailNow()
			}
			back, err := Convert(v3, api.V1alpha2)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(in, back, numberComparer); diff != "" {
				t.Errorf("back in v1alpha2 (-want +got):\n%s", diff)
			}
		})
	}
}

// statusRestoreFixture gives a v1alpha2 claim's spec member and status
// object, and that status mapped to v1alpha3.
func statusRestoreFixture(t *testing.T) (spec, status string, mappedStatus interface{}) {
	spec = `"spec":{"resourceClassName":"gpu","allocationMode":"WaitForFirstConsumer"}`
	status = `{"driverName":"gpu.example.com","allocation":{"resourceHandles":[{"driverName":"gpu.example.com","data":"h"}],"shareable":true}}`
	withStatus := decodeForTest(t, `{"apiVersion":"resource.claimbridge.dev/v1alpha2","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns"},`+spec+`,"status":`+status+`}`)
	mapped, err := Convert(withStatus, api.V1alpha3)
	if err != nil {
		t.Fatal(err)
	}
	return spec, status, mapped["status"]
}

// statusRestoreCase is a v1alpha2 object given v1alpha3 restore data of one
// status operation.
type statusRestoreCase struct {
	name string
	obj  string
	op   operation
	base string
	// want is the section in v1alpha3.
	want   interface{}
	wantOK bool
}

// convert gives the object with its restore data and its v1alpha3
// conversion, and whether the v1alpha3 status is the one wanted (an error
// is reported if not).
func (tc statusRestoreCase) convert(t *testing.T) (in, v3 map[string]interface{}, ok bool) {
	t.Helper()
	in = decodeForTest(t, tc.obj)
	if err := pushRestore(in, api.V1alpha3, &restore{Status: &sectionPatch{Base: tc.base, Patch: []operation{tc.op}}}); err != nil {
		t.Fatal(err)
	}
	v3, err := Convert(in, api.V1alpha3)
	if err != nil {
		t.Fatal(err)
	}
	got, gotOK := v3["status"]
	if gotOK != tc.wantOK || !cmp.Equal(tc.want, got, numberComparer) {
		t.Errorf("v1alpha3 status = %v (present: %v), want %v (present: %v)", got, gotOK, tc.want, tc.wantOK)
		return in, v3, false
	}
	return in, v3, true
}

var numberComparer = cmp.Comparer(func(a, b json.Number) bool { return a == b })

// TestPushRestoreRefusesNonObjectContainers: pushRestore does not replace a
// metadata or annotations member that is not an object (Convert refuses
// such objects as malformed before; this is pushRestore's own guard).
func TestPushRestoreRefusesNonObjectContainers(t *testing.T) {
	for _, c := range []struct{ name, obj, want string }{
		{"metadata a string", `{"metadata":"x"}`, "metadata is not an object, so annotation claimbridge.dev/restore-v1alpha2 cannot be added"},
		{"annotations an array", `{"metadata":{"annotations":[]}}`, "metadata.annotations is not an object, so annotation claimbridge.dev/restore-v1alpha2 cannot be added"},
	} {
		t.Run(c.name, func(t *testing.T) {
			obj := decodeForTest(t, c.obj)
			err := pushRestore(obj, api.V1alpha2, &restore{Spec: &sectionPatch{Base: "b", Patch: []operation{{Op: "remove", Path: "/spec/x"}}}})
			if err == nil || err.Error() != c.want {
				t.Errorf("error %v, want %s", err, c.want)
			}
			if diff := cmp.Diff(decodeForTest(t, c.obj), obj); diff != "" {
				t.Errorf("the object changed (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRestoreDataOfANullSection: restore data that sets the status to null
// (diffSection's replace of the section with null) applies, and restore
// data made for a null status is stale where the object has none: null and
// absent have fingerprints of their own.
func TestRestoreDataOfANullSection(t *testing.T) {
	spec, status, mappedStatus := statusRestoreFixture(t)
	for _, tc := range []statusRestoreCase{
		{
			name:   "sets the status to null",
			obj:    `{"apiVersion":"resource.claimbridge.dev/v1alpha2","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns"},` + spec + `,"status":` + status + `}`,
			op:     operation{Op: "replace", Path: "/status", Value: nil},
			base:   sectionFingerprint("status", mappedStatus, true),
			want:   nil,
			wantOK: true,
		},
		{
			name: "made for a null status, where the object has none",
			obj:  `{"apiVersion":"resource.claimbridge.dev/v1alpha2","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns"},` + spec + `}`,
			op:   operation{Op: "add", Path: "/status", Value: mappedStatus},
			base: sectionFingerprint("status", nil, true),
		},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.convert(t) })
	}
}

// TestStepWithKeepsRestoreData: stepWith, which TestInvertiblePredicates
// compares the two paths with, writes the restore annotation on both paths
// (without it the comparison would check nothing of it).
func TestStepWithKeepsRestoreData(t *testing.T) {
	for _, skip := range []bool{false, true} {
		obj := decodeForTest(t, `{"apiVersion":"resource.k8s.io/v1alpha2","kind":"ResourceClaim","metadata":{"name":"c"},"spec":{"resourceClassName":"c","allocationMode":"Immediate"}}`)
		var losses []loss
		if err := stepWith(obj, api.KindClaim, api.V1alpha2, api.V1alpha3, &losses, skip); err != nil {
			t.Fatal(err)
		}
		if _, ok := asMap(asMap(obj["metadata"])["annotations"])[api.RestoreAnnotation(api.V1alpha2)]; !ok {
			t.Errorf("skipInvertible %v: no restore annotation: %s", skip, mustCanonical(obj))
		}
	}
}
