package common

import (
	"fmt"
	"reflect"
	"strings"
	"unicode"
	"unicode/utf8"

	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation"
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

// legacyMeta gives errs, apimachinery's metadata errors, the
// ownerReferences and managedFields errors of 1.26–1.31 in their place:
// those releases report an owner reference's fields without its index and
// as Invalid, and an operation as Invalid.
func legacyMeta(errs field.ErrorList, meta *metav1.ObjectMeta, fldPath *field.Path) field.ErrorList {
	ownersPath, fieldsPath := fldPath.Child("ownerReferences").String(), fldPath.Child("managedFields").String()
	owners := validateOwnerReferences(meta.OwnerReferences, fldPath.Child("ownerReferences"))
	fields := validateManagedFields(meta.ManagedFields, fldPath.Child("managedFields"))
	var out field.ErrorList
	for _, e := range errs {
		switch {
		case strings.HasPrefix(e.Field, ownersPath):
			out, owners = append(out, owners...), nil
			continue
		case strings.HasPrefix(e.Field, fieldsPath):
			out, owners, fields = append(append(out, owners...), fields...), nil, nil
			continue
		case strings.HasPrefix(e.Field, fldPath.Child("finalizers").String()):
			out, owners = append(out, owners...), nil
		}
		out = append(out, e)
	}
	return append(append(out, owners...), fields...)
}

// validateOwnerReferences is 1.31's ValidateOwnerReferences.
func validateOwnerReferences(refs []metav1.OwnerReference, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	controller := ""
	for _, ref := range refs {
		gvk := schema.FromAPIVersionAndKind(ref.APIVersion, ref.Kind)
		for _, empty := range []struct{ field, what, value string }{
			{"apiVersion", "version", gvk.Version}, {"kind", "kind", gvk.Kind}, {"name", "name", ref.Name}, {"uid", "uid", string(ref.UID)},
		} {
			if empty.value == "" {
				given := map[string]interface{}{"apiVersion": ref.APIVersion, "kind": ref.Kind, "name": ref.Name, "uid": ref.UID}[empty.field]
				allErrs = append(allErrs, field.Invalid(fldPath.Child(empty.field), given, empty.what+" must not be empty"))
			}
		}
		if _, ok := apimachineryvalidation.BannedOwners[gvk]; ok {
			allErrs = append(allErrs, field.Invalid(fldPath, ref, fmt.Sprintf("%s is disallowed from being an owner", gvk)))
		}
		if ref.Controller != nil && *ref.Controller {
			if name := ref.Kind + "/" + ref.Name; controller == "" {
				controller = name
			} else {
				allErrs = append(allErrs, field.Invalid(fldPath, refs,
					fmt.Sprintf("Only one reference can have Controller set to true. Found \"true\" in references for %v and %v", controller, name)))
			}
		}
	}
	return allErrs
}

// validateManagedFields is 1.31's ValidateManagedFields.
func validateManagedFields(list []metav1.ManagedFieldsEntry, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	for i, f := range list {
		fldPath := fldPath.Index(i)
		if f.Operation != metav1.ManagedFieldsOperationApply && f.Operation != metav1.ManagedFieldsOperationUpdate {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("operation"), f.Operation, "must be `Apply` or `Update`"))
		}
		if f.FieldsType != "" && f.FieldsType != "FieldsV1" {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("fieldsType"), f.FieldsType, "must be `FieldsV1`"))
		}
		allErrs = append(allErrs, metav1validation.ValidateFieldManager(f.Manager, fldPath.Child("manager"))...)
		if len(f.Subresource) > metav1validation.MaxSubresourceNameLength {
			allErrs = append(allErrs, field.TooLong(fldPath.Child("subresource"), f.Subresource, metav1validation.MaxSubresourceNameLength))
		}
	}
	return allErrs
}

// DriverNameMaxLength is the maximum length in bytes of a driver name
// (the limit of a CSI driver name, which upstream reuses).
const DriverNameMaxLength = 63

// ValidateDNS1123Label reports each DNS-label failure of value as Invalid
// (corevalidation.ValidateDNS1123Label). An empty value is Invalid, not
// Required.
func ValidateDNS1123Label(value string, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	for _, msg := range validation.IsDNS1123Label(value) {
		allErrs = append(allErrs, field.Invalid(fldPath, value, msg))
	}
	return allErrs
}

// ValidateDNS1123Subdomain reports each DNS-subdomain failure of value as
// Invalid (corevalidation.ValidateDNS1123Subdomain). An empty value is
// Invalid, not Required.
func ValidateDNS1123Subdomain(value string, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	for _, msg := range validation.IsDNS1123Subdomain(value) {
		allErrs = append(allErrs, field.Invalid(fldPath, value, msg))
	}
	return allErrs
}

// ValidateDriverName applies the CSI driver name rules that upstream reuses
// for DRA driver names (corevalidation.ValidateCSIDriverName): empty ⇒
// Required (and, as upstream, also Invalid); longer than 63 bytes ⇒ TooLong
// "must have at most 63 bytes"; the lower-cased value must be a DNS
// subdomain ⇒ Invalid with the original value.
func ValidateDriverName(name string, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if len(name) == 0 {
		allErrs = append(allErrs, field.Required(fldPath, ""))
	}
	if len(name) > DriverNameMaxLength {
		allErrs = append(allErrs, TooLongBytes(fldPath, name, DriverNameMaxLength))
	}
	for _, msg := range validation.IsDNS1123Subdomain(strings.ToLower(name)) {
		allErrs = append(allErrs, field.Invalid(fldPath, name, msg))
	}
	return allErrs
}
