package v1alpha1

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	api "github.com/claimbridge/claimbridge/api/v1alpha1"
	"github.com/claimbridge/claimbridge/validation/common"
)

// ValidateResourceClaimStatusUpdate validates a write to the status
// subresource (1.26 ValidateClaimStatusUpdate), plus allocation
// immutability, which 1.26 lacked and claimbridge enforces in every version.
func ValidateResourceClaimStatusUpdate(claim, oldClaim *api.ResourceClaim) field.ErrorList {
	allErrs := common.ValidateObjectMetaUpdate(&claim.ObjectMeta, &oldClaim.ObjectMeta, field.NewPath("metadata"))
	fldPath := field.NewPath("status")
	status, oldStatus := &claim.Status, &oldClaim.Status
	allErrs = append(allErrs, common.ValidateStatusDriverName(status.DriverName, status.Allocation != nil, fldPath.Child("driverName"))...)
	allErrs = append(allErrs, validateAllocationResult(status.Allocation, fldPath.Child("allocation"))...)
	allErrs = append(allErrs, common.ValidateStatusReservations(StatusView(status), StatusView(oldStatus),
		status.Allocation, oldStatus.Allocation, claim.DeletionTimestamp != nil, fldPath)...)
	return allErrs
}

func validateAllocationResult(allocation *api.AllocationResult, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if allocation == nil {
		return nil
	}
	if len(allocation.ResourceHandle) > api.ResourceHandleMaxSize {
		allErrs = append(allErrs, common.TooLongMaxLength(fldPath.Child("resourceHandle"), len(allocation.ResourceHandle), api.ResourceHandleMaxSize))
	}
	if allocation.AvailableOnNodes != nil {
		allErrs = append(allErrs, common.ValidateNodeSelector(allocation.AvailableOnNodes, fldPath.Child("availableOnNodes"))...)
	}
	return allErrs
}

// StatusView extracts what the version-neutral status invariants need.
func StatusView(status *api.ResourceClaimStatus) common.StatusView {
	return common.StatusView{
		Allocated:             status.Allocation != nil,
		NotShareable:          status.Allocation != nil && !status.Allocation.Shareable,
		ReservedFor:           common.Consumers(status.ReservedFor),
		DeallocationRequested: status.DeallocationRequested,
	}
}
