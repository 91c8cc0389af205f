package api

import (
	"slices"
	"strings"
)

// The metadata of a JSON object, read and written in one place. Readers
// return the maps of the tree itself, never a copy: a caller that changes
// what they return changes obj. A member that is absent, null or not an
// object reads as a nil map, which reads as empty.

// Metadata returns obj's metadata object, or nil.
func Metadata(obj map[string]interface{}) map[string]interface{} {
	meta, _ := obj["metadata"].(map[string]interface{})
	return meta
}

// Annotations returns obj's metadata.annotations, or nil.
func Annotations(obj map[string]interface{}) map[string]interface{} {
	ann, _ := Metadata(obj)["annotations"].(map[string]interface{})
	return ann
}

// Annotation returns the value of obj's annotation key (a string in a valid
// object) and whether obj has it.
func Annotation(obj map[string]interface{}, key string) (interface{}, bool) {
	v, ok := Annotations(obj)[key]
	return v, ok
}

// DeleteAnnotation removes obj's annotation key, then PruneAnnotations.
func DeleteAnnotation(obj map[string]interface{}, key string) {
	delete(Annotations(obj), key)
	PruneAnnotations(obj)
}

// PruneAnnotations removes obj's metadata.annotations when it is an empty
// object: a manifest without annotations gets none.
func PruneAnnotations(obj map[string]interface{}) {
	meta := Metadata(obj)
	if ann, ok := meta["annotations"].(map[string]interface{}); ok && len(ann) == 0 {
		delete(meta, "annotations")
	}
}

// RestoreData returns the value of obj's restore annotation of version
// (RestoreAnnotation) and whether obj has it.
func RestoreData(obj map[string]interface{}, version string) (interface{}, bool) {
	return Annotation(obj, RestoreAnnotation(version))
}

// HasRestoreData reports whether obj has the restore annotation of one of
// versions.
func HasRestoreData(obj map[string]interface{}, versions ...string) bool {
	ann := Annotations(obj)
	return slices.ContainsFunc(versions, func(v string) bool { _, ok := ann[RestoreAnnotation(v)]; return ok })
}

// HasRestoreAnnotation reports whether obj has a restore annotation of any
// version.
func HasRestoreAnnotation(obj map[string]interface{}) bool {
	for k := range Annotations(obj) {
		if strings.HasPrefix(k, RestoreAnnotationPrefix) {
			return true
		}
	}
	return false
}
