// Package gacheck checks claims and templates of upstream's resource.k8s.io
// v1beta1, v1beta2 and v1 for what a Kubernetes 1.36 apiserver rejects and
// claimbridge's conversions can get wrong. `claimbridge validate` uses it for
// GA manifests, and migrate to refuse migrated objects a 1.36 apiserver
// would not create.
package gacheck

import (
	"encoding/json"
	"fmt"

	resourcev1 "k8s.io/api/resource/v1"
	resourcev1beta1 "k8s.io/api/resource/v1beta1"
	resourcev1beta2 "k8s.io/api/resource/v1beta2"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/claimbridge/claimbridge/conversion"
	"github.com/claimbridge/claimbridge/validation"
)

// Version returns the version and kind of a resource.k8s.io v1beta1, v1beta2
// or v1 claim or template, or "" when obj is not one.
func Version(obj map[string]interface{}) (version, kind string) {
	group, version, kind, err := conversion.Identify(obj)
	if err != nil || group != conversion.UpstreamGroup || (kind != conversion.KindClaim && kind != conversion.KindTemplate) {
		return "", ""
	}
	for _, v := range conversion.GAVersions {
		if v == version {
			return version, kind
		}
	}
	return "", ""
}

// Check checks a claim or template of upstream's v1beta1, v1beta2 or
// v1 for what claimbridge's conversions can get wrong: fields the version
// does not have (a strict decode into the k8s.io/api v0.36 type), requests
// with neither or both of an exact request and firstAvailable or without a
// device class, CEL selectors
// and opaque parameters over the 1.32+ limits. It does not repeat all of
// upstream's validation: `kubectl apply --dry-run=server` is the full check.
// Warnings name what needs more than the object (adminAccess).
func Check(obj map[string]interface{}, version, kind string) (errs, warnings []string) {
	unknown, err := decode(obj, version, kind)
	if err != nil {
		errs = append(errs, fmt.Sprintf("does not decode into resource.k8s.io/%s %s: %v", version, kind, err))
	}
	for _, e := range unknown {
		errs = append(errs, e.Error())
	}
	specPath, spec := "spec", asObject(obj["spec"])
	if kind == conversion.KindTemplate {
		specPath, spec = "spec.spec", asObject(spec["spec"])
	}
	devices := asObject(spec["devices"])
	for i, r := range asArray(devices["requests"]) {
		req := asObject(r)
		path := fmt.Sprintf("%s.devices.requests[%d]", specPath, i)
		exact, exactPath := req, path
		if version != conversion.V1beta1 {
			exact, exactPath = asObject(req["exactly"]), path+".exactly"
		}
		errs = append(errs, requestErrors(req, version, path, exactPath)...)
		errs = append(errs, celErrors(exactPath, exact)...)
		for j, sub := range asArray(req["firstAvailable"]) {
			errs = append(errs, celErrors(fmt.Sprintf("%s.firstAvailable[%d]", path, j), asObject(sub))...)
		}
		if exact["adminAccess"] == true {
			warnings = append(warnings, fmt.Sprintf("%s.adminAccess: needs a namespace labeled %s=true (Kubernetes 1.34+; %s=true in 1.33)", exactPath, conversion.AdminAccessLabel, conversion.AdminAccessLabel133))
		}
	}
	for i, c := range asArray(devices["config"]) {
		errs = append(errs, parameterErrors(fmt.Sprintf("%s.devices.config[%d].opaque.parameters", specPath, i), c)...)
	}
	for i, c := range asArray(asObject(asObject(asObject(obj["status"])["allocation"])["devices"])["config"]) {
		errs = append(errs, parameterErrors(fmt.Sprintf("status.allocation.devices.config[%d].opaque.parameters", i), c)...)
	}
	return errs, warnings
}

// requestErrors are upstream's (1.36 validateDeviceRequest) on a request's
// kind: exactly one of an exact request (v1beta2 and v1: exactly, null
// counting as absent; v1beta1: any of its flat fields, as upstream's
// conversion makes one) and a non-empty firstAvailable, and an exact
// request's device class.
func requestErrors(req map[string]interface{}, version, path, exactPath string) []string {
	hasExactly := req["exactly"] != nil
	if version == conversion.V1beta1 {
		hasExactly = false
		for _, f := range []string{"deviceClassName", "selectors", "allocationMode", "count", "adminAccess", "tolerations", "capacity"} {
			if !unset(req[f]) {
				hasExactly = true
			}
		}
	}
	hasFirstAvailable := len(asArray(req["firstAvailable"])) > 0
	switch {
	case !hasExactly && !hasFirstAvailable:
		return []string{path + ": Required value: exactly one of `exactly` or `firstAvailable` is required"}
	case hasExactly && hasFirstAvailable:
		return []string{path + ": Invalid value: null: exactly one of `exactly` or `firstAvailable` is required, but multiple fields are set"}
	case hasExactly:
		exact := req
		if version != conversion.V1beta1 {
			exact = asObject(req["exactly"])
		}
		if class, _ := exact["deviceClassName"].(string); class == "" {
			return []string{exactPath + ".deviceClassName: Required value"}
		}
	}
	return nil
}

// unset reports whether a decoded field is what Go's decoding leaves a
// field the JSON did not set: null, "" or the number 0 (a pointer, a slice
// or false is set).
func unset(v interface{}) bool {
	return v == "" || isZeroNumber(v)
}

// isZeroNumber reports whether v, a decoded JSON value, is absent (nil) or
// the number 0 in any form the decoders give one (json.Number, float64,
// int64, int): what a Go integer field decodes to when the JSON left it out.
func isZeroNumber(v interface{}) bool {
	switch n := v.(type) {
	case nil:
		return true
	case json.Number:
		f, err := n.Float64()
		return err == nil && f == 0
	case float64:
		return n == 0
	case int64:
		return n == 0
	case int:
		return n == 0
	}
	return false
}

func celErrors(path string, request map[string]interface{}) []string {
	var errs []string
	for i, s := range asArray(request["selectors"]) {
		expr, _ := asObject(asObject(s)["cel"])["expression"].(string)
		if len(expr) > conversion.CELSelectorExpressionMaxLength {
			errs = append(errs, fmt.Sprintf("%s.selectors[%d].cel.expression: Too long: may not be more than %d bytes", path, i, conversion.CELSelectorExpressionMaxLength))
		}
	}
	return errs
}

// parameterErrors are 1.36's validateRawExtension on the opaque parameters
// of a configuration entry: present and not null, a JSON object, at most
// 10 KiB.
func parameterErrors(path string, config interface{}) []string {
	opaque, hasOpaque := asObject(config)["opaque"].(map[string]interface{})
	if !hasOpaque || opaque == nil {
		return nil
	}
	params := opaque["parameters"]
	if params == nil {
		return []string{path + ": Required value"}
	}
	if _, isObject := params.(map[string]interface{}); !isObject {
		return []string{path + ": Invalid value: must be a JSON object"}
	}
	if data, err := json.Marshal(params); err == nil && len(data) > conversion.OpaqueParametersMaxLength {
		return []string{fmt.Sprintf("%s: Too long: may not be more than %d bytes", path, conversion.OpaqueParametersMaxLength)}
	}
	return nil
}

// DeviceClassErrors are the 1.32+ limits on a DeviceClass of version v1beta1,
// v1beta2 or v1 that a 1.31 one did not have (1.36 validateDeviceClassSpec):
// its CEL selectors and its configuration's opaque parameters. migrate
// refuses a DeviceClass that has any.
func DeviceClassErrors(obj map[string]interface{}) []string {
	spec := asObject(obj["spec"])
	errs := celErrors("spec", spec)
	for i, c := range asArray(spec["config"]) {
		errs = append(errs, parameterErrors(fmt.Sprintf("spec.config[%d].opaque.parameters", i), c)...)
	}
	return errs
}

// DecodeStrict decodes obj into the k8s.io/api v0.36 type of version and
// kind, failing on a value the type cannot hold and on every field it does
// not have.
func DecodeStrict(obj map[string]interface{}, version, kind string) error {
	unknown, err := decode(obj, version, kind)
	if err != nil {
		return err
	}
	return unknown.ToAggregate()
}

// decode decodes obj into the k8s.io/api v0.36 type of version and kind as
// a strict apiserver does: every field the type does not have is a finding
// at its path (Forbidden "unknown field", as for the alpha versions); a
// value the type cannot hold is the error.
// UnknownFields returns the fields of obj, a claim or template of version
// (v1beta1, v1beta2, v1), that the Kubernetes 1.36 type does not have
// (Forbidden "unknown field" at their paths), as Check reports them: a
// strict decode, no other check.
func UnknownFields(obj map[string]interface{}, version, kind string) (field.ErrorList, error) {
	return decode(obj, version, kind)
}

func decode(obj map[string]interface{}, version, kind string) (field.ErrorList, error) {
	var typed interface{}
	switch version + "/" + kind {
	case "v1beta1/ResourceClaim":
		typed = &resourcev1beta1.ResourceClaim{}
	case "v1beta2/ResourceClaim":
		typed = &resourcev1beta2.ResourceClaim{}
	case "v1/ResourceClaim":
		typed = &resourcev1.ResourceClaim{}
	case "v1beta1/ResourceClaimTemplate":
		typed = &resourcev1beta1.ResourceClaimTemplate{}
	case "v1beta2/ResourceClaimTemplate":
		typed = &resourcev1beta2.ResourceClaimTemplate{}
	case "v1/ResourceClaimTemplate":
		typed = &resourcev1.ResourceClaimTemplate{}
	default:
		return nil, fmt.Errorf("no resource.k8s.io type for %s %s", version, kind)
	}
	data, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	return validation.DecodeStrict(data, typed)
}

func asObject(v interface{}) map[string]interface{} {
	m, _ := v.(map[string]interface{})
	return m
}

func asArray(v interface{}) []interface{} {
	s, _ := v.([]interface{})
	return s
}
