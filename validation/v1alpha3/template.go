package v1alpha3

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	api "github.com/claimbridge/claimbridge/api/v1alpha3"
	"github.com/claimbridge/claimbridge/validation/common"
)

// ValidateResourceClaimTemplate validates a new template (1.31).
func ValidateResourceClaimTemplate(template *api.ResourceClaimTemplate) field.ErrorList {
	allErrs := common.ValidateObjectMeta(&template.ObjectMeta, field.NewPath("metadata"))
	allErrs = append(allErrs, validateResourceClaimTemplateSpec(&template.Spec, field.NewPath("spec"), false)...)
	return allErrs
}

func validateResourceClaimTemplateSpec(spec *api.ResourceClaimTemplateSpec, fldPath *field.Path, stored bool) field.ErrorList {
	allErrs := common.ValidateTemplateObjectMeta(&spec.ObjectMeta, fldPath.Child("metadata"))
	allErrs = append(allErrs, validateResourceClaimSpec(&spec.Spec, fldPath.Child("spec"), stored)...)
	return allErrs
}

// ValidateResourceClaimTemplateUpdate validates a template update as the
// 1.31 registry strategy does (ValidateResourceClaimTemplate, then
// ValidateResourceClaimTemplateUpdate): metadata update rules, the immutable
// spec, then the create rules, metadata included, with CEL in the
// stored-expressions environment (spec findings once).
func ValidateResourceClaimTemplateUpdate(template, oldTemplate *api.ResourceClaimTemplate) field.ErrorList {
	createErrs := common.ValidateObjectMeta(&template.ObjectMeta, field.NewPath("metadata"))
	createErrs = append(createErrs, validateResourceClaimTemplateSpec(&template.Spec, field.NewPath("spec"), true)...)
	return common.ValidateUpdate(&template.ObjectMeta, &oldTemplate.ObjectMeta, template.Spec, oldTemplate.Spec, createErrs)
}
