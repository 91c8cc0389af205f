package validation

import (
	"maps"
	"slices"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/conversion"
)

// A restore annotation's status data patches any later status with the
// fingerprint it names, so it could slip past the checks of today's status.
// Conversion writes it only on status writes, and a client writing the main
// resource sends back what it read: a create may carry none, and a main
// update may not add or change any. Only annotations that stay stored count.

// statusRestoreDataErrors reports each restore annotation of newObj, an object
// of t's version, that is stored with status data oldObj (nil for a create)
// does not have alike.
func statusRestoreDataErrors(t objectType, newObj, oldObj map[string]interface{}) field.ErrorList {
	var stored []string
	for _, v := range conversion.StoredRestoreVersions(t.version) {
		stored = append(stored, api.RestoreAnnotation(v))
	}
	newData := restoreStatusData(newObj, stored)
	if len(newData) == 0 {
		return nil
	}
	oldData := restoreStatusData(oldObj, stored)
	var allErrs field.ErrorList
	for _, k := range slices.Sorted(maps.Keys(newData)) {
		path := field.NewPath("metadata", "annotations").Key(k)
		switch old, ok := oldData[k]; {
		case oldObj == nil:
			allErrs = append(allErrs, field.Forbidden(path,
				"holds status restore data: a create cannot set status, and this data would set it as seen through another version once the claim's status matches it"))
		case !ok || !api.DeepEqualJSON(old, newData[k]):
			allErrs = append(allErrs, field.Forbidden(path,
				"the update changes its status restore data: status is written through the status subresource, and this data would change it as seen through another version once the claim's status matches it"))
		}
	}
	return allErrs
}

// restoreStatusData returns the "status" member of each annotation of obj
// named in keys that has one and decodes, as conversion reads it.
func restoreStatusData(obj map[string]interface{}, keys []string) map[string]interface{} {
	ann := api.Annotations(obj)
	var out map[string]interface{}
	for _, k := range keys {
		s, isString := ann[k].(string)
		if !isString {
			continue
		}
		var r struct {
			Status interface{} `json:"status"`
		}
		if err := api.DecodeJSON([]byte(s), &r); err != nil || r.Status == nil {
			continue
		}
		if out == nil {
			out = map[string]interface{}{}
		}
		out[k] = r.Status
	}
	return out
}
