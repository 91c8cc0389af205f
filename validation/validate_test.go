package validation

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/conversion"
)

// obj parses a JSON object the way the webhook and the CLI hold it (numbers
// as json.Number).
func obj(t testing.TB, s string) map[string]interface{} {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var m map[string]interface{}
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("bad test JSON: %v", err)
	}
	return m
}

const (
	claimV1 = `{"apiVersion":"resource.claimbridge.dev/v1alpha1","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns","resourceVersion":"1"},"spec":{"resourceClassName":"gpu"}}`
	claimV2 = `{"apiVersion":"resource.k8s.io/v1alpha2","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns","resourceVersion":"1"},"spec":{"resourceClassName":"gpu","allocationMode":"Immediate"}}`
	claimV3 = `{"apiVersion":"resource.claimbridge.dev/v1alpha3","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns","resourceVersion":"1"},"spec":{"devices":{"requests":[{"name":"gpu","deviceClassName":"gpu.example.com"}]}}}`
)

func TestValidateCreate(t *testing.T) {
	scenarios := map[string]struct {
		object       string
		wantGK       schema.GroupKind
		wantFailures field.ErrorList
		wantWarnings []string
	}{
		"v1alpha1-claim-defaulted": {
			object: claimV1,
			wantGK: schema.GroupKind{Group: api.Group, Kind: api.KindClaim},
		},
		"v1alpha2-upstream-group-warning": {
			object:       claimV2,
			wantGK:       schema.GroupKind{Group: api.UpstreamGroup, Kind: api.KindClaim},
			wantWarnings: []string{"spec.allocationMode: Immediate allocation does not exist in v1alpha3 (Kubernetes 1.31+); the claim is allocated when a pod needs it"},
		},
		"v1alpha3-count-defaulted-before-validation": { // rule 23 only triggers with a negative count through the API
			object: claimV3,
			wantGK: schema.GroupKind{Group: api.Group, Kind: api.KindClaim},
		},
		"v1alpha3-negative-count": { // rule 23
			object:       strings.Replace(claimV3, `"deviceClassName"`, `"count":-2,"deviceClassName"`, 1),
			wantGK:       schema.GroupKind{Group: api.Group, Kind: api.KindClaim},
			wantFailures: field.ErrorList{field.Invalid(field.NewPath("spec", "devices", "requests").Index(0).Child("count"), int64(-2), "must be greater than zero")},
		},
		"status-ignored-on-create": {
			object: strings.Replace(claimV1, `"spec"`, `"status":{"reservedFor":[{"uid":""}],"bogus":1},"spec"`, 1),
			wantGK: schema.GroupKind{Group: api.Group, Kind: api.KindClaim},
		},
		"unknown-fields": {
			object: strings.Replace(claimV3, `"name":"gpu"`, `"name":"gpu","colour":"red"`, 1),
			wantGK: schema.GroupKind{Group: api.Group, Kind: api.KindClaim},
			wantFailures: field.ErrorList{
				field.Forbidden(field.NewPath("spec.devices.requests[0].colour"), "unknown field"),
			},
		},
		"template-v1alpha2": { // rule 2 under spec.spec
			object: `{"apiVersion":"resource.claimbridge.dev/v1alpha2","kind":"ResourceClaimTemplate","metadata":{"name":"t","namespace":"ns"},"spec":{"spec":{"resourceClassName":"Bad"}}}`,
			wantGK: schema.GroupKind{Group: api.Group, Kind: api.KindTemplate},
			wantFailures: field.ErrorList{
				field.Invalid(field.NewPath("spec", "spec", "resourceClassName"), "Bad", "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"),
			},
		},
	}
	for name, scenario := range scenarios {
		t.Run(name, func(t *testing.T) {
			resp, err := Validate(Request{Operation: Create, Object: obj(t, scenario.object)})
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if diff := cmp.Diff(scenario.wantGK, resp.GroupKind); diff != "" {
				t.Errorf("group kind (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(scenario.wantFailures, resp.Errors); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(scenario.wantWarnings, resp.Warnings); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
		})
	}
}

func TestValidateUnusableInput(t *testing.T) {
	template := `{"apiVersion":"resource.claimbridge.dev/v1alpha3","kind":"ResourceClaimTemplate","metadata":{"name":"t","namespace":"ns"},"spec":{"spec":{}}}`
	scenarios := map[string]Request{
		"unknown-group":       {Operation: Create, Object: obj(t, `{"apiVersion":"example.com/v1alpha3","kind":"ResourceClaim"}`)},
		"unknown-version":     {Operation: Create, Object: obj(t, `{"apiVersion":"resource.k8s.io/v1beta1","kind":"ResourceClaim"}`)},
		"unknown-kind":        {Operation: Create, Object: obj(t, `{"apiVersion":"resource.k8s.io/v1alpha3","kind":"DeviceClass"}`)},
		"wrong-type":          {Operation: Create, Object: obj(t, strings.Replace(claimV3, `"name":"gpu"`, `"name":7`, 1))},
		"template-status":     {Operation: Update, SubResource: "status", Object: obj(t, template), OldObject: obj(t, template)},
		"update-without-old":  {Operation: Update, Object: obj(t, claimV3)},
		"old-of-other-kind":   {Operation: Update, Object: obj(t, claimV3), OldObject: obj(t, template)},
		"unknown-operation":   {Operation: "DELETE", Object: obj(t, claimV3)},
		"unknown-subresource": {Operation: Update, SubResource: "scale", Object: obj(t, claimV3), OldObject: obj(t, claimV3)},
	}
	for name, req := range scenarios {
		t.Run(name, func(t *testing.T) {
			if _, err := Validate(req); err == nil {
				t.Error("want an error for unusable input")
			}
		})
	}
}

// requireConversion fails the cross-version tests early, with a clear
// message, if conversion cannot handle the base claim.
func requireConversion(t *testing.T) {
	t.Helper()
	if _, err := conversion.Convert(obj(t, claimV3), "v1alpha1"); err != nil {
		t.Fatalf("conversion of the base claim failed: %v", err)
	}
}

func TestValidateUpdateRegistryEmulation(t *testing.T) {
	requireConversion(t)
	allocated := `{"apiVersion":"resource.claimbridge.dev/v1alpha2","kind":"ResourceClaim","metadata":{"name":"c","namespace":"ns","resourceVersion":"1"},"spec":{"resourceClassName":"gpu"},"status":{"driverName":"gpu.example.com","allocation":{"shareable":true}}}`
	scenarios := map[string]struct {
		sub          string
		old, new     string
		wantFailures field.ErrorList
	}{
		"main-update-ignores-status": {
			old: claimV1,
			new: strings.Replace(claimV1, `"spec"`, `"status":{"deallocationRequested":true},"spec"`, 1),
		},
		"main-update-spec-immutable-once": { // rule 5, reported once despite re-running create rules
			old:          claimV1,
			new:          strings.Replace(claimV1, `"gpu"`, `"fpga"`, 1),
			wantFailures: field.ErrorList{field.Invalid(field.NewPath("spec"), mustSpecV1("fpga"), "field is immutable")},
		},
		"status-update-ignores-spec-and-metadata": {
			sub: "status",
			old: allocated,
			new: strings.Replace(strings.Replace(allocated, `"gpu"`, `"fpga"`, 1), `"resourceVersion":"1"`, `"resourceVersion":""`, 1),
		},
		"status-update-rules": { // rule 53
			sub:          "status",
			old:          strings.Replace(allocated, `"shareable":true}`, `"shareable":true},"reservedFor":[{"resource":"pods","name":"p","uid":"1"}]`, 1),
			new:          strings.Replace(allocated, `"shareable":true}`, `"shareable":true},"reservedFor":[{"resource":"pods","name":"p","uid":"1"}],"deallocationRequested":true`, 1),
			wantFailures: field.ErrorList{field.Forbidden(field.NewPath("status", "deallocationRequested"), "deallocation cannot be requested while `reservedFor` is set")},
		},
	}
	for name, scenario := range scenarios {
		t.Run(name, func(t *testing.T) {
			resp, err := Validate(Request{Operation: Update, SubResource: scenario.sub, Object: obj(t, scenario.new), OldObject: obj(t, scenario.old)})
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if diff := cmp.Diff(scenario.wantFailures, resp.Errors); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}

// parseObjectType says which part of apiVersion and kind Validate does not
// handle; IsSupported is whether it handles the object at all.
func TestParseTarget(t *testing.T) {
	for name, tc := range map[string]struct {
		obj     string // "" for no object
		want    objectType
		wantErr string
	}{
		"claim":                    {obj: claimV3, want: objectType{group: api.Group, version: "v1alpha3", kind: api.KindClaim}},
		"upstream-group":           {obj: claimV2, want: objectType{group: api.UpstreamGroup, version: "v1alpha2", kind: api.KindClaim}},
		"no-object":                {wantErr: "no object"},
		"no-apiVersion":            {obj: `{"kind":"ResourceClaim"}`, wantErr: `apiVersion "" is not <group>/<version>`},
		"apiVersion-without-group": {obj: `{"apiVersion":"v1alpha3","kind":"ResourceClaim"}`, wantErr: `apiVersion "v1alpha3" is not <group>/<version>`},
		"other-group":              {obj: `{"apiVersion":"resource.example.com/v1alpha3","kind":"ResourceClaim"}`, wantErr: `unsupported group "resource.example.com": want resource.claimbridge.dev or resource.k8s.io`},
		"unserved-version":         {obj: `{"apiVersion":"resource.claimbridge.dev/v1beta1","kind":"ResourceClaim"}`, wantErr: `unsupported version "v1beta1": want one of v1alpha1, v1alpha2, v1alpha3`},
		"other-kind":               {obj: `{"apiVersion":"resource.claimbridge.dev/v1alpha3","kind":"DeviceClass"}`, wantErr: `unsupported kind "DeviceClass": want ResourceClaim or ResourceClaimTemplate`},
	} {
		t.Run(name, func(t *testing.T) {
			var o map[string]interface{}
			if tc.obj != "" {
				o = obj(t, tc.obj)
			}
			got, err := parseObjectType(o)
			gotErr := ""
			if err != nil {
				gotErr = err.Error()
			}
			if gotErr != tc.wantErr || got != tc.want {
				t.Errorf("parseObjectType = %+v, %q; want %+v, %q", got, gotErr, tc.want, tc.wantErr)
			}
			if supported := IsSupported(o); supported != (tc.wantErr == "") {
				t.Errorf("IsSupported = %v", supported)
			}
		})
	}
}
