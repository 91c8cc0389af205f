//go:build envtest

package envtest_test

import (
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/claimbridge/claimbridge/test/envtest/harness"
)

// TestDeepClaimNotAdmittedUnderIgnore: with failurePolicy: Ignore (a value
// the chart takes), a write is admitted unvalidated whenever a webhook call
// fails, and an HTTP error is such a failure. A namespace user can make
// kube-apiserver send a review deeper than --max-json-depth: it stores
// objects nested up to 10,000 levels, and a claim's opaque parameters take
// anything. Such a claim, invalid besides (a request name that is no DNS
// label, which only the webhook checks), must be denied, not stored.
func TestDeepClaimNotAdmittedUnderIgnore(t *testing.T) {
	ns := newNamespace(t, "fail-open")
	for _, resource := range []string{"validatingwebhookconfigurations", "mutatingwebhookconfigurations"} {
		ri := env.Dynamic.Resource(admissionregistrationv1.SchemeGroupVersion.WithResource(resource))
		patch := []byte(`[{"op":"replace","path":"/webhooks/0/failurePolicy","value":"Ignore"}]`)
		if _, err := ri.Patch(ctxFor(t), harness.WebhookConfigurationName, types.JSONPatchType, patch, metav1.PatchOptions{}); err != nil {
			t.Fatalf("setting failurePolicy Ignore on the %s: %v", resource, err)
		}
	}
	t.Cleanup(func() {
		if err := env.InstallWebhookConfiguration(ctxFor(t)); err != nil {
			t.Errorf("reinstalling the webhook configurations: %v", err)
		}
	})

	claim := fromYAML(t, "v1alpha3", ns, `
kind: ResourceClaim
metadata: {name: deep}
spec:
  devices:
    requests:
    - {name: GPU_0, deviceClassName: gpu.example.com}
    config:
    - opaque: {driver: gpu.example.com, parameters: {kind: GpuConfig}}
`)
	params := map[string]interface{}{"kind": "GpuConfig"}
	for p, i := params, 0; i < 1000; i++ {
		next := map[string]interface{}{}
		p["a"], p = next, next
	}
	set(t, claim, []interface{}{map[string]interface{}{"opaque": map[string]interface{}{"driver": "gpu.example.com", "parameters": params}}}, "spec", "devices", "config")

	// The configurations change asynchronously in the apiserver: until it
	// calls the webhooks with Ignore, a failed call fails the create.
	ctx, ri := ctxFor(t), claims("v1alpha3", ns)
	var err error
	for {
		if _, err = ri.Create(ctx, claim, metav1.CreateOptions{}); err == nil {
			t.Fatal("a claim nested deeper than --max-json-depth, with an invalid request name, was stored unvalidated: the webhooks answered with an HTTP error, which failurePolicy Ignore admits")
		}
		if !strings.Contains(err.Error(), "failed calling webhook") || ctx.Err() != nil {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if !strings.Contains(err.Error(), "denied the request") || !strings.Contains(err.Error(), "nesting") {
		t.Errorf("create: %s; want a webhook's denial naming the nesting depth", describe(err))
	}
	if _, err := ri.Get(ctxFor(t), "deep", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("get after the refused create: %v, want NotFound", err)
	}
}
