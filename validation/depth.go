package validation

import (
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/claimbridge/claimbridge/api"
)

// tooDeep is the finding for a create or main update whose conversion to
// version nests deeper than maxDepth, which the conversion webhook does not
// return: only restore data can make it so (a client can write a restore
// annotation that puts deep data into an unknown field), so it is reported
// at the restore annotation of version when obj has one.
func tooDeep(obj map[string]interface{}, version string, maxDepth int) *field.Error {
	path := field.NewPath("metadata", "annotations")
	if api.HasRestoreData(obj, version) {
		path = path.Key(api.RestoreAnnotation(version))
	}
	return unreadable(path, version, fmt.Errorf("converted to %s it nests deeper than %d levels of arrays and objects, "+
		"which the conversion webhook does not return (no ConversionReview within its --max-json-depth carries it)", version, maxDepth))
}

// nestsDeeper reports whether v nests arrays and objects deeper than
// maxDepth levels (an object of scalars nests one), as the conversion
// webhook counts them in the object's JSON; it stops at the first value
// beyond.
func nestsDeeper(v interface{}, maxDepth int) bool {
	switch v := v.(type) {
	case map[string]interface{}:
		if maxDepth <= 0 {
			return true
		}
		for _, e := range v {
			if nestsDeeper(e, maxDepth-1) {
				return true
			}
		}
	case []interface{}:
		return maxDepth <= 0 || slices.ContainsFunc(v, func(e interface{}) bool { return nestsDeeper(e, maxDepth-1) })
	}
	return false
}
