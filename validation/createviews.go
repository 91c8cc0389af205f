package validation

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/claimbridge/claimbridge/conversion"
	"github.com/claimbridge/claimbridge/validation/common"
)

// On create, what the client's version cannot show arrives in the
// claimbridge.dev/restore-* annotations, and conversion makes it part of the
// other versions' views — the stored v1alpha3 object among them. Those views
// must be as valid as the object the client sees, or the annotations would
// smuggle in what the client's version would reject.
//
// createViewErrors validates every other version's view of a new object
// with that version's create rules and reports, at metadata.annotations,
// each error the restore annotations introduce. Errors the view also has
// without the annotations are not the annotations' doing (a v1alpha3 claim
// without requests, for example, has a v1alpha2 view without a class) and
// are left to the client version's own rules.
func createViewErrors(t target, newObj map[string]interface{}) field.ErrorList {
	bare, ok := withoutRestoreAnnotations(newObj)
	if !ok {
		return nil
	}
	path := field.NewPath("metadata", "annotations")
	var allErrs field.ErrorList
	for _, version := range Versions {
		if version == t.version {
			continue
		}
		with, withStatus, withErr := viewCreateErrors(t.kind, version, newObj)
		without, withoutStatus, withoutErr := viewCreateErrors(t.kind, version, bare)
		if withStatus && !withoutStatus {
			// The apiserver drops the status of a create before it
			// converts the object for storage, but the annotations
			// travel on: a status they restore would be stored, and
			// seen through this version, without the status
			// subresource's permission and rules.
			allErrs = append(allErrs, field.Forbidden(path,
				fmt.Sprintf("the restore annotations give the object a status as seen through %s: a create cannot set status", version)))
		}
		switch {
		case withErr != nil && withoutErr == nil:
			allErrs = append(allErrs, field.Invalid(path, common.OmittedValue,
				fmt.Sprintf("the restore annotations make the object unusable as seen through %s: %v", version, withErr)))
			continue
		case withErr != nil:
			continue // not the annotations' doing; the client version's rules speak
		}
		for _, e := range with {
			if !alreadyReported(e, without) {
				allErrs = append(allErrs, field.Invalid(path, common.OmittedValue,
					fmt.Sprintf("the restore annotations make the object invalid as seen through %s: %s", version, e.Error())))
			}
		}
	}
	return allErrs
}

// viewCreateErrors converts obj to version and runs that version's create
// rules on it; hasStatus reports whether the converted object has a status.
func viewCreateErrors(kind, version string, obj map[string]interface{}) (errs field.ErrorList, hasStatus bool, err error) {
	converted, err := convert(obj, version)
	if err != nil {
		return nil, false, err // names the object and both versions
	}
	hasStatus = converted["status"] != nil
	result, err := shapes[version].run(kind, Create, "", prepareForCreate(converted, kind), nil)
	if err != nil {
		return nil, hasStatus, fmt.Errorf("validating the %s view: %w", version, err)
	}
	return result.errs, hasStatus, nil
}

// withoutRestoreAnnotations returns a copy of obj without its restore
// annotations, and whether it had any.
func withoutRestoreAnnotations(obj map[string]interface{}) (map[string]interface{}, bool) {
	meta, _ := obj["metadata"].(map[string]interface{})
	ann, _ := meta["annotations"].(map[string]interface{})
	found := false
	for k := range ann {
		if strings.HasPrefix(k, conversion.AnnotationPrefix+"restore-") {
			found = true
		}
	}
	if !found {
		return obj, false
	}
	out := deepCopyJSON(obj)
	outAnn := out["metadata"].(map[string]interface{})["annotations"].(map[string]interface{})
	for k := range outAnn {
		if strings.HasPrefix(k, conversion.AnnotationPrefix+"restore-") {
			delete(outAnn, k)
		}
	}
	return out, true
}
