package classic

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	v1 "github.com/claimbridge/claimbridge/api/v1alpha1"
	v2 "github.com/claimbridge/claimbridge/api/v1alpha2"
	"github.com/claimbridge/claimbridge/validation/common"
)

// validateAllocation validates a non-nil *AllocationResult of either
// version: v1alpha1's one resource handle, or v1alpha2's list of them with
// the structured-parameters results.
func validateAllocation(allocation interface{}, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	var nodes *corev1.NodeSelector
	switch a := allocation.(type) {
	case *v1.AllocationResult:
		if nodes = a.AvailableOnNodes; len(a.ResourceHandle) > v1.ResourceHandleMaxSize {
			allErrs = append(allErrs, common.TooLongMaxLength(fldPath.Child("resourceHandle"), len(a.ResourceHandle), v1.ResourceHandleMaxSize))
		}
	case *v2.AllocationResult:
		nodes, allErrs = a.AvailableOnNodes, validateResourceHandles(a.ResourceHandles, fldPath.Child("resourceHandles"))
	}
	if nodes != nil {
		allErrs = append(allErrs, common.ValidateNodeSelector(nodes, fldPath.Child("availableOnNodes"))...)
	}
	return allErrs
}

func validateResourceHandles(handles []v2.ResourceHandle, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	for i, handle := range handles {
		idxPath := fldPath.Index(i)
		allErrs = append(allErrs, common.ValidateDriverName(handle.DriverName, idxPath.Child("driverName"))...)
		if len(handle.Data) > v2.ResourceHandleDataMaxSize {
			allErrs = append(allErrs, common.TooLongMaxLength(idxPath.Child("data"), len(handle.Data), v2.ResourceHandleDataMaxSize))
		}
		if structured := handle.StructuredData; structured != nil {
			path := idxPath.Child("structuredData")
			if structured.NodeName != "" {
				allErrs = append(allErrs, common.ValidateDNS1123Subdomain(structured.NodeName, path.Child("nodeName"))...)
			}
			// Exactly one structured model field, and namedResources is the
			// only one.
			for j, result := range structured.Results {
				if path := path.Child("results").Index(j); result.NamedResources == nil {
					allErrs = append(allErrs, field.Required(path, "exactly one structured model field must be set"))
				} else {
					allErrs = append(allErrs, common.ValidateDNS1123Subdomain(result.NamedResources.Name, path.Child("namedResources", "name"))...)
				}
			}
		}
		if len(handle.Data) > 0 && handle.StructuredData != nil {
			allErrs = append(allErrs, field.Invalid(idxPath, nil, "data and structuredData are mutually exclusive"))
		}
	}
	if len(handles) > v2.AllocationResultResourceHandlesMaxSize {
		allErrs = append(allErrs, common.TooLongMaxLength(fldPath, len(handles), v2.AllocationResultResourceHandlesMaxSize))
	}
	return allErrs
}
