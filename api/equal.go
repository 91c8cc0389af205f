package api

import (
	"encoding/json"
	"reflect"
)

// DeepEqualJSON is reflect.DeepEqual for JSON trees, walking maps and slices
// itself (reflect.DeepEqual allocates for every value it visits).
func DeepEqualJSON(a, b interface{}) bool {
	switch a := a.(type) {
	case map[string]interface{}:
		b, ok := b.(map[string]interface{})
		if !ok || (a == nil) != (b == nil) || len(a) != len(b) {
			return false
		}
		if len(a) > 0 && reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer() {
			return true // the same map (prepared objects share the stored object's subtrees)
		}
		for k, va := range a {
			vb, ok := b[k]
			if !ok || !DeepEqualJSON(va, vb) {
				return false
			}
		}
		return true
	case []interface{}:
		b, ok := b.([]interface{})
		if !ok || (a == nil) != (b == nil) || len(a) != len(b) {
			return false
		}
		if len(a) > 0 && &a[0] == &b[0] {
			return true // the same backing array
		}
		for i := range a {
			if !DeepEqualJSON(a[i], b[i]) {
				return false
			}
		}
		return true
	case string:
		b, ok := b.(string)
		return ok && a == b
	case json.Number:
		b, ok := b.(json.Number)
		return ok && a == b
	case bool:
		b, ok := b.(bool)
		return ok && a == b
	case nil:
		return b == nil
	}
	return reflect.DeepEqual(a, b)
}
