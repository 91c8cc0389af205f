package validation

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/claimbridge/claimbridge/conversion"
)

// TestStatusFitsBoundHolds: statusFitsEveryVersion lets a v1alpha3 status
// write skip the conversions that would find an object unreadable in an
// older version, so whenever it says a status fits, the object must convert
// to every version. Each shape grows until the bound says no; the largest
// it says yes to is converted, with content that costs the older versions
// most: opaque data of quotes and backslashes (encoded again inside v1alpha2
// handle data), many small results (one restore operation each), a class
// config no older version holds.
func TestStatusFitsBoundHolds(t *testing.T) {
	requireConversion(t)
	claim := func(status string) map[string]interface{} {
		return obj(t, `{"apiVersion":"resource.claimbridge.dev/v1alpha3","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns",
			"annotations":{"a":"`+strings.Repeat("x", 4000)+`"}},
			"spec":{"controller":"gpu.example.com","devices":{"requests":[{"name":"request","deviceClassName":"gpu.example.com"}]}},"status":`+status+`}`)
	}
	shapes := map[string]func(n int) string{
		// n handles of quote-heavy data, as 1.30 DeviceParameters.
		"handles of quotes": func(n int) string {
			var results, devs []string
			for i := range n {
				results = append(results, fmt.Sprintf(`{"request":"request","driver":"gpu.example.com","pool":"gpu.example.com","device":"handle-%d"}`, i))
				devs = append(devs, fmt.Sprintf(`{"device":"handle-%d","parameters":{"q":"%s"}}`, i, strings.Repeat(`\"\\`, 200)))
			}
			return `{"allocation":{"controller":"gpu.example.com","devices":{"results":[` + strings.Join(results, ",") + `],"config":[{"source":"FromClaim","requests":["request"],"opaque":{"driver":"gpu.example.com","parameters":{"apiVersion":"resource.claimbridge.dev/v1alpha2","kind":"DeviceParameters","devices":[` + strings.Join(devs, ",") + `]}}}]}}}`
		},
		// One class config of n KiB of quotes and backslashes.
		"class config": func(n int) string {
			return `{"allocation":{"controller":"gpu.example.com","devices":{"results":[{"request":"request","driver":"gpu.example.com","pool":"p","device":"d"}],` +
				`"config":[{"source":"FromClass","requests":["request"],"opaque":{"driver":"gpu.example.com","parameters":{"blob":"` + strings.Repeat(`\"\\`, n*256) + `"}}}]}}}`
		},
		// Many structured results on a node.
		"structured results": func(n int) string {
			var results []string
			for i := range n {
				results = append(results, fmt.Sprintf(`{"request":"request","driver":"gpu.example.com","pool":"node-1","device":"gpu-%d"}`, i))
			}
			return `{"allocation":{"nodeSelector":{"nodeSelectorTerms":[{"matchFields":[{"key":"metadata.name","operator":"In","values":["node-1"]}]}]},"devices":{"results":[` + strings.Join(results, ",") + `]}}}`
		},
	}
	for name, status := range shapes {
		t.Run(name, func(t *testing.T) {
			largest := 0
			for n := 1; n <= 4096; n++ {
				if !statusFitsEveryVersion(claim(status(n))) {
					break
				}
				largest = n
			}
			if largest == 0 {
				t.Fatal("the bound admits not even the smallest status")
			}
			o := claim(status(largest))
			for _, version := range []string{"v1alpha2", "v1alpha1"} {
				if _, err := conversion.Convert(o, version); err != nil {
					t.Errorf("n=%d fits by the bound, but: %v", largest, err)
				}
			}
			if statusFitsEveryVersion(claim(status(largest + 1))) {
				t.Errorf("n=%d: the search stopped before the bound did", largest+1)
			}
		})
	}
}

// TestEncodedLenBound: the bound statusFitsEveryVersion counts is never
// below the encoding's length, for every kind of value and string.
func TestEncodedLenBound(t *testing.T) {
	for _, s := range []string{
		`null`, `true`, `0`, `-1.5e300`, `12345678901234567890123`, `""`, `"plain"`, `"quote \" and \\ backslash"`,
		`"control \u0001\u001f\n\t"`, `"html <>&"`, `"é ü 日本"`, `"\u2028\u2029"`, `"\ud800"`,
		`{"a":[1,{"b":null,"c":[true,false,"x"]}],"d":{}}`, `[[],[[]],{"":""}]`,
		`{"status":{"allocation":{"devices":{"results":[{"request":"r","driver":"d.example.com","pool":"p","device":"g0"}]}},"reservedFor":[{"resource":"pods","name":"p","uid":"u"}]}}`,
	} {
		v := obj(t, `{"v":`+s+`}`)["v"]
		encoded, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if bound := encodedLenBound(v); bound < len(encoded) {
			t.Errorf("%s: bound %d below the encoding's %d bytes", s, bound, len(encoded))
		}
	}
}

// TestStatusFitsBoundAtTheLimit: statusFitsEveryVersion admits a status
// exactly while the object's annotations, four times the status's encoding
// bound, twice the spec's and 64 KiB stay within the annotation size limit,
// and not one byte beyond it; annotations that alone leave less than the
// 64 KiB admit not even an empty status.
func TestStatusFitsBoundAtTheLimit(t *testing.T) {
	const slack = 64 * 1024
	status := map[string]interface{}{"reservedFor": []interface{}{map[string]interface{}{"resource": "pods", "name": "p", "uid": "u"}}}
	spec := map[string]interface{}{"controller": "gpu.example.com"}
	// build returns a claim whose annotations are of the given size (key
	// "a" and its value).
	build := func(annotations int, status, spec map[string]interface{}) map[string]interface{} {
		return map[string]interface{}{
			"metadata": map[string]interface{}{"annotations": map[string]interface{}{"a": strings.Repeat("x", annotations-1)}},
			"spec":     spec,
			"status":   status,
		}
	}
	// atLimit are the annotation bytes that leave none to spare.
	atLimit := conversion.TotalAnnotationSizeLimitB - 4*encodedLenBound(status) - 2*encodedLenBound(spec) - slack
	grown := func(m map[string]interface{}) map[string]interface{} {
		out := deepCopyJSON(m)
		out["padding"] = "" // one member more: the bound grows
		return out
	}
	for name, sc := range map[string]struct {
		obj  map[string]interface{}
		want bool
	}{
		"at-the-limit":                               {build(atLimit, status, spec), true},
		"one-annotation-byte-beyond":                 {build(atLimit+1, status, spec), false},
		"a-larger-status":                            {build(atLimit, grown(status), spec), false},
		"a-larger-spec":                              {build(atLimit, status, grown(spec)), false},
		"annotations-that-leave-less-than-the-slack": {build(conversion.TotalAnnotationSizeLimitB-slack+1, map[string]interface{}{}, map[string]interface{}{}), false},
	} {
		t.Run(name, func(t *testing.T) {
			if got := statusFitsEveryVersion(sc.obj); got != sc.want {
				t.Errorf("statusFitsEveryVersion = %v, want %v", got, sc.want)
			}
		})
	}
}

// TestEncodedLenBoundCounts: the bound counts what its comment says, no
// more: statusFitsEveryVersion's shortcut is taken only below it, so each
// byte it overcounts costs a scheduler's status write its conversions.
func TestEncodedLenBoundCounts(t *testing.T) {
	for name, sc := range map[string]struct {
		v    interface{}
		want int
	}{
		"null":         {nil, 4},
		"bool":         {true, 32},
		"float":        {1.5, 32},
		"integer":      {int64(7), 32},
		"number":       {json.Number("12345"), 5},
		"empty-string": {"", 2},
		"plain-string": {"plain", 7},
		// 0x1f and 0x80 may need escaping, 0x20 and 0x7f not.
		"string-at-the-escape-boundaries": {"\x1f\x20\x7f\x80", 2 + 6 + 1 + 1 + 6},
		"string-of-escaped-bytes":         {`"\<>&` + "\n", 2 + 6*6},
		"non-ascii-string":                {"é", 2 + 2*6},
		"empty-object":                    {map[string]interface{}{}, 2},
		// Braces; per member its key, a colon and a comma, its value.
		"object":      {map[string]interface{}{"a": "b", "<": nil}, 2 + (3 + 2 + 3) + (8 + 2 + 4)},
		"empty-array": {[]interface{}{}, 2},
		// Brackets; per element a comma and the element.
		"array": {[]interface{}{"a", []interface{}{}}, 2 + (3 + 1) + (2 + 1)},
	} {
		t.Run(name, func(t *testing.T) {
			if got := encodedLenBound(sc.v); got != sc.want {
				t.Errorf("encodedLenBound = %d, want %d", got, sc.want)
			}
		})
	}
}
