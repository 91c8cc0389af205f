//go:build envtest

package ga

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/judge"
	"github.com/claimbridge/claimbridge/test/envtest/harness"
)

// parityRelease is a release whose kube-apiserver the parity tests ask, and
// the corpora they ask it about.
type parityRelease struct {
	name    string // "1.32"
	release int    // judge's name of it: 32
	version string // the resource.k8s.io version its control plane is started for and convert is checked in
	corpora []parityCorpus
}

// cluster is the release as claimbridge is told its control plane's flags
// (harness.Flags: those of its recording, and of the suite's 1.37).
func (r parityRelease) cluster(t *testing.T) api.Cluster {
	t.Helper()
	featureGates, runtimeConfig := harness.Flags(r.version)
	c, err := harness.Cluster(r.name, featureGates, runtimeConfig)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// parityCorpus is a directory under testdata with objects: valid-* the
// release creates, invalid-* it refuses, except changed: the objects this
// release judges otherwise than their name says, each with the reason.
type parityCorpus struct {
	dir     string
	changed map[string]string
}

// with is changed and more (name, reason, name, reason …).
func with(changed map[string]string, more ...string) map[string]string {
	out := map[string]string{}
	for name, reason := range changed {
		out[name] = reason
	}
	for i := 0; i+1 < len(more); i += 2 {
		out[more[i]] = more[i+1]
	}
	return out
}

var (
	parity132 = parityRelease{name: "1.32", release: 32, version: api.V1beta1, corpora: []parityCorpus{{
		dir: "parity-1.32",
		changed: map[string]string{
			"valid-capacity":              "1.32 has no capacity (1.34)",
			"valid-config-subrequest":     "1.32 has no firstAvailable (1.33)",
			"valid-distinct":              "1.32 has no distinctAttribute (1.34)",
			"valid-firstavailable":        "1.32 has no firstAvailable (1.33)",
			"valid-tolerations":           "1.32 has no tolerations (1.33)",
			"invalid-flat-v1beta1-fields": "a flat request is v1beta1's own shape",
		},
	}}}
	parity133 = parityRelease{name: "1.33", release: 33, version: api.V1beta2, corpora: []parityCorpus{{
		dir: "parity-1.33",
		// DRAPrioritizedList is off by default in 1.33: a create drops
		// firstAvailable.
		changed: map[string]string{
			"valid-capacity":          "1.33 has no capacity (1.34)",
			"valid-distinct":          "1.33 has no distinctAttribute (1.34)",
			"valid-firstavailable":    "1.33 drops firstAvailable: the request has neither it nor exactly",
			"valid-config-subrequest": "1.33 drops firstAvailable: the request has neither it nor exactly",
			"invalid-request-both":    "1.33 drops firstAvailable: the request has only exactly",
		},
	}}}
	// 1.34 to 1.37 serve all three versions: each is asked about the v1
	// corpus, the v1beta2 and v1beta1 ones and v1 DeviceClasses.
	// DRAConsumableCapacity is off by default in 1.34 and 1.35,
	// DRADeviceTaints in 1.35 and DRAExtendedResource in both: a 1.35 create
	// drops distinctAttribute and tolerations (1.34 keeps both), and both
	// drop extendedResourceName.
	changed135 = map[string]string{
		"valid-distinct":                  "1.35 drops distinctAttribute: the constraint has no matchAttribute",
		"invalid-toleration-effect":       "1.35 drops tolerations",
		"invalid-toleration-exists-value": "1.35 drops tolerations",
		"invalid-toleration-operator":     "1.35 drops tolerations",
	}
	dropsExtended = map[string]string{"invalid-extended-resource-name": "DRAExtendedResource is off by default: a create drops extendedResourceName"}
	flat          = []string{"invalid-flat-v1beta1-fields", "a flat request is v1beta1's own shape"}
	noneFrom      = []string{"invalid-toleration-effect-none", "1.35+ has the None effect"}
	parity134     = parityRelease{name: "1.34", release: 34, version: api.V1, corpora: []parityCorpus{
		{"parity", nil}, {"parity-1.33", nil}, {"parity-1.32", with(nil, flat...)}, {"parity-deviceclass", dropsExtended},
	}}
	parity135 = parityRelease{name: "1.35", release: 35, version: api.V1, corpora: []parityCorpus{
		{"parity", changed135},
		{"parity-1.33", with(changed135, "invalid-toleration-effect-none", "1.35 drops tolerations", "invalid-toleration-key", "1.35 drops tolerations")},
		{"parity-1.32", with(changed135, flat...)},
		{"parity-deviceclass", dropsExtended},
	}}
	parity136 = parityRelease{name: "1.36", release: 36, version: api.V1, corpora: []parityCorpus{
		{"parity", nil}, {"parity-1.33", with(nil, noneFrom...)}, {"parity-1.32", with(nil, flat...)}, {"parity-deviceclass", nil},
	}}
	parity137 = parityRelease{name: "1.37", release: 37, version: api.V1, corpora: parity136.corpora}
)

// TestParity1_32 … TestParity1_37: for every object of the release's
// corpus, `claimbridge validate`'s verdict for that release (judge.Check,
// as validate and migrate use it) is the release's kube-apiserver's on a
// strict server-side dry-run create, and when the apiserver refuses an
// object as invalid (422), both name the same field paths. 1.32 is checked
// in v1beta1, 1.33 in v1beta2, the other releases in v1.
// testdata/parity holds the v1 objects; testdata/parity-1.32 and
// parity-1.33 hold them converted by claimbridge (TestParityCorpus) and
// objects of their own release. Every release runs with its default feature
// gates (and DynamicResourceAllocation in 1.32 and 1.33), as `claimbridge
// validate` assumes. 1.37 is the suite's control plane; the others start in
// their test and stop at its end, or answer from their recordings.
//
// The tests of 1.32, 1.33 and 1.37, the releases that judge `claimbridge
// convert --to VERSION`, then check convert's verdicts with the same
// apiserver (testConvertVerdicts).
func TestParity1_32(t *testing.T) {
	client, disc, ns := startRelease(t, parity132)
	testParity(t, parity132, client, ns)
	testConvertVerdicts(t, parity132, client, disc, ns)
}

func TestParity1_33(t *testing.T) {
	client, disc, ns := startRelease(t, parity133)
	testParity(t, parity133, client, ns)
	testConvertVerdicts(t, parity133, client, disc, ns)
}

func TestParity1_34(t *testing.T) {
	client, _, ns := startRelease(t, parity134)
	testParity(t, parity134, client, ns)
}

func TestParity1_35(t *testing.T) {
	client, _, ns := startRelease(t, parity135)
	testParity(t, parity135, client, ns)
}

func TestParity1_36(t *testing.T) {
	client, _, ns := startRelease(t, parity136)
	testParity(t, parity136, client, ns)
}

func TestParity1_37(t *testing.T) {
	useNamespace(t)
	testParity(t, parity137, s.dynamic, namespace)
	testConvertVerdicts(t, parity137, s.dynamic, s.core.Discovery(), namespace)
}

// testConvertVerdicts sends every object `claimbridge convert --to
// <version>` writes, for the real-world manifests, the examples, workloads
// of every kind, the conversion fixtures and the v1 parity corpus, to the
// release's apiserver as a strict server-side dry run: each one it rejects must be named by a
// warning.
func testConvertVerdicts(t *testing.T, r parityRelease, client dynamic.Interface, disc discovery.DiscoveryInterface, ns string) {
	t.Run("convert", func(t *testing.T) {
		var files []string
		for _, glob := range []string{
			"../../manifests/drivers/*.yaml",
			"../../../examples/*.yaml",
			"../../../examples/migrate/*.yaml",
			"../../manifests/exports/*/claims.yaml",
			"../../manifests/workloads/*.yaml",
			"../../../conversion/testdata/*.yaml",
			"testdata/parity/*.yaml",
		} {
			m, err := filepath.Glob(glob)
			if err != nil || len(m) == 0 {
				t.Fatalf("%s: %d files (%v)", glob, len(m), err)
			}
			files = append(files, m...)
		}
		sent, rejected := harness.ConvertVerdicts(t, client, disc, ns, r.version, files)
		t.Logf("Kubernetes %s: %d objects sent, %d rejected, each named by a warning", r.name, sent, rejected)
		if sent < 200 || rejected < 40 {
			t.Errorf("only %d objects sent, %d rejected", sent, rejected)
		}
	})
}

func testParity(t *testing.T, r parityRelease, client dynamic.Interface, ns string) {
	t.Helper()
	for _, c := range r.corpora {
		t.Run(c.dir, func(t *testing.T) { testCorpus(t, r, c, client, ns) })
	}
}

func testCorpus(t *testing.T, r parityRelease, c parityCorpus, client dynamic.Interface, ns string) {
	files, err := filepath.Glob(filepath.Join("testdata", c.dir, "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus in testdata/%s: %v", c.dir, err)
	}
	agree := 0
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".yaml")
		ok := t.Run(name, func(t *testing.T) {
			obj := readObject(t, file, ns)
			version, kind := kindOf(obj)
			if !r.cluster(t).Serves(version, kind) {
				t.Fatalf("%s is not a claim, template or DeviceClass of a version Kubernetes %s serves", file, r.name)
			}
			errs, _ := judge.Check(obj, r.cluster(t), kind)
			serverErr := dryRunCreate(client, ns, obj, version, kind)
			rejects := strings.HasPrefix(name, "invalid-")
			if _, ok := c.changed[name]; ok {
				rejects = !rejects
			}
			if rejects != (serverErr != nil) {
				t.Errorf("corpus: %s (changed in %s: %q), but the apiserver says %v", name, r.name, c.changed[name], serverErr)
			}
			switch {
			case len(errs) == 0 && serverErr != nil:
				t.Fatalf("claimbridge accepts it, kube-apiserver %s refuses it: %v", r.name, serverErr)
			case len(errs) > 0 && serverErr == nil:
				t.Fatalf("claimbridge refuses it, kube-apiserver %s accepts it:\n%s", r.name, strings.Join(errs, "\n"))
			}
			var statusErr *apierrors.StatusError
			if !apierrors.IsInvalid(serverErr) || !errors.As(serverErr, &statusErr) {
				return // accepted by both, or refused before validation (a strict decode)
			}
			server := sets.New[string]()
			for _, cause := range statusErr.ErrStatus.Details.Causes {
				server.Insert(cause.Field)
			}
			invalid, err := judge.Validate(obj, r.cluster(t), kind)
			if kind == kindDeviceClass {
				invalid, err = judge.ValidateDeviceClass(obj, r.cluster(t))
			}
			if err != nil {
				t.Fatal(err)
			}
			ours := sets.New[string]()
			for _, e := range invalid {
				ours.Insert(e.Field)
			}
			if d := cmp.Diff(sorted(server), sorted(ours)); d != "" {
				t.Errorf("field paths (-apiserver +claimbridge):\n%s\napiserver: %v\nclaimbridge:\n%s", d, serverErr, strings.Join(errs, "\n"))
			}
		})
		if ok {
			agree++
		}
	}
	t.Logf("parity with kube-apiserver %s (testdata/%s): %d of %d objects agree", r.name, c.dir, agree, len(files))
}

func readObject(t *testing.T, file, ns string) map[string]interface{} {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var obj map[string]interface{}
	if err := yaml.Unmarshal(data, &obj); err != nil {
		t.Fatal(err)
	}
	obj["metadata"].(map[string]interface{})["namespace"] = ns
	return obj
}

// dryRunCreate creates obj in namespace ns as `kubectl create
// --dry-run=server --validate=strict` does.
func dryRunCreate(client dynamic.Interface, ns string, obj map[string]interface{}, version, kind string) error {
	var resource dynamic.ResourceInterface = client.Resource(gvr(version, kind)).Namespace(ns)
	if kind == kindDeviceClass {
		resource = client.Resource(gvr(version, kind))
	}
	_, err := resource.Create(context.Background(), &unstructured.Unstructured{Object: obj},
		metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}, FieldValidation: "Strict"})
	return err
}

const kindDeviceClass = "DeviceClass"

// kindOf is the version and kind of a corpus object: a claim, a template or
// a DeviceClass, which loses its namespace.
func kindOf(obj map[string]interface{}) (version, kind string) {
	if obj["kind"] != kindDeviceClass {
		return judge.Version(obj)
	}
	delete(obj["metadata"].(map[string]interface{}), "namespace")
	apiVersion, _ := obj["apiVersion"].(string)
	return strings.TrimPrefix(apiVersion, api.UpstreamGroup+"/"), kindDeviceClass
}

func sorted(s sets.Set[string]) []string {
	out := s.UnsortedList()
	sort.Strings(out)
	return out
}
