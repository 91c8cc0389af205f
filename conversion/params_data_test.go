package conversion

import (
	"encoding/json"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// referenceDataParameters is dataParameters as it was written with
// encoding/json.
func referenceDataParameters(data string) interface{} {
	dec := json.NewDecoder(strings.NewReader(data))
	dec.UseNumber()
	var v interface{}
	if err := dec.Decode(&v); err == nil {
		if m, ok := v.(map[string]interface{}); ok && m != nil {
			if _, err := dec.Token(); err == io.EOF {
				if len(data) <= maxNonCanonicalDataBytes {
					return m
				}
				if canonical, err := canonicalJSON(m); err == nil && string(canonical) == data {
					return m
				}
			}
		}
	}
	return map[string]interface{}{"apiVersion": HandleDataAPIVersion, "kind": HandleDataKind, "data": data}
}

// TestDataParametersMatchesEncodingJSON: handle data is read as
// encoding/json read it — objects, everything else wrapped, surrounding
// whitespace, trailing data, invalid UTF-8, numbers, the nesting limit and
// long non-canonical data.
func TestDataParametersMatchesEncodingJSON(t *testing.T) {
	nested := func(n int) string {
		return `{"a":` + strings.Repeat("[", n-1) + strings.Repeat("]", n-1) + `}`
	}
	long := `{"k": "` + strings.Repeat("x", maxNonCanonicalDataBytes) + `"}`
	for _, data := range []string{
		``, ` `, `null`, `{}`, ` {"a":1} `, "\t{\"a\":1}\n", `{"a":1} x`, `{"a":1}{"b":2}`, `{"a":1}]`,
		`[1,2]`, `"str"`, `42`, `true`, `{"a":1.50e+3,"b":-0,"c":[1,{"d":null}]}`, `{"a":"\ud800"}`,
		"{\"a\":\"\xff\"}", `{"a":"\u00e9<>&"}`, `{"a":1,"a":2}`, `{"a":}`, `{"a":1`, `{'a':1}`, `{"a":01}`,
		`{"devices":["gpu-0","gpu-1"],"sharing":"none"}`,
		nested(encodingJSONMaxDepth), nested(encodingJSONMaxDepth + 1),
		long, strings.ReplaceAll(long, " ", ""),
	} {
		want, got := referenceDataParameters(data), dataParameters(data)
		if !reflect.DeepEqual(want, got) { // cmp.Diff is too slow for the deepest inputs
			t.Errorf("dataParameters(%.60q) differs from encoding/json's reading (-want +got):\n%s", data, cmp.Diff(want, got))
		}
	}
}
