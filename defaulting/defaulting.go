// Package defaulting decides what the /default webhook does to a write of a
// claim or template before it is stored: its release's defaults (package
// conversion's DefaultsPatch), the status data its restore annotations keep,
// the storage version's defaults in its restore annotations, and the
// managedFields times of an apply that changes nothing. validation.Admit
// applies the same patch before it judges a manifest.
package defaulting

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/conversion"
)

// Patch returns the JSON Patch operations for obj, a create or update of a
// claim or template of kind written in version, and the warnings to show.
// oldObject returns the stored object of an update (nil for a create) and is
// called only when needed. obj is not modified.
func Patch(obj map[string]interface{}, oldObject func() (map[string]interface{}, error), version, kind string) ([]conversion.PatchOperation, []string, error) {
	ops := conversion.DefaultsPatch(obj, version, kind)
	var warnings []string
	if kind == api.KindClaim && api.HasRestoreData(obj, conversion.StoredRestoreVersions(version)...) {
		old, err := oldObject()
		if err != nil {
			return nil, nil, err
		}
		var keep *conversion.PatchOperation
		if keep, warnings = statusData(obj, old, version); keep != nil {
			ops = append(ops, *keep)
		}
	}
	// statusData removes the annotations only when none is left, and
	// storedDefaults needs one.
	if op := storedDefaults(obj, ops); op != nil {
		ops = append(ops, *op)
	}
	if len(ops) == 0 {
		return nil, nil, nil
	}
	// Only an update that gets defaults can be one whose sole change is
	// the managedFields times kube-apiserver set before admission.
	old, err := oldObject()
	if err != nil {
		return nil, nil, err
	}
	if old != nil {
		if kept := managedFields(obj, old, ops); kept != nil {
			ops = append(ops, *kept)
		}
	}
	return ops, warnings, nil
}

// statusData is the operation that gives obj the restore annotations
// KeepStoredStatusRestoreData gives it, with its warnings; nil
// when nothing changes.
func statusData(obj, old map[string]interface{}, version string) (*conversion.PatchOperation, []string) {
	out, warnings := KeepStoredStatusRestoreData(obj, old, version)
	if len(warnings) == 0 {
		return nil, nil
	}
	annotations, ok := api.Metadata(out)["annotations"]
	if !ok {
		return &conversion.PatchOperation{Op: "remove", Path: "/metadata/annotations"}, warnings
	}
	return &conversion.PatchOperation{Op: "add", Path: "/metadata/annotations", Value: annotations}, warnings
}

// KeepStoredStatusRestoreData returns obj, a claim written through the main
// resource in version, with the status data of its restore annotations made
// old's (nil for a create), and a warning for each annotation changed: the
// repair of a re-applied copy of an allocated claim. obj is not modified,
// and returned itself when nothing changes.
func KeepStoredStatusRestoreData(obj, old map[string]interface{}, version string) (map[string]interface{}, []string) {
	annotations, remove, changed := conversion.WithStoredStatusRestoreData(obj, old, conversion.StoredRestoreVersions(version))
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
	meta := maps.Clone(api.Metadata(out)) // changed: metadata holds annotations
	if remove {
		delete(meta, "annotations")
	} else {
		meta["annotations"] = annotations
	}
	out["metadata"] = meta
	return out, warnings
}

// storedDefaults is the operation that gives obj, once ops are applied, the
// restore annotations with the storage version's defaults: a view read before
// the claim was defaulted records requests without mode or count, and written
// back would store that again. nil when nothing changes.
func storedDefaults(obj map[string]interface{}, ops []conversion.PatchOperation) *conversion.PatchOperation {
	if data, _ := api.RestoreData(obj, api.V1alpha3); data == nil {
		return nil // the common case, without a copy
	}
	defaulted := api.DeepCopyJSON(obj)
	if err := conversion.ApplyPatch(defaulted, ops); err != nil {
		return nil
	}
	annotations, present, changed, err := conversion.StoredDefaultsAnnotations(defaulted)
	if err != nil || !changed {
		return nil
	}
	if !present {
		return &conversion.PatchOperation{Op: "remove", Path: "/metadata/annotations"}
	}
	return &conversion.PatchOperation{Op: "add", Path: "/metadata/annotations", Value: annotations}
}

// managedFields is the operation that gives an update old's managedFields
// when obj with ops applied differs from old only in their times; nil
// otherwise. An apply without the defaults replaces the atomic request list,
// so kube-apiserver sets a new time, and reverts that time-only change only
// while the entries keep their order. Without this, every unchanged apply
// after another manager's would store a new resourceVersion.
func managedFields(obj, old map[string]interface{}, ops []conversion.PatchOperation) *conversion.PatchOperation {
	oldFields, newFields := fieldsOf(old), fieldsOf(obj)
	if len(oldFields) == 0 || len(newFields) != len(oldFields) {
		return nil
	}
	oldEntries, newEntries := entriesWithoutTime(oldFields), entriesWithoutTime(newFields)
	if oldEntries == nil || !slices.Equal(oldEntries, newEntries) {
		return nil
	}
	defaulted := api.DeepCopyJSON(obj)
	if err := conversion.ApplyPatch(defaulted, ops); err != nil {
		return nil // a removal: not what an unchanged apply needs
	}
	if !api.EqualJSONNulls(withoutManagedFields(defaulted), withoutManagedFields(old)) || api.EqualJSONNulls(newFields, oldFields) {
		return nil
	}
	return &conversion.PatchOperation{Op: "add", Path: "/metadata/managedFields", Value: oldFields}
}

func fieldsOf(obj map[string]interface{}) []interface{} {
	fields, _ := api.Metadata(obj)["managedFields"].([]interface{})
	return fields
}

// entriesWithoutTime are the sorted encodings of the entries without their
// time; nil if one is not an object.
func entriesWithoutTime(fields []interface{}) []string {
	out := make([]string, 0, len(fields))
	for _, f := range fields {
		entry, ok := f.(map[string]interface{})
		if !ok {
			return nil
		}
		data, _ := json.Marshal(withoutKey(entry, "time"))
		out = append(out, string(data))
	}
	slices.Sort(out)
	return out
}

func withoutManagedFields(obj map[string]interface{}) map[string]interface{} {
	out := maps.Clone(obj)
	if meta, ok := obj["metadata"].(map[string]interface{}); ok {
		out["metadata"] = withoutKey(meta, "managedFields")
	}
	return out
}

// withoutKey is a shallow copy of m without key.
func withoutKey(m map[string]interface{}, key string) map[string]interface{} {
	out := maps.Clone(m)
	delete(out, key)
	return out
}
