package common

import "k8s.io/apimachinery/pkg/util/validation/field"

// ValidateStatusDriverName is the status.driverName rule of v1alpha1 and
// v1alpha2 (1.26–1.30): the name may be unset until there is an allocation.
func ValidateStatusDriverName(driverName string, allocated bool, fldPath *field.Path) field.ErrorList {
	if driverName != "" {
		return ValidateDriverName(driverName, fldPath)
	}
	if allocated {
		return field.ErrorList{field.Required(fldPath, "must be specified when `allocation` is set")}
	}
	return nil
}

// ValidateStatusReservations applies the rest of the v1alpha1 and v1alpha2
// status rules (1.26–1.30 ValidateClaimStatusUpdate): the reservedFor list,
// its ties to allocation and deletion (with the shareable rule), allocation
// immutability (which claimbridge also applies to v1alpha1, unlike 1.26; see
// docs/validation.md) and the deallocation rules.
func ValidateStatusReservations[A any](status, oldStatus StatusView, allocation, oldAllocation *A, claimDeleted bool, fldPath *field.Path) field.ErrorList {
	allErrs := ValidateReservedForLegacy(status.ReservedFor, fldPath.Child("reservedFor"))
	allErrs = append(allErrs, ValidateReservedForInvariants(status, oldStatus, claimDeleted, true, fldPath)...)
	allErrs = append(allErrs, ValidateAllocationImmutable(allocation, oldAllocation, fldPath.Child("allocation"))...)
	allErrs = append(allErrs, ValidateDeallocation(status, oldStatus, fldPath)...)
	return allErrs
}
