package v1alpha1

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	api "github.com/claimbridge/claimbridge/api/v1alpha1"
	"github.com/claimbridge/claimbridge/validation/common"
)

// Warnings returns admission warnings for a *ResourceClaim or
// *ResourceClaimTemplate: findings that 1.26 accepted but that are likely
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
	return common.ClaimSpecWarnings((*common.ParametersRef)(spec.ParametersRef), spec.AllocationMode, fldPath)
}
