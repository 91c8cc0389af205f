package api

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

// The kubebuilder markers (+groupName, +kubebuilder:storageversion) are the
// only other place the group and storage version are written, because
// controller-gen reads them as literals; the generated CRDs must agree with
// this package.
func TestGeneratedCRDsAgree(t *testing.T) {
	for _, kind := range []struct{ file, kind, list string }{
		{"resource.claimbridge.dev_resourceclaims.yaml", KindClaim, KindClaimList},
		{"resource.claimbridge.dev_resourceclaimtemplates.yaml", KindTemplate, KindTemplateList},
	} {
		data, err := os.ReadFile(filepath.Join("..", "config", "crd", "bases", kind.file))
		if err != nil {
			t.Fatal(err)
		}
		var crd apiextensionsv1.CustomResourceDefinition
		if err := yaml.UnmarshalStrict(data, &crd); err != nil {
			t.Fatalf("%s: %v", kind.file, err)
		}
		var served []string
		storage := ""
		for _, v := range crd.Spec.Versions {
			if v.Served {
				served = append(served, v.Name)
			}
			if v.Storage {
				storage = v.Name
			}
		}
		got := []string{crd.Spec.Group, crd.Spec.Names.Kind, crd.Spec.Names.ListKind, storage}
		want := []string{Group, kind.kind, kind.list, StorageVersion}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: group, kind, list kind, storage version (-want +got):\n%s", kind.file, diff)
		}
		if diff := cmp.Diff(ServedVersions, served); diff != "" {
			t.Errorf("%s: served versions (-want +got):\n%s", kind.file, diff)
		}
	}
}

func TestIdentify(t *testing.T) {
	tests := map[string]struct {
		obj                  map[string]interface{}
		group, version, kind string
		err                  string
	}{
		"claim":          {obj: map[string]interface{}{"apiVersion": "resource.claimbridge.dev/v1alpha2", "kind": "ResourceClaim"}, group: Group, version: V1alpha2, kind: KindClaim},
		"upstream-list":  {obj: map[string]interface{}{"apiVersion": "resource.k8s.io/v1alpha1", "kind": "ResourceClaimTemplateList"}, group: UpstreamGroup, version: V1alpha1, kind: KindTemplateList},
		"no-apiversion":  {obj: map[string]interface{}{"kind": "ResourceClaim"}, err: `apiVersion "" is not in group resource.claimbridge.dev or resource.k8s.io`},
		"other-group":    {obj: map[string]interface{}{"apiVersion": "apps/v1", "kind": "ResourceClaim"}, err: `apiVersion "apps/v1" is not in group resource.claimbridge.dev or resource.k8s.io`},
		"other-version":  {obj: map[string]interface{}{"apiVersion": "resource.k8s.io/v9", "kind": "ResourceClaim"}, err: `apiVersion "resource.k8s.io/v9": unsupported version "v9" (supported: v1alpha1, v1alpha2, v1alpha3, v1beta1, v1beta2, v1)`},
		"other-kind":     {obj: map[string]interface{}{"apiVersion": "resource.k8s.io/v1alpha3", "kind": "Pod"}, err: `kind "Pod" of resource.k8s.io/v1alpha3 is not converted (only ResourceClaim, ResourceClaimTemplate and their lists)`},
		"kind-not-a-str": {obj: map[string]interface{}{"apiVersion": "resource.k8s.io/v1alpha3", "kind": 1}, err: `kind "" of resource.k8s.io/v1alpha3 is not converted (only ResourceClaim, ResourceClaimTemplate and their lists)`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			group, version, kind, err := Identify(tc.obj)
			gotErr := ""
			if err != nil {
				gotErr = err.Error()
			}
			if diff := cmp.Diff([]string{tc.group, tc.version, tc.kind, tc.err}, []string{group, version, kind, gotErr}); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestDescribe(t *testing.T) {
	tests := map[string]struct {
		obj  map[string]interface{}
		want string
	}{
		"namespaced":  {obj: map[string]interface{}{"kind": "ResourceClaim", "metadata": map[string]interface{}{"namespace": "ns", "name": "a"}}, want: "ResourceClaim ns/a"},
		"cluster":     {obj: map[string]interface{}{"kind": "ResourceClaim", "metadata": map[string]interface{}{"name": "a"}}, want: "ResourceClaim a"},
		"unnamed":     {obj: map[string]interface{}{"kind": "ResourceClaim", "metadata": map[string]interface{}{"namespace": "ns"}}, want: "ResourceClaim (unnamed)"},
		"no-kind":     {obj: map[string]interface{}{"metadata": map[string]interface{}{"name": "a"}}, want: "object a"},
		"bad-meta":    {obj: map[string]interface{}{"kind": "X", "metadata": "nope"}, want: "X (unnamed)"},
		"nil-object":  {obj: nil, want: "object (unnamed)"},
		"name-number": {obj: map[string]interface{}{"kind": "X", "metadata": map[string]interface{}{"name": 3}}, want: "X (unnamed)"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := Describe(tc.obj); got != tc.want {
				t.Errorf("Describe = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestDeepCopyJSON(t *testing.T) {
	in := map[string]interface{}{
		"m": map[string]interface{}{"n": json.Number("1"), "i": 2, "f": 1.5, "b": true, "nil": nil},
		"s": []interface{}{"a", map[string]interface{}{"x": int64(1)}, []interface{}{}},
		"z": []interface{}(nil),
	}
	out := DeepCopyJSON(in)
	if diff := cmp.Diff(in, out); diff != "" {
		t.Fatalf("copy differs (-in +out):\n%s", diff)
	}
	out["m"].(map[string]interface{})["n"] = "changed"
	out["s"].([]interface{})[1].(map[string]interface{})["x"] = "changed"
	if in["m"].(map[string]interface{})["n"] != json.Number("1") || in["s"].([]interface{})[1].(map[string]interface{})["x"] != int64(1) {
		t.Errorf("changing the copy changed the original: %v", in)
	}
	if DeepCopyJSON(nil) != nil {
		t.Errorf("DeepCopyJSON(nil) is not nil")
	}
}

func TestVersions(t *testing.T) {
	if diff := cmp.Diff(append(append([]string{}, ServedVersions...), UpstreamOnlyVersions...), ConversionVersions); diff != "" {
		t.Errorf("ConversionVersions is not ServedVersions then UpstreamOnlyVersions (-want +got):\n%s", diff)
	}
	if VersionIndex(StorageVersion) < 0 || !IsServed(StorageVersion) {
		t.Errorf("storage version %s is not served", StorageVersion)
	}
	if got := RestoreAnnotation(V1alpha2); got != "claimbridge.dev/restore-v1alpha2" {
		t.Errorf("RestoreAnnotation = %q", got)
	}
}

func TestMistakenClaim(t *testing.T) {
	for _, tc := range []struct {
		apiVersion, kind string
		want             string // "" for not mistaken
	}{
		{"resource.k8s.io/v1alpha4", "ResourceClaim", KindClaim},
		{"resource.k8s.io/v1beta3", "ResourceClaimTemplate", KindTemplate},
		{"resource.k8s.io/v0", "ResourceClaim", KindClaim},
		{"resource.k8s.io/1.31", "ResourceClaim", KindClaim},
		{"resource.claimbridge.dev/v1", "ResourceClaimList", KindClaimList},
		{"resource.k8s.io/v1alpha2", "ResourceClaims", KindClaim},
		{"resource.k8s.io/v1", "resourceclaimtemplate", KindTemplate},
		{"resource.claimbridge.dev/v1alpha3", "ResourceClaimTemplateLists", KindTemplateList},
		// A later upstream version is passed through; so are the groups'
		// other kinds and other groups.
		{"resource.k8s.io/v2", "ResourceClaim", ""},
		{"resource.k8s.io/v2beta1", "ResourceClaim", ""},
		{"resource.k8s.io/v1alpha2", "ResourceClass", ""},
		{"resource.k8s.io/v1", "DeviceClass", ""},
		{"example.com/v1alpha4", "ResourceClaim", ""},
		// Versions that are converted.
		{"resource.k8s.io/v1", "ResourceClaim", ""},
		{"resource.k8s.io/v1alpha2", "ResourceClaimTemplateList", ""},
		{"resource.claimbridge.dev/v1alpha1", "ResourceClaim", ""},
	} {
		kind, ok := MistakenClaim(map[string]interface{}{"apiVersion": tc.apiVersion, "kind": tc.kind})
		if ok != (tc.want != "") || (ok && kind != tc.want) {
			t.Errorf("%s %s: %q, %v; want %q", tc.apiVersion, tc.kind, kind, ok, tc.want)
		}
	}
}
