package api

import (
	"encoding/json"
	"math"
	"reflect"
	"testing"
)

// TestDeepEqualMatchesReflect compares DeepEqualJSON with reflect.DeepEqual on
// pairs of JSON trees, including the cases where they could differ: nil
// against empty containers, numbers of different types, NaN.
func TestDeepEqualMatchesReflect(t *testing.T) {
	values := []interface{}{
		nil, "a", "b", json.Number("1"), json.Number("1.0"), int64(1), float64(1), math.NaN(), true, false,
		map[string]interface{}(nil), map[string]interface{}{}, map[string]interface{}{"a": "b"},
		map[string]interface{}{"a": "c"}, map[string]interface{}{"b": "b"}, map[string]interface{}{"a": nil},
		map[string]interface{}{"a": []interface{}{"x", json.Number("2")}},
		map[string]interface{}{"a": []interface{}{"x", json.Number("3")}},
		[]interface{}(nil), []interface{}{}, []interface{}{"a"}, []interface{}{"a", "b"}, []interface{}{nil},
		[]interface{}{map[string]interface{}{"k": true}}, []interface{}{map[string]interface{}{"k": false}},
		[]string{"a"},
	}
	for i, a := range values {
		for j, b := range values {
			if got, want := DeepEqualJSON(a, b), reflect.DeepEqual(a, b); got != want {
				t.Errorf("DeepEqualJSON(values[%d], values[%d]) = %v, reflect.DeepEqual says %v", i, j, got, want)
			}
		}
	}
}
