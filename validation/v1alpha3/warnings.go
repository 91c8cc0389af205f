package v1alpha3

import (
	"fmt"
	"math"
	"strings"

	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/lru"

	claimbridge "github.com/claimbridge/claimbridge/api"
	api "github.com/claimbridge/claimbridge/api/v1alpha3"
)

// Warnings returns admission warnings for a *ResourceClaim or
// *ResourceClaimTemplate: what 1.31 accepted but 1.32 rejects or what is
// likely a mistake. Each warning starts with the field path. Other types
// yield none. cel caches compiled selectors, as in ValidateResourceClaim.
func Warnings(obj interface{}, cel *lru.Cache) []string {
	switch o := obj.(type) {
	case *api.ResourceClaim:
		return specWarnings(&o.Spec, field.NewPath("spec"), cel)
	case *api.ResourceClaimTemplate:
		return specWarnings(&o.Spec.Spec, field.NewPath("spec", "spec"), cel)
	}
	return nil
}

// StatusWarnings returns admission warnings for the status of a claim
// (oversized opaque parameters in the allocated configuration).
func StatusWarnings(claim *api.ResourceClaim) []string {
	var warnings []string
	if a := claim.Status.Allocation; a != nil {
		for i, c := range a.Devices.Config {
			warnings = append(warnings, opaqueWarnings(c.Opaque, field.NewPath("status", "allocation", "devices", "config").Index(i).Child("opaque"))...)
		}
	}
	return warnings
}

func specWarnings(spec *api.ResourceClaimSpec, fldPath *field.Path, cel *lru.Cache) []string {
	var warnings []string
	devicesPath := fldPath.Child("devices")
	for i, request := range spec.Devices.Requests {
		requestPath := devicesPath.Child("requests").Index(i)
		for j, selector := range request.Selectors {
			if selector.CEL == nil {
				continue
			}
			warnings = append(warnings, celWarnings(selector.CEL.Expression, requestPath.Child("selectors").Index(j).Child("cel", "expression"), cel)...)
		}
		if request.AdminAccess {
			warnings = append(warnings, fmt.Sprintf("%s: admin access is neither validated nor restricted in Kubernetes 1.31; from 1.32 it is feature-gated (DRAAdminAccess) and later limited to namespaces labeled resource.kubernetes.io/admin-access=true (1.34+; resource.k8s.io/admin-access=true in 1.33)", requestPath.Child("adminAccess")))
		}
	}
	for i, constraint := range spec.Devices.Constraints {
		if constraint.MatchAttribute != nil && strings.Count(string(*constraint.MatchAttribute), "/") >= 2 {
			warnings = append(warnings, fmt.Sprintf("%s: %q is not a valid fully qualified attribute name (<domain>/<identifier>); Kubernetes 1.31 did not check names with more than one '/', later releases reject them", devicesPath.Child("constraints").Index(i).Child("matchAttribute"), *constraint.MatchAttribute))
		}
	}
	for i, config := range spec.Devices.Config {
		warnings = append(warnings, opaqueWarnings(config.Opaque, devicesPath.Child("config").Index(i).Child("opaque"))...)
	}
	return warnings
}

func celWarnings(expression string, fldPath *field.Path, cel *lru.Cache) []string {
	var warnings []string
	if len(expression) > resourcev1.CELSelectorExpressionMaxLength {
		warnings = append(warnings, fmt.Sprintf("%s: the expression has %d bytes; Kubernetes 1.%d and later reject expressions longer than %d bytes", fldPath, len(expression), claimbridge.Since(claimbridge.CELLimits), resourcev1.CELSelectorExpressionMaxLength))
	}
	// Errors are reported by validation; only the cost of a valid expression matters here.
	if result := compileCEL(expression, options{cel: cel}); result.err == nil && result.maxCost != math.MaxUint64 && result.maxCost > resourcev1.CELSelectorExpressionMaxCost {
		warnings = append(warnings, fmt.Sprintf("%s: the estimated worst-case cost %d exceeds %d; Kubernetes 1.%d and later reject the expression as too complex", fldPath, result.maxCost, resourcev1.CELSelectorExpressionMaxCost, claimbridge.Since(claimbridge.CELLimits)))
	}
	return warnings
}

func opaqueWarnings(opaque *api.OpaqueDeviceConfiguration, fldPath *field.Path) []string {
	if opaque == nil || len(opaque.Parameters.Raw) <= resourcev1.OpaqueParametersMaxLength {
		return nil
	}
	return []string{fmt.Sprintf("%s: the parameters have %d bytes; Kubernetes 1.%d and later reject more than %d bytes", fldPath.Child("parameters"), len(opaque.Parameters.Raw), claimbridge.Since(claimbridge.CELLimits), resourcev1.OpaqueParametersMaxLength)}
}
