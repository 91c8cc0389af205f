package conversion

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// TestHandleDataLimits pins the documented limits of handle data that
// becomes a parameters object (docs/conversion.md §2.3 and the handle data
// wrapper of §2.6): JSON nesting up to 64 levels, and non-canonical JSON text up
// to 4 KiB (4096 bytes); one more level or one more byte is wrapped as
// ResourceHandle. TestDataParametersMatchesEncodingJSON derives its inputs
// from the constants, so it cannot tell when their values change.
func TestHandleDataLimits(t *testing.T) {
	nested := func(levels int) string { // an object, then levels-1 arrays
		return `{"a":` + strings.Repeat("[", levels-1) + strings.Repeat("]", levels-1) + `}`
	}
	// nonCanonical is a JSON object of exactly n bytes whose text is not
	// canonical (a space after the colon).
	nonCanonical := func(n int) string {
		return `{"k": "` + strings.Repeat("x", n-len(`{"k": ""}`)) + `"}`
	}
	wrapped := func(data string) interface{} {
		return map[string]interface{}{"apiVersion": HandleDataAPIVersion, "kind": HandleDataKind, "data": data}
	}
	object := func(data string) interface{} {
		var v interface{}
		if err := json.Unmarshal([]byte(data), &v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, c := range []struct {
		name, data string
		wrap       bool
	}{
		{"64 levels", nested(64), false},
		{"65 levels", nested(65), true},
		{"non-canonical, 4096 bytes", nonCanonical(4096), false},
		{"non-canonical, 4097 bytes", nonCanonical(4097), true},
	} {
		t.Run(c.name, func(t *testing.T) {
			want := object(c.data)
			if c.wrap {
				want = wrapped(c.data)
			}
			// reflect, not cmp: cmp.Diff is too slow for the nested inputs.
			if got := dataParameters(c.data); !reflect.DeepEqual(want, got) {
				t.Errorf("dataParameters(%.60q) = %.200v, want %.200v", c.data, got, want)
			}
		})
	}
}
