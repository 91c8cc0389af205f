//go:build envtest

package ga

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/conversion"
	"github.com/claimbridge/claimbridge/judge"
	"github.com/claimbridge/claimbridge/manifest"
	"github.com/claimbridge/claimbridge/migrate"
	"github.com/claimbridge/claimbridge/test/migratetest"
)

// fixture is one claim or template of the alpha shapes.
type fixture struct {
	name   string // DNS label prefix for the objects created from it
	source string // file and document, for messages
	kind   string
	obj    map[string]interface{}
}

// fixtures reads every claim and template of conversion/testdata and
// examples/: Kubernetes 1.26 (v1alpha1), 1.27–1.30 (v1alpha2) and 1.31
// (v1alpha3) manifests, including templates with parameters and allocated
// claims.
func fixtures(t *testing.T) []fixture {
	t.Helper()
	var files []string
	for _, pattern := range []string{"../../../conversion/testdata/*.yaml", "../../../examples/*.yaml"} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	docs, err := manifest.ReadAll(files, nil)
	if err != nil {
		t.Fatal(err)
	}
	var out []fixture
	seen := map[string]int{}
	for _, d := range docs {
		if statusPatches[filepath.Base(d.Source)] {
			continue
		}
		_, _, kind, err := conversion.Identify(d.Object)
		if err != nil {
			continue
		}
		objects := []map[string]interface{}{d.Object}
		if strings.HasSuffix(kind, "List") {
			kind = strings.TrimSuffix(kind, "List")
			objects = nil
			for _, it := range d.Object["items"].([]interface{}) {
				item := it.(map[string]interface{})
				item["apiVersion"] = d.Object["apiVersion"]
				objects = append(objects, item)
			}
		}
		base := strings.NewReplacer(".", "-", "_", "-").Replace(strings.TrimSuffix(filepath.Base(d.Source), ".yaml"))
		for _, obj := range objects {
			seen[base]++
			out = append(out, fixture{
				name:   fmt.Sprintf("%s-%d", strings.ToLower(base), seen[base]),
				source: d.Position(),
				kind:   kind,
				obj:    obj,
			})
		}
	}
	if len(out) < 20 {
		t.Fatalf("only %d fixtures found", len(out))
	}
	return out
}

// statusPatches are fixtures that are partial status patches, not objects:
// a status without a spec refers to a request no claim has.
var statusPatches = map[string]bool{"partial-status.v1alpha1.yaml": true}

func gvr(version, kind string) schema.GroupVersionResource {
	resource := map[string]string{api.KindClaim: "resourceclaims", api.KindTemplate: "resourceclaimtemplates", kindDeviceClass: "deviceclasses"}[kind]
	return schema.GroupVersionResource{Group: api.UpstreamGroup, Version: version, Resource: resource}
}

// forCreate migrates obj to version as `claimbridge migrate` does (server-set
// metadata, status, owner references and restore annotations dropped, the
// built-in finalizer dropped, GA checks) and renames it into
// the suite's namespace.
func forCreate(t *testing.T, source string, obj map[string]interface{}, version, name string, opts migrate.Options) map[string]interface{} {
	t.Helper()
	// Named first: migrate refuses an object without a name (a fixture of
	// a partial spec), as the apiserver would.
	in := maps.Clone(obj)
	meta, _ := in["metadata"].(map[string]interface{})
	meta = maps.Clone(meta)
	if meta == nil {
		meta = map[string]interface{}{}
	}
	meta["name"], meta["namespace"] = name, namespace
	in["metadata"] = meta
	out, _, err := migratetest.Migrated(t, in, version, opts)
	if err != nil {
		t.Fatalf("%s: migrating to %s: %v", source, version, err)
	}
	meta = out["metadata"].(map[string]interface{})
	meta["name"], meta["namespace"] = name, namespace
	return out
}

// TestCreateConverted converts every fixture to v1beta1, v1beta2 and v1 and
// checks that each result decodes strictly into the k8s.io/api v0.36 type of
// its version; creates the fixture migrated to that version (what
// `claimbridge migrate --to VERSION` prints) in kube-apiserver 1.37 and
// writes the converted status through the status subresource. Then it reads the three objects
// back as v1: the apiserver's conversion of claimbridge's v1beta1 and
// v1beta2 must give the spec and status claimbridge's v1 has.
func TestCreateConverted(t *testing.T) {
	useNamespace(t)
	ctx := context.Background()
	for _, f := range fixtures(t) {
		t.Run(f.name, func(t *testing.T) {
			f.obj["apiVersion"] = api.UpstreamGroup + "/" + strings.SplitN(f.obj["apiVersion"].(string), "/", 2)[1]
			readBack := map[string]map[string]interface{}{}
			for _, version := range api.UpstreamOnlyVersions {
				converted, err := conversion.Convert(f.obj, version)
				if err != nil {
					t.Fatalf("%s: converting to %s: %v", f.source, version, err)
				}
				unknown, err := judge.UnknownFields(converted, version, f.kind)
				if err == nil {
					err = unknown.ToAggregate()
				}
				if err != nil {
					t.Fatalf("%s: the %s result does not decode strictly into k8s.io/api: %v", f.source, version, err)
				}
				name := f.name + "-" + version
				obj, status := forCreate(t, f.source, f.obj, version, name, migrate.Options{}), converted["status"]
				client := s.dynamic.Resource(gvr(version, f.kind)).Namespace(namespace)
				created, err := client.Create(ctx, &unstructured.Unstructured{Object: obj}, metav1.CreateOptions{})
				if err != nil {
					t.Fatalf("%s: creating as %s: %v\n%s", f.source, version, err, mustJSON(obj))
				}
				if s, ok := status.(map[string]interface{}); ok && len(s) > 0 {
					created.Object["status"] = s
					if _, err := client.UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
						t.Fatalf("%s: writing the %s status: %v\n%s", f.source, version, err, mustJSON(s))
					}
				}
				got, err := s.dynamic.Resource(gvr(api.V1, f.kind)).Namespace(namespace).Get(ctx, name, metav1.GetOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if status != nil && f.kind == api.KindClaim && !statusIsEmpty(status) && got.Object["status"] == nil {
					t.Fatalf("%s: the %s status was not stored", f.source, version)
				}
				readBack[version] = map[string]interface{}{"spec": got.Object["spec"], "status": got.Object["status"]}
			}
			for _, version := range []string{api.V1beta1, api.V1beta2} {
				if diff := cmp.Diff(readBack[api.V1], readBack[version]); diff != "" {
					t.Errorf("%s: created as v1 and as %s, read as v1 (-v1 +%s):\n%s", f.source, version, version, diff)
				}
			}
		})
	}
}

func statusIsEmpty(status interface{}) bool {
	m, _ := status.(map[string]interface{})
	return len(m) == 0
}

func mustJSON(v interface{}) string {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		panic(err)
	}
	return string(data)
}
