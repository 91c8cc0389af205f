package validation

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/claimbridge/claimbridge/conversion"
)

// A restore annotation's data comes back, as objects, only in the view of
// its version: a client can write one (its base is conversion's fingerprint
// of the spec, which anyone can compute) whose patch puts deeply nested
// data into an unknown field of the spec, which the views' typed specs do
// not show. An object written through v1alpha3 is stored as it is, with no
// conversion; the conversion webhook then refuses to return the view nested
// deeper than a ConversionReview within its --max-json-depth carries, so
// every read of the object through that version would fail, and every list
// and watch of claims through it, for every client (unreadable). A create
// or main update that makes a view so is refused.
//
// Without restore data a view nests deeper than the object only in the
// storage version (1.30 handle data parsed into parameters, bounded), which
// the conversion webhook checks when it converts the write for storage; a
// status write changes no annotation.

// tooDeep is the finding for a write whose view in version nests deeper
// than maxDepth: at the restore annotation of version, which brings the
// data, when obj has one.
func tooDeep(obj map[string]interface{}, version string, maxDepth int) *field.Error {
	path := field.NewPath("metadata", "annotations")
	if hasRestore(obj, version) {
		path = path.Key(conversion.RestoreAnnotation(version))
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
		if maxDepth <= 0 {
			return true
		}
		for _, e := range v {
			if nestsDeeper(e, maxDepth-1) {
				return true
			}
		}
	}
	return false
}
