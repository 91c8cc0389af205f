package validation

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
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
				if _, err := convert(o, version); err != nil {
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
