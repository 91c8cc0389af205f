package conversion_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/conversion"
)

// Objects of upstream's v1beta1, v1beta2 and v1 are checked field by field
// against their k8s.io/api types, like the alpha versions against theirs.
func TestMalformedGA(t *testing.T) {
	claim := func(v string) string {
		return `{"apiVersion":"resource.k8s.io/` + v + `","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns"},`
	}
	for _, c := range []struct {
		name, in, to, want string
	}{
		{"v1 spec a string", claim("v1") + `"spec":"hello"}`, api.V1alpha3,
			`ResourceClaim ns/c is malformed: spec must be an object, not a string`},
		{"v1beta2 devices an array", claim("v1beta2") + `"spec":{"devices":[]}}`, api.V1,
			`ResourceClaim ns/c is malformed: spec.devices must be an object, not an array`},
		{"v1beta1 count a string", claim("v1beta1") + `"spec":{"devices":{"requests":[{"name":"r","deviceClassName":"c","count":"2"}]}}}`, api.V1alpha3,
			`ResourceClaim ns/c is malformed: spec.devices.requests[0].count must be a number, not a string`},
		{"v1 exactly.count a string", claim("v1") + `"spec":{"devices":{"requests":[{"name":"r","exactly":{"deviceClassName":"c","count":"2"}}]}}}`, api.V1beta1,
			`ResourceClaim ns/c is malformed: spec.devices.requests[0].exactly.count must be a number, not a string`},
		{"v1 firstAvailable an object", claim("v1") + `"spec":{"devices":{"requests":[{"name":"r","firstAvailable":{"name":"s"}}]}}}`, api.V1alpha2,
			`ResourceClaim ns/c is malformed: spec.devices.requests[0].firstAvailable must be an array, not an object`},
		{"v1beta2 selector expression a boolean", claim("v1beta2") + `"spec":{"devices":{"requests":[{"name":"r","exactly":{"deviceClassName":"c","selectors":[{"cel":{"expression":true}}]}}]}}}`, api.V1,
			`ResourceClaim ns/c is malformed: spec.devices.requests[0].exactly.selectors[0].cel.expression must be a string, not a boolean`},
		{"v1 allocationTimestamp a number", claim("v1") + `"status":{"allocation":{"allocationTimestamp":5}}}`, api.V1beta2,
			`ResourceClaim ns/c is malformed: status.allocation.allocationTimestamp must be a string, not a number`},
		{"v1 consumedCapacity an array", claim("v1") + `"status":{"allocation":{"devices":{"results":[{"request":"r","consumedCapacity":[]}]}}}}`, api.V1beta2,
			`ResourceClaim ns/c is malformed: status.allocation.devices.results[0].consumedCapacity must be an object, not an array`},
		{"v1beta1 device status conditions a string", claim("v1beta1") + `"status":{"devices":[{"driver":"d","conditions":"ok"}]}}`, api.V1,
			`ResourceClaim ns/c is malformed: status.devices[0].conditions must be an array, not a string`},
		{"v1 reservedFor an object", claim("v1") + `"status":{"reservedFor":{"name":"p"}}}`, api.V1alpha1,
			`ResourceClaim ns/c is malformed: status.reservedFor must be an array, not an object`},
		{"v1 template spec.spec.devices a string", `{"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaimTemplate","metadata":{"name":"t","namespace":"ns"},"spec":{"spec":{"devices":"x"}}}`, api.V1alpha3,
			`ResourceClaimTemplate ns/t is malformed: spec.spec.devices must be an object, not a string`},
		{"v1beta2 list item spec a number", `{"apiVersion":"resource.k8s.io/v1beta2","kind":"ResourceClaimList","items":[{"metadata":{"name":"a"},"spec":1}]}`, api.V1,
			`ResourceClaim a is malformed: items[0].spec must be an object, not a number`},
	} {
		t.Run(c.name, func(t *testing.T) { checkMalformed(t, c.in, c.to, c.want) })
	}
}

// Values the GA types decode themselves, and node selectors (not looked
// into, as in v1alpha3), are accepted in every JSON form and come back.
func TestValidGAValuesConvert(t *testing.T) {
	for _, in := range []string{
		`{"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim","metadata":{"name":"c"},"spec":{"devices":{"requests":[{"name":"r","exactly":{"deviceClassName":"c","capacity":{"requests":{"mem":1}}}}]}}}`,
		`{"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim","metadata":{"name":"c"},"spec":{"devices":{"requests":[{"name":"r","exactly":{"deviceClassName":"c","capacity":{"requests":{"mem":"1Gi"}}}}]}}}`,
		`{"apiVersion":"resource.k8s.io/v1beta2","kind":"ResourceClaim","metadata":{"name":"c"},"status":{"allocation":{"nodeSelector":{"nodeSelectorTerms":"x"}}}}`,
		`{"apiVersion":"resource.k8s.io/v1beta1","kind":"ResourceClaim","metadata":{"name":"c"},"spec":{"devices":{"config":[{"opaque":{"driver":"d","parameters":[1,"x"]}}]}}}`,
		`{"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim","metadata":{"name":"c"},"status":{"devices":[{"driver":"d","data":"anything"}]}}`,
	} {
		for _, to := range api.ServedVersions {
			tblCheckRoundTrip(t, in, to)
		}
	}
}

// TestWrongTypeAnywhereGA replaces every value of random v1beta1, v1beta2
// and v1 objects, one at a time, by a value of each other JSON type. An
// object refused as malformed does not decode into its k8s.io/api type
// either (nothing kube-apiserver reads is refused); every other one converts
// exactly back from each version.
func TestWrongTypeAnywhereGA(t *testing.T) {
	replacements := []interface{}{"x", map[string]interface{}{"k": "v"}, []interface{}{"e"}, true, json.Number("7")}
	for gi, from := range api.UpstreamOnlyVersions {
		t.Run(from, func(t *testing.T) {
			t.Parallel()
			f := newFiller(int64(9100 + gi))
			for i := 0; i < 4; i++ {
				orig := randomObject(t, f, from, i == 3)
				orig["apiVersion"] = api.UpstreamGroup + "/" + from
				text := mustJSON(orig)
				var paths [][]interface{}
				collectPaths(orig, nil, &paths)
				for _, p := range paths {
					if p[0] == "apiVersion" || p[0] == "kind" {
						continue // not a claim of from any more
					}
					for _, r := range replacements {
						obj := tblDecode(t, text)
						setAt(obj, p, r)
						for _, to := range api.ServedVersions {
							if to == from {
								continue
							}
							checkWrongType(t, obj, from, to, fmt.Sprintf("%v = %v", p, r))
						}
					}
				}
			}
		})
	}
}

func checkWrongType(t *testing.T, obj map[string]interface{}, from, to, what string) {
	t.Helper()
	out, _, err := conversion.ConvertWithWarnings(obj, to)
	var me *conversion.MalformedError
	switch {
	case errors.As(err, &me):
		if typedDecode(obj, from) == nil {
			t.Fatalf("%s %s to %s: refused (%v), but it decodes into the k8s.io/api type", from, what, to, err)
		}
	case err != nil:
		t.Fatalf("%s %s to %s: %v", from, what, to, err)
	default:
		back, err := conversion.Convert(out, from)
		if err != nil || mustJSON(back) != mustJSON(obj) {
			t.Fatalf("%s %s to %s and back: %v\n%s\n%s", from, what, to, err, mustJSON(obj), mustJSON(back))
		}
	}
}

// typedDecode decodes obj into its k8s.io/api type (unknown fields allowed:
// they are not what the shape check is about).
func typedDecode(obj map[string]interface{}, version string) error {
	return json.NewDecoder(bytes.NewReader([]byte(mustJSON(obj)))).Decode(typedFor(version, obj["kind"].(string)))
}
