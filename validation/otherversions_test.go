package validation

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/conversion"
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

// statusVariants are statuses for o, a claim: none, its own, and its own
// changed so that some pass and some fail.
func statusVariants(o map[string]interface{}) map[string]interface{} {
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

// withStatus is a copy of o with status s (none for nil).
func withStatus(o map[string]interface{}, s interface{}) map[string]interface{} {
	out := deepCopyJSON(o)
	delete(out, "status")
	if s != nil {
		out["status"] = s
	}
	return out
}
