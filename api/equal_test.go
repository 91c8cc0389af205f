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

// TestEqualJSON pins the number rule of EqualJSON and EqualJSONNulls (as
// encoding/json writes them) and how each takes nil and empty containers.
func TestEqualJSON(t *testing.T) {
	m := map[string]interface{}{"a": "b"}
	s := []interface{}{"a"}
	for _, tc := range []struct {
		name        string
		a, b        interface{}
		want, nulls bool
	}{
		{"same map", m, m, true, true},
		{"equal maps", map[string]interface{}{"a": json.Number("1"), "b": []interface{}{"x"}}, map[string]interface{}{"a": int64(1), "b": []interface{}{"x"}}, true, true},
		{"empty maps", map[string]interface{}{}, map[string]interface{}{}, true, true},
		{"nil maps", map[string]interface{}(nil), map[string]interface{}(nil), true, true},
		{"nil and empty map", map[string]interface{}(nil), map[string]interface{}{}, true, false},
		{"empty and nil map", map[string]interface{}{}, map[string]interface{}(nil), true, false},
		{"nil map and null", map[string]interface{}(nil), nil, false, false},
		{"null and nil map", nil, map[string]interface{}(nil), false, false},
		{"nil map and nil slice", map[string]interface{}(nil), []interface{}(nil), false, false},
		{"map with a further member", map[string]interface{}{"a": "x"}, map[string]interface{}{"a": "x", "b": "y"}, false, false},
		{"maps with other keys", map[string]interface{}{"a": "x"}, map[string]interface{}{"b": "x"}, false, false},
		{"maps with other values", map[string]interface{}{"a": "x"}, map[string]interface{}{"a": "y"}, false, false},
		{"member null and absent", map[string]interface{}{"a": nil}, map[string]interface{}{"b": nil}, false, false},
		{"map and array", map[string]interface{}{}, []interface{}{}, false, false},
		{"same array", s, s, true, true},
		{"equal arrays", []interface{}{"x", json.Number("2")}, []interface{}{"x", float64(2)}, true, true},
		{"nil and empty array", []interface{}(nil), []interface{}{}, true, false},
		{"empty and nil array", []interface{}{}, []interface{}(nil), true, false},
		{"nil array and null", []interface{}(nil), nil, false, false},
		{"array and a longer one", []interface{}{"x"}, []interface{}{"x", "y"}, false, false},
		{"arrays with another element", []interface{}{"x", "y"}, []interface{}{"x", "z"}, false, false},
		{"equal strings", "a", "a", true, true},
		{"strings", "a", "b", false, false},
		{"string and number", "1", json.Number("1"), false, false},
		{"booleans", true, false, false, false},
		{"boolean and string", true, "true", false, false},
		{"nulls", nil, nil, true, true},
		{"null and false", nil, false, false, false},
		{"equal numbers", json.Number("1"), json.Number("1"), true, true},
		{"numbers", json.Number("1"), json.Number("2"), false, false},
		{"numbers written differently", json.Number("1"), json.Number("1.0"), false, false},
		{"number and int64", json.Number("1"), int64(1), true, true},
		{"int64 and number", int64(1), json.Number("1"), true, true},
		{"number and float64", json.Number("2.5"), float64(2.5), true, true},
		{"number written otherwise and float64", json.Number("1.0"), float64(1), false, false},
		{"int64 and float64", int64(1), float64(1), true, true},
		{"int64 and another float64", int64(1), float64(1.5), false, false},
		{"int64s", int64(1), int64(2), false, false},
		{"float64 zeros", float64(0), math.Copysign(0, -1), true, true},
		{"int and int64", 1, int64(1), true, true},
		{"not a number", json.Number("x"), json.Number("y"), false, false},
		{"NaNs", math.NaN(), math.NaN(), false, false},
		{"NaN and a number", math.NaN(), json.Number("1"), false, false},
		{"other types", []string{"a"}, []string{"a"}, true, true},
		{"other type and an array written alike", []string{"a"}, []interface{}{"a"}, true, true},
		{"number and array", int64(1), []interface{}{int64(1)}, false, false},
	} {
		if got := EqualJSON(tc.a, tc.b); got != tc.want {
			t.Errorf("%s: EqualJSON = %v, want %v", tc.name, got, tc.want)
		}
		if got := EqualJSONNulls(tc.a, tc.b); got != tc.nulls {
			t.Errorf("%s: EqualJSONNulls = %v, want %v", tc.name, got, tc.nulls)
		}
	}
}
