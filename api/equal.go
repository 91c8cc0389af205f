package api

import (
	"encoding/json"
	"reflect"
)

// Two equalities of JSON trees, for two questions.
//
// EqualJSON asks whether two trees are the same JSON: whether they encode
// alike. Conversion and defaulting compare trees they built in Go (int64,
// float64 numbers) with decoded ones (json.Number), so a number is equal to
// another of any type that encoding/json writes the same.
//
// DeepEqualJSON asks whether a tree is unchanged: it is reflect.DeepEqual,
// numbers equal only in one type. Validation and the webhook compare an
// update with the stored object, both decoded alike, and take any change of
// type as a change.

// EqualJSON reports whether a and b, JSON trees, are equal. Numbers are
// equal when encoding/json writes them the same: json.Number("1"), int64(1)
// and float64(1) are equal; json.Number("1.0") and json.Number("1") are not;
// float64 0 and -0 are; NaN equals nothing. Objects are equal with the same
// keys and equal members; a nil map or slice equals a nil or empty one of
// its type, not an empty one of the other, nor a nil interface (null).
// Values of other Go types are equal when reflect.DeepEqual says so or they
// encode alike.
//
// Objects compare nil as empty because conversion reads an absent object as
// a nil map; EqualJSONNulls keeps them apart.
func EqualJSON(a, b interface{}) bool { return equalJSON(a, b, false) }

// EqualJSONNulls is EqualJSON but for a nil map or slice, which equals only
// a nil one of its type: as JSON, null is not {} or []. Defaulting compares
// with it an object a JSON patch makes, where a nil map is written as null.
func EqualJSONNulls(a, b interface{}) bool { return equalJSON(a, b, true) }

func equalJSON(a, b interface{}, nulls bool) bool {
	switch a := a.(type) {
	case map[string]interface{}:
		b, ok := b.(map[string]interface{})
		if !ok || len(a) != len(b) || nulls && (a == nil) != (b == nil) {
			return false
		}
		if len(a) > 0 && reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer() {
			return true // the same map
		}
		for k, va := range a {
			vb, ok := b[k]
			if !ok || !equalJSON(va, vb, nulls) {
				return false
			}
		}
		return true
	case []interface{}:
		b, ok := b.([]interface{})
		if !ok || len(a) != len(b) || nulls && (a == nil) != (b == nil) {
			return false
		}
		if len(a) > 0 && &a[0] == &b[0] {
			return true // the same backing array
		}
		for i := range a {
			if !equalJSON(a[i], b[i], nulls) {
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
		if b, ok := b.(json.Number); ok && a == b {
			return true
		}
	case int64:
		if b, ok := b.(int64); ok {
			return a == b
		}
	case float64:
		if b, ok := b.(float64); ok {
			return a == b
		}
	}
	if reflect.DeepEqual(a, b) {
		return true
	}
	return sameText(a, b)
}

// sameText reports whether a and b, scalars, encode alike.
func sameText(a, b interface{}) bool {
	switch b.(type) {
	case string, bool, nil, map[string]interface{}, []interface{}:
		return false
	}
	var bufA, bufB [64]byte
	ja, errA := AppendJSON(bufA[:0], a)
	jb, errB := AppendJSON(bufB[:0], b)
	return errA == nil && errB == nil && string(ja) == string(jb)
}

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
