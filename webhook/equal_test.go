package webhook

import (
	"testing"
)

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
