//go:build envtest

package envtest_test

import (
	"fmt"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestCreateFromBackup: a claim allocated through v1alpha1 and v1alpha2
// (whose allocation v1alpha3 shows only with the help of restore
// annotations) is backed up as read through v1alpha3, the preferred
// version, and created again as a restore tool creates it (Velero: status,
// uid, resourceVersion, creationTimestamp and managedFields dropped,
// annotations kept). The defaulting webhook takes the status restore data
// out of the annotations with a warning, so the create succeeds (it was
// refused: "holds status restore data: a create cannot set status"), and
// the created claim asks for what the original asked for in every version,
// unallocated. Sent again on an update (an apply of the same manifest), the
// stored (no) status data is kept.
func TestCreateFromBackup(t *testing.T) {
	ns := newNamespace(t, "backup")
	for _, version := range []string{"v1alpha1", "v1alpha2"} {
		t.Run(version, func(t *testing.T) {
			name := "allocated-" + version
			// Not shareable: v1alpha3 has no such field, so the
			// allocation's restore data holds it.
			doc := strings.Replace(allocated(version, name), "shareable: true", "shareable: false", 1)
			original := createClaim(t, fromYAML(t, version, ns, doc))
			backup := get(t, claims("v1alpha3", ns), name)
			if !strings.Contains(fmt.Sprint(backup.GetAnnotations()), `"status"`) {
				t.Fatalf("the backup's annotations %v hold no status restore data: this test proves nothing", backup.GetAnnotations())
			}
			if err := claims("v1alpha3", ns).Delete(ctxFor(t), name, metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
			restored := &unstructured.Unstructured{Object: map[string]interface{}{
				"apiVersion": backup.GetAPIVersion(), "kind": backup.GetKind(),
				"metadata": map[string]interface{}{"name": name, "namespace": ns, "annotations": backup.Object["metadata"].(map[string]interface{})["annotations"]},
				"spec":     backup.Object["spec"],
			}}
			ri, rec := resourceWithWarnings(t, "v1alpha3", claimsResource, ns)
			created, err := ri.Create(ctxFor(t), restored, metav1.CreateOptions{})
			if err != nil {
				t.Fatalf("creating the backup: %v", describe(err))
			}
			seen := strings.Join(rec.take(), "\n")
			// (A v1alpha1 allocation's status data is in restore-v1alpha2, the
			// step between.)
			if want := "]: its status restore data was removed: a created claim starts without status"; !strings.Contains(seen, "metadata.annotations[claimbridge.dev/restore-v1alpha") || !strings.Contains(seen, want) {
				t.Errorf("warnings %q, want one saying %q", seen, want)
			}
			if _, has := created.Object["status"]; has {
				t.Errorf("created with status %v", created.Object["status"])
			}
			// Applied again (kubectl apply, a GitOps sync): the backup's
			// annotations, status data included, sent on an update; the
			// stored (no) status data is kept, with a warning.
			created.SetAnnotations(backup.GetAnnotations())
			if _, err := ri.Update(ctxFor(t), created, metav1.UpdateOptions{}); err != nil {
				t.Fatalf("applying the backup again: %v", describe(err))
			}
			seen = strings.Join(rec.take(), "\n")
			if want := "]: its status restore data was kept as stored: status is written through the status subresource"; !strings.Contains(seen, want) {
				t.Errorf("warnings %q, want one saying %q", seen, want)
			}
			again := get(t, claims(version, ns), name)
			expectSection(t, "spec", original, again)
			if st, _ := again.Object["status"].(map[string]interface{}); len(st) != 0 {
				t.Errorf("%s status of the created copy %v, want none", version, st)
			}
		})
	}
}
