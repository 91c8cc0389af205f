package conversion

import (
	"encoding/json"
	"fmt"

	resourcev1 "k8s.io/api/resource/v1"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/api/v1alpha2"
)

// The namespace labels that permit adminAccess: true.
const (
	AdminAccessLabel133 = "resource.k8s.io/admin-access"
	AdminAccessLabel    = "resource.kubernetes.io/admin-access"
)

// warningsV3ToB1 reports to r what a 1.32+ consumer acts on differently in
// a v1alpha3 (1.31) claim or template that is converted to v1beta1 and
// later. The paths name v1alpha3 fields (the step's From version), for
// example status.allocation.controller. It is the object hook of the
// v1alpha3 → v1beta1 step: the finalizer warning needs metadata and status
// together.
func warningsV3ToB1(obj map[string]interface{}, kind string, r *lossReport) {
	specPath, spec := api.ClaimSpecPath(kind), api.ClaimSpec(obj, kind)
	if c := asString(spec["controller"]); c != "" {
		r.lose(specPath+".controller", "classic DRA (controller %q) is gone in Kubernetes 1.32: a 1.32+ scheduler allocates only devices published in ResourceSlices, so pods using this claim stay pending unless the driver publishes them; the controller is kept only in the restore annotation", c)
	}
	devices := asMap(spec["devices"])
	for i, rq := range asSlice(devices["requests"]) {
		req := asMap(rq)
		path := fmt.Sprintf("%s.devices.requests[%d]", specPath, i)
		for j, s := range asSlice(req["selectors"]) {
			if e := asString(asMap(asMap(s)["cel"])["expression"]); len(e) > resourcev1.CELSelectorExpressionMaxLength {
				r.lose(fmt.Sprintf("%s.selectors[%d].cel.expression", path, j), "%d bytes: Kubernetes 1.%d+ rejects CEL expressions longer than %d bytes when the object is created", len(e), api.Since(api.CELLimits), resourcev1.CELSelectorExpressionMaxLength)
			}
		}
		if req["adminAccess"] == true {
			r.lose(path+".adminAccess", "admin access needs a namespace labeled %s=true (Kubernetes 1.34+; %s=true in 1.33), otherwise the apiserver rejects the object; in 1.32 and 1.33, whose DRAAdminAccess feature gate is off by default, an apiserver without it drops adminAccess and the device is allocated without admin access", AdminAccessLabel, AdminAccessLabel133)
		}
	}
	for i, c := range asSlice(devices["config"]) {
		parameterLosses(r, fmt.Sprintf("%s.devices.config[%d].opaque.parameters", specPath, i), c)
	}
	if kind == api.KindTemplate {
		return
	}
	status := asMap(obj["status"])
	alloc := asMap(status["allocation"])
	if c := asString(alloc["controller"]); c != "" {
		r.lose("status.allocation.controller", "allocated by classic DRA driver %q: a 1.32+ resourceclaim controller never clears this allocation (it deallocates only claims with finalizer %s) and the driver's controller no longer runs; the controller is kept only in the restore annotation", c, api.FinalizerV1alpha3)
		for i, f := range asSlice(api.Metadata(obj)["finalizers"]) {
			if name := asString(f); name != "" && name != api.FinalizerV1alpha3 {
				r.lose(fmt.Sprintf("metadata.finalizers[%d]", i), "finalizer %q of a claim allocated by classic DRA: no 1.32+ component removes it, so deleting the claim waits until it is removed by hand", name)
			}
		}
	}
	if alloc != nil && asString(alloc["controller"]) == "" {
		structuredFinalizerLosses(obj, r)
	}
	if status["deallocationRequested"] == true {
		r.lose("status.deallocationRequested", "Kubernetes 1.32+ has no deallocation requests: nothing deallocates this claim; the request is kept only in the restore annotation")
	}
	for i, c := range asSlice(asMap(alloc["devices"])["config"]) {
		parameterLosses(r, fmt.Sprintf("status.allocation.devices.config[%d].opaque.parameters", i), c)
	}
}

// structuredFinalizerLosses reports what a 1.32+ resourceclaim controller
// does with a structured allocation by its finalizers (1.36
// controller.go, syncClaim): it clears the allocation, once the last
// consumer is gone, only of a claim with the built-in finalizer, and removes
// only that one.
func structuredFinalizerLosses(obj map[string]interface{}, r *lossReport) {
	for i, f := range asSlice(api.Metadata(obj)["finalizers"]) {
		if asString(f) == api.FinalizerV1alpha2 {
			r.lose(fmt.Sprintf("metadata.finalizers[%d]", i), "the 1.30 scheduler's finalizer: no 1.32+ component removes it, so deleting the claim waits until it is removed by hand (claimbridge migrate drops it with the allocation)")
		}
	}
	if !hasFinalizer(obj, api.FinalizerV1alpha3) {
		r.lose("status.allocation", "a 1.32+ resourceclaim controller clears a structured allocation, once its last consumer is gone, only for a claim with finalizer %s (which its scheduler adds when it allocates): this one stays allocated, its devices unavailable to other claims, until the claim is deleted", api.FinalizerV1alpha3)
	}
}

// parameterLosses checks the opaque parameters of a configuration
// entry against the 1.32+ rules: a JSON object of at most 10 KiB.
func parameterLosses(r *lossReport, path string, config interface{}) {
	params, ok := asMap(asMap(config)["opaque"])["parameters"]
	if !ok {
		return
	}
	if m, isObject := params.(map[string]interface{}); !isObject || m == nil {
		r.lose(path, "Kubernetes 1.32+ accepts only a JSON object as opaque parameters")
		return
	}
	if data, err := json.Marshal(params); err == nil && len(data) > resourcev1.OpaqueParametersMaxLength {
		r.lose(path, "%d bytes: Kubernetes 1.%d+ rejects opaque parameters longer than %d bytes", len(data), api.Since(api.CELLimits), resourcev1.OpaqueParametersMaxLength)
	}
}

// statusLoss reports the loss for a claim with a status converted to a
// version of resource.k8s.io: an apiserver discards the status of a create.
func statusLoss(obj map[string]interface{}, r *lossReport) {
	status := asMap(obj["status"])
	if status["allocation"] == nil && len(asSlice(status["reservedFor"])) == 0 && len(asSlice(status["devices"])) == 0 {
		return
	}
	r.lose("status", "an apiserver discards the status when the claim is created: create the claim, then write the status through the status subresource (e.g. kubectl replace --subresource=status; from Kubernetes 1.36, whose DRAResourceClaimGranularStatusAuthorization is on by default, writing allocation or reservedFor also needs the write's own verb (update, or patch) on resourceclaims/binding cluster-wide, and status.devices a per-driver permission on resourceclaims/driver)")
}

// warningsB1ToV3 reports to r what a 1.31 consumer cannot see of a v1beta1
// (1.32+) claim or template converted to v1alpha3: the request and
// constraint fields 1.32–1.34 added that change what is allocated. The
// paths name v1beta1 fields (the step's From version; for v1beta2 and v1
// input, spec.devices.requests[i].exactly.capacity is
// spec.devices.requests[i].capacity here). Tolerations are not reported:
// 1.31 has no device taints to tolerate; nor is what the status adds
// (device status, binding conditions, consumed capacity): no 1.31
// component acts on it.
func warningsB1ToV3(obj map[string]interface{}, kind string, r *lossReport) {
	specPath, spec := api.ClaimSpecPath(kind), api.ClaimSpec(obj, kind)
	devices := asMap(spec["devices"])
	for i, rq := range asSlice(devices["requests"]) {
		req := asMap(rq)
		path := fmt.Sprintf("%s.devices.requests[%d]", specPath, i)
		if subs := asSlice(req["firstAvailable"]); len(subs) > 0 {
			r.lose(path+".firstAvailable", "1.31 has no prioritized list: the converted request names no deviceClassName, which a 1.31 apiserver requires, and the request's %d subrequest(s) are kept only in the restore annotation", len(subs))
		}
		if req["capacity"] != nil { // null is absent
			r.lose(path+".capacity", "1.31 allocates whole devices: the request for a share of a device's capacity is kept only in the restore annotation")
		}
	}
	for i, c := range asSlice(devices["constraints"]) {
		if a := asString(asMap(c)["distinctAttribute"]); a != "" {
			r.lose(fmt.Sprintf("%s.devices.constraints[%d].distinctAttribute", specPath, i), "1.31 has no distinctAttribute constraint: the devices allocated may share attribute %q; the constraint is kept only in the restore annotation", a)
		}
	}
	if kind != api.KindClaim {
		return
	}
	if n := len(asSlice(asMap(obj["status"])["reservedFor"])); n > v1alpha2.ResourceClaimReservedForMaxSize {
		r.lose("status.reservedFor", "%d consumers: Kubernetes 1.26–1.31 allow at most %d (1.33+ %d), so their apiserver refuses this status and every status write of the claim until %d are released", n, v1alpha2.ResourceClaimReservedForMaxSize, resourcev1.ResourceClaimReservedForMaxSize, n-v1alpha2.ResourceClaimReservedForMaxSize)
	}
}
