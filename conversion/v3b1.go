package conversion

import "github.com/claimbridge/claimbridge/api"

// v1beta1 drops v1alpha3's classic DRA fields and adds many of its own.
// Both directions keep exactly the fields both versions have.

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

// specV3B1 maps a claim spec either way.
func specV3B1(in map[string]interface{}, _ *lossReport) map[string]interface{} {
	out := map[string]interface{}{}
	d, ok := in["devices"]
	if !ok {
		return out
	}
	devices, isMap := d.(map[string]interface{})
	if !isMap || devices == nil {
		out["devices"] = api.DeepCopyJSONValue(d)
		return out
	}
	outDevices := map[string]interface{}{}
	for section, keys := range deviceClaimSections {
		if v, ok := devices[section]; ok {
			outDevices[section] = pickEach(v, keys...)
		}
	}
	mapIn(outDevices["requests"], "selectors", pickSelectors)
	pickOpaque(outDevices["config"])
	out["devices"] = outDevices
	return out
}

// pickSelectors keeps of each device selector only cel.expression.
func pickSelectors(v interface{}) interface{} {
	out := pickEach(v, "cel")
	mapIn(out, "cel", func(cel interface{}) interface{} { return pick(cel, "expression") })
	return out
}

// pickOpaque keeps, in place, only the driver and parameters of each
// entry's opaque configuration.
func pickOpaque(config interface{}) {
	mapIn(config, "opaque", func(op interface{}) interface{} { return pick(op, "driver", "parameters") })
}

// mapIn replaces, in place, the member key of each object of the array
// list, where it is present, by f of it.
func mapIn(list interface{}, key string, f func(interface{}) interface{}) {
	for _, e := range asSlice(list) {
		if m := asMap(e); m != nil {
			if v, ok := m[key]; ok {
				m[key] = f(v)
			}
		}
	}
}

// statusV3ToB1: every result gets adminAccess from its request. A 1.32+
// consumer reads a result without it as not admin; in 1.31 the request's
// value applied.
func statusV3ToB1(in, targetSpec map[string]interface{}, _ *lossReport) map[string]interface{} {
	out := statusV3B1(in, nil, nil)
	admin := adminRequests(targetSpec)
	for _, r := range asSlice(asMap(asMap(asMap(out["allocation"])["devices"]))["results"]) {
		if result := asMap(r); result != nil && admin[asString(result["request"])] {
			result["adminAccess"] = true
		}
	}
	return out
}

// statusV3B1 keeps the status fields both versions have: the mapping from
// v1beta1 to v1alpha3.
func statusV3B1(in, _ map[string]interface{}, _ *lossReport) map[string]interface{} {
	out := map[string]interface{}{}
	silentReport.copyKeys(out, in, "reservedFor")
	a, ok := in["allocation"]
	if !ok {
		return out
	}
	alloc, isMap := a.(map[string]interface{})
	if !isMap || alloc == nil {
		out["allocation"] = api.DeepCopyJSONValue(a) // null: not allocated
		return out
	}
	outAlloc := map[string]interface{}{}
	silentReport.copyKeys(outAlloc, alloc, allocationV3B1Keys...)
	if d, ok := alloc["devices"]; ok {
		devices, isMap := d.(map[string]interface{})
		if !isMap || devices == nil {
			outAlloc["devices"] = api.DeepCopyJSONValue(d)
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

// adminRequests returns the names of the requests that ask for admin
// access.
func adminRequests(spec map[string]interface{}) map[string]bool {
	admin := map[string]bool{}
	for _, r := range asSlice(asMap(spec["devices"])["requests"]) {
		if req := asMap(r); req["adminAccess"] == true {
			admin[asString(req["name"])] = true
		}
	}
	return admin
}
