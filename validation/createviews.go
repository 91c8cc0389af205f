package validation

import (
	"errors"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/claimbridge/claimbridge/api"
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
//
// A new object that some version cannot show at all is refused too
// (unreadable; with maxDepth, a view nesting deeper: tooDeep), and so is a
// claim whose restore annotations hold status data (pendingStatusErrors)
// that gives no view a status yet.
func createViewErrors(t target, newObj map[string]interface{}, maxDepth int) field.ErrorList {
	bare, ok := withoutRestoreAnnotations(newObj)
	if !ok {
		if fitsEveryVersion(newObj) {
			return nil
		}
		var allErrs field.ErrorList
		for _, version := range versions {
			if version == t.version {
				continue
			}
			if _, err := convert(newObj, version); err != nil {
				allErrs = append(allErrs, unreadable(field.NewPath("metadata", "annotations"), version, err))
			}
		}
		return allErrs
	}
	path := field.NewPath("metadata", "annotations")
	var allErrs field.ErrorList
	gaveStatus := false
	for _, version := range versions {
		if version == t.version {
			continue
		}
		with, withView, withErr := viewCreateErrors(t.kind, version, newObj)
		without, withoutView, withoutErr := viewCreateErrors(t.kind, version, bare)
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
		case withErr != nil && isConversionError(withErr):
			allErrs = append(allErrs, unreadable(field.NewPath("metadata", "annotations"), version, withErr))
			continue
		case withErr != nil:
			continue // not the annotations' doing; the client version's rules speak
		}
		allErrs = append(allErrs, restoreFindings(path, version, with, without)...)
		if maxDepth > 0 && nestsDeeper(withView, maxDepth) {
			allErrs = append(allErrs, tooDeep(newObj, version, maxDepth))
		}
	}
	if !gaveStatus && t.kind == KindResourceClaim {
		allErrs = append(allErrs, pendingStatusErrors(t, newObj, nil)...)
	}
	return allErrs
}

// restoreFindings are the findings of with (a view with the restore
// annotations) that without (the same view without them, or the stored
// object's) does not have, each as the annotations' finding at path.
func restoreFindings(path *field.Path, version string, with, without field.ErrorList) field.ErrorList {
	var allErrs field.ErrorList
	for _, e := range with {
		if !alreadyReported(e, without) {
			allErrs = append(allErrs, field.Invalid(path, common.OmittedValue,
				fmt.Sprintf("the restore annotations make the object invalid as seen through %s: %s", version, e.Error())))
		}
	}
	return allErrs
}

// viewCreateErrors converts obj to version and runs that version's create
// rules on it; it also returns the converted object (nil if the conversion
// failed). A failed conversion is returned as a *conversionError.
func viewCreateErrors(kind, version string, obj map[string]interface{}) (errs field.ErrorList, converted map[string]interface{}, err error) {
	converted, err = convert(obj, version)
	if err != nil {
		return nil, nil, &conversionError{err} // names the object and both versions
	}
	result, err := shapes[version].run(kind, Create, "", prepareForCreate(converted, kind), nil)
	if err != nil {
		return nil, converted, fmt.Errorf("validating the %s view: %w", version, err)
	}
	return result.errs, converted, nil
}

// withoutRestoreAnnotations returns a copy of obj without its restore
// annotations, and whether it had any.
func withoutRestoreAnnotations(obj map[string]interface{}) (map[string]interface{}, bool) {
	if !api.HasRestoreAnnotation(obj) {
		return obj, false
	}
	out := deepCopyJSON(obj)
	outAnn := out["metadata"].(map[string]interface{})["annotations"].(map[string]interface{})
	for k := range outAnn {
		if strings.HasPrefix(k, api.RestoreAnnotationPrefix) {
			delete(outAnn, k)
		}
	}
	return out, true
}

// A version that cannot show an object (what the version cannot hold does
// not fit the annotation size limit next to the object's own annotations)
// fails every read of it through that version: a get, and every list and
// watch of claims through that version that includes it, for every client
// of that version in the cluster. A write is refused when it makes the
// object so (a create, or an update whose old object could be shown): on a
// main update the client's own annotations or spec are what does not fit,
// on a status write the allocation (e.g. 32 v1alpha2 handles of 16 KiB as
// v1alpha1, which a 1.27–1.30 apiserver accepted: one claim's allocation
// fails instead of every list through v1alpha1).

// unreadable is the finding for a write that version cannot show.
func unreadable(path *field.Path, version string, err error) *field.Error {
	return field.Forbidden(path,
		fmt.Sprintf("the object could not be read through %s, nor listed or watched with other claims through it: %v", version, err))
}

// conversionError marks an error of viewCreateErrors as the conversion's.
type conversionError struct{ err error }

func (e *conversionError) Error() string { return e.err.Error() }
func (e *conversionError) Unwrap() error { return e.err }

func isConversionError(err error) bool {
	var ce *conversionError
	return errors.As(err, &ce)
}

// fitsEveryVersion reports whether obj, a new object without restore
// annotations (so its status, which a create drops, and restored content
// play no part), surely converts to every version: a conversion fails
// only when the restore annotations it writes do not fit the annotation
// size limit next to the object's own, and those record at most the spec
// (each operation's value is a disjoint part of it, encoded alike) once per
// step that loses some of it, with a bounded number of operations whose
// paths are the fixed field names of the shapes. Twice the spec's encoding
// and 8 KiB is more than that for every chain of the served versions. It
// spares a create the conversions when its annotations and spec are far
// from the limit (nearly always).
func fitsEveryVersion(obj map[string]interface{}) bool {
	const slack = 8 * 1024
	total := annotationBytes(obj)
	if total+slack > conversion.TotalAnnotationSizeLimitB {
		return false
	}
	spec, err := marshalNoEscape(obj["spec"])
	return err == nil && total+2*len(spec)+slack <= conversion.TotalAnnotationSizeLimitB
}

// annotationBytes is what obj's annotations count against the apiserver's
// limit: the bytes of every key and value.
func annotationBytes(obj map[string]interface{}) int {
	total := 0
	meta, _ := obj["metadata"].(map[string]interface{})
	ann, _ := meta["annotations"].(map[string]interface{})
	for k, v := range ann {
		s, _ := v.(string)
		total += len(k) + len(s)
	}
	return total
}
