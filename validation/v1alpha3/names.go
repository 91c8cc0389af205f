package v1alpha3

import (
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	api "github.com/claimbridge/claimbridge/api/v1alpha3"
	"github.com/claimbridge/claimbridge/validation/common"
)

// validatePoolName: required, at most 253 bytes, every "/"-separated
// segment a DNS subdomain (reported with the segment as value).
func validatePoolName(name string, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if name == "" {
		return append(allErrs, field.Required(fldPath, ""))
	}
	if len(name) > api.PoolNameMaxLength {
		allErrs = append(allErrs, common.TooLongMaxLength(fldPath, name, api.PoolNameMaxLength))
	}
	for _, part := range strings.Split(name, "/") {
		allErrs = append(allErrs, common.ValidateDNS1123Subdomain(part, fldPath)...)
	}
	return allErrs
}

// validateQualifiedName: either a C identifier or <domain>/<C identifier>.
// As in 1.31, a name with two or more slashes is not checked at all.
func validateQualifiedName(name api.QualifiedName, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if name == "" {
		return append(allErrs, field.Required(fldPath, "name required"))
	}
	parts := strings.Split(string(name), "/")
	switch len(parts) {
	case 1:
		allErrs = append(allErrs, validateCIdentifier(parts[0], fldPath)...)
	case 2:
		if len(parts[0]) == 0 {
			allErrs = append(allErrs, field.Required(fldPath, "the prefix must not be empty"))
		} else {
			allErrs = append(allErrs, common.ValidateDriverName(parts[0], fldPath)...)
		}
		if len(parts[1]) == 0 {
			allErrs = append(allErrs, field.Required(fldPath, "the name must not be empty"))
		} else {
			allErrs = append(allErrs, validateCIdentifier(parts[1], fldPath)...)
		}
	}
	return allErrs
}

// validateFullyQualifiedName: a qualified name that includes the domain.
func validateFullyQualifiedName(name api.FullyQualifiedName, fldPath *field.Path) field.ErrorList {
	allErrs := validateQualifiedName(api.QualifiedName(name), fldPath)
	if !strings.Contains(string(name), "/") {
		allErrs = append(allErrs, field.Required(fldPath.Child("domain"), "must include a prefix"))
	}
	return allErrs
}

func validateCIdentifier(id string, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if len(id) > api.DeviceMaxIDLength {
		allErrs = append(allErrs, common.TooLongMaxLength(fldPath, id, api.DeviceMaxIDLength))
	}
	for _, msg := range validation.IsCIdentifier(id) {
		allErrs = append(allErrs, field.TypeInvalid(fldPath, id, msg))
	}
	return allErrs
}
