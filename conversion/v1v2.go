package conversion

import "fmt"

// v1alpha1 (1.26) and v1alpha2 (1.27–1.30) share the spec and the status but
// for one field: the single opaque allocation.resourceHandle of v1alpha1
// became a list of per-driver allocation.resourceHandles.

// claimSpecV1V2Keys are the ResourceClaimSpec fields of v1alpha1 and v1alpha2.
var claimSpecV1V2Keys = []string{"resourceClassName", "parametersRef", "allocationMode"}

// specV1V2 maps the spec both ways.
func specV1V2(in map[string]interface{}, r *lossReport) map[string]interface{} {
	out := map[string]interface{}{}
	r.copyKeys(out, in, claimSpecV1V2Keys...)
	return out
}

// statusCommonKeys are the ResourceClaimStatus fields that are identical in
// every version.
var statusCommonKeys = []string{"reservedFor", "deallocationRequested"}

// startStatus begins a status mapping between the alpha versions: out holds
// the version-neutral fields, and an absent or null allocation as it was
// (allocated false: nothing more to map); otherwise alloc is the allocation
// to map.
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
// share driverName and an allocation's availableOnNodes and shareable:
// outAlloc, nil when not allocated, holds those and is out's allocation.
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

// statusV1ToV2: resourceHandle + status.driverName become resourceHandles[0]
// = {driverName, data}; an empty handle means "no data" and leaves data out.
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
// status.driverName, so resourceHandle is the data of the first handle whose
// driverName is status.driverName. Handles of other drivers (their plugins
// would get nothing from a 1.26 kubelet), further handles of that driver and
// structured data have no place in v1alpha1.
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
