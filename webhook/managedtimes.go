package webhook

import (
	"bytes"
	"slices"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/defaulting"
	"github.com/claimbridge/claimbridge/internal/jsontree"
)

// storedManagedFields is the operation that gives an update the managedFields
// of old, the stored object, when obj with ops (the defaults and restore
// data /default writes) applied is old but for the times of managedFields
// entries: the update changes nothing, and kube-apiserver should store
// nothing. nil otherwise; obj is not modified.
//
// Why: server-side apply merges the manifest into the live object before
// admission. A v1alpha3 request list is atomic, so a manifest whose
// requests leave out allocationMode and count replaces the live, defaulted
// list; the merge differs from the live object, and kube-apiserver sets
// the manager's managedFields time to now. /default writes the defaults
// again, and the object is as stored. kube-apiserver reverts such a
// time-only change (IgnoreManagedFieldsTimestampsTransformer), but only
// while the entries keep their order, which is by time: when another
// manager applied after this one, the new time moves the entry behind it,
// and every such unchanged apply stored a new resourceVersion, churning
// managedFields. kube-apiserver keeps managedFields that a mutating webhook
// sets when they are valid, as old's are.
func storedManagedFields(obj, old map[string]interface{}, ops []defaulting.Operation) *defaulting.Operation {
	oldFields, ok := managedFieldsOf(old)
	if !ok {
		return nil
	}
	newFields, ok := managedFieldsOf(obj)
	if !ok || len(newFields) != len(oldFields) {
		return nil
	}
	oldEntries, ok := entriesWithoutTime(oldFields)
	if !ok {
		return nil
	}
	newEntries, ok := entriesWithoutTime(newFields)
	if !ok || !slices.Equal(oldEntries, newEntries) {
		return nil
	}
	defaulted := api.DeepCopyJSON(obj)
	if err := defaulting.Apply(defaulted, ops); err != nil {
		return nil // a removal: not what an unchanged apply needs
	}
	same, err := equalWithoutManagedFields(defaulted, old)
	if err != nil || !same {
		return nil
	}
	if exact, err := equalJSON(newFields, oldFields); err != nil || exact {
		return nil // nothing to give back
	}
	return &defaulting.Operation{Op: "add", Path: "/metadata/managedFields", Value: oldFields}
}

// managedFieldsOf is obj's metadata.managedFields, a non-empty list.
func managedFieldsOf(obj map[string]interface{}) ([]interface{}, bool) {
	meta, _ := obj["metadata"].(map[string]interface{})
	fields, ok := meta["managedFields"].([]interface{})
	return fields, ok && len(fields) > 0
}

// entriesWithoutTime are the canonical encodings of managedFields entries
// without their time, sorted: what each manager owns, however ordered.
func entriesWithoutTime(fields []interface{}) ([]string, bool) {
	out := make([]string, 0, len(fields))
	for _, f := range fields {
		entry, ok := f.(map[string]interface{})
		if !ok {
			return nil, false
		}
		b, err := jsontree.AppendObjectOmittingCanonical(nil, entry, []string{"time"})
		if err != nil {
			return nil, false
		}
		out = append(out, string(b))
	}
	slices.Sort(out)
	return out, true
}

// equalWithoutManagedFields reports whether a and b, objects, are equal as
// JSON but for metadata.managedFields.
func equalWithoutManagedFields(a, b map[string]interface{}) (bool, error) {
	strip := func(obj map[string]interface{}) map[string]interface{} {
		out := make(map[string]interface{}, len(obj))
		for k, v := range obj {
			out[k] = v
		}
		if meta, ok := obj["metadata"].(map[string]interface{}); ok {
			m := make(map[string]interface{}, len(meta))
			for k, v := range meta {
				if k != "managedFields" {
					m[k] = v
				}
			}
			out["metadata"] = m
		}
		return out
	}
	return equalJSON(strip(a), strip(b))
}

// equalJSON reports whether a and b encode alike canonically (numbers of
// either decoder included).
func equalJSON(a, b interface{}) (bool, error) {
	ea, err := jsontree.AppendCanonical(nil, a)
	if err != nil {
		return false, err
	}
	eb, err := jsontree.AppendCanonical(nil, b)
	if err != nil {
		return false, err
	}
	return bytes.Equal(ea, eb), nil
}
