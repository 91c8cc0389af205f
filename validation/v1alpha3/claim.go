package v1alpha3

import (
	"cmp"
	"encoding/json"
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/lru"

	api "github.com/claimbridge/claimbridge/api/v1alpha3"
	"github.com/claimbridge/claimbridge/validation/common"
)

// ValidateResourceClaim validates a new claim (1.31 ValidateResourceClaim).
// CEL selectors are compiled in the environment for new expressions. Here
// and in the other entry points, cel caches compilations (nil: none).
func ValidateResourceClaim(claim *api.ResourceClaim, cel *lru.Cache) field.ErrorList {
	return validateObject(&claim.ObjectMeta, nil, &claim.Spec, options{cel: cel})
}

// ValidateResourceClaimTemplate validates a new template (1.31).
func ValidateResourceClaimTemplate(template *api.ResourceClaimTemplate, cel *lru.Cache) field.ErrorList {
	return validateObject(&template.ObjectMeta, &template.Spec.ObjectMeta, &template.Spec.Spec, options{cel: cel})
}

// ValidateResourceClaimUpdate validates an update of the main resource as
// the 1.31 registry strategy does (ValidateResourceClaim, then
// ValidateResourceClaimUpdate), in the order of 1.26/1.30's
// ValidateClaimUpdate: metadata update rules, the immutable spec, then the
// create rules, metadata included, whose spec findings are reported once,
// with CEL in the stored-expressions environment (the spec is immutable, so
// its expressions have been stored).
func ValidateResourceClaimUpdate(claim, old *api.ResourceClaim, cel *lru.Cache) field.ErrorList {
	createErrs := validateObject(&claim.ObjectMeta, nil, &claim.Spec, options{stored: true, cel: cel})
	return common.ValidateUpdate(&claim.ObjectMeta, &old.ObjectMeta, claim.Spec, old.Spec, createErrs)
}

// ValidateResourceClaimTemplateUpdate validates a template update as
// ValidateResourceClaimUpdate validates a claim's.
func ValidateResourceClaimTemplateUpdate(template, old *api.ResourceClaimTemplate, cel *lru.Cache) field.ErrorList {
	createErrs := validateObject(&template.ObjectMeta, &template.Spec.ObjectMeta, &template.Spec.Spec, options{stored: true, cel: cel})
	return common.ValidateUpdate(&template.ObjectMeta, &old.ObjectMeta, template.Spec, old.Spec, createErrs)
}

// validateObject checks a claim's or template's metadata, a template's
// embedded metadata (labels and annotations only; nil for a claim) and the
// claim spec (a template's spec.spec).
func validateObject(meta, templateMeta *metav1.ObjectMeta, spec *api.ResourceClaimSpec, opts options) field.ErrorList {
	allErrs := common.ValidateObjectMeta(meta, true, field.NewPath("metadata"))
	specPath := field.NewPath("spec")
	if templateMeta != nil {
		allErrs = append(allErrs, common.ValidateTemplateObjectMeta(templateMeta, specPath.Child("metadata"))...)
		specPath = specPath.Child("spec")
	}
	allErrs = append(allErrs, validateDeviceClaim(&spec.Devices, specPath.Child("devices"), opts)...)
	if spec.Controller != "" {
		allErrs = append(allErrs, common.ValidateDriverName(spec.Controller, specPath.Child("controller"))...)
	}
	return allErrs
}

func validateDeviceClaim(deviceClaim *api.DeviceClaim, fldPath *field.Path, opts options) field.ErrorList {
	requestNames := gatherRequestNames(deviceClaim)
	allErrs := common.ValidateSet(deviceClaim.Requests, api.DeviceRequestsMaxSize,
		func(request api.DeviceRequest, fldPath *field.Path) field.ErrorList {
			return validateDeviceRequest(request, fldPath, opts)
		},
		func(request api.DeviceRequest) (string, string) { return request.Name, "name" },
		fldPath.Child("requests"))
	allErrs = append(allErrs, common.ValidateSlice(deviceClaim.Constraints, api.DeviceConstraintsMaxSize,
		func(constraint api.DeviceConstraint, fldPath *field.Path) field.ErrorList {
			return validateDeviceConstraint(constraint, fldPath, requestNames)
		}, fldPath.Child("constraints"))...)
	return append(allErrs, common.ValidateSlice(deviceClaim.Config, api.DeviceConfigMaxSize,
		func(config api.DeviceClaimConfiguration, fldPath *field.Path) field.ErrorList {
			allErrs := validateRequestNameRefs(config.Requests, fldPath.Child("requests"), requestNames)
			return append(allErrs, validateDeviceConfiguration(config.DeviceConfiguration, fldPath)...)
		}, fldPath.Child("config"))...)
}

func gatherRequestNames(deviceClaim *api.DeviceClaim) sets.Set[string] {
	requestNames := sets.New[string]()
	for _, request := range deviceClaim.Requests {
		requestNames.Insert(request.Name)
	}
	return requestNames
}

func validateDeviceRequest(request api.DeviceRequest, fldPath *field.Path, opts options) field.ErrorList {
	allErrs := common.ValidateDNS1123Label(request.Name, fldPath.Child("name"))
	if request.DeviceClassName == "" {
		allErrs = append(allErrs, field.Required(fldPath.Child("deviceClassName"), ""))
	} else {
		allErrs = append(allErrs, common.ValidateDNS1123Subdomain(request.DeviceClassName, fldPath.Child("deviceClassName"))...)
	}
	allErrs = append(allErrs, common.ValidateSlice(request.Selectors, api.DeviceSelectorsMaxSize,
		func(selector api.DeviceSelector, fldPath *field.Path) field.ErrorList {
			if selector.CEL == nil {
				return field.ErrorList{field.Required(fldPath.Child("cel"), "")}
			}
			if result := compileCEL(selector.CEL.Expression, opts); result.err != nil {
				return field.ErrorList{common.CELError(fldPath.Child("cel", "expression"), selector.CEL.Expression, result.err)}
			}
			return nil
		}, fldPath.Child("selectors"))...)
	switch request.AllocationMode {
	case api.DeviceAllocationModeAll:
		if request.Count != 0 {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("count"), request.Count, fmt.Sprintf("must not be specified when allocationMode is '%s'", request.AllocationMode)))
		}
	case api.DeviceAllocationModeExactCount:
		if request.Count <= 0 {
			allErrs = append(allErrs, field.Invalid(fldPath.Child("count"), request.Count, "must be greater than zero"))
		}
	default:
		allErrs = append(allErrs, field.NotSupported(fldPath.Child("allocationMode"), request.AllocationMode,
			[]api.DeviceAllocationMode{api.DeviceAllocationModeAll, api.DeviceAllocationModeExactCount}))
	}
	// adminAccess: not validated in 1.31 (see Warnings).
	return allErrs
}

func validateDeviceConstraint(constraint api.DeviceConstraint, fldPath *field.Path, requestNames sets.Set[string]) field.ErrorList {
	allErrs := validateRequestNameRefs(constraint.Requests, fldPath.Child("requests"), requestNames)
	if constraint.MatchAttribute == nil {
		allErrs = append(allErrs, field.Required(fldPath.Child("matchAttribute"), ""))
	} else {
		allErrs = append(allErrs, validateFullyQualifiedName(*constraint.MatchAttribute, fldPath.Child("matchAttribute"))...)
	}
	return allErrs
}

// validateRequestNameRefs checks a list of request names (constraints,
// config, allocated config): DNS labels naming requests of the claim, at
// most 32, no duplicates.
func validateRequestNameRefs(names []string, fldPath *field.Path, requestNames sets.Set[string]) field.ErrorList {
	return common.ValidateSet(names, api.DeviceRequestsMaxSize,
		func(name string, fldPath *field.Path) field.ErrorList {
			return validateRequestNameRef(name, fldPath, requestNames)
		}, func(name string) (string, string) { return name, "" }, fldPath)
}

func validateRequestNameRef(name string, fldPath *field.Path, requestNames sets.Set[string]) field.ErrorList {
	allErrs := common.ValidateDNS1123Label(name, fldPath)
	if !requestNames.Has(name) {
		allErrs = append(allErrs, field.Invalid(fldPath, name, "must be the name of a request in the claim"))
	}
	return allErrs
}

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

// SetDefaults applies upstream defaulting (SetDefaults_DeviceRequest) to a
// *ResourceClaim or *ResourceClaimTemplate: for every request, an empty
// allocationMode becomes ExactCount, and an ExactCount request with count 0
// gets count 1. Other types, and nil pointers, are ignored.
func SetDefaults(obj interface{}) {
	switch o := obj.(type) {
	case *api.ResourceClaim:
		if o != nil {
			setDefaultsSpec(&o.Spec)
		}
	case *api.ResourceClaimTemplate:
		if o != nil {
			setDefaultsSpec(&o.Spec.Spec)
		}
	}
}

func setDefaultsSpec(spec *api.ResourceClaimSpec) {
	for i := range spec.Devices.Requests {
		request := &spec.Devices.Requests[i]
		request.AllocationMode = cmp.Or(request.AllocationMode, api.DeviceAllocationModeExactCount)
		if request.AllocationMode == api.DeviceAllocationModeExactCount && request.Count == 0 {
			request.Count = 1
		}
	}
}
