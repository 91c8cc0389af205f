package conversion_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimbridge/claimbridge/conversion"
)

func TestWithStoredStatusRestoreData(t *testing.T) {
	const statusOnly = `{"status":{"base":"x","patch":[{"op":"add","path":"/status/allocation/shareable","value":false}]},"created":"annotations"}`
	const both = `{"spec":{"base":"y","patch":[{"op":"add","path":"/spec/allocationMode","value":"Immediate"}]},"status":{"base":"x","patch":[]}}`
	obj := func(annotations map[string]interface{}) map[string]interface{} {
		return map[string]interface{}{"metadata": map[string]interface{}{"name": "c", "annotations": annotations}}
	}
	versions := []string{"v1alpha1", "v1alpha2"}
	for _, tc := range []struct {
		name        string
		in          map[string]interface{}
		annotations map[string]interface{}
		remove      bool
		dropped     []string
	}{
		{"none", obj(map[string]interface{}{"a": "b"}), nil, false, nil},
		{"no annotations", map[string]interface{}{"metadata": map[string]interface{}{"name": "c"}}, nil, false, nil},
		{"status only: the annotation goes, and with it the map", obj(map[string]interface{}{"claimbridge.dev/restore-v1alpha2": statusOnly}), map[string]interface{}{}, true, []string{"claimbridge.dev/restore-v1alpha2"}},
		{"spec kept, other annotations kept", obj(map[string]interface{}{"claimbridge.dev/restore-v1alpha1": both, "claimbridge.dev/restore-v1alpha2": statusOnly, "a": "b"}),
			map[string]interface{}{"a": "b", "claimbridge.dev/restore-v1alpha1": `{"spec":{"base":"y","patch":[{"op":"add","path":"/spec/allocationMode","value":"Immediate"}]}}`},
			false, []string{"claimbridge.dev/restore-v1alpha1", "claimbridge.dev/restore-v1alpha2"}},
		{"not a stored version's", obj(map[string]interface{}{"claimbridge.dev/restore-v1alpha3": statusOnly}), nil, false, nil},
		{"undecodable: left as it is", obj(map[string]interface{}{"claimbridge.dev/restore-v1alpha2": `{"status":`}), nil, false, nil},
		// Conversion applies nothing of an annotation that decodes only in
		// part (a member of the wrong type after the status).
		{"decodes in part: left as it is", obj(map[string]interface{}{"claimbridge.dev/restore-v1alpha2": `{"status":{"base":"x","patch":[]},"spec":5}`}), nil, false, nil},
		// The spec data that stays is written back as it was, its numbers
		// as written (not through a float64).
		{"spec data kept as written", obj(map[string]interface{}{"claimbridge.dev/restore-v1alpha2": `{"spec":{"base":"y","patch":[{"op":"add","path":"/spec/n","value":[1.0,12345678901234567891]}]},"status":{"base":"x","patch":[]}}`}),
			map[string]interface{}{"claimbridge.dev/restore-v1alpha2": `{"spec":{"base":"y","patch":[{"op":"add","path":"/spec/n","value":[1.0,12345678901234567891]}]}}`},
			false, []string{"claimbridge.dev/restore-v1alpha2"}},
	} {
		t.Run("create: "+tc.name, func(t *testing.T) {
			before := cmp.Diff(nil, tc.in)
			annotations, remove, dropped := conversion.WithStoredStatusRestoreData(tc.in, nil, versions)
			if diff := cmp.Diff(tc.annotations, annotations); diff != "" {
				t.Errorf("annotations (-want +got):\n%s", diff)
			}
			if remove != tc.remove || !cmp.Equal(tc.dropped, dropped) {
				t.Errorf("remove %v, dropped %v; want %v, %v", remove, dropped, tc.remove, tc.dropped)
			}
			if after := cmp.Diff(nil, tc.in); after != before {
				t.Errorf("the input changed:\n%s", after)
			}
		})
	}
}

// TestWithStoredStatusRestoreDataOnUpdate: a write through the main
// resource keeps the stored object's status data, whatever status data it
// sends: the same (nothing to do), other (put back), or where the stored
// object has none (taken out); an annotation it sends without status data
// is left alone.
func TestWithStoredStatusRestoreDataOnUpdate(t *testing.T) {
	const key = "claimbridge.dev/restore-v1alpha2"
	stored := `{"spec":{"base":"y","patch":[]},"status":{"base":"x","patch":[{"op":"add","path":"/status/allocation/shareable","value":false}]}}`
	other := `{"spec":{"base":"y","patch":[]},"status":{"base":"z","patch":[]}}`
	specOnly := `{"spec":{"base":"y","patch":[]}}`
	obj := func(value string) map[string]interface{} {
		return map[string]interface{}{"metadata": map[string]interface{}{"name": "c", "annotations": map[string]interface{}{key: value}}}
	}
	versions := []string{"v1alpha1", "v1alpha2"}
	for _, tc := range []struct {
		name     string
		new, old map[string]interface{}
		want     map[string]interface{}
	}{
		{"as stored", obj(stored), obj(stored), nil},
		{"other status data: the stored put back", obj(other), obj(stored), map[string]interface{}{key: stored}},
		{"status data the stored object has not: taken out", obj(other), obj(specOnly), map[string]interface{}{key: specOnly}},
		{"no status data sent: left alone", obj(specOnly), obj(stored), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			annotations, _, changed := conversion.WithStoredStatusRestoreData(tc.new, tc.old, versions)
			if diff := cmp.Diff(tc.want, annotations); diff != "" {
				t.Errorf("annotations (-want +got):\n%s", diff)
			}
			if (len(changed) > 0) != (tc.want != nil) {
				t.Errorf("changed %v", changed)
			}
		})
	}
}
