//go:build envtest

package builds

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/claimbridge/claimbridge/test/envtest/harness"
)

// TestConversionOutageDuringStorageVersionWrite pins a limit of
// kube-apiserver that a roll meets: a write through v1alpha3, the storage
// version, converts nothing for the object, but kube-apiserver converts it
// to the version of every field manager to update managedFields, and when
// that conversion call fails (no replica answers, or the replica it went
// to was killed mid-call, as the proxies' routing does to the calls in
// flight) it does not fail the write: it stores the object without
// managedFields (fieldmanager's UpdateNoErrors). Nothing else is lost, and
// an unchanged write is stored so (a new resourceVersion). A drained
// shutdown (--shutdown-drain) avoids the killed calls; see
// docs/operations.md, "Upgrades and rollbacks".
func TestConversionOutageDuringStorageVersionWrite(t *testing.T) {
	serve(t, thisBuild)
	ns := newNamespace(t, "outage")
	var f fixture
	for _, g := range loadFixtures(t, ns) {
		if g.name == "unallocated-v1alpha2" {
			f = g
		}
	}
	create(t, f) // managed through v1alpha2
	ri := res(harness.StorageVersion, f.resource, ns)
	read := get(t, ri, f.name)
	if len(read.GetManagedFields()) == 0 {
		t.Fatalf("%s has no managedFields to lose", f.name)
	}
	conversion.route() // no replica: every conversion call fails
	out, err := writeBack(t, ri, read, false)
	serve(t, thisBuild)
	if err != nil {
		t.Fatalf("the unchanged PUT through %s while no replica converts: %s", harness.StorageVersion, describe(err))
	}
	if out.GetResourceVersion() == read.GetResourceVersion() {
		t.Errorf("the unchanged PUT stored nothing: kube-apiserver no longer drops managedFields when their conversion fails (update docs/operations.md)")
	}
	if got := out.GetManagedFields(); len(got) != 0 {
		t.Errorf("managedFields after the PUT: %v, want none (kube-apiserver dropped them)", got)
	}
	after := get(t, ri, f.name)
	for _, u := range []*unstructured.Unstructured{read, after} {
		u.SetManagedFields(nil)
	}
	if d := cmpWithoutWriteMetadata(t, read, after); d != "" {
		t.Errorf("the object changed beyond managedFields (-before +after):\n%s", d)
	}
}
