package validation

import (
	"maps"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/validation/common"
)

// Conversion reads only apiVersion, kind, spec, status and annotations, so:
//
//   - a main update that leaves spec and annotations alone looks like the
//     old object in every version: its cross-version checks are skipped;
//   - a status write that changes only reservedFor and deallocationRequested
//     converts them unchanged: the old object's parts are the new one's with
//     its own two fields.
//
// Neither re-checks the annotation size limit: the stored old object fits it.

// skipUnchanged enables the shortcuts; tests turn it off to compare.
var skipUnchanged = true

// statusCommonFields are the status fields every version holds the same way
// (conversion's statusCommonKeys).
var statusCommonFields = []string{"reservedFor", "deallocationRequested"}

// sameConversionInput reports whether newObj and oldObj convert alike: the
// same apiVersion, kind, spec and annotations, and the same status apart
// from the keys in except.
func sameConversionInput(newObj, oldObj map[string]interface{}, except ...string) bool {
	if !skipUnchanged {
		return false
	}
	for _, k := range []string{"apiVersion", "kind", "spec"} {
		if !api.DeepEqualJSON(newObj[k], oldObj[k]) {
			return false
		}
	}
	if annotationsForm(newObj) != annotationsForm(oldObj) || !api.DeepEqualJSON(annotations(newObj), annotations(oldObj)) {
		return false
	}
	return equalExcept(newObj["status"], oldObj["status"], except)
}

func annotations(obj map[string]interface{}) interface{} {
	meta, _ := obj["metadata"].(map[string]interface{})
	return meta["annotations"]
}

// annotationsForm tells apart metadata or metadata.annotations absent or
// null, which conversion records differently in the restore annotations.
func annotationsForm(obj map[string]interface{}) string {
	rawMeta, ok := obj["metadata"]
	if !ok {
		return "no metadata"
	}
	meta, isMap := rawMeta.(map[string]interface{})
	if !isMap || meta == nil {
		return "metadata not an object"
	}
	if _, ok := meta["annotations"]; !ok {
		return "no annotations"
	}
	return "annotations"
}

// equalExcept compares two statuses (JSON objects, or absent) without the
// keys in except.
func equalExcept(a, b interface{}, except []string) bool {
	if len(except) == 0 {
		return api.DeepEqualJSON(a, b)
	}
	am, aok := a.(map[string]interface{})
	bm, bok := b.(map[string]interface{})
	if !aok || !bok {
		return a == nil && b == nil || api.DeepEqualJSON(a, b)
	}
	return api.DeepEqualJSON(without(am, except), without(bm, except))
}

// without returns a copy of m without keys.
func without(m map[string]interface{}, keys []string) map[string]interface{} {
	out := maps.Clone(m)
	for _, k := range keys {
		delete(out, k)
	}
	return out
}

// commonStatus decodes the version-neutral status fields of obj (a claim
// of t's version): reservedFor and deallocationRequested.
func commonStatus(t objectType, obj map[string]interface{}) (common.StatusView, error) {
	status, _ := obj["status"].(map[string]interface{})
	if view, ok := commonStatusOfTree(status); ok {
		return view, nil
	}
	reduced := map[string]interface{}{}
	for _, k := range statusCommonFields {
		if v, ok := status[k]; ok {
			reduced[k] = v
		}
	}
	v, err := rulesFor[t.version].decodeParts(t.kind, map[string]interface{}{"apiVersion": obj["apiVersion"], "kind": obj["kind"], "status": reduced})
	return v.status, err
}

// skipFactConversion enables pairsFromStatusFacts; tests turn it off.
var skipFactConversion = true

// pairsFromStatusFacts is convertToOtherVersions with deriveOld but without
// conversion, for a newObj whose restore annotations do not patch the status,
// allocation or shareable: each version's status facts then follow from the
// request's own.
func pairsFromStatusFacts(t objectType, newObj, oldObj map[string]interface{}) (map[string]convertedPair, bool) {
	oldCommon, errOld := commonStatus(t, oldObj)
	newCommon, errNew := commonStatus(t, newObj)
	if errOld != nil || errNew != nil {
		return nil, false
	}
	native := statusFacts(t.version, newObj)
	out := make(map[string]convertedPair, len(versions)-1)
	for _, version := range versions {
		if version == t.version {
			continue
		}
		facts := native
		facts.status.NotShareable = native.status.NotShareable && version != "v1alpha3" && t.version != "v1alpha3"
		out[version] = convertedPair{newParts: withCommonStatus(facts, newCommon), oldParts: withCommonStatus(facts, oldCommon)}
	}
	return out, true
}

// statusFacts reads from the JSON tree, as the typed decoding would, the
// parts the status checks compare: the deletion timestamp, whether the
// allocation is set, and whether it is not shareable (v1alpha1, v1alpha2).
func statusFacts(version string, obj map[string]interface{}) comparedParts {
	view := comparedParts{meta: &metav1.ObjectMeta{}}
	meta, _ := obj["metadata"].(map[string]interface{})
	if ts, ok := meta["deletionTimestamp"]; ok && ts != nil {
		view.meta.DeletionTimestamp = &metav1.Time{}
	}
	status, _ := obj["status"].(map[string]interface{})
	allocation, ok := status["allocation"]
	view.status.Allocated = ok && allocation != nil
	if view.status.Allocated && version != "v1alpha3" {
		a, _ := allocation.(map[string]interface{})
		view.status.NotShareable = a["shareable"] != true
	}
	return view
}

// commonStatusOfTree reads reservedFor and deallocationRequested as the typed
// decoding does; ok is false when a value has the wrong JSON type.
func commonStatusOfTree(status map[string]interface{}) (view common.StatusView, ok bool) {
	switch d := status["deallocationRequested"].(type) {
	case nil:
	case bool:
		view.DeallocationRequested = d
	default:
		return view, false
	}
	switch rf := status["reservedFor"].(type) {
	case nil:
	case []interface{}:
		view.ReservedFor = make([]common.Consumer, len(rf))
		for i, e := range rf {
			m, isMap := e.(map[string]interface{})
			if !isMap || m == nil {
				return view, false
			}
			c := &view.ReservedFor[i]
			for k, dst := range map[string]*string{"apiGroup": &c.APIGroup, "resource": &c.Resource, "name": &c.Name} {
				if !stringMember(m, k, dst) {
					return view, false
				}
			}
			var uid string
			if !stringMember(m, "uid", &uid) {
				return view, false
			}
			c.UID = types.UID(uid)
		}
	default:
		return view, false
	}
	return view, true
}

// stringMember sets *dst to m[k] if it is a string; absent or null leaves
// it alone; any other type fails.
func stringMember(m map[string]interface{}, k string, dst *string) bool {
	switch v := m[k].(type) {
	case nil:
		return true
	case string:
		*dst = v
		return true
	}
	return false
}

// withCommonStatus is view with c's reservedFor and deallocationRequested.
func withCommonStatus(view comparedParts, c common.StatusView) comparedParts {
	view.status.ReservedFor = c.ReservedFor
	view.status.DeallocationRequested = c.DeallocationRequested
	return view
}
