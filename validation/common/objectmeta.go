package common

import (
	"reflect"
	"strings"
	"unicode"
	"unicode/utf8"

	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ValidateObjectMeta applies the create rules for the metadata of a claim or
// template (namespaced) or of a class or slice: namespace required where
// namespaced, name (and generateName prefix) a DNS subdomain, plus the
// generic labels/annotations/ownerReferences/finalizers/managedFields checks.
func ValidateObjectMeta(meta *metav1.ObjectMeta, namespaced bool, fldPath *field.Path) field.ErrorList {
	allErrs := legacyMeta(apimachineryvalidation.ValidateObjectMeta(meta, namespaced, apimachineryvalidation.NameIsDNSSubdomain, fldPath), meta, fldPath)
	allErrs = append(allErrs, validateFinalizerNames(meta.Finalizers, fldPath.Child("finalizers"))...)
	return Normalize(allErrs)
}

// ValidateObjectMetaUpdate applies the generic metadata update rules
// (resourceVersion required, immutable name/namespace/uid/creationTimestamp,
// generation not decremented, ...).
func ValidateObjectMetaUpdate(newMeta, oldMeta *metav1.ObjectMeta, fldPath *field.Path) field.ErrorList {
	allErrs := legacyMeta(apimachineryvalidation.ValidateObjectMetaUpdate(newMeta, oldMeta, fldPath), newMeta, fldPath)
	allErrs = append(allErrs, validateFinalizerNames(newMeta.Finalizers, fldPath.Child("finalizers"))...)
	return Normalize(allErrs)
}

// ValidateUpdate is the update of a claim or template as upstream's
// registry strategies validate it: the metadata update rules, the immutable
// spec, then createErrs, the create rules run again (1.26–1.30
// ValidateClaimUpdate and ValidateClaimTemplateUpdate run them; the 1.31
// strategies run ValidateResourceClaim or ValidateResourceClaimTemplate
// besides the update rules).
func ValidateUpdate(meta, oldMeta *metav1.ObjectMeta, spec, oldSpec interface{}, createErrs field.ErrorList) field.ErrorList {
	allErrs := ValidateObjectMetaUpdate(meta, oldMeta, field.NewPath("metadata"))
	allErrs = append(allErrs, ValidateImmutableField(spec, oldSpec, field.NewPath("spec"))...)
	return append(allErrs, createErrs...)
}

// standardFinalizers are the finalizer names that need no domain prefix.
var standardFinalizers = map[string]bool{
	"kubernetes":                     true,
	metav1.FinalizerOrphanDependents: true,
	metav1.FinalizerDeleteDependents: true,
}

// validateFinalizerNames is corevalidation's extra finalizer check, run by
// both ValidateObjectMeta and ValidateObjectMetaUpdate of k8s.io/kubernetes:
// a name without "/" must be a standard finalizer.
func validateFinalizerNames(finalizers []string, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	for i, name := range finalizers {
		if !strings.Contains(name, "/") && !standardFinalizers[name] {
			allErrs = append(allErrs, field.Invalid(fldPath.Index(i), name, "name is neither a standard finalizer name nor is it fully qualified"))
		}
	}
	return allErrs
}

// ValidateTemplateObjectMeta validates the metadata embedded in a
// ResourceClaimTemplate (corevalidation.ValidateTemplateObjectMeta): only
// labels and annotations may be set; every other field that is set is
// Forbidden "cannot be set".
func ValidateTemplateObjectMeta(meta *metav1.ObjectMeta, fldPath *field.Path) field.ErrorList {
	allErrs := apimachineryvalidation.ValidateAnnotations(meta.Annotations, fldPath.Child("annotations"))
	allErrs = append(allErrs, metav1validation.ValidateLabels(meta.Labels, fldPath.Child("labels"))...)
	allErrs = append(allErrs, validateFieldAllowList(*meta, map[string]bool{"Annotations": true, "Labels": true}, "cannot be set", fldPath)...)
	return Normalize(allErrs)
}

// validateFieldAllowList reports every set struct field that is not allowed,
// as upstream's reflection-based helper does (field name lower-cased).
func validateFieldAllowList(value interface{}, allowedFields map[string]bool, errorText string, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	reflectType, reflectValue := reflect.TypeOf(value), reflect.ValueOf(value)
	for i := 0; i < reflectType.NumField(); i++ {
		f := reflectType.Field(i)
		if allowedFields[f.Name] {
			continue
		}
		if !reflect.DeepEqual(reflectValue.Field(i).Interface(), reflect.Zero(f.Type).Interface()) {
			r, n := utf8.DecodeRuneInString(f.Name)
			lcName := string(unicode.ToLower(r)) + f.Name[n:]
			allErrs = append(allErrs, field.Forbidden(fldPath.Child(lcName), errorText))
		}
	}
	return allErrs
}
