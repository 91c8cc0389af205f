//go:build envtest

package ga

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/gacheck"
)

// kindsCorpus is the directory of the cluster-scoped objects
// TestParityKinds asks the suite's kube-apiserver about.
const kindsCorpus = "testdata/parity-kinds"

// kindsDisagree names the objects whose verdicts claimbridge and kube-apiserver
// 1.37 are known to differ on, each with the reason. Empty: none.
var kindsDisagree = map[string]string{}

// TestParityKinds: for every DeviceClass, ResourceSlice and DeviceTaintRule
// of testdata/parity-kinds and the slices generated from it at the limits
// (kindsGenerated), `claimbridge validate --to 1.37`'s verdict
// (gacheck.CheckKind) is the suite's kube-apiserver 1.37's on a strict
// server-side dry-run create: it refuses exactly the objects named
// invalid-*, and when it refuses one as invalid (422), the field paths of
// its causes are those CheckKind's errors name.
func TestParityKinds(t *testing.T) {
	useNamespace(t)
	files, err := filepath.Glob(filepath.Join(kindsCorpus, "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus in %s: %v", kindsCorpus, err)
	}
	objects := map[string]map[string]interface{}{}
	for _, file := range files {
		objects[strings.TrimSuffix(filepath.Base(file), ".yaml")] = readKindObject(t, file)
	}
	for name, generate := range kindsGenerated {
		if objects[name] != nil {
			t.Fatalf("%s is both a file and generated", name)
		}
		objects[name] = generate(t)
	}
	names := make([]string, 0, len(objects))
	for name := range objects {
		names = append(names, name)
	}
	sort.Strings(names)
	agree := 0
	for _, name := range names {
		if t.Run(name, func(t *testing.T) { testKindParity(t, name, objects[name], s.dynamic) }) {
			agree++
		}
	}
	t.Logf("parity with kube-apiserver 1.37 (%s and %d generated): %d of %d objects agree", kindsCorpus, len(kindsGenerated), agree, len(names))
	for name := range kindsDisagree {
		if objects[name] == nil {
			t.Errorf("kindsDisagree names %s, which is not in the corpus", name)
		}
	}
}

func testKindParity(t *testing.T, name string, obj map[string]interface{}, client dynamic.Interface) {
	version, kind := gacheck.KindOf(obj)
	if version != api.V1 {
		t.Fatalf("%s is not a v1 DeviceClass, ResourceSlice or DeviceTaintRule", name)
	}
	errs, _ := gacheck.CheckKind(api.DeepCopyJSON(obj), 37, kind)
	serverErr := dryRunCreateKind(client, obj, version, kind)
	if (serverErr != nil) != strings.HasPrefix(name, "invalid-") {
		t.Errorf("corpus: %s, but the apiserver says %v", name, serverErr)
	}
	if reason, known := kindsDisagree[name]; known {
		// A named, known disagreement: it must still be one.
		if (len(errs) == 0) == (serverErr == nil) {
			t.Errorf("listed as a disagreement (%s), but claimbridge and the apiserver agree", reason)
		}
		return
	}
	switch {
	case len(errs) == 0 && serverErr != nil:
		t.Fatalf("claimbridge accepts it, kube-apiserver 1.37 refuses it: %v", serverErr)
	case len(errs) > 0 && serverErr == nil:
		t.Fatalf("claimbridge refuses it, kube-apiserver 1.37 accepts it:\n%s", strings.Join(errs, "\n"))
	}
	var statusErr *apierrors.StatusError
	if !apierrors.IsInvalid(serverErr) || !errors.As(serverErr, &statusErr) {
		return // accepted by both, or refused before validation (a strict decode)
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
}

// readKindObject reads a cluster-scoped object of the corpus.
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

// dryRunCreateKind creates obj, a cluster-scoped object, as `kubectl create
// --dry-run=server --validate=strict` does.
func dryRunCreateKind(client dynamic.Interface, obj map[string]interface{}, version, kind string) error {
	resource := map[string]string{kindDeviceClass: "deviceclasses", "ResourceSlice": "resourceslices", "DeviceTaintRule": "devicetaintrules"}[kind]
	_, err := client.Resource(schema.GroupVersionResource{Group: api.UpstreamGroup, Version: version, Resource: resource}).Create(context.Background(),
		&unstructured.Unstructured{Object: api.DeepCopyJSON(obj)}, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}, FieldValidation: "Strict"})
	return err
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
	obj := readKindObject(t, filepath.Join(kindsCorpus, "valid-slice-gpu-node.yaml"))
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
	obj := readKindObject(t, filepath.Join(kindsCorpus, "valid-slice-counters.yaml"))
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
	obj := readKindObject(t, filepath.Join(kindsCorpus, "valid-class-gpu.yaml"))
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
