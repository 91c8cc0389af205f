package validation

import (
	"encoding/json"
	"testing"

	"github.com/claimbridge/claimbridge/conversion"
)

// No conversion writes a restore patch on reservedFor or
// deallocationRequested, and no write can store one; should a stored object
// carry one anyway, the status-write shortcuts (which derive every view's
// consumers and deallocation request from the request's own) must not
// decide differently from the full computation.
func TestShortcutsWithRestorePatchOnCommonStatus(t *testing.T) {
	requireConversion(t)
	// A v1alpha2 allocation v1alpha3 cannot hold whole (not shareable,
	// handle data that is no JSON): restore-v1alpha2 has a status patch.
	v2 := obj(t, `{"apiVersion":"resource.claimbridge.dev/v1alpha2","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns","uid":"u","resourceVersion":"1"},
		"spec":{"resourceClassName":"gpu.example.com"},
		"status":{"driverName":"d.example.com","allocation":{"resourceHandles":[{"driverName":"d.example.com","data":"not json"}],"shareable":false},
		"reservedFor":[{"resource":"pods","name":"a","uid":"uid-a"}]}}`)
	stored := mustConvert(t, v2, "v1alpha3")
	key := conversion.RestoreAnnotation("v1alpha2")
	for name, op := range map[string]string{
		"a consumer added":        `{"op":"add","path":"/status/reservedFor/-","value":{"resource":"pods","name":"b","uid":"uid-b"}}`,
		"consumers replaced":      `{"op":"replace","path":"/status/reservedFor","value":[{"resource":"pods","name":"a","uid":"uid-a"},{"resource":"pods","name":"a2","uid":"uid-a"}]}`,
		"deallocation requested":  `{"op":"add","path":"/status/deallocationRequested","value":true}`,
		"the first consumer gone": `{"op":"remove","path":"/status/reservedFor/0"}`,
	} {
		t.Run(name, func(t *testing.T) {
			old := deepCopyJSON(stored)
			var r map[string]interface{}
			if err := json.Unmarshal([]byte(annotationsOf(old)[key].(string)), &r); err != nil {
				t.Fatal(err)
			}
			status := r["status"].(map[string]interface{})
			var extra interface{}
			if err := json.Unmarshal([]byte(op), &extra); err != nil {
				t.Fatal(err)
			}
			status["patch"] = append(status["patch"].([]interface{}), extra)
			data, _ := json.Marshal(r)
			annotationsOf(old)[key] = string(data)
			for what, change := range map[string]func(status map[string]interface{}){
				"reserve": func(s map[string]interface{}) {
					s["reservedFor"] = append(s["reservedFor"].([]interface{}), map[string]interface{}{"resource": "pods", "name": "c", "uid": "uid-c"})
				},
				"unreserve":            func(s map[string]interface{}) { delete(s, "reservedFor") },
				"request deallocation": func(s map[string]interface{}) { s["deallocationRequested"] = true },
			} {
				cur := deepCopyJSON(old)
				change(cur["status"].(map[string]interface{}))
				req := Request{Operation: Update, SubResource: "status", Object: cur, OldObject: old}
				checkShortcutsAgree(t, what, req)
			}
		})
	}
}

// restoreStatusOps sorts another version's status restore operations by
// what they reach: the whole status both kinds, reservedFor and
// deallocationRequested the common fields, the allocation and its
// shareable the facts, anything else neither. The request's own version's
// annotation is not another version's.
func TestRestoreStatusOps(t *testing.T) {
	requireConversion(t)
	tgt := objectType{group: GroupClaimbridge, version: "v1alpha3", kind: KindResourceClaim}
	for name, sc := range map[string]struct {
		version, path string
		common, facts bool
	}{
		"the-whole-status":                     {"v1alpha2", "/status", true, true},
		"reservedFor":                          {"v1alpha2", "/status/reservedFor", true, false},
		"a-consumer":                           {"v1alpha1", "/status/reservedFor/0", true, false},
		"deallocationRequested":                {"v1alpha2", "/status/deallocationRequested", true, false},
		"the-allocation":                       {"v1alpha1", "/status/allocation", false, true},
		"shareable":                            {"v1alpha2", "/status/allocation/shareable", false, true},
		"handle-data":                          {"v1alpha2", "/status/allocation/resourceHandles/0/data", false, false},
		"the-driver-name":                      {"v1alpha2", "/status/driverName", false, false},
		"a-field-that-only-begins-reservedFor": {"v1alpha2", "/status/reservedForX", false, false},
		"the-whole-status-in-the-requests-own-version": {"v1alpha3", "/status", false, false},
	} {
		t.Run(name, func(t *testing.T) {
			o := obj(t, claimV3)
			forgedStatusPatch(t, o, sc.version, map[string]interface{}{"op": "remove", "path": sc.path})
			if got := conversion.RestoreStatusPaths(o, sc.version); len(got) != 1 || got[0] != sc.path {
				t.Fatalf("restore status paths %v: the test no longer tests what it says", got)
			}
			common, facts := restoreStatusOps(tgt, o)
			if common != sc.common || facts != sc.facts {
				t.Errorf("restoreStatusOps = (common %v, facts %v), want (%v, %v)", common, facts, sc.common, sc.facts)
			}
		})
	}
}
