//go:build envtest

package builds

import (
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/client-go/discovery"

	"github.com/claimbridge/claimbridge/api"
)

// TestConversionOutageDuringStorageVersionWrite pins what kube-apiserver
// does when a roll meets a write through v1alpha3, the storage version:
// it converts nothing for the object, but converts it to the version of
// every field manager to update managedFields, and that conversion call
// fails (no replica answers, or the replica it went to was killed mid-call,
// as the proxies' routing does to the calls in flight). The write does not
// fail, and from 1.37 an unchanged write stores nothing: the object keeps
// its managedFields (up to 1.36 it was stored without them). A drained
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
	ri := res(api.StorageVersion, f.resource, ns)
	read := get(t, ri, f.name)
	if len(read.GetManagedFields()) == 0 {
		t.Fatalf("%s has no managedFields to lose", f.name)
	}
	conversion.route() // no replica: every conversion call fails
	out, err := writeBack(t, ri, read, false)
	serve(t, thisBuild)
	if err != nil {
		t.Fatalf("the unchanged PUT through %s while no replica converts: %s", api.StorageVersion, describe(err))
	}
	info, err := discovery.NewDiscoveryClientForConfigOrDie(env.Config).ServerVersion()
	if err != nil {
		t.Fatal(err)
	}
	after := get(t, ri, f.name)
	if minor, _ := strconv.Atoi(strings.TrimSuffix(info.Minor, "+")); minor < 37 {
		// Up to 1.36: stored again, without managedFields.
		if out.GetResourceVersion() == read.GetResourceVersion() || len(after.GetManagedFields()) != 0 {
			t.Errorf("Kubernetes %s: resourceVersion %s, then %s; managedFields %v: want a new object without them",
				info.GitVersion, read.GetResourceVersion(), out.GetResourceVersion(), after.GetManagedFields())
		}
		read.SetManagedFields(nil)
	} else if out.GetResourceVersion() != read.GetResourceVersion() {
		t.Errorf("Kubernetes %s: the unchanged PUT stored a new object (resourceVersion %s, then %s)",
			info.GitVersion, read.GetResourceVersion(), out.GetResourceVersion())
	}
	if d := cmp.Diff(read.GetManagedFields(), after.GetManagedFields()); d != "" {
		t.Errorf("managedFields (-want +after):\n%s", d)
	}
	if d := cmpWithoutWriteMetadata(t, read, after); d != "" {
		t.Errorf("the object changed (-before +after):\n%s", d)
	}
}
