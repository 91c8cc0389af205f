package conversion

import (
	"encoding/json"
	"fmt"
	"maps"
	"strconv"
	"strings"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/api/v1alpha1"
	"github.com/claimbridge/claimbridge/api/v1alpha3"
)

// The defaults each release gives a claim or template before it stores it,
// as upstream's SetDefaults functions give them: a v1alpha1/v1alpha2 spec
// gets allocationMode WaitForFirstConsumer (1.26–1.30 schedulers refuse an
// empty mode), and a v1alpha3 request gets allocationMode ExactCount and,
// when ExactCount, count 1 (a 1.31 scheduler reads an empty mode as
// unsupported, and no count as zero devices). A CRD schema defaults only
// unconditionally, so the /default webhook patches them in (DefaultsPatch),
// and a conversion step writes them for its target release; the restore
// annotation removes them again on the way back.
const (
	exactCount           = string(v1alpha3.DeviceAllocationModeExactCount)
	waitForFirstConsumer = string(v1alpha1.AllocationModeWaitForFirstConsumer)
)

// PatchOperation is one RFC 6902 "add" (which replaces a member already
// there) or "remove".
type PatchOperation struct {
	Op    string      `json:"op"`
	Path  string      `json:"path"`
	Value interface{} `json:"value,omitempty"`
}

// DefaultsPatch returns the "add" operations that default obj, a claim or
// template of version (kind is api.KindClaim or api.KindTemplate), in the order of
// its fields; none when it is defaulted already. A spec, devices, request
// list or request that is absent or of the wrong JSON type is left alone:
// validation reports what is wrong with it.
func DefaultsPatch(obj map[string]interface{}, version, kind string) []PatchOperation {
	spec, path := api.ClaimSpec(obj, kind), "/"+strings.ReplaceAll(api.ClaimSpecPath(kind), ".", "/")
	if spec == nil {
		return nil
	}
	switch version {
	case api.V1alpha1, api.V1alpha2:
		if unset(spec["allocationMode"]) {
			return []PatchOperation{{Op: "add", Path: path + "/allocationMode", Value: waitForFirstConsumer}}
		}
	case api.V1alpha3:
		var ops []PatchOperation
		for i, r := range asSlice(asMap(spec["devices"])["requests"]) {
			request, _ := r.(map[string]interface{})
			if request == nil {
				continue
			}
			at := path + "/devices/requests/" + strconv.Itoa(i)
			mode := request["allocationMode"]
			if unset(mode) {
				ops = append(ops, PatchOperation{Op: "add", Path: at + "/allocationMode", Value: exactCount})
				mode = exactCount
			}
			if mode == exactCount && isZero(request["count"]) {
				ops = append(ops, PatchOperation{Op: "add", Path: at + "/count", Value: int64(1)})
			}
		}
		return ops
	}
	return nil
}

// ApplyPatch applies ops, as DefaultsPatch and the /default webhook return
// them, to obj in place: each adds (or replaces) or removes a member of an
// object that exists. It refuses an
// operation it cannot apply, naming its path, and then leaves obj partly
// patched.
func ApplyPatch(obj map[string]interface{}, ops []PatchOperation) error {
	for _, op := range ops {
		tokens := strings.Split(strings.TrimPrefix(op.Path, "/"), "/")
		var parent interface{} = obj
		for _, tok := range tokens[:len(tokens)-1] {
			switch p := parent.(type) {
			case map[string]interface{}:
				parent = p[tok]
			case []interface{}:
				i, err := strconv.Atoi(tok)
				if err != nil || i < 0 || i >= len(p) {
					return fmt.Errorf("%s: no element %s", op.Path, tok)
				}
				parent = p[i]
			default:
				return fmt.Errorf("%s: no object or list at %s", op.Path, tok)
			}
		}
		m, ok := parent.(map[string]interface{})
		key := tokens[len(tokens)-1]
		_, exists := m[key]
		switch {
		case ok && op.Op == "add":
			m[key] = op.Value
		case ok && op.Op == "remove" && exists:
			delete(m, key)
		default:
			return fmt.Errorf("%s: cannot %s there", op.Path, op.Op)
		}
	}
	return nil
}

// unset reports whether a string field is absent, null or "" (Go's zero
// value, which upstream's defaulting replaces).
func unset(v interface{}) bool {
	s, isString := v.(string)
	return v == nil || isString && s == ""
}

// isZero reports whether v, a decoded count, is absent or the number 0 in
// any form the decoders give.
func isZero(v interface{}) bool {
	switch n := v.(type) {
	case nil:
		return true
	case json.Number:
		f, err := n.Float64()
		return err == nil && f == 0
	case float64:
		return n == 0
	case int64:
		return n == 0
	case int:
		return n == 0
	}
	return false
}

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

// writesDefaults reports whether the step from → to writes defaults.
func writesDefaults(from, to string) bool {
	return from == api.V1alpha2 && to == api.V1alpha3 || from == api.V1alpha3 && to == api.V1alpha2
}

// withoutStepDefaults returns the section, mapped by the step from → to,
// without the defaults that step writes, and whether there were any. That is
// the section as older builds mapped it. v1alpha2 → v1alpha1 counts too: it
// copies the mode the step before wrote. section is not modified.
func withoutStepDefaults(name string, section interface{}, kind, from, to string) (interface{}, bool) {
	if !writesDefaults(from, to) && !(from == api.V1alpha2 && to == api.V1alpha1) {
		return section, false
	}
	return withoutDefaults(name, section, kind, to)
}

// withoutDefaults returns the section in version without the defaults a
// step into version writes, and whether there were any.
func withoutDefaults(name string, section interface{}, kind, version string) (interface{}, bool) {
	return onClaimSpec(name, section, kind, func(spec map[string]interface{}) (map[string]interface{}, bool) {
		switch version {
		case api.V1alpha1, api.V1alpha2:
			if spec["allocationMode"] != waitForFirstConsumer {
				return nil, false
			}
			return withoutKeys(spec, "allocationMode"), true
		case api.V1alpha3:
			return onFirstRequest(spec, func(req map[string]interface{}) (map[string]interface{}, bool) {
				if req["allocationMode"] != exactCount || !isOne(req["count"]) {
					return nil, false
				}
				return withoutKeys(req, "allocationMode", "count"), true
			})
		}
		return nil, false
	})
}

// withStepDefaults returns the section in version from, about to be mapped
// by the step from → to, with the defaults the step to → from writes added
// where missing: the section as this build would have mapped it back.
// section is not modified.
func withStepDefaults(name string, section interface{}, kind, from, to string) interface{} {
	if !writesDefaults(from, to) {
		return section
	}
	out, _ := onClaimSpec(name, section, kind, func(spec map[string]interface{}) (map[string]interface{}, bool) {
		switch from {
		case api.V1alpha1, api.V1alpha2:
			if _, hasMode := spec["allocationMode"]; hasMode {
				return nil, false
			}
			out := maps.Clone(spec)
			out["allocationMode"] = waitForFirstConsumer
			return out, true
		case api.V1alpha3:
			return onFirstRequest(spec, func(req map[string]interface{}) (map[string]interface{}, bool) {
				_, hasMode := req["allocationMode"]
				if _, hasCount := req["count"]; hasMode || hasCount {
					return nil, false
				}
				out := maps.Clone(req)
				out["allocationMode"], out["count"] = exactCount, one
				return out, true
			})
		}
		return nil, false
	})
	return out
}

// withUpstreamDefaults returns the section defaulted as version's release
// defaults what it stores (DefaultsPatch). section is not modified.
func withUpstreamDefaults(name string, section interface{}, kind, version string) interface{} {
	if name != "spec" || isNull(section) {
		return section
	}
	obj := map[string]interface{}{"spec": section}
	ops := DefaultsPatch(obj, version, kind)
	if len(ops) == 0 {
		return section
	}
	for i, op := range ops {
		if n, ok := op.Value.(int64); ok {
			ops[i].Value = json.Number(strconv.FormatInt(n, 10))
		}
	}
	obj["spec"] = api.DeepCopyJSONValue(section)
	if err := ApplyPatch(obj, ops); err != nil {
		return section // cannot happen: the operations are of this object
	}
	return obj["spec"]
}

// onClaimSpec applies change to the claim spec in the section (a template's
// spec.spec) and returns the section with the result. It returns section and
// false when there is no claim spec or change changes nothing. section is
// not modified.
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

// claimSpecOf returns the claim spec in the section, and a function that
// returns a copy of the section with another claim spec; nil when there is
// none.
func claimSpecOf(name string, section interface{}, kind string) (map[string]interface{}, func(map[string]interface{}) interface{}) {
	outer, _ := section.(map[string]interface{})
	if name != "spec" || outer == nil {
		return nil, nil
	}
	if kind != api.KindTemplate {
		return outer, func(spec map[string]interface{}) interface{} { return spec }
	}
	spec, _ := outer["spec"].(map[string]interface{})
	if spec == nil {
		return nil, nil
	}
	return spec, func(spec map[string]interface{}) interface{} {
		out := maps.Clone(outer)
		out["spec"] = spec
		return out
	}
}

// onFirstRequest is onClaimSpec for the first request of a v1alpha3 spec.
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
	devices = maps.Clone(devices)
	devices["requests"] = append([]interface{}{changed}, requests[1:]...)
	out := maps.Clone(spec)
	out["devices"] = devices
	return out, true
}

// withoutGAStoredDefaults returns the v1alpha3 section, mapped from
// v1beta1, without what a 1.32+ apiserver adds when it stores an object, so
// that matches (the restore data's fingerprint check) holds. The apiserver
// adds allocationMode ExactCount with count 1 to requests, and an empty
// allocation.devices. The stored object does not tell which requests had
// the pair from their writer, so it tries each subset of them, all first,
// and returns the first that matches. section is not modified; false when
// nothing matches.
func withoutGAStoredDefaults(name string, section interface{}, kind string, matches func(interface{}) bool) (interface{}, bool) {
	if name == "status" {
		status, _ := section.(map[string]interface{})
		alloc, _ := status["allocation"].(map[string]interface{})
		if devices, isMap := alloc["devices"].(map[string]interface{}); !isMap || devices == nil || len(devices) > 0 {
			return section, false
		}
		out := maps.Clone(status)
		out["allocation"] = withoutKeys(alloc, "devices")
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
				out[i] = withoutKeys(requests[i].(map[string]interface{}), "allocationMode", "count")
			}
		}
		d := maps.Clone(devices)
		d["requests"] = out
		sp := maps.Clone(spec)
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

// gaDefaultsSearchLimit bounds the requests withoutGAStoredDefaults tries
// every subset of; with more, it tries only all of them.
const gaDefaultsSearchLimit = 8
