package validation

import (
	"fmt"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/conversion"
)

// convertedPair is the new and the old object converted to one version.
type convertedPair struct {
	newParts, oldParts comparedParts
	// err is why the objects cannot be converted to the version.
	err error
	// newObj and oldObj are the converted objects, kept on a main update
	// (tooDeep, addedUnknownFields) and for the storage version
	// (storageStatusErrors).
	newObj, oldObj map[string]interface{}
}

// convertToOtherVersions returns, keyed by version, the pairs of every
// served version other than t.version. statusOnly (a status write) decodes
// only metadata.deletionTimestamp and the status of the converted objects.
func convertToOtherVersions(t objectType, statusOnly bool, newObj, oldObj map[string]interface{}) map[string]convertedPair {
	out := make(map[string]convertedPair, len(api.ServedVersions)-1)
	for _, version := range api.ServedVersions {
		if version == t.version {
			continue
		}
		var pair convertedPair
		if pair.newObj, pair.err = conversion.Convert(newObj, version); pair.err == nil {
			pair.oldObj, pair.err = conversion.Convert(oldObj, version)
		}
		if pair.err == nil {
			pair.newParts, pair.err = comparedPartsOf(t.kind, version, pair.newObj, statusOnly)
		}
		if pair.err == nil {
			pair.oldParts, pair.err = comparedPartsOf(t.kind, version, pair.oldObj, statusOnly)
		}
		if statusOnly && version != api.StorageVersion {
			pair.newObj, pair.oldObj = nil, nil
		}
		out[version] = pair
	}
	return out
}

// comparedPartsOf decodes the compared parts of a converted object;
// statusOnly decodes only metadata.deletionTimestamp and the status.
func comparedPartsOf(kind, version string, obj map[string]interface{}, statusOnly bool) (comparedParts, error) {
	if statusOnly {
		reduced := map[string]interface{}{"apiVersion": obj["apiVersion"], "kind": obj["kind"]}
		if meta, ok := obj["metadata"].(map[string]interface{}); ok {
			if ts, ok := meta["deletionTimestamp"]; ok {
				reduced["metadata"] = map[string]interface{}{"deletionTimestamp": ts}
			}
		}
		if status, ok := obj["status"]; ok {
			reduced["status"] = status
		}
		obj = reduced
	}
	parts, err := partsOf(version, kind, obj)
	if err != nil {
		return parts, fmt.Errorf("decoding the %s conversion: %w", version, err)
	}
	return parts, nil
}

// hasRestore reports whether obj carries the restore annotation of version.
func hasRestore(obj map[string]interface{}, version string) bool {
	meta, _ := obj["metadata"].(map[string]interface{})
	ann, _ := meta["annotations"].(map[string]interface{})
	_, ok := ann[conversion.RestoreAnnotation(version)]
	return ok
}
