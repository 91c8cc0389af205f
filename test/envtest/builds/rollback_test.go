//go:build envtest

package builds

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/claimbridge/claimbridge/api"
)

// rolledBack creates the fixtures through this build, rolls back to older,
// which reads every object through every version (returned, by name and
// version) and writes it back unchanged through every version (a PUT of the
// main resource and, for claims, of /status) and sets a label through every version, and rolls forward to this build
// again. before and after are what this build read before and after;
// stored names the unchanged writes that stored a new resourceVersion
// (name, version, main or status), in the order made.
func rolledBack(t *testing.T, older string) (fixtures []fixture, before, underOlder, after map[string]map[string]*unstructured.Unstructured, stored []string) {
	t.Helper()
	serve(t, thisBuild)
	ns := newNamespace(t, "rollback")
	fixtures = loadFixtures(t, ns)
	before, underOlder, after = map[string]map[string]*unstructured.Unstructured{}, map[string]map[string]*unstructured.Unstructured{}, map[string]map[string]*unstructured.Unstructured{}
	for _, f := range fixtures {
		create(t, f)
		before[f.name] = views(t, f)
	}
	serve(t, older)
	for _, f := range fixtures {
		underOlder[f.name] = views(t, f)
		for _, v := range api.ServedVersions {
			ri := res(v, f.resource, ns)
			// /status first: what a 1.26-1.30 scheduler or driver
			// writes.
			for _, status := range []bool{true, false} {
				if status && f.resource != claimsResource {
					continue
				}
				what := fmt.Sprintf("%s %s main", f.name, v)
				if status {
					what = fmt.Sprintf("%s %s status", f.name, v)
				}
				read := get(t, ri, f.name)
				out, err := writeBack(t, ri, read, status)
				if err != nil {
					t.Errorf("%s: unchanged PUT by %s: %v", what, older, describe(err))
				} else if out.GetResourceVersion() != read.GetResourceVersion() {
					stored = append(stored, what)
				}
			}
			patch := fmt.Sprintf(`{"metadata":{"labels":{"rollback.example.com/%s":"written"}}}`, v)
			err := retried(func() error {
				_, err := ri.Patch(ctxFor(t), f.name, types.MergePatchType, []byte(patch), metav1.PatchOptions{})
				return err
			})
			if err != nil {
				t.Errorf("%s: a label through %s by %s: %v", f.name, v, older, describe(err))
			}
		}
	}
	serve(t, thisBuild)
	for _, f := range fixtures {
		after[f.name] = views(t, f)
	}
	return fixtures, before, underOlder, after, stored
}

// withLabels is u with the labels rolledBack sets.
func withLabels(u *unstructured.Unstructured) *unstructured.Unstructured {
	u = u.DeepCopy()
	labels := u.GetLabels()
	if labels == nil {
		labels = map[string]string{}
	}
	for _, v := range api.ServedVersions {
		labels["rollback.example.com/"+v] = "written"
	}
	u.SetLabels(labels)
	return u
}

// withoutWriteMetadata is u without what every write changes
// (resourceVersion, generation, managedFields).
func withoutWriteMetadata(t *testing.T, u *unstructured.Unstructured) interface{} {
	c := u.DeepCopy()
	for _, f := range []string{"resourceVersion", "generation", "managedFields"} {
		unstructured.RemoveNestedField(c.Object, "metadata", f)
	}
	return normalize(t, c.Object)
}

// TestRollback: after a rollback to an older build with the defaults, which
// serves and writes back what this build stored, and a roll forward, every
// version reads exactly what it read before (with the labels set
// meanwhile), and the older build read every version as this build did.
func TestRollback(t *testing.T) {
	for _, older := range withDefaults {
		t.Run(older, func(t *testing.T) { testRollback(t, older) })
	}
}

func testRollback(t *testing.T, older string) {
	fixtures, before, underOlder, after, stored := rolledBack(t, older)
	if len(stored) > 0 {
		t.Errorf("unchanged writes by %s stored a new resourceVersion: %v", older, stored)
	}
	for _, f := range fixtures {
		for _, v := range api.ServedVersions {
			if d := cmp.Diff(normalize(t, before[f.name][v].Object), normalize(t, underOlder[f.name][v].Object)); d != "" {
				t.Errorf("%s: the %s view read by %s differs from this build's (-this +older):\n%s", f.name, v, older, d)
			}
			if d := cmp.Diff(withoutWriteMetadata(t, withLabels(before[f.name][v])), withoutWriteMetadata(t, after[f.name][v])); d != "" {
				t.Errorf("%s: the %s view after the rollback to %s and back differs (-before +after):\n%s", f.name, v, older, d)
			}
		}
	}
}

// TestRollbackAcrossDefaults: rolling back to the last build before the
// defaults in conversion (docs/operations.md, "Rolling back across
// defaulting") keeps every object as the storage version holds it, but the
// restore data this build wrote for fields only v1alpha1/v1alpha2 hold (a
// spec's Immediate mode or a parametersRef that v1alpha3 has no place for)
// is stale to that build, which shows those views without them, and its
// first write through v1alpha1 or v1alpha2, even an unchanged one, stores
// the object without it: after rolling forward those fields are gone. The
// objects that lose them are exactly these; the others read as before.
func TestRollbackAcrossDefaults(t *testing.T) {
	losing := []string{
		"allocated-v1alpha1",    // parametersRef to a driver's GpuClaimParameters
		"deallocating-v1alpha1", // allocationMode: Immediate
		"empty-handle-v1alpha1", // allocationMode: Immediate
		"multi-driver-v1alpha2", // allocationMode: Immediate
		"structured-v1alpha2",   // parametersRef to ResourceClaimParameters
		"template-v1alpha1",     // parametersRef to a ConfigMap
		"template-v1alpha2",     // parametersRef to ResourceClaimParameters, Immediate
	}
	fixtures, before, _, after, stored := rolledBack(t, beforeDefaults)
	var want []string
	for _, name := range losing {
		// A claim's first write, of its status, loses them already.
		write := " v1alpha1 status"
		if strings.HasPrefix(name, "template-") {
			write = " v1alpha1 main"
		}
		want = append(want, name+write)
	}
	if d := cmp.Diff(want, stored); d != "" {
		t.Errorf("the unchanged writes by %s that stored a new resourceVersion (-want +got):\n%s", beforeDefaults, d)
	}
	var lost []string
	for _, f := range fixtures {
		// The storage version's view: spec, status and labels as before.
		for _, section := range []string{"spec", "status"} {
			if d := cmp.Diff(normalize(t, before[f.name]["v1alpha3"].Object[section]), normalize(t, after[f.name]["v1alpha3"].Object[section])); d != "" {
				t.Errorf("%s: the v1alpha3 %s changed (-before +after):\n%s", f.name, section, d)
			}
		}
		if d := cmp.Diff(withLabels(before[f.name]["v1alpha3"]).GetLabels(), after[f.name]["v1alpha3"].GetLabels()); d != "" {
			t.Errorf("%s: the labels changed (-before +after):\n%s", f.name, d)
		}
		for _, v := range []string{"v1alpha1", "v1alpha2"} {
			if !cmp.Equal(withoutWriteMetadata(t, withLabels(before[f.name][v])), withoutWriteMetadata(t, after[f.name][v])) {
				lost = append(lost, f.name)
				break
			}
		}
	}
	slices.Sort(lost)
	if d := cmp.Diff(losing, lost); d != "" {
		t.Errorf("the objects whose v1alpha1 or v1alpha2 view changed (-documented +got):\n%s", d)
	}
}
