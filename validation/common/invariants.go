package common

import (
	"reflect"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// StatusView is what the status invariants need to know about one
// ResourceClaim status, whatever its version.
type StatusView struct {
	// Allocated: status.allocation is set.
	Allocated bool
	// NotShareable is true when the allocation is set and explicitly not
	// shareable (v1alpha1, v1alpha2). v1alpha3 has no shareable field: false.
	NotShareable          bool
	ReservedFor           []Consumer
	DeallocationRequested bool
}

// ValidateReservedForInvariants checks the rules that tie a non-empty
// reservedFor list to the allocation (rules 49–51): allocation required;
// if shareableRule, a non-shareable allocation has at most one consumer;
// no new entries (compared as whole structs) while the claim is deleted or
// deallocation is requested.
func ValidateReservedForInvariants(status, oldStatus StatusView, claimDeleted, shareableRule bool, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if len(status.ReservedFor) == 0 {
		return nil
	}
	reservedForPath := fldPath.Child("reservedFor")
	if !status.Allocated {
		return append(allErrs, field.Forbidden(reservedForPath, "may not be specified when `allocated` is not set"))
	}
	if shareableRule && status.NotShareable && len(status.ReservedFor) > 1 {
		allErrs = append(allErrs, field.Forbidden(reservedForPath, "may not be reserved more than once"))
	}
	if claimDeleted || status.DeallocationRequested {
		old := make(map[Consumer]bool, len(oldStatus.ReservedFor))
		for _, c := range oldStatus.ReservedFor {
			old[c] = true
		}
		for _, c := range status.ReservedFor {
			if !old[c] {
				allErrs = append(allErrs, field.Forbidden(reservedForPath, "new entries may not be added while `deallocationRequested` or `deletionTimestamp` are set"))
				break
			}
		}
	}
	return allErrs
}

// ValidateDeallocation checks the deallocationRequested rules (53–55).
func ValidateDeallocation(status, oldStatus StatusView, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if !oldStatus.DeallocationRequested && status.DeallocationRequested && len(status.ReservedFor) > 0 {
		allErrs = append(allErrs, field.Forbidden(fldPath.Child("deallocationRequested"), "deallocation cannot be requested while `reservedFor` is set"))
	}
	if !status.Allocated && status.DeallocationRequested {
		allErrs = append(allErrs, field.Forbidden(fldPath, "`allocation` must be set when `deallocationRequested` is set"))
	}
	// Once requested, deallocation may already have started; the flag is
	// cleared together with the allocation.
	if oldStatus.DeallocationRequested && !status.DeallocationRequested && status.Allocated {
		allErrs = append(allErrs, field.Forbidden(fldPath.Child("deallocationRequested"), "may not be cleared when `allocation` is set"))
	}
	return allErrs
}

// ValidateImmutableField is apimachinery's ValidateImmutableField: Invalid
// with the new value and "field is immutable" unless old and new are
// semantically equal. reflect.DeepEqual answers the usual case (an unchanged
// allocation) more cheaply first (TestImmutableFieldShortcut).
func ValidateImmutableField(newVal, oldVal interface{}, fldPath *field.Path) field.ErrorList {
	if reflect.DeepEqual(oldVal, newVal) || apiequality.Semantic.DeepEqual(oldVal, newVal) {
		return nil
	}
	return field.ErrorList{field.Invalid(fldPath, newVal, FieldImmutableErrorMsg)}
}

// FieldImmutableErrorMsg is the detail of an immutability error.
const FieldImmutableErrorMsg = "field is immutable"

// ValidateAllocationImmutable reports a change of an allocation that was
// already set (rule 52); setting and clearing are not changes here.
func ValidateAllocationImmutable[T any](allocation, oldAllocation *T, fldPath *field.Path) field.ErrorList {
	if allocation == nil || oldAllocation == nil {
		return nil
	}
	return ValidateImmutableField(allocation, oldAllocation, fldPath)
}
