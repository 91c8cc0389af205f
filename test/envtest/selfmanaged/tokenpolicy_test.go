package selfmanaged

import (
	"context"
	"slices"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/claimbridge/claimbridge/test/envtest/harness"
)

// asServiceAccount is a client with the chart's ServiceAccount's identity
// (impersonated), as the server's own.
func (s *suite) asServiceAccount() (client.Client, error) {
	return client.New(harness.ServiceAccountConfig(s.admin, namespace, serviceAccount), client.Options{Scheme: s.client.Scheme()})
}

// updateVWC gets the webhook configuration, changes it and updates it with c.
func (s *suite) updateVWC(ctx context.Context, c client.Client, change func(*admissionregistrationv1.ValidatingWebhookConfiguration)) error {
	var vwc admissionregistrationv1.ValidatingWebhookConfiguration
	if err := s.client.Get(ctx, types.NamespacedName{Name: webhookConfig}, &vwc); err != nil {
		return err
	}
	change(&vwc)
	return c.Update(ctx, &vwc)
}

// updateMWC gets the defaulting webhook's configuration, changes it and
// updates it with c.
func (s *suite) updateMWC(ctx context.Context, c client.Client, change func(*admissionregistrationv1.MutatingWebhookConfiguration)) error {
	var mwc admissionregistrationv1.MutatingWebhookConfiguration
	if err := s.client.Get(ctx, types.NamespacedName{Name: mutatingConfig}, &mwc); err != nil {
		return err
	}
	change(&mwc)
	return c.Update(ctx, &mwc)
}

func (s *suite) updateCRD(ctx context.Context, c client.Client, name string, change func(*apiextensionsv1.CustomResourceDefinition)) error {
	var crd apiextensionsv1.CustomResourceDefinition
	if err := s.client.Get(ctx, types.NamespacedName{Name: name}, &crd); err != nil {
		return err
	}
	change(&crd)
	return c.Update(ctx, &crd)
}

// waitForPolicy returns once the policy is enforced (harness.WaitForTokenPolicy).
func (s *suite) waitForPolicy(ctx context.Context) error {
	sa, err := s.asServiceAccount()
	if err != nil {
		return err
	}
	return harness.WaitForTokenPolicy(ctx, s.client, sa, webhookConfig)
}

// testTokenRestricted: the chart's ServiceAccount, which RBAC lets update
// both CRDs and the webhook configuration, can change nothing in them but
// the caBundles (the server injected its CA through the policy in the steps
// before); an administrator is not restricted.
func testTokenRestricted(t *testing.T) {
	ctx := t.Context()
	sa, err := s.asServiceAccount()
	if err != nil {
		t.Fatal(err)
	}
	for name, change := range map[string]func(*admissionregistrationv1.ValidatingWebhookConfiguration){
		"rules-widened-to-secrets": func(v *admissionregistrationv1.ValidatingWebhookConfiguration) {
			v.Webhooks[0].Rules = append(v.Webhooks[0].Rules, admissionregistrationv1.RuleWithOperations{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
				Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"secrets"}},
			})
		},
		"failure-policy-ignore": func(v *admissionregistrationv1.ValidatingWebhookConfiguration) {
			ignore := admissionregistrationv1.Ignore
			v.Webhooks[0].FailurePolicy = &ignore
		},
		"url-elsewhere": func(v *admissionregistrationv1.ValidatingWebhookConfiguration) {
			url := "https://attacker.example.com/validate"
			v.Webhooks[0].ClientConfig.URL = &url
		},
		"annotation": func(v *admissionregistrationv1.ValidatingWebhookConfiguration) {
			v.Annotations = map[string]string{"a": "b"}
		},
	} {
		if err := harness.CheckRefusedByTokenPolicy(s.updateVWC(ctx, sa, change), "ValidatingWebhookConfiguration"); err != nil {
			t.Errorf("webhook configuration, %s: %v", name, err)
		}
	}
	for name, change := range map[string]func(*admissionregistrationv1.MutatingWebhookConfiguration){
		"rules-widened-to-pods": func(v *admissionregistrationv1.MutatingWebhookConfiguration) {
			v.Webhooks[0].Rules = append(v.Webhooks[0].Rules, admissionregistrationv1.RuleWithOperations{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
				Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}},
			})
		},
		"reinvocation-never": func(v *admissionregistrationv1.MutatingWebhookConfiguration) {
			never := admissionregistrationv1.NeverReinvocationPolicy
			v.Webhooks[0].ReinvocationPolicy = &never
		},
		"url-elsewhere": func(v *admissionregistrationv1.MutatingWebhookConfiguration) {
			url := "https://attacker.example.com/default"
			v.Webhooks[0].ClientConfig.URL = &url
		},
	} {
		if err := harness.CheckRefusedByTokenPolicy(s.updateMWC(ctx, sa, change), "MutatingWebhookConfiguration"); err != nil {
			t.Errorf("mutating webhook configuration, %s: %v", name, err)
		}
	}
	for name, change := range map[string]func(*apiextensionsv1.CustomResourceDefinition){
		"version-not-served": func(c *apiextensionsv1.CustomResourceDefinition) { c.Spec.Versions[0].Served = false },
		"short-name": func(c *apiextensionsv1.CustomResourceDefinition) {
			c.Spec.Names.ShortNames = append(c.Spec.Names.ShortNames, "x")
		},
		"conversion-url-elsewhere": func(c *apiextensionsv1.CustomResourceDefinition) {
			url := "https://attacker.example.com/convert"
			c.Spec.Conversion.Webhook.ClientConfig.URL = &url
		},
	} {
		if err := harness.CheckRefusedByTokenPolicy(s.updateCRD(ctx, sa, crdNames[0], change), "CustomResourceDefinition"); err != nil {
			t.Errorf("CRD, %s: %v", name, err)
		}
	}

	// A caBundle change is allowed (here the CA twice, still the same
	// trust); the server puts back exactly its CA.
	if err := s.updateVWC(ctx, sa, func(v *admissionregistrationv1.ValidatingWebhookConfiguration) {
		v.Webhooks[0].ClientConfig.CABundle = slices.Concat(v.Webhooks[0].ClientConfig.CABundle, v.Webhooks[0].ClientConfig.CABundle)
	}); err != nil {
		t.Errorf("caBundle of the webhook configuration: %v", err)
	}
	if err := s.updateMWC(ctx, sa, func(v *admissionregistrationv1.MutatingWebhookConfiguration) {
		v.Webhooks[0].ClientConfig.CABundle = slices.Concat(v.Webhooks[0].ClientConfig.CABundle, v.Webhooks[0].ClientConfig.CABundle)
	}); err != nil {
		t.Errorf("caBundle of the mutating webhook configuration: %v", err)
	}
	if err := s.updateCRD(ctx, sa, crdNames[1], func(c *apiextensionsv1.CustomResourceDefinition) {
		cc := c.Spec.Conversion.Webhook.ClientConfig
		cc.CABundle = slices.Concat(cc.CABundle, cc.CABundle)
	}); err != nil {
		t.Errorf("caBundle of CRD %s: %v", crdNames[1], err)
	}
	var last error
	if err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		last = s.checkInjected(ctx)
		return last == nil, nil
	}); err != nil {
		t.Errorf("the server did not inject its CA again: %v", last)
	}

	// The policy binds only the ServiceAccount.
	if err := s.updateVWC(ctx, s.client, func(v *admissionregistrationv1.ValidatingWebhookConfiguration) {
		v.Labels["reviewed-by"] = "admin"
	}); err != nil {
		t.Errorf("an administrator's label: %v", err)
	}
}
