package conversion

import (
	"encoding/json"
	"io"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// referenceDataParameters is dataParameters as it was written with
// encoding/json, numbers rewritten as the apiserver stores them.
func referenceDataParameters(data string) interface{} {
	dec := json.NewDecoder(strings.NewReader(data))
	dec.UseNumber()
	var v interface{}
	if err := dec.Decode(&v); err == nil {
		if m, ok := v.(map[string]interface{}); ok && m != nil && treeDepth(m) <= MaxHandleDataDepth && decodesAsTheApiserverDoes(m) {
			if _, err := dec.Token(); err == io.EOF {
				if len(data) <= maxNonCanonicalDataBytes {
					return apiserverNumbers(m)
				}
				if canonical, err := encodeJSON(apiserverNumbers(m)); err == nil && string(canonical) == data {
					return m
				}
			}
		}
	}
	return map[string]interface{}{"apiVersion": HandleDataAPIVersion, "kind": HandleDataKind, "data": data}
}

// decodesAsTheApiserverDoes reports whether the apiserver stores every
// number of v as written: an integer literal as an int64, any other as a
// float64 (1e400 is neither, and an integer beyond int64 becomes a float64 of
// another value: such data stays text).
func decodesAsTheApiserverDoes(v interface{}) bool {
	switch v := v.(type) {
	case map[string]interface{}:
		for _, e := range v {
			if !decodesAsTheApiserverDoes(e) {
				return false
			}
		}
	case []interface{}:
		for _, e := range v {
			if !decodesAsTheApiserverDoes(e) {
				return false
			}
		}
	case json.Number:
		if _, err := v.Float64(); err != nil {
			return false // beyond float64: the apiserver fails on it
		}
		if _, err := v.Int64(); err != nil && !strings.ContainsAny(string(v), ".eE") {
			return false // an integer beyond int64: stored as another value
		}
	}
	return true
}

// treeDepth is how deep arrays and objects nest in v (an object of scalars: 1).
func treeDepth(v interface{}) int {
	deepest := 0
	switch v := v.(type) {
	case map[string]interface{}:
		for _, e := range v {
			deepest = max(deepest, treeDepth(e))
		}
	case []interface{}:
		for _, e := range v {
			deepest = max(deepest, treeDepth(e))
		}
	default:
		return 0
	}
	return deepest + 1
}

// apiserverNumbers rewrites the numbers of the tree v as the apiserver
// stores them: an integer that fits as an int64, anything else as a float64,
// encoded by encoding/json; zero as 0.
func apiserverNumbers(v interface{}) interface{} {
	switch v := v.(type) {
	case map[string]interface{}:
		for k, e := range v {
			v[k] = apiserverNumbers(e)
		}
	case []interface{}:
		for i, e := range v {
			v[i] = apiserverNumbers(e)
		}
	case json.Number:
		if n, err := v.Int64(); err == nil {
			return json.Number(strconv.FormatInt(n, 10))
		}
		f, err := v.Float64()
		if err != nil {
			return v
		}
		if f == 0 {
			return json.Number("0")
		}
		data, _ := json.Marshal(f)
		return json.Number(data)
	}
	return v
}

// TestDataParametersMatchesEncodingJSON: handle data is read as
// encoding/json read it — objects, everything else wrapped, surrounding
// whitespace, trailing data, invalid UTF-8, numbers (beyond float64's
// range: wrapped, as the apiserver could not store them), nesting beyond
// MaxHandleDataDepth (wrapped) and long non-canonical data.
func TestDataParametersMatchesEncodingJSON(t *testing.T) {
	nested := func(n int) string {
		return `{"a":` + strings.Repeat("[", n-1) + strings.Repeat("]", n-1) + `}`
	}
	long := `{"k": "` + strings.Repeat("x", maxNonCanonicalDataBytes) + `"}`
	for _, data := range []string{
		``, ` `, `null`, `{}`, ` {"a":1} `, "\t{\"a\":1}\n", `{"a":1} x`, `{"a":1}{"b":2}`, `{"a":1}]`,
		`[1,2]`, `"str"`, `42`, `true`, `{"a":1.50e+3,"b":-0,"c":[1,{"d":null}]}`,
		`{"a":1.0,"b":[40.0,1e2],"c":{"d":2.50,"e":0.0000001,"f":-0.0},"g":12345678901234567890123,"h":1e400}`, `{"a":"\ud800"}`,
		`{"a":1.0,"b":[40.0,1e2],"g":12345678901234567890123}`, `{"a":[{"b":-1e-400}]}`, `{"a":[{"b":-1e400}]}`, `{"a":1.7976931348623157e308}`,
		`{"devMask":18446744073709551615}`, `{"a":9223372036854775807,"b":-9223372036854775808}`, `{"a":9223372036854775808}`, `{"a":1.8446744073709552e19}`,
		"{\"a\":\"\xff\"}", `{"a":"\u00e9<>&"}`, `{"a":1,"a":2}`, `{"a":}`, `{"a":1`, `{'a':1}`, `{"a":01}`,
		`{"devices":["gpu-0","gpu-1"],"sharing":"none"}`,
		nested(MaxHandleDataDepth), nested(MaxHandleDataDepth + 1), nested(10001),
		long, strings.ReplaceAll(long, " ", ""),
		`{"k":"` + strings.Repeat("x", maxNonCanonicalDataBytes) + `","n":1.0}`,
		`{"k":"` + strings.Repeat("x", maxNonCanonicalDataBytes) + `","n":1}`,
	} {
		want, got := referenceDataParameters(data), dataParameters(data)
		if !reflect.DeepEqual(want, got) { // cmp.Diff is too slow for the deepest inputs
			t.Errorf("dataParameters(%.60q) differs from encoding/json's reading (-want +got):\n%s", data, cmp.Diff(want, got))
		}
	}
}
