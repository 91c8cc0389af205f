package validation

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// statusWriteCorpus pairs every fixture claim (in every version, deleted or
// not) as old object with statuses and managedFields that differ from the
// new object's, malformed ones included.
func statusWriteCorpus(t *testing.T) (olds, news []map[string]interface{}) {
	t.Helper()
	mf := []interface{}{map[string]interface{}{"manager": "scheduler", "operation": "Update", "subresource": "status"}}
	variants := []func(old, cur map[string]interface{}){
		func(old, cur map[string]interface{}) {},
		func(old, cur map[string]interface{}) { delete(old["status"].(map[string]interface{}), "reservedFor") },
		func(old, cur map[string]interface{}) { delete(old, "status") },
		func(old, cur map[string]interface{}) { old["status"] = nil },
		func(old, cur map[string]interface{}) { delete(cur, "status") },
		func(old, cur map[string]interface{}) { old["metadata"].(map[string]interface{})["managedFields"] = mf },
		func(old, cur map[string]interface{}) { cur["metadata"].(map[string]interface{})["managedFields"] = mf },
		func(old, cur map[string]interface{}) { old["metadata"].(map[string]interface{})["managedFields"] = "x" },
		func(old, cur map[string]interface{}) { old["status"] = "x" },
		func(old, cur map[string]interface{}) { old["status"].(map[string]interface{})["reservedFor"] = 5 },
		func(old, cur map[string]interface{}) { old["status"].(map[string]interface{})["allocation"] = "x" },
		func(old, cur map[string]interface{}) { old["status"].(map[string]interface{})["unknown"] = true },
		func(old, cur map[string]interface{}) {
			old["status"].(map[string]interface{})["deallocationRequested"] = true
		},
		func(old, cur map[string]interface{}) { cur["status"].(map[string]interface{})["unknown"] = true },
		func(old, cur map[string]interface{}) { delete(old, "metadata") },
		func(old, cur map[string]interface{}) { delete(cur["status"].(map[string]interface{}), "allocation") },
		func(old, cur map[string]interface{}) { delete(old["status"].(map[string]interface{}), "allocation") },
		func(old, cur map[string]interface{}) {
			old["status"].(map[string]interface{})["allocation"] = nil
			cur["status"].(map[string]interface{})["allocation"] = nil
		},
		func(old, cur map[string]interface{}) {
			if a, ok := old["status"].(map[string]interface{})["allocation"].(map[string]interface{}); ok {
				a["nodeSelector"] = map[string]interface{}{"nodeSelectorTerms": []interface{}{}}
			}
		},
		func(old, cur map[string]interface{}) {
			if a, ok := old["status"].(map[string]interface{})["allocation"].(map[string]interface{}); ok {
				a["unknown"] = json.Number("1")
			}
			if a, ok := cur["status"].(map[string]interface{})["allocation"].(map[string]interface{}); ok {
				a["unknown"] = json.Number("1.0")
			}
		},
		func(old, cur map[string]interface{}) { old["metadata"] = nil },
	}
	for _, o := range viewFixtures(t) {
		for _, variant := range variants {
			old, cur := deepCopyJSON(o), deepCopyJSON(o)
			variant(old, cur)
			olds, news = append(olds, old), append(news, cur)
		}
	}
	return olds, news
}

// The prepared objects share the request's subtrees: Validate must leave
// the request's objects as they were, on every operation.
func TestValidateLeavesRequestUnmodified(t *testing.T) {
	requireConversion(t)
	olds, news := statusWriteCorpus(t)
	for i := range olds {
		for _, req := range []Request{
			{Operation: Create, Object: news[i]},
			{Operation: Update, Object: news[i], OldObject: olds[i]},
			{Operation: Update, SubResource: "status", Object: news[i], OldObject: olds[i]},
		} {
			wantNew, wantOld := deepCopyJSON(req.Object), deepCopyJSON(req.OldObject)
			_, _ = Validate(req)
			if diff := cmp.Diff(wantNew, req.Object); diff != "" {
				t.Errorf("case %d %s %q: object modified (-before +after):\n%s", i, req.Operation, req.SubResource, diff)
			}
			if diff := cmp.Diff(wantOld, req.OldObject); diff != "" {
				t.Errorf("case %d %s %q: old object modified (-before +after):\n%s", i, req.Operation, req.SubResource, diff)
			}
		}
	}
}

// An object that does not decode is named by the field that has the wrong
// JSON type, with its list indices, as conversion names it (the webhook's
// 400 and the CLI say so), for the new and the old object alike.
func TestDecodeErrorNamesTheField(t *testing.T) {
	requireConversion(t)
	obj := func(count interface{}) map[string]interface{} {
		return map[string]interface{}{"apiVersion": "resource.claimbridge.dev/v1alpha3", "kind": "ResourceClaim",
			"metadata": map[string]interface{}{"name": "c", "namespace": "ns"},
			"spec": map[string]interface{}{"devices": map[string]interface{}{"requests": []interface{}{
				map[string]interface{}{"name": "a", "deviceClassName": "gpu"},
				map[string]interface{}{"name": "b", "deviceClassName": "gpu", "count": count},
			}}}}
	}
	const want = "decoding object: spec.devices.requests[1].count must be a number, not a string"
	if _, err := Validate(Request{Operation: Create, Object: obj("2")}); fmt.Sprint(err) != want {
		t.Errorf("create: error %v, want %s", err, want)
	}
	if _, err := Validate(Request{Operation: Update, Object: obj(int64(2)), OldObject: obj("2")}); err == nil || !strings.Contains(err.Error(), "spec.devices.requests[1].count must be a number, not a string") {
		t.Errorf("update with a malformed old object: error %v", err)
	}
}
