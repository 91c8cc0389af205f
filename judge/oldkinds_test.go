package judge

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/validation"
	"github.com/claimbridge/claimbridge/validation/common"
)

const (
	// A classic DRA driver's class (1.26–1.30).
	testResourceClass = `apiVersion: resource.k8s.io/%s
kind: ResourceClass
metadata: {name: gpu.example.com}
driverName: gpu.example.com
parametersRef: {apiGroup: gpu.resource.example.com, kind: GpuClassParameters, name: default, namespace: gpu-operator}
suitableNodes:
  nodeSelectorTerms:
  - matchExpressions: [{key: example.com/gpu.present, operator: Exists}]
`
	// A 1.30 slice of named resources.
	testNamedSlice = `apiVersion: resource.k8s.io/%s
kind: ResourceSlice
metadata: {name: node-1-gpu.example.com-x7k2p}
nodeName: node-1
driverName: gpu.example.com
namedResources:
  instances:
  - name: gpu-0
    attributes:
    - {name: model, string: a100}
    - {name: memory, quantity: 40Gi}
    - {name: driver-version, version: 1.2.0}
    - {name: numa-nodes, intSlice: {ints: [0, 1]}}
    - {name: mig-capable, bool: true}
  - name: gpu-1
`
	dns1123Subdomain = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
	dns1123Label     = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
)

// TestValidateOld: each rule of upstream's ValidateClass (1.26 and 1.30,
// the same) and of 1.30's ValidateResourceSlice with namedresources'
// ValidateResources, as the exact field errors upstream returns.
func TestValidateOld(t *testing.T) {
	set := func(path string, value string) func(*testing.T, map[string]interface{}) {
		return func(t *testing.T, obj map[string]interface{}) { set(obj, path, yamlValue(t, value)) }
	}
	tests := map[string]struct {
		manifest, version string
		edit              func(*testing.T, map[string]interface{})
		want              field.ErrorList
	}{
		"class-v1alpha1-valid":   {manifest: testResourceClass, version: api.V1alpha1},
		"class-v1alpha2-valid":   {manifest: testResourceClass, version: api.V1alpha2, edit: set("structuredParameters", "true")},
		"class-minimal":          {manifest: "apiVersion: resource.k8s.io/%s\nkind: ResourceClass\nmetadata: {name: gpu}\ndriverName: gpu.example.com\n", version: api.V1alpha1},
		"class-generate-name":    {manifest: testResourceClass, version: api.V1alpha2, edit: set("metadata", "{generateName: gpu-}")},
		"class-namespace-clears": {manifest: testResourceClass, version: api.V1alpha2, edit: set("metadata.namespace", "default")},
		// A CSI driver name is checked lower-cased.
		"class-driver-upper-case": {manifest: testResourceClass, version: api.V1alpha1, edit: set("driverName", "GPU.Example.com")},
		"class-name": {manifest: testResourceClass, version: api.V1alpha1, edit: set("metadata.name", "GPU_class"),
			want: field.ErrorList{field.Invalid(field.NewPath("metadata", "name"), "GPU_class", dns1123Subdomain)}},
		"class-generate-name-invalid": {manifest: testResourceClass, version: api.V1alpha2, edit: set("metadata", "{generateName: GPU_}"),
			want: field.ErrorList{
				field.Invalid(field.NewPath("metadata", "generateName"), "GPU_", dns1123Subdomain),
				field.Invalid(field.NewPath("metadata", "name"), "GPU_"+validation.GeneratedNameSuffix, dns1123Subdomain),
			}},
		"class-driver-empty": {manifest: testResourceClass, version: api.V1alpha2, edit: set("driverName", "''"),
			want: field.ErrorList{field.Required(field.NewPath("driverName"), ""), field.Invalid(field.NewPath("driverName"), "", dns1123Subdomain)}},
		"class-driver-invalid": {manifest: testResourceClass, version: api.V1alpha1, edit: set("driverName", "gpu_example.com"),
			want: field.ErrorList{field.Invalid(field.NewPath("driverName"), "gpu_example.com", dns1123Subdomain)}},
		"class-driver-too-long": {manifest: testResourceClass, version: api.V1alpha2, edit: set("driverName", strings.Repeat("g", 60)+".com"),
			want: field.ErrorList{common.TooLongBytes(field.NewPath("driverName"), strings.Repeat("g", 60)+".com", 63)}},
		"class-parameters-missing": {manifest: testResourceClass, version: api.V1alpha1, edit: set("parametersRef", "{apiGroup: gpu.resource.example.com}"),
			want: field.ErrorList{field.Required(field.NewPath("parametersRef", "kind"), ""), field.Required(field.NewPath("parametersRef", "name"), "")}},
		"class-parameters-namespace": {manifest: testResourceClass, version: api.V1alpha2, edit: set("parametersRef.namespace", "GPU_Operator"),
			want: field.ErrorList{field.Invalid(field.NewPath("parametersRef", "namespace"), "GPU_Operator", dns1123Label)}},
		"class-suitable-nodes-empty": {manifest: testResourceClass, version: api.V1alpha1, edit: set("suitableNodes", "{nodeSelectorTerms: []}"),
			want: field.ErrorList{field.Required(field.NewPath("suitableNodes", "nodeSelectorTerms"), "must have at least one node selector term")}},
		"class-suitable-nodes-operator": {manifest: testResourceClass, version: api.V1alpha2, edit: set("suitableNodes.nodeSelectorTerms", "[{matchExpressions: [{key: example.com/gpu, operator: Has}]}]"),
			want: field.ErrorList{field.Invalid(field.NewPath("suitableNodes", "nodeSelectorTerms").Index(0).Child("matchExpressions").Index(0).Child("operator"), v1.NodeSelectorOperator("Has"), "not a valid selector operator")}},

		"slice-valid":              {manifest: testNamedSlice, version: api.V1alpha2},
		"slice-without-node":       {manifest: testNamedSlice, version: api.V1alpha2, edit: set("nodeName", "''")},
		"slice-no-instances":       {manifest: testNamedSlice, version: api.V1alpha2, edit: set("namedResources", "{}")},
		"slice-attribute-lists":    {manifest: testNamedSlice, version: api.V1alpha2, edit: set("namedResources.instances[1].attributes", "[{name: peers, stringSlice: {strings: [gpu-0]}}, {name: pre, version: 1.0.0-rc.1+build.5}]")},
		"slice-generate-name":      {manifest: testNamedSlice, version: api.V1alpha2, edit: set("metadata", "{generateName: node-1-gpu.example.com-}")},
		"slice-name":               {manifest: testNamedSlice, version: api.V1alpha2, edit: set("metadata.name", "Node-1"), want: field.ErrorList{field.Invalid(field.NewPath("metadata", "name"), "Node-1", dns1123Subdomain)}},
		"slice-node-name":          {manifest: testNamedSlice, version: api.V1alpha2, edit: set("nodeName", "Node_1"), want: field.ErrorList{field.Invalid(field.NewPath("nodeName"), "Node_1", dns1123Subdomain)}},
		"slice-driver-missing":     {manifest: testNamedSlice, version: api.V1alpha2, edit: set("driverName", "''"), want: field.ErrorList{field.Required(field.NewPath("driverName"), ""), field.Invalid(field.NewPath("driverName"), "", dns1123Subdomain)}},
		"slice-no-named-resources": {manifest: testNamedSlice, version: api.V1alpha2, edit: set("namedResources", "null"), want: field.ErrorList{field.Required(nil, "exactly one structured model field must be set")}},
		"slice-instance-names": {manifest: testNamedSlice, version: api.V1alpha2, edit: set("namedResources.instances", "[{name: gpu-0}, {name: GPU_1}, {name: gpu-0}, {name: ''}]"),
			want: field.ErrorList{
				field.Invalid(field.NewPath("namedResources", "instances").Index(1).Child("name"), "GPU_1", dns1123Subdomain),
				field.Duplicate(field.NewPath("namedResources", "instances").Index(2).Child("name"), "gpu-0"),
				field.Invalid(field.NewPath("namedResources", "instances").Index(3).Child("name"), "", dns1123Subdomain),
			}},
		"slice-attributes": {manifest: testNamedSlice, version: api.V1alpha2,
			edit: set("namedResources.instances[1].attributes", "[{name: cudaVersion, string: '12.4'}, {name: model, string: a100, int: 1}, {name: model}, {name: driver-version, version: '570.124'}]"),
			want: field.ErrorList{
				field.Invalid(field.NewPath("namedResources", "instances").Index(1).Child("attributes").Index(0).Child("name"), "cudaVersion", dns1123Subdomain),
				field.Invalid(field.NewPath("namedResources", "instances").Index(1).Child("attributes").Index(1), []string{"int", "string"}, "exactly one field must be set, not several"),
				field.Duplicate(field.NewPath("namedResources", "instances").Index(1).Child("attributes").Index(2).Child("name"), "model"),
				field.Required(field.NewPath("namedResources", "instances").Index(1).Child("attributes").Index(2), "exactly one value must be set"),
				field.Invalid(field.NewPath("namedResources", "instances").Index(1).Child("attributes").Index(3).Child("version"), "570.124", "must be a string compatible with semver.org spec 2.0.0"),
			}},
		"slice-attribute-all-values": {manifest: testNamedSlice, version: api.V1alpha2,
			edit: set("namedResources.instances[1].attributes", "[{name: all, bool: false, int: 0, intSlice: {ints: []}, quantity: '0', string: '', stringSlice: {strings: []}, version: 0.0.0}]"),
			want: field.ErrorList{field.Invalid(field.NewPath("namedResources", "instances").Index(1).Child("attributes").Index(0),
				[]string{"bool", "int", "intSlice", "quantity", "string", "stringSlice", "version"}, "exactly one field must be set, not several")}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			obj := testObject(t, tc.manifest, tc.version, nil)
			if tc.edit != nil {
				tc.edit(t, obj)
			}
			_, kind := KindOf(obj)
			got, err := rules{version: tc.version}.validateOld(validation.WithGeneratedName(obj), kind)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

// TestCheckOldKinds: CheckKind on the kinds of 1.26–1.30: the releases
// that serve them, their fields (a strict decode, structuredParameters from
// 1.30) and their rules.
func TestCheckOldKinds(t *testing.T) {
	const (
		notServed = "apiVersion: Kubernetes 1.%d serves resource.k8s.io/%s, not %s: its apiserver rejects this object"
		at        = "namedResources.instances[0].attributes[0]"
	)
	structured := func(obj map[string]interface{}) { obj["structuredParameters"] = true }
	tests := map[string]struct {
		manifest, version string
		release           int
		edit              func(map[string]interface{})
		errs              []string
	}{
		"class-v1alpha1-1.26":            {manifest: testResourceClass, version: api.V1alpha1, release: 26},
		"class-v1alpha2-1.27":            {manifest: testResourceClass, version: api.V1alpha2, release: 27},
		"class-v1alpha2-structured-1.30": {manifest: testResourceClass, version: api.V1alpha2, release: 30, edit: structured},
		"class-v1alpha2-structured-1.29": {manifest: testResourceClass, version: api.V1alpha2, release: 29, edit: structured,
			errs: []string{"structuredParameters: Forbidden: unknown field: Kubernetes 1.29 does not have it (1.30+)"}},
		"class-v1alpha1-structured-1.26": {manifest: testResourceClass, version: api.V1alpha1, release: 26, edit: structured,
			errs: []string{"structuredParameters: Forbidden: unknown field: Kubernetes 1.26 does not have it (1.30+)"}},
		"class-v1alpha2-unknown-1.30": {manifest: testResourceClass, version: api.V1alpha2, release: 30,
			edit: func(obj map[string]interface{}) {
				obj["spec"] = map[string]interface{}{}
				obj["suitableNodes"].(map[string]interface{})["nodeSelectorTerms"].([]interface{})[0].(map[string]interface{})["matchLabels"] = map[string]interface{}{}
			},
			errs: []string{"spec: Forbidden: unknown field", "suitableNodes.nodeSelectorTerms[0].matchLabels: Forbidden: unknown field"}},
		"class-v1alpha1-bad-driver-1.26": {manifest: testResourceClass, version: api.V1alpha1, release: 26,
			edit: func(obj map[string]interface{}) { obj["driverName"] = "gpu_example.com" },
			errs: []string{`driverName: Invalid value: "gpu_example.com": ` + dns1123Subdomain}},
		"class-v1alpha2-not-served-1.26": {manifest: testResourceClass, version: api.V1alpha2, release: 26, errs: []string{fmt.Sprintf(notServed, 26, "v1alpha1", "v1alpha2")}},
		"class-v1alpha1-not-served-1.30": {manifest: testResourceClass, version: api.V1alpha1, release: 30, errs: []string{fmt.Sprintf(notServed, 30, "v1alpha2", "v1alpha1")}},
		"class-v1alpha2-not-served-1.31": {manifest: testResourceClass, version: api.V1alpha2, release: 31, errs: []string{fmt.Sprintf(notServed, 31, "v1alpha3", "v1alpha2")}},
		"class-v1alpha1-not-served-1.37": {manifest: testResourceClass, version: api.V1alpha1, release: 37, errs: []string{fmt.Sprintf(notServed, 37, "v1", "v1alpha1")}},

		"slice-v1alpha2-1.30": {manifest: testNamedSlice, version: api.V1alpha2, release: 30},
		"slice-v1alpha2-unknown-1.30": {manifest: testNamedSlice, version: api.V1alpha2, release: 30,
			edit: func(obj map[string]interface{}) {
				set(obj, "namedResources.instances[0].attributes[0]", map[string]interface{}{"name": "model", "value": "a100"})
			},
			errs: []string{at + ".value: Forbidden: unknown field", at + ": Required value: exactly one value must be set"}},
		"slice-v1alpha2-bad-quantity-1.30": {manifest: testNamedSlice, version: api.V1alpha2, release: 30,
			edit: func(obj map[string]interface{}) {
				set(obj, "namedResources.instances[0].attributes[0]", map[string]interface{}{"name": "memory", "quantity": "40 GiB"})
			},
			errs: []string{"does not decode into resource.k8s.io/v1alpha2 ResourceSlice: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"}},
		"slice-v1alpha2-no-model-1.30": {manifest: testNamedSlice, version: api.V1alpha2, release: 30,
			edit: func(obj map[string]interface{}) { delete(obj, "namedResources") },
			errs: []string{"<nil>: Required value: exactly one structured model field must be set"}},
		"slice-v1alpha2-no-slice-1.26": {manifest: testNamedSlice, version: api.V1alpha2, release: 26,
			errs: []string{"kind: Kubernetes 1.26 has no ResourceSlice in resource.k8s.io (1.30+): its apiserver rejects this object"}},
		"slice-v1alpha2-no-slice-1.29": {manifest: testNamedSlice, version: api.V1alpha2, release: 29,
			errs: []string{"kind: Kubernetes 1.29 has no ResourceSlice in resource.k8s.io (1.30+): its apiserver rejects this object"}},
		"slice-v1alpha2-not-served-1.31": {manifest: testNamedSlice, version: api.V1alpha2, release: 31, errs: []string{fmt.Sprintf(notServed, 31, "v1alpha3", "v1alpha2")}},
		"slice-v1alpha2-not-served-1.37": {manifest: testNamedSlice, version: api.V1alpha2, release: 37, errs: []string{fmt.Sprintf(notServed, 37, "v1", "v1alpha2")}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			obj := testObject(t, tc.manifest, tc.version, tc.edit)
			version, kind := KindOf(obj)
			if version != tc.version {
				t.Fatalf("KindOf: %q %q", version, kind)
			}
			errs, warnings := CheckKind(obj, withBetas(tc.release), kind)
			if d := cmp.Diff(tc.errs, errs); d != "" {
				t.Errorf("errors (-want +got):\n%s", d)
			}
			if warnings != nil {
				t.Errorf("warnings: %q", warnings)
			}
		})
	}
}

// TestKindOfOld: only the kinds and versions of 1.26–1.30 that upstream
// had; without --to, each is judged by the newest release serving it.
func TestKindOfOld(t *testing.T) {
	for _, c := range []struct {
		apiVersion, kind, version string
		release                   int
	}{
		{"resource.k8s.io/v1alpha1", "ResourceClass", "v1alpha1", 26},
		{"resource.k8s.io/v1alpha2", "ResourceClass", "v1alpha2", 30},
		{"resource.k8s.io/v1alpha2", "ResourceSlice", "v1alpha2", 30},
		{"resource.k8s.io/v1alpha3", "ResourceClass", "", 0},
		{"resource.k8s.io/v1", "ResourceClass", "", 0},
		{"resource.k8s.io/v1alpha1", "ResourceSlice", "", 0},
		{"resource.k8s.io/v1alpha2", "DeviceClass", "", 0},
		{"resource.claimbridge.dev/v1alpha2", "ResourceClass", "", 0},
	} {
		version, kind := KindOf(map[string]interface{}{"apiVersion": c.apiVersion, "kind": c.kind})
		if version != c.version || version != "" && kind != c.kind {
			t.Errorf("KindOf(%s %s) = %q %q, want %q", c.apiVersion, c.kind, version, kind, c.version)
		}
		if release := KindRelease(version, kind); version != "" && release != c.release {
			t.Errorf("KindRelease(%s, %s) = %d, want %d", version, kind, release, c.release)
		}
	}
}
