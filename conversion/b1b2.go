package conversion

import (
	"maps"
	"slices"

	"github.com/claimbridge/claimbridge/api"
)

// v1beta1 and v1beta2 differ in one place: v1beta2 moves the fields of a
// request for one kind of device under request.exactly.

// mapRequests is the spec mapping that copies a claim spec, mapping each
// request with f.
func mapRequests(f func(map[string]interface{}) map[string]interface{}) func(map[string]interface{}, *lossReport) map[string]interface{} {
	return func(in map[string]interface{}, _ *lossReport) map[string]interface{} {
		out := api.DeepCopyJSON(in)
		requests := asSlice(asMap(out["devices"])["requests"])
		for i, r := range requests {
			if req, ok := r.(map[string]interface{}); ok && req != nil {
				requests[i] = f(req)
			}
		}
		return out
	}
}

// requestB1ToB2 moves the api.ExactRequestFields under exactly. A request without
// any of them has no exactly.
func requestB1ToB2(in map[string]interface{}) map[string]interface{} {
	out := map[string]interface{}{}
	exactly := map[string]interface{}{}
	for k, v := range in {
		if slices.Contains(api.ExactRequestFields, k) {
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

// requestB2ToB1 moves the fields of exactly up into the request. On a
// clash with an unknown field, exactly's value wins, as it does for a 1.33+
// consumer; the restore annotation keeps the other.
func requestB2ToB1(in map[string]interface{}) map[string]interface{} {
	out := maps.Clone(in)
	delete(out, "exactly")
	maps.Copy(out, asMap(in["exactly"]))
	return out
}
