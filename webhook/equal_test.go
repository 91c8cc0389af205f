package webhook

import (
	"testing"
)

func TestEqualExcept(t *testing.T) {
	base := map[string]interface{}{"name": "a", "uid": "u", "labels": map[string]interface{}{"x": "1"}}
	for _, tc := range []struct {
		name                 string
		out                  map[string]interface{}
		want, wantWithLabels bool
	}{
		{"same", map[string]interface{}{"name": "a", "uid": "u", "labels": map[string]interface{}{"x": "1"}}, true, true},
		{"labels and annotations differ", map[string]interface{}{"name": "a", "uid": "u", "annotations": map[string]interface{}{}}, true, false},
		{"annotations differ", map[string]interface{}{"name": "a", "uid": "u", "labels": map[string]interface{}{"x": "1"}, "annotations": map[string]interface{}{}}, true, true},
		{"name differs", map[string]interface{}{"name": "b", "uid": "u"}, false, false},
		{"field added", map[string]interface{}{"name": "a", "uid": "u", "finalizers": []interface{}{}}, false, false},
		{"field removed", map[string]interface{}{"name": "a"}, false, false},
		{"nil", nil, false, false},
	} {
		if got := equalExcept(base, tc.out, false); got != tc.want {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
		if got := equalExcept(base, tc.out, true); got != tc.wantWithLabels {
			t.Errorf("%s with labels: got %v, want %v", tc.name, got, tc.wantWithLabels)
		}
	}
	if !equalExcept(nil, map[string]interface{}{"labels": nil}, false) {
		t.Errorf("nil metadata against labels only: got false, want true")
	}
	if equalExcept(nil, map[string]interface{}{"labels": nil}, true) {
		t.Errorf("nil metadata against labels only, with labels: got true, want false")
	}
	// A null member is not the same as none: renaming one is a change.
	if equalExcept(map[string]interface{}{"deletionTimestamp": nil}, map[string]interface{}{"deletionGracePeriodSeconds": nil}, false) {
		t.Errorf("null member renamed: got true, want false")
	}
}
