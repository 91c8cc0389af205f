package conversion

import "slices"

// v1beta1 (1.32) and v1beta2 (1.33+) differ in one place: a v1beta1 device
// request keeps the fields of a request for one kind of device flat next to
// name and firstAvailable; v1beta2 moves them under request.exactly. Status
// and every other spec field are the same.

// exactRequestKeys are the v1beta1 DeviceRequest fields that v1beta2 holds
// in ExactDeviceRequest (request.exactly).
var exactRequestKeys = []string{"deviceClassName", "selectors", "allocationMode", "count", "adminAccess", "tolerations", "capacity"}

func specB1ToB2(in map[string]interface{}, _ *lossReport) map[string]interface{} {
	return mapRequests(in, requestB1ToB2)
}

func specB2ToB1(in map[string]interface{}, _ *lossReport) map[string]interface{} {
	return mapRequests(in, requestB2ToB1)
}

// mapRequests copies a claim spec, mapping each object in
// devices.requests with f.
func mapRequests(in map[string]interface{}, f func(map[string]interface{}) map[string]interface{}) map[string]interface{} {
	out := deepCopyMap(in)
	devices := asMap(out["devices"])
	requests := asSlice(devices["requests"])
	for i, r := range requests {
		if req, ok := r.(map[string]interface{}); ok && req != nil {
			requests[i] = f(req)
		}
	}
	return out
}

// requestB1ToB2: the flat fields of a request for one kind of device move
// under exactly; a request without any of them (firstAvailable, or only a
// name) has no exactly.
func requestB1ToB2(in map[string]interface{}) map[string]interface{} {
	out := map[string]interface{}{}
	exactly := map[string]interface{}{}
	for k, v := range in {
		if slices.Contains(exactRequestKeys, k) {
			exactly[k] = v
		} else {
			out[k] = v
		}
	}
	if len(exactly) > 0 {
		out["exactly"] = exactly
	}
	return out
}

// requestB2ToB1: the fields of exactly become flat request fields. A key
// the request also has outside exactly (no v1beta2 field: an unknown field
// of the input) gives way to exactly's, which is what a 1.33+ consumer acts
// on; the restore annotation keeps it.
func requestB2ToB1(in map[string]interface{}) map[string]interface{} {
	out := map[string]interface{}{}
	for k, v := range in {
		if k != "exactly" {
			out[k] = v
		}
	}
	for k, v := range asMap(in["exactly"]) {
		out[k] = v
	}
	return out
}
