package v1alpha2

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	api "github.com/claimbridge/claimbridge/api/v1alpha2"
	"github.com/claimbridge/claimbridge/validation/common"
)

// ValidateResourceClaimStatusUpdate validates a write to the status
// subresource (1.30 ValidateClaimStatusUpdate).
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
	if len(allocation.ResourceHandles) > 0 {
		allErrs = append(allErrs, validateResourceHandles(allocation.ResourceHandles, fldPath.Child("resourceHandles"))...)
	}
	if allocation.AvailableOnNodes != nil {
		allErrs = append(allErrs, common.ValidateNodeSelector(allocation.AvailableOnNodes, fldPath.Child("availableOnNodes"))...)
	}
	return allErrs
}

func validateResourceHandles(handles []api.ResourceHandle, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	for i, handle := range handles {
		idxPath := fldPath.Index(i)
		allErrs = append(allErrs, common.ValidateDriverName(handle.DriverName, idxPath.Child("driverName"))...)
		if len(handle.Data) > api.ResourceHandleDataMaxSize {
			allErrs = append(allErrs, common.TooLongMaxLength(idxPath.Child("data"), len(handle.Data), api.ResourceHandleDataMaxSize))
		}
		if handle.StructuredData != nil {
			allErrs = append(allErrs, validateStructuredResourceHandle(handle.StructuredData, idxPath.Child("structuredData"))...)
		}
		if len(handle.Data) > 0 && handle.StructuredData != nil {
			allErrs = append(allErrs, field.Invalid(idxPath, nil, "data and structuredData are mutually exclusive"))
		}
	}
	if len(handles) > api.AllocationResultResourceHandlesMaxSize {
		allErrs = append(allErrs, common.TooLongMaxLength(fldPath, len(handles), api.AllocationResultResourceHandlesMaxSize))
	}
	return allErrs
}

func validateStructuredResourceHandle(handle *api.StructuredResourceHandle, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if handle.NodeName != "" {
		allErrs = append(allErrs, common.ValidateDNS1123Subdomain(handle.NodeName, fldPath.Child("nodeName"))...)
	}
	for j, result := range handle.Results {
		allErrs = append(allErrs, validateAllocationResultModel(&result.AllocationResultModel, fldPath.Child("results").Index(j))...)
	}
	return allErrs
}

func validateAllocationResultModel(model *api.AllocationResultModel, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	var entries []string
	if model.NamedResources != nil {
		entries = append(entries, "namedResources")
		allErrs = append(allErrs, common.ValidateDNS1123Subdomain(model.NamedResources.Name, fldPath.Child("namedResources", "name"))...)
	}
	switch len(entries) {
	case 0:
		allErrs = append(allErrs, field.Required(fldPath, "exactly one structured model field must be set"))
	case 1:
		// Okay.
	default:
		allErrs = append(allErrs, field.Invalid(fldPath, entries, "exactly one field must be set, not several"))
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
