package validation

import (
	"fmt"
	"maps"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/conversion"
	"github.com/claimbridge/claimbridge/validation/common"
)

// otherVersionCreateErrors checks a new object as every other version sees
// it. The restore annotations become part of the object in the other
// versions, the stored one among them, so each error they introduce there is
// reported at metadata.annotations. An object some version cannot read or,
// with maxDepth, nests too deep there is refused, and so is a claim whose
// restore annotations hold status data.
func otherVersionCreateErrors(t objectType, newObj map[string]interface{}, maxDepth int, cel *CELCache) field.ErrorList {
	bare, ok := withoutRestoreAnnotations(newObj)
	if !ok {
		if viewsFit(api.Annotations(newObj), jsonLenBound(newObj["spec"]), jsonLenBound(newObj["status"])) {
			return nil
		}
		var allErrs field.ErrorList
		for _, version := range t.otherVersions() {
			if _, err := conversion.Convert(newObj, version); err != nil {
				allErrs = append(allErrs, unreadable(field.NewPath("metadata", "annotations"), version, err))
			}
		}
		return allErrs
	}
	path := field.NewPath("metadata", "annotations")
	var allErrs field.ErrorList
	gaveStatus := false
	for _, version := range t.otherVersions() {
		with, withView, withErr := createErrorsIn(t.kind, version, newObj, cel)
		without, withoutView, withoutErr := createErrorsIn(t.kind, version, bare, cel)
		if withView["status"] != nil && withoutView["status"] == nil {
			gaveStatus = true
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
		case withErr != nil && withView == nil: // the conversion failed
			allErrs = append(allErrs, unreadable(field.NewPath("metadata", "annotations"), version, withErr))
			continue
		case withErr != nil:
			continue // not the annotations' doing; the client version's rules speak
		}
		allErrs = append(allErrs, restoreAnnotationErrors(path, version, with, without)...)
		if maxDepth > 0 && nestsDeeper(withView, maxDepth) {
			allErrs = append(allErrs, tooDeep(newObj, version, maxDepth))
		}
	}
	if !gaveStatus && t.kind == api.KindClaim {
		allErrs = append(allErrs, statusRestoreDataErrors(t, newObj, nil)...)
	}
	return allErrs
}

// restoreAnnotationErrors are the findings of with (the restore annotations
// applied) that without does not have, each reported at path.
func restoreAnnotationErrors(path *field.Path, version string, with, without field.ErrorList) field.ErrorList {
	var allErrs field.ErrorList
	for _, e := range with {
		if !alreadyReported(e, without) {
			allErrs = append(allErrs, field.Invalid(path, common.OmittedValue,
				fmt.Sprintf("the restore annotations make the object invalid as seen through %s: %s", version, e.Error())))
		}
	}
	return allErrs
}

// createErrorsIn converts obj to version and runs that version's create
// rules on it; converted is nil if the conversion failed.
func createErrorsIn(kind, version string, obj map[string]interface{}, cel *CELCache) (errs field.ErrorList, converted map[string]interface{}, err error) {
	converted, err = conversion.Convert(obj, version)
	if err != nil {
		return nil, nil, err // names the object and both versions
	}
	errs, _, err = createRules(version, kind, prepareForCreate(converted, kind), cel)
	if err != nil {
		return nil, converted, fmt.Errorf("validating the %s view: %w", version, err)
	}
	return errs, converted, nil
}

// withoutRestoreAnnotations returns a copy of obj without its restore
// annotations, and whether it had any.
func withoutRestoreAnnotations(obj map[string]interface{}) (map[string]interface{}, bool) {
	if !api.HasRestoreAnnotation(obj) {
		return obj, false
	}
	out := api.DeepCopyJSON(obj)
	maps.DeleteFunc(api.Annotations(out), func(k string, _ interface{}) bool { return strings.HasPrefix(k, api.RestoreAnnotationPrefix) })
	return out, true
}

// unreadable is the finding for a write that leaves the object unreadable
// through version: its restore data exceeds the annotation size limit, so
// every read of it through that version would fail.
func unreadable(path *field.Path, version string, err error) *field.Error {
	return field.Forbidden(path,
		fmt.Sprintf("the object could not be read through %s, nor listed or watched with other claims through it: %v", version, err))
}
