package v1alpha1

import (
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"

	api "github.com/claimbridge/claimbridge/api/v1alpha1"
	"github.com/claimbridge/claimbridge/validation/common"
)

var supportedAllocationModes = sets.List(sets.New(string(api.AllocationModeImmediate), string(api.AllocationModeWaitForFirstConsumer)))

// ValidateResourceClaim validates a new claim (1.26 ValidateClaim).
func ValidateResourceClaim(claim *api.ResourceClaim) field.ErrorList {
	allErrs := common.ValidateObjectMeta(&claim.ObjectMeta, field.NewPath("metadata"))
	allErrs = append(allErrs, validateResourceClaimSpec(&claim.Spec, field.NewPath("spec"))...)
	return allErrs
}

// ValidateResourceClaimUpdate validates an update of the main resource
// (1.26 ValidateClaimUpdate): metadata update rules, the immutable spec,
// then every create rule again.
func ValidateResourceClaimUpdate(claim, oldClaim *api.ResourceClaim) field.ErrorList {
	allErrs := common.ValidateObjectMetaUpdate(&claim.ObjectMeta, &oldClaim.ObjectMeta, field.NewPath("metadata"))
	allErrs = append(allErrs, common.ValidateImmutableField(claim.Spec, oldClaim.Spec, field.NewPath("spec"))...)
	allErrs = append(allErrs, ValidateResourceClaim(claim)...)
	return allErrs
}

func validateResourceClaimSpec(spec *api.ResourceClaimSpec, fldPath *field.Path) field.ErrorList {
	allErrs := common.ValidateDNS1123Subdomain(spec.ResourceClassName, fldPath.Child("resourceClassName"))
	allErrs = append(allErrs, validateParametersRef(spec.ParametersRef, fldPath.Child("parametersRef"))...)
	if !sets.New(supportedAllocationModes...).Has(string(spec.AllocationMode)) {
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("allocationMode"), spec.AllocationMode, supportedAllocationModes))
	}
	return allErrs
}

func validateParametersRef(ref *api.ResourceClaimParametersReference, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if ref != nil {
		if ref.Kind == "" {
			allErrs = append(allErrs, field.Required(fldPath.Child("kind"), ""))
		}
		if ref.Name == "" {
			allErrs = append(allErrs, field.Required(fldPath.Child("name"), ""))
		}
	}
	return allErrs
}
