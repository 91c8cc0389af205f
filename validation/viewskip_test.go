package validation

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimbridge/claimbridge/conversion"
)

// stripRestore returns a copy of o without its claimbridge.dev/restore-*
// annotations: a claim as if it had been created in v1alpha3.
func stripRestore(o map[string]interface{}) map[string]interface{} {
	out := deepCopyJSON(o)
	ann, _ := out["metadata"].(map[string]interface{})["annotations"].(map[string]interface{})
	for k := range ann {
		if strings.HasPrefix(k, conversion.AnnotationPrefix+"restore-") {
			delete(ann, k)
		}
	}
	return out
}

// Computing no view at all on a v1alpha3 status write without v1alpha1 or
// v1alpha2 restore annotations changes no verdict: every status write
// below, between every pair of statuses (with and without allocation, a
// changed allocation, null allocation, none, one, two and duplicate
// consumers, a deallocation request), of every fixture claim as stored
// (with its restore annotations, without them, deleted), gets the same
// findings and warnings with and without the shortcuts, and the shortcut is
// taken.
func TestSkippedViewsReportNothingNew(t *testing.T) {
	requireConversion(t)
	consumer := func(name string) interface{} {
		return map[string]interface{}{"resource": "pods", "name": name, "uid": "uid-" + name}
	}
	fixtures := viewFixtures(t)
	taken, notTaken := 0, 0
	for _, origin := range versions {
		base := fixtures[origin+"-as-v1alpha3"]["status"].(map[string]interface{})
		var statuses []map[string]interface{}
		for _, rf := range [][]interface{}{nil, {consumer("a")}, {consumer("a"), consumer("b")}, {consumer("a"), consumer("a")}} {
			for _, dealloc := range []bool{false, true} {
				for _, alloc := range []string{"none", "null", "same", "changed"} {
					s := deepCopyJSON(base)
					delete(s, "reservedFor")
					if rf != nil {
						s["reservedFor"] = rf
					}
					if dealloc {
						s["deallocationRequested"] = true
					}
					switch alloc {
					case "none":
						delete(s, "allocation")
					case "null":
						s["allocation"] = nil
					case "changed":
						a, _ := s["allocation"].(map[string]interface{})
						if a == nil {
							continue
						}
						a["nodeSelector"] = map[string]interface{}{"nodeSelectorTerms": []interface{}{map[string]interface{}{
							"matchFields": []interface{}{map[string]interface{}{"key": "metadata.name", "operator": "In", "values": []interface{}{"node-9"}}}}}}
					}
					statuses = append(statuses, s)
				}
			}
		}
		for _, name := range []string{origin + "-as-v1alpha3", origin + "-as-v1alpha3-deleted"} {
			for _, strip := range []bool{false, true} {
				o := fixtures[name]
				if strip {
					o = stripRestore(o)
				}
				tgt, err := parseObjectType(o)
				if err != nil {
					t.Fatal(err)
				}
				for i, oldStatus := range statuses {
					for j, newStatus := range statuses {
						old, cur := deepCopyJSON(o), deepCopyJSON(o)
						old["status"], cur["status"] = oldStatus, newStatus
						req := Request{Operation: Update, SubResource: "status", Object: cur, OldObject: old}
						skipCoveredConversions, skipUnchanged = false, false
						want, errWant := Validate(req)
						skipCoveredConversions, skipUnchanged = true, true
						got, errGot := Validate(req)
						if diff := cmp.Diff(want, got); diff != "" || (errWant == nil) != (errGot == nil) {
							t.Errorf("%s (restore annotations stripped: %v), status %d → %d: verdict (-all views +shortcut):\n%s\nerrors %v %v",
								name, strip, i, j, diff, errWant, errGot)
						}
						if convertToOtherVersions(tgt, true, false, cur, old)["v1alpha2"].coveredBy != "" {
							taken++
						} else {
							notTaken++
						}
					}
				}
			}
		}
	}
	if taken == 0 || notTaken == 0 {
		t.Errorf("shortcut taken %d times, not taken %d times: the test no longer tests both", taken, notTaken)
	}
}
