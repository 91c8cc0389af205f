//go:build envtest

package envtest_test

import (
	"encoding/json"
	"slices"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// TestPatchTypes pins what README says of patches: a custom resource takes
// no strategic merge patch (kubectl patch's default; 415), a merge patch
// replaces reservedFor as a whole, and server-side apply merges reservedFor
// entries of two managers by uid (the CRD's list-map), as a strategic merge
// patch of the built-in type did.
func TestPatchTypes(t *testing.T) {
	ns := newNamespace(t, "patch-types")
	name := "patched"
	createClaim(t, fromYAML(t, "v1alpha3", ns, "kind: ResourceClaim\nmetadata: {name: "+name+"}\n"+
		"spec: {devices: {requests: [{name: request, deviceClassName: gpu.example.com}]}}\n"))
	ri := claims("v1alpha3", ns)
	pods := consumers(3, "pod")
	apply := func(manager string, status map[string]interface{}) {
		t.Helper()
		data, err := json.Marshal(map[string]interface{}{
			"apiVersion": "resource.claimbridge.dev/v1alpha3", "kind": "ResourceClaim",
			"metadata": map[string]interface{}{"name": name}, "status": status,
		})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ri.Patch(ctxFor(t), name, types.ApplyPatchType, data, metav1.PatchOptions{FieldManager: manager}, "status"); err != nil {
			t.Fatalf("server-side apply by %s: %s", manager, describe(err))
		}
	}
	reservedUIDs := func() []string {
		t.Helper()
		var uids []string
		entries, _ := field(get(t, ri, name).Object, "status", "reservedFor")
		list, _ := entries.([]interface{})
		for _, e := range list {
			uids = append(uids, e.(map[string]interface{})["uid"].(string))
		}
		return uids
	}
	uid := func(i int) string { return pods[i].(map[string]interface{})["uid"].(string) }

	apply("scheduler", map[string]interface{}{
		"allocation": map[string]interface{}{"devices": map[string]interface{}{"results": []interface{}{
			map[string]interface{}{"request": "request", "driver": "gpu.example.com", "pool": "node-a", "device": "gpu-0"}}}},
		"reservedFor": pods[:1],
	})
	apply("second-scheduler", map[string]interface{}{"reservedFor": pods[1:2]})
	if got, want := reservedUIDs(), []string{uid(0), uid(1)}; !slices.Equal(got, want) {
		t.Errorf("after two managers applied one consumer each: reservedFor uids %v, want %v (merged by uid)", got, want)
	}

	merge, _ := json.Marshal(map[string]interface{}{"status": map[string]interface{}{"reservedFor": pods[2:3]}})
	if _, err := ri.Patch(ctxFor(t), name, types.MergePatchType, merge, metav1.PatchOptions{}, "status"); err != nil {
		t.Fatalf("merge patch: %s", describe(err))
	}
	if got, want := reservedUIDs(), []string{uid(2)}; !slices.Equal(got, want) {
		t.Errorf("after a merge patch of one consumer: reservedFor uids %v, want %v (the list replaced)", got, want)
	}

	_, err := ri.Patch(ctxFor(t), name, types.StrategicMergePatchType, merge, metav1.PatchOptions{}, "status")
	if !apierrors.IsUnsupportedMediaType(err) {
		t.Errorf("strategic merge patch: %v; want 415 Unsupported Media Type", err)
	}
}
