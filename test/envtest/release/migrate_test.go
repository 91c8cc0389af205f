package release

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/cli"
	"github.com/claimbridge/claimbridge/conversion"
	"github.com/claimbridge/claimbridge/manifest"
	"github.com/claimbridge/claimbridge/test/migratetest"
)

// TestMigratedIsStoredAsIs runs `claimbridge migrate --to <version>` on each
// input file, creates every migrated claim and template in the release's
// kube-apiserver (each file in its own namespace), and compares the stored
// object with the migrated one exactly (see expected). The objects migrate
// leaves out (1.30 parameters) must be kinds the release does not serve; a
// 1.26/1.30 ResourceClass becomes, from 1.31 on, a DeviceClass the release
// creates.
func TestMigratedIsStoredAsIs(t *testing.T) {
	for _, r := range releases {
		c := clusters[r.name]
		for i, file := range inputFiles(t, r.inputs) {
			t.Run(r.name+"/"+filepath.Base(file), func(t *testing.T) {
				in := upstreamCopy(t, file)
				ns := fmt.Sprintf("r%s-%02d", strings.ReplaceAll(r.name, ".", ""), i)
				var stdout, stderr bytes.Buffer
				code := cli.Main([]string{"migrate", "--to", r.version, "-f", in}, nil, &stdout, &stderr)
				if rejected := r.rejected[filepath.Base(file)]; rejected != "" {
					c.refusedIsRejected(t, in, ns, rejected, code, stderr.String())
					return
				}
				if code != cli.ExitOK {
					t.Fatalf("claimbridge migrate --to %s -f %s: exit %d: %s", r.version, file, code, stderr.String())
				}
				inDocs, err := manifest.ReadAll([]string{in}, nil)
				if err != nil {
					t.Fatal(err)
				}
				objects, leftOut, generated := 0, 0, 0
				for _, d := range inDocs {
					if migratetest.GeneratedForPod(d.Object) {
						generated++ // re-created by the new cluster's controller from the template
					} else if migratetest.Target(t, r.version).Devices && d.Object["kind"] == "ResourceClass" {
						objects++ // the DeviceClass its claims name
					} else if kind, _ := d.Object["kind"].(string); migratetest.Target(t, r.version).Devices && strings.HasSuffix(kind, "Parameters") {
						leftOut++
						c.checkNotServed(t, d.Object["kind"].(string))
					} else if items, ok := d.Object["items"].([]interface{}); ok { // a typed list
						objects += len(items)
					} else {
						objects++
					}
				}
				if got := strings.Count(stderr.String(), ": left out: Kubernetes "+r.name+" does not serve it\n"); got != leftOut {
					t.Errorf("%d objects reported left out, want %d:\n%s", got, leftOut, stderr.String())
				}
				if got := strings.Count(stderr.String(), ": left out: generated for Pod "); got != generated {
					t.Errorf("%d claims reported left out as generated for a pod, want %d:\n%s", got, generated, stderr.String())
				}
				docs, err := manifest.Parse("migrated", stdout.Bytes())
				if err != nil {
					t.Fatal(err)
				}
				if len(docs) != objects {
					t.Fatalf("migrate wrote %d objects for %d claims and templates", len(docs), objects)
				}
				ns = c.createNamespace(t, ns)
				for _, d := range docs {
					if d.Object["kind"] == "DeviceClass" {
						c.createDeviceClass(t, d.Object, ns)
						continue
					}
					c.createAndCompare(t, d.Object, ns, "")
				}
			})
		}
	}
}

// createDeviceClass creates the DeviceClass migrate wrote for a ResourceClass
// (cluster-scoped: named after ns, as inputs share class names), with
// strict field validation as kubectl does.
func (c *cluster) createDeviceClass(t *testing.T, class map[string]interface{}, ns string) {
	t.Helper()
	obj := normalize(class)
	meta := obj["metadata"].(map[string]interface{})
	meta["name"] = ns + "." + meta["name"].(string)
	res := c.dynamic.Resource(schema.GroupVersionResource{Group: api.UpstreamGroup, Version: c.version, Resource: "deviceclasses"})
	if _, err := res.Create(context.Background(), &unstructured.Unstructured{Object: obj}, metav1.CreateOptions{FieldValidation: metav1.FieldValidationStrict}); err != nil {
		t.Errorf("Kubernetes %s: creating the migrated DeviceClass %s: %v", c.name, meta["name"], err)
	}
}

// refusedIsRejected backs migrate's refusal of an input the release
// rejects: migrate exits 1 naming the field (in the target version), and
// the release's apiserver rejects the plain conversion of every object of
// in (whose status and restore annotations it ignores) naming it too.
func (c *cluster) refusedIsRejected(t *testing.T, in, ns, field string, code int, stderr string) {
	t.Helper()
	if code != cli.ExitInvalid || !strings.Contains(stderr, "apiserver would reject the migrated object: "+field) {
		t.Fatalf("claimbridge migrate --to %s: exit %d: %s\nwant exit %d, a refusal naming %s", c.version, code, stderr, cli.ExitInvalid, field)
	}
	docs, err := manifest.ReadAll([]string{in}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ns = c.createNamespace(t, ns)
	for _, d := range docs {
		out, err := conversion.Convert(d.Object, c.version)
		if err != nil {
			t.Fatal(err)
		}
		c.createAndCompare(t, out, ns, field)
	}
}

// createAndCompare creates migrated in namespace ns and compares what the
// apiserver stored (read back) with it; with rejected, the create must be
// refused as Invalid naming that field.
func (c *cluster) createAndCompare(t *testing.T, migrated map[string]interface{}, ns, rejected string) {
	t.Helper()
	ctx := context.Background()
	group, version, kind, err := conversion.Identify(migrated)
	if err != nil {
		t.Fatal(err)
	}
	if group != api.UpstreamGroup || version != c.version || (kind != api.KindClaim && kind != api.KindTemplate) {
		t.Fatalf("migrate wrote a %s of %s/%s, want a claim or template of %s/%s", kind, group, version, api.UpstreamGroup, c.version)
	}
	obj := normalize(migrated)
	meta, _ := obj["metadata"].(map[string]interface{})
	if meta == nil { // a partial fixture (conversion/testdata/partial-spec)
		meta = map[string]interface{}{}
		obj["metadata"] = meta
	}
	meta["namespace"] = ns
	name, _ := meta["name"].(string)
	res := c.dynamic.Resource(gvr(version, kind)).Namespace(ns)
	_, err = res.Create(ctx, &unstructured.Unstructured{Object: obj}, metav1.CreateOptions{})
	if rejected != "" {
		if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), rejected) {
			t.Errorf("Kubernetes %s: create of %s %s: %v, want Invalid naming %s", c.name, kind, name, err, rejected)
		}
		return
	}
	if err != nil {
		t.Fatalf("Kubernetes %s rejects %s %s: %v\n%s", c.name, kind, name, err, mustJSON(obj))
	}
	stored, err := res.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := normalize(stored.Object)
	want, err := expected(obj, got, version, kind)
	if err != nil {
		t.Fatalf("%s %s: %v", kind, name, err)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Kubernetes %s stored %s %s otherwise than migrated (-want +stored):\n%s", c.name, kind, name, d)
	}
}

// checkNotServed fails unless the release's apiserver does not serve kind
// in resource.k8s.io/<its version>, while it does serve claims and templates.
func (c *cluster) checkNotServed(t *testing.T, kind string) {
	t.Helper()
	list, err := c.discovery.ServerResourcesForGroupVersion(api.UpstreamGroup + "/" + c.version)
	if err != nil {
		t.Fatal(err)
	}
	served := map[string]bool{}
	for _, r := range list.APIResources {
		served[r.Kind] = true
	}
	if served[kind] || !served[api.KindClaim] || !served[api.KindTemplate] {
		t.Errorf("migrate leaves out %s, but Kubernetes %s serves %v in %s/%s", kind, c.name, keys(served), api.UpstreamGroup, c.version)
	}
}

// createNamespace creates a namespace named prefix and a generated suffix
// and returns its name: each cluster runs once per process, so a test run
// again (-count=2) must not meet its namespaces (nor the DeviceClasses
// named after them) of the run before.
func (c *cluster) createNamespace(t *testing.T, prefix string) string {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: prefix + "-"}}
	created, err := c.core.CoreV1().Namespaces().Create(context.Background(), ns, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return created.Name
}

func gvr(version, kind string) schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: api.UpstreamGroup, Version: version, Resource: strings.ToLower(kind) + "s"}
}

// inputFiles expands the globs; each must match.
func inputFiles(t *testing.T, globs []string) []string {
	t.Helper()
	var files []string
	for _, g := range globs {
		m, err := filepath.Glob(g)
		if err != nil || len(m) == 0 {
			t.Fatalf("input %s matches no file (%v)", g, err)
		}
		files = append(files, m...)
	}
	return files
}

// upstreamCopy writes file to a temporary file with claimbridge's group
// replaced by resource.k8s.io: the fixtures of the claimbridge CRD are the
// same objects as a cluster of the release exports them.
func upstreamCopy(t *testing.T, file string) string {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	data = bytes.ReplaceAll(data, []byte(api.Group+"/"), []byte(api.UpstreamGroup+"/"))
	out := filepath.Join(t.TempDir(), filepath.Base(file))
	if err := os.WriteFile(out, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
