package common

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The allocation modes of the v1alpha1 and v1alpha2 claim spec (1.26–1.30).
const (
	AllocationModeImmediate            = "Immediate"
	AllocationModeWaitForFirstConsumer = "WaitForFirstConsumer"
)

// supportedAllocationModes is sorted, as NotSupported lists them.
var supportedAllocationModes = []string{AllocationModeImmediate, AllocationModeWaitForFirstConsumer}

// ParametersRef is the ResourceClaimParametersReference of v1alpha1 and
// v1alpha2, which both versions define field for field like this; convert a
// versioned pointer with (*common.ParametersRef)(ref).
type ParametersRef struct {
	APIGroup string
	Kind     string
	Name     string
}

// ValidateClaimSpec validates the claim spec that v1alpha1 and v1alpha2
// share (1.26–1.30 validateResourceClaimSpec). The allocation mode keeps its
// versioned type M, so that errors report it as the caller's type.
func ValidateClaimSpec[M ~string](className string, ref *ParametersRef, mode M, fldPath *field.Path) field.ErrorList {
	allErrs := ValidateDNS1123Subdomain(className, fldPath.Child("resourceClassName"))
	allErrs = append(allErrs, validateParametersRef(ref, fldPath.Child("parametersRef"))...)
	if mode != AllocationModeImmediate && mode != AllocationModeWaitForFirstConsumer {
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("allocationMode"), mode, supportedAllocationModes))
	}
	return allErrs
}

func validateParametersRef(ref *ParametersRef, fldPath *field.Path) field.ErrorList {
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

// ImmediateAllocationWarning is the detail of the warning about
// allocationMode: Immediate: 1.26–1.30 allocate such a claim at once, but
// claimbridge stores v1alpha3 (1.31), which has no Immediate allocation.
const ImmediateAllocationWarning = "Immediate allocation does not exist in v1alpha3 (Kubernetes 1.31+); the claim is allocated when a pod needs it"

// ClaimSpecWarnings returns the admission warnings for a v1alpha1 or v1alpha2
// claim spec: what 1.26–1.30 accepted but is likely a mistake or cannot be
// carried forward to v1alpha3.
func ClaimSpecWarnings[M ~string](ref *ParametersRef, mode M, fldPath *field.Path) []string {
	var warnings []string
	if mode == AllocationModeImmediate {
		warnings = append(warnings, fmt.Sprintf("%s: %s", fldPath.Child("allocationMode"), ImmediateAllocationWarning))
	}
	if ref != nil && ref.APIGroup != "" {
		if msgs := validation.IsDNS1123Subdomain(ref.APIGroup); len(msgs) > 0 {
			warnings = append(warnings, fmt.Sprintf("%s: %q is not a valid API group (Kubernetes does not check it): %s", fldPath.Child("parametersRef", "apiGroup"), ref.APIGroup, msgs[0]))
		}
	}
	return warnings
}

// ValidateUpdate is the update of a claim or template as upstream's
// registry strategies validate it: the metadata update rules, the immutable
// spec, then createErrs, the create rules run again (1.26–1.30
// ValidateClaimUpdate and ValidateClaimTemplateUpdate run them; the 1.31
// strategies run ValidateResourceClaim or ValidateResourceClaimTemplate
// besides the update rules).
func ValidateUpdate(meta, oldMeta *metav1.ObjectMeta, spec, oldSpec interface{}, createErrs field.ErrorList) field.ErrorList {
	allErrs := ValidateObjectMetaUpdate(meta, oldMeta, field.NewPath("metadata"))
	allErrs = append(allErrs, ValidateImmutableField(spec, oldSpec, field.NewPath("spec"))...)
	return append(allErrs, createErrs...)
}
