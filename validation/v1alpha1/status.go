package v1alpha1

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	api "github.com/claimbridge/claimbridge/api/v1alpha1"
	"github.com/claimbridge/claimbridge/validation/common"
)

// validateAllocationResult validates a non-nil allocation result.
func validateAllocationResult(allocation *api.AllocationResult, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if len(allocation.ResourceHandle) > api.ResourceHandleMaxSize {
		allErrs = append(allErrs, common.TooLongMaxLength(fldPath.Child("resourceHandle"), len(allocation.ResourceHandle), api.ResourceHandleMaxSize))
	}
	if allocation.AvailableOnNodes != nil {
		allErrs = append(allErrs, common.ValidateNodeSelector(allocation.AvailableOnNodes, fldPath.Child("availableOnNodes"))...)
	}
	return allErrs
}
