//go:build envtest

package envtest_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/claimbridge/claimbridge/api"
)

// TestDefaulting creates claims and templates without the defaults of their
// version's release, through kube-apiserver with the mutating webhook of
// config/webhook: they are stored with them, as each release's apiserver
// stored every object (a 1.31 scheduler fails a request without an
// allocation mode and allocates no device for ExactCount without a count),
// and read through another version they need no restore data for them.
func TestDefaulting(t *testing.T) {
	ns := newNamespace(t, "defaulting")

	v3 := createClaim(t, fromYAML(t, "v1alpha3", ns, `
kind: ResourceClaim
metadata: {name: requests}
spec:
  devices:
    requests:
    - {name: gpu, deviceClassName: gpu.example.com}
    - {name: two, deviceClassName: gpu.example.com, count: 2}
    - {name: zero, deviceClassName: gpu.example.com, allocationMode: ExactCount, count: 0}
    - {name: all, deviceClassName: nic.example.com, allocationMode: All}
`))
	want := []interface{}{
		map[string]interface{}{"name": "gpu", "deviceClassName": "gpu.example.com", "allocationMode": "ExactCount", "count": 1},
		map[string]interface{}{"name": "two", "deviceClassName": "gpu.example.com", "allocationMode": "ExactCount", "count": 2},
		map[string]interface{}{"name": "zero", "deviceClassName": "gpu.example.com", "allocationMode": "ExactCount", "count": 1},
		map[string]interface{}{"name": "all", "deviceClassName": "nic.example.com", "allocationMode": "All"},
	}
	expectField(t, v3, want, "spec", "devices", "requests")
	expectField(t, get(t, claims("v1alpha3", ns), "requests"), want, "spec", "devices", "requests")

	tmpl3 := createObject(t, templatesResource, fromYAML(t, "v1alpha3", ns, `
kind: ResourceClaimTemplate
metadata: {name: template}
spec: {spec: {devices: {requests: [{name: request, deviceClassName: gpu.example.com}]}}}
`))
	expectField(t, tmpl3, []interface{}{map[string]interface{}{"name": "request", "deviceClassName": "gpu.example.com", "allocationMode": "ExactCount", "count": 1}},
		"spec", "spec", "devices", "requests")
	// Defaulted as 1.31 stores it, the single request of a class reads as a
	// 1.30 claim without restore data.
	seen := get(t, templates("v1alpha2", ns), "template")
	expectField(t, seen, map[string]interface{}{"resourceClassName": "gpu.example.com", "allocationMode": "WaitForFirstConsumer"}, "spec", "spec")
	expectNoField(t, seen, "metadata", "annotations", api.RestoreAnnotation(api.V1alpha3))

	// v1alpha1/v1alpha2: the CRD defaults an absent mode, the webhook an
	// empty one too (upstream's SetDefaults_ResourceClaimSpec replaces "").
	for _, version := range []string{"v1alpha1", "v1alpha2"} {
		for name, mode := range map[string]string{"absent": "", "empty": `, allocationMode: ""`} {
			c := createClaim(t, fromYAML(t, version, ns, `
kind: ResourceClaim
metadata: {name: `+version+`-`+name+`}
spec: {resourceClassName: gpu.example.com`+mode+`}
`))
			expectField(t, c, "WaitForFirstConsumer", "spec", "allocationMode")
			seen := get(t, claims("v1alpha3", ns), c.GetName())
			expectField(t, seen, []interface{}{map[string]interface{}{"name": "request", "deviceClassName": "gpu.example.com", "allocationMode": "ExactCount", "count": 1}},
				"spec", "devices", "requests")
			expectNoField(t, seen, "metadata", "annotations")
		}
	}

	// An update of the main resource is defaulted too: a spec sent back
	// without its defaults is the same spec, and is stored with them.
	stripped := get(t, claims("v1alpha3", ns), "requests")
	reqs := stripped.Object["spec"].(map[string]interface{})["devices"].(map[string]interface{})["requests"].([]interface{})
	first := reqs[0].(map[string]interface{})
	delete(first, "allocationMode")
	delete(first, "count")
	stripped.SetLabels(map[string]string{"team": "a"})
	updated, err := claims("v1alpha3", ns).Update(ctxFor(t), stripped, metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("update without the defaults: %s", describe(err))
	}
	expectField(t, updated, want, "spec", "devices", "requests")
}

// TestDefaultingStoredBefore: claims stored without their defaults
// (written before the defaulting webhook was installed) are valid as they
// are, read with the defaults through the older versions (conversion writes
// them; the restore annotation of v1alpha3 records that storage lacks them),
// and are stored defaulted by their next update of the main resource: a
// label through v1alpha3, and also a view read through v1alpha2 before and
// written back, whose restore annotation /default rewrites so that storage
// gets the defaults (docs/operations.md, "Upgrading to defaulting").
func TestDefaultingStoredBefore(t *testing.T) {
	ctx := ctxFor(t)
	ns := newNamespace(t, "defaulting-before")
	reinstall := removeWebhookConfiguration(t, "mutatingwebhookconfigurations")
	// The deletion takes effect asynchronously: create until a claim is
	// stored as written, then one more.
	create := func() *unstructured.Unstructured {
		return createClaim(t, fromYAML(t, "v1alpha3", ns, `
kind: ResourceClaim
metadata: {generateName: before-}
spec: {devices: {requests: [{name: request, deviceClassName: gpu.example.com}]}}
`))
	}
	undefaulted := func(u *unstructured.Unstructured) bool {
		_, has := field(u.Object, "spec", "devices", "requests", 0, "allocationMode")
		return !has
	}
	var first *unstructured.Unstructured
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		if first != nil {
			_ = claims("v1alpha3", ns).Delete(ctx, first.GetName(), metav1.DeleteOptions{})
		}
		first = create()
		return undefaulted(first), nil
	})
	if err != nil {
		t.Fatalf("the defaulting webhook kept defaulting after its configuration was deleted: %v", err)
	}
	second := create()
	if !undefaulted(second) {
		t.Fatalf("the second claim was defaulted: %v", second.Object["spec"])
	}
	reinstall()

	// Through v1alpha2 they read with WaitForFirstConsumer and record that
	// the stored request had no mode and count.
	views := map[string]*unstructured.Unstructured{}
	for _, u := range []*unstructured.Unstructured{first, second} {
		view := get(t, claims("v1alpha2", ns), u.GetName())
		expectField(t, view, map[string]interface{}{"resourceClassName": "gpu.example.com", "allocationMode": "WaitForFirstConsumer"}, "spec")
		restore, _ := field(view.Object, "metadata", "annotations", api.RestoreAnnotation(api.V1alpha3))
		for _, op := range []string{`{"op":"remove","path":"/spec/devices/requests/0/allocationMode"}`, `{"op":"remove","path":"/spec/devices/requests/0/count"}`} {
			if s, _ := restore.(string); !strings.Contains(s, op) {
				t.Errorf("%s through v1alpha2: restore-v1alpha3 %v, want %s in it", u.GetName(), restore, op)
			}
		}
		views[u.GetName()] = view
	}

	// Wait until the webhook defaults again, then update each: the first
	// with a label through v1alpha3, the second by writing back its view
	// read through v1alpha2 before. Both are stored defaulted.
	want := []interface{}{map[string]interface{}{"name": "request", "deviceClassName": "gpu.example.com", "allocationMode": "ExactCount", "count": 1}}
	var last error
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		u := get(t, claims("v1alpha3", ns), first.GetName())
		labels := u.GetLabels()
		if labels == nil {
			labels = map[string]string{}
		}
		labels["try"] = strconv.Itoa(len(labels))
		u.SetLabels(labels)
		updated, err := claims("v1alpha3", ns).Update(ctx, u, metav1.UpdateOptions{})
		if err != nil {
			last = err
			return false, nil
		}
		got, _ := field(updated.Object, "spec", "devices", "requests")
		return cmp.Diff(normalize(t, want), normalize(t, got)) == "", nil
	})
	if err != nil {
		t.Fatalf("an update did not store the claim defaulted: %v (last error: %v)", err, describe(last))
	}
	old := views[second.GetName()]
	old.SetLabels(map[string]string{"team": "a"})
	if _, err := claims("v1alpha2", ns).Update(ctx, old, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("writing back through v1alpha2 the view read before: %s", describe(err))
	}
	for _, u := range []*unstructured.Unstructured{first, second} {
		expectField(t, get(t, claims("v1alpha3", ns), u.GetName()), want, "spec", "devices", "requests")
		// Read through v1alpha2 now, the claim needs no restore data, and
		// writing back what was read keeps it defaulted.
		view := get(t, claims("v1alpha2", ns), u.GetName())
		expectNoField(t, view, "metadata", "annotations", api.RestoreAnnotation(api.V1alpha3))
		if _, err := claims("v1alpha2", ns).Update(ctx, view, metav1.UpdateOptions{}); err != nil {
			t.Fatalf("replace through v1alpha2: %s", describe(err))
		}
		expectField(t, get(t, claims("v1alpha3", ns), u.GetName()), want, "spec", "devices", "requests")
	}
}
