//go:build envtest

package envtest_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/jsonmergepatch"
	"k8s.io/apimachinery/pkg/util/mergepatch"
)

// TestApplyAcrossVersions: server-side apply, managedFields and kubectl's
// client-side flows with field managers and clients of different versions.
// kube-apiserver keeps each manager's fields in the version it applied
// through and converts the live object (through the webhook) to compare,
// prune and detect conflicts in that version; what a version cannot show
// travels in the claimbridge.dev/restore-* annotations, which no manager
// owns.
//
// Found by this test: a manager that applied through v1alpha1 and applies
// through v1alpha3 made kube-apiserver send the webhook its pruned object
// without metadata, and refuse the answer ("conversion webhook ... returned
// invalid metadata: missing metadata in converted object", a 500 on every
// such apply); and the refusal of such an apply that drops what v1alpha3
// cannot show blamed edited restore annotations.
func TestApplyAcrossVersions(t *testing.T) {
	ns := newNamespace(t, "apply-versions")

	const v1Spec = `
spec:
  resourceClassName: gpu.example.com
  allocationMode: Immediate
  parametersRef: {apiGroup: gpu.example.com, kind: GpuParams, name: small}
`
	// The scheduler's allocation through v1alpha3: v1alpha1 cannot show the
	// pool and device (restore-v1alpha2 in the v1alpha1 view, for the
	// v1alpha2 view's structured handle).
	const schedulerStatus = `
kind: ResourceClaim
metadata: {name: NAME}
status:
  allocation:
    devices:
      results:
      - {request: request, driver: gpu.example.com, pool: node-a, device: gpu-0}
  reservedFor:
  - {resource: pods, name: pod-0, uid: 00000000-0000-4000-8000-000000000001}
`
	allocate := func(t *testing.T, name string) {
		t.Helper()
		if _, err := applyClaim(t, "v1alpha3", ns, "scheduler", false, strings.Replace(schedulerStatus, "NAME", name, 1), "status"); err != nil {
			t.Fatalf("scheduler's status apply through v1alpha3: %s", describe(err))
		}
	}
	// views reads name through every version.
	views := func(t *testing.T, name string) map[string]*unstructured.Unstructured {
		t.Helper()
		out := map[string]*unstructured.Unstructured{}
		for _, v := range []string{"v1alpha1", "v1alpha2", "v1alpha3"} {
			out[v] = get(t, claims(v, ns), name)
		}
		return out
	}
	// expectViews: every version shows the spec and status it showed
	// before, and the labels given.
	expectViews := func(t *testing.T, name string, before map[string]*unstructured.Unstructured, labels map[string]string) {
		t.Helper()
		for v, got := range views(t, name) {
			expectSection(t, "spec", before[v], got)
			expectSection(t, "status", before[v], got)
			if diff := cmp.Diff(labels, got.GetLabels()); diff != "" {
				t.Errorf("%s labels (-want +got):\n%s", v, diff)
			}
		}
	}

	t.Run("managers of three versions", func(t *testing.T) {
		manifest := "kind: ResourceClaim\nmetadata: {name: three, labels: {app: a}}\n" + v1Spec
		if _, err := applyClaim(t, "v1alpha1", ns, "team-a", false, manifest); err != nil {
			t.Fatalf("team-a's apply through v1alpha1: %s", describe(err))
		}
		allocate(t, "three")
		if _, err := applyClaim(t, "v1alpha2", ns, "labeler", false, "kind: ResourceClaim\nmetadata: {name: three, labels: {tier: x}}\n"); err != nil {
			t.Fatalf("labeler's apply through v1alpha2: %s", describe(err))
		}
		before := views(t, "three")
		expectSection(t, "spec", fromYAML(t, "v1alpha1", ns, manifest), before["v1alpha1"])
		expectField(t, before["v1alpha2"], "node-a", "status", "allocation", "resourceHandles", 0, "structuredData", "nodeName")
		expectField(t, before["v1alpha3"], "gpu-0", "status", "allocation", "devices", "results", 0, "device")
		wantManaged := map[string]managedEntry{
			"team-a":           {"Apply", "v1alpha1", "", `{"f:metadata":{"f:labels":{"f:app":{}}},"f:spec":{"f:allocationMode":{},"f:parametersRef":{"f:apiGroup":{},"f:kind":{},"f:name":{}},"f:resourceClassName":{}}}`},
			"scheduler/status": {"Apply", "v1alpha3", "status", `{"f:status":{"f:allocation":{"f:devices":{"f:results":{}}},"f:reservedFor":{"k:{\"uid\":\"00000000-0000-4000-8000-000000000001\"}":{".":{},"f:name":{},"f:resource":{},"f:uid":{}}}}}`},
			"labeler":          {"Apply", "v1alpha2", "", `{"f:metadata":{"f:labels":{"f:tier":{}}}}`},
		}
		expectManaged(t, before["v1alpha3"], wantManaged)

		// Re-applied unchanged: no conflict, no write.
		got, err := applyClaim(t, "v1alpha1", ns, "team-a", false, manifest)
		if err != nil {
			t.Fatalf("team-a's unchanged re-apply: %s", describe(err))
		}
		if got.GetResourceVersion() != before["v1alpha1"].GetResourceVersion() {
			t.Errorf("the unchanged re-apply wrote the claim: resourceVersion %s, was %s", got.GetResourceVersion(), before["v1alpha1"].GetResourceVersion())
		}
		expectViews(t, "three", before, map[string]string{"app": "a", "tier": "x"})

		// Re-applied with another label: only the label changes; the
		// restore annotations (the spec v1alpha3 cannot show, the
		// allocation v1alpha1 cannot show) and the status stay.
		if _, err := applyClaim(t, "v1alpha1", ns, "team-a", false, strings.Replace(manifest, "app: a", "app: b", 1)); err != nil {
			t.Fatalf("team-a's re-apply with another label: %s", describe(err))
		}
		expectViews(t, "three", before, map[string]string{"app": "b", "tier": "x"})
		expectManaged(t, get(t, claims("v1alpha3", ns), "three"), wantManaged)
	})

	t.Run("conflicts and forced ownership across versions", func(t *testing.T) {
		manifest := "kind: ResourceClaim\nmetadata: {name: owned, labels: {app: a}}\n" + v1Spec
		if _, err := applyClaim(t, "v1alpha1", ns, "team-a", false, manifest); err != nil {
			t.Fatalf("team-a's apply through v1alpha1: %s", describe(err))
		}
		allocate(t, "owned")
		before := views(t, "owned")
		label := "kind: ResourceClaim\nmetadata: {name: owned, labels: {app: b}}\n"
		_, err := applyClaim(t, "v1alpha2", ns, "team-b", false, label)
		expectConflict(t, err, `Apply failed with 1 conflict: conflict with "team-a": .metadata.labels.app`)
		if _, err := applyClaim(t, "v1alpha2", ns, "team-b", true, label); err != nil {
			t.Fatalf("team-b's forced apply through v1alpha2: %s", describe(err))
		}
		expectViews(t, "owned", before, map[string]string{"app": "b"})
		expectManaged(t, get(t, claims("v1alpha3", ns), "owned"), map[string]managedEntry{
			"team-a":           {"Apply", "v1alpha1", "", `{"f:spec":{"f:allocationMode":{},"f:parametersRef":{"f:apiGroup":{},"f:kind":{},"f:name":{}},"f:resourceClassName":{}}}`},
			"team-b":           {"Apply", "v1alpha2", "", `{"f:metadata":{"f:labels":{"f:app":{}}}}`},
			"scheduler/status": {"Apply", "v1alpha3", "status", `{"f:status":{"f:allocation":{"f:devices":{"f:results":{}}},"f:reservedFor":{"k:{\"uid\":\"00000000-0000-4000-8000-000000000001\"}":{".":{},"f:name":{},"f:resource":{},"f:uid":{}}}}}`},
		})
		_, err = applyClaim(t, "v1alpha1", ns, "team-a", false, manifest)
		expectConflict(t, err, `Apply failed with 1 conflict: conflict with "team-b": .metadata.labels.app`)

		// Another class through v1alpha3 conflicts with what team-a applied
		// through v1alpha1, named in v1alpha1's fields; forced, it is
		// refused as a spec change.
		other := "kind: ResourceClaim\nmetadata: {name: owned}\nspec:\n  devices:\n    requests:\n" +
			"    - {name: request, deviceClassName: CLASS, allocationMode: ExactCount, count: 1}\n"
		_, err = applyClaim(t, "v1alpha3", ns, "team-c", false, strings.Replace(other, "CLASS", "other.example.com", 1))
		expectConflict(t, err, "Apply failed with 2 conflicts: conflicts with \"team-a\":\n- .spec.allocationMode\n- .spec.resourceClassName")
		_, err = applyClaim(t, "v1alpha3", ns, "team-c", true, strings.Replace(other, "CLASS", "other.example.com", 1))
		expectInvalid(t, err, byWebhook, cause{Field: "spec", Type: causeInvalid, Detail: "field is immutable"})
		// The same meaning through v1alpha3, forced: team-c shares the spec,
		// and what only v1alpha1 shows stays.
		if _, err := applyClaim(t, "v1alpha3", ns, "team-c", true, strings.Replace(other, "CLASS", "gpu.example.com", 1)); err != nil {
			t.Fatalf("team-c's forced apply of the same spec through v1alpha3: %s", describe(err))
		}
		expectViews(t, "owned", before, map[string]string{"app": "b"})
	})

	t.Run("a manifest upgraded to v1alpha3 by its own manager", func(t *testing.T) {
		// Same meaning: accepted (was a 500: the webhook answered the
		// pruned object kube-apiserver sent without metadata).
		plain := "kind: ResourceClaim\nmetadata: {name: plain, labels: {app: u}}\nspec: {resourceClassName: gpu.example.com, allocationMode: WaitForFirstConsumer}\n"
		if _, err := applyClaim(t, "v1alpha1", ns, "team-u", false, plain); err != nil {
			t.Fatalf("team-u's apply through v1alpha1: %s", describe(err))
		}
		allocate(t, "plain")
		before := views(t, "plain")
		upgraded := "kind: ResourceClaim\nmetadata: {name: plain, labels: {app: u}}\nspec:\n  devices:\n    requests:\n" +
			"    - {name: request, deviceClassName: CLASS, allocationMode: ExactCount, count: 1}\n"
		if _, err := applyClaim(t, "v1alpha3", ns, "team-u", false, strings.Replace(upgraded, "CLASS", "gpu.example.com", 1)); err != nil {
			t.Fatalf("team-u's apply of the same claim through v1alpha3: %s", describe(err))
		}
		expectViews(t, "plain", before, map[string]string{"app": "u"})
		expectManaged(t, get(t, claims("v1alpha3", ns), "plain"), map[string]managedEntry{
			"team-u":           {"Apply", "v1alpha3", "", `{"f:metadata":{"f:labels":{"f:app":{}}},"f:spec":{"f:devices":{"f:requests":{}}}}`},
			"scheduler/status": {"Apply", "v1alpha3", "status", `{"f:status":{"f:allocation":{"f:devices":{"f:results":{}}},"f:reservedFor":{"k:{\"uid\":\"00000000-0000-4000-8000-000000000001\"}":{".":{},"f:name":{},"f:resource":{},"f:uid":{}}}}}`},
		})
		_, err := applyClaim(t, "v1alpha3", ns, "team-u", false, strings.Replace(upgraded, "CLASS", "other.example.com", 1))
		expectInvalid(t, err, byWebhook, cause{Field: "spec", Type: causeInvalid, Detail: "field is immutable"})

		// parametersRef and Immediate have no v1alpha3 field: the v1alpha3
		// manifest no longer applies them, so kube-apiserver removes them,
		// which changes the spec; the refusal says why.
		params := "kind: ResourceClaim\nmetadata: {name: params}\n" + v1Spec
		if _, err := applyClaim(t, "v1alpha1", ns, "team-p", false, params); err != nil {
			t.Fatalf("team-p's apply through v1alpha1: %s", describe(err))
		}
		before = views(t, "params")
		upgraded = strings.Replace(strings.Replace(upgraded, "CLASS", "gpu.example.com", 1), "name: plain, labels: {app: u}", "name: params", 1)
		_, err = applyClaim(t, "v1alpha3", ns, "team-p", false, upgraded)
		expectInvalid(t, err, byWebhook, cause{Field: "metadata.annotations", Type: causeInvalid,
			Detail: "field is immutable: the update changes the spec as seen through v1alpha1 and v1alpha2 (server-side apply by field manager \"team-p\" through v1alpha3 " +
				"removes the fields it applied through v1alpha1 before and does not apply now, among them what v1alpha3 cannot show, which the " +
				"claimbridge.dev/restore-* annotations held: apply through v1alpha1 as before, or through v1alpha3 with another field manager, " +
				"which leaves \"team-p\"'s fields in place (with --force-conflicts where their fields overlap))"})
		// As the message says: another manager shares the spec.
		if _, err := applyClaim(t, "v1alpha3", ns, "team-p-v1alpha3", false, upgraded); err != nil {
			t.Fatalf("the v1alpha3 manifest applied by another manager: %s", describe(err))
		}
		expectViews(t, "params", before, nil)
	})

	t.Run("a template applied through v1alpha1, then v1alpha3, by its own manager", func(t *testing.T) {
		// Templates take the same conversion path; their spec is immutable
		// too. (No other manager owns a field of them here, so the pruned
		// object that needed metadata: {} for claims does not arise.)
		apply := func(version, doc string) (*unstructured.Unstructured, error) {
			u := fromYAML(t, version, ns, doc)
			data, err := json.Marshal(u.Object)
			if err != nil {
				t.Fatal(err)
			}
			force := false
			return templates(version, ns).Patch(ctxFor(t), u.GetName(), types.ApplyPatchType, data, metav1.PatchOptions{FieldManager: "team-t", Force: &force})
		}
		v1 := "kind: ResourceClaimTemplate\nmetadata: {name: tpl, labels: {app: t}}\nspec: {spec: {resourceClassName: gpu.example.com, allocationMode: WaitForFirstConsumer}}\n"
		first, err := apply("v1alpha1", v1)
		if err != nil {
			t.Fatalf("team-t's apply through v1alpha1: %s", describe(err))
		}
		again, err := apply("v1alpha1", v1)
		if err != nil || again.GetResourceVersion() != first.GetResourceVersion() {
			t.Fatalf("the same apply again: %v, resourceVersion %s, want no write (%s)", describe(err), again.GetResourceVersion(), first.GetResourceVersion())
		}
		before := map[string]*unstructured.Unstructured{}
		for _, v := range []string{"v1alpha1", "v1alpha2", "v1alpha3"} {
			before[v] = get(t, templates(v, ns), "tpl")
		}
		v3 := "kind: ResourceClaimTemplate\nmetadata: {name: tpl, labels: {app: t}}\nspec:\n  spec:\n    devices:\n      requests:\n" +
			"      - {name: request, deviceClassName: CLASS, allocationMode: ExactCount, count: 1}\n"
		if _, err := apply("v1alpha3", strings.Replace(v3, "CLASS", "gpu.example.com", 1)); err != nil {
			t.Fatalf("team-t's apply of the same template through v1alpha3: %s", describe(err))
		}
		for v, b := range before {
			expectSection(t, "spec", b, get(t, templates(v, ns), "tpl"))
		}
		_, err = apply("v1alpha3", strings.Replace(v3, "CLASS", "other.example.com", 1))
		expectInvalid(t, err, byWebhook, cause{Field: "spec", Type: causeInvalid, Detail: "field is immutable"})
	})

	t.Run("kubectl client-side apply through v1alpha1 after a v1alpha3 status write", func(t *testing.T) {
		manifest := "kind: ResourceClaim\nmetadata: {name: csa, labels: {app: a, old: x}}\n" + v1Spec
		if _, _, err := kubectlApply(t, "v1alpha1", ns, manifest); err != nil {
			t.Fatalf("kubectl apply (create): %s", describe(err))
		}
		allocate(t, "csa")
		before := views(t, "csa")
		if _, ok := before["v1alpha1"].GetAnnotations()[restoreAnnotationPrefix+"v1alpha2"]; !ok {
			t.Fatalf("the v1alpha1 view has no restore-v1alpha2 annotation: %v", before["v1alpha1"].GetAnnotations())
		}
		got, patch, err := kubectlApply(t, "v1alpha1", ns, manifest)
		if err != nil || string(patch) != "{}" {
			t.Fatalf("unchanged kubectl apply: patch %s, %v; want {} accepted", patch, err)
		}
		if got.GetResourceVersion() != before["v1alpha1"].GetResourceVersion() {
			t.Errorf("the unchanged apply wrote the claim")
		}
		// The three-way merge deletes only what last-applied has: the label
		// removed from the manifest, not the restore annotations.
		_, patch, err = kubectlApply(t, "v1alpha1", ns, strings.Replace(manifest, "{app: a, old: x}", "{app: b}", 1))
		if err != nil {
			t.Fatalf("kubectl apply with changed labels: %s", describe(err))
		}
		var p map[string]interface{}
		if err := json.Unmarshal(patch, &p); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(map[string]interface{}{"app": "b", "old": nil}, p["metadata"].(map[string]interface{})["labels"]); diff != "" || len(p) != 1 {
			t.Errorf("patch %s: want metadata only, labels (-want +got):\n%s", patch, diff)
		}
		expectViews(t, "csa", before, map[string]string{"app": "b"})
		if got := get(t, claims("v1alpha1", ns), "csa").GetAnnotations()[restoreAnnotationPrefix+"v1alpha2"]; got != before["v1alpha1"].GetAnnotations()[restoreAnnotationPrefix+"v1alpha2"] {
			t.Errorf("restore-v1alpha2 annotation of the v1alpha1 view changed to %q", got)
		}
		// A spec change is refused as upstream refused it.
		_, _, err = kubectlApply(t, "v1alpha1", ns, "kind: ResourceClaim\nmetadata: {name: csa, labels: {app: b}}\n"+
			"spec: {resourceClassName: gpu.example.com, allocationMode: Immediate}\n")
		expectInvalid(t, err, byWebhook, cause{Field: "spec", Type: causeInvalid, Detail: "field is immutable"})
		// A manifest changed to v1alpha3: the patch deletes the v1alpha1
		// fields last-applied has, which v1alpha3 does not have; nothing
		// changes (the restore annotation keeps parametersRef and
		// Immediate).
		_, patch, err = kubectlApply(t, "v1alpha3", ns, "kind: ResourceClaim\nmetadata: {name: csa, labels: {app: b}}\nspec:\n  devices:\n    requests:\n"+
			"    - {name: request, deviceClassName: gpu.example.com, allocationMode: ExactCount, count: 1}\n")
		if err != nil {
			t.Fatalf("kubectl apply of the v1alpha3 manifest: %s", describe(err))
		}
		if !strings.Contains(string(patch), `"spec":{"allocationMode":null,"parametersRef":null,"resourceClassName":null}`) {
			t.Errorf("patch %s: want the v1alpha1 spec fields deleted", patch)
		}
		expectViews(t, "csa", before, map[string]string{"app": "b"})
	})

	t.Run("kubectl edit through each version after writes through the others", func(t *testing.T) {
		before := views(t, "csa")
		labels := before["v1alpha1"].GetLabels()
		for _, v := range []string{"v1alpha1", "v1alpha2", "v1alpha3"} {
			if _, err := mutate(t, claims(v, ns), "csa", false, func(u *unstructured.Unstructured) {
				l := u.GetLabels()
				l["edited-"+v] = "yes"
				u.SetLabels(l)
			}); err != nil {
				t.Fatalf("GET-modify-PUT through %s: %s", v, describe(err))
			}
			labels["edited-"+v] = "yes"
			expectViews(t, "csa", before, labels)
		}
	})
}

// applyClaim server-side applies the claim doc (apiVersion set to version)
// as manager.
func applyClaim(t testing.TB, version, ns, manager string, force bool, doc string, subresources ...string) (*unstructured.Unstructured, error) {
	t.Helper()
	u := fromYAML(t, version, ns, doc)
	data, err := json.Marshal(u.Object)
	if err != nil {
		t.Fatal(err)
	}
	return claims(version, ns).Patch(ctxFor(t), u.GetName(), types.ApplyPatchType, data, metav1.PatchOptions{FieldManager: manager, Force: &force}, subresources...)
}

const lastAppliedAnnotation = "kubectl.kubernetes.io/last-applied-configuration"

// kubectlApply does what kubectl apply (client-side) does for a custom
// resource: create with the last-applied annotation, or a three-way JSON
// merge patch of last-applied, the manifest and the live object. It returns
// the patch sent (nil on create).
func kubectlApply(t testing.TB, version, ns, doc string) (*unstructured.Unstructured, []byte, error) {
	t.Helper()
	obj := fromYAML(t, version, ns, doc)
	original, err := json.Marshal(obj.Object)
	if err != nil {
		t.Fatal(err)
	}
	ann := obj.GetAnnotations()
	if ann == nil {
		ann = map[string]string{}
	}
	ann[lastAppliedAnnotation] = string(original) + "\n"
	obj.SetAnnotations(ann)
	modified, err := json.Marshal(obj.Object)
	if err != nil {
		t.Fatal(err)
	}
	ri := claims(version, ns)
	live, err := ri.Get(ctxFor(t), obj.GetName(), metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		created, err := ri.Create(ctxFor(t), obj, metav1.CreateOptions{FieldManager: "kubectl-client-side-apply"})
		return created, nil, err
	}
	if err != nil {
		t.Fatalf("get %s: %s", obj.GetName(), describe(err))
	}
	current, err := json.Marshal(live.Object)
	if err != nil {
		t.Fatal(err)
	}
	patch, err := jsonmergepatch.CreateThreeWayJSONMergePatch([]byte(live.GetAnnotations()[lastAppliedAnnotation]), modified, current,
		mergepatch.RequireKeyUnchanged("apiVersion"), mergepatch.RequireKeyUnchanged("kind"), mergepatch.RequireMetadataKeyUnchanged("name"))
	if err != nil {
		t.Fatalf("three-way merge patch: %v", err)
	}
	if string(patch) == "{}" {
		return live, patch, nil // kubectl sends nothing: "unchanged"
	}
	patched, err := ri.Patch(ctxFor(t), obj.GetName(), types.MergePatchType, patch, metav1.PatchOptions{FieldManager: "kubectl-client-side-apply"})
	return patched, patch, err
}

// managedEntry is a managedFields entry: operation, version, subresource and
// the fieldsV1 JSON.
type managedEntry struct {
	Operation, Version, Subresource, Fields string
}

// expectManaged fails t unless u's managedFields are want, keyed by manager
// (and "/subresource").
func expectManaged(t testing.TB, u *unstructured.Unstructured, want map[string]managedEntry) {
	t.Helper()
	got := map[string]managedEntry{}
	for _, e := range u.GetManagedFields() {
		key := e.Manager
		if e.Subresource != "" {
			key += "/" + e.Subresource
		}
		var fields string
		if e.FieldsV1 != nil {
			fields = e.FieldsV1.GetRawString()
		}
		got[key] = managedEntry{string(e.Operation), strings.TrimPrefix(e.APIVersion, "resource.claimbridge.dev/"), e.Subresource, fields}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("managedFields (-want +got):\n%s", diff)
	}
}

// expectConflict fails t unless err is a 409 apply conflict with message
// want.
func expectConflict(t testing.TB, err error, want string) {
	t.Helper()
	if !apierrors.IsConflict(err) {
		t.Errorf("want a 409 conflict %q, got %v", want, err)
		return
	}
	if err.Error() != want {
		t.Errorf("conflict %q, want %q", err.Error(), want)
	}
}
