package conversion

import "fmt"

// v1alpha1 and v1alpha2 differ in one field: v1alpha1's single
// allocation.resourceHandle became a list, allocation.resourceHandles.

// claimSpecV1V2Keys are the ResourceClaimSpec fields of v1alpha1 and v1alpha2.
var claimSpecV1V2Keys = []string{"resourceClassName", "parametersRef", "allocationMode"}

// specV1V2 maps the spec both ways.
func specV1V2(in map[string]interface{}, r *lossReport) map[string]interface{} {
	out := map[string]interface{}{}
	r.copyKeys(out, in, claimSpecV1V2Keys...)
	return out
}

// statusCommonKeys are the status fields that are the same in every
// version.
var statusCommonKeys = []string{"reservedFor", "deallocationRequested"}

// startStatus begins a status mapping between the alpha versions: out holds
// the common fields, and a null allocation. When allocated, alloc is the
// allocation to map.
func startStatus(in map[string]interface{}, r *lossReport) (out, alloc map[string]interface{}, allocated bool) {
	out = map[string]interface{}{}
	r.copyKeys(out, in, statusCommonKeys...)
	a, ok := in["allocation"]
	if !ok || a == nil {
		if ok {
			out["allocation"] = nil // null: not allocated
		}
		return out, nil, false
	}
	return out, asMap(a), true
}

// startClassicStatus is startStatus for v1alpha1 and v1alpha2, which also
// share driverName, availableOnNodes and shareable. outAlloc is out's
// allocation, nil when not allocated.
func startClassicStatus(in map[string]interface{}, r *lossReport) (out, alloc, outAlloc map[string]interface{}) {
	out, alloc, allocated := startStatus(in, r)
	r.copyKeys(out, in, "driverName")
	if !allocated {
		return out, nil, nil
	}
	outAlloc = map[string]interface{}{}
	r.copyKeys(outAlloc, alloc, "availableOnNodes", "shareable")
	out["allocation"] = outAlloc
	return out, alloc, outAlloc
}

// statusV1ToV2: resourceHandle and status.driverName become
// resourceHandles[0]. An empty resourceHandle means no data.
func statusV1ToV2(in, _ map[string]interface{}, r *lossReport) map[string]interface{} {
	out, alloc, outAlloc := startClassicStatus(in, r)
	if outAlloc == nil {
		return out
	}
	handle := map[string]interface{}{}
	if driver := asString(in["driverName"]); driver != "" {
		handle["driverName"] = driver
	}
	if data := asString(alloc["resourceHandle"]); data != "" {
		handle["data"] = data
	}
	if len(handle) > 0 {
		outAlloc["resourceHandles"] = []interface{}{handle}
	}
	return out
}

// statusV2ToV1: a 1.26 kubelet hands resourceHandle to the plugin named
// status.driverName, so resourceHandle is the data of that driver's first
// handle. Other handles and structured data are lost.
func statusV2ToV1(in, _ map[string]interface{}, r *lossReport) map[string]interface{} {
	out, alloc, outAlloc := startClassicStatus(in, r)
	if outAlloc == nil {
		return out
	}
	driver := asString(in["driverName"])
	chosen := -1
	for i, h := range asSlice(alloc["resourceHandles"]) {
		handle := asMap(h)
		path := ""
		if r.reporting() {
			path = fmt.Sprintf("allocation.resourceHandles[%d]", i)
		}
		switch {
		case asString(handle["driverName"]) != driver:
			r.lose(path, "the handle of driver %q is not handed to any kubelet plugin by a 1.26 kubelet, which only calls %q", asString(handle["driverName"]), driver)
		case chosen >= 0:
			r.lose(path, "a 1.26 kubelet hands only one handle to %q; this further handle is kept in the restore annotation only", driver)
		default:
			chosen = i
			if data := asString(handle["data"]); data != "" {
				outAlloc["resourceHandle"] = data
			}
			if handle["structuredData"] != nil {
				r.lose(path+".structuredData", "structured parameters (1.30) do not exist in 1.26; the named resources are kept in the restore annotation only")
			}
		}
	}
	return out
}
