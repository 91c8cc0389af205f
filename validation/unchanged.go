package validation

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/validation/common"
)

// Conversion is a function of an object's apiVersion and kind, spec, status
// and metadata.annotations (the restore annotations are patches applied and
// written; the size of all annotations bounds them): metadata is otherwise
// copied, and nothing else is read. Most updates leave all of that as it
// was, and then the other versions' views need not be computed twice:
//
//   - an update of the main resource (labels, finalizers, owner references:
//     the status is the stored one, prepareForUpdate) whose spec and
//     annotations are unchanged has, in every version, a view equal to the
//     old object's: no spec or allocation change can be seen through any
//     version, and converting it to the storage version loses exactly what
//     the old object lost. Its cross-version checks and storage warnings can
//     find nothing and are skipped. (The old object is the stored one, so it
//     converts to the storage version; the new one then does too.)
//
//   - a status write (spec and metadata are the stored ones,
//     prepareForStatusUpdate) whose status differs from the old one only in
//     reservedFor and deallocationRequested — every reservation and
//     unreservation, and a deallocation request — has views whose only
//     difference is those two fields: every step copies them unchanged
//     (conversion's statusCommonKeys), reports no loss for them and leaves
//     them out of the restore fingerprints. So the old object's views are
//     the new one's with the old object's two fields, and its storage
//     warnings are the old object's.
//
// Both compute less than the full path in one respect only: whether the new
// object's restore annotations would exceed the annotation size limit in
// another version. They cannot where the old object is the stored one (its
// conversion input, and so that of the new object, was converted before);
// validating a hand-written old object offline, a conversion that fails on
// that limit is then not reported.
//
// TestUnchangedShortcutsReportNothingNew compares both shortcuts with the full
// computation over a corpus of updates.

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

// annotationsForm tells apart what a nil annotations value leaves open:
// metadata or metadata.annotations absent or null. Conversion records which
// of them a restore annotation it adds created (its "created" member), so
// they differ in the size it checks against the annotation limit.
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

// without returns m without keys (m itself when it has none of them).
func without(m map[string]interface{}, keys []string) map[string]interface{} {
	found := false
	for _, k := range keys {
		if _, ok := m[k]; ok {
			found = true
		}
	}
	if !found {
		return m
	}
	out := make(map[string]interface{}, len(m))
	for k, v := range m {
		out[k] = v
	}
	for _, k := range keys {
		delete(out, k)
	}
	return out
}

// commonStatus decodes the version-neutral status fields of obj (a claim
// of t's version): reservedFor and deallocationRequested.
func commonStatus(t target, obj map[string]interface{}) (common.StatusView, error) {
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
	v, err := shapes[t.version].view(t.kind, map[string]interface{}{"apiVersion": obj["apiVersion"], "kind": obj["kind"], "status": reduced})
	return v.status, err
}

// skipFactConversion enables viewsFromNativeFacts; tests turn it off to
// compare.
var skipFactConversion = true

// viewsFromNativeFacts is crossViews with deriveOld (see there) without any
// conversion, when no conversion can change the facts the status checks
// read. Every status mapping between v1alpha1, v1alpha2 and v1alpha3 keeps
// the allocation absent, null or set as it was (conversion/v1v2.go,
// v2v3.go, v3v2.go); v1alpha1 ⇄ v1alpha2 copy shareable, v1alpha3 →
// v1alpha2 sets it true, and v1alpha3 has none (statusFacts: not shareable
// is false there). After the mapping, a step applies the status patch of
// its target's restore annotation, which changes those facts only through
// an operation on /status, /status/allocation or
// /status/allocation/shareable (operations below a missing parent are
// skipped; spec patches are applied before the status is mapped, which
// replaces it). So when no restore annotation of another version has such an
// operation, each view's facts follow from the request's own: the
// allocation set as here, not shareable as here between v1alpha1 and
// v1alpha2 and false otherwise. ok is false when an annotation has such an
// operation, and the caller converts.
func viewsFromNativeFacts(t target, newObj, oldObj map[string]interface{}) (map[string]viewPair, bool) {
	if _, facts := restoreStatusOps(t, newObj); facts {
		return nil, false
	}
	return viewsFromFacts(t, newObj, oldObj)
}

// viewsFromFacts is viewsFromNativeFacts once the caller knows that no
// restore annotation of newObj has such an operation.
func viewsFromFacts(t target, newObj, oldObj map[string]interface{}) (map[string]viewPair, bool) {
	oldCommon, errOld := commonStatus(t, oldObj)
	newCommon, errNew := commonStatus(t, newObj)
	if errOld != nil || errNew != nil {
		return nil, false
	}
	native := statusFacts(t.version, newObj)
	out := make(map[string]viewPair, len(versions)-1)
	for _, version := range versions {
		if version == t.version {
			continue
		}
		facts := native
		facts.status.NotShareable = native.status.NotShareable && version != "v1alpha3" && t.version != "v1alpha3"
		out[version] = viewPair{newView: withCommonStatus(facts, newCommon), oldView: withCommonStatus(facts, oldCommon)}
	}
	return out, true
}

// statusFacts is the part of the view of obj (a claim of version) that the
// status checks read when the old and the new object share it (see
// crossViews): the deletion timestamp, whether the allocation is set, and
// whether it is set and not shareable (v1alpha1, v1alpha2). It reads the
// JSON tree as the typed decoding would: a null allocation is none, a
// shareable that is not true is false (no defaulting touches either).
func statusFacts(version string, obj map[string]interface{}) objectView {
	view := objectView{meta: &metav1.ObjectMeta{}}
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

// commonStatusOfTree reads reservedFor and deallocationRequested as the
// typed decoding does (JSON names matched exactly, other members ignored, null
// or absent the zero value) when every value has its JSON type; otherwise
// ok is false and the typed decoding decides.
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

// withCommonStatus is view with the reservedFor and deallocationRequested
// of c.
func withCommonStatus(view objectView, c common.StatusView) objectView {
	view.status.ReservedFor = c.ReservedFor
	view.status.DeallocationRequested = c.DeallocationRequested
	return view
}
