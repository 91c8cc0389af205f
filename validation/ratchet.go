package validation

import (
	"maps"
	"slices"
	"strings"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/conversion"
)

// sameTemplateMetadata reports whether a template update leaves its
// spec.metadata as it was.
func sameTemplateMetadata(newObj, oldObj map[string]interface{}) bool {
	newSpec, _ := newObj["spec"].(map[string]interface{})
	oldSpec, _ := oldObj["spec"].(map[string]interface{})
	return api.EqualJSON(newSpec["metadata"], oldSpec["metadata"])
}

// withoutTemplateMetadata returns a template without its spec.metadata, for
// a main update that leaves it alone. Earlier builds could store values the
// create rules refuse; refusing them on every update of the immutable spec
// would refuse even the removal of the template's finalizers.
func withoutTemplateMetadata(obj map[string]interface{}) map[string]interface{} {
	spec, isMap := obj["spec"].(map[string]interface{})
	if _, has := spec["metadata"]; !isMap || !has {
		return obj
	}
	out, specOut := maps.Clone(obj), maps.Clone(spec)
	delete(specOut, "metadata")
	out["spec"] = specOut
	return out
}

// withoutStoredSpecErrors drops, on a v1alpha1 or v1alpha2 main update that
// leaves the spec alone, the spec findings when it derives from a valid
// stored v1alpha3 spec without older restore data. A claim without requests
// has no resourceClassName there; since the spec is immutable, reporting it
// would keep those clients from ever labelling the claim.
func withoutStoredSpecErrors(t objectType, errs field.ErrorList, newObj, oldObj map[string]interface{}, cel *CELCache) field.ErrorList {
	if t.version == api.StorageVersion || !slices.ContainsFunc(errs, insideSpec) || !sameSpec(t, newObj, oldObj) {
		return errs
	}
	stored, err := conversion.Convert(oldObj, api.StorageVersion)
	if err != nil {
		return errs
	}
	pure, _ := withoutRestoreAnnotations(stored)
	derived, err := conversion.Convert(pure, t.version)
	if err != nil || !api.EqualJSON(derived["spec"], oldObj["spec"]) {
		return errs
	}
	storedErrs, _, err := updateRules(api.StorageVersion, t.kind, stored, stored, cel)
	if err != nil || slices.ContainsFunc(storedErrs, insideSpec) {
		return errs
	}
	return slices.DeleteFunc(slices.Clone(errs), insideSpec)
}

// sameSpec reports whether a and b have the same spec once defaulted, as
// kube-apiserver compares an update with the stored object.
func sameSpec(t objectType, a, b map[string]interface{}) bool {
	if api.EqualJSON(a["spec"], b["spec"]) {
		return true
	}
	va, errA := partsOf(t.version, t.kind, a, false)
	vb, errB := partsOf(t.version, t.kind, b, false)
	return errA == nil && errB == nil && apiequality.Semantic.DeepEqual(va.spec, vb.spec)
}

func insideSpec(e *field.Error) bool { return inside(e.Field, "spec") }

// inside reports whether path is p or below it.
func inside(path, p string) bool {
	return path == p || strings.HasPrefix(path, p+".") || strings.HasPrefix(path, p+"[")
}
