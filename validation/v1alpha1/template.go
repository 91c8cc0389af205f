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
	fldPath := field.NewPath("spec")
	allErrs := common.ValidateObjectMeta(&template.ObjectMeta, field.NewPath("metadata"))
	allErrs = append(allErrs, common.ValidateTemplateObjectMeta(&template.Spec.ObjectMeta, fldPath.Child("metadata"))...)
	allErrs = append(allErrs, validateResourceClaimSpec(&template.Spec.Spec, fldPath.Child("spec"))...)
	return allErrs
}

// ValidateResourceClaimTemplateUpdate validates a template update (1.26
// ValidateClaimTemplateUpdate): metadata update, immutable spec, then the
// create rules again.
func ValidateResourceClaimTemplateUpdate(template, oldTemplate *api.ResourceClaimTemplate) field.ErrorList {
	return common.ValidateUpdate(&template.ObjectMeta, &oldTemplate.ObjectMeta, template.Spec, oldTemplate.Spec, ValidateResourceClaimTemplate(template))
}
