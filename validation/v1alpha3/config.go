package v1alpha3

import (
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"

	api "github.com/claimbridge/claimbridge/api/v1alpha3"
	"github.com/claimbridge/claimbridge/validation/common"
)

func validateDeviceConfiguration(config api.DeviceConfiguration, fldPath *field.Path) field.ErrorList {
	if config.Opaque == nil {
		return field.ErrorList{field.Required(fldPath.Child("opaque"), "")}
	}
	return validateOpaqueConfiguration(*config.Opaque, fldPath.Child("opaque"))
}

// validateOpaqueConfiguration checks the driver name and that the raw
// parameters are a JSON object (1.31 has no size limit; see Warnings).
func validateOpaqueConfiguration(config api.OpaqueDeviceConfiguration, fldPath *field.Path) field.ErrorList {
	allErrs := common.ValidateDriverName(config.Driver, fldPath.Child("driver"))
	var v any
	if len(config.Parameters.Raw) == 0 {
		allErrs = append(allErrs, field.Required(fldPath.Child("parameters"), ""))
	} else if err := json.Unmarshal(config.Parameters.Raw, &v); err != nil {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("parameters"), common.OmittedValue, fmt.Sprintf("error parsing data: %v", err.Error())))
	} else if v == nil {
		allErrs = append(allErrs, field.Required(fldPath.Child("parameters"), ""))
	} else if _, isObject := v.(map[string]any); !isObject {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("parameters"), common.OmittedValue, "parameters must be a valid JSON object"))
	}
	return allErrs
}
