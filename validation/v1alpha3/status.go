package v1alpha3

import (
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"

	api "github.com/claimbridge/claimbridge/api/v1alpha3"
	"github.com/claimbridge/claimbridge/validation/common"
)

// ValidateResourceClaimStatusUpdate validates a write to the status
// subresource (1.31 ValidateResourceClaimStatusUpdate). Request names come
// from the new object's spec, which the status strategy keeps unchanged.
// With allocationStored (the allocation is the old one), the allocation is
// neither validated nor compared again, as later releases leave an
// allocation once set.
func ValidateResourceClaimStatusUpdate(claim, oldClaim *api.ResourceClaim, allocationStored bool) field.ErrorList {
	allErrs := common.ValidateObjectMetaUpdate(&claim.ObjectMeta, &oldClaim.ObjectMeta, field.NewPath("metadata"))
	fldPath := field.NewPath("status")
	status, oldStatus := &claim.Status, &oldClaim.Status

	if !allocationStored {
		allErrs = append(allErrs, validateAllocationResult(status.Allocation, fldPath.Child("allocation"), gatherRequestNames(&claim.Spec.Devices))...)
	}
	allErrs = append(allErrs, common.ValidateReservedForSet(common.Consumers(status.ReservedFor), fldPath.Child("reservedFor"))...)
	view, oldView := StatusView(status), StatusView(oldStatus)
	// No shareable rule: every v1alpha3 claim may have up to 32 consumers.
	allErrs = append(allErrs, common.ValidateReservedForInvariants(view, oldView, claim.DeletionTimestamp != nil, false, fldPath)...)
	// Rule 52: a set allocation does not change (setting or clearing it is no change).
	if !allocationStored && status.Allocation != nil && oldStatus.Allocation != nil {
		allErrs = append(allErrs, common.ValidateImmutableField(status.Allocation, oldStatus.Allocation, fldPath.Child("allocation"))...)
	}
	return append(allErrs, common.ValidateDeallocation(view, oldView, fldPath)...)
}

func validateAllocationResult(allocation *api.AllocationResult, fldPath *field.Path, requestNames sets.Set[string]) field.ErrorList {
	if allocation == nil {
		return nil
	}
	devicesPath := fldPath.Child("devices")
	allErrs := common.ValidateSlice(allocation.Devices.Results, api.AllocationResultsMaxSize,
		func(result api.DeviceRequestAllocationResult, fldPath *field.Path) field.ErrorList {
			allErrs := validateRequestNameRef(result.Request, fldPath.Child("request"), requestNames)
			allErrs = append(allErrs, common.ValidateDriverName(result.Driver, fldPath.Child("driver"))...)
			allErrs = append(allErrs, validatePoolName(result.Pool, fldPath.Child("pool"))...)
			return append(allErrs, common.ValidateDNS1123Label(result.Device, fldPath.Child("device"))...)
		}, devicesPath.Child("results"))
	allErrs = append(allErrs, common.ValidateSlice(allocation.Devices.Config, 2*api.DeviceConfigMaxSize, /* class + claim */
		func(config api.DeviceAllocationConfiguration, fldPath *field.Path) field.ErrorList {
			allErrs := validateAllocationConfigSource(config.Source, fldPath.Child("source"))
			allErrs = append(allErrs, validateRequestNameRefs(config.Requests, fldPath.Child("requests"), requestNames)...)
			return append(allErrs, validateDeviceConfiguration(config.DeviceConfiguration, fldPath)...)
		}, devicesPath.Child("config"))...)
	if allocation.NodeSelector != nil {
		allErrs = append(allErrs, common.ValidateNodeSelector(allocation.NodeSelector, fldPath.Child("nodeSelector"))...)
	}
	if allocation.Controller != "" {
		allErrs = append(allErrs, common.ValidateDriverName(allocation.Controller, fldPath.Child("controller"))...)
	}
	return allErrs
}

func validateAllocationConfigSource(source api.AllocationConfigSource, fldPath *field.Path) field.ErrorList {
	switch source {
	case "":
		return field.ErrorList{field.Required(fldPath, "")}
	case api.AllocationConfigSourceClaim, api.AllocationConfigSourceClass:
		return nil
	default:
		return field.ErrorList{field.NotSupported(fldPath, source, []api.AllocationConfigSource{api.AllocationConfigSourceClaim, api.AllocationConfigSourceClass})}
	}
}

// StatusView extracts what the version-neutral status invariants need.
func StatusView(status *api.ResourceClaimStatus) common.StatusView {
	return common.StatusView{
		Allocated:             status.Allocation != nil,
		ReservedFor:           common.Consumers(status.ReservedFor),
		DeallocationRequested: status.DeallocationRequested,
	}
}
