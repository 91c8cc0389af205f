//go:build envtest

package ga

import (
	"context"
	"fmt"
	resourcev1 "k8s.io/api/resource/v1"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/conversion"
	"github.com/claimbridge/claimbridge/manifest"
	"github.com/claimbridge/claimbridge/migrate"
	"github.com/claimbridge/claimbridge/test/migratetest"
)

// TestMigrateExported migrates what `kubectl get -o yaml` printed on 1.26,
// 1.30 (structured parameters: examples/migrate/exported-1.30.yaml, a claim
// allocated by the scheduler and a template, with their
// ResourceClaimParameters) and 1.31 clusters to v1beta1, v1beta2 and v1 as
// `claimbridge migrate` does, creates every claim and template in
// kube-apiserver 1.37, and checks that the apiserver kept every field the
// migration wrote (it may only add defaults).
func TestMigrateExported(t *testing.T) {
	useNamespace(t)
	ctx := context.Background()
	files := []string{
		"../../../examples/migrate/exported-1.30.yaml",
		"../../../examples/claim-v1alpha1.yaml",
		"../../../examples/claim-v1alpha3.yaml",
		"../../../examples/template-v1alpha3.yaml",
	}
	docs, err := manifest.ReadAll(files, nil)
	if err != nil {
		t.Fatal(err)
	}
	idx := &migrate.Index{}
	for _, d := range docs {
		idx.Add(d.Object)
	}
	translated := 0
	for i, d := range docs {
		if kind, _ := d.Object["kind"].(string); strings.HasSuffix(kind, "Parameters") || kind == "ResourceClass" {
			continue
		}
		group, version, kind, err := conversion.Identify(d.Object)
		if err != nil {
			t.Fatalf("%s: %v", d.Position(), err)
		}
		if group != api.UpstreamGroup { // the examples of the claimbridge CRD, as a 1.31 cluster exports them
			d.Object["apiVersion"] = api.UpstreamGroup + "/" + version
		}
		for _, version := range api.UpstreamOnlyVersions {
			name := fmt.Sprintf("exported-%d-%s", i, version)
			t.Run(name, func(t *testing.T) {
				migrated, changed, err := migratetest.Migrated(t, d.Object, version, migrate.Options{Parameters: idx})
				if err != nil {
					t.Fatalf("%s: %v", d.Position(), err)
				}
				for _, c := range changed {
					if strings.HasPrefix(c, "spec.devices: ") || strings.HasPrefix(c, "spec.spec.devices: ") {
						translated++
					}
				}
				meta := migrated["metadata"].(map[string]interface{})
				meta["name"], meta["namespace"] = name, namespace
				created, err := s.dynamic.Resource(gvr(version, kind)).Namespace(namespace).Create(ctx, &unstructured.Unstructured{Object: migrated}, metav1.CreateOptions{})
				if err != nil {
					t.Fatalf("%s: creating as %s: %v\n%s", d.Position(), version, err, mustJSON(migrated))
				}
				if path, ok := contains(created.Object["spec"], migrated["spec"], "spec"); !ok {
					t.Errorf("%s: the apiserver did not keep %s as migrated\nmigrated: %s\ncreated: %s", d.Position(), path, mustJSON(migrated["spec"]), mustJSON(created.Object["spec"]))
				}
				if path, ok := contains(created.Object["metadata"], map[string]interface{}{
					"labels": meta["labels"], "annotations": meta["annotations"], "finalizers": meta["finalizers"],
				}, "metadata"); !ok {
					t.Errorf("%s: the apiserver did not keep %s as migrated", d.Position(), path)
				}
			})
		}
	}
	// The claim and the template of exported-1.30.yaml, once per version.
	if want := 2 * len(api.UpstreamOnlyVersions); translated != want {
		t.Errorf("%d objects with translated parameters, want %d", translated, want)
	}
}

// contains reports whether got has every field of want with the same value
// (got may have more map keys: defaults), and the path of the first
// difference.
func contains(got, want interface{}, path string) (string, bool) {
	switch w := want.(type) {
	case nil:
		return path, true
	case map[string]interface{}:
		g, ok := got.(map[string]interface{})
		if !ok {
			return path, false
		}
		for k, v := range w {
			if p, ok := contains(g[k], v, path+"."+k); !ok {
				return p, false
			}
		}
		return path, true
	case []interface{}:
		g, ok := got.([]interface{})
		if !ok || len(g) != len(w) {
			return path, false
		}
		for i := range w {
			if p, ok := contains(g[i], w[i], fmt.Sprintf("%s[%d]", path, i)); !ok {
				return p, false
			}
		}
		return path, true
	default:
		return path, fmt.Sprint(got) == fmt.Sprint(want)
	}
}

// TestMigrateRefusedIsRejected backs migrate's refusals: what migrate
// refuses for a GA target, kube-apiserver 1.37 rejects when the plain
// conversion is created.
func TestMigrateRefusedIsRejected(t *testing.T) {
	useNamespace(t)
	ctx := context.Background()
	long := strings.Repeat("x", resourcev1.CELSelectorExpressionMaxLength+1)
	request := func(extra map[string]interface{}) []interface{} {
		r := map[string]interface{}{"name": "r", "deviceClassName": "gpu.example.com"}
		for k, v := range extra {
			r[k] = v
		}
		return []interface{}{r}
	}
	tests := []struct {
		name    string
		field   string // in the apiserver's message
		devices map[string]interface{}
	}{
		{"cel-over-10ki", "cel.expression", map[string]interface{}{"requests": request(map[string]interface{}{
			"selectors": []interface{}{map[string]interface{}{"cel": map[string]interface{}{"expression": long}}}})}},
		{"parameters-not-an-object", "opaque.parameters", map[string]interface{}{"requests": request(nil),
			"config": []interface{}{map[string]interface{}{"opaque": map[string]interface{}{"driver": "gpu.example.com", "parameters": []interface{}{"a"}}}}}},
		{"parameters-over-10ki", "opaque.parameters", map[string]interface{}{"requests": request(nil),
			"config": []interface{}{map[string]interface{}{"opaque": map[string]interface{}{"driver": "gpu.example.com", "parameters": map[string]interface{}{"a": long}}}}}},
		{"parameters-absent", "opaque.parameters", map[string]interface{}{"requests": request(nil),
			"config": []interface{}{map[string]interface{}{"opaque": map[string]interface{}{"driver": "gpu.example.com"}}}}},
	}
	for _, tt := range tests {
		for _, version := range api.UpstreamOnlyVersions {
			name := "refused-" + tt.name + "-" + version
			t.Run(name, func(t *testing.T) {
				in := map[string]interface{}{
					"apiVersion": "resource.k8s.io/v1alpha3", "kind": api.KindClaim,
					"metadata": map[string]interface{}{"name": name, "namespace": namespace},
					"spec":     map[string]interface{}{"devices": tt.devices},
				}
				if _, _, err := migratetest.Migrated(t, in, version, migrate.Options{}); err == nil || !strings.Contains(err.Error(), "apiserver would reject the migrated object") {
					t.Fatalf("migrate: %v, want a refusal", err)
				}
				out, err := conversion.Convert(in, version)
				if err != nil {
					t.Fatal(err)
				}
				_, err = s.dynamic.Resource(gvr(version, api.KindClaim)).Namespace(namespace).Create(ctx, &unstructured.Unstructured{Object: out}, metav1.CreateOptions{})
				if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), tt.field) {
					t.Fatalf("create of the plain conversion: %v, want Invalid naming %s", err, tt.field)
				}
			})
		}
	}
}

// TestMigrateRefusedDeviceClassIsRejected: a 1.31 DeviceClass over the
// limits 1.32 added (1.36 validateDeviceClassSpec) is refused by migrate for
// every GA version, and the apiserver rejects the class in that version;
// within the limits it is created.
func TestMigrateRefusedDeviceClassIsRejected(t *testing.T) {
	useNamespace(t)
	ctx := context.Background()
	long := strings.Repeat("x", resourcev1.CELSelectorExpressionMaxLength+1)
	class := func(name string, spec map[string]interface{}) map[string]interface{} {
		return map[string]interface{}{"apiVersion": "resource.k8s.io/v1alpha3", "kind": "DeviceClass",
			"metadata": map[string]interface{}{"name": name}, "spec": spec}
	}
	tests := []struct {
		name, field string // field: in the apiserver's message; "" for a class that is created
		spec        map[string]interface{}
	}{
		{"cel-over-10ki", "cel.expression", map[string]interface{}{"selectors": []interface{}{map[string]interface{}{"cel": map[string]interface{}{"expression": long}}}}},
		{"parameters-over-10ki", "opaque.parameters", map[string]interface{}{"config": []interface{}{map[string]interface{}{"opaque": map[string]interface{}{"driver": "gpu.example.com", "parameters": map[string]interface{}{"a": long}}}}}},
		{"parameters-absent", "opaque.parameters", map[string]interface{}{"config": []interface{}{map[string]interface{}{"opaque": map[string]interface{}{"driver": "gpu.example.com"}}}}},
		{"within-limits", "", map[string]interface{}{"selectors": []interface{}{map[string]interface{}{"cel": map[string]interface{}{"expression": "true"}}},
			"config": []interface{}{map[string]interface{}{"opaque": map[string]interface{}{"driver": "gpu.example.com", "parameters": map[string]interface{}{"a": 1}}}}}},
	}
	for _, tt := range tests {
		for _, version := range api.UpstreamOnlyVersions {
			name := "class-" + tt.name + "-" + version + "-" + run(t)
			t.Run(name, func(t *testing.T) {
				// What migrate would have written: the class in version
				// (convert refuses it too, writing nothing).
				out := class(name, tt.spec)
				out["apiVersion"] = api.UpstreamGroup + "/" + version
				_, _, err := migratetest.Migrated(t, class(name, tt.spec), version, migrate.Options{})
				if (err == nil) != (tt.field == "") {
					t.Fatalf("migrate: %v", err)
				}
				gvr := schema.GroupVersionResource{Group: api.UpstreamGroup, Version: version, Resource: "deviceclasses"}
				_, err = s.dynamic.Resource(gvr).Create(ctx, &unstructured.Unstructured{Object: out}, metav1.CreateOptions{})
				switch {
				case tt.field == "" && err != nil:
					t.Fatalf("create: %v", err)
				case tt.field != "" && (!apierrors.IsInvalid(err) || !strings.Contains(err.Error(), tt.field)):
					t.Fatalf("create of what migrate refused: %v, want Invalid naming %s", err, tt.field)
				}
			})
		}
	}
}

// TestMigrateLiveExports creates in kube-apiserver 1.37 what migrate makes
// of the real 1.30 and 1.26 exports of test/manifests/exports (`kubectl get
// resourceclaims,resourceclaimtemplates -A -o yaml|json`: server-set
// metadata, allocated and reserved claims, finalizers, claims generated for
// pods), for v1beta1, v1beta2 and v1: the claims generated for pods are left
// out as `claimbridge migrate` does, every other object is created and the
// apiserver keeps its spec as migrated.
func TestMigrateLiveExports(t *testing.T) {
	useNamespace(t)
	ctx := context.Background()
	for f, file := range []string{
		"../../../test/manifests/exports/1.30/claims.yaml",
		"../../../test/manifests/exports/1.30/claims.json",
		"../../../test/manifests/exports/1.26/claims.yaml",
	} {
		docs, err := manifest.ReadAll([]string{file}, nil)
		if err != nil {
			t.Fatal(err)
		}
		idx := &migrate.Index{} // parameters of this export only
		for _, d := range docs {
			idx.Add(d.Object)
		}
		created, generated := 0, 0
		for i, d := range docs {
			if migratetest.GeneratedForPod(d.Object) {
				generated++
				continue
			}
			_, _, kind, err := conversion.Identify(d.Object)
			if err != nil {
				t.Fatalf("%s: %v", d.Position(), err)
			}
			for _, version := range api.UpstreamOnlyVersions {
				migrated, _, err := migratetest.Migrated(t, d.Object, version, migrate.Options{Parameters: idx})
				if err != nil {
					t.Fatalf("%s: %v", d.Position(), err)
				}
				meta := migrated["metadata"].(map[string]interface{})
				meta["name"], meta["namespace"] = fmt.Sprintf("live-%d-%d-%s", f, i, version), namespace
				got, err := s.dynamic.Resource(gvr(version, kind)).Namespace(namespace).Create(ctx, &unstructured.Unstructured{Object: migrated}, metav1.CreateOptions{})
				if err != nil {
					t.Fatalf("%s: creating as %s: %v\n%s", d.Position(), version, err, mustJSON(migrated))
				}
				if path, ok := contains(got.Object["spec"], migrated["spec"], "spec"); !ok {
					t.Errorf("%s: the apiserver did not keep %s as migrated", d.Position(), path)
				}
				created++
			}
		}
		if created == 0 || generated == 0 {
			t.Errorf("%s: %d objects created, %d generated claims left out: the export should have both", file, created, generated)
		}
	}
}
