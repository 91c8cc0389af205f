package conversion_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/conversion"
)

// Malformed objects are refused with the field path, never reshaped; valid
// partial objects still convert.
func TestMalformed(t *testing.T) {
	for _, c := range []struct {
		name, in, to, want string
	}{
		{"spec a string", v2Claim + `"spec":"x"}`, api.V1alpha3,
			`ResourceClaim ns/c is malformed: spec must be an object, not a string`},
		{"reservedFor an object", v2Claim + `"status":{"reservedFor":{"name":"p"}}}`, api.V1alpha1,
			`ResourceClaim ns/c is malformed: status.reservedFor must be an array, not an object`},
		{"resourceHandles a map", v2Claim + `"status":{"allocation":{"resourceHandles":{"d":{}}}}}`, api.V1alpha3,
			`ResourceClaim ns/c is malformed: status.allocation.resourceHandles must be an array, not an object`},
		{"handle data a number", v2Claim + `"status":{"allocation":{"resourceHandles":[{"driverName":"d"},{"data":5}]}}}`, api.V1alpha3,
			`ResourceClaim ns/c is malformed: status.allocation.resourceHandles[1].data must be a string, not a number`},
		{"shareable a string", v1Claim + `"status":{"allocation":{"shareable":"yes"}}}`, api.V1alpha2,
			`ResourceClaim ns/c is malformed: status.allocation.shareable must be a boolean, not a string`},
		{"resourceHandle an object", v1Claim + `"status":{"allocation":{"resourceHandle":{}}}}`, api.V1alpha3,
			`ResourceClaim ns/c is malformed: status.allocation.resourceHandle must be a string, not an object`},
		{"v1alpha3 result a string", v3Claim + `"status":{"allocation":{"devices":{"results":["gpu-0"]}}}}`, api.V1alpha2,
			`ResourceClaim ns/c is malformed: status.allocation.devices.results[0] must be an object, not a string`},
		{"v1alpha3 count a string", v3Claim + `"spec":{"devices":{"requests":[{"name":"r","count":"2"}]}}}`, api.V1alpha2,
			`ResourceClaim ns/c is malformed: spec.devices.requests[0].count must be a number, not a string`},
		{"v1alpha3 count beyond a float64, read by YAML as a string", v3Claim + `"spec":{"devices":{"requests":[{"name":"r","count":"1e400"}]}}}`, api.V1alpha2,
			`ResourceClaim ns/c is malformed: spec.devices.requests[0].count must be a number, not a string ("1e400" is beyond a float64's range, so YAML reads it as a string; in JSON input it is a number)`},
		{"v1alpha3 count negative beyond a float64, read by YAML as a string", v3Claim + `"spec":{"devices":{"requests":[{"name":"r","count":"-1e400"}]}}}`, api.V1alpha2,
			`ResourceClaim ns/c is malformed: spec.devices.requests[0].count must be a number, not a string ("-1e400" is beyond a float64's range, so YAML reads it as a string; in JSON input it is a number)`},
		// No hint for a string that is no JSON number beyond a float64's
		// range: empty, or out of range to ParseFloat but not JSON (a
		// leading zero).
		{"v1alpha3 count an empty string", v3Claim + `"spec":{"devices":{"requests":[{"name":"r","count":""}]}}}`, api.V1alpha2,
			`ResourceClaim ns/c is malformed: spec.devices.requests[0].count must be a number, not a string`},
		{"v1alpha3 count beyond a float64 but no JSON number", v3Claim + `"spec":{"devices":{"requests":[{"name":"r","count":"01e400"}]}}}`, api.V1alpha2,
			`ResourceClaim ns/c is malformed: spec.devices.requests[0].count must be a number, not a string`},
		{"v1alpha3 count a numeric string in range", v3Claim + `"spec":{"devices":{"requests":[{"name":"r","count":"1e300"}]}}}`, api.V1alpha2,
			`ResourceClaim ns/c is malformed: spec.devices.requests[0].count must be a number, not a string`},
		{"template spec.spec an array", v2Template + `"spec":{"spec":[]}}`, api.V1alpha3,
			`ResourceClaimTemplate ns/t is malformed: spec.spec must be an object, not an array`},
		{"annotation value not a string", `{"apiVersion":"resource.k8s.io/v1alpha2","kind":"ResourceClaim","metadata":{"name":"c","annotations":{"a":1}}}`, api.V1alpha3,
			`ResourceClaim c is malformed: metadata.annotations[a] must be a string, not a number`},
		{"list items an object", `{"apiVersion":"resource.k8s.io/v1alpha2","kind":"ResourceClaimList","items":{}}`, api.V1alpha3,
			`ResourceClaimList (unnamed) is malformed: items must be an array, not an object`},
		{"list item not an object", `{"apiVersion":"resource.k8s.io/v1alpha2","kind":"ResourceClaimList","items":[{"metadata":{"name":"a"}},"x"]}`, api.V1alpha3,
			`ResourceClaim (unnamed) is malformed: items[1] must be an object, not a string`},
		{"list item status a number", `{"apiVersion":"resource.k8s.io/v1alpha3","kind":"ResourceClaimList","items":[{"metadata":{"name":"a"},"status":1}]}`, api.V1alpha1,
			`ResourceClaim a is malformed: items[0].status must be an object, not a number`},
		// A typed list's items are converted from its apiVersion and kind:
		// one naming others would be read as the list's version, its
		// fields unknown there, not converted.
		{"list item of another kind", `{"apiVersion":"resource.claimbridge.dev/v1alpha1","kind":"ResourceClaimList","items":[{"apiVersion":"resource.claimbridge.dev/v1alpha1","kind":"ResourceClaimTemplate","metadata":{"name":"t","namespace":"ns"},"spec":{"spec":{"resourceClassName":"g"}}}]}`, api.V1alpha3,
			`ResourceClaimTemplate ns/t is malformed: items[0].kind must be a ResourceClaim, not a ResourceClaimTemplate (` + itemHint + `)`},
		{"list item of another version", `{"apiVersion":"resource.claimbridge.dev/v1alpha1","kind":"ResourceClaimList","items":[{"metadata":{"name":"a"},"spec":{"resourceClassName":"g"}},{"apiVersion":"resource.claimbridge.dev/v1alpha3","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns"},"spec":{}}]}`, api.V1alpha2,
			`ResourceClaim ns/c is malformed: items[1].apiVersion must be a resource.claimbridge.dev/v1alpha1, not a resource.claimbridge.dev/v1alpha3 (` + itemHint + `)`},
	} {
		t.Run(c.name, func(t *testing.T) { checkMalformed(t, c.in, c.to, c.want) })
	}
}

const itemHint = "an item of a typed list is converted from the list's apiVersion and kind; put items of other versions or kinds in a kind: List (apiVersion v1) or documents of their own"

// checkMalformed converts in to version to and requires a *MalformedError
// with message want, and neither output nor warnings.
func checkMalformed(t *testing.T, in, to, want string) {
	t.Helper()
	out, ws, err := conversion.ConvertWithWarnings(tblDecode(t, in), to)
	var me *conversion.MalformedError
	if !errors.As(err, &me) {
		t.Fatalf("error %v (%T), want a *MalformedError; output %v", err, err, out)
	}
	if err.Error() != want {
		t.Errorf("error\n%q, want\n%q", err, want)
	}
	if out != nil || ws != nil {
		t.Errorf("output %v, warnings %v with the error", out, ws)
	}
}

func TestValidPartialObjectsConvert(t *testing.T) {
	for _, in := range []string{
		v2Claim + `"spec":{"resourceClassName":"c"}}`,
		v2Claim + `"status":{"driverName":"d"}}`,
		v2Claim + `"spec":{},"status":{}}`,
		v2Claim + `"spec":null,"status":{"allocation":null,"reservedFor":null}}`,
		v2Claim + `"status":{"allocation":{"resourceHandles":[]}}}`,
		v3Claim + `"spec":{"devices":{}},"status":{"allocation":{"devices":{}}}}`,
		v3Template + `"spec":{}}`,
		`{"apiVersion":"resource.k8s.io/v1alpha1","kind":"ResourceClaim"}`,
		`{"apiVersion":"resource.k8s.io/v1alpha2","kind":"ResourceClaimList","items":[]}`,
		`{"apiVersion":"resource.k8s.io/v1alpha2","kind":"ResourceClaimList"}`,
	} {
		for _, to := range api.ServedVersions {
			tblCheckRoundTrip(t, in, to)
		}
	}
}

func tblCheckRoundTrip(t *testing.T, in, to string) {
	t.Helper()
	obj := tblDecode(t, in)
	out, err := conversion.Convert(obj, to)
	if err != nil {
		t.Errorf("%s to %s: %v", in, to, err)
		return
	}
	_, from, _, _ := conversion.Identify(obj)
	back, err := conversion.Convert(out, from)
	if err != nil {
		t.Errorf("%s to %s and back: %v", in, to, err)
		return
	}
	if tblJSON(t, back) != tblJSON(t, obj) {
		t.Errorf("%s to %s and back gives %s", in, to, tblJSON(t, back))
	}
}

// TestWrongTypeAnywhere replaces every value of every golden input, one at a
// time, by a value of each other JSON type: conversion never panics, and
// either refuses the object with a *MalformedError or converts it exactly
// back (an unknown or opaque field may hold anything).
func TestWrongTypeAnywhere(t *testing.T) {
	replacements := []interface{}{"x", map[string]interface{}{"k": "v"}, []interface{}{"e"}, true}
	for _, g := range goldenInputs(t) {
		orig := goldenReadTree(t, g.path)
		var paths [][]interface{}
		collectPaths(orig, nil, &paths)
		for _, p := range paths {
			for _, r := range replacements {
				obj := goldenReadTree(t, g.path)
				setAt(obj, p, r)
				for _, to := range api.ServedVersions {
					out, _, err := conversion.ConvertWithWarnings(obj, to)
					var me *conversion.MalformedError
					switch {
					case errors.As(err, &me):
					case err != nil:
						if _, _, _, idErr := conversion.Identify(obj); idErr == nil {
							t.Fatalf("%s: %v = %v to %s: %v", g.path, p, r, to, err)
						}
					default:
						_, from, _, _ := conversion.Identify(obj)
						back, err := conversion.Convert(out, from)
						if err != nil || tblJSON(t, back) != tblJSON(t, obj) {
							t.Fatalf("%s: %v = %v to %s and back: %v\n%s\n%s", g.path, p, r, to, err, tblJSON(t, obj), tblJSON(t, back))
						}
					}
				}
			}
		}
	}
}

func collectPaths(v interface{}, prefix []interface{}, out *[][]interface{}) {
	switch v := v.(type) {
	case map[string]interface{}:
		for k, e := range v {
			p := append(append([]interface{}{}, prefix...), k)
			*out = append(*out, p)
			collectPaths(e, p, out)
		}
	case []interface{}:
		for i, e := range v {
			p := append(append([]interface{}{}, prefix...), i)
			*out = append(*out, p)
			collectPaths(e, p, out)
		}
	}
}

func setAt(root interface{}, path []interface{}, value interface{}) {
	cur := root
	for i, step := range path {
		last := i == len(path)-1
		switch k := step.(type) {
		case string:
			m := cur.(map[string]interface{})
			if last {
				m[k] = value
				return
			}
			cur = m[k]
		case int:
			s := cur.([]interface{})
			if last {
				s[k] = value
				return
			}
			cur = s[k]
		}
	}
}

// TestJSONType: the JSON type of every decoded value, null for nil, and the
// Go type of a value that has none (as validation reports a mismatch).
func TestJSONType(t *testing.T) {
	for _, c := range []struct {
		v    interface{}
		want string
	}{
		{nil, "null"},
		{map[string]interface{}{}, "object"},
		{[]interface{}{}, "array"},
		{"", "string"},
		{false, "boolean"},
		{json.Number("1"), "number"},
		{2.5, "number"},
		{int64(3), "number"},
		{map[string]string{}, "map[string]string"},
	} {
		if got := conversion.JSONType(c.v); got != c.want {
			t.Errorf("JSONType(%#v) = %q, want %q", c.v, got, c.want)
		}
	}
}

// TestCheckShape: CheckShape gives Convert's first error for a malformed
// object or one Convert cannot identify, and nil for a well-formed one.
func TestCheckShape(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"well-formed", v2Claim + `"spec":{"resourceClassName":"c"}}`, ""},
		{"malformed", v2Claim + `"spec":{"resourceClassName":5}}`,
			`ResourceClaim ns/c is malformed: spec.resourceClassName must be a string, not a number`},
		{"malformed list item", `{"apiVersion":"resource.k8s.io/v1alpha2","kind":"ResourceClaimList","items":[{"metadata":{"name":"a"},"status":[]}]}`,
			`ResourceClaim a is malformed: items[0].status must be an object, not an array`},
		{"not identified", `{"apiVersion":"resource.k8s.io/v1alpha2","kind":"ResourceClass","spec":5}`,
			`kind "ResourceClass" of resource.k8s.io/v1alpha2 is not converted (only ResourceClaim, ResourceClaimTemplate and their lists)`},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := tblDecode(t, c.in)
			err := conversion.CheckShape(in)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != c.want {
				t.Errorf("CheckShape = %q, want %q", got, c.want)
			}
			if _, convErr := conversion.Convert(in, api.V1alpha3); c.want != "" && (convErr == nil || convErr.Error() != c.want) {
				t.Errorf("Convert's error = %v, want CheckShape's", convErr)
			}
		})
	}
}

// TestCheckParametersShape: CheckParametersShape names the first field of
// the wrong JSON type of a resource.k8s.io ResourceClass (v1alpha1,
// v1alpha2), ResourceClaimParameters or ResourceClassParameters (v1alpha2),
// and gives nil for a well-formed one, another kind, a version without
// such a kind, or another group.
func TestCheckParametersShape(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"well-formed class", `{"apiVersion":"resource.k8s.io/v1alpha2","kind":"ResourceClass","metadata":{"name":"gpu"},"driverName":"d","structuredParameters":true}`, ""},
		{"malformed class", `{"apiVersion":"resource.k8s.io/v1alpha2","kind":"ResourceClass","metadata":{"name":"gpu"},"driverName":5}`,
			`ResourceClass gpu is malformed: driverName must be a string, not a number`},
		{"malformed 1.26 class", `{"apiVersion":"resource.k8s.io/v1alpha1","kind":"ResourceClass","metadata":{"name":"gpu"},"parametersRef":{"name":true}}`,
			`ResourceClass gpu is malformed: parametersRef.name must be a string, not a boolean`},
		{"field of a 1.30 class in a 1.26 one", `{"apiVersion":"resource.k8s.io/v1alpha1","kind":"ResourceClass","metadata":{"name":"gpu"},"structuredParameters":"yes"}`, ""},
		{"malformed claim parameters", `{"apiVersion":"resource.k8s.io/v1alpha2","kind":"ResourceClaimParameters","metadata":{"name":"p","namespace":"ns"},"driverRequests":[{"driverName":"d","requests":[{"namedResources":{"selector":1}}]}]}`,
			`ResourceClaimParameters ns/p is malformed: driverRequests[0].requests[0].namedResources.selector must be a string, not a number`},
		{"malformed class parameters", `{"apiVersion":"resource.k8s.io/v1alpha2","kind":"ResourceClassParameters","metadata":{"name":"p","namespace":"ns"},"filters":{}}`,
			`ResourceClassParameters ns/p is malformed: filters must be an array, not an object`},
		{"another kind", `{"apiVersion":"resource.k8s.io/v1alpha2","kind":"ResourceSlice","metadata":{"name":"s"},"driverName":5}`, ""},
		{"another version", `{"apiVersion":"resource.k8s.io/v1alpha3","kind":"ResourceClaimParameters","metadata":{"name":"p"},"driverRequests":5}`, ""},
		{"another group", `{"apiVersion":"example.com/v1alpha2","kind":"ResourceClass","metadata":{"name":"gpu"},"driverName":5}`, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := conversion.CheckParametersShape(tblDecode(t, c.in))
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != c.want {
				t.Errorf("CheckParametersShape = %q, want %q", got, c.want)
			}
		})
	}
}
