//go:build envtest

package chartinstall

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/test/envtest/harness"
)

// TestServedThroughTheService: with the server on the rendered ports and the
// renamed objects, the CA is injected into the renamed configurations, and
// the apiserver converts (/convert), defaults (/default) and validates
// (/validate) through the Service's port 443 and its target.
func TestServedThroughTheService(t *testing.T) {
	ctx := t.Context()
	if err := harness.CheckCAInjected(ctx, s.client, harness.Injection{
		Secret:     types.NamespacedName{Namespace: namespace, Name: fullname + "-webhook-server-cert"},
		CRDs:       []string{"resourceclaims." + api.Group, "resourceclaimtemplates." + api.Group},
		Validating: fullname + "-validating-webhook-configuration",
		Mutating:   fullname + "-mutating-webhook-configuration",
	}); err != nil {
		t.Fatal(err)
	}

	// /default: a v1alpha1 claim without allocationMode gets one.
	// /convert: the claim, stored in one version, read in the others.
	obj := claim("through-the-service", "gpu.example.com")
	if _, err := resource(s.dynamic, "v1alpha1").Create(ctx, obj, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating a v1alpha1 claim: %v", err)
	}
	t.Cleanup(func() {
		_ = resource(s.dynamic, "v1alpha1").Delete(t.Context(), "through-the-service", metav1.DeleteOptions{})
	})
	v1, err := resource(s.dynamic, "v1alpha1").Get(ctx, "through-the-service", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if mode, _, _ := unstructured.NestedString(v1.Object, "spec", "allocationMode"); mode != "WaitForFirstConsumer" {
		t.Errorf("v1alpha1 claim created without allocationMode: %q, want the default WaitForFirstConsumer", mode)
	}
	v3, err := resource(s.dynamic, "v1alpha3").Get(ctx, "through-the-service", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("reading the claim in v1alpha3: %v", err)
	}
	requests, _, _ := unstructured.NestedSlice(v3.Object, "spec", "devices", "requests")
	if len(requests) != 1 || requests[0].(map[string]interface{})["deviceClassName"] != "gpu.example.com" {
		t.Errorf("v1alpha3 claim: spec.devices.requests = %v, want one request for gpu.example.com", requests)
	}

	// /validate: a claim naming a class that is not a DNS name is denied.
	_, err = resource(s.dynamic, "v1alpha1").Create(ctx, claim("invalid", "Not_A_DNS_Name"), metav1.CreateOptions{})
	const denied = `admission webhook "validate.resource.claimbridge.dev" denied the request`
	var status apierrors.APIStatus
	if !errors.As(err, &status) || status.Status().Code != http.StatusUnprocessableEntity || !strings.Contains(status.Status().Message, denied) {
		t.Errorf("creating an invalid claim: %v; want a 422 with %q", err, denied)
	}
}

func resource(d dynamic.Interface, version string) dynamic.ResourceInterface {
	return d.Resource(schema.GroupVersionResource{Group: api.Group, Version: version, Resource: "resourceclaims"}).Namespace(testNamespace)
}

// claim is a v1alpha1 claim without allocationMode (the defaulting webhook
// sets it).
func claim(name, class string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": api.Group + "/v1alpha1", "kind": "ResourceClaim",
		"metadata": map[string]interface{}{"name": name, "namespace": testNamespace},
		"spec":     map[string]interface{}{"resourceClassName": class},
	}}
}
