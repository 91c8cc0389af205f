package conversion_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/conversion"
)

// apiserverStore does to obj what the kube-apiserver does to an object it
// stores: decode the JSON into unstructured content (an integer that fits
// becomes an int64, any other number a float64) and encode it again. Number
// text changes: 1.0 → 1, 1e2 → 100, 2.50 → 2.5, 0.0000001 → 1e-7, large
// integers → float form. The result is decoded as the webhook decodes it.
func apiserverStore(t *testing.T, obj map[string]interface{}) map[string]interface{} {
	t.Helper()
	var u unstructured.Unstructured
	if err := u.UnmarshalJSON([]byte(mustJSON(obj))); err != nil {
		t.Fatalf("apiserver decode: %v", err)
	}
	data, err := u.MarshalJSON()
	if err != nil {
		t.Fatalf("apiserver encode: %v", err)
	}
	return tblDecode(t, string(data))
}

// TestRoundTripThroughApiserverNumbers: a v1alpha1 or v1alpha2 claim whose
// handle data is JSON with numbers the apiserver rewrites, converted to the
// storage version v1alpha3, stored by the apiserver (once or twice) and
// converted back, comes back exactly: the handle text as written and
// shareable: false (which v1alpha3 cannot hold). Numbers that are JSON
// numbers in every version (vendor parameters) come back as the apiserver
// stored them, and the rest of the restore data still applies.
func TestRoundTripThroughApiserverNumbers(t *testing.T) {
	handles := []string{
		`{"a":1.0}`, `{"a":40.0}`, `{"a":1e2}`, `{"a":2.50}`, `{"a":0.0000001}`,
		`{"a":12345678901234567890123}`, `{"a":9223372036854775808}`, `{"a":-0.0}`, `{"a":1E+2,"b":[1.50,{"c":2e-10}]}`,
		`{"a":1.0,"b":[40.0,1e2],"c":{"d":2.50,"e":0.0000001},"f":12345678901234567890123}`,
		`{"b":1.0, "a":2}`, // not canonical for other reasons too
	}
	v1 := func(handle string) string {
		return `{"apiVersion":"resource.k8s.io/v1alpha1","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns"},
			"spec":{"resourceClassName":"gpu.example.com","allocationMode":"Immediate"},
			"status":{"driverName":"gpu.example.com","allocation":{"resourceHandle":` + strings.TrimSpace(mustJSON(handle)) + `,"shareable":false},
				"reservedFor":[{"resource":"pods","name":"p","uid":"u"}]}}`
	}
	v2 := func(data ...string) string {
		var hs []string
		for _, d := range data {
			hs = append(hs, `{"driverName":"gpu.example.com","data":`+mustJSON(d)+`}`)
		}
		return `{"apiVersion":"resource.k8s.io/v1alpha2","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns"},
			"spec":{"resourceClassName":"gpu.example.com","allocationMode":"WaitForFirstConsumer"},
			"status":{"driverName":"gpu.example.com","allocation":{"resourceHandles":[` + strings.Join(hs, ",") + `],"shareable":false}}}`
	}
	type rtCase struct {
		name string
		in   string
		want string // "" for in
		// rewrites: the apiserver rewrites numbers of the converted object
		// (vendor parameters are JSON numbers as written); handle data
		// becomes parameters with the numbers the apiserver would store.
		rewrites bool
	}
	var cases []rtCase
	for _, h := range handles {
		cases = append(cases,
			rtCase{name: "v1alpha1 resourceHandle " + h, in: v1(h)},
			rtCase{name: "v1alpha2 data " + h, in: v2(h)},
			rtCase{name: "v1alpha2 two handles " + h, in: v2(h, `{"x":2.50}`)},
		)
	}
	structured := func(n string) string {
		return `{"apiVersion":"resource.k8s.io/v1alpha2","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns"},
			"spec":{"resourceClassName":"gpu.example.com","allocationMode":"WaitForFirstConsumer"},
			"status":{"driverName":"gpu.example.com","allocation":{"resourceHandles":[{"driverName":"gpu.example.com","structuredData":{
				"nodeName":"n1","results":[{"namedResources":{"name":"g0"}}],
				"vendorClassParameters":{"cls":` + n + `},"vendorClaimParameters":{"memoryGiB":` + n + `}}}],"shareable":false}}}`
	}
	for _, n := range []string{"16.0", "1e2", "2.50", "0.0000001", "12345678901234567890123"} {
		cases = append(cases, rtCase{name: "v1alpha2 structured parameters " + n, in: structured(n), want: structured(canonicalNumber(t, n)), rewrites: true})
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			obj := tblDecode(t, tc.in)
			want := obj
			if tc.want != "" {
				want = tblDecode(t, tc.want)
			}
			_, from, _, err := conversion.Identify(obj)
			if err != nil {
				t.Fatal(err)
			}
			converted, err := conversion.Convert(conversion.DeepCopyForTest(obj), api.V1alpha3)
			if err != nil {
				t.Fatal(err)
			}
			stored := converted
			for i := 1; i <= 2; i++ {
				before := mustJSON(stored)
				stored = apiserverStore(t, stored)
				if rewritten := mustJSON(stored) != before; i == 1 && rewritten != tc.rewrites {
					t.Errorf("storing rewrote numbers: %v, want %v:\n%s\n%s", rewritten, tc.rewrites, before, mustJSON(stored))
				}
				back, err := conversion.Convert(conversion.DeepCopyForTest(stored), from)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(want, back, treeComparer); diff != "" {
					t.Errorf("%s→%s, stored %d×, →%s (-want +got):\n%s\nstored: %s", from, api.V1alpha3, i, from, diff, mustJSON(stored))
				}
			}
		})
	}
}

// canonicalNumber is the text the apiserver stores for the number n.
func canonicalNumber(t *testing.T, n string) string {
	t.Helper()
	v := apiserverStore(t, map[string]interface{}{"apiVersion": "v1", "kind": "X", "n": json.Number(n)})
	return v["n"].(json.Number).String()
}
