package common

import (
	"fmt"
	"strings"

	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

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
