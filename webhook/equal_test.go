package webhook

import (
	"encoding/json"
	"math"
	"reflect"
	"testing"
)

// TestDeepEqualMatchesReflect compares deepEqual with reflect.DeepEqual on
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
			if got, want := deepEqual(a, b), reflect.DeepEqual(a, b); got != want {
				t.Errorf("deepEqual(values[%d], values[%d]) = %v, reflect.DeepEqual says %v", i, j, got, want)
			}
		}
	}
}

func TestEqualExceptLabels(t *testing.T) {
	base := map[string]interface{}{"name": "a", "uid": "u", "labels": map[string]interface{}{"x": "1"}}
	for _, tc := range []struct {
		name string
		out  map[string]interface{}
		want bool
	}{
		{"same", map[string]interface{}{"name": "a", "uid": "u", "labels": map[string]interface{}{"x": "1"}}, true},
		{"labels and annotations differ", map[string]interface{}{"name": "a", "uid": "u", "annotations": map[string]interface{}{}}, true},
		{"name differs", map[string]interface{}{"name": "b", "uid": "u"}, false},
		{"field added", map[string]interface{}{"name": "a", "uid": "u", "finalizers": []interface{}{}}, false},
		{"field removed", map[string]interface{}{"name": "a"}, false},
		{"nil", nil, false},
	} {
		if got := equalExceptLabels(base, tc.out); got != tc.want {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
	if !equalExceptLabels(nil, map[string]interface{}{"labels": nil}) {
		t.Errorf("nil metadata against labels only: got false, want true")
	}
}
