//go:build envtest

package envtest_test

// Suite 2: conversion through the apiserver. Claims and templates written in
// each version are read (get, list, watch) in every other version through the
// real kube-apiserver, which calls claimbridge's /convert; writes through the
// non-storage versions (PUT, JSON patch, server-side apply) must not lose
// what only the other shapes hold.

import (
	"context"
	"fmt"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"

	"github.com/claimbridge/claimbridge/api"
)

// A classic (control-plane controller) claim of Kubernetes 1.26, allocated by
// its driver.
const classicClaimV1alpha1 = `
kind: ResourceClaim
metadata:
  name: gpu-classic
  labels:
    app: trainer
  annotations:
    team.example.com/owner: ml-platform
spec:
  resourceClassName: gpu.example.com
  parametersRef:
    apiGroup: gpu.resource.example.com
    kind: GpuClaimParameters
    name: two-gpus
  allocationMode: WaitForFirstConsumer
status:
  driverName: gpu.resource.example.com
  allocation:
    resourceHandle: '{"gpus":["GPU-6f2a1c9e","GPU-8b3d7e01"]}'
    availableOnNodes:
      nodeSelectorTerms:
      - matchFields:
        - key: metadata.name
          operator: In
          values:
          - worker-1
    shareable: true
  reservedFor:
  - resource: pods
    name: trainer-0
    uid: 9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d
`

// A Kubernetes 1.30 claim with a structured-parameters allocation by the
// scheduler.
const structuredClaimV1alpha2 = `
kind: ResourceClaim
metadata:
  name: accel-structured
  finalizers:
  - dra.k8s.io/delete-protection
spec:
  resourceClassName: accel.example.com
  parametersRef:
    apiGroup: resource.k8s.io
    kind: ResourceClaimParameters
    name: two-accelerators
  allocationMode: WaitForFirstConsumer
status:
  driverName: accel.example.com
  allocation:
    resourceHandles:
    - driverName: accel.example.com
      structuredData:
        vendorClassParameters:
          apiVersion: accel.example.com/v1
          kind: ClassParameters
          powerProfile: balanced
        vendorClaimParameters:
          apiVersion: accel.example.com/v1
          kind: ClaimParameters
          memoryGiB: 16
        nodeName: worker-2
        results:
        - namedResources:
            name: accel-0
        - namedResources:
            name: accel-1
    availableOnNodes:
      nodeSelectorTerms:
      - matchFields:
        - key: metadata.name
          operator: In
          values:
          - worker-2
    shareable: true
  reservedFor:
  - resource: pods
    name: inference-server-7d9f8
    uid: 3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f
`

// A Kubernetes 1.31 claim with several requests, a constraint and
// configuration, allocated.
const devicesClaimV1alpha3 = `
kind: ResourceClaim
metadata:
  name: numa-aligned
  labels:
    app: mpi
spec:
  devices:
    requests:
    - name: gpu
      deviceClassName: gpu.example.com
      selectors:
      - cel:
          expression: device.driver == "gpu.example.com"
      allocationMode: ExactCount
      count: 2
    - name: nic
      deviceClassName: nic.example.com
      allocationMode: All
      adminAccess: true
    constraints:
    - requests:
      - gpu
      - nic
      matchAttribute: example.com/numa
    config:
    - requests:
      - gpu
      opaque:
        driver: gpu.example.com
        parameters:
          apiVersion: gpu.example.com/v1
          kind: GpuConfig
          sharing:
            strategy: TimeSlicing
status:
  allocation:
    devices:
      results:
      - request: gpu
        driver: gpu.example.com
        pool: node-7
        device: gpu-0
      - request: gpu
        driver: gpu.example.com
        pool: node-7
        device: gpu-1
      - request: nic
        driver: nic.example.com
        pool: node-7
        device: eth-2
      config:
      - source: FromClaim
        requests:
        - gpu
        opaque:
          driver: gpu.example.com
          parameters:
            apiVersion: gpu.example.com/v1
            kind: GpuConfig
            sharing:
              strategy: TimeSlicing
    nodeSelector:
      nodeSelectorTerms:
      - matchFields:
        - key: metadata.name
          operator: In
          values:
          - node-7
  reservedFor:
  - resource: pods
    name: mpi-worker-0
    uid: b1111111-2222-4333-8444-555555555555
`

var nodeSelector = func(node string) map[string]interface{} {
	return map[string]interface{}{"nodeSelectorTerms": []interface{}{map[string]interface{}{
		"matchFields": []interface{}{map[string]interface{}{"key": "metadata.name", "operator": "In", "values": []interface{}{node}}},
	}}}
}

// views maps a version to the object read in it.
type views map[string]*unstructured.Unstructured

func TestConversionClaimsAcrossVersions(t *testing.T) {
	ns := newNamespace(t, "conversion-claims")
	cases := []struct {
		name    string
		version string
		doc     string
		// mapping checks the fields that correspond across the views.
		mapping func(t *testing.T, v views)
	}{{
		name:    "classic allocated claim",
		version: "v1alpha1",
		doc:     classicClaimV1alpha1,
		mapping: func(t *testing.T, v views) {
			consumers := []interface{}{map[string]interface{}{"resource": "pods", "name": "trainer-0", "uid": "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d"}}
			// resourceClassName ⇄ devices.requests[0].deviceClassName
			expectField(t, v["v1alpha2"], "gpu.example.com", "spec", "resourceClassName")
			expectField(t, v["v1alpha3"], "gpu.example.com", "spec", "devices", "requests", 0, "deviceClassName")
			expectField(t, v["v1alpha2"], map[string]interface{}{"apiGroup": "gpu.resource.example.com", "kind": "GpuClaimParameters", "name": "two-gpus"}, "spec", "parametersRef")
			expectField(t, v["v1alpha2"], "WaitForFirstConsumer", "spec", "allocationMode")
			// the handle ⇄ resourceHandles[0] ⇄ a result of its driver
			expectField(t, v["v1alpha2"], "gpu.resource.example.com", "status", "driverName")
			expectField(t, v["v1alpha2"], "gpu.resource.example.com", "status", "allocation", "resourceHandles", 0, "driverName")
			expectField(t, v["v1alpha2"], `{"gpus":["GPU-6f2a1c9e","GPU-8b3d7e01"]}`, "status", "allocation", "resourceHandles", 0, "data")
			expectField(t, v["v1alpha3"], "gpu.resource.example.com", "status", "allocation", "devices", "results", 0, "driver")
			expectField(t, v["v1alpha3"], "gpu.resource.example.com", "status", "allocation", "controller")
			// availableOnNodes ⇄ nodeSelector
			expectField(t, v["v1alpha2"], nodeSelector("worker-1"), "status", "allocation", "availableOnNodes")
			expectField(t, v["v1alpha3"], nodeSelector("worker-1"), "status", "allocation", "nodeSelector")
			expectField(t, v["v1alpha2"], true, "status", "allocation", "shareable")
			for _, ver := range []string{"v1alpha2", "v1alpha3"} {
				expectField(t, v[ver], consumers, "status", "reservedFor")
				expectField(t, v[ver], "ml-platform", "metadata", "annotations", "team.example.com/owner")
				expectField(t, v[ver], "trainer", "metadata", "labels", "app")
			}
		},
	}, {
		name:    "structured allocation of 1.30",
		version: "v1alpha2",
		doc:     structuredClaimV1alpha2,
		mapping: func(t *testing.T, v views) {
			expectField(t, v["v1alpha1"], "accel.example.com", "spec", "resourceClassName")
			expectField(t, v["v1alpha1"], "WaitForFirstConsumer", "spec", "allocationMode")
			expectField(t, v["v1alpha3"], "accel.example.com", "spec", "devices", "requests", 0, "deviceClassName")
			expectField(t, v["v1alpha1"], "accel.example.com", "status", "driverName")
			// named resources ⇄ results with the handle's driver, pool = nodeName
			for i, device := range []string{"accel-0", "accel-1"} {
				expectField(t, v["v1alpha3"], "accel.example.com", "status", "allocation", "devices", "results", i, "driver")
				expectField(t, v["v1alpha3"], device, "status", "allocation", "devices", "results", i, "device")
				expectField(t, v["v1alpha3"], "worker-2", "status", "allocation", "devices", "results", i, "pool")
			}
			expectField(t, v["v1alpha1"], nodeSelector("worker-2"), "status", "allocation", "availableOnNodes")
			expectField(t, v["v1alpha3"], nodeSelector("worker-2"), "status", "allocation", "nodeSelector")
			expectField(t, v["v1alpha1"], true, "status", "allocation", "shareable")
			for _, ver := range []string{"v1alpha1", "v1alpha3"} {
				expectField(t, v[ver], []interface{}{"dra.k8s.io/delete-protection"}, "metadata", "finalizers")
				expectField(t, v[ver], "inference-server-7d9f8", "status", "reservedFor", 0, "name")
			}
		},
	}, {
		name:    "devices claim with two requests, a constraint and config",
		version: "v1alpha3",
		doc:     devicesClaimV1alpha3,
		mapping: func(t *testing.T, v views) {
			for _, ver := range []string{"v1alpha1", "v1alpha2"} {
				// devices.requests[0].deviceClassName ⇄ resourceClassName
				expectField(t, v[ver], "gpu.example.com", "spec", "resourceClassName")
				expectField(t, v[ver], nodeSelector("node-7"), "status", "allocation", "availableOnNodes")
				expectField(t, v[ver], true, "status", "allocation", "shareable")
				expectField(t, v[ver], "mpi-worker-0", "status", "reservedFor", 0, "name")
				expectField(t, v[ver], "mpi", "metadata", "labels", "app")
				// what the shape cannot hold travels in the annotation
				if v[ver].GetAnnotations()[restoreAnnotationPrefix+"v1alpha3"] == "" {
					t.Errorf("%s view has no %sv1alpha3 annotation: %v", ver, restoreAnnotationPrefix, v[ver].GetAnnotations())
				}
			}
			expectField(t, v["v1alpha1"], "gpu.example.com", "status", "driverName")
			// results' drivers ⇄ one handle per driver
			expectField(t, v["v1alpha2"], "gpu.example.com", "status", "allocation", "resourceHandles", 0, "driverName")
			expectField(t, v["v1alpha2"], "nic.example.com", "status", "allocation", "resourceHandles", 1, "driverName")
			expectField(t, v["v1alpha2"], "node-7", "status", "allocation", "resourceHandles", 0, "structuredData", "nodeName")
			expectField(t, v["v1alpha2"], "gpu-1", "status", "allocation", "resourceHandles", 0, "structuredData", "results", 1, "namedResources", "name")
		},
	}}

	for _, tc := range cases {
		t.Run(fmt.Sprintf("%s written in %s", tc.name, tc.version), func(t *testing.T) {
			written := fromYAML(t, tc.version, ns, tc.doc)
			name := written.GetName()
			createClaim(t, written)

			t.Run("read back in "+tc.version+" is exactly what was written", func(t *testing.T) {
				expectRoundTrip(t, written, get(t, claims(tc.version, ns), name))
			})

			v := views{}
			for _, version := range api.ServedVersions {
				v[version] = get(t, claims(version, ns), name)
			}
			for _, version := range api.ServedVersions {
				if version == tc.version {
					continue
				}
				t.Run("get in "+version, func(t *testing.T) {
					expectVersion(t, v[version], version, "ResourceClaim")
					if v[version].GetUID() != v[tc.version].GetUID() || v[version].GetResourceVersion() != v[tc.version].GetResourceVersion() {
						t.Errorf("uid/resourceVersion %s/%s, want %s/%s", v[version].GetUID(), v[version].GetResourceVersion(), v[tc.version].GetUID(), v[tc.version].GetResourceVersion())
					}
				})
				t.Run("list in "+version, func(t *testing.T) {
					list, err := claims(version, ns).List(ctxFor(t), metav1.ListOptions{FieldSelector: "metadata.name=" + name})
					if err != nil {
						t.Fatalf("list: %s", describe(err))
					}
					if len(list.Items) != 1 {
						t.Fatalf("list has %d items, want 1", len(list.Items))
					}
					if list.GetAPIVersion() != api.Group+"/"+version {
						t.Errorf("list apiVersion %s, want %s/%s", list.GetAPIVersion(), api.Group, version)
					}
					expectSameObject(t, v[version], &list.Items[0])
				})
				t.Run("watch in "+version, func(t *testing.T) {
					expectWatchAdded(t, claims(version, ns), v[version])
				})
			}
			t.Run("fields map across versions", func(t *testing.T) { tc.mapping(t, v) })

			// A change through one version shows in a watch of another.
			for _, version := range api.ServedVersions {
				if version == tc.version {
					continue
				}
				t.Run("watch in "+version+" sees a label set through "+tc.version, func(t *testing.T) {
					ctx := ctxFor(t)
					w, err := claims(version, ns).Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=" + name, ResourceVersion: get(t, claims(version, ns), name).GetResourceVersion()})
					if err != nil {
						t.Fatalf("watch: %s", describe(err))
					}
					defer w.Stop()
					label := "seen-in-" + version
					patch := fmt.Sprintf(`{"metadata":{"labels":{%q:"yes"}}}`, label)
					if _, err := claims(tc.version, ns).Patch(ctx, name, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
						t.Fatalf("labelling through %s: %s", tc.version, describe(err))
					}
					ev := nextEvent(t, ctx, w)
					if ev.Type != watch.Modified {
						t.Fatalf("event %s, want MODIFIED", ev.Type)
					}
					u := ev.Object.(*unstructured.Unstructured)
					expectVersion(t, u, version, "ResourceClaim")
					expectField(t, u, "yes", "metadata", "labels", label)
					expectSection(t, "spec", v[version], u)
					expectSection(t, "status", v[version], u)
				})
			}
		})
	}
}

// expectVersion fails t unless u is kind in version of the group.
func expectVersion(t testing.TB, u *unstructured.Unstructured, version, kind string) {
	t.Helper()
	if u.GetAPIVersion() != api.Group+"/"+version || u.GetKind() != kind {
		t.Errorf("got %s %s, want %s/%s %s", u.GetAPIVersion(), u.GetKind(), api.Group, version, kind)
	}
}

// expectSameObject fails t unless got equals want in spec, status and
// metadata (ignoring managedFields).
func expectSameObject(t testing.TB, want, got *unstructured.Unstructured) {
	t.Helper()
	w, g := want.DeepCopy(), got.DeepCopy()
	w.SetManagedFields(nil)
	g.SetManagedFields(nil)
	if diff := cmp.Diff(normalize(t, w.Object), normalize(t, g.Object)); diff != "" {
		t.Errorf("%s %s differs from the object read with get (-get +got):\n%s", got.GetAPIVersion(), got.GetName(), diff)
	}
}

// nextEvent waits for the next watch event (bounded by ctx).
func nextEvent(t testing.TB, ctx context.Context, w watch.Interface) watch.Event {
	t.Helper()
	select {
	case ev, ok := <-w.ResultChan():
		if !ok {
			t.Fatal("watch closed before an event arrived")
		}
		if ev.Type == watch.Error {
			t.Fatalf("watch error: %v", ev.Object)
		}
		return ev
	case <-ctx.Done():
		t.Fatalf("no watch event: %v", ctx.Err())
	}
	return watch.Event{}
}

// expectWatchAdded watches want's name from the start and expects the
// synthetic ADDED event to carry want as read with get.
func expectWatchAdded(t testing.TB, ri dynamic.ResourceInterface, want *unstructured.Unstructured) {
	t.Helper()
	ctx := ctxFor(t)
	w, err := ri.Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=" + want.GetName()})
	if err != nil {
		t.Fatalf("watch: %s", describe(err))
	}
	defer w.Stop()
	ev := nextEvent(t, ctx, w)
	if ev.Type != watch.Added {
		t.Fatalf("first event %s, want ADDED", ev.Type)
	}
	expectSameObject(t, want, ev.Object.(*unstructured.Unstructured))
}

// TestConversionWritesThroughOtherVersions writes a v1alpha3 claim with two
// requests, a constraint and config through v1alpha1 and v1alpha2, whose
// shapes cannot hold most of it, and checks that v1alpha3 still reads the
// same spec and allocation.
func TestConversionWritesThroughOtherVersions(t *testing.T) {
	ns := newNamespace(t, "conversion-writes")
	written := fromYAML(t, "v1alpha3", ns, devicesClaimV1alpha3)
	name := written.GetName()
	createClaim(t, written)
	v3 := claims("v1alpha3", ns)

	expectUnchanged := func(t *testing.T, labels ...string) {
		t.Helper()
		got := get(t, v3, name)
		expectSection(t, "spec", written, got)
		expectSection(t, "status", written, got)
		for _, l := range labels {
			expectField(t, got, "yes", "metadata", "labels", l)
		}
		expectField(t, got, "mpi", "metadata", "labels", "app")
		for k := range got.GetAnnotations() {
			if k == restoreAnnotationPrefix+"v1alpha3" {
				t.Errorf("the v1alpha3 view carries its own restore annotation %s", k)
			}
		}
	}

	t.Run("label via v1alpha1 JSON patch keeps the v1alpha3 spec and status", func(t *testing.T) {
		_, err := jsonPatch(ctxFor(t), claims("v1alpha1", ns), name, []map[string]interface{}{
			{"op": "add", "path": "/metadata/labels/patched-v1alpha1", "value": "yes"},
		})
		if err != nil {
			t.Fatalf("patch: %s", describe(err))
		}
		expectUnchanged(t, "patched-v1alpha1")
	})

	t.Run("label via v1alpha2 server-side apply keeps the v1alpha3 spec and status", func(t *testing.T) {
		cfg := fromYAML(t, "v1alpha2", ns, fmt.Sprintf(`
kind: ResourceClaim
metadata:
  name: %s
  labels:
    applied-v1alpha2: "yes"
`, name))
		_, err := claims("v1alpha2", ns).Apply(ctxFor(t), name, cfg, metav1.ApplyOptions{FieldManager: "envtest-conversion"})
		if err != nil {
			t.Fatalf("apply: %s", describe(err))
		}
		expectUnchanged(t, "patched-v1alpha1", "applied-v1alpha2")
	})

	t.Run("label via v1alpha1 server-side apply with the full v1alpha1 spec keeps the v1alpha3 spec", func(t *testing.T) {
		cur := get(t, claims("v1alpha1", ns), name)
		cfg := fromYAML(t, "v1alpha1", ns, fmt.Sprintf(`
kind: ResourceClaim
metadata:
  name: %s
  labels:
    applied-v1alpha1: "yes"
`, name))
		cfg.Object["spec"] = cur.Object["spec"]
		_, err := claims("v1alpha1", ns).Apply(ctxFor(t), name, cfg, metav1.ApplyOptions{FieldManager: "envtest-conversion-v1", Force: true})
		if err != nil {
			t.Fatalf("apply: %s", describe(err))
		}
		expectUnchanged(t, "patched-v1alpha1", "applied-v1alpha2", "applied-v1alpha1")
	})

	for _, version := range []string{"v1alpha1", "v1alpha2"} {
		t.Run("label via "+version+" update (PUT of the object as read) keeps the v1alpha3 spec and status", func(t *testing.T) {
			label := "put-" + version
			if _, err := mutate(t, claims(version, ns), name, false, func(u *unstructured.Unstructured) {
				l := u.GetLabels()
				l[label] = "yes"
				u.SetLabels(l)
			}); err != nil {
				t.Fatalf("update: %s", describe(err))
			}
			expectUnchanged(t, label)
		})
		t.Run("status PUT through "+version+" adding a consumer keeps the v1alpha3 allocation", func(t *testing.T) {
			uid := "c2222222-2222-4333-8444-55555555555" + version[len(version)-1:]
			if _, err := mutate(t, claims(version, ns), name, true, func(u *unstructured.Unstructured) {
				rf, _, _ := unstructured.NestedSlice(u.Object, "status", "reservedFor")
				rf = append(rf, map[string]interface{}{"resource": "pods", "name": "extra-" + version, "uid": uid})
				set(t, u, rf, "status", "reservedFor")
			}); err != nil {
				t.Fatalf("status update: %s", describe(err))
			}
			got := get(t, v3, name)
			expectSection(t, "spec", written, got)
			expectField(t, got, written.Object["status"].(map[string]interface{})["allocation"], "status", "allocation")
			expectField(t, got, uid, "status", "reservedFor", -1+len(mustSlice(t, got, "status", "reservedFor")), "uid")
			// Remove it again through v1alpha3, back to what was written.
			rf := mustSlice(t, got, "status", "reservedFor")
			set(t, got, rf[:len(rf)-1], "status", "reservedFor")
			if _, err := v3.UpdateStatus(ctxFor(t), got, metav1.UpdateOptions{}); err != nil {
				t.Fatalf("removing the consumer through v1alpha3: %s", describe(err))
			}
			expectSection(t, "status", written, get(t, v3, name))
		})
	}

	t.Run("v1alpha1 and v1alpha2 JSON patch of status.reservedFor keeps the v1alpha3 allocation", func(t *testing.T) {
		for _, version := range []string{"v1alpha1", "v1alpha2"} {
			_, err := jsonPatch(ctxFor(t), claims(version, ns), name, []map[string]interface{}{
				{"op": "add", "path": "/status/reservedFor/-", "value": map[string]interface{}{"resource": "pods", "name": "jp-" + version, "uid": "d0000000-0000-4000-8000-00000000000" + version[len(version)-1:]}},
			}, "status")
			if err != nil {
				t.Fatalf("%s status patch: %s", version, describe(err))
			}
		}
		got := get(t, v3, name)
		expectSection(t, "spec", written, got)
		expectField(t, got, written.Object["status"].(map[string]interface{})["allocation"], "status", "allocation")
		if n := len(mustSlice(t, got, "status", "reservedFor")); n != 3 {
			t.Errorf("reservedFor has %d entries, want 3", n)
		}
	})

	t.Run("read back in v1alpha3 after all writes has the written spec", func(t *testing.T) {
		got := get(t, v3, name)
		expectSection(t, "spec", written, got)
	})
}

func mustSlice(t testing.TB, u *unstructured.Unstructured, path ...string) []interface{} {
	t.Helper()
	s, ok, err := unstructured.NestedSlice(u.Object, path...)
	if err != nil || !ok {
		t.Fatalf("%v: missing or not a list (%v)", path, err)
	}
	return s
}

// TestConversionStatusOnlyInformationThroughStatusSubresource writes, through
// /status of a non-storage version, status content that v1alpha3 cannot hold
// (it travels in the restore annotation) and reads it back.
func TestConversionStatusOnlyInformationThroughStatusSubresource(t *testing.T) {
	ns := newNamespace(t, "conversion-status")
	t.Run("v1alpha2 vendorRequestParameters survive a /status write", func(t *testing.T) {
		written := fromYAML(t, "v1alpha2", ns, `
kind: ResourceClaim
metadata:
  name: request-parameters
spec:
  resourceClassName: accel.example.com
  allocationMode: WaitForFirstConsumer
status:
  driverName: accel.example.com
  allocation:
    resourceHandles:
    - driverName: accel.example.com
      structuredData:
        nodeName: worker-2
        results:
        - vendorRequestParameters:
            apiVersion: accel.example.com/v1
            kind: RequestParameters
            priority: 2
          namedResources:
            name: accel-1
    shareable: true
`)
		createClaim(t, written)
		expectRoundTrip(t, written, get(t, claims("v1alpha2", ns), written.GetName()))
	})
	t.Run("v1alpha2 shareable=false survives a /status write", func(t *testing.T) {
		written := fromYAML(t, "v1alpha2", ns, `
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
      data: exclusive-handle
    shareable: false
`)
		createClaim(t, written)
		expectRoundTrip(t, written, get(t, claims("v1alpha2", ns), written.GetName()))
	})
	t.Run("v1alpha1 opaque non-JSON resourceHandle survives a /status write", func(t *testing.T) {
		written := fromYAML(t, "v1alpha1", ns, `
kind: ResourceClaim
metadata:
  name: opaque-handle
spec:
  resourceClassName: gpu.example.com
  allocationMode: Immediate
status:
  driverName: gpu.resource.example.com
  allocation:
    resourceHandle: 'gpu=GPU-6f2a1c9e;mig=1g.5gb'
    shareable: true
`)
		createClaim(t, written)
		expectRoundTrip(t, written, get(t, claims("v1alpha1", ns), written.GetName()))
	})
}

// TestConversionPaginatedList lists claims written in all versions through
// the non-storage versions in pages.
func TestConversionPaginatedList(t *testing.T) {
	ns := newNamespace(t, "conversion-pages")
	const n = 7
	for i := range n {
		version := api.ServedVersions[i%len(api.ServedVersions)]
		var doc string
		switch version {
		case "v1alpha1", "v1alpha2":
			doc = fmt.Sprintf("kind: ResourceClaim\nmetadata: {name: claim-%d}\nspec: {resourceClassName: class-%d.example.com, allocationMode: Immediate}\n", i, i)
		default:
			doc = fmt.Sprintf("kind: ResourceClaim\nmetadata: {name: claim-%d}\nspec:\n  devices:\n    requests:\n    - {name: gpu, deviceClassName: class-%d.example.com, allocationMode: ExactCount, count: 1}\n    - {name: nic, deviceClassName: nic.example.com, allocationMode: ExactCount, count: 1}\n", i, i)
		}
		createClaim(t, fromYAML(t, version, ns, doc))
	}
	for _, version := range []string{"v1alpha1", "v1alpha2"} {
		t.Run("pages of 2 through "+version, func(t *testing.T) {
			ctx := ctxFor(t)
			var names []string
			opts := metav1.ListOptions{Limit: 2}
			pages := 0
			for {
				list, err := claims(version, ns).List(ctx, opts)
				if err != nil {
					t.Fatalf("list page %d: %s", pages, describe(err))
				}
				pages++
				if len(list.Items) > 2 {
					t.Errorf("page %d has %d items, limit 2", pages, len(list.Items))
				}
				for i := range list.Items {
					item := &list.Items[i]
					expectVersion(t, item, version, "ResourceClaim")
					names = append(names, item.GetName())
					var idx int
					fmt.Sscanf(item.GetName(), "claim-%d", &idx)
					expectField(t, item, fmt.Sprintf("class-%d.example.com", idx), "spec", "resourceClassName")
					expectSameObject(t, get(t, claims(version, ns), item.GetName()), item)
				}
				if list.GetContinue() == "" {
					break
				}
				if pages > n {
					t.Fatalf("more than %d pages", n)
				}
				opts.Continue = list.GetContinue()
			}
			sort.Strings(names)
			var want []string
			for i := range n {
				want = append(want, fmt.Sprintf("claim-%d", i))
			}
			sort.Strings(want)
			if diff := cmp.Diff(want, names); diff != "" {
				t.Errorf("names over all pages (-want +got):\n%s", diff)
			}
			if pages < 4 {
				t.Errorf("%d pages, want 4 for %d items with limit 2", pages, n)
			}
		})
	}
}

const (
	templateV1alpha1 = `
kind: ResourceClaimTemplate
metadata:
  name: per-pod-gpu-v1
spec:
  metadata:
    labels:
      app: trainer
  spec:
    resourceClassName: gpu.example.com
    parametersRef:
      kind: ConfigMap
      name: gpu-parameters
    allocationMode: WaitForFirstConsumer
`
	templateV1alpha2 = `
kind: ResourceClaimTemplate
metadata:
  name: per-pod-accel-v2
spec:
  metadata:
    labels:
      app.kubernetes.io/component: accelerator
  spec:
    resourceClassName: accel.example.com
    parametersRef:
      apiGroup: resource.k8s.io
      kind: ResourceClaimParameters
      name: one-accelerator
    allocationMode: Immediate
`
	templateV1alpha3 = `
kind: ResourceClaimTemplate
metadata:
  name: per-pod-gpu-v3
spec:
  metadata:
    labels:
      app.kubernetes.io/component: gpu
  spec:
    devices:
      requests:
      - name: gpu
        deviceClassName: gpu.example.com
        selectors:
        - cel:
            expression: device.capacity["gpu.example.com"].memory.compareTo(quantity("40Gi")) >= 0
        allocationMode: ExactCount
        count: 1
      - name: nic
        deviceClassName: nic.example.com
        allocationMode: ExactCount
        count: 1
      constraints:
      - requests: [gpu, nic]
        matchAttribute: example.com/numa
      config:
      - requests:
        - gpu
        opaque:
          driver: gpu.example.com
          parameters:
            apiVersion: gpu.example.com/v1
            kind: GpuConfig
`
)

func TestConversionTemplatesAcrossVersions(t *testing.T) {
	ns := newNamespace(t, "conversion-templates")
	cases := []struct {
		version, doc, className string
	}{
		{"v1alpha1", templateV1alpha1, "gpu.example.com"},
		{"v1alpha2", templateV1alpha2, "accel.example.com"},
		{"v1alpha3", templateV1alpha3, "gpu.example.com"},
	}
	for _, tc := range cases {
		t.Run("template written in "+tc.version, func(t *testing.T) {
			written := fromYAML(t, tc.version, ns, tc.doc)
			name := written.GetName()
			createObject(t, templatesResource, written)
			t.Run("read back in "+tc.version+" is exactly what was written", func(t *testing.T) {
				expectRoundTrip(t, written, get(t, templates(tc.version, ns), name))
			})
			for _, version := range api.ServedVersions {
				if version == tc.version {
					continue
				}
				t.Run("get, list and watch in "+version, func(t *testing.T) {
					got := get(t, templates(version, ns), name)
					expectVersion(t, got, version, "ResourceClaimTemplate")
					if version == "v1alpha3" {
						expectField(t, got, tc.className, "spec", "spec", "devices", "requests", 0, "deviceClassName")
					} else {
						expectField(t, got, tc.className, "spec", "spec", "resourceClassName")
					}
					expectField(t, got, written.Object["spec"].(map[string]interface{})["metadata"], "spec", "metadata")
					list, err := templates(version, ns).List(ctxFor(t), metav1.ListOptions{FieldSelector: "metadata.name=" + name})
					if err != nil || len(list.Items) != 1 {
						t.Fatalf("list: %d items, %v", len(list.Items), err)
					}
					expectSameObject(t, got, &list.Items[0])
					expectWatchAdded(t, templates(version, ns), got)
				})
			}
			if tc.version != "v1alpha3" {
				return
			}
			t.Run("label via v1alpha1 JSON patch and v1alpha2 apply keeps the v1alpha3 template spec", func(t *testing.T) {
				if _, err := jsonPatch(ctxFor(t), templates("v1alpha1", ns), name, []map[string]interface{}{
					{"op": "add", "path": "/metadata/labels", "value": map[string]interface{}{"patched": "yes"}},
				}); err != nil {
					t.Fatalf("patch: %s", describe(err))
				}
				cfg := fromYAML(t, "v1alpha2", ns, fmt.Sprintf("kind: ResourceClaimTemplate\nmetadata:\n  name: %s\n  labels: {applied: \"yes\"}\n", name))
				if _, err := templates("v1alpha2", ns).Apply(ctxFor(t), name, cfg, metav1.ApplyOptions{FieldManager: "envtest-conversion"}); err != nil {
					t.Fatalf("apply: %s", describe(err))
				}
				got := get(t, templates("v1alpha3", ns), name)
				expectSection(t, "spec", written, got)
				expectField(t, got, "yes", "metadata", "labels", "patched")
				expectField(t, got, "yes", "metadata", "labels", "applied")
			})
		})
	}
}
