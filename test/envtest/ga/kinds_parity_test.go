//go:build envtest

package ga

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/cli"
	"github.com/claimbridge/claimbridge/judge"
	"github.com/claimbridge/claimbridge/test/envtest/harness"
)

// TestParityKinds: for every DeviceClass, ResourceSlice and DeviceTaintRule
// of testdata/parity-kinds and the slices generated from it at the limits
// (kindsGenerated), `claimbridge validate --to 1.37`'s verdict
// (judge.CheckKind) is the suite's kube-apiserver 1.37's on a strict
// server-side dry-run create: it refuses exactly the objects named
// invalid-*, and when it refuses one as invalid (422), the field paths of
// its causes are those CheckKind's errors name.
func TestParityKinds(t *testing.T) {
	useNamespace(t)
	objects := kindsCorpus(t)
	agree := 0
	for _, name := range slices.Sorted(maps.Keys(objects)) {
		if t.Run(name, func(t *testing.T) {
			obj := objects[name]
			if version, _ := judge.KindOf(obj); version != api.V1 {
				t.Fatalf("%s is not a v1 DeviceClass, ResourceSlice or DeviceTaintRule", name)
			}
			serverErr := testKindParity(t, suiteCluster(t), obj, s.dynamic)
			if (serverErr != nil) != strings.HasPrefix(name, "invalid-") {
				t.Errorf("corpus: %s, but the apiserver says %v", name, serverErr)
			}
		}) {
			agree++
		}
	}
	t.Logf("parity with kube-apiserver 1.37 (testdata/parity-kinds and %d generated): %d of %d objects agree", len(kindsGenerated), agree, len(objects))
}

// kindsRelease is an old release TestParityKindsOld asks about every kind.
type kindsRelease struct {
	name    string   // "1.31"
	version string   // the resource.k8s.io version of its claims
	also    []string // versions enabled beside it
	native  string   // a corpus of the release's own shapes, or ""
}

// kindsReleases are the releases before 1.37, each started serving its
// claims' version and, in 1.33–1.35, DeviceTaintRule's v1alpha3.
var kindsReleases = []kindsRelease{
	{name: "1.26", version: api.V1alpha1, native: "parity-kinds-1.26"},
	{name: "1.30", version: api.V1alpha2, native: "parity-kinds-1.30"},
	{name: "1.31", version: api.V1alpha3},
	{name: "1.32", version: api.V1beta1},
	{name: "1.33", version: api.V1beta2, also: []string{api.V1alpha3}},
	{name: "1.34", version: api.V1, also: []string{api.V1alpha3}},
	{name: "1.35", version: api.V1, also: []string{api.V1alpha3}},
	{name: "1.36", version: api.V1},
}

// TestParityKindsOld: for each release 1.26, 1.30–1.36, `claimbridge
// convert --to <release>` of every object TestParityKinds sends to 1.37,
// and the objects of the release's own shapes (testdata/parity-kinds-1.26,
// parity-kinds-1.30), are judged by `claimbridge validate --to <release>`
// (judge.CheckKind) as that release's kube-apiserver judges them on a
// strict server-side dry-run create, live under `make record` or from its
// recorded answers (testdata/kinds-<release>.jsonl.gz): the same verdict,
// and on a 422 the same field paths. An object of a kind or version the
// release does not serve is refused by both. The native corpus refuses
// exactly its objects named invalid-*.
func TestParityKindsOld(t *testing.T) {
	corpus := kindsCorpus(t)
	for _, r := range kindsReleases {
		t.Run(r.name, func(t *testing.T) {
			client, err := dynamic.NewForConfig(startOld(t, r.name, r.version, "testdata/kinds-"+r.name+".jsonl.gz", r.also...))
			if err != nil {
				t.Fatal(err)
			}
			featureGates, runtimeConfig := harness.Flags(r.version, r.also...)
			c, err := harness.Cluster(r.name, featureGates, runtimeConfig)
			if err != nil {
				t.Fatal(err)
			}
			objects := map[string]map[string]interface{}{}
			notConverted := 0
			for name, obj := range corpus {
				if out := convertKind(t, obj, r.name); out != nil {
					objects["converted-"+name] = out
				} else {
					notConverted++
				}
			}
			if r.native != "" {
				for name, obj := range readKindsDir(t, r.native) {
					objects[name] = obj
				}
			}
			var refused, invalid int
			for _, name := range slices.Sorted(maps.Keys(objects)) {
				t.Run(name, func(t *testing.T) {
					serverErr := testKindParity(t, c, objects[name], client)
					if serverErr != nil {
						refused++
					}
					if apierrors.IsInvalid(serverErr) {
						invalid++
					}
					if !strings.HasPrefix(name, "converted-") && (serverErr != nil) != strings.HasPrefix(name, "invalid-") {
						t.Errorf("corpus: %s, but the apiserver says %v", name, serverErr)
					}
				})
			}
			t.Logf("parity with kube-apiserver %s: %d objects, %d refused (%d as invalid); %d of testdata/parity-kinds not converted", r.name, len(objects), refused, invalid, notConverted)
			if r.native == "" && invalid < 10 {
				t.Errorf("only %d objects refused as invalid: the corpus no longer reaches %s's rules", invalid, r.name)
			}
		})
	}
}

// kindsCorpus is testdata/parity-kinds and the objects kindsGenerated makes.
func kindsCorpus(t *testing.T) map[string]map[string]interface{} {
	t.Helper()
	objects := readKindsDir(t, "parity-kinds")
	for name, generate := range kindsGenerated {
		if objects[name] != nil {
			t.Fatalf("%s is both a file and generated", name)
		}
		objects[name] = generate(t)
	}
	return objects
}

// readKindsDir reads the objects of testdata/dir by name.
func readKindsDir(t *testing.T, dir string) map[string]map[string]interface{} {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", dir, "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus in testdata/%s: %v", dir, err)
	}
	objects := map[string]map[string]interface{}{}
	for _, file := range files {
		objects[strings.TrimSuffix(filepath.Base(file), ".yaml")] = readKindObject(t, file)
	}
	return objects
}

// convertKind is `claimbridge convert --to release` of obj: the object it
// writes, converted or passed through, or nil when it refuses to convert
// it, saying why ("not converted to …", exit 1).
func convertKind(t *testing.T, obj map[string]interface{}, release string) map[string]interface{} {
	t.Helper()
	data, err := yaml.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "in.yaml")
	if err := os.WriteFile(file, data, 0o600); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	code := cli.Main([]string{"convert", "--to", release, "-f", file}, nil, &stdout, &stderr)
	if code == cli.ExitInvalid && stdout.Len() == 0 && strings.Contains(stderr.String(), ": not converted to ") {
		return nil
	}
	var out map[string]interface{}
	if err := yaml.Unmarshal(stdout.Bytes(), &out); err != nil || out == nil || code != cli.ExitOK && code != cli.ExitInvalid {
		t.Fatalf("convert --to %s: exit %d, wrote %q (%v): %s", release, code, stdout.String(), err, stderr.String())
	}
	return out
}

// testKindParity checks `claimbridge validate --to release`'s verdict on
// obj (judge.CheckKind), told the gates and versions of the cluster c,
// against the apiserver behind client, and returns the apiserver's answer.
// Each field the apiserver drops from an object it accepts must be named
// by a warning.
func testKindParity(t *testing.T, c api.Cluster, obj map[string]interface{}, client dynamic.Interface) error {
	t.Helper()
	_, _, version, kind, _ := api.TypeOf(obj)
	release := fmt.Sprintf("1.%d", c.Minor)
	errs, warnings := judge.CheckKind(api.DeepCopyJSON(obj), c, kind)
	created, serverErr := dryRunCreateKind(client, obj, version, kind)
	for _, path := range droppedPaths(obj["spec"], created["spec"], field.NewPath("spec")) { // nil: refused
		if !slices.ContainsFunc(warnings, func(w string) bool { return strings.HasPrefix(path, strings.SplitN(w, ":", 2)[0]) }) {
			t.Errorf("kube-apiserver %s drops %s, which no warning names: %q", release, path, warnings)
		}
	}
	if apierrors.IsNotFound(serverErr) && strings.Contains(serverErr.Error(), "could not find the requested resource") {
		serverErr = fmt.Errorf("not served: %w", serverErr) // the resource, not the object, is missing
	}
	switch {
	case len(errs) == 0 && serverErr != nil:
		t.Fatalf("claimbridge accepts it, kube-apiserver %s refuses it: %v", release, serverErr)
	case len(errs) > 0 && serverErr == nil:
		t.Fatalf("claimbridge refuses it, kube-apiserver %s accepts it:\n%s", release, strings.Join(errs, "\n"))
	}
	var statusErr *apierrors.StatusError
	if !apierrors.IsInvalid(serverErr) || !errors.As(serverErr, &statusErr) {
		return serverErr // accepted by both, or refused before validation (a strict decode, a resource not served)
	}
	server := sets.New[string]()
	for _, cause := range statusErr.ErrStatus.Details.Causes {
		server.Insert(cause.Field)
	}
	ours := sets.New[string]()
	for _, e := range errs {
		path, _, _ := strings.Cut(e, ": ")
		ours.Insert(path)
	}
	if d := cmp.Diff(sorted(server), sorted(ours)); d != "" {
		t.Errorf("field paths (-apiserver +claimbridge):\n%s\napiserver: %v\nclaimbridge:\n%s", d, serverErr, strings.Join(errs, "\n"))
	}
	return serverErr
}

// readKindObject reads an object of the corpus.
func readKindObject(t *testing.T, file string) map[string]interface{} {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var obj map[string]interface{}
	if err := yaml.Unmarshal(data, &obj); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return obj
}

// dryRunCreateKind creates obj as `kubectl create --dry-run=server
// --validate=strict` does: 1.30's parameter kinds in the default namespace.
func dryRunCreateKind(client dynamic.Interface, obj map[string]interface{}, version, kind string) (map[string]interface{}, error) {
	resource := strings.ToLower(kind)
	switch {
	case strings.HasSuffix(kind, "Class"):
		resource += "es"
	case !strings.HasSuffix(kind, "Parameters"):
		resource += "s"
	}
	gvr := schema.GroupVersionResource{Group: api.UpstreamGroup, Version: version, Resource: resource}
	var resources dynamic.ResourceInterface = client.Resource(gvr)
	if strings.HasSuffix(kind, "Parameters") {
		resources = client.Resource(gvr).Namespace("default")
	}
	created, err := resources.Create(context.Background(),
		&unstructured.Unstructured{Object: api.DeepCopyJSON(obj)}, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}, FieldValidation: "Strict"})
	if err != nil {
		return nil, err
	}
	return created.Object, nil
}

// droppedPaths are the paths, as judge names them, of the non-empty
// values of sent that created lacks: what the apiserver dropped.
func droppedPaths(sent, created interface{}, path *field.Path) []string {
	var out []string
	if created == nil {
		return nil
	}
	switch s := sent.(type) {
	case map[string]interface{}:
		c, _ := created.(map[string]interface{})
		for _, k := range slices.Sorted(maps.Keys(s)) {
			child := path.Child(k)
			if slices.Contains([]string{"attributes", "capacity", "counters"}, path.String()[strings.LastIndex(path.String(), ".")+1:]) {
				child = path.Key(k)
			}
			if v, ok := c[k]; ok {
				out = append(out, droppedPaths(s[k], v, child)...)
			} else if !reflect.ValueOf(s[k]).IsZero() && fmt.Sprint(s[k]) != "[]" && fmt.Sprint(s[k]) != "map[]" {
				out = append(out, child.String())
			}
		}
	case []interface{}:
		c, _ := created.([]interface{})
		for i := range min(len(s), len(c)) {
			out = append(out, droppedPaths(s[i], c[i], path.Index(i))...)
		}
	}
	return out
}

// kindsGenerated are the slices at and past the limits of 1.37, too big to
// keep as YAML: each is valid-slice-gpu-node with its devices or counters
// replaced.
var kindsGenerated = map[string]func(t *testing.T) map[string]interface{}{
	"valid-slice-128-devices":   func(t *testing.T) map[string]interface{} { return gpuSlice(t, 128, nil) },
	"invalid-slice-129-devices": func(t *testing.T) map[string]interface{} { return gpuSlice(t, 129, nil) },
	"valid-slice-64-devices-with-taints": func(t *testing.T) map[string]interface{} {
		return gpuSlice(t, 64, func(i int, d map[string]interface{}) {
			if i == 63 {
				d["taints"] = []interface{}{map[string]interface{}{"key": "gpu.nvidia.com/xid", "value": "48", "effect": "NoExecute"}}
			}
		})
	},
	"invalid-slice-65-devices-with-taints": func(t *testing.T) map[string]interface{} {
		return gpuSlice(t, 65, func(i int, d map[string]interface{}) {
			if i == 0 {
				d["taints"] = []interface{}{map[string]interface{}{"key": "gpu.nvidia.com/xid", "value": "48", "effect": "NoExecute"}}
			}
		})
	},
	"valid-slice-64-partitions": func(t *testing.T) map[string]interface{} { return gpuSlice(t, 64, consumes) },
	"invalid-slice-65-partitions": func(t *testing.T) map[string]interface{} {
		return gpuSlice(t, 65, consumes)
	},
	"valid-slice-32-attributes-and-capacities":   func(t *testing.T) map[string]interface{} { return gpuSlice(t, 2, attributes(24, 8)) },
	"invalid-slice-33-attributes-and-capacities": func(t *testing.T) map[string]interface{} { return gpuSlice(t, 2, attributes(24, 9)) },
	"valid-slice-32-consumed-counters": func(t *testing.T) map[string]interface{} {
		return gpuSlice(t, 1, func(_ int, d map[string]interface{}) { d["consumesCounters"] = consumption(32) })
	},
	"invalid-slice-33-consumed-counters": func(t *testing.T) map[string]interface{} {
		return gpuSlice(t, 1, func(_ int, d map[string]interface{}) { d["consumesCounters"] = consumption(33) })
	},
	"valid-class-32-selectors":   func(t *testing.T) map[string]interface{} { return gpuClass(t, 32, 32) },
	"invalid-class-33-selectors": func(t *testing.T) map[string]interface{} { return gpuClass(t, 33, 1) },
	"invalid-class-33-configs":   func(t *testing.T) map[string]interface{} { return gpuClass(t, 1, 33) },
	"invalid-slice-long-pool-name": func(t *testing.T) map[string]interface{} {
		obj := gpuSlice(t, 1, nil)
		obj["spec"].(map[string]interface{})["pool"].(map[string]interface{})["name"] = strings.Repeat("rack-7.zone-a/", 18) + "gpus"
		return obj
	},
	"valid-slice-32-counters-per-set":   func(t *testing.T) map[string]interface{} { return counterSlice(t, 32) },
	"invalid-slice-33-counters-per-set": func(t *testing.T) map[string]interface{} { return counterSlice(t, 33) },
}

// gpuSlice is valid-slice-gpu-node with n devices like its first, each
// changed by edit.
func gpuSlice(t *testing.T, n int, edit func(i int, device map[string]interface{})) map[string]interface{} {
	t.Helper()
	obj := readKindObject(t, filepath.Join("testdata", "parity-kinds", "valid-slice-gpu-node.yaml"))
	spec := obj["spec"].(map[string]interface{})
	first := spec["devices"].([]interface{})[0].(map[string]interface{})
	devices := make([]interface{}, n)
	for i := range devices {
		d := api.DeepCopyJSON(first)
		d["name"] = fmt.Sprintf("gpu-%d", i)
		d["attributes"].(map[string]interface{})["index"] = map[string]interface{}{"int": int64(i)}
		if edit != nil {
			edit(i, d)
		}
		devices[i] = d
	}
	spec["devices"] = devices
	return obj
}

// consumes makes a device a partition of one of 8 GPUs, consuming its
// counters (valid-slice-8-counter-sets).
func consumes(i int, d map[string]interface{}) {
	d["consumesCounters"] = []interface{}{map[string]interface{}{
		"counterSet": fmt.Sprintf("gpu-%d", i%8),
		"counters":   map[string]interface{}{"memory": map[string]interface{}{"value": "10Gi"}},
	}}
}

// attributes gives the last device a attributes and c capacities.
func attributes(a, c int) func(i int, d map[string]interface{}) {
	return func(i int, d map[string]interface{}) {
		if i == 0 {
			return
		}
		attrs, capacity := map[string]interface{}{}, map[string]interface{}{}
		for j := range a {
			attrs[fmt.Sprintf("feature%d", j)] = map[string]interface{}{"bool": true}
		}
		for j := range c {
			capacity[fmt.Sprintf("engine%d", j)] = map[string]interface{}{"value": "1"}
		}
		d["attributes"], d["capacity"] = attrs, capacity
	}
}

// counterSlice is valid-slice-counters with n counters in its set.
func counterSlice(t *testing.T, n int) map[string]interface{} {
	t.Helper()
	obj := readKindObject(t, filepath.Join("testdata", "parity-kinds", "valid-slice-counters.yaml"))
	counters := map[string]interface{}{}
	for i := range n {
		counters[fmt.Sprintf("memory-slice-%d", i)] = map[string]interface{}{"value": "1"}
	}
	set := obj["spec"].(map[string]interface{})["sharedCounters"].([]interface{})[0].(map[string]interface{})
	set["counters"] = counters
	return obj
}

// consumption consumes n counters of one set.
func consumption(n int) []interface{} {
	counters := map[string]interface{}{}
	for i := range n {
		counters[fmt.Sprintf("memory-slice-%d", i)] = map[string]interface{}{"value": "1"}
	}
	return []interface{}{map[string]interface{}{"counterSet": "gpu-0-counter-set", "counters": counters}}
}

// gpuClass is valid-class-gpu with n selectors and c configurations like
// its first.
func gpuClass(t *testing.T, n, c int) map[string]interface{} {
	t.Helper()
	obj := readKindObject(t, filepath.Join("testdata", "parity-kinds", "valid-class-gpu.yaml"))
	spec := obj["spec"].(map[string]interface{})
	for _, list := range []struct {
		name string
		n    int
	}{{"selectors", n}, {"config", c}} {
		first := spec[list.name].([]interface{})[0]
		items := make([]interface{}, list.n)
		for i := range items {
			items[i] = api.DeepCopyJSON(map[string]interface{}{"x": first})["x"]
		}
		spec[list.name] = items
	}
	return obj
}
