package validation

import (
	"encoding/json"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
	sigsjson "sigs.k8s.io/json"
)

// decode turns a JSON tree into a typed object. With strict, fields the
// shape does not have are returned as errors (Forbidden "unknown field"),
// one per field, at the path where they occur; a value of the wrong JSON
// type is an error (err), not a finding.
func decode(obj map[string]interface{}, into interface{}, strict bool) (field.ErrorList, error) {
	data, err := json.Marshal(obj)
	if err != nil {
		return nil, fmt.Errorf("encoding object: %w", err)
	}
	if !strict {
		if err := sigsjson.UnmarshalCaseSensitivePreserveInts(data, into); err != nil {
			return nil, fmt.Errorf("decoding object: %w", err)
		}
		return nil, nil
	}
	strictErrs, err := sigsjson.UnmarshalStrict(data, into, sigsjson.DisallowUnknownFields)
	if err != nil {
		return nil, fmt.Errorf("decoding object: %w", err)
	}
	var unknown field.ErrorList
	for _, e := range strictErrs {
		msg := e.Error()
		if path, ok := strings.CutPrefix(msg, `unknown field "`); ok {
			unknown = append(unknown, field.Forbidden(field.NewPath(strings.TrimSuffix(path, `"`)), "unknown field"))
			continue
		}
		return nil, fmt.Errorf("decoding object: %s", msg)
	}
	return unknown, nil
}

// deepCopyJSON copies a JSON tree. Unlike runtime.DeepCopyJSON it accepts
// any Go number type, as Request allows.
func deepCopyJSON(obj map[string]interface{}) map[string]interface{} {
	if obj == nil {
		return nil
	}
	out := make(map[string]interface{}, len(obj))
	for k, v := range obj {
		out[k] = deepCopyValue(v)
	}
	return out
}

func deepCopyValue(v interface{}) interface{} {
	switch v := v.(type) {
	case map[string]interface{}:
		return deepCopyJSON(v)
	case []interface{}:
		out := make([]interface{}, len(v))
		for i := range v {
			out[i] = deepCopyValue(v[i])
		}
		return out
	default:
		// Scalars (json.Number, string, bool, nil and Go numbers) are values.
		return v
	}
}
