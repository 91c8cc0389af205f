package validation

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/conversion"
	"github.com/google/go-cmp/cmp"
)

// viewFixtures are the webhook's testdata claims, each also as converted
// into every version (so with restore annotations) and with a deletion
// timestamp.
func viewFixtures(t *testing.T) map[string]map[string]interface{} {
	t.Helper()
	out := map[string]map[string]interface{}{}
	for _, v := range api.ServedVersions {
		data, err := os.ReadFile(filepath.Join("..", "webhook", "testdata", "claim-"+v+".json"))
		if err != nil {
			t.Fatal(err)
		}
		o := obj(t, string(data))
		for _, to := range api.ServedVersions {
			c := mustConvert(t, o, to)
			out[v+"-as-"+to] = c
			deleted := deepCopyJSON(c)
			deleted["metadata"].(map[string]interface{})["deletionTimestamp"] = "2024-10-01T00:00:00Z"
			out[v+"-as-"+to+"-deleted"] = deleted
		}
	}
	return out
}

// A version that cannot show the object reports the direct conversion's
// error, and a failed step leaves the versions beyond it without a view.
func TestViewChainConversionError(t *testing.T) {
	requireConversion(t)
	big := make([]interface{}, 32)
	for i := range big {
		big[i] = map[string]interface{}{"driverName": "gpu.example.com", "data": string(make([]byte, 16*1024))}
	}
	o := map[string]interface{}{
		"apiVersion": "resource.claimbridge.dev/v1alpha2", "kind": "ResourceClaim",
		"metadata": map[string]interface{}{"name": "c", "namespace": "ns"},
		"spec":     map[string]interface{}{"resourceClassName": "gpu.example.com"},
		"status": map[string]interface{}{"driverName": "gpu.example.com",
			"allocation": map[string]interface{}{"resourceHandles": big, "shareable": true}},
	}
	// Shown as v1alpha3, the claim cannot go back to v1alpha1 through v1alpha2.
	v3 := mustConvert(t, o, "v1alpha3")
	_, direct := conversion.Convert(v3, "v1alpha1")
	if direct == nil {
		t.Fatal("the claim was expected not to fit v1alpha1; the test no longer tests what it says")
	}
	got := map[string]convertedPair{}
	for _, pair := range convertToOtherVersions(objectType{group: api.Group, version: "v1alpha3", kind: api.KindClaim}, false, v3, v3) {
		got[pair.version] = pair
	}
	if got["v1alpha2"].err != nil {
		t.Errorf("v1alpha2: %v", got["v1alpha2"].err)
	}
	want := direct.Error() // once: the conversion error already names both versions
	if err := got["v1alpha1"].err; err == nil || err.Error() != want {
		t.Errorf("v1alpha1 error:\n got %v\nwant %s", err, want)
	}
}

// TestSkipRepeatedViews: a v1alpha3 status write validated with the
// shortcut of Validate (skipRepeated) gets exactly the findings and
// warnings of the full check through every version. The writes cover the
// view fixtures (with and without restore data, deleted or not) and, on
// each, statuses that pass and that fail.
func TestSkipRepeatedViews(t *testing.T) {
	requireConversion(t)
	tp := objectType{group: api.Group, version: api.V1alpha3, kind: api.KindClaim}
	statuses := func(o map[string]interface{}) map[string]interface{} {
		s, _ := o["status"].(map[string]interface{})
		out := map[string]interface{}{"none": nil, "as-is": s}
		if s == nil {
			return out
		}
		unreserved := deepCopyJSON(s)
		delete(unreserved, "reservedFor")
		out["unreserved"] = unreserved
		twice := deepCopyJSON(s)
		twice["reservedFor"] = []interface{}{
			map[string]interface{}{"resource": "pods", "name": "a", "uid": "1"},
			map[string]interface{}{"resource": "pods", "name": "b", "uid": "2"},
		}
		out["reserved-twice"] = twice
		unallocated := deepCopyJSON(s)
		delete(unallocated, "allocation")
		out["reserved-unallocated"] = unallocated
		unknown := deepCopyJSON(s)
		unknown["deallocationRequested"] = true
		out["unknown-field"] = unknown
		return out
	}
	skipped, checked, failing := 0, 0, 0
	for name, base := range viewFixtures(t) {
		if !strings.HasSuffix(strings.TrimSuffix(name, "-deleted"), "-as-"+api.V1alpha3) {
			continue
		}
		for newName, newStatus := range statuses(base) {
			for oldName, oldStatus := range statuses(base) {
				newObj, oldObj := withStatus(base, newStatus), withStatus(base, oldStatus)
				if viewsRepeatStorage(tp, prepareForStatusUpdate(newObj, oldObj)) {
					skipped++
				} else {
					checked++
				}
				fastErrs, fastWarnings, fastErr := validateStatusUpdate(tp, newObj, oldObj, true)
				errs, warnings, err := validateStatusUpdate(tp, newObj, oldObj, false)
				if len(errs) > 0 {
					failing++
				}
				if diff := cmp.Diff(errs, fastErrs); diff != "" || !slices.Equal(warnings, fastWarnings) || (err == nil) != (fastErr == nil) {
					t.Errorf("%s, status %s over %s: the shortcut differs (-full +shortcut):\n%s\nwarnings %q, %q; errors %v, %v",
						name, newName, oldName, diff, warnings, fastWarnings, err, fastErr)
				}
			}
		}
	}
	if skipped == 0 || checked == 0 || failing == 0 {
		t.Errorf("%d writes took the shortcut, %d did not, %d failed: want some of each", skipped, checked, failing)
	}
}

// withStatus is a copy of o with status s (none for nil).
func withStatus(o map[string]interface{}, s interface{}) map[string]interface{} {
	out := deepCopyJSON(o)
	delete(out, "status")
	if s != nil {
		out["status"] = s
	}
	return out
}

// FuzzSkipRepeatedViews: for any new and old status of the v1alpha3 test
// claim, deleted or not, Validate's shortcut gives the full check's findings.
func FuzzSkipRepeatedViews(f *testing.F) {
	data, err := os.ReadFile(filepath.Join("..", "webhook", "testdata", "claim-v1alpha3.json"))
	if err != nil {
		f.Fatal(err)
	}
	base := obj(f, string(data))
	status, err := json.Marshal(base["status"])
	if err != nil {
		f.Fatal(err)
	}
	f.Add(status, []byte(`{}`), false)
	f.Add([]byte(`{"reservedFor":[{"resource":"pods","name":"a","uid":"1"}]}`), status, true)
	f.Add([]byte(`null`), status, false)
	tp := objectType{group: api.Group, version: api.V1alpha3, kind: api.KindClaim}
	f.Fuzz(func(t *testing.T, newStatus, oldStatus []byte, deleted bool) {
		var n, o interface{}
		dec := func(data []byte, v *interface{}) bool {
			d := json.NewDecoder(bytes.NewReader(data))
			d.UseNumber()
			return d.Decode(v) == nil
		}
		if !dec(newStatus, &n) || !dec(oldStatus, &o) {
			return
		}
		newObj, oldObj := withStatus(base, n), withStatus(base, o)
		if deleted {
			oldObj["metadata"].(map[string]interface{})["deletionTimestamp"] = "2024-10-01T00:00:00Z"
		}
		fastErrs, fastWarnings, fastErr := validateStatusUpdate(tp, newObj, oldObj, true)
		errs, warnings, err := validateStatusUpdate(tp, newObj, oldObj, false)
		if diff := cmp.Diff(errs, fastErrs); diff != "" || !slices.Equal(warnings, fastWarnings) || (err == nil) != (fastErr == nil) {
			t.Errorf("status %s over %s: the shortcut differs (-full +shortcut):\n%s\nwarnings %q, %q; errors %v, %v",
				newStatus, oldStatus, diff, warnings, fastWarnings, err, fastErr)
		}
	})
}
