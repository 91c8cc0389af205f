package conversion

import (
	"bytes"
	"maps"
	"slices"

	"github.com/claimbridge/claimbridge/api"
)

// StoredRestoreVersions returns the versions whose restore annotations stay
// on an object written in version once converted to the storage version.
func StoredRestoreVersions(version string) []string {
	from, to := slices.Index(api.ServedVersions, version), slices.Index(api.ServedVersions, api.StorageVersion)
	if from > to {
		from, to = to, from
	}
	return slices.Concat(api.ServedVersions[:max(from, 0)], api.ServedVersions[to+1:])
}

// WithStoredStatusRestoreData returns newObj's annotations with the status
// data of its restore annotations of versions replaced by that of oldObj,
// the stored object (nil for a create). A write through the main resource
// does not set status, so other status data is a copy, say from a backup,
// and could later set a status that was never validated. Annotations left
// empty are removed; those without status data, or that do not decode, are
// kept. changed lists the replaced keys, sorted; when it is empty,
// annotations is nil. remove is true when no annotation is left.
func WithStoredStatusRestoreData(newObj, oldObj map[string]interface{}, versions []string) (annotations map[string]interface{}, remove bool, changed []string) {
	own := api.Annotations(newObj)
	for _, version := range versions {
		key := api.RestoreAnnotation(version)
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
		if data, err := r.appendJSON(nil); err == nil && !r.empty() {
			annotations[key] = string(data)
		} else { // empty, or (not reached: what decoded encodes again) unencodable
			delete(annotations, key)
		}
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
	ea, errA := (&restore{Spec: a}).appendJSON(nil)
	eb, errB := (&restore{Spec: b}).appendJSON(nil)
	return errA == nil && errB == nil && bytes.Equal(ea, eb)
}
