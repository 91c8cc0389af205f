package conversion

import (
	"maps"
	"slices"
)

// WithoutStatusRestoreData returns the annotations obj is to be created
// with: its own, with the status data (the "status" member) of the restore
// annotations of versions taken out. A create starts without status (the
// apiserver drops the one it is sent), so such data, which a copy of an
// allocated claim read from the apiserver carries (a backup, restored by a
// tool that creates objects as it read them), sets nothing today; but it
// would set the status of a view of another version once a later status
// write brings the status to the fingerprint it names, without that status
// having been validated (docs/validation.md). An annotation that held
// nothing else goes.
//
// dropped lists the keys whose status data was taken out, in order; it is
// empty, and annotations nil, when there was none. remove is true when no
// annotation is left (the apiserver stores no empty map either). An
// annotation that does not decode holds no data conversion would apply and
// is left as it is. obj is not modified.
func WithoutStatusRestoreData(obj map[string]interface{}, versions []string) (annotations map[string]interface{}, remove bool, dropped []string) {
	own, _ := asMap(obj["metadata"])["annotations"].(map[string]interface{})
	if len(own) == 0 {
		return nil, false, nil
	}
	for _, version := range versions {
		key := RestoreAnnotation(version)
		r := decodeRestore(obj, version)
		if r == nil || r.Status == nil {
			continue
		}
		if annotations == nil {
			annotations = maps.Clone(own)
		}
		dropped = append(dropped, key)
		r.Status = nil
		if r.empty() {
			delete(annotations, key)
			continue
		}
		data, err := r.appendJSON(nil)
		if err != nil {
			// Not reached: the spec data decoded from JSON encodes again.
			delete(annotations, key)
			continue
		}
		annotations[key] = string(data)
	}
	if len(dropped) == 0 {
		return nil, false, nil
	}
	slices.Sort(dropped)
	return annotations, len(annotations) == 0, dropped
}
