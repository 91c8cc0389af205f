package validation

import (
	"slices"
	"strings"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// withoutUnchangedAllocationErrors drops, on a status write that leaves the
// allocation as it was, the findings inside the allocation.
//
// Upstream validates the allocation on every status write, but no release
// could store one its rules reject, so the findings only ever concerned the
// write that set it. Here an allocation written through one version is
// shown through the others, where it may break a rule the writer's version
// does not have: a v1alpha3 allocation whose opaque configuration exceeds
// 16 KiB becomes a v1alpha1 resourceHandle or a v1alpha2 handle's data of
// that size. Reported on every later status write, such a finding would
// keep a 1.26–1.30 client from ever removing its reservation or requesting
// deallocation, for an allocation it did not write and may not change.
//
// A missing status.driverName goes with the allocation too: in the
// v1alpha1/v1alpha2 views the driver is derived from the stored allocation's
// results, and a v1alpha3 allocation without results (a claim without
// requests) has none, which "must be specified when allocation is set" would
// otherwise report on every reservation change.
func withoutUnchangedAllocationErrors(errs field.ErrorList, newObj, oldObj map[string]interface{}) field.ErrorList {
	if len(errs) == 0 || !apiequality.Semantic.DeepEqual(allocationOf(newObj), allocationOf(oldObj)) {
		return errs
	}
	noDriver := allocationOf(newObj) != nil && noString(statusField(newObj, "driverName")) && noString(statusField(oldObj, "driverName"))
	out := errs[:0:0]
	for _, e := range errs {
		if insideAllocation(e.Field) || noDriver && e.Field == "status.driverName" && e.Type == field.ErrorTypeRequired {
			continue
		}
		out = append(out, e)
	}
	return out
}

// sameTemplateMetadata reports whether a template update leaves its
// spec.metadata as it was.
func sameTemplateMetadata(newObj, oldObj map[string]interface{}) bool {
	return apiequality.Semantic.DeepEqual(templateMetadata(newObj), templateMetadata(oldObj))
}

func templateMetadata(obj map[string]interface{}) interface{} {
	spec, _ := obj["spec"].(map[string]interface{})
	return spec["metadata"]
}

// withoutTemplateMetadata returns a template without its spec.metadata (a
// copy of the containers on the way), for validating a main update that
// leaves spec.metadata as it was: neither decoded nor validated again.
//
// The CRD's schema of a template's spec.metadata has every field of
// ObjectMeta, so that the webhook can refuse them on create as upstream
// does ("cannot be set"); the schema of earlier builds pruned all but five,
// and builds of this session's first commits stored any value there. A
// template stored with such a field while the webhook was not called
// (failurePolicy Ignore, the webhook configuration deleted), or with a value
// the schema's date-time check accepts and metav1.Time does not parse
// ("2024-01-01t00:00:00z"), would otherwise be refused on every later
// update, its finalizers included, since the template spec is immutable:
// its deletion would hang. Upstream could never store one.
func withoutTemplateMetadata(obj map[string]interface{}) map[string]interface{} {
	spec, isMap := obj["spec"].(map[string]interface{})
	if !isMap {
		return obj
	}
	if _, has := spec["metadata"]; !has {
		return obj
	}
	out := make(map[string]interface{}, len(obj))
	for k, v := range obj {
		out[k] = v
	}
	specOut := make(map[string]interface{}, len(spec))
	for k, v := range spec {
		if k != "metadata" {
			specOut[k] = v
		}
	}
	out["spec"] = specOut
	return out
}

// noString reports whether v is absent or "".
func noString(v interface{}) bool {
	s, isString := v.(string)
	return v == nil || isString && s == ""
}

// withoutStoredSpecErrors drops, on a main update through v1alpha1 or
// v1alpha2 that leaves the spec as it was, the findings inside the spec
// when that spec is shown from a stored (v1alpha3) spec that is valid there
// and nothing else: no restore data of an older version contributes to it.
//
// Upstream re-runs its create rules on every update, but no release could
// store a spec its rules reject. Here a spec written through v1alpha3 is
// shown through the older versions, where it may break a rule v1alpha3 does
// not have: a claim without requests, valid in 1.31, has a v1alpha1/v1alpha2
// view without a resourceClassName. The spec is immutable, so a finding
// there would keep every 1.26–1.30 client from ever labelling the claim or
// removing its finalizer (its deletion would hang) for a spec it did not
// write and may not change. A spec that is invalid in v1alpha3 as well, or
// that an older version wrote (its restore data shows fields v1alpha3 does
// not validate, such as a parametersRef), is reported as upstream reports it.
func withoutStoredSpecErrors(t target, errs field.ErrorList, newObj, oldObj map[string]interface{}) field.ErrorList {
	if t.version == StorageVersion || !slices.ContainsFunc(errs, insideSpec) || !sameSpec(t, newObj, oldObj) {
		return errs
	}
	stored, err := convert(oldObj, StorageVersion)
	if err != nil {
		return errs
	}
	pure, _ := withoutRestoreAnnotations(stored)
	derived, err := convert(pure, t.version)
	if err != nil || !apiequality.Semantic.DeepEqual(derived["spec"], oldObj["spec"]) {
		return errs
	}
	result, err := shapes[StorageVersion].run(t.kind, Update, "", stored, stored)
	if err != nil || slices.ContainsFunc(result.errs, insideSpec) {
		return errs
	}
	return slices.DeleteFunc(slices.Clone(errs), insideSpec)
}

// sameSpec reports whether a and b, objects of t's version and kind, have
// the same spec once defaulted, as kube-apiserver compares an update with the
// stored object (which it defaults on decoding): the CRD and the defaulting
// webhook default a write, and the view it replaces may lack the defaults
// (one written by an older build, or with restore data that records their
// absence).
func sameSpec(t target, a, b map[string]interface{}) bool {
	if apiequality.Semantic.DeepEqual(a["spec"], b["spec"]) {
		return true
	}
	va, errA := shapes[t.version].view(t.kind, a)
	vb, errB := shapes[t.version].view(t.kind, b)
	return errA == nil && errB == nil && apiequality.Semantic.DeepEqual(va.spec, vb.spec)
}

func insideSpec(e *field.Error) bool {
	const p = "spec"
	return e.Field == p || strings.HasPrefix(e.Field, p+".") || strings.HasPrefix(e.Field, p+"[")
}

func allocationOf(obj map[string]interface{}) interface{} {
	return statusField(obj, "allocation")
}

func statusField(obj map[string]interface{}, name string) interface{} {
	status, _ := obj["status"].(map[string]interface{})
	return status[name]
}

func insideAllocation(path string) bool {
	const p = "status.allocation"
	return path == p || strings.HasPrefix(path, p+".") || strings.HasPrefix(path, p+"[")
}
