//go:build envtest

package selfmanaged

import (
	"context"
	"crypto/tls"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
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

// testTokenPolicyChecked: the server, as the chart runs it
// (--token-policy-check-interval, 2s here), finds the chart's token policy
// enforced (claimbridge_token_policy_enforced 1); with the policy's binding
// deleted its next check finds it not enforced (0) and logs the error; the
// binding restored, enforced again. Readiness never depends on it.
func testTokenPolicyChecked(t *testing.T) {
	ctx := t.Context()
	cs, err := kubernetes.NewForConfig(s.admin)
	if err != nil {
		t.Fatal(err)
	}
	const reader = "policy-check-reader"
	if _, err := cs.CoreV1().ServiceAccounts(testNamespace).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: reader, Namespace: testNamespace}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cs.CoreV1().ServiceAccounts(testNamespace).Delete(context.Background(), reader, metav1.DeleteOptions{})
	})
	crb := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: reader},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: release + "-metrics-reader"},
		Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Name: reader, Namespace: testNamespace}},
	}
	if _, err := cs.RbacV1().ClusterRoleBindings().Create(ctx, crb, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cs.RbacV1().ClusterRoleBindings().Delete(context.Background(), reader, metav1.DeleteOptions{})
	})
	tr, err := cs.CoreV1().ServiceAccounts(testNamespace).CreateToken(ctx, reader, &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, // who serves is not the question here
	}}
	// gauge is the scraped value of claimbridge_token_policy_enforced, "" if
	// absent or the scrape failed.
	gauge := func() string {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, "https://"+s.metrics+"/metrics", nil)
		if err != nil {
			return ""
		}
		req.Header.Set("Authorization", "Bearer "+tr.Status.Token)
		resp, err := c.Do(req)
		if err != nil {
			return ""
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		for _, line := range strings.Split(string(body), "\n") {
			if v, ok := strings.CutPrefix(line, "claimbridge_token_policy_enforced "); ok {
				return v
			}
		}
		return ""
	}
	waitFor := func(want string, within time.Duration) {
		t.Helper()
		var got string
		_ = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, within, true, func(context.Context) (bool, error) {
			got = gauge()
			return got == want, nil
		})
		if got != want {
			t.Fatalf("claimbridge_token_policy_enforced %q, want %q", got, want)
		}
	}
	waitFor("1", 30*time.Second)

	var binding admissionregistrationv1.ValidatingAdmissionPolicyBinding
	if err := s.client.Get(ctx, types.NamespacedName{Name: release + "-ca-injection-only"}, &binding); err != nil {
		t.Fatal(err)
	}
	restored := false
	restore := func() error {
		b := binding.DeepCopy()
		b.ResourceVersion, b.UID, b.CreationTimestamp, b.ManagedFields = "", "", metav1.Time{}, nil
		if err := s.client.Create(context.Background(), b); err != nil {
			return err
		}
		restored = true
		return s.waitForPolicy(context.Background())
	}
	t.Cleanup(func() {
		if !restored {
			if err := restore(); err != nil {
				t.Errorf("restoring the policy binding: %v", err)
			}
		}
	})
	logBefore := len(s.serverLog.String())
	if err := s.client.Delete(ctx, &binding); err != nil {
		t.Fatal(err)
	}
	// Policies are unloaded asynchronously: the check after that sees it.
	waitFor("0", 60*time.Second)
	if logged := s.serverLog.String()[logBefore:]; !strings.Contains(logged, "Token policy NOT enforced") ||
		!strings.Contains(logged, "ValidatingWebhookConfiguration "+webhookConfig) {
		t.Errorf("no error logged naming the unenforced policy and the object probed; log since the binding was deleted:\n%s", logged[max(0, len(logged)-4000):])
	}
	if !get("http://" + s.healthAddr + "/readyz") {
		t.Error("/readyz fails while the policy is not enforced: readiness must not depend on it")
	}
	// Nothing was stored by the dry runs.
	var vwc admissionregistrationv1.ValidatingWebhookConfiguration
	if err := s.client.Get(ctx, types.NamespacedName{Name: webhookConfig}, &vwc); err != nil {
		t.Fatal(err)
	}
	if v, ok := vwc.Annotations["claimbridge.dev/token-policy-probe"]; ok {
		t.Errorf("the webhook configuration carries the probe annotation %q: a dry run stored it", v)
	}

	if err := restore(); err != nil {
		t.Fatalf("restoring the policy binding: %v", err)
	}
	waitFor("1", 30*time.Second)
}
