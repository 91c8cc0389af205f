package conversion

import (
	"encoding/json"
	"fmt"
)

// Warning names a field of the converted object's source whose meaning
// changes for the consumer of the target version: kept only in a restore
// annotation although that consumer would act on it, or accepted by the
// source version's apiserver but not the target's. Path is the field path in
// the shape the warning is about: the 1.32+ warnings name v1alpha3 fields
// (e.g. "status.allocation.controller", which is status.driverName in
// v1alpha1 and v1alpha2).
type Warning struct {
	Path    string
	Message string
}

func (w Warning) String() string { return w.Path + ": " + w.Message }

// Limits that Kubernetes 1.32 introduced (k8s.io/api resource/v1).
const (
	CELSelectorExpressionMaxLength = 10 * 1024
	OpaqueParametersMaxLength      = 10 * 1024
)

// DeleteProtectionFinalizer is the finalizer of claims that the built-in
// resourceclaim controller deallocates.
const DeleteProtectionFinalizer = "resource.kubernetes.io/delete-protection"

// The namespace labels that permit adminAccess: true.
const (
	AdminAccessLabel133 = "resource.k8s.io/admin-access"
	AdminAccessLabel    = "resource.kubernetes.io/admin-access"
)

// warningsV3ToB1 lists what a 1.32+ consumer acts on differently in a
// v1alpha3 (1.31) claim or template that is converted to v1beta1 and later.
func warningsV3ToB1(obj map[string]interface{}, kind string) []Warning {
	var w []Warning
	specPath, spec := "spec", asMap(obj["spec"])
	if kind == KindTemplate {
		specPath, spec = "spec.spec", asMap(spec["spec"])
	}
	if c := asString(spec["controller"]); c != "" {
		w = append(w, Warning{specPath + ".controller", fmt.Sprintf("classic DRA (controller %q) is gone in Kubernetes 1.32: a 1.32+ scheduler allocates only devices published in ResourceSlices, so pods using this claim stay pending unless the driver publishes them; the controller is kept only in the restore annotation", c)})
	}
	devices := asMap(spec["devices"])
	for i, r := range asSlice(devices["requests"]) {
		req := asMap(r)
		path := fmt.Sprintf("%s.devices.requests[%d]", specPath, i)
		for j, s := range asSlice(req["selectors"]) {
			if e := asString(asMap(asMap(s)["cel"])["expression"]); len(e) > CELSelectorExpressionMaxLength {
				w = append(w, Warning{fmt.Sprintf("%s.selectors[%d].cel.expression", path, j), fmt.Sprintf("%d bytes: Kubernetes 1.32+ rejects CEL expressions longer than %d bytes when the object is created", len(e), CELSelectorExpressionMaxLength)})
			}
		}
		if req["adminAccess"] == true {
			w = append(w, Warning{path + ".adminAccess", fmt.Sprintf("admin access needs a namespace labeled %s=true (Kubernetes 1.34+; %s=true in 1.33; also the DRAAdminAccess feature gate until it became GA), otherwise the apiserver rejects the object", AdminAccessLabel, AdminAccessLabel133)})
		}
	}
	for i, c := range asSlice(devices["config"]) {
		w = appendParameterWarnings(w, fmt.Sprintf("%s.devices.config[%d].opaque.parameters", specPath, i), c)
	}
	if kind == KindTemplate {
		return w
	}
	status := asMap(obj["status"])
	alloc := asMap(status["allocation"])
	if c := asString(alloc["controller"]); c != "" {
		w = append(w, Warning{"status.allocation.controller", fmt.Sprintf("allocated by classic DRA driver %q: a 1.32+ resourceclaim controller never clears this allocation (it deallocates only claims with finalizer %s) and the driver's controller no longer runs; the controller is kept only in the restore annotation", c, DeleteProtectionFinalizer)})
	}
	if c := asString(alloc["controller"]); c != "" {
		for i, f := range asSlice(asMap(obj["metadata"])["finalizers"]) {
			if name := asString(f); name != "" && name != DeleteProtectionFinalizer {
				w = append(w, Warning{fmt.Sprintf("metadata.finalizers[%d]", i), fmt.Sprintf("finalizer %q of a claim allocated by classic DRA: no 1.32+ component removes it, so deleting the claim waits until it is removed by hand", name)})
			}
		}
	}
	if status["deallocationRequested"] == true {
		w = append(w, Warning{"status.deallocationRequested", "Kubernetes 1.32+ has no deallocation requests: nothing deallocates this claim; the request is kept only in the restore annotation"})
	}
	for i, c := range asSlice(asMap(alloc["devices"])["config"]) {
		w = appendParameterWarnings(w, fmt.Sprintf("status.allocation.devices.config[%d].opaque.parameters", i), c)
	}
	return w
}

// appendParameterWarnings checks the opaque parameters of a configuration
// entry against the 1.32+ rules: a JSON object of at most 10 KiB.
func appendParameterWarnings(w []Warning, path string, config interface{}) []Warning {
	params, ok := asMap(asMap(config)["opaque"])["parameters"]
	if !ok {
		return w
	}
	if m, isObject := params.(map[string]interface{}); !isObject || m == nil {
		return append(w, Warning{path, "Kubernetes 1.32+ accepts only a JSON object as opaque parameters"})
	}
	if data, err := json.Marshal(params); err == nil && len(data) > OpaqueParametersMaxLength {
		w = append(w, Warning{path, fmt.Sprintf("%d bytes: Kubernetes 1.32+ rejects opaque parameters longer than %d bytes", len(data), OpaqueParametersMaxLength)})
	}
	return w
}

// statusWarning is the warning for a claim with a status converted to a
// version of resource.k8s.io: an apiserver discards the status of a create.
func statusWarning(obj map[string]interface{}) []Warning {
	status := asMap(obj["status"])
	if status["allocation"] == nil && len(asSlice(status["reservedFor"])) == 0 && len(asSlice(status["devices"])) == 0 {
		return nil
	}
	return []Warning{{"status", "an apiserver discards the status when the claim is created: create the claim, then write the status through the status subresource (e.g. kubectl replace --subresource=status)"}}
}
