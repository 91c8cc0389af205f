package conversion

import (
	"slices"

	"github.com/claimbridge/claimbridge/api"
)

// A step maps each section forward and back and diffs the result against
// the original to build the restore annotation. For common plain sections
// the round trip is known to be exact, so the step skips it. The predicates
// below are conservative: anything they do not recognise makes them answer
// false. TestInvertiblePredicates checks that the full path records nothing
// whenever one answers true.

// sectionInvertible holds a direction's predicates: whether mapping a
// section forward and back gives it unchanged.
type sectionInvertible struct {
	spec   func(in map[string]interface{}) bool
	status func(in map[string]interface{}) bool
}

var invertibles = map[[2]string]sectionInvertible{
	{api.V1alpha1, api.V1alpha2}: {spec: specV1V2Invertible, status: statusV1ToV2Invertible},
	{api.V1alpha2, api.V1alpha1}: {spec: specV1V2Invertible, status: statusV2ToV1Invertible},
	{api.V1alpha2, api.V1alpha3}: {spec: specV2ToV3Invertible, status: statusUnallocatedInvertible},
	{api.V1alpha3, api.V1alpha2}: {spec: specV3ToV2Invertible, status: statusUnallocatedInvertible},
	{api.V1beta2, api.V1}:        {spec: isObject, status: isObject},
	{api.V1, api.V1beta2}:        {spec: isObject, status: isObject},
}

// exactInverse reports whether the step from → to may skip mapping the
// section back: restoreTo has nothing to apply, and the direction's
// predicate holds.
func exactInverse(obj map[string]interface{}, kind, name, from, to string, restoreTo *restore) bool {
	if restoreTo != nil && !restoreTo.empty() {
		return false
	}
	inv, ok := invertibles[[2]string{from, to}]
	if !ok {
		return false
	}
	v, present := obj[name]
	if !present {
		return true
	}
	in, isMap := v.(map[string]interface{})
	if !isMap || in == nil {
		return false
	}
	switch {
	case name == "status":
		return kind == api.KindClaim && inv.status(in)
	case kind == api.KindTemplate:
		// metadata is copied as it is.
		if !onlyKeys(in, "metadata", "spec") {
			return false
		}
		sv, ok := in["spec"]
		if !ok {
			return true
		}
		spec, isMap := sv.(map[string]interface{})
		return isMap && spec != nil && inv.spec(spec)
	default:
		return kind == api.KindClaim && inv.spec(in)
	}
}

func isObject(in map[string]interface{}) bool { return in != nil }

// onlyKeys reports whether every key of m is one of keys.
func onlyKeys(m map[string]interface{}, keys ...string) bool {
	for k := range m {
		if !slices.Contains(keys, k) {
			return false
		}
	}
	return true
}

// isString reports whether v is a string (and, if nonEmpty, not "").
func isString(v interface{}, nonEmpty bool) bool {
	s, ok := v.(string)
	return ok && (!nonEmpty || s != "")
}

// specV1V2Invertible: both versions have the same spec fields.
func specV1V2Invertible(in map[string]interface{}) bool {
	return onlyKeys(in, claimSpecV1V2Keys...)
}

// specV2ToV3Invertible: a spec with mode WaitForFirstConsumer and at most a
// class comes back. parametersRef and other modes are lost, and a missing
// mode comes back.
func specV2ToV3Invertible(in map[string]interface{}) bool {
	if !onlyKeys(in, "resourceClassName", "allocationMode") || in["allocationMode"] != waitForFirstConsumer {
		return false
	}
	class, ok := in["resourceClassName"]
	return !ok || isString(class, false)
}

// specV3ToV2Invertible: an empty spec, or the one request specV2ToV3
// builds, comes back.
func specV3ToV2Invertible(in map[string]interface{}) bool {
	if len(in) != 1 {
		return len(in) == 0
	}
	devices, ok := in["devices"].(map[string]interface{})
	if !ok || len(devices) != 1 {
		return false
	}
	requests, ok := devices["requests"].([]interface{})
	if !ok || len(requests) != 1 {
		return false
	}
	req, ok := requests[0].(map[string]interface{})
	return ok && len(req) == 4 && req["name"] == DefaultRequestName && isString(req["deviceClassName"], false) &&
		req["allocationMode"] == exactCount && isOne(req["count"])
}

// statusUnallocatedInvertible: the common fields and a null or absent
// allocation map as they are.
func statusUnallocatedInvertible(in map[string]interface{}) bool {
	if !onlyKeys(in, "reservedFor", "deallocationRequested", "allocation") {
		return false
	}
	a, ok := in["allocation"]
	return !ok || a == nil
}

// classicStatus checks what both classic status predicates require: only
// v1alpha1/v1alpha2 status fields, a string driverName, and an allocation
// with only availableOnNodes, shareable and handleKey. When decided, answer
// is the result; otherwise alloc is the allocation.
func classicStatus(in map[string]interface{}, handleKey string) (driver interface{}, alloc map[string]interface{}, decided, answer bool) {
	if !onlyKeys(in, "driverName", "reservedFor", "deallocationRequested", "allocation") {
		return nil, nil, true, false
	}
	driver, hasDriver := in["driverName"]
	if hasDriver && !isString(driver, false) {
		return nil, nil, true, false
	}
	a, ok := in["allocation"]
	if !ok || a == nil {
		return driver, nil, true, true
	}
	alloc, isMap := a.(map[string]interface{})
	if !isMap || alloc == nil || !onlyKeys(alloc, "availableOnNodes", "shareable", handleKey) {
		return driver, nil, true, false
	}
	return driver, alloc, false, false
}

// statusV1ToV2Invertible: resourceHandle and driverName become one handle,
// which comes back unless it is empty or has no driver.
func statusV1ToV2Invertible(in map[string]interface{}) bool {
	driver, alloc, decided, answer := classicStatus(in, "resourceHandle")
	if decided {
		return answer
	}
	if h, ok := alloc["resourceHandle"]; ok && !isString(h, true) {
		return false
	}
	return isString(driver, true) || alloc["resourceHandle"] != nil
}

// statusV2ToV1Invertible: one handle of status.driverName with at most
// non-empty data comes back; no handle comes back only without a driver.
func statusV2ToV1Invertible(in map[string]interface{}) bool {
	driver, alloc, decided, answer := classicStatus(in, "resourceHandles")
	if decided {
		return answer
	}
	hv, ok := alloc["resourceHandles"]
	if !ok {
		return !isString(driver, true)
	}
	handles, isSlice := hv.([]interface{})
	if !isSlice || len(handles) != 1 {
		return false
	}
	handle, isMap := handles[0].(map[string]interface{})
	if !isMap || handle == nil || !onlyKeys(handle, "driverName", "data") {
		return false
	}
	if d, ok := handle["data"]; ok && !isString(d, true) {
		return false
	}
	if isString(driver, true) {
		return handle["driverName"] == driver
	}
	_, named := handle["driverName"]
	return !named && handle["data"] != nil
}
