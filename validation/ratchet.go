package validation

import (
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
func withoutUnchangedAllocationErrors(errs field.ErrorList, newObj, oldObj map[string]interface{}) field.ErrorList {
	if len(errs) == 0 || !apiequality.Semantic.DeepEqual(allocationOf(newObj), allocationOf(oldObj)) {
		return errs
	}
	out := errs[:0:0]
	for _, e := range errs {
		if !insideAllocation(e.Field) {
			out = append(out, e)
		}
	}
	return out
}

func allocationOf(obj map[string]interface{}) interface{} {
	status, _ := obj["status"].(map[string]interface{})
	return status["allocation"]
}

func insideAllocation(path string) bool {
	const p = "status.allocation"
	return path == p || strings.HasPrefix(path, p+".") || strings.HasPrefix(path, p+"[")
}
