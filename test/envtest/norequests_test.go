//go:build envtest

package envtest_test

import (
	"fmt"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/claimbridge/claimbridge/api"
)

// TestOlderClientsWriteClaimsWithoutRequests: a v1alpha3 claim without
// requests (valid in 1.31, allocated with an empty result) has a
// v1alpha1/v1alpha2 view without resourceClassName and status.driverName.
// Through the real apiserver, clients of every version can still label it,
// drop its reservation and remove their finalizer, so that its deletion
// completes (docs/validation.md, "An unchanged spec shown from a valid
// v1alpha3 spec is not validated again").
func TestOlderClientsWriteClaimsWithoutRequests(t *testing.T) {
	ns := newNamespace(t, "no-requests")
	for i, spec := range []string{"spec: {devices: {requests: []}}", "spec: {}"} {
		for _, version := range api.ServedVersions {
			name := fmt.Sprintf("no-requests-%d-%s", i, version)
			t.Run(name, func(t *testing.T) {
				createClaim(t, fromYAML(t, "v1alpha3", ns, fmt.Sprintf(`
kind: ResourceClaim
metadata: {name: %s, finalizers: [example.com/protect]}
%s
status:
  allocation:
    devices: {}
  reservedFor:
  - {resource: pods, name: pod-0, uid: 00000000-0000-4000-8000-000000000001}
`, name, spec)))
				ri := claims(version, ns)
				if _, err := ri.Patch(ctxFor(t), name, types.MergePatchType, []byte(`{"metadata":{"labels":{"team":"a"}}}`), metav1.PatchOptions{}); err != nil {
					t.Fatalf("label through %s: %s", version, describe(err))
				}
				if _, err := jsonPatch(ctxFor(t), ri, name, []map[string]interface{}{{"op": "remove", "path": "/status/reservedFor"}}, "status"); err != nil {
					t.Fatalf("unreserve through %s: %s", version, describe(err))
				}
				if err := ri.Delete(ctxFor(t), name, metav1.DeleteOptions{}); err != nil {
					t.Fatalf("delete through %s: %s", version, describe(err))
				}
				if _, err := jsonPatch(ctxFor(t), ri, name, []map[string]interface{}{{"op": "remove", "path": "/metadata/finalizers/0"}}); err != nil {
					t.Fatalf("finalizer removal through %s: %s", version, describe(err))
				}
				if _, err := ri.Get(ctxFor(t), name, metav1.GetOptions{}); err == nil {
					t.Errorf("the claim is still there after its last finalizer was removed through %s", version)
				}
			})
		}
	}
}
