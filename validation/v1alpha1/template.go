package v1alpha1

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	api "github.com/claimbridge/claimbridge/api/v1alpha1"
	"github.com/claimbridge/claimbridge/validation/common"
)

// ValidateResourceClaimTemplate validates a new template (1.26
// ValidateClaimTemplate): metadata, the embedded metadata (labels and
// annotations only) and the claim spec at spec.spec.
func ValidateResourceClaimTemplate(template *api.ResourceClaimTemplate) field.ErrorList {
	allErrs := common.ValidateObjectMeta(&template.ObjectMeta, field.NewPath("metadata"))
	allErrs = append(allErrs, validateResourceClaimTemplateSpec(&template.Spec, field.NewPath("spec"))...)
	return allErrs
}

func validateResourceClaimTemplateSpec(spec *api.ResourceClaimTemplateSpec, fldPath *field.Path) field.ErrorList {
	allErrs := common.ValidateTemplateObjectMeta(&spec.ObjectMeta, fldPath.Child("metadata"))
	allErrs = append(allErrs, validateResourceClaimSpec(&spec.Spec, fldPath.Child("spec"))...)
	return allErrs
}

// ValidateResourceClaimTemplateUpdate validates a template update (1.26
// ValidateClaimTemplateUpdate): metadata update, immutable spec, then the
// create rules again.
func ValidateResourceClaimTemplateUpdate(template, oldTemplate *api.ResourceClaimTemplate) field.ErrorList {
	allErrs := common.ValidateObjectMetaUpdate(&template.ObjectMeta, &oldTemplate.ObjectMeta, field.NewPath("metadata"))
	allErrs = append(allErrs, common.ValidateImmutableField(template.Spec, oldTemplate.Spec, field.NewPath("spec"))...)
	allErrs = append(allErrs, ValidateResourceClaimTemplate(template)...)
	return allErrs
}
