package conversion

// v1alpha3 (1.31) and v1beta1 (1.32) share the structured-parameters model;
// v1beta1 drops classic DRA (spec.controller, status.allocation.controller,
// status.deallocationRequested) and adds fields the 1.31 shape cannot hold
// (firstAvailable, tolerations, capacity, distinctAttribute, status.devices,
// result adminAccess, shareID, bindingConditions, allocationTimestamp …).
// Both directions keep exactly the fields of v1alpha3 that v1beta1 has too;
// everything else travels in the restore annotation.

var (
	requestV3Keys       = []string{"name", "deviceClassName", "selectors", "allocationMode", "count", "adminAccess"}
	constraintV3Keys    = []string{"requests", "matchAttribute"}
	claimConfigV3Keys   = []string{"requests", "opaque"}
	resultV3Keys        = []string{"request", "driver", "pool", "device"}
	allocConfigV3Keys   = []string{"source", "requests", "opaque"}
	allocationV3B1Keys  = []string{"nodeSelector"}
	deviceClaimSections = map[string][]string{
		"requests":    requestV3Keys,
		"constraints": constraintV3Keys,
		"config":      claimConfigV3Keys,
	}
)

// specV3B1 maps a claim spec either way: devices with the fields both
// versions have. controller (classic DRA) has no place in v1beta1: a 1.32+
// scheduler allocates only from ResourceSlices, so the claim would stay
// pending there.
func specV3B1(in map[string]interface{}, _ *lossReport) map[string]interface{} {
	out := map[string]interface{}{}
	d, ok := in["devices"]
	if !ok {
		return out
	}
	devices, isMap := d.(map[string]interface{})
	if !isMap || devices == nil {
		out["devices"] = deepCopy(d)
		return out
	}
	outDevices := map[string]interface{}{}
	for section, keys := range deviceClaimSections {
		if v, ok := devices[section]; ok {
			outDevices[section] = pickEach(v, keys...)
		}
	}
	// Nor the fields of a selector, its CEL expression or opaque
	// configuration that are not both versions': they travel in the restore
	// annotation, as unknown fields elsewhere in a request do.
	for _, r := range asSlice(outDevices["requests"]) {
		if req := asMap(r); req != nil {
			if sel, ok := req["selectors"]; ok {
				req["selectors"] = pickSelectors(sel)
			}
		}
	}
	pickOpaque(outDevices["config"])
	out["devices"] = outDevices
	return out
}

// pickSelectors keeps of each device selector its cel, and of that its
// expression: all that v1alpha3 and v1beta1 (and later) have.
func pickSelectors(v interface{}) interface{} {
	out := pickEach(v, "cel")
	for _, s := range asSlice(out) {
		if sel := asMap(s); sel != nil {
			if cel, ok := sel["cel"]; ok {
				sel["cel"] = pick(cel, "expression")
			}
		}
	}
	return out
}

// pickOpaque keeps of the opaque configuration of each entry of config (a
// copy) its driver and parameters: all that v1alpha3 and v1beta1 (and
// later) have.
func pickOpaque(config interface{}) {
	for _, c := range asSlice(config) {
		if entry := asMap(c); entry != nil {
			if op, ok := entry["opaque"]; ok {
				entry["opaque"] = pick(op, "driver", "parameters")
			}
		}
	}
}

// statusV3ToB1: results and configuration keep their fields; every result
// gets adminAccess from its request, because a 1.32+ scheduler and kubelet
// treat a result without adminAccess as "not admin" (the 1.31 result had no
// such field and meant the request's value). allocation.controller and
// deallocationRequested have no place in v1beta1.
func statusV3ToB1(in, targetSpec map[string]interface{}, _ *lossReport) map[string]interface{} {
	out := statusV3B1(in)
	admin := adminRequests(targetSpec)
	for _, r := range asSlice(asMap(asMap(asMap(out["allocation"])["devices"]))["results"]) {
		if result := asMap(r); result != nil && admin[asString(result["request"])] {
			result["adminAccess"] = true
		}
	}
	return out
}

// statusB1ToV3: result adminAccess, tolerations, shareID, binding
// conditions, consumed capacity, allocationTimestamp and status.devices have
// no place in v1alpha3.
func statusB1ToV3(in, _ map[string]interface{}, _ *lossReport) map[string]interface{} {
	return statusV3B1(in)
}

// statusV3B1 keeps the status fields both versions have.
func statusV3B1(in map[string]interface{}) map[string]interface{} {
	out := map[string]interface{}{}
	copyKeys(out, in, "reservedFor")
	a, ok := in["allocation"]
	if !ok {
		return out
	}
	alloc, isMap := a.(map[string]interface{})
	if !isMap || alloc == nil {
		out["allocation"] = deepCopy(a) // null: not allocated
		return out
	}
	outAlloc := map[string]interface{}{}
	copyKeys(outAlloc, alloc, allocationV3B1Keys...)
	if d, ok := alloc["devices"]; ok {
		devices, isMap := d.(map[string]interface{})
		if !isMap || devices == nil {
			outAlloc["devices"] = deepCopy(d)
		} else {
			outDevices := map[string]interface{}{}
			if v, ok := devices["results"]; ok {
				outDevices["results"] = pickEach(v, resultV3Keys...)
			}
			if v, ok := devices["config"]; ok {
				outDevices["config"] = pickEach(v, allocConfigV3Keys...)
				pickOpaque(outDevices["config"])
			}
			outAlloc["devices"] = outDevices
		}
	}
	out["allocation"] = outAlloc
	return out
}

// adminRequests returns the names of the requests of a v1alpha3 or v1beta1
// spec that ask for admin access.
func adminRequests(spec map[string]interface{}) map[string]bool {
	admin := map[string]bool{}
	for _, r := range asSlice(asMap(spec["devices"])["requests"]) {
		if req := asMap(r); req["adminAccess"] == true {
			admin[asString(req["name"])] = true
		}
	}
	return admin
}
