package conversion

import (
	"encoding/json"
	"maps"
	"strconv"

	"github.com/claimbridge/claimbridge/defaulting"
)

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
	exactCount           = defaulting.ExactCount
	waitForFirstConsumer = defaulting.WaitForFirstConsumer
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
// were any.
func withoutDefaults(name string, section interface{}, kind, version string) (interface{}, bool) {
	return onClaimSpec(name, section, kind, func(spec map[string]interface{}) (map[string]interface{}, bool) {
		switch version {
		case V1alpha1, V1alpha2:
			if spec["allocationMode"] != waitForFirstConsumer {
				return nil, false
			}
			out := shallowCopy(spec)
			delete(out, "allocationMode")
			return out, true
		case V1alpha3:
			return onFirstRequest(spec, func(req map[string]interface{}) (map[string]interface{}, bool) {
				if req["allocationMode"] != exactCount || !isOne(req["count"]) {
					return nil, false
				}
				out := shallowCopy(req)
				delete(out, "allocationMode")
				delete(out, "count")
				return out, true
			})
		}
		return nil, false
	})
}

// withStepDefaults returns section name of a kind object in version from,
// about to be mapped by the step from → to, with the defaults the step
// to → from writes added where they are missing (the section as this build
// would have mapped it back); section is not modified.
func withStepDefaults(name string, section interface{}, kind, from, to string) interface{} {
	if !writesDefaults(from, to) {
		return section
	}
	return withDefaults(name, section, kind, from)
}

// withDefaults returns section name of a kind object in version with the
// defaults a step into version writes added where they are missing: a
// v1alpha1/v1alpha2 spec's allocationMode, a v1alpha3 first request's mode
// and count when it has neither. section is not modified.
func withDefaults(name string, section interface{}, kind, version string) interface{} {
	out, _ := onClaimSpec(name, section, kind, func(spec map[string]interface{}) (map[string]interface{}, bool) {
		switch version {
		case V1alpha1, V1alpha2:
			if _, hasMode := spec["allocationMode"]; hasMode {
				return nil, false
			}
			out := shallowCopy(spec)
			out["allocationMode"] = waitForFirstConsumer
			return out, true
		case V1alpha3:
			return onFirstRequest(spec, func(req map[string]interface{}) (map[string]interface{}, bool) {
				_, hasMode := req["allocationMode"]
				if _, hasCount := req["count"]; hasMode || hasCount {
					return nil, false
				}
				out := shallowCopy(req)
				out["allocationMode"], out["count"] = exactCount, one
				return out, true
			})
		}
		return nil, false
	})
	return out
}

// withUpstreamDefaults returns section name of a kind object in version
// defaulted as the version's release defaulted what it stored (package
// defaulting: every v1alpha3 request's mode, and count for ExactCount; a
// v1alpha1/v1alpha2 spec's mode), copying what it changes; section is not
// modified.
func withUpstreamDefaults(name string, section interface{}, kind, version string) interface{} {
	if name != "spec" || isNull(section) {
		return section
	}
	obj := map[string]interface{}{"spec": section}
	ops := defaulting.Patch(obj, version, kind)
	if len(ops) == 0 {
		return section
	}
	for i, op := range ops {
		if n, ok := op.Value.(int64); ok {
			ops[i].Value = json.Number(strconv.FormatInt(n, 10)) // numbers as conversion decodes them
		}
	}
	obj["spec"] = deepCopy(section)
	if err := defaulting.Apply(obj, ops); err != nil {
		return section // cannot happen: the operations are of this object
	}
	return obj["spec"]
}

// onClaimSpec applies change to the claim spec of section name of a kind
// object (the spec of a claim, spec.spec of a template) and returns the
// section with the changed spec, or section itself and false when there is
// no claim spec (or it is null) or change changes nothing. Only the containers on the way
// are copied: section is not modified.
func onClaimSpec(name string, section interface{}, kind string, change func(map[string]interface{}) (map[string]interface{}, bool)) (interface{}, bool) {
	spec, wrap := claimSpecOf(name, section, kind)
	if spec == nil {
		return section, false
	}
	changed, ok := change(spec)
	if !ok {
		return section, false
	}
	return wrap(changed), true
}

// claimSpecOf is the claim spec in section name of a kind object (a
// template's inner spec), and the function that returns the section with
// another claim spec in its place (copying the template); nil when there is
// none (null stays null).
func claimSpecOf(name string, section interface{}, kind string) (map[string]interface{}, func(map[string]interface{}) interface{}) {
	outer, _ := section.(map[string]interface{})
	if name != "spec" || outer == nil {
		return nil, nil
	}
	if kind != KindTemplate {
		return outer, func(spec map[string]interface{}) interface{} { return spec }
	}
	spec, _ := outer["spec"].(map[string]interface{})
	if spec == nil {
		return nil, nil
	}
	return spec, func(spec map[string]interface{}) interface{} {
		out := shallowCopy(outer)
		out["spec"] = spec
		return out
	}
}

// onFirstRequest applies change to the first request of a v1alpha3 claim
// spec and returns the spec with it, copying the containers on the way;
// false when there is no request or change changes nothing.
func onFirstRequest(spec map[string]interface{}, change func(map[string]interface{}) (map[string]interface{}, bool)) (map[string]interface{}, bool) {
	devices, _ := spec["devices"].(map[string]interface{})
	requests, _ := devices["requests"].([]interface{})
	if len(requests) == 0 {
		return nil, false
	}
	first, _ := requests[0].(map[string]interface{})
	if first == nil {
		return nil, false
	}
	changed, ok := change(first)
	if !ok {
		return nil, false
	}
	devices = shallowCopy(devices)
	devices["requests"] = append([]interface{}{changed}, requests[1:]...)
	out := shallowCopy(spec)
	out["devices"] = devices
	return out, true
}

// shallowCopy returns a new map with m's entries (an empty one for nil).
func shallowCopy(m map[string]interface{}) map[string]interface{} {
	out := make(map[string]interface{}, len(m))
	maps.Copy(out, m)
	return out
}

// withoutGAStoredDefaults returns section name of a kind object in v1alpha3,
// mapped from a v1beta1 object, without what a 1.32+ apiserver writes into
// an object it stores that the object converted to it may have lacked, such
// that matches(the result) holds: the mode and count of requests that have
// exactly allocationMode ExactCount and count 1 (SetDefaults_ExactDeviceRequest;
// v1beta1's SetDefaults_DeviceRequest), and an allocation's empty devices (a
// struct without omitempty in the k8s.io/api types). It is tried only when
// the section does not match the restore data as it is (applySection), and
// matches is that data's fingerprint check. Which requests had the pair
// written out by their writer cannot be told from the stored object, so the
// pair is left out of every such request first, then out of each other
// set of them (up to gaDefaultsSearchLimit such requests; beyond, only all),
// and the first result that matches is returned: a fingerprint match is the
// section the restore data was made for. section is not modified; false
// when nothing matches.
func withoutGAStoredDefaults(name string, section interface{}, kind string, matches func(interface{}) bool) (interface{}, bool) {
	if name == "status" {
		status, _ := section.(map[string]interface{})
		alloc, _ := status["allocation"].(map[string]interface{})
		if devices, isMap := alloc["devices"].(map[string]interface{}); !isMap || devices == nil || len(devices) > 0 {
			return section, false
		}
		alloc = shallowCopy(alloc)
		delete(alloc, "devices")
		out := shallowCopy(status)
		out["allocation"] = alloc
		return out, matches(out)
	}
	spec, wrap := claimSpecOf(name, section, kind)
	devices, _ := spec["devices"].(map[string]interface{})
	requests, _ := devices["requests"].([]interface{})
	var candidates []int
	for i, r := range requests {
		if req, _ := r.(map[string]interface{}); req != nil && req["allocationMode"] == exactCount && isOne(req["count"]) {
			candidates = append(candidates, i)
		}
	}
	if len(candidates) == 0 {
		return section, false
	}
	try := func(strip func(bit int) bool) (interface{}, bool) {
		out := append([]interface{}(nil), requests...)
		for bit, i := range candidates {
			if strip(bit) {
				req := shallowCopy(requests[i].(map[string]interface{}))
				delete(req, "allocationMode")
				delete(req, "count")
				out[i] = req
			}
		}
		d := shallowCopy(devices)
		d["requests"] = out
		sp := shallowCopy(spec)
		sp["devices"] = d
		sec := wrap(sp)
		return sec, matches(sec)
	}
	if len(candidates) > gaDefaultsSearchLimit {
		return try(func(int) bool { return true })
	}
	for set := uint(1)<<len(candidates) - 1; set > 0; set-- {
		if sec, ok := try(func(bit int) bool { return set&(1<<bit) != 0 }); ok {
			return sec, true
		}
	}
	return section, false
}

// gaDefaultsSearchLimit is how many requests with the default mode and
// count withoutGAStoredDefaults tries every subset of (2^8 fingerprints at
// the most); a spec with more tries only leaving the pair out of all.
const gaDefaultsSearchLimit = 8
