package conversion

import (
	"bytes"
	"maps"
	"slices"
)

// WithStoredStatusRestoreData returns the annotations newObj, a claim
// written through the main resource, is to be stored with: its own, with
// the status data (the "status" member) of its restore annotations of
// versions made the same as oldObj's, the stored object's (nil for a
// create, which has none). A write through the main resource does not set
// status, so such data it carries other than the stored object's is a copy
// of another object's, or of this one before a status write: a backup read
// from the apiserver and created again by a restore tool, or applied again
// (kubectl apply, a GitOps sync). It sets nothing today, but would set the
// status of a view of another version once a later status write brings the
// status to the fingerprint it names, without that status having been
// validated (docs/validation.md), and /validate refuses it. An annotation
// that then holds nothing goes. One without status data is left as it is
// (its removal is /validate's to judge), and so is one that does not decode
// (conversion applies nothing of it).
//
// changed lists the keys whose status data was replaced or taken out, in
// order; it is empty, and annotations nil, when none was. remove is true
// when no annotation is left (the apiserver stores no empty map either).
// Neither object is modified.
func WithStoredStatusRestoreData(newObj, oldObj map[string]interface{}, versions []string) (annotations map[string]interface{}, remove bool, changed []string) {
	own, _ := asMap(newObj["metadata"])["annotations"].(map[string]interface{})
	if len(own) == 0 {
		return nil, false, nil
	}
	for _, version := range versions {
		key := RestoreAnnotation(version)
		r := decodeRestore(newObj, version)
		if r == nil || r.Status == nil {
			continue
		}
		var stored *sectionPatch
		if old := decodeRestore(oldObj, version); old != nil {
			stored = old.Status
		}
		if sameSection(r.Status, stored) {
			continue
		}
		if annotations == nil {
			annotations = maps.Clone(own)
		}
		changed = append(changed, key)
		r.Status = stored
		if r.empty() {
			delete(annotations, key)
			continue
		}
		data, err := r.appendJSON(nil)
		if err != nil {
			// Not reached: what decoded from JSON encodes again.
			delete(annotations, key)
			continue
		}
		annotations[key] = string(data)
	}
	if len(changed) == 0 {
		return nil, false, nil
	}
	slices.Sort(changed)
	return annotations, len(annotations) == 0, changed
}

// sameSection reports whether a and b encode alike (both nil included).
func sameSection(a, b *sectionPatch) bool {
	if a == nil || b == nil {
		return a == b
	}
	ea, errA := encodeJSON(a.wire())
	eb, errB := encodeJSON(b.wire())
	return errA == nil && errB == nil && bytes.Equal(ea, eb)
}
