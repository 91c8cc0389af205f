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
	"sigs.k8s.io/yaml"

	"github.com/claimbridge/claimbridge/gacheck"
)

// TestParity1_36: for every object of testdata/parity (resource.k8s.io/v1
// claims and templates, valid-* and invalid-*), `claimbridge validate`'s
// verdict (gacheck.Check, as validate and migrate use it) is
// kube-apiserver 1.36's on a strict server-side dry-run create, and when
// the apiserver refuses an object as invalid (422), both name the same
// field paths. Only 1.36 is checked: no 1.32 or 1.33 apiserver is built
// here, so the v1beta1 and v1beta2 rules (1.32, 1.33) are checked by the unit
// tests alone.
func TestParity1_36(t *testing.T) {
	useNamespace(t)
	files, err := filepath.Glob(filepath.Join("testdata", "parity", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus in testdata/parity: %v", err)
	}
	agree := 0
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".yaml")
		ok := t.Run(name, func(t *testing.T) {
			obj := readObject(t, file)
			version, kind := gacheck.Version(obj)
			if version != "v1" {
				t.Fatalf("%s is not a resource.k8s.io/v1 claim or template", file)
			}
			errs, _ := gacheck.Check(obj, version, kind)
			serverErr := dryRunCreate(obj, version, kind)
			if rejects := strings.HasPrefix(name, "invalid-"); rejects != (serverErr != nil) {
				t.Errorf("corpus: %s, but the apiserver says %v", name, serverErr)
			}
			switch {
			case len(errs) == 0 && serverErr != nil:
				t.Fatalf("claimbridge accepts it, kube-apiserver 1.36 refuses it: %v", serverErr)
			case len(errs) > 0 && serverErr == nil:
				t.Fatalf("claimbridge refuses it, kube-apiserver 1.36 accepts it:\n%s", strings.Join(errs, "\n"))
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
	t.Logf("parity with kube-apiserver 1.36: %d of %d objects agree", agree, len(files))
}

func readObject(t *testing.T, file string) map[string]interface{} {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var obj map[string]interface{}
	if err := yaml.Unmarshal(data, &obj); err != nil {
		t.Fatal(err)
	}
	obj["metadata"].(map[string]interface{})["namespace"] = namespace
	return obj
}

// dryRunCreate creates obj in the suite's namespace as `kubectl create
// --dry-run=server --validate=strict` does.
func dryRunCreate(obj map[string]interface{}, version, kind string) error {
	_, err := s.dynamic.Resource(gvr(version, kind)).Namespace(namespace).Create(context.Background(),
		&unstructured.Unstructured{Object: obj}, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}, FieldValidation: "Strict"})
	return err
}

func sorted(s sets.Set[string]) []string {
	out := s.UnsortedList()
	sort.Strings(out)
	return out
}
