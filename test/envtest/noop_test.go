//go:build envtest

package envtest_test

// Unchanged writes through every version are no-ops. kube-apiserver
// converts an update to the storage version and compares the result with
// the bytes in etcd: only when they are equal does it skip the write
// (no new resourceVersion, no watch event). So a client that reads a claim
// through an older version and writes it back unchanged — a controller's
// periodic update, kubectl replace, a storage-version migration — relies on
// the conversion being a fixed point: the view, converted back, must be the
// stored object exactly, restore annotations included. Were it not, every
// such write would store a new resourceVersion (and a controller doing it
// periodically would write forever), or the restore annotations would churn.

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/claimbridge/claimbridge/api"
)

// Claims whose views carry restore annotations of every kind (besides the
// claims of conversion_test.go).
const (
	// A 1.31 claim asking for what no 1.26–1.30 claim can: its v1alpha1
	// and v1alpha2 views carry restore-v1alpha3. Many annotations and
	// labels, so that their order could show.
	selectorsClaimV1alpha3 = `
kind: ResourceClaim
metadata:
  name: selectors
  labels: {a: "1", b: "2", c: "3", d: "4", e: "5", f: "6", g: "7", h: "8", i: "9", j: "10", k: "11", l: "12", m: "13", n: "14"}
  annotations: {z.example.com/a: "1", y.example.com/b: "2", x.example.com/c: "3", w.example.com/d: "4", v.example.com/e: "5", u.example.com/f: "6", t.example.com/g: "7", s.example.com/h: "8", r.example.com/i: "9", q.example.com/j: "10", p.example.com/k: "11", o.example.com/l: "12", n.example.com/m: "13"}
spec:
  devices:
    requests:
    - name: gpus
      deviceClassName: gpu.example.com
      selectors:
      - cel: {expression: 'device.attributes["gpu.example.com"].model == "a100"'}
      - cel: {expression: 'device.capacity["gpu.example.com"].memory.compareTo(quantity("40Gi")) >= 0'}
      allocationMode: ExactCount
      count: 2
`
	// A 1.30 classic allocation that v1alpha3 cannot show whole: not
	// shareable, Immediate, handle data as JSON whose text is not canonical
	// (the exact text travels in restore-v1alpha2), and several handles of
	// one driver.
	notShareableClaimV1alpha2 = `
kind: ResourceClaim
metadata:
  name: not-shareable
spec:
  resourceClassName: accel.example.com
  allocationMode: Immediate
status:
  driverName: accel.example.com
  allocation:
    resourceHandles:
    - driverName: accel.example.com
      data: '{"b": 1.0, "a": [2.50, 1e2, {"z": 0.0000001}]}'
    - driverName: accel.example.com
      data: exclusive-handle
    - driverName: nic.example.com
      data: '{"mac":"00:11:22:33:44:55"}'
    shareable: false
  reservedFor:
  - {resource: pods, name: pod-0, uid: 00000000-0000-4000-8000-000000000001}
`
	// A 1.26 allocation with an empty handle (restore-v1alpha1 in the
	// stored claim) and shareable: false (restore-v1alpha2).
	emptyHandleClaimV1alpha1 = `
kind: ResourceClaim
metadata:
  name: empty-handle
spec:
  resourceClassName: gpu.example.com
  allocationMode: Immediate
status:
  driverName: gpu.resource.example.com
  allocation:
    resourceHandle: ""
    shareable: false
  reservedFor:
  - {resource: pods, name: pod-0, uid: 00000000-0000-4000-8000-000000000001}
`
)

// noopObject is a claim or template written through version.
type noopObject struct {
	resource, version, doc string
}

// noopObjects are written through each version, allocated where a status
// is given, with restore annotations in the stored object and in the views.
var noopObjects = []noopObject{
	{claimsResource, "v1alpha1", classicClaimV1alpha1},
	{claimsResource, "v1alpha1", emptyHandleClaimV1alpha1},
	{claimsResource, "v1alpha2", structuredClaimV1alpha2},
	{claimsResource, "v1alpha2", notShareableClaimV1alpha2},
	{claimsResource, "v1alpha3", devicesClaimV1alpha3},
	{claimsResource, "v1alpha3", selectorsClaimV1alpha3},
	{templatesResource, "v1alpha1", templateV1alpha1},
	{templatesResource, "v1alpha2", templateV1alpha2},
	{templatesResource, "v1alpha3", templateV1alpha3},
}

// allViews reads name through every version.
func allViews(t *testing.T, resource, ns, name string) map[string]*unstructured.Unstructured {
	t.Helper()
	out := map[string]*unstructured.Unstructured{}
	for _, v := range api.ServedVersions {
		out[v] = get(t, res(v, resource, ns), name)
	}
	return out
}

// expectSameViews fails t unless every version reads exactly what it read
// before: metadata (resourceVersion, annotations, managedFields) included.
func expectSameViews(t *testing.T, before, after map[string]*unstructured.Unstructured) {
	t.Helper()
	for _, v := range api.ServedVersions {
		if diff := cmp.Diff(normalize(t, before[v].Object), normalize(t, after[v].Object)); diff != "" {
			t.Errorf("%s view changed (-before +after):\n%s", v, diff)
		}
	}
}

// expectNoWrite fails t unless the answer to a write is the object as it
// was read: the apiserver found nothing to store.
func expectNoWrite(t *testing.T, what string, read, written *unstructured.Unstructured) {
	t.Helper()
	if written.GetResourceVersion() != read.GetResourceVersion() {
		t.Errorf("%s stored a new resourceVersion %s (was %s)", what, written.GetResourceVersion(), read.GetResourceVersion())
	}
	if diff := cmp.Diff(normalize(t, read.Object), normalize(t, written.Object)); diff != "" {
		t.Errorf("%s answered another object (-read +answered):\n%s", what, diff)
	}
}

// TestUnchangedWritesAreNoOps: a claim or template written through any
// version, read through any version and written back unchanged (PUT of the
// main resource, and for claims of /status; an empty merge patch, which
// kube-apiserver applies to the object converted to the patch's version)
// is not written again: the resourceVersion stays, and every version reads
// what it read before, restore annotations included.
func TestUnchangedWritesAreNoOps(t *testing.T) {
	ns := newNamespace(t, "noop")
	for _, o := range noopObjects {
		written := fromYAML(t, o.version, ns, o.doc)
		name := written.GetName()
		t.Run(fmt.Sprintf("%s %s written through %s", o.resource, name, o.version), func(t *testing.T) {
			createObject(t, o.resource, written)
			before := allViews(t, o.resource, ns, name)
			restored := false
			for _, u := range before {
				restored = restored || hasRestoreAnnotation(u)
			}
			if !restored {
				t.Fatalf("no view has a restore annotation: this case proves less than it should")
			}
			for _, v := range api.ServedVersions {
				ri := res(v, o.resource, ns)
				for _, w := range []struct {
					name, what string
					status     bool // claims only
					write      func(ctx context.Context, read *unstructured.Unstructured) (*unstructured.Unstructured, error)
				}{
					{"PUT", "unchanged update", false, func(ctx context.Context, read *unstructured.Unstructured) (*unstructured.Unstructured, error) {
						return ri.Update(ctx, read.DeepCopy(), metav1.UpdateOptions{})
					}},
					{"empty merge patch", "empty merge patch", false, func(ctx context.Context, _ *unstructured.Unstructured) (*unstructured.Unstructured, error) {
						return ri.Patch(ctx, name, types.MergePatchType, []byte("{}"), metav1.PatchOptions{})
					}},
					{"PUT /status", "unchanged status update", true, func(ctx context.Context, read *unstructured.Unstructured) (*unstructured.Unstructured, error) {
						return ri.UpdateStatus(ctx, read.DeepCopy(), metav1.UpdateOptions{})
					}},
				} {
					if w.status && o.resource != claimsResource {
						continue
					}
					t.Run(w.name+" through "+v, func(t *testing.T) {
						read := get(t, ri, name)
						out, err := w.write(ctxFor(t), read)
						if err != nil {
							t.Fatalf("%s: %s", w.what, describe(err))
						}
						expectNoWrite(t, "the "+w.what+" through "+v, read, out)
					})
				}
			}
			expectSameViews(t, before, allViews(t, o.resource, ns, name))
		})
	}
}

// hasRestoreAnnotation reports whether u carries a claimbridge restore
// annotation.
func hasRestoreAnnotation(u *unstructured.Unstructured) bool {
	for k := range u.GetAnnotations() {
		if strings.HasPrefix(k, restoreAnnotationPrefix) {
			return true
		}
	}
	return false
}

// TestUnchangedAppliesAreNoOps: server-side apply of the same configuration
// twice through any version, by one manager, writes at most once: the
// second apply finds nothing to change (not in the object, not in
// managedFields). Configurations: a label; the whole spec as the version
// shows it; for claims, the whole status through /status; and a manifest
// that creates the object.
func TestUnchangedAppliesAreNoOps(t *testing.T) {
	ns := newNamespace(t, "noop-apply")
	applyTwice := func(t *testing.T, ri dynamic.ResourceInterface, manager string, cfg *unstructured.Unstructured, subresources ...string) {
		t.Helper()
		data, err := json.Marshal(cfg.Object)
		if err != nil {
			t.Fatal(err)
		}
		force := false
		apply := func() *unstructured.Unstructured {
			t.Helper()
			out, err := ri.Patch(ctxFor(t), cfg.GetName(), types.ApplyPatchType, data, metav1.PatchOptions{FieldManager: manager, Force: &force}, subresources...)
			if err != nil {
				t.Fatalf("apply by %s: %s", manager, describe(err))
			}
			return out
		}
		first := apply()
		expectNoWrite(t, "the same apply again by "+manager, first, apply())
	}
	for _, o := range noopObjects {
		written := fromYAML(t, o.version, ns, o.doc)
		name := written.GetName()
		t.Run(fmt.Sprintf("%s %s written through %s", o.resource, name, o.version), func(t *testing.T) {
			createObject(t, o.resource, written)
			before := allViews(t, o.resource, ns, name)
			for _, v := range api.ServedVersions {
				ri := res(v, o.resource, ns)
				view := before[v]
				config := func(fields map[string]interface{}) *unstructured.Unstructured {
					cfg := &unstructured.Unstructured{Object: map[string]interface{}{
						"apiVersion": view.GetAPIVersion(), "kind": view.GetKind(),
						"metadata": map[string]interface{}{"name": name, "namespace": ns},
					}}
					for k, f := range fields {
						cfg.Object[k] = f
					}
					return cfg
				}
				t.Run("label through "+v, func(t *testing.T) {
					cfg := config(nil)
					cfg.SetLabels(map[string]string{"applied-" + v: "yes"})
					applyTwice(t, ri, "label-"+v, cfg)
				})
				t.Run("spec as shown through "+v, func(t *testing.T) {
					applyTwice(t, ri, "spec-"+v, config(map[string]interface{}{"spec": view.Object["spec"]}))
				})
				if st, _ := view.Object["status"].(map[string]interface{}); len(st) > 0 {
					t.Run("status as shown through "+v+" (/status)", func(t *testing.T) {
						applyTwice(t, ri, "status-"+v, config(map[string]interface{}{"status": view.Object["status"]}), "status")
					})
				}
			}
			// Only labels and managedFields changed.
			after := allViews(t, o.resource, ns, name)
			for _, v := range api.ServedVersions {
				expectSection(t, "spec", before[v], after[v])
				expectSection(t, "status", before[v], after[v])
				if diff := cmp.Diff(before[v].GetAnnotations(), after[v].GetAnnotations()); diff != "" {
					t.Errorf("%s annotations changed (-before +after):\n%s", v, diff)
				}
			}
		})
		t.Run(fmt.Sprintf("%s %s created by apply through %s", o.resource, name, o.version), func(t *testing.T) {
			cfg := fromYAML(t, o.version, ns, o.doc)
			cfg.SetName(name + "-applied")
			delete(cfg.Object, "status") // a create sets no status
			applyTwice(t, res(o.version, o.resource, ns), "creator", cfg)
		})
	}
}

// TestStaleRestoreDataIsDroppedOnce: writes through v1alpha3 that
// allocate a claim again leave the restore data of its old allocation in the
// stored claim (a write in the storage version runs no conversion), stale.
// An unchanged write through an older version drops it — that version's
// view never showed it — so it stores once; the next unchanged write is a
// no-op, in every version.
func TestStaleRestoreDataIsDroppedOnce(t *testing.T) {
	ns := newNamespace(t, "noop-stale")
	written := fromYAML(t, "v1alpha2", ns, notShareableClaimV1alpha2)
	name := written.GetName()
	createClaim(t, written)
	v3 := claims("v1alpha3", ns)
	// Deallocated and allocated again through v1alpha3 (an allocation is
	// immutable): another device.
	var allocation interface{}
	if _, err := mutate(t, v3, name, true, func(u *unstructured.Unstructured) {
		status := u.Object["status"].(map[string]interface{})
		allocation = status["allocation"]
		delete(status, "allocation")
		delete(status, "reservedFor")
	}); err != nil {
		t.Fatalf("deallocating through v1alpha3: %s", describe(err))
	}
	if _, err := mutate(t, v3, name, true, func(u *unstructured.Unstructured) {
		set(t, u, allocation, "status", "allocation")
		results := mustSlice(t, u, "status", "allocation", "devices", "results")
		results[0].(map[string]interface{})["device"] = "gpu-7"
		set(t, u, results, "status", "allocation", "devices", "results")
	}); err != nil {
		t.Fatalf("allocating again through v1alpha3: %s", describe(err))
	}
	stale := get(t, v3, name)
	if !strings.Contains(stale.GetAnnotations()[restoreAnnotationPrefix+"v1alpha2"], `"status"`) {
		t.Fatalf("the stored claim holds no status restore data: %v", stale.GetAnnotations())
	}
	before := allViews(t, claimsResource, ns, name)
	for _, v := range []string{"v1alpha1", "v1alpha2"} {
		if !strings.Contains(before[v].GetAnnotations()[restoreAnnotationPrefix+"v1alpha3"], "gpu-7") {
			t.Fatalf("the %s view does not carry the reallocated device in restore-v1alpha3: %v", v, before[v].GetAnnotations())
		}
	}

	read := get(t, claims("v1alpha2", ns), name)
	once, err := claims("v1alpha2", ns).Update(ctxFor(t), read.DeepCopy(), metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("unchanged update through v1alpha2: %s", describe(err))
	}
	if once.GetResourceVersion() == read.GetResourceVersion() {
		t.Errorf("the unchanged update through v1alpha2 kept the stale restore data")
	}
	after := allViews(t, claimsResource, ns, name)
	for _, v := range api.ServedVersions {
		expectSection(t, "spec", before[v], after[v])
		expectSection(t, "status", before[v], after[v])
	}
	if got := after["v1alpha3"].GetAnnotations()[restoreAnnotationPrefix+"v1alpha2"]; strings.Contains(got, `"status"`) {
		t.Errorf("the stored claim still holds status restore data: %s", got)
	}
	for _, v := range api.ServedVersions {
		ri := claims(v, ns)
		read := get(t, ri, name)
		out, err := ri.Update(ctxFor(t), read.DeepCopy(), metav1.UpdateOptions{})
		if err != nil {
			t.Fatalf("unchanged update through %s: %s", v, describe(err))
		}
		expectNoWrite(t, "the second unchanged update through "+v, read, out)
	}
}
