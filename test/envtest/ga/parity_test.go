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

	"github.com/claimbridge/claimbridge/conversion"
	"github.com/claimbridge/claimbridge/gacheck"
	"github.com/claimbridge/claimbridge/test/envtest/harness"
)

// parityRelease is a release whose kube-apiserver the parity tests ask, and
// the corpus they ask it about.
type parityRelease struct {
	name    string // "1.32"
	version string // the resource.k8s.io version it checks: gacheck's rules of this release
	// corpus is the directory under testdata with the objects: valid-* the
	// release creates, invalid-* it refuses.
	corpus string
	// changed are the objects derived from the v1 corpus (derivedHeader)
	// that this release judges otherwise than their name says, each with
	// the reason.
	changed map[string]string
}

var (
	parity132 = parityRelease{
		name: "1.32", version: conversion.V1beta1, corpus: "parity-1.32",
		changed: map[string]string{
			"valid-capacity":              "1.32 has no capacity (1.34)",
			"valid-config-subrequest":     "1.32 has no firstAvailable (1.33)",
			"valid-distinct":              "1.32 has no distinctAttribute (1.34)",
			"valid-firstavailable":        "1.32 has no firstAvailable (1.33)",
			"valid-tolerations":           "1.32 has no tolerations (1.33)",
			"invalid-flat-v1beta1-fields": "a flat request is v1beta1's own shape",
		},
	}
	parity133 = parityRelease{
		name: "1.33", version: conversion.V1beta2, corpus: "parity-1.33",
		// DRAPrioritizedList is off by default in 1.33: a create drops
		// firstAvailable.
		changed: map[string]string{
			"valid-capacity":          "1.33 has no capacity (1.34)",
			"valid-distinct":          "1.33 has no distinctAttribute (1.34)",
			"valid-firstavailable":    "1.33 drops firstAvailable: the request has neither it nor exactly",
			"valid-config-subrequest": "1.33 drops firstAvailable: the request has neither it nor exactly",
			"invalid-request-both":    "1.33 drops firstAvailable: the request has only exactly",
		},
	}
	parity136 = parityRelease{name: "1.36", version: conversion.V1, corpus: "parity"}
)

// TestParity1_32, TestParity1_33 and TestParity1_36: for every object of
// the release's corpus, `claimbridge validate`'s verdict (gacheck.Check, as
// validate and migrate use it) is the release's kube-apiserver's on a strict
// server-side dry-run create, and when the apiserver refuses an object as
// invalid (422), both name the same field paths. Each release is checked in
// the version it was the first to serve: v1beta1 in 1.32, v1beta2 in 1.33,
// v1 in 1.36. testdata/parity holds the v1 objects; testdata/parity-1.32
// and parity-1.33 hold them converted by claimbridge (TestParityCorpus) and
// objects of their own release. 1.32 and 1.33 run with their default
// feature gates and DynamicResourceAllocation, as `claimbridge validate`
// assumes; their control planes start in the test and stop at its end.
//
// Each test then checks `claimbridge convert`'s verdicts with the same
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

func TestParity1_36(t *testing.T) {
	useNamespace(t)
	testParity(t, parity136, s.dynamic, namespace)
	testConvertVerdicts(t, parity136, s.dynamic, s.core.Discovery(), namespace)
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
	files, err := filepath.Glob(filepath.Join("testdata", r.corpus, "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus in testdata/%s: %v", r.corpus, err)
	}
	agree := 0
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".yaml")
		ok := t.Run(name, func(t *testing.T) {
			obj := readObject(t, file, ns)
			version, kind := gacheck.Version(obj)
			if version != r.version {
				t.Fatalf("%s is not a resource.k8s.io/%s claim or template", file, r.version)
			}
			errs, _ := gacheck.Check(obj, version, kind)
			serverErr := dryRunCreate(client, ns, obj, version, kind)
			rejects := strings.HasPrefix(name, "invalid-")
			if _, ok := r.changed[name]; ok {
				rejects = !rejects
			}
			if rejects != (serverErr != nil) {
				t.Errorf("corpus: %s (changed in %s: %q), but the apiserver says %v", name, r.name, r.changed[name], serverErr)
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
			invalid, err := gacheck.Validate(obj, version, kind)
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
	t.Logf("parity with kube-apiserver %s (resource.k8s.io/%s): %d of %d objects agree", r.name, r.version, agree, len(files))
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
	_, err := client.Resource(gvr(version, kind)).Namespace(ns).Create(context.Background(),
		&unstructured.Unstructured{Object: obj}, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}, FieldValidation: "Strict"})
	return err
}

func sorted(s sets.Set[string]) []string {
	out := s.UnsortedList()
	sort.Strings(out)
	return out
}
