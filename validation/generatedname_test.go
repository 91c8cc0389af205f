package validation

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestWithGeneratedName(t *testing.T) {
	long := strings.Repeat("a", 70)
	for name, tc := range map[string]struct {
		meta map[string]interface{}
		want interface{} // the name after, absent if nil
	}{
		"generate-name":           {meta: map[string]interface{}{"generateName": "gpu-"}, want: "gpu-xxxxx"},
		"empty-name-counts-unset": {meta: map[string]interface{}{"name": "", "generateName": "gpu-"}, want: "gpu-xxxxx"},
		"null-name-counts-unset":  {meta: map[string]interface{}{"name": nil, "generateName": "gpu-"}, want: "gpu-xxxxx"},
		"cut-to-58":               {meta: map[string]interface{}{"generateName": long}, want: long[:58] + "xxxxx"},
		"name-wins":               {meta: map[string]interface{}{"name": "a", "generateName": "gpu-"}, want: "a"},
		"no-generate-name":        {meta: map[string]interface{}{}, want: nil},
		"malformed-name-kept":     {meta: map[string]interface{}{"name": 5.0, "generateName": "gpu-"}, want: 5.0},
		"malformed-generate-name": {meta: map[string]interface{}{"generateName": 5.0}, want: nil},
	} {
		t.Run(name, func(t *testing.T) {
			obj := map[string]interface{}{"kind": "ResourceClaim", "metadata": tc.meta}
			before := deepCopyJSON(obj)
			out := WithGeneratedName(obj)
			if diff := cmp.Diff(before, obj); diff != "" {
				t.Errorf("argument modified (-before +after):\n%s", diff)
			}
			got := out["metadata"].(map[string]interface{})["name"]
			if got != tc.want {
				t.Errorf("name %v, want %v", got, tc.want)
			}
		})
	}
}
