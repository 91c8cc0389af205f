//go:build envtest

package envtest_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/test/envtest/harness"
)

// TestDefaultManifestsAccepted applies what `kustomize build config/default`
// renders to the real apiserver: the CRDs with the Service-based conversion
// webhook, the Validating- and MutatingWebhookConfiguration, and the namespace, Deployment,
// Service, PodDisruptionBudget, ServiceAccount and NetworkPolicies, and the
// HorizontalPodAutoscaler of config/autoscaling. cert-manager's objects are
// left out: envtest has no cert-manager CRDs.
//
// The Service behind the rendered webhooks has no endpoints here, so while
// they are installed no claim can be converted or validated; the test
// restores the harness's CRDs and removes the rendered webhook configuration
// when it ends.
func TestDefaultManifestsAccepted(t *testing.T) {
	ctx := context.Background()
	objs, err := harness.Render("config/default")
	if err != nil {
		t.Fatal(err)
	}
	var crds, vwcs, mwcs, others []*unstructured.Unstructured
	for _, o := range objs {
		switch gvk := o.GroupVersionKind(); {
		case gvk.Kind == "CustomResourceDefinition":
			crds = append(crds, o)
		case gvk.Kind == "ValidatingWebhookConfiguration":
			vwcs = append(vwcs, o)
		case gvk.Kind == "MutatingWebhookConfiguration":
			mwcs = append(mwcs, o)
		case gvk.Group == "cert-manager.io":
			t.Logf("not applied (no cert-manager here): %s %s", gvk.Kind, o.GetName())
		default:
			others = append(others, o)
		}
	}
	if len(crds) != 2 || len(vwcs) != 1 || len(mwcs) != 1 {
		t.Fatalf("config/default rendered %d CRDs, %d ValidatingWebhookConfigurations and %d MutatingWebhookConfigurations, want 2, 1 and 1", len(crds), len(vwcs), len(mwcs))
	}
	service := findService(t, others)

	t.Run("crds", func(t *testing.T) {
		// Applied by harness.FieldManager, the rendered CRDs replace the
		// harness's URL clientConfig instead of merging with it.
		t.Cleanup(func() {
			if err := env.InstallCRDs(ctx); err != nil {
				t.Fatalf("restoring the harness's CRDs: %v", err)
			}
		})
		if err := env.Apply(ctx, crds...); err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, c := range crds {
			names = append(names, c.GetName())
		}
		if err := env.WaitForCRDs(ctx, names...); err != nil {
			t.Fatal(err)
		}
		for _, name := range names {
			var crd apiextensionsv1.CustomResourceDefinition
			if err := env.Client.Get(ctx, client.ObjectKey{Name: name}, &crd); err != nil {
				t.Fatal(err)
			}
			checkServedCRD(t, &crd, service)
		}
	})

	t.Run("validating-webhook-configuration", func(t *testing.T) {
		vwc := vwcs[0]
		applyTemporarily(t, ctx, "validatingwebhookconfigurations", vwc)
		var want, got admissionregistrationv1.ValidatingWebhookConfiguration
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(vwc.Object, &want); err != nil {
			t.Fatal(err)
		}
		if err := env.Client.Get(ctx, client.ObjectKey{Name: vwc.GetName()}, &got); err != nil {
			t.Fatal(err)
		}
		// What the apiserver stored keeps every field that was set; it only
		// adds defaults (objectSelector, reinvocation and the like).
		for i := range want.Webhooks {
			w, g := want.Webhooks[i], got.Webhooks[i]
			checkStoredWebhook(t, w.Name, storedWebhook{w.Rules, w.NamespaceSelector, w.ClientConfig.Service, w.FailurePolicy, w.SideEffects, w.MatchPolicy, w.TimeoutSeconds},
				storedWebhook{g.Rules, g.NamespaceSelector, g.ClientConfig.Service, g.FailurePolicy, g.SideEffects, g.MatchPolicy, g.TimeoutSeconds})
		}
	})

	t.Run("mutating-webhook-configuration", func(t *testing.T) {
		mwc := mwcs[0]
		applyTemporarily(t, ctx, "mutatingwebhookconfigurations", mwc)
		var want, got admissionregistrationv1.MutatingWebhookConfiguration
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(mwc.Object, &want); err != nil {
			t.Fatal(err)
		}
		if err := env.Client.Get(ctx, client.ObjectKey{Name: mwc.GetName()}, &got); err != nil {
			t.Fatal(err)
		}
		for i := range want.Webhooks {
			w, g := want.Webhooks[i], got.Webhooks[i]
			checkStoredWebhook(t, w.Name, storedWebhook{w.Rules, w.NamespaceSelector, w.ClientConfig.Service, w.FailurePolicy, w.SideEffects, w.MatchPolicy, w.TimeoutSeconds},
				storedWebhook{g.Rules, g.NamespaceSelector, g.ClientConfig.Service, g.FailurePolicy, g.SideEffects, g.MatchPolicy, g.TimeoutSeconds})
			if g.ReinvocationPolicy == nil || *g.ReinvocationPolicy != admissionregistrationv1.IfNeededReinvocationPolicy {
				t.Errorf("webhook %s stored reinvocationPolicy %v, want IfNeeded", w.Name, g.ReinvocationPolicy)
			}
		}
	})

	t.Run("workload", func(t *testing.T) {
		// There is no controller manager in envtest: the Deployment gets no
		// pods, and the namespace would stay Terminating if deleted, so these
		// objects are left in place (no other test uses claimbridge-system).
		for _, o := range others {
			if err := env.Apply(ctx, o); err != nil {
				t.Error(err)
			}
		}
	})

	t.Run("autoscaling", func(t *testing.T) {
		// config/autoscaling as its comment says to use it: an overlay of
		// config/default with the Component. Its HorizontalPodAutoscaler is
		// applied next to the workload above (left in place like it).
		root, err := harness.RepoRoot()
		if err != nil {
			t.Fatal(err)
		}
		overlay := t.TempDir()
		rel, err := filepath.Rel(overlay, root)
		if err != nil {
			t.Fatal(err)
		}
		k := "resources:\n- " + filepath.ToSlash(filepath.Join(rel, "config/default")) +
			"\ncomponents:\n- " + filepath.ToSlash(filepath.Join(rel, "config/autoscaling")) + "\n"
		if err := os.WriteFile(filepath.Join(overlay, "kustomization.yaml"), []byte(k), 0o644); err != nil {
			t.Fatal(err)
		}
		objs, err := harness.Render(overlay)
		if err != nil {
			t.Fatal(err)
		}
		var hpas []*unstructured.Unstructured
		for _, o := range objs {
			if o.GetKind() == "HorizontalPodAutoscaler" {
				hpas = append(hpas, o)
			}
		}
		if len(hpas) != 1 {
			t.Fatalf("%d HorizontalPodAutoscalers rendered, want 1", len(hpas))
		}
		if err := env.Apply(ctx, hpas[0]); err != nil {
			t.Fatal(err)
		}
		var got autoscalingv2.HorizontalPodAutoscaler
		if err := env.Client.Get(ctx, client.ObjectKey{Namespace: hpas[0].GetNamespace(), Name: hpas[0].GetName()}, &got); err != nil {
			t.Fatal(err)
		}
		if got.Spec.ScaleTargetRef.Name != "claimbridge-server" || len(got.Spec.Metrics) != 1 {
			t.Errorf("stored HorizontalPodAutoscaler targets %q with %d metrics; want claimbridge-server with 1", got.Spec.ScaleTargetRef.Name, len(got.Spec.Metrics))
		}
	})

	t.Run("guard", func(t *testing.T) {
		// config/guard as its comment says to use it: the server gets
		// --guard, the validating webhook configuration the guard's webhook
		// (the apiserver accepts it in a dry run), and a ClusterRole to read
		// /metrics.
		root, err := harness.RepoRoot()
		if err != nil {
			t.Fatal(err)
		}
		overlay := t.TempDir()
		rel, err := filepath.Rel(overlay, root)
		if err != nil {
			t.Fatal(err)
		}
		k := "resources:\n- " + filepath.ToSlash(filepath.Join(rel, "config/default")) +
			"\ncomponents:\n- " + filepath.ToSlash(filepath.Join(rel, "config/guard")) + "\n"
		if err := os.WriteFile(filepath.Join(overlay, "kustomization.yaml"), []byte(k), 0o644); err != nil {
			t.Fatal(err)
		}
		objs, err := harness.Render(overlay)
		if err != nil {
			t.Fatal(err)
		}
		deploy, vwcs, roles := harness.OfKind(objs, "Deployment"), harness.OfKind(objs, "ValidatingWebhookConfiguration"), harness.OfKind(objs, "ClusterRole")
		args, _, _ := unstructured.NestedSlice(deploy[0].Object, "spec", "template", "spec", "containers")
		if len(vwcs) != 1 || !slices.Contains(args[0].(map[string]interface{})["args"].([]interface{}), "--guard") {
			t.Fatalf("config/guard: %d ValidatingWebhookConfigurations, server args %v", len(vwcs), args[0].(map[string]interface{})["args"])
		}
		var vwc admissionregistrationv1.ValidatingWebhookConfiguration
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(vwcs[0].Object, &vwc); err != nil {
			t.Fatal(err)
		}
		guard := vwc.Webhooks[len(vwc.Webhooks)-1]
		if guard.Name != "guard.claimbridge.dev" || *guard.FailurePolicy != admissionregistrationv1.Ignore || *guard.ClientConfig.Service.Path != "/guard" ||
			slices.ContainsFunc(guard.Rules[0].Resources, func(r string) bool { return filepath.Base(r) == "status" }) {
			t.Errorf("the guard's webhook: %+v", guard)
		}
		vwcs[0].SetName("claimbridge-guard-dry-run") // beside the suite's own
		if err := env.Client.Create(ctx, vwcs[0], client.DryRunAll); err != nil {
			t.Errorf("the apiserver refuses config/guard's webhook configuration: %v", err)
		}
		if !slices.ContainsFunc(roles, func(r *unstructured.Unstructured) bool { return r.GetName() == "claimbridge-guard" }) {
			t.Error("config/guard: no ClusterRole claimbridge-guard")
		}
	})
}

func checkServedCRD(t *testing.T, crd *apiextensionsv1.CustomResourceDefinition, service *unstructured.Unstructured) {
	t.Helper()
	var served []string
	storage := ""
	for _, v := range crd.Spec.Versions {
		if v.Served {
			served = append(served, v.Name)
		}
		if v.Storage {
			storage = v.Name
		}
	}
	if diff := cmp.Diff(api.ServedVersions, served); diff != "" {
		t.Errorf("%s served versions (-want +got):\n%s", crd.Name, diff)
	}
	if storage != api.StorageVersion || !slices.Contains(crd.Status.StoredVersions, api.StorageVersion) {
		t.Errorf("%s storage version %q, storedVersions %q; want %s in both", crd.Name, storage, crd.Status.StoredVersions, api.StorageVersion)
	}
	conv := crd.Spec.Conversion
	if conv == nil || conv.Strategy != apiextensionsv1.WebhookConverter || conv.Webhook == nil || conv.Webhook.ClientConfig == nil {
		t.Fatalf("%s conversion %+v, want the Webhook strategy", crd.Name, conv)
	}
	want := &apiextensionsv1.WebhookClientConfig{Service: &apiextensionsv1.ServiceReference{
		Name: service.GetName(), Namespace: service.GetNamespace(), Path: ptr("/convert"), Port: ptr[int32](443),
	}}
	if diff := cmp.Diff(want, conv.Webhook.ClientConfig); diff != "" {
		t.Errorf("%s stored conversion clientConfig (-want +got):\n%s", crd.Name, diff)
	}
	if diff := cmp.Diff([]string{"v1", "v1beta1"}, conv.Webhook.ConversionReviewVersions); diff != "" {
		t.Errorf("%s conversionReviewVersions (-want +got):\n%s", crd.Name, diff)
	}
}

func findService(t *testing.T, objs []*unstructured.Unstructured) *unstructured.Unstructured {
	t.Helper()
	for _, o := range objs {
		if o.GetKind() == "Service" {
			return o
		}
	}
	t.Fatal("config/default rendered no Service")
	return nil
}

func ptr[T any](v T) *T { return &v }

// applyTemporarily applies a rendered webhook configuration (resource is
// its kind's plural) and deletes it when t ends: the Service behind it has no
// endpoints here, so while it is installed no claim can be written.
func applyTemporarily(t *testing.T, ctx context.Context, resource string, obj *unstructured.Unstructured) {
	t.Helper()
	t.Cleanup(func() {
		if err := env.Dynamic.Resource(admissionregistrationv1.SchemeGroupVersion.WithResource(resource)).
			Delete(ctx, obj.GetName(), deleteNow()); err != nil {
			t.Errorf("deleting the rendered webhook configuration: %v", err)
		}
	})
	if err := env.Apply(ctx, obj); err != nil {
		t.Fatal(err)
	}
}

// storedWebhook are the fields of a webhook, validating or mutating, that
// checkStoredWebhook compares.
type storedWebhook struct {
	rules             []admissionregistrationv1.RuleWithOperations
	namespaceSelector *metav1.LabelSelector
	service           *admissionregistrationv1.ServiceReference
	failurePolicy     *admissionregistrationv1.FailurePolicyType
	sideEffects       *admissionregistrationv1.SideEffectClass
	matchPolicy       *admissionregistrationv1.MatchPolicyType
	timeoutSeconds    *int32
}

// checkStoredWebhook fails t unless the apiserver stored webhook name as
// rendered (w), with failure policy Fail, no side effects and matchPolicy
// Equivalent.
func checkStoredWebhook(t *testing.T, name string, w, g storedWebhook) {
	t.Helper()
	if diff := cmp.Diff(w.rules, g.rules); diff != "" {
		t.Errorf("webhook %s rules (-rendered +stored):\n%s", name, diff)
	}
	// The manifests set none (every namespace is validated); the apiserver
	// stores that as the empty selector, which selects every namespace.
	if w.namespaceSelector != nil {
		t.Errorf("webhook %s rendered namespaceSelector %v; want none", name, w.namespaceSelector)
	}
	if g.namespaceSelector == nil || len(g.namespaceSelector.MatchLabels) > 0 || len(g.namespaceSelector.MatchExpressions) > 0 {
		t.Errorf("webhook %s stored namespaceSelector %v; want the empty one, which selects every namespace", name, g.namespaceSelector)
	}
	if diff := cmp.Diff(w.service, g.service); diff != "" {
		t.Errorf("webhook %s clientConfig.service (-rendered +stored):\n%s", name, diff)
	}
	if *g.failurePolicy != admissionregistrationv1.Fail || *g.sideEffects != admissionregistrationv1.SideEffectClassNone ||
		*g.matchPolicy != admissionregistrationv1.Equivalent || *g.timeoutSeconds != *w.timeoutSeconds {
		t.Errorf("webhook %s stored failurePolicy %s, sideEffects %s, matchPolicy %s, timeoutSeconds %d; want Fail, None, Equivalent, %d",
			name, *g.failurePolicy, *g.sideEffects, *g.matchPolicy, *g.timeoutSeconds, *w.timeoutSeconds)
	}
}

func deleteNow() metav1.DeleteOptions { return metav1.DeleteOptions{GracePeriodSeconds: ptr[int64](0)} }
