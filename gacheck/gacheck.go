// Package gacheck checks claims, templates and DeviceClasses of upstream's
// resource.k8s.io v1beta1, v1beta2 and v1 with the rules of the release
// that serves the version (1.32, 1.33, 1.36): what that release's
// apiserver rejects on a create. `claimbridge validate` uses it for GA
// manifests, and migrate to refuse migrated objects the target would not
// create.
package gacheck

import (
	"encoding/json"
	"fmt"
	"strings"

	resourcev1 "k8s.io/api/resource/v1"
	resourcev1beta1 "k8s.io/api/resource/v1beta1"
	resourcev1beta2 "k8s.io/api/resource/v1beta2"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/claimbridge/claimbridge/api"
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

// Check checks a claim or template of upstream's v1beta1, v1beta2 or v1
// as `kubectl create` would send it to the release that serves the version
// (1.32, 1.33, 1.36): fields the version does not have (a strict
// decode into the k8s.io/api v0.36 type, and the fields the release did not
// have yet), then every create rule of that release (Validate), in the
// object's namespace or, without one, "default", as kubectl's context has
// it, and with a generated name for a generateName. Opaque parameters of
// status.allocation are checked as a status update would. Warnings name
// what needs more than the object (adminAccess) or what the release drops
// with its default feature gates.
func Check(obj map[string]interface{}, version, kind string) (errs, warnings []string) {
	unknown, err := decode(obj, version, kind)
	if err != nil {
		return []string{fmt.Sprintf("does not decode into resource.k8s.io/%s %s: %v", version, kind, err)}, nil
	}
	unknown = append(unknown, absentFields(obj, version, kind)...)
	for _, e := range unknown {
		errs = append(errs, e.Error())
	}
	invalid, err := Validate(validation.WithGeneratedName(api.InDefaultNamespace(obj)), version, kind)
	if err != nil {
		return append(errs, err.Error()), nil
	}
	for _, e := range invalid {
		errs = append(errs, e.Error())
	}
	r := release(version)
	for i, c := range asArray(asObject(asObject(asObject(obj["status"])["allocation"])["devices"])["config"]) {
		path := field.NewPath("status", "allocation", "devices", "config").Index(i).Child("opaque", "parameters")
		if opaque, ok := asObject(c)["opaque"].(map[string]interface{}); ok {
			for _, e := range r.validateParameters(rawExtension(opaque["parameters"]), path) {
				errs = append(errs, e.Error())
			}
		}
	}
	specPath, spec := "spec", asObject(obj["spec"])
	if kind == conversion.KindTemplate {
		specPath, spec = "spec.spec", asObject(spec["spec"])
	}
	for i, r := range asArray(asObject(spec["devices"])["requests"]) {
		req := asObject(r)
		path := fmt.Sprintf("%s.devices.requests[%d]", specPath, i)
		exact, exactPath := req, path
		if version != conversion.V1beta1 {
			exact, exactPath = asObject(req["exactly"]), path+".exactly"
		}
		if exact["adminAccess"] == true {
			warnings = append(warnings, fmt.Sprintf("%s.adminAccess: needs a namespace labeled %s=true (Kubernetes 1.34+; %s=true in 1.33)", exactPath, conversion.AdminAccessLabel, conversion.AdminAccessLabel133))
		}
		if version == conversion.V1beta2 {
			if len(asArray(req["firstAvailable"])) > 0 {
				warnings = append(warnings, path+".firstAvailable: Kubernetes 1.33 drops it unless its DRAPrioritizedList feature gate is enabled (the default from 1.34), and then refuses a request without exactly")
			}
			if len(asArray(exact["tolerations"])) > 0 {
				warnings = append(warnings, exactPath+".tolerations: Kubernetes 1.33 keeps them but has no device taints unless its DRADeviceTaints feature gate is enabled (the default from 1.36)")
			}
		}
	}
	return errs, warnings
}

// absentFields are the fields of obj that the k8s.io/api v0.36 type has
// but the release that serves version did not have yet (Forbidden
// "unknown field", as a strict decode in that release reports them): in
// 1.32 (v1beta1) a request's firstAvailable, tolerations and capacity; in
// 1.32 and 1.33 (v1beta2) a request's capacity and a constraint's
// distinctAttribute (all 1.34); in a DeviceClass, extendedResourceName.
func absentFields(obj map[string]interface{}, version, kind string) field.ErrorList {
	minor := release(version).minor
	if minor >= 34 {
		return nil
	}
	var errs field.ErrorList
	unknown := func(m map[string]interface{}, name string, path *field.Path, since int) {
		if _, ok := m[name]; ok && minor < since {
			errs = append(errs, field.Forbidden(path.Child(name), fmt.Sprintf("unknown field: Kubernetes 1.%d does not have it (1.%d+)", minor, since)))
		}
	}
	if kind == kindDeviceClass {
		unknown(asObject(obj["spec"]), "extendedResourceName", field.NewPath("spec"), 34)
		return errs
	}
	path, spec := field.NewPath("spec"), asObject(obj["spec"])
	if kind == conversion.KindTemplate {
		path, spec = path.Child("spec"), asObject(spec["spec"])
	}
	path, devices := path.Child("devices"), asObject(spec["devices"])
	for i, r := range asArray(devices["requests"]) {
		req, reqPath := asObject(r), path.Child("requests").Index(i)
		if version == conversion.V1beta1 {
			unknown(req, "firstAvailable", reqPath, 33)
			unknown(req, "tolerations", reqPath, 33)
			unknown(req, "capacity", reqPath, 34)
			continue
		}
		unknown(asObject(req["exactly"]), "capacity", reqPath.Child("exactly"), 34)
		for j, sub := range asArray(req["firstAvailable"]) {
			unknown(asObject(sub), "capacity", reqPath.Child("firstAvailable").Index(j), 34)
		}
	}
	for i, c := range asArray(devices["constraints"]) {
		unknown(asObject(c), "distinctAttribute", path.Child("constraints").Index(i), 34)
	}
	return errs
}

const kindDeviceClass = "DeviceClass"

// rawExtension is a decoded JSON value as the apiserver holds it: null and
// absent are no bytes.
func rawExtension(v interface{}) runtime.RawExtension {
	if v == nil {
		return runtime.RawExtension{}
	}
	data, _ := json.Marshal(v)
	return runtime.RawExtension{Raw: data}
}

// DeviceClassErrors are the create rules of the release that serves a
// DeviceClass's version (v1beta1, v1beta2 or v1: ValidateDeviceClass, and
// the fields the release does not have). migrate refuses a DeviceClass
// that has any.
func DeviceClassErrors(obj map[string]interface{}) []string {
	apiVersion, _ := obj["apiVersion"].(string)
	_, version, _ := strings.Cut(apiVersion, "/")
	var errs []string
	for _, e := range absentFields(obj, version, kindDeviceClass) {
		errs = append(errs, e.Error())
	}
	invalid, err := ValidateDeviceClass(obj, version)
	if err != nil {
		return append(errs, err.Error())
	}
	for _, e := range invalid {
		errs = append(errs, e.Error())
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

// UnknownFields returns the fields of obj, a claim or template of version
// (v1beta1, v1beta2, v1), that the Kubernetes 1.36 type does not have
// (Forbidden "unknown field" at their paths), as Check reports them: a
// strict decode, no other check.
func UnknownFields(obj map[string]interface{}, version, kind string) (field.ErrorList, error) {
	return decode(obj, version, kind)
}

// decode decodes obj into the k8s.io/api v0.36 type of version and kind as
// a strict apiserver does: every field the type does not have is a finding
// at its path (Forbidden "unknown field", as for the alpha versions); a
// value the type cannot hold is the error.
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
