package v1alpha2

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	api "github.com/claimbridge/claimbridge/api/v1alpha2"
	"github.com/claimbridge/claimbridge/validation/common"
)

// ValidateResourceClaim validates a new claim (1.30 ValidateClaim).
func ValidateResourceClaim(claim *api.ResourceClaim) field.ErrorList {
	allErrs := common.ValidateObjectMeta(&claim.ObjectMeta, field.NewPath("metadata"))
	allErrs = append(allErrs, validateResourceClaimSpec(&claim.Spec, field.NewPath("spec"))...)
	return allErrs
}

// ValidateResourceClaimUpdate validates an update of the main resource
// (1.30 ValidateClaimUpdate): metadata update rules, the immutable spec,
// then every create rule again.
func ValidateResourceClaimUpdate(claim, oldClaim *api.ResourceClaim) field.ErrorList {
	return common.ValidateUpdate(&claim.ObjectMeta, &oldClaim.ObjectMeta, claim.Spec, oldClaim.Spec, ValidateResourceClaim(claim))
}

// validateResourceClaimSpec applies the spec rules shared with v1alpha1.
func validateResourceClaimSpec(spec *api.ResourceClaimSpec, fldPath *field.Path) field.ErrorList {
	return common.ValidateClaimSpec(spec.ResourceClassName, (*common.ParametersRef)(spec.ParametersRef), spec.AllocationMode, fldPath)
}
