package validation

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

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
	for _, v := range StoredRestoreVersions(t.version) {
		stored = append(stored, conversion.RestoreAnnotation(v))
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

// KeepStoredStatusRestoreData returns obj, a claim written through the main
// resource in version, with the status data of its restore annotations made
// old's (nil for a create), and a warning for each annotation changed: the
// defaulting webhook's repair of a re-applied copy of an allocated claim.
// obj is not modified, and returned itself when nothing changes.
func KeepStoredStatusRestoreData(obj, old map[string]interface{}, version string) (map[string]interface{}, []string) {
	annotations, remove, changed := conversion.WithStoredStatusRestoreData(obj, old, StoredRestoreVersions(version))
	if len(changed) == 0 {
		return obj, nil
	}
	what := "removed: a created claim starts without status"
	if old != nil {
		what = "kept as stored: status is written through the status subresource"
	}
	warnings := make([]string, 0, len(changed))
	for _, key := range changed {
		warnings = append(warnings, fmt.Sprintf("metadata.annotations[%s]: its status restore data was %s", key, what))
	}
	out := maps.Clone(obj)
	meta := maps.Clone(out["metadata"].(map[string]interface{})) // changed: metadata holds annotations
	if remove {
		delete(meta, "annotations")
	} else {
		meta["annotations"] = annotations
	}
	out["metadata"] = meta
	return out, warnings
}

// StoredRestoreVersions returns the versions whose restore annotations stay
// on an object written in version once converted to the storage version.
func StoredRestoreVersions(version string) []string {
	from, to := slices.Index(versions, version), slices.Index(versions, StorageVersion)
	if from > to {
		from, to = to, from
	}
	var out []string
	for i, v := range versions {
		if i < from || i > to {
			out = append(out, v)
		}
	}
	return out
}

// restoreStatusData returns the "status" member of each annotation of obj
// named in keys that has one and decodes, as conversion reads it.
func restoreStatusData(obj map[string]interface{}, keys []string) map[string]interface{} {
	meta, _ := obj["metadata"].(map[string]interface{})
	ann, _ := meta["annotations"].(map[string]interface{})
	var out map[string]interface{}
	for _, k := range keys {
		s, isString := ann[k].(string)
		if !isString {
			continue
		}
		var r struct {
			Status interface{} `json:"status"`
		}
		dec := json.NewDecoder(strings.NewReader(s))
		dec.UseNumber()
		if err := dec.Decode(&r); err != nil || r.Status == nil {
			continue
		}
		if out == nil {
			out = map[string]interface{}{}
		}
		out[k] = r.Status
	}
	return out
}
