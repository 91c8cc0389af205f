package common

import (
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// DriverNameMaxLength is the maximum length in bytes of a driver name
// (the limit of a CSI driver name, which upstream reuses).
const DriverNameMaxLength = 63

// ValidateDNS1123Label reports each DNS-label failure of value as Invalid
// (corevalidation.ValidateDNS1123Label). An empty value is Invalid, not
// Required.
func ValidateDNS1123Label(value string, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	for _, msg := range validation.IsDNS1123Label(value) {
		allErrs = append(allErrs, field.Invalid(fldPath, value, msg))
	}
	return allErrs
}

// ValidateDNS1123Subdomain reports each DNS-subdomain failure of value as
// Invalid (corevalidation.ValidateDNS1123Subdomain). An empty value is
// Invalid, not Required.
func ValidateDNS1123Subdomain(value string, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	for _, msg := range validation.IsDNS1123Subdomain(value) {
		allErrs = append(allErrs, field.Invalid(fldPath, value, msg))
	}
	return allErrs
}

// ValidateDriverName applies the CSI driver name rules that upstream reuses
// for DRA driver names (corevalidation.ValidateCSIDriverName): empty ⇒
// Required (and, as upstream, also Invalid); longer than 63 bytes ⇒ TooLong
// "must have at most 63 bytes"; the lower-cased value must be a DNS
// subdomain ⇒ Invalid with the original value.
func ValidateDriverName(name string, fldPath *field.Path) field.ErrorList {
	var allErrs field.ErrorList
	if len(name) == 0 {
		allErrs = append(allErrs, field.Required(fldPath, ""))
	}
	if len(name) > DriverNameMaxLength {
		allErrs = append(allErrs, TooLongBytes(fldPath, name, DriverNameMaxLength))
	}
	for _, msg := range validation.IsDNS1123Subdomain(strings.ToLower(name)) {
		allErrs = append(allErrs, field.Invalid(fldPath, name, msg))
	}
	return allErrs
}
