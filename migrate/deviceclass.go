package migrate

import (
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/judge"
)

// isDeviceClass reports whether obj is a resource.k8s.io DeviceClass of a
// version that has one (v1alpha3, v1beta1, v1beta2, v1).
func isDeviceClass(obj map[string]interface{}) bool {
	if obj["kind"] != api.KindDeviceClass {
		return false
	}
	_, group, version, _, _ := api.TypeOf(obj)
	return group == api.UpstreamGroup && devicesIn(version)
}

// deviceClassFields are the DeviceClass spec fields of each version besides
// selectors and config.
var deviceClassFields = map[string][]string{
	api.V1alpha3: {"suitableNodes"},
	api.V1:       {"extendedResourceName"},
}

// migrateDeviceClass migrates a DeviceClass to the release serving version to: the
// target's apiVersion, without the spec fields it lacks and the metadata the
// old cluster set. served is false for v1alpha1 and v1alpha2, which have no
// migrateDeviceClass. obj is not modified.
func migrateDeviceClass(obj map[string]interface{}, target Target, opts Options) (out map[string]interface{}, r changes, served bool) {
	to := target.Version
	if !target.Devices || !isDeviceClass(obj) {
		return nil, r, false
	}
	out = api.DeepCopyJSON(obj)
	from, _ := obj["apiVersion"].(string)
	if apiVersion := api.UpstreamGroup + "/" + to; from != apiVersion {
		out["apiVersion"] = apiVersion
		r.Changed = append(r.Changed, fmt.Sprintf("apiVersion: %s -> %s (Kubernetes %s)", from, apiVersion, target.Releases))
	}
	dropServerSet(api.Metadata(out), opts, &r)
	dropAnnotations(out, api.Annotations(obj), to, nil, &r)
	delete(out, "status")
	spec, _ := out["spec"].(map[string]interface{})
	for _, f := range slices.Sorted(maps.Keys(spec)) {
		if f == "selectors" || f == "config" || slices.Contains(deviceClassFields[to], f) {
			continue
		}
		delete(spec, f)
		r.Lost = append(r.Lost, fmt.Sprintf("spec.%s: a field that %s does not have", f, to))
		if f == "suitableNodes" {
			r.Warnings = append(r.Warnings, "spec.suitableNodes: the nodes a classic DRA driver's devices are on; Kubernetes 1.32+ has no classic DRA, its scheduler allocates from ResourceSlices")
		}
	}
	return out, r, true
}

// checkKind judges a migrated DeviceClass, ResourceClass or 1.30
// parameters object as validate does (judge.CheckKind): err refuses what
// the target release rejects, warnings say what it drops. Nothing for
// other objects.
func checkKind(out map[string]interface{}, target Target) (warnings []string, err error) {
	_, kind := judge.KindOf(out)
	if kind == "" {
		return nil, nil
	}
	errs, warnings := judge.CheckKind(out, target.Cluster, kind)
	if len(errs) > 0 {
		return warnings, refusal(kind, out, target, errs)
	}
	return warnings, nil
}

// deviceClassFor is the DeviceClass that stands in for the ResourceClass
// class on a 1.31+ target: of the same name, which the migrated requests
// name, selecting the class driver's devices that pass the filter of its
// 1.30 parameters, as the 1.30 scheduler applied it to every claim.
func deviceClassFor(class map[string]interface{}, target Target, opts Options) (map[string]interface{}, changes) {
	to := target.Version
	var r changes
	driver, _ := class["driverName"].(string)
	meta := api.DeepCopyJSON(api.Metadata(class)) // not nil: migrateParameters passes named classes only
	selectors := []interface{}{cel("device.driver == " + strconv.Quote(driver))}
	spec := map[string]interface{}{"selectors": selectors}
	out := map[string]interface{}{
		"apiVersion": api.UpstreamGroup + "/" + to,
		"kind":       api.KindDeviceClass,
		"metadata":   meta,
		"spec":       spec,
	}
	dropServerSet(meta, opts, &r)
	dropAnnotations(out, api.Annotations(out), to, nil, &r)
	filter := ""
	if class["apiVersion"] == api.UpstreamGroup+"/"+api.V1alpha2 && class["structuredParameters"] == true {
		if filter = classFilters(opts.Parameters, class, &r)[driver]; filter != "" {
			spec["selectors"] = append(selectors, cel(filter))
		}
	}
	if nodes, ok := class["suitableNodes"]; ok {
		if to == api.V1alpha3 { // 1.31's classic DRA still has it
			spec["suitableNodes"] = api.DeepCopyJSONValue(nodes)
		} else {
			r.Lost = append(r.Lost, fmt.Sprintf("suitableNodes: a field that a %s DeviceClass does not have (Kubernetes %s has no classic DRA)", to, target.Releases))
		}
	}
	if _, ok := class["suitableNodes"]; ok && class["structuredParameters"] == true {
		// The 1.30 scheduler filtered every claim of the class by it;
		// 1.31+ reads it for classic DRA only.
		r.Warnings = append(r.Warnings, "suitableNodes: the 1.30 scheduler allocated this class's claims only on these nodes; a 1.31+ scheduler takes a structured claim's nodes from its devices' ResourceSlices alone, so the claims may get devices on other nodes (add a CEL selector on the devices' attributes to keep them apart)")
	}
	if ref, ok := class["parametersRef"].(map[string]interface{}); ok {
		what := "a driver's own class parameters, which no 1.31+ component reads"
		switch {
		case filter != "":
			what = fmt.Sprintf("the filter of its 1.30 ResourceClassParameters for driver %s is a selector of this class", driver)
		case class["structuredParameters"] == true:
			what = fmt.Sprintf("the filter of its 1.30 ResourceClassParameters for driver %s, if they have one and are in the input, is a selector of this class", driver)
		}
		r.Lost = append(r.Lost, fmt.Sprintf("parametersRef: %s %s: a DeviceClass has none (%s)",
			str(ref, "kind"), refOf(str(ref, "namespace"), str(ref, "name")), what))
	}
	from, _ := class["apiVersion"].(string)
	which := fmt.Sprintf("the devices of driver %q", driver)
	if filter != "" {
		which += " that pass the class's 1.30 filter"
	}
	r.Changed = append(r.Changed, fmt.Sprintf("%s %s -> %s/%s DeviceClass selecting %s (Kubernetes %s has no ResourceClass; the migrated claims name this class)",
		from, api.KindResourceClass, api.UpstreamGroup, to, which, target.Releases))
	if sp, _ := class["structuredParameters"].(bool); !sp {
		r.Warnings = append(r.Warnings, fmt.Sprintf("the class's claims were allocated by driver %s's control-plane controller (classic DRA): "+
			"a 1.31 claim keeps that only with spec.controller set and the DRAControlPlaneController feature gate; from 1.32 on the driver must publish ResourceSlices", driver))
	}
	return out, r
}
