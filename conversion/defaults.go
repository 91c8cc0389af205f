package conversion

import "encoding/json"

// A step writes the fields its target's consumers need that the source
// version has no place for, as the target release's defaulting would have
// written them: a v1alpha3 request built from a resource class asks for
// allocationMode ExactCount and count 1 (1.31's SetDefaults_DeviceRequest;
// its scheduler reads an empty mode as an unsupported one, and ExactCount
// without a count as a request for no device), and a claim shown in
// v1alpha2 or v1alpha1 has allocationMode WaitForFirstConsumer
// (SetDefaults_ResourceClaimSpec of 1.26–1.30, whose schedulers refuse an
// empty mode; it is also what the CRD defaults on a write through those
// versions, so that a view that lacked it would change on every write, and
// the CRD's rules would judge the spec again). Like every mapped field, a
// default the original lacked is removed again by the restore annotation on
// the way back.
const (
	exactCount           = "ExactCount"
	waitForFirstConsumer = "WaitForFirstConsumer"
)

// one is the JSON number 1 as conversion decodes numbers.
var one = json.Number("1")

// isOne reports whether v is the JSON number 1 (as decoded or typed).
func isOne(v interface{}) bool {
	switch n := v.(type) {
	case json.Number:
		return n == one
	case float64, int64, int:
		return printsAs(n, 1)
	}
	return false
}

// writesDefaults reports whether the step from → to writes defaults for its
// target (the steps between v1alpha2 and v1alpha3).
func writesDefaults(from, to string) bool {
	return from == V1alpha2 && to == V1alpha3 || from == V1alpha3 && to == V1alpha2
}

// withoutStepDefaults returns section name of a kind object, mapped by the
// step from → to, without the defaults that step writes, and whether there
// were any: the section as builds before those defaults mapped it, whose
// restore patches carry its fingerprint. The step v1alpha2 → v1alpha1 counts
// too: it copies the mode the step before wrote. section is not modified.
func withoutStepDefaults(name string, section interface{}, kind, from, to string) (interface{}, bool) {
	if !writesDefaults(from, to) && !(from == V1alpha2 && to == V1alpha1) {
		return section, false
	}
	return withoutDefaults(name, section, kind, to)
}

// withoutDefaults returns section name of a kind object in version without
// the defaults a step into version writes (see above), and whether there
// were any. It copies only the containers on the way to a removed field.
func withoutDefaults(name string, section interface{}, kind, version string) (interface{}, bool) {
	if name != "spec" {
		return section, false
	}
	if kind == KindTemplate {
		tmpl, ok := section.(map[string]interface{})
		if !ok {
			return section, false
		}
		spec, changed := claimSpecWithoutDefaults(tmpl["spec"], version)
		if !changed {
			return section, false
		}
		out := shallowCopy(tmpl)
		out["spec"] = spec
		return out, true
	}
	return claimSpecWithoutDefaults(section, version)
}

// claimSpecWithoutDefaults is withoutStepDefaults for a claim spec.
func claimSpecWithoutDefaults(v interface{}, version string) (interface{}, bool) {
	spec, ok := v.(map[string]interface{})
	if !ok {
		return v, false
	}
	switch version {
	case V1alpha1, V1alpha2:
		if spec["allocationMode"] != waitForFirstConsumer {
			return v, false
		}
		out := shallowCopy(spec)
		delete(out, "allocationMode")
		return out, true
	case V1alpha3:
		devices, _ := spec["devices"].(map[string]interface{})
		requests, _ := devices["requests"].([]interface{})
		if len(requests) == 0 {
			return v, false
		}
		req, _ := requests[0].(map[string]interface{})
		if req["allocationMode"] != exactCount || !isOne(req["count"]) {
			return v, false
		}
		req = shallowCopy(req)
		delete(req, "allocationMode")
		delete(req, "count")
		reqs := append([]interface{}{req}, requests[1:]...)
		devices = shallowCopy(devices)
		devices["requests"] = reqs
		out := shallowCopy(spec)
		out["devices"] = devices
		return out, true
	}
	return v, false
}

// withStepDefaults returns section name of a kind object in version from,
// about to be mapped by the step from → to, with the defaults the step
// to → from writes added where they are missing (the section as this build
// would have mapped it back); section is not modified.
func withStepDefaults(name string, section interface{}, kind, from, to string) interface{} {
	if name != "spec" || !writesDefaults(from, to) {
		return section
	}
	if kind == KindTemplate {
		tmpl, ok := section.(map[string]interface{})
		if !ok {
			return section
		}
		spec, changed := claimSpecWithDefaults(tmpl["spec"], from)
		if !changed {
			return section
		}
		out := shallowCopy(tmpl)
		out["spec"] = spec
		return out
	}
	spec, _ := claimSpecWithDefaults(section, from)
	return spec
}

// claimSpecWithDefaults is withStepDefaults for a claim spec.
func claimSpecWithDefaults(v interface{}, version string) (interface{}, bool) {
	spec, ok := v.(map[string]interface{})
	if !ok {
		return v, false
	}
	switch version {
	case V1alpha1, V1alpha2:
		if _, hasMode := spec["allocationMode"]; hasMode {
			return v, false
		}
		out := shallowCopy(spec)
		out["allocationMode"] = waitForFirstConsumer
		return out, true
	case V1alpha3:
		devices, _ := spec["devices"].(map[string]interface{})
		requests, _ := devices["requests"].([]interface{})
		if len(requests) == 0 {
			return v, false
		}
		req, _ := requests[0].(map[string]interface{})
		_, hasMode := req["allocationMode"]
		if _, hasCount := req["count"]; req == nil || hasMode || hasCount {
			return v, false
		}
		req = shallowCopy(req)
		req["allocationMode"] = exactCount
		req["count"] = one
		reqs := append([]interface{}{req}, requests[1:]...)
		devices = shallowCopy(devices)
		devices["requests"] = reqs
		out := shallowCopy(spec)
		out["devices"] = devices
		return out, true
	}
	return v, false
}

// shallowCopy returns a new map with m's entries.
func shallowCopy(m map[string]interface{}) map[string]interface{} {
	out := make(map[string]interface{}, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
