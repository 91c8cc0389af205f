package api

import (
	"encoding/json"
	"reflect"
)

// EqualJSON reports whether a and b, JSON trees, are the same JSON. Numbers
// are equal when encoding/json writes them the same: json.Number("1"),
// int64(1) and float64(1) are equal (conversion and defaulting compare trees
// built in Go with decoded ones); json.Number("1.0") and json.Number("1")
// are not; float64 0 and -0 are; NaN equals nothing. A nil map or slice
// equals a nil or empty one of its type (conversion reads an absent object
// as a nil map), not a nil interface. Values of other Go types are equal
// when reflect.DeepEqual says so or they encode alike.
func EqualJSON(a, b interface{}) bool { return equalJSON(a, b, loose) }

// EqualJSONNulls is EqualJSON but for a nil map or slice, which equals only
// a nil one: as in a JSON patch, where it is written null, not {} or [].
func EqualJSONNulls(a, b interface{}) bool { return equalJSON(a, b, nulls) }

// DeepEqualJSON is reflect.DeepEqual for JSON trees, without its allocation
// for every value: as EqualJSONNulls, but numbers are equal only in one
// type. Validation and the webhook ask with it whether an update changes the
// stored object, both decoded alike, and take any change of type as one.
func DeepEqualJSON(a, b interface{}) bool { return equalJSON(a, b, exact) }

// equality is what equalJSON takes as equal.
type equality uint8

const (
	loose equality = iota // EqualJSON
	nulls                 // EqualJSONNulls
	exact                 // DeepEqualJSON
)

func equalJSON(a, b interface{}, mode equality) bool {
	switch a := a.(type) {
	case map[string]interface{}:
		b, ok := b.(map[string]interface{})
		if !ok || len(a) != len(b) || mode != loose && (a == nil) != (b == nil) {
			return false
		}
		if len(a) > 0 && reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer() {
			return true // the same map (prepared objects share the stored object's subtrees)
		}
		for k, va := range a {
			vb, ok := b[k]
			if !ok || !equalJSON(va, vb, mode) {
				return false
			}
		}
		return true
	case []interface{}:
		b, ok := b.([]interface{})
		if !ok || len(a) != len(b) || mode != loose && (a == nil) != (b == nil) {
			return false
		}
		if len(a) > 0 && &a[0] == &b[0] {
			return true // the same backing array
		}
		for i := range a {
			if !equalJSON(a[i], b[i], mode) {
				return false
			}
		}
		return true
	case string:
		b, ok := b.(string)
		return ok && a == b
	case bool:
		b, ok := b.(bool)
		return ok && a == b
	case nil:
		return b == nil
	case json.Number:
		if b, ok := b.(json.Number); ok || mode == exact {
			return ok && a == b // json.Number("1.0") is written as it is
		}
	case int64:
		if b, ok := b.(int64); ok || mode == exact {
			return ok && a == b
		}
	case float64:
		if b, ok := b.(float64); ok || mode == exact {
			return ok && a == b
		}
	}
	return reflect.DeepEqual(a, b) || mode != exact && sameText(a, b)
}

// sameText reports whether a and b encode alike.
func sameText(a, b interface{}) bool {
	switch a.(type) {
	case json.Number, int64, float64:
		switch b.(type) {
		case string, bool, nil, map[string]interface{}, []interface{}:
			return false // a number is written as none of these
		}
	}
	ja, errA := AppendJSON(nil, a)
	jb, errB := AppendJSON(nil, b)
	return errA == nil && errB == nil && string(ja) == string(jb)
}
