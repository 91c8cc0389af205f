package migrate

import (
	"fmt"

	"github.com/claimbridge/claimbridge/api"
)

// migrateParameters migrates an object IsParameters reports (a ResourceClass, a
// 1.30 ResourceClaimParameters or ResourceClassParameters) to the release
// serving version to. For 1.31+ a ResourceClass becomes the DeviceClass of
// the same name (deviceClassFor). served is false when that release does not
// serve the kind; the caller leaves the object out and says so. Otherwise
// out gets the target's apiVersion and loses the metadata the old cluster
// set. obj is not modified.
func migrateParameters(obj map[string]interface{}, target Target, opts Options) (out map[string]interface{}, r changes, served bool) {
	to := target.Version
	if !isParameters(obj) {
		return nil, r, false
	}
	if target.Devices {
		// A class without a name (a broken manifest) is named by no claim.
		if name, _ := api.Metadata(obj)["name"].(string); obj["kind"] == api.KindResourceClass && name != "" {
			out, r = deviceClassFor(obj, target, opts)
			return out, r, true
		}
		return nil, r, false
	}
	if obj["kind"] != api.KindResourceClass && to != api.V1alpha2 {
		return nil, r, false // the 1.30 parameter kinds
	}
	out = api.DeepCopyJSON(obj)
	apiVersion := api.UpstreamGroup + "/" + to
	if from, _ := obj["apiVersion"].(string); from != apiVersion {
		out["apiVersion"] = apiVersion
		r.Changed = append(r.Changed, fmt.Sprintf("apiVersion: %s -> %s (Kubernetes %s serves only %s)", from, apiVersion, target.Releases, to))
	}
	dropServerSet(api.Metadata(out), opts, &r)
	dropAnnotations(out, api.Annotations(obj), to, nil, &r)
	if obj["kind"] != api.KindResourceClass {
		return out, r, true
	}
	if sp, ok := out["structuredParameters"]; ok && !api.Has(target.Minor, api.ClassStructuredParameters) {
		delete(out, "structuredParameters")
		r.Lost = append(r.Lost, fmt.Sprintf("structuredParameters: a field of Kubernetes 1.%d that Kubernetes %s does not have", api.Since(api.ClassStructuredParameters), target.Releases))
		if sp == true {
			r.Warnings = append(r.Warnings, fmt.Sprintf("structuredParameters: Kubernetes %s has no structured parameters: claims of this class are allocated by the driver's control-plane controller (classic DRA), which must run for them", target.Releases))
		}
	}
	if ref, _ := out["parametersRef"].(map[string]interface{}); to == api.V1alpha1 &&
		str(ref, "apiGroup") == api.UpstreamGroup && str(ref, "kind") == api.KindClassParameters {
		r.Warnings = append(r.Warnings, fmt.Sprintf("parametersRef: %s %s: 1.26 has no %s (1.30 structured parameters), so nothing reads it there",
			api.KindClassParameters, refOf(str(ref, "namespace"), str(ref, "name")), api.KindClassParameters))
	}
	return out, r, true
}

// dropServerSet drops the metadata the old cluster set (serverSet) and,
// unless opts keep them, the owner references.
func dropServerSet(meta map[string]interface{}, opts Options, r *changes) {
	for _, f := range serverSet {
		r.drop(meta, f, "metadata."+f)
	}
	if !opts.KeepOwnerReferences {
		r.drop(meta, "ownerReferences", "metadata.ownerReferences (owners of the old cluster; --keep-owner-references keeps them)")
	}
}

// drop deletes key from m, when m has it, and reports it dropped as what.
func (r *changes) drop(m map[string]interface{}, key, what string) {
	if _, ok := m[key]; ok {
		delete(m, key)
		r.Dropped = append(r.Dropped, what)
	}
}
