package harness

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"

	"github.com/claimbridge/claimbridge/api"
)

// WebhookConfigurationName is the name of the ValidatingWebhookConfiguration
// and of the MutatingWebhookConfiguration the harness installs.
const WebhookConfigurationName = "claimbridge-envtest"

// Resource is the dynamic client for resource ("resourceclaims" or
// "resourceclaimtemplates") of the claimbridge group in version.
func (e *Env) Resource(version, resource string) dynamic.NamespaceableResourceInterface {
	return e.Dynamic.Resource(schema.GroupVersionResource{Group: api.Group, Version: version, Resource: resource})
}

// Apply server-side applies each object with FieldManager, forcing ownership
// of conflicting fields. A namespaced object without a namespace goes to
// "default".
func (e *Env) Apply(ctx context.Context, objs ...*unstructured.Unstructured) error {
	return e.apply(ctx, "", objs)
}

// ApplyStrict is Apply with strict field validation: a field the apiserver
// does not know (one a later release added) fails the apply instead of
// being dropped with a warning.
func (e *Env) ApplyStrict(ctx context.Context, objs ...*unstructured.Unstructured) error {
	return e.apply(ctx, metav1.FieldValidationStrict, objs)
}

func (e *Env) apply(ctx context.Context, fieldValidation string, objs []*unstructured.Unstructured) error {
	for _, obj := range objs {
		gvk := obj.GroupVersionKind()
		mapping, err := e.Client.RESTMapper().RESTMapping(gvk.GroupKind(), gvk.Version)
		if err != nil {
			return fmt.Errorf("%s %s: %w", gvk.Kind, obj.GetName(), err)
		}
		var ri dynamic.ResourceInterface = e.Dynamic.Resource(mapping.Resource)
		if mapping.Scope.Name() == meta.RESTScopeNameNamespace {
			ns := obj.GetNamespace()
			if ns == "" {
				ns = metav1.NamespaceDefault
			}
			ri = e.Dynamic.Resource(mapping.Resource).Namespace(ns)
		}
		obj = obj.DeepCopy()
		obj.SetManagedFields(nil)
		obj.SetResourceVersion("")
		data, err := obj.MarshalJSON()
		if err != nil {
			return err
		}
		force := true
		opts := metav1.PatchOptions{FieldManager: FieldManager, Force: &force, FieldValidation: fieldValidation}
		if _, err := ri.Patch(ctx, obj.GetName(), types.ApplyPatchType, data, opts); err != nil {
			return fmt.Errorf("applying %s %s: %w", gvk.Kind, obj.GetName(), err)
		}
	}
	return nil
}

// InstallCRDs applies the CRDs rendered from config/crd with their conversion
// webhook pointed at ConvertURL and CABundle, and waits until they are
// Established and every version is served (WaitForCRDs). Start calls it; a
// suite that applied another shape of the CRDs calls it to restore them.
func (e *Env) InstallCRDs(ctx context.Context) error {
	objs, err := Render("config/crd")
	if err != nil {
		return err
	}
	crds := OfKind(objs, "CustomResourceDefinition")
	if len(crds) == 0 {
		return errors.New("kustomize build config/crd rendered no CustomResourceDefinition")
	}
	var names []string
	for _, crd := range crds {
		if s, _, _ := unstructured.NestedString(crd.Object, "spec", "conversion", "strategy"); s != string(apiextensionsv1.WebhookConverter) {
			return fmt.Errorf("CRD %s from config/crd: conversion strategy %q, want Webhook", crd.GetName(), s)
		}
		names = append(names, crd.GetName())
	}
	if err := PointWebhooks(crds, e.BaseURL(), e.CABundle); err != nil {
		return err
	}
	if err := e.Apply(ctx, crds...); err != nil {
		return err
	}
	return e.WaitForCRDs(ctx, names...)
}

// InstallWebhookConfiguration applies the ValidatingWebhookConfiguration
// and the MutatingWebhookConfiguration rendered from config/webhook, both
// named WebhookConfigurationName, with the same rules and every webhook's
// clientConfig set to ValidateURL or DefaultURL and CABundle.
func (e *Env) InstallWebhookConfiguration(ctx context.Context) error {
	objs, err := Render("config/webhook")
	if err != nil {
		return err
	}
	for _, kind := range []string{"ValidatingWebhookConfiguration", "MutatingWebhookConfiguration"} {
		configs := OfKind(objs, kind)
		if len(configs) != 1 {
			return fmt.Errorf("kustomize build config/webhook rendered %d %ss, want 1", len(configs), kind)
		}
		config := configs[0]
		config.SetName(WebhookConfigurationName)
		if err := PointWebhooks(configs, e.BaseURL(), e.CABundle); err != nil {
			return err
		}
		if err := e.Apply(ctx, config); err != nil {
			return err
		}
	}
	return nil
}

// BaseURL is the claimbridge server's URL without a path
// (https://127.0.0.1:<port>).
func (e *Env) BaseURL() string { return strings.TrimSuffix(e.ConvertURL, "/convert") }

// PointWebhooks sets, in objs, every CRD's conversion webhook clientConfig to
// base + "/convert", every ValidatingWebhookConfiguration's webhooks' to base
// + "/validate" and every MutatingWebhookConfiguration's to base +
// "/default", with caBundle (none if empty), in place of the Service the
// manifests name. Other objects are left alone.
func PointWebhooks(objs []*unstructured.Unstructured, base string, caBundle []byte) error {
	clientConfig := func(path string) map[string]interface{} {
		c := map[string]interface{}{"url": base + path}
		if len(caBundle) > 0 {
			c["caBundle"] = base64.StdEncoding.EncodeToString(caBundle)
		}
		return c
	}
	for _, o := range objs {
		path := map[string]string{"ValidatingWebhookConfiguration": "/validate", "MutatingWebhookConfiguration": "/default"}[o.GetKind()]
		switch {
		case o.GetKind() == "CustomResourceDefinition":
			if err := unstructured.SetNestedField(o.Object, clientConfig("/convert"), "spec", "conversion", "webhook", "clientConfig"); err != nil {
				return err
			}
		case path != "":
			webhooks, _, _ := unstructured.NestedSlice(o.Object, "webhooks")
			for i := range webhooks {
				wh, ok := webhooks[i].(map[string]interface{})
				if !ok {
					return fmt.Errorf("%s %s: webhooks[%d] is not an object", o.GetKind(), o.GetName(), i)
				}
				wh["clientConfig"] = clientConfig(path)
			}
			if err := unstructured.SetNestedSlice(o.Object, webhooks, "webhooks"); err != nil {
				return err
			}
		}
	}
	return nil
}

// WaitForCRDs waits until each named CRD is Established and every version it
// serves is in discovery with its resource, and fails after Options.ReadyTimeout.
func (e *Env) WaitForCRDs(ctx context.Context, names ...string) error {
	var last error
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, e.readyTimeout, true, func(ctx context.Context) (bool, error) {
		last = nil
		for _, name := range names {
			if last = e.crdServed(ctx, name); last != nil {
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil && last != nil {
		return fmt.Errorf("waiting for CRDs %s: %w (%w)", strings.Join(names, ", "), last, err)
	}
	return err
}

func (e *Env) crdServed(ctx context.Context, name string) error {
	crd, err := e.apiext.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	established := slices.ContainsFunc(crd.Status.Conditions, func(c apiextensionsv1.CustomResourceDefinitionCondition) bool {
		return c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue
	})
	if !established {
		return fmt.Errorf("CRD %s is not Established", name)
	}
	for _, v := range crd.Spec.Versions {
		if !v.Served {
			continue
		}
		gv := crd.Spec.Group + "/" + v.Name
		list, err := e.Discovery.ServerResourcesForGroupVersion(gv)
		if err != nil {
			return fmt.Errorf("discovery of %s: %w", gv, err)
		}
		if !slices.ContainsFunc(list.APIResources, func(r metav1.APIResource) bool { return r.Name == crd.Spec.Names.Plural }) {
			return fmt.Errorf("%s is not in discovery of %s", crd.Spec.Names.Plural, gv)
		}
	}
	return nil
}
