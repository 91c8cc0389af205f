// Package defaulting applies, as JSON Patch operations, the defaults of the
// release that served each version to a claim or template: what the /default
// webhook answers.
//
// A CRD schema defaults only unconditionally: it cannot give a count of 1 to
// ExactCount requests only. Without these defaults 1.31's allocator fails a
// request without a mode and allocates nothing for ExactCount without a
// count, and 1.26–1.30 schedulers fail a claim without a mode.
package defaulting

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/claimbridge/claimbridge/api"
)

// Operation is one RFC 6902 "add" (which replaces a member already there)
// or, from the webhook, "remove".
type Operation struct {
	Op    string      `json:"op"`
	Path  string      `json:"path"`
	Value interface{} `json:"value,omitempty"`
}

// The defaults.
const (
	// WaitForFirstConsumer is a v1alpha1/v1alpha2 claim's allocation mode
	// unless set (SetDefaults_ResourceClaimSpec of 1.26–1.30).
	WaitForFirstConsumer = "WaitForFirstConsumer"
	// ExactCount is a v1alpha3 request's allocation mode unless set, and
	// such a request asks for one device unless it says how many
	// (SetDefaults_DeviceRequest of 1.31).
	ExactCount = "ExactCount"
)

// Patch returns the operations that default obj, a claim or template of
// version (kind is api.KindClaim or api.KindTemplate), in the order of its
// fields; none when it is defaulted already. A spec, devices, request list
// or request that is absent or of the wrong JSON type is left alone:
// validation reports what is wrong with it.
func Patch(obj map[string]interface{}, version, kind string) []Operation {
	spec, _ := obj["spec"].(map[string]interface{})
	path := "/spec"
	if kind == api.KindTemplate {
		spec, _ = spec["spec"].(map[string]interface{})
		path = "/spec/spec"
	}
	if spec == nil {
		return nil
	}
	switch version {
	case api.V1alpha1, api.V1alpha2:
		if unset(spec["allocationMode"]) {
			return []Operation{{Op: "add", Path: path + "/allocationMode", Value: WaitForFirstConsumer}}
		}
	case api.V1alpha3:
		devices, _ := spec["devices"].(map[string]interface{})
		requests, _ := devices["requests"].([]interface{})
		var ops []Operation
		for i, r := range requests {
			request, _ := r.(map[string]interface{})
			if request == nil {
				continue
			}
			at := path + "/devices/requests/" + strconv.Itoa(i)
			mode := request["allocationMode"]
			if unset(mode) {
				ops = append(ops, Operation{Op: "add", Path: at + "/allocationMode", Value: ExactCount})
				mode = ExactCount
			}
			if mode == ExactCount && isZero(request["count"]) {
				ops = append(ops, Operation{Op: "add", Path: at + "/count", Value: int64(1)})
			}
		}
		return ops
	}
	return nil
}

// Apply applies ops, as Patch returns them, to obj in place: each adds (or
// replaces) a member of an object that exists. It refuses an operation it
// cannot apply, naming its path, and then leaves obj partly patched.
func Apply(obj map[string]interface{}, ops []Operation) error {
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
		if op.Op != "add" || !ok {
			return fmt.Errorf("%s: cannot %s there", op.Path, op.Op)
		}
		m[tokens[len(tokens)-1]] = op.Value
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
