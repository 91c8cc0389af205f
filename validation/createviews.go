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
		with, withErr := viewCreateErrors(t.kind, version, newObj)
		without, withoutErr := viewCreateErrors(t.kind, version, bare)
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
// rules on it.
func viewCreateErrors(kind, version string, obj map[string]interface{}) (field.ErrorList, error) {
	converted, err := convert(obj, version)
	if err != nil {
		return nil, err // names the object and both versions
	}
	result, err := shapes[version].run(kind, Create, "", prepareForCreate(converted, kind), nil)
	if err != nil {
		return nil, fmt.Errorf("validating the %s view: %w", version, err)
	}
	return result.errs, nil
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
