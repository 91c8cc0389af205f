package conversion_test

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claimbridge/claimbridge/api"
	v1alpha1api "github.com/claimbridge/claimbridge/api/v1alpha1"
	v1alpha2api "github.com/claimbridge/claimbridge/api/v1alpha2"
	v1alpha3api "github.com/claimbridge/claimbridge/api/v1alpha3"
	"github.com/claimbridge/claimbridge/conversion"
	"github.com/claimbridge/claimbridge/validation/classic"
	validationv1alpha3 "github.com/claimbridge/claimbridge/validation/v1alpha3"
)

func decode(t *testing.T, s string) map[string]interface{} {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var obj map[string]interface{}
	if err := dec.Decode(&obj); err != nil {
		t.Fatalf("decoding %s: %v", s, err)
	}
	return obj
}

func add(path string, value interface{}) conversion.PatchOperation {
	return conversion.PatchOperation{Op: "add", Path: path, Value: value}
}

func TestDefaultsPatch(t *testing.T) {
	one := int64(1)
	tests := []struct {
		name, version, kind, spec string
		want                      []conversion.PatchOperation
	}{
		{"v1alpha1 claim without a mode", api.V1alpha1, api.KindClaim, `{"resourceClassName":"c"}`,
			[]conversion.PatchOperation{add("/spec/allocationMode", "WaitForFirstConsumer")}},
		{"v1alpha2 claim with an empty mode", api.V1alpha2, api.KindClaim, `{"resourceClassName":"c","allocationMode":""}`,
			[]conversion.PatchOperation{add("/spec/allocationMode", "WaitForFirstConsumer")}},
		{"v1alpha2 claim with a null mode", api.V1alpha2, api.KindClaim, `{"resourceClassName":"c","allocationMode":null}`,
			[]conversion.PatchOperation{add("/spec/allocationMode", "WaitForFirstConsumer")}},
		{"v1alpha2 claim, Immediate", api.V1alpha2, api.KindClaim, `{"resourceClassName":"c","allocationMode":"Immediate"}`, nil},
		{"v1alpha2 claim, an unknown mode (validation's)", api.V1alpha2, api.KindClaim, `{"resourceClassName":"c","allocationMode":"Later"}`, nil},
		{"v1alpha2 template without a mode", api.V1alpha2, api.KindTemplate, `{"spec":{"resourceClassName":"c"}}`,
			[]conversion.PatchOperation{add("/spec/spec/allocationMode", "WaitForFirstConsumer")}},
		{"v1alpha2 empty spec", api.V1alpha2, api.KindClaim, `{}`,
			[]conversion.PatchOperation{add("/spec/allocationMode", "WaitForFirstConsumer")}},
		{"v1alpha3 request without mode and count", api.V1alpha3, api.KindClaim, `{"devices":{"requests":[{"name":"r","deviceClassName":"c"}]}}`,
			[]conversion.PatchOperation{add("/spec/devices/requests/0/allocationMode", "ExactCount"), add("/spec/devices/requests/0/count", one)}},
		{"v1alpha3 ExactCount with count 0", api.V1alpha3, api.KindClaim, `{"devices":{"requests":[{"name":"r","allocationMode":"ExactCount","count":0}]}}`,
			[]conversion.PatchOperation{add("/spec/devices/requests/0/count", one)}},
		{"v1alpha3 count 3 without a mode", api.V1alpha3, api.KindClaim, `{"devices":{"requests":[{"name":"r","count":3}]}}`,
			[]conversion.PatchOperation{add("/spec/devices/requests/0/allocationMode", "ExactCount")}},
		{"v1alpha3 All: no count", api.V1alpha3, api.KindClaim, `{"devices":{"requests":[{"name":"r","allocationMode":"All"}]}}`, nil},
		{"v1alpha3 defaulted", api.V1alpha3, api.KindClaim, `{"devices":{"requests":[{"name":"r","allocationMode":"ExactCount","count":1}]}}`, nil},
		{"v1alpha3 several requests, a template", api.V1alpha3, api.KindTemplate,
			`{"spec":{"devices":{"requests":[{"name":"a","allocationMode":"All"},{"name":"b"},"not a request",{"name":"d","allocationMode":""}]}}}`,
			[]conversion.PatchOperation{
				add("/spec/spec/devices/requests/1/allocationMode", "ExactCount"), add("/spec/spec/devices/requests/1/count", one),
				add("/spec/spec/devices/requests/3/allocationMode", "ExactCount"), add("/spec/spec/devices/requests/3/count", one)}},
		{"v1alpha3 without requests", api.V1alpha3, api.KindClaim, `{"devices":{}}`, nil},
		{"v1alpha3 requests of the wrong type", api.V1alpha3, api.KindClaim, `{"devices":{"requests":{"name":"r"}}}`, nil},
		{"spec of the wrong type", api.V1alpha2, api.KindClaim, `"spec"`, nil},
		{"template without a claim spec", api.V1alpha2, api.KindTemplate, `{"metadata":{}}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obj := decode(t, `{"apiVersion":"resource.claimbridge.dev/`+tt.version+`","kind":"`+tt.kind+`","metadata":{"name":"x"},"spec":`+tt.spec+`}`)
			if diff := cmp.Diff(tt.want, conversion.DefaultsPatch(obj, tt.version, tt.kind)); diff != "" {
				t.Errorf("operations (-want +got):\n%s", diff)
			}
		})
	}
	if ops := conversion.DefaultsPatch(decode(t, `{"metadata":{"name":"x"}}`), api.V1alpha3, api.KindClaim); ops != nil {
		t.Errorf("an object without a spec: %v", ops)
	}
}

// TestDefaultsPatchIsUpstreamDefaulting: an object patched as DefaultsPatch says is the
// object validation's typed defaulting (upstream's SetDefaults functions)
// gives, for every version and kind.
func TestDefaultsPatchIsUpstreamDefaulting(t *testing.T) {
	modes := []string{``, `"allocationMode":"",`, `"allocationMode":"ExactCount",`, `"allocationMode":"All",`}
	counts := []string{``, `"count":0,`, `"count":1,`, `"count":4,`}
	var v3Specs []string
	for _, m := range modes {
		for _, c := range counts {
			v3Specs = append(v3Specs, `{"devices":{"requests":[{`+m+c+`"name":"a","deviceClassName":"c"},{"name":"b","deviceClassName":"c"}]}}`)
		}
	}
	classicSpecs := []string{`{"resourceClassName":"c"}`, `{"resourceClassName":"c","allocationMode":""}`,
		`{"resourceClassName":"c","allocationMode":"Immediate"}`, `{"resourceClassName":"c","allocationMode":"WaitForFirstConsumer"}`}
	for _, version := range api.ServedVersions {
		specs := classicSpecs
		if version == api.V1alpha3 {
			specs = v3Specs
		}
		for _, kind := range []string{api.KindClaim, api.KindTemplate} {
			for i, spec := range specs {
				t.Run(version+"/"+kind+"/"+strconv.Itoa(i), func(t *testing.T) {
					if kind == api.KindTemplate {
						spec = `{"spec":` + spec + `}`
					}
					obj := decode(t, `{"apiVersion":"resource.claimbridge.dev/`+version+`","kind":"`+kind+`","metadata":{"name":"x"},"spec":`+spec+`}`)
					patched := decode(t, spec) // fresh copy to patch
					obj["spec"] = patched
					if err := conversion.ApplyPatch(obj, conversion.DefaultsPatch(obj, version, kind)); err != nil {
						t.Fatal(err)
					}
					upstream := typed(t, version, kind, spec)
					upstream.setDefaults()
					got := typed(t, version, kind, mustJSON(obj["spec"]))
					if diff := cmp.Diff(upstream.spec, got.spec); diff != "" {
						t.Errorf("patched spec is not upstream's defaulted one (-upstream +patched):\n%s", diff)
					}
				})
			}
		}
	}
}

// typedSpec is a typed object of a version and kind with its spec set.
type typedSpec struct {
	spec        interface{}
	setDefaults func()
}

func typed(t *testing.T, version, kind, spec string) typedSpec {
	t.Helper()
	var obj, specField interface{}
	var setDefaults func()
	switch version + "/" + kind {
	case "v1alpha1/ResourceClaim":
		o := &v1alpha1api.ResourceClaim{}
		obj, specField, setDefaults = o, &o.Spec, func() { classic.Rules{}.SetDefaults(o) }
	case "v1alpha1/ResourceClaimTemplate":
		o := &v1alpha1api.ResourceClaimTemplate{}
		obj, specField, setDefaults = o, &o.Spec, func() { classic.Rules{}.SetDefaults(o) }
	case "v1alpha2/ResourceClaim":
		o := &v1alpha2api.ResourceClaim{}
		obj, specField, setDefaults = o, &o.Spec, func() { classic.Rules{}.SetDefaults(o) }
	case "v1alpha2/ResourceClaimTemplate":
		o := &v1alpha2api.ResourceClaimTemplate{}
		obj, specField, setDefaults = o, &o.Spec, func() { classic.Rules{}.SetDefaults(o) }
	case "v1alpha3/ResourceClaim":
		o := &v1alpha3api.ResourceClaim{}
		obj, specField, setDefaults = o, &o.Spec, func() { validationv1alpha3.SetDefaults(o) }
	case "v1alpha3/ResourceClaimTemplate":
		o := &v1alpha3api.ResourceClaimTemplate{}
		obj, specField, setDefaults = o, &o.Spec, func() { validationv1alpha3.SetDefaults(o) }
	default:
		t.Fatalf("no type for %s %s", version, kind)
	}
	if err := json.Unmarshal([]byte(`{"spec":`+spec+`}`), obj); err != nil {
		t.Fatal(err)
	}
	return typedSpec{spec: specField, setDefaults: setDefaults}
}

func TestApplyPatch(t *testing.T) {
	obj := decode(t, `{"spec":{"devices":{"requests":[{"name":"a"}]}}}`)
	if err := conversion.ApplyPatch(obj, []conversion.PatchOperation{add("/spec/devices/requests/0/count", int64(1))}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(decode(t, `{"spec":{"devices":{"requests":[{"name":"a","count":1}]}}}`), decode(t, mustJSON(obj))); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if err := conversion.ApplyPatch(obj, []conversion.PatchOperation{{Op: "remove", Path: "/spec/devices/requests/0/count"}}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(decode(t, `{"spec":{"devices":{"requests":[{"name":"a"}]}}}`), decode(t, mustJSON(obj))); diff != "" {
		t.Errorf("remove (-want +got):\n%s", diff)
	}
	for _, op := range []conversion.PatchOperation{
		add("/spec/devices/requests/1/count", 1),
		add("/spec/missing/x", 1),
		add("/spec/devices/requests/0/name/x", 1),
		{Op: "remove", Path: "/spec/missing"},
		{Op: "move", Path: "/spec/devices"},
	} {
		if err := conversion.ApplyPatch(obj, []conversion.PatchOperation{op}); err == nil || !strings.Contains(err.Error(), op.Path) {
			t.Errorf("%+v: error %v, want one naming the path", op, err)
		}
	}
}
