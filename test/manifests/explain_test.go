//go:build envtest

package manifests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

// TestExplainNamesTheRelease: `kubectl explain <resource>
// --api-version=resource.claimbridge.dev/<version>` starts with the schema's
// top-level description, which must say which Kubernetes release's shape the
// version is, for templates as for claims.
func TestExplainNamesTheRelease(t *testing.T) {
	want := map[string]string{
		"v1alpha1": "This is the resource.k8s.io/v1alpha1 shape of Kubernetes 1.26",
		"v1alpha2": "This is the resource.k8s.io/v1alpha2 shape of Kubernetes 1.27–1.30",
		"v1alpha3": "This is the resource.k8s.io/v1alpha3 shape of Kubernetes 1.31",
	}
	paths, err := filepath.Glob(filepath.Join(repoRoot(t), "config", "crd", "bases", "*.yaml"))
	if err != nil || len(paths) != 2 {
		t.Fatalf("generated CRDs: %v %v", paths, err)
	}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var crd apiextensionsv1.CustomResourceDefinition
		if err := yaml.Unmarshal(data, &crd); err != nil {
			t.Fatal(err)
		}
		for _, v := range crd.Spec.Versions {
			desc := v.Schema.OpenAPIV3Schema.Description
			if !strings.Contains(desc, want[v.Name]) {
				t.Errorf("%s %s: description %q does not say %q", crd.Name, v.Name, desc, want[v.Name])
			}
		}
	}
}
