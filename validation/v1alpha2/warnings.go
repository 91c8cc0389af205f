package v1alpha2

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	api "github.com/claimbridge/claimbridge/api/v1alpha2"
)

// Warnings returns admission warnings for a *ResourceClaim or
// *ResourceClaimTemplate: findings that 1.27–1.30 accepted but that are likely
// mistakes or cannot be carried forward. Other types yield none.
func Warnings(obj interface{}) []string {
	switch o := obj.(type) {
	case *api.ResourceClaim:
		return specWarnings(&o.Spec, field.NewPath("spec"))
	case *api.ResourceClaimTemplate:
		return specWarnings(&o.Spec.Spec, field.NewPath("spec", "spec"))
	}
	return nil
}

func specWarnings(spec *api.ResourceClaimSpec, fldPath *field.Path) []string {
	var warnings []string
	if spec.AllocationMode == api.AllocationModeImmediate {
		warnings = append(warnings, fmt.Sprintf("%s: Immediate allocation does not exist in v1alpha3 (Kubernetes 1.31+); the claim is allocated when a pod needs it", fldPath.Child("allocationMode")))
	}
	if ref := spec.ParametersRef; ref != nil && ref.APIGroup != "" {
		if msgs := validation.IsDNS1123Subdomain(ref.APIGroup); len(msgs) > 0 {
			warnings = append(warnings, fmt.Sprintf("%s: %q is not a valid API group (Kubernetes does not check it): %s", fldPath.Child("parametersRef", "apiGroup"), ref.APIGroup, msgs[0]))
		}
	}
	return warnings
}
