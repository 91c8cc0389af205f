package conversion

// v1alpha1 (1.26) and v1alpha2 (1.27–1.30) share the spec and the status but
// for one field: the single opaque allocation.resourceHandle of v1alpha1
// became a list of per-driver allocation.resourceHandles.

// claimSpecV1V2Keys are the ResourceClaimSpec fields of v1alpha1 and v1alpha2.
var claimSpecV1V2Keys = []string{"resourceClassName", "parametersRef", "allocationMode"}

func specV1ToV2(in map[string]interface{}) map[string]interface{} {
	out := map[string]interface{}{}
	copyKeys(out, in, claimSpecV1V2Keys...)
	return out
}

func specV2ToV1(in map[string]interface{}) map[string]interface{} { return specV1ToV2(in) }

// statusCommonKeys are the ResourceClaimStatus fields that are identical in
// every version.
var statusCommonKeys = []string{"reservedFor", "deallocationRequested"}

// statusV1ToV2: resourceHandle + status.driverName become resourceHandles[0]
// = {driverName, data}; an empty handle means "no data" and leaves data out.
func statusV1ToV2(in, _ map[string]interface{}) map[string]interface{} {
	out := map[string]interface{}{}
	copyKeys(out, in, "driverName")
	copyKeys(out, in, statusCommonKeys...)
	if a, ok := in["allocation"]; ok && a == nil {
		out["allocation"] = nil // null: not allocated
	} else if ok {
		alloc := asMap(a)
		outAlloc := map[string]interface{}{}
		copyKeys(outAlloc, alloc, "availableOnNodes", "shareable")
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
		out["allocation"] = outAlloc
	}
	return out
}

// statusV2ToV1: the data of resourceHandles[0] becomes resourceHandle. Further
// handles, a handle driver that differs from status.driverName and structured
// data have no place in v1alpha1.
func statusV2ToV1(in, _ map[string]interface{}) map[string]interface{} {
	out := map[string]interface{}{}
	copyKeys(out, in, "driverName")
	copyKeys(out, in, statusCommonKeys...)
	if a, ok := in["allocation"]; ok && a == nil {
		out["allocation"] = nil // null: not allocated
	} else if ok {
		alloc := asMap(a)
		outAlloc := map[string]interface{}{}
		copyKeys(outAlloc, alloc, "availableOnNodes", "shareable")
		if handles := asSlice(alloc["resourceHandles"]); len(handles) > 0 {
			if data := asString(asMap(handles[0])["data"]); data != "" {
				outAlloc["resourceHandle"] = data
			}
		}
		out["allocation"] = outAlloc
	}
	return out
}
