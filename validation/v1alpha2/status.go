package v1alpha2

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	api "github.com/claimbridge/claimbridge/api/v1alpha2"
	"github.com/claimbridge/claimbridge/validation/common"
)

// validateAllocationResult validates a non-nil allocation result.
func validateAllocationResult(allocation *api.AllocationResult, fldPath *field.Path) field.ErrorList {
	allErrs := validateResourceHandles(allocation.ResourceHandles, fldPath.Child("resourceHandles"))
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

// validateAllocationResultModel: exactly one structured model field, and
// namedResources is the only one.
func validateAllocationResultModel(model *api.AllocationResultModel, fldPath *field.Path) field.ErrorList {
	if model.NamedResources == nil {
		return field.ErrorList{field.Required(fldPath, "exactly one structured model field must be set")}
	}
	return common.ValidateDNS1123Subdomain(model.NamedResources.Name, fldPath.Child("namedResources", "name"))
}
