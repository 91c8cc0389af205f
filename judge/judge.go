// Package judge judges an object of resource.k8s.io as a cluster's
// apiserver would on a create: a release of api.Releases with its feature
// gates and served versions (api.Cluster). It says what the cluster rejects
// and what it drops. Check judges claims, templates and DeviceClasses of
// v1beta1 to v1; CheckKind the other kinds of every release. validate, the
// guard and migrate use it.
package judge

import (
	"encoding/json"
	"fmt"
	"slices"

	resourcev1 "k8s.io/api/resource/v1"
	resourcev1alpha3 "k8s.io/api/resource/v1alpha3"
	resourcev1beta1 "k8s.io/api/resource/v1beta1"
	resourcev1beta2 "k8s.io/api/resource/v1beta2"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/api/v1alpha2"
	"github.com/claimbridge/claimbridge/conversion"
	"github.com/claimbridge/claimbridge/validation"
)

// Version returns the version and kind of a resource.k8s.io v1beta1, v1beta2
// or v1 claim or template, or "" when obj is not one.
func Version(obj map[string]interface{}) (version, kind string) {
	group, version, kind, err := conversion.Identify(obj)
	if err != nil || group != api.UpstreamGroup || !api.IsKind(kind) || !slices.Contains(api.UpstreamOnlyVersions, version) {
		return "", ""
	}
	return version, kind
}

// Check checks a claim, template or DeviceClass of v1beta1, v1beta2 or v1
// as `kubectl create` would send it to cluster c: fields the version or
// the release does not have, then every create rule of that release
// (Validate, ValidateDeviceClass), in the object's namespace or "default",
// with a generated name for a generateName. Opaque parameters of
// status.allocation are checked as a status update would. Warnings name
// what c drops and what needs more than the object (adminAccess).
func Check(obj map[string]interface{}, c api.Cluster, kind string) (errs, warnings []string) {
	version := versionOf(obj)
	if err := NotServed(c, version, kind); err != nil {
		return []string{err.Error()}, nil
	}
	r := rules{Cluster: c}
	unknown, err := UnknownFields(obj, version, kind)
	if err != nil {
		return []string{fmt.Sprintf("does not decode into resource.k8s.io/%s %s: %v", version, kind, err)}, nil
	}
	_, absent, dropped := r.strip(obj, version, kind)
	for _, e := range append(unknown, absent...) {
		errs = append(errs, e.Error())
	}
	var invalid field.ErrorList
	if kind == api.KindDeviceClass {
		invalid, err = ValidateDeviceClass(validation.WithGeneratedName(obj), c)
	} else {
		invalid, err = Validate(validation.AsSubmitted(obj, validation.Create), c, kind)
	}
	if err != nil {
		return append(errs, err.Error()), nil
	}
	for _, e := range invalid {
		errs = append(errs, e.Error())
	}
	for i, c := range asArray(asObject(asObject(asObject(obj["status"])["allocation"])["devices"])["config"]) {
		path := field.NewPath("status", "allocation", "devices", "config").Index(i).Child("opaque", "parameters")
		if opaque, ok := asObject(c)["opaque"].(map[string]interface{}); ok {
			for _, e := range r.validateParameters(rawExtension(opaque["parameters"]), path) {
				errs = append(errs, e.Error())
			}
		}
	}
	return errs, append(dropped, AdminAccessWarnings(obj, c, kind)...)
}

// adminAccessLabelSince is the first release whose apiserver rejects a
// claim or template with adminAccess: true in a namespace without the
// admin-access label (1.33 pkg/registry/resource/utils.go,
// AuthorizedForAdmin, which the create of both kinds calls). 1.32 has
// adminAccess (behind DRAAdminAccess) but no such check.
const adminAccessLabelSince = 33

// AdminAccessWarnings are Check's warnings about obj, a claim or template
// of v1beta1, v1beta2 or v1, that need more than the object: each request
// with admin access needs a labelled namespace on c, a release from
// adminAccessLabelSince that keeps adminAccess (its DRAAdminAccess gate
// on; with it off the field is dropped, which Dropped says). They are the
// one source of this warning: validate, convert and migrate give it.
func AdminAccessWarnings(obj map[string]interface{}, c api.Cluster, kind string) (warnings []string) {
	if c.Minor < adminAccessLabelSince || !c.Enabled(api.FieldOf("adminAccess").Gate) || kind == api.KindDeviceClass {
		return nil
	}
	version := versionOf(obj)
	specPath, spec := api.ClaimSpecPath(kind), api.ClaimSpec(obj, kind)
	for i, r := range asArray(asObject(spec["devices"])["requests"]) {
		exact, path := asObject(r), fmt.Sprintf("%s.devices.requests[%d]", specPath, i)
		if version != api.V1beta1 {
			exact, path = asObject(exact["exactly"]), path+".exactly"
		}
		if exact["adminAccess"] == true {
			warnings = append(warnings, fmt.Sprintf("%s.adminAccess: needs a namespace labeled %s=true (Kubernetes 1.34+; %s=true in 1.33)", path, conversion.AdminAccessLabel, conversion.AdminAccessLabel133))
		}
	}
	return warnings
}

// Dropped names the fields of obj, a claim or template of v1beta1, v1beta2
// or v1, that release drops on a create with its default feature gates:
// the warnings of Check about them.
func Dropped(obj map[string]interface{}, c api.Cluster, kind string) []string {
	_, _, dropped := rules{Cluster: c}.strip(obj, versionOf(obj), kind)
	return dropped
}

// versionOf is the version of obj's apiVersion.
func versionOf(obj map[string]interface{}) string {
	_, _, version, _, _ := api.TypeOf(obj)
	return version
}

// rawExtension is a decoded JSON value as the apiserver holds it: null and
// absent are no bytes.
func rawExtension(v interface{}) runtime.RawExtension {
	if v == nil {
		return runtime.RawExtension{}
	}
	data, _ := json.Marshal(v)
	return runtime.RawExtension{Raw: data}
}

// strictTypes are the newest k8s.io/api types, by "<version>/<kind>".
var strictTypes = map[string]func() interface{}{
	"v1beta1/ResourceClaim":         func() interface{} { return &resourcev1beta1.ResourceClaim{} },
	"v1beta2/ResourceClaim":         func() interface{} { return &resourcev1beta2.ResourceClaim{} },
	"v1/ResourceClaim":              func() interface{} { return &resourcev1.ResourceClaim{} },
	"v1beta1/ResourceClaimTemplate": func() interface{} { return &resourcev1beta1.ResourceClaimTemplate{} },
	"v1beta2/ResourceClaimTemplate": func() interface{} { return &resourcev1beta2.ResourceClaimTemplate{} },
	"v1/ResourceClaimTemplate":      func() interface{} { return &resourcev1.ResourceClaimTemplate{} },
	"v1beta1/DeviceClass":           func() interface{} { return &resourcev1beta1.DeviceClass{} },
	"v1beta2/DeviceClass":           func() interface{} { return &resourcev1beta2.DeviceClass{} },
	"v1/DeviceClass":                func() interface{} { return &resourcev1.DeviceClass{} },
	// CheckKind's: 1.31's DeviceClass and ResourceSlice are v1beta1's but
	// for fields api.Fields knows.
	"v1alpha3/DeviceClass":     func() interface{} { return &resourcev1beta1.DeviceClass{} },
	"v1alpha3/ResourceSlice":   func() interface{} { return &resourcev1beta1.ResourceSlice{} },
	"v1beta1/ResourceSlice":    func() interface{} { return &resourcev1beta1.ResourceSlice{} },
	"v1beta2/ResourceSlice":    func() interface{} { return &resourcev1beta2.ResourceSlice{} },
	"v1/ResourceSlice":         func() interface{} { return &resourcev1.ResourceSlice{} },
	"v1alpha3/DeviceTaintRule": func() interface{} { return &resourcev1alpha3.DeviceTaintRule{} },
	"v1beta2/DeviceTaintRule":  func() interface{} { return &resourcev1beta2.DeviceTaintRule{} },
	"v1/DeviceTaintRule":       func() interface{} { return &resourcev1.DeviceTaintRule{} },
	// 1.26's ResourceClass is 1.30's but for structuredParameters (CheckKind).
	"v1alpha1/ResourceClass":           func() interface{} { return &v1alpha2.ResourceClass{} },
	"v1alpha2/ResourceClass":           func() interface{} { return &v1alpha2.ResourceClass{} },
	"v1alpha2/ResourceSlice":           func() interface{} { return &v1alpha2.ResourceSlice{} },
	"v1alpha2/ResourceClaimParameters": func() interface{} { return &v1alpha2.ResourceClaimParameters{} },
	"v1alpha2/ResourceClassParameters": func() interface{} { return &v1alpha2.ResourceClassParameters{} },
}

// UnknownFields decodes obj, a claim, template or DeviceClass of version
// (v1beta1, v1beta2, v1) or an object of CheckKind, into the newest
// k8s.io/api type as a strict apiserver does: every field no release has
// is a finding at its path (Forbidden "unknown field", as for the alpha
// versions); a value the type cannot hold is the error. A strict decode,
// no other check.
func UnknownFields(obj map[string]interface{}, version, kind string) (field.ErrorList, error) {
	newType, ok := strictTypes[version+"/"+kind]
	if !ok {
		return nil, fmt.Errorf("no resource.k8s.io type for %s %s", version, kind)
	}
	data, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	return validation.DecodeStrict(data, newType())
}

func asObject(v interface{}) map[string]interface{} {
	m, _ := v.(map[string]interface{})
	return m
}

func asArray(v interface{}) []interface{} {
	s, _ := v.([]interface{})
	return s
}
