//go:build envtest

package selfmanaged

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	"github.com/claimbridge/claimbridge/api"
)

// checkForbiddenByRBAC wants err to be the authorizer's 403 ("... cannot
// <verb> resource ..."), not an admission denial, which would mean RBAC let
// the request through.
func checkForbiddenByRBAC(err error) error {
	if err == nil {
		return errors.New("went through, want RBAC's 403")
	}
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), " cannot ") {
		return fmt.Errorf("got %v, want RBAC's 403", err)
	}
	return nil
}

// TestServiceAccountRights: everything the chart's ServiceAccount (the
// server's token, impersonated) holds besides a caBundle update is refused
// by RBAC: every patch type (merge, JSON, strategic, server-side apply) of
// the objects it may update, their subresources, deletion, creation, other
// Secrets (by name and by listing the namespace), the claims, and the
// cluster-wide verbs that escalate.
func TestServiceAccountRights(t *testing.T) {
	ctx := t.Context()
	sa, err := s.asServiceAccount()
	if err != nil {
		t.Fatal(err)
	}

	type target struct {
		kind string
		obj  client.Object
	}
	targets := []target{
		{"ValidatingWebhookConfiguration", &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: webhookConfig}}},
		{"MutatingWebhookConfiguration", &admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: mutatingConfig}}},
		{"CustomResourceDefinition", &apiextensionsv1.CustomResourceDefinition{ObjectMeta: metav1.ObjectMeta{Name: crdNames[0]}}},
		{"Secret", &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: secretName}}},
	}
	patches := map[string]client.Patch{
		"merge":     client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"labels":{"x":"y"}}}`)),
		"json":      client.RawPatch(types.JSONPatchType, []byte(`[{"op":"add","path":"/metadata/labels/x","value":"y"}]`)),
		"strategic": client.RawPatch(types.StrategicMergePatchType, []byte(`{"metadata":{"labels":{"x":"y"}}}`)),
	}
	for _, tg := range targets {
		for name, p := range patches {
			if err := checkForbiddenByRBAC(sa.Patch(ctx, tg.obj.DeepCopyObject().(client.Object), p)); err != nil {
				t.Errorf("%s patch of %s: %v", name, tg.kind, err)
			}
		}
		// Server-side apply of a label.
		gvk, err := apiutil.GVKForObject(tg.obj, s.client.Scheme())
		if err != nil {
			t.Fatal(err)
		}
		apply := fmt.Sprintf(`{"apiVersion":%q,"kind":%q,"metadata":{"name":%q,"labels":{"x":"y"}}}`, gvk.GroupVersion(), gvk.Kind, tg.obj.GetName())
		if err := checkForbiddenByRBAC(sa.Patch(ctx, tg.obj.DeepCopyObject().(client.Object), client.RawPatch(types.ApplyPatchType, []byte(apply)),
			client.FieldOwner("attacker"), client.ForceOwnership)); err != nil {
			t.Errorf("server-side apply of %s: %v", tg.kind, err)
		}
		if err := checkForbiddenByRBAC(sa.Delete(ctx, tg.obj.DeepCopyObject().(client.Object), client.DryRunAll)); err != nil {
			t.Errorf("delete of %s: %v", tg.kind, err)
		}
	}

	// Subresources: the CRD's status (storedVersions, conditions).
	var crd apiextensionsv1.CustomResourceDefinition
	if err := s.client.Get(ctx, types.NamespacedName{Name: crdNames[0]}, &crd); err != nil {
		t.Fatal(err)
	}
	crd.Status.StoredVersions = append(crd.Status.StoredVersions, "x")
	if err := checkForbiddenByRBAC(sa.Status().Update(ctx, &crd, client.DryRunAll)); err != nil {
		t.Errorf("update of the CRD's status: %v", err)
	}

	// Creation and collections.
	none := admissionregistrationv1.SideEffectClassNone
	url := "https://attacker.example.com/validate"
	if err := checkForbiddenByRBAC(sa.Create(ctx, &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "attacker"},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name: "a.example.com", ClientConfig: admissionregistrationv1.WebhookClientConfig{URL: &url},
			SideEffects: &none, AdmissionReviewVersions: []string{"v1"},
		}},
	}, client.DryRunAll)); err != nil {
		t.Errorf("create of a ValidatingWebhookConfiguration: %v", err)
	}
	if err := checkForbiddenByRBAC(sa.DeleteAllOf(ctx, &admissionregistrationv1.MutatingWebhookConfiguration{}, client.DryRunAll)); err != nil {
		t.Errorf("deletecollection of MutatingWebhookConfigurations: %v", err)
	}
	if err := checkForbiddenByRBAC(sa.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "attacker"}}, client.DryRunAll)); err != nil {
		t.Errorf("create of a Secret: %v", err)
	}

	// Other Secrets: none by name here, none at all elsewhere.
	other := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "someone-elses"}, StringData: map[string]string{"k": "v"}}
	if err := s.client.Create(ctx, other); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.client.Delete(context.Background(), other) })
	if err := checkForbiddenByRBAC(sa.Get(ctx, client.ObjectKeyFromObject(other), &corev1.Secret{})); err != nil {
		t.Errorf("get of another Secret of its namespace: %v", err)
	}
	otherCopy := other.DeepCopy()
	otherCopy.StringData = map[string]string{"k": "w"}
	if err := checkForbiddenByRBAC(sa.Update(ctx, otherCopy, client.DryRunAll)); err != nil {
		t.Errorf("update of another Secret of its namespace: %v", err)
	}
	// Nor by a list or watch of its namespace's Secrets (which returns their
	// data): the server lists and watches its own with a metadata.name
	// field selector, and RBAC allows no other.
	if err := checkForbiddenByRBAC(sa.List(ctx, &corev1.SecretList{}, client.InNamespace(namespace))); err != nil {
		t.Errorf("list of the Secrets of its namespace: %v", err)
	}
	var own corev1.SecretList
	if err := sa.List(ctx, &own, client.InNamespace(namespace), client.MatchingFields{"metadata.name": secretName}); err != nil || len(own.Items) != 1 {
		t.Errorf("list of its own Secret by name: %d items, %v; want it", len(own.Items), err)
	}
	if err := checkForbiddenByRBAC(sa.List(ctx, &corev1.SecretList{}, client.InNamespace(testNamespace))); err != nil {
		t.Errorf("list of Secrets of namespace %s: %v", testNamespace, err)
	}
	if err := checkForbiddenByRBAC(sa.List(ctx, &corev1.SecretList{})); err != nil {
		t.Errorf("list of Secrets of all namespaces: %v", err)
	}

	// The claims and templates: the server gets them in reviews, never
	// from the API.
	for _, kind := range []string{"ResourceClaim", "ResourceClaimTemplate"} {
		l := &unstructured.UnstructuredList{}
		l.SetGroupVersionKind(schema.GroupVersionKind{Group: api.Group, Version: api.StorageVersion, Kind: kind + "List"})
		if err := checkForbiddenByRBAC(sa.List(ctx, l)); err != nil {
			t.Errorf("list of %ss: %v", kind, err)
		}
	}

	// Cluster-wide verbs that would let it become someone else or grant
	// itself more, asked of the authorizer.
	user := fmt.Sprintf("system:serviceaccount:%s:%s", namespace, serviceAccount)
	groups := []string{"system:serviceaccounts", "system:serviceaccounts:" + namespace, "system:authenticated"}
	for _, ra := range []authorizationv1.ResourceAttributes{
		{Verb: "impersonate", Resource: "users"},
		{Verb: "impersonate", Resource: "groups"},
		{Verb: "impersonate", Resource: "serviceaccounts", Namespace: namespace},
		{Verb: "escalate", Group: "rbac.authorization.k8s.io", Resource: "clusterroles"},
		{Verb: "bind", Group: "rbac.authorization.k8s.io", Resource: "clusterroles"},
		{Verb: "create", Group: "rbac.authorization.k8s.io", Resource: "rolebindings", Namespace: namespace},
		{Verb: "create", Resource: "serviceaccounts", Subresource: "token", Namespace: namespace},
		{Verb: "create", Resource: "pods", Namespace: namespace},
		{Verb: "update", Group: "admissionregistration.k8s.io", Resource: "validatingadmissionpolicies"},
		{Verb: "update", Group: "admissionregistration.k8s.io", Resource: "validatingadmissionpolicybindings"},
		{Verb: "delete", Group: "admissionregistration.k8s.io", Resource: "validatingadmissionpolicybindings"},
		{Verb: "update", Resource: "services", Namespace: namespace},
		{Verb: "update", Group: "discovery.k8s.io", Resource: "endpointslices", Namespace: namespace},
		{Verb: "get", Resource: "secrets", Namespace: "kube-system"},
		{Verb: "patch", Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions", Name: crdNames[0]},
	} {
		sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
			User: user, Groups: groups, ResourceAttributes: &ra,
		}}
		if err := s.client.Create(ctx, sar); err != nil {
			t.Fatal(err)
		}
		if sar.Status.Allowed {
			t.Errorf("the ServiceAccount may %s %s/%s %s (namespace %q, name %q): %s",
				ra.Verb, ra.Group, ra.Resource, ra.Subresource, ra.Namespace, ra.Name, sar.Status.Reason)
		}
	}
}
