package validation

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/claimbridge/claimbridge/conversion"
)

// addedUnknownFields are the findings for the fields of version's view of
// an update's new object that version's type does not have and its view of
// the old object did not have: only restore data can put them there
// (conversion writes nothing else a version lacks), a client's own, which
// the apiserver would drop when it reads the object through version. Each
// is named at the restore annotation of version, as a create's are.
func addedUnknownFields(kind, version string, pair viewPair) field.ErrorList {
	if pair.newObj == nil {
		return nil
	}
	added, err := shapes[version].unknownFields(kind, pair.newObj)
	if err != nil || len(added) == 0 {
		return nil // a view that does not decode is the other checks' to report
	}
	var had field.ErrorList
	if pair.oldObj != nil {
		had, _ = shapes[version].unknownFields(kind, pair.oldObj)
	}
	return restoreFindings(field.NewPath("metadata", "annotations").Key(conversion.RestoreAnnotation(version)), version, added, had)
}
