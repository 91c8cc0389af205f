//go:build envtest

package ga

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/cli"
	"github.com/claimbridge/claimbridge/manifest"
)

// TestMigrateRealWorld runs `claimbridge migrate --to v1beta1|v1beta2|v1` on
// every manifest of test/manifests/drivers (written here in the shapes DRA
// drivers and the Kubernetes docs published for 1.26–1.31, with their Pods,
// Deployments and vendor parameter objects) and creates, in kube-apiserver 1.37 with strict field
// validation as kubectl does, every claim and template, every DeviceClass
// (from a ResourceClass or a 1.31 DeviceClass) and every Pod and Deployment
// that uses them (each file and version in its own namespace).
// Namespaces and vendor objects (no CRD here) are not created.
func TestMigrateRealWorld(t *testing.T) {
	useNamespace(t)
	ctx := context.Background()
	files, err := filepath.Glob("../../manifests/drivers/*.yaml")
	if err != nil || len(files) < 30 {
		t.Fatalf("%d driver manifests (%v)", len(files), err)
	}
	created := map[string]int{}
	for i, file := range files {
		for _, version := range api.UpstreamOnlyVersions {
			ns := fmt.Sprintf("rw-%02d-%s-%s", i, version, run(t))
			t.Run(ns, func(t *testing.T) {
				var stdout, stderr bytes.Buffer
				if code := cli.Main([]string{"migrate", "--to", version, "-f", file}, nil, &stdout, &stderr); code != cli.ExitOK {
					t.Fatalf("claimbridge migrate --to %s -f %s: exit %d: %s", version, file, code, stderr.String())
				}
				docs, err := manifest.Parse(file, stdout.Bytes())
				if err != nil {
					t.Fatal(err)
				}
				if _, err := s.core.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
					t.Fatal(err)
				}
				for _, d := range docs {
					apiVersion, _ := d.Object["apiVersion"].(string)
					kind, _ := d.Object["kind"].(string)
					var res schema.GroupVersionResource
					switch {
					case apiVersion == api.UpstreamGroup+"/"+version && (kind == api.KindClaim || kind == api.KindTemplate):
						res = gvr(version, kind)
					case apiVersion == api.UpstreamGroup+"/"+version && kind == "DeviceClass":
						// The class a migrated 1.26/1.30 ResourceClass or a
						// 1.31 DeviceClass becomes (cluster-scoped: named
						// after the namespace, as files share class names).
						meta := d.Object["metadata"].(map[string]interface{})
						meta["name"] = fmt.Sprintf("%s.%s", ns, meta["name"])
						if _, err := s.dynamic.Resource(schema.GroupVersionResource{Group: api.UpstreamGroup, Version: version, Resource: "deviceclasses"}).
							Create(ctx, &unstructured.Unstructured{Object: d.Object}, metav1.CreateOptions{FieldValidation: metav1.FieldValidationStrict}); err != nil {
							t.Fatalf("%s: creating the migrated DeviceClass %v: %v\n%s", d.Position(), meta["name"], err, mustJSON(d.Object))
						}
						created[kind]++
						continue
					case apiVersion == "v1" && kind == "Pod":
						res = schema.GroupVersionResource{Version: "v1", Resource: "pods"}
					case apiVersion == "apps/v1" && kind == "Deployment":
						res = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
					case strings.HasPrefix(apiVersion, api.UpstreamGroup+"/"):
						t.Fatalf("%s: migrate --to %s wrote a %s %s", d.Position(), version, apiVersion, kind)
					default:
						continue // a Namespace, a vendor object
					}
					meta := d.Object["metadata"].(map[string]interface{})
					meta["namespace"] = ns
					_, err := s.dynamic.Resource(res).Namespace(ns).Create(ctx, &unstructured.Unstructured{Object: d.Object},
						metav1.CreateOptions{FieldValidation: metav1.FieldValidationStrict})
					if err != nil {
						t.Fatalf("%s: creating the migrated %s %v: %v\n%s", d.Position(), kind, meta["name"], err, mustJSON(d.Object))
					}
					created[kind]++
				}
			})
		}
	}
	// The manifests hold claims, templates, classes, Pods and Deployments:
	// each kind was created.
	for _, kind := range []string{api.KindClaim, api.KindTemplate, "DeviceClass", "Pod", "Deployment"} {
		if created[kind] == 0 {
			t.Errorf("no %s created", kind)
		}
	}
}
