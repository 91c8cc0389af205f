package judge

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/validation"
	"github.com/claimbridge/claimbridge/validation/common"
)

const (
	// A 1.30 driver's claim parameters: two requests of named resources.
	testClaimParameters = `apiVersion: resource.k8s.io/%s
kind: ResourceClaimParameters
metadata: {name: two-gpus, namespace: ml}
generatedFrom: {apiGroup: gpu.resource.example.com, kind: GpuClaimParameters, name: two-gpus}
shareable: true
driverRequests:
- driverName: gpu.example.com
  vendorParameters: {sharing: time-slicing}
  requests:
  - namedResources: {selector: 'attributes.quantity["memory"].compareTo(quantity("40Gi")) >= 0'}
  - vendorParameters: {mig: 1g.5gb}
    namedResources: {selector: 'attributes.version["driver-version"].isGreaterThan(semver("1.0.0")) && attributes.stringslice["peers"].size() > 0'}
`
	// A 1.30 class's parameters: a filter and the vendor's parameters.
	testClassParameters = `apiVersion: resource.k8s.io/%s
kind: ResourceClassParameters
metadata: {name: gpu, namespace: gpu-operator}
generatedFrom: {apiGroup: gpu.resource.example.com, kind: GpuClassParameters, name: default, namespace: gpu-operator}
filters:
- driverName: gpu.example.com
  namedResources: {selector: 'attributes.bool["mig-capable"] && attributes.intslice["numa-nodes"].exists(n, n == 0)'}
vendorParameters:
- driverName: gpu.example.com
  parameters: {apiVersion: gpu.resource.example.com/v1, kind: GpuConfig}
`
)

// TestValidateParameterKinds: each rule of 1.30's
// ValidateResourceClaimParameters and ValidateResourceClassParameters, with
// selectors compiled in 1.30's CEL environment, as the exact field errors
// upstream returns.
func TestValidateParameterKinds(t *testing.T) {
	edit := func(path string, value string) func(*testing.T, map[string]interface{}) {
		return func(t *testing.T, obj map[string]interface{}) { set(obj, path, yamlValue(t, value)) }
	}
	requests, filters := field.NewPath("driverRequests").Index(0).Child("requests"), field.NewPath("filters")
	tests := map[string]struct {
		manifest string
		edit     func(*testing.T, map[string]interface{})
		want     field.ErrorList
	}{
		"claim-valid":              {manifest: testClaimParameters},
		"claim-no-namespace":       {manifest: testClaimParameters, edit: edit("metadata", "{name: two-gpus}")},
		"claim-no-requests":        {manifest: testClaimParameters, edit: edit("driverRequests", "[]")},
		"claim-generated-from-any": {manifest: testClaimParameters, edit: edit("generatedFrom", "{kind: ConfigMap, name: cm}")},
		"claim-name": {manifest: testClaimParameters, edit: edit("metadata.name", "Two_GPUs"),
			want: field.ErrorList{field.Invalid(field.NewPath("metadata", "name"), "Two_GPUs", dns1123Subdomain)}},
		"claim-generated-from": {manifest: testClaimParameters, edit: edit("generatedFrom", "{apiGroup: gpu.resource.example.com}"),
			want: field.ErrorList{field.Required(field.NewPath("generatedFrom", "kind"), ""), field.Required(field.NewPath("generatedFrom", "name"), "")}},
		"claim-drivers": {manifest: testClaimParameters, edit: edit("driverRequests", "[{driverName: gpu_example.com, requests: [{namedResources: {selector: 'true'}}]}, {driverName: gpu_example.com, requests: [{namedResources: {selector: 'true'}}]}]"),
			want: field.ErrorList{
				field.Invalid(field.NewPath("driverRequests").Index(0).Child("driverName"), "gpu_example.com", dns1123Subdomain),
				field.Invalid(field.NewPath("driverRequests").Index(1).Child("driverName"), "gpu_example.com", dns1123Subdomain),
				field.Duplicate(field.NewPath("driverRequests").Index(1).Child("driverName"), "gpu_example.com"),
			}},
		"claim-empty-requests": {manifest: testClaimParameters, edit: edit("driverRequests[0].requests", "[]"),
			want: field.ErrorList{field.Required(requests, "empty entries with no requests are not allowed")}},
		"claim-no-model": {manifest: testClaimParameters, edit: edit("driverRequests[0].requests[0]", "{vendorParameters: {a: b}}"),
			want: field.ErrorList{field.Required(requests.Index(0), "exactly one structured model field must be set")}},
		"claim-selector-empty": {manifest: testClaimParameters, edit: edit("driverRequests[0].requests[0].namedResources", "{selector: ''}"),
			want: field.ErrorList{field.Required(requests.Index(0).Child("namedResources", "selector"), "")}},
		"claim-selector-not-bool": {manifest: testClaimParameters, edit: edit("driverRequests[0].requests[1].namedResources.selector", `attributes.string["model"]`),
			want: field.ErrorList{field.Invalid(requests.Index(1).Child("namedResources", "selector"), `attributes.string["model"]`, "must evaluate to bool")}},
		// 1.31's device variable is not 1.30's.
		"claim-selector-device": {manifest: testClaimParameters, edit: edit("driverRequests[0].requests[0].namedResources.selector", `device.driver == "gpu.example.com"`),
			want: field.ErrorList{field.Invalid(requests.Index(0).Child("namedResources", "selector"), `device.driver == "gpu.example.com"`,
				"compilation failed: ERROR: <input>:1:1: undeclared reference to 'device' (in container '')\n | device.driver == \"gpu.example.com\"\n | ^")}},

		"class-valid":         {manifest: testClassParameters},
		"class-empty":         {manifest: "apiVersion: resource.k8s.io/%s\nkind: ResourceClassParameters\nmetadata: {name: gpu}\n"},
		"class-generate-name": {manifest: testClassParameters, edit: edit("metadata", "{generateName: gpu-, namespace: gpu-operator}")},
		"class-generated-from": {manifest: testClassParameters, edit: edit("generatedFrom", "{namespace: GPU_Operator}"),
			want: field.ErrorList{
				field.Required(field.NewPath("generatedFrom", "kind"), ""),
				field.Required(field.NewPath("generatedFrom", "name"), ""),
				field.Invalid(field.NewPath("generatedFrom", "namespace"), "GPU_Operator", dns1123Label),
			}},
		// A filter and the vendor's parameters may name the same driver; each list only once.
		"class-drivers": {manifest: testClassParameters,
			edit: edit("vendorParameters", "[{driverName: gpu.example.com}, {driverName: gpu.example.com}, {driverName: ''}]"),
			want: field.ErrorList{
				field.Duplicate(field.NewPath("vendorParameters").Index(1).Child("driverName"), "gpu.example.com"),
				field.Required(field.NewPath("vendorParameters").Index(2).Child("driverName"), ""),
				field.Invalid(field.NewPath("vendorParameters").Index(2).Child("driverName"), "", dns1123Subdomain),
			}},
		"class-filter-no-model": {manifest: testClassParameters, edit: edit("filters", "[{driverName: gpu.example.com}, {driverName: gpu.example.com, namedResources: {selector: 'true'}}]"),
			want: field.ErrorList{
				field.Required(filters.Index(0), "exactly one structured model field must be set"),
				field.Duplicate(filters.Index(1).Child("driverName"), "gpu.example.com"),
			}},
		"class-filter-selector": {manifest: testClassParameters, edit: edit("filters[0].namedResources.selector", `attributes.quantity["memory"] > 1`),
			want: field.ErrorList{field.Invalid(filters.Index(0).Child("namedResources", "selector"), `attributes.quantity["memory"] > 1`,
				"compilation failed: ERROR: <input>:1:31: found no matching overload for '_>_' applied to '(kubernetes.Quantity, int)'\n | attributes.quantity[\"memory\"] > 1\n | ..............................^")}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			obj := testObject(t, tc.manifest, api.V1alpha2, nil)
			if tc.edit != nil {
				tc.edit(t, obj)
			}
			version, kind := KindOf(obj)
			if version != api.V1alpha2 || KindRelease(version, kind) != 30 {
				t.Fatalf("KindOf: %q %q", version, kind)
			}
			got, err := rules{version: version}.validateParameterKinds(validation.WithGeneratedName(api.InDefaultNamespace(obj)), kind)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(common.Normalize(tc.want), got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
			if errs, warnings := CheckKind(obj, withBetas(30), kind); len(errs) != len(tc.want) || warnings != nil {
				t.Errorf("CheckKind at 1.30: %q, warnings %q", errs, warnings)
			}
		})
	}
}

// TestCheckParameterKinds: only 1.30 has the parameter kinds, and a strict
// decode names a field they do not have.
func TestCheckParameterKinds(t *testing.T) {
	for _, tc := range []struct {
		manifest string
		release  int
		edit     func(map[string]interface{})
		errs     []string
	}{
		{manifest: testClaimParameters, release: 29, errs: []string{"kind: Kubernetes 1.29 has no ResourceClaimParameters in resource.k8s.io (1.30+): its apiserver rejects this object"}},
		{manifest: testClassParameters, release: 31, errs: []string{"apiVersion: Kubernetes 1.31 serves resource.k8s.io/v1alpha3, not v1alpha2: its apiserver rejects this object"}},
		{manifest: testClaimParameters, release: 30, edit: func(obj map[string]interface{}) { set(obj, "driverRequests[0].requests[0].selector", "true") },
			errs: []string{"driverRequests[0].requests[0].selector: Forbidden: unknown field"}},
		{manifest: testClassParameters, release: 30, edit: func(obj map[string]interface{}) { obj["spec"] = map[string]interface{}{} },
			errs: []string{"spec: Forbidden: unknown field"}},
	} {
		obj := testObject(t, tc.manifest, api.V1alpha2, tc.edit)
		_, kind := KindOf(obj)
		errs, warnings := CheckKind(obj, withBetas(tc.release), kind)
		if d := cmp.Diff(tc.errs, errs); d != "" || warnings != nil {
			t.Errorf("%s at 1.%d: errors (-want +got):\n%s\nwarnings: %q", kind, tc.release, d, warnings)
		}
	}
}
