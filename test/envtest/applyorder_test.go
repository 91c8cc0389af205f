//go:build envtest

package envtest_test

import (
	"encoding/json"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/claimbridge/claimbridge/api"
)

// TestUnchangedApplyAfterAnotherManager: a manager's unchanged server-side
// apply stores nothing even when another manager applied after it, also
// where the manifest leaves out what /default writes.
//
// kube-apiserver merges the manifest into the live object before admission:
// a v1alpha3 request list (atomic) without allocationMode and count
// replaces the live, defaulted one, so the merge differs from the live
// object and the manager's managedFields time is set to now; /default then
// writes the defaults again and the object is as it was. kube-apiserver
// reverts such a time-only change (IgnoreManagedFieldsTimestampsTransformer)
// only while the entries keep their order, which is by time: when another
// manager applied after this one, the new time moves the entry behind it,
// and the unchanged apply stored a new resourceVersion (managedFields
// reordered, with a new time; nothing else changed). /default now gives
// such an update the stored managedFields back.
//
// The managers' times are set through an update (two seconds apart, the
// other manager's later), so that the order does not depend on when the
// test runs.
func TestUnchangedApplyAfterAnotherManager(t *testing.T) {
	ns := newNamespace(t, "apply-order")
	for _, c := range []struct {
		name, resource, version, doc string
	}{
		{"v1alpha3 claim without the defaults", claimsResource, "v1alpha3", `
kind: ResourceClaim
metadata: {name: v3-undefaulted, labels: {app: a}}
spec:
  devices:
    requests:
    - {name: gpu, deviceClassName: gpu.example.com}
`},
		{"v1alpha3 claim with the defaults", claimsResource, "v1alpha3", `
kind: ResourceClaim
metadata: {name: v3-defaulted, labels: {app: a}}
spec:
  devices:
    requests:
    - {name: gpu, deviceClassName: gpu.example.com, allocationMode: ExactCount, count: 1}
`},
		{"v1alpha3 template without the defaults", templatesResource, "v1alpha3", `
kind: ResourceClaimTemplate
metadata: {name: v3-template, labels: {app: a}}
spec:
  spec:
    devices:
      requests:
      - {name: gpu, deviceClassName: gpu.example.com}
`},
		{"v1alpha1 claim without allocationMode", claimsResource, "v1alpha1", `
kind: ResourceClaim
metadata: {name: v1-undefaulted, labels: {app: a}}
spec: {resourceClassName: gpu.example.com}
`},
		{"v1alpha2 template without allocationMode", templatesResource, "v1alpha2", `
kind: ResourceClaimTemplate
metadata: {name: v2-template, labels: {app: a}}
spec:
  spec: {resourceClassName: gpu.example.com}
`},
	} {
		t.Run(c.name, func(t *testing.T) {
			manifest := fromYAML(t, c.version, ns, c.doc)
			name := manifest.GetName()
			apply := func(version, manager string, cfg *unstructured.Unstructured) *unstructured.Unstructured {
				t.Helper()
				data, err := json.Marshal(cfg.Object)
				if err != nil {
					t.Fatal(err)
				}
				force := false
				out, err := res(version, c.resource, ns).Patch(ctxFor(t), name, types.ApplyPatchType, data, metav1.PatchOptions{FieldManager: manager, Force: &force})
				if err != nil {
					t.Fatalf("%s's apply through %s: %s", manager, version, describe(err))
				}
				return out
			}
			apply(c.version, "team", manifest)
			label := fromYAML(t, "v1alpha2", ns, "kind: "+manifest.GetKind()+"\nmetadata: {labels: {tier: x}}\n")
			label.SetName(name)
			apply("v1alpha2", "labeler", label)

			// team applied first, labeler later.
			v3 := res(api.StorageVersion, c.resource, ns)
			at := func(sec int) time.Time { return time.Date(2020, 1, 1, 0, 0, sec, 0, time.UTC) }
			setTimes := func(u *unstructured.Unstructured, times map[string]time.Time) *unstructured.Unstructured {
				t.Helper()
				fields := u.GetManagedFields()
				for i := range fields {
					when, ok := times[fields[i].Manager]
					if !ok {
						t.Fatalf("managedFields has a manager %q besides team and labeler: %v", fields[i].Manager, fields)
					}
					fields[i].Time = &metav1.Time{Time: when}
				}
				u.SetManagedFields(fields)
				read, err := v3.Update(ctxFor(t), u, metav1.UpdateOptions{})
				if err != nil {
					t.Fatalf("setting the managers' times: %s", describe(err))
				}
				return read
			}
			u := get(t, v3, name)
			// kube-apiserver reverts an update that changes only the times
			// of managedFields while the entries keep their order (the
			// revert described above). The entries are ordered by time, then
			// by manager: when the two applies fell into different seconds,
			// team's entry is first already, and setting the times below
			// directly would be reverted; so they are reversed first.
			if fields := u.GetManagedFields(); len(fields) > 0 && fields[0].Manager == "team" {
				u = setTimes(u, map[string]time.Time{"team": at(4), "labeler": at(2)})
			}
			read := setTimes(u, map[string]time.Time{"team": at(0), "labeler": at(2)})
			if got := read.GetManagedFields(); len(got) != 2 || got[0].Manager != "team" || !got[0].Time.Time.Equal(at(0)) ||
				got[1].Manager != "labeler" || !got[1].Time.Time.Equal(at(2)) {
				t.Fatalf("managedFields after setting the times: %v", got)
			}
			before := allViews(t, c.resource, ns, name)

			out := apply(c.version, "team", manifest)
			expectNoWrite(t, "team's unchanged apply through "+c.version, before[c.version], out)
			expectSameViews(t, before, allViews(t, c.resource, ns, name))
		})
	}
}
