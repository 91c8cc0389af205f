//go:build envtest

package selfmanaged

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/test/envtest/harness"
)

const (
	claims     = "resourceclaims"
	className  = "gpu.example.com"
	badClass   = "Not_A_DNS_Name"
	webhookRef = `admission webhook "validate.resource.claimbridge.dev" denied the request`
)

// TestSelfManaged runs the steps in order; each needs the previous ones.
func TestSelfManaged(t *testing.T) {
	for _, step := range []struct {
		name string
		fn   func(*testing.T)
	}{
		{"ca-injected", testInjected},
		{"conversion-and-validation", testThroughAPIServer},
		{"rotation-under-load", testRotation},
		{"metrics-authn-authz", testMetrics},
		{"token-restricted-to-ca-injection", testTokenRestricted},
		{"token-policy-checked", testTokenPolicyChecked},
		{"reapply-keeps-cabundles", testReapplyKeepsCABundles},
		{"heals-injection", testHealsInjection},
		{"heals-secret", testHealsSecret},
		{"secret-deleted", testSecretDeleted},
		{"replicas-agree-on-a-new-ca", testReplicasAgree},
	} {
		if !t.Run(step.name, step.fn) {
			t.FailNow()
		}
	}
}

// checkInjected reports whether both CRDs and every webhook of both
// configurations carry exactly the Secret's ca.crt.
func (s *suite) checkInjected(ctx context.Context) error {
	return harness.CheckCAInjected(ctx, s.client, harness.Injection{
		Secret: types.NamespacedName{Namespace: namespace, Name: secretName},
		CRDs:   crdNames, Validating: webhookConfig, Mutating: mutatingConfig,
	})
}

func testInjected(t *testing.T) {
	if err := s.checkInjected(t.Context()); err != nil {
		t.Fatal(err)
	}
	// The served certificate verifies against the injected CA as localhost.
	if _, err := s.servingLeaf(); err != nil {
		t.Fatal(err)
	}
}

// servingLeaf dials the webhook port, verifying against the Secret's CA for
// the name localhost, and returns the certificate served.
func (s *suite) servingLeaf() (*x509.Certificate, error) {
	var secret corev1.Secret
	if err := s.client.Get(context.Background(), types.NamespacedName{Namespace: namespace, Name: secretName}, &secret); err != nil {
		return nil, err
	}
	return dialLeaf(s.webhookAddr, secret.Data["ca.crt"])
}

func testThroughAPIServer(t *testing.T) {
	ctx := t.Context()
	obj := claim("converted", className)
	obj.SetAPIVersion(api.Group + "/v1alpha1")
	if _, err := s.resource("v1alpha1").Create(ctx, obj, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating a v1alpha1 claim: %v", err)
	}
	t.Cleanup(func() { _ = s.resource("v1alpha1").Delete(context.Background(), "converted", metav1.DeleteOptions{}) })
	v3, err := s.resource("v1alpha3").Get(ctx, "converted", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("reading the claim in v1alpha3: %v", err)
	}
	requests, _, _ := unstructured.NestedSlice(v3.Object, "spec", "devices", "requests")
	if len(requests) != 1 || requests[0].(map[string]interface{})["deviceClassName"] != className {
		t.Errorf("v1alpha3 claim: spec.devices.requests = %v, want one request for %s", requests, className)
	}
	for _, version := range []string{"v1alpha1", "v1alpha2"} {
		bad := claim("invalid-"+version, badClass)
		bad.SetAPIVersion(api.Group + "/" + version)
		_, err := s.resource(version).Create(ctx, bad, metav1.CreateOptions{})
		if err := checkDenied(err); err != nil {
			t.Errorf("%s: %v", version, err)
		}
	}
}

func checkDenied(err error) error {
	return checkRefused(err, http.StatusUnprocessableEntity, webhookRef)
}

// checkRefused wants err to be an API status with code whose message
// contains message.
func checkRefused(err error, code int32, message string) error {
	if err == nil {
		return errors.New("the request was allowed")
	}
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		return fmt.Errorf("not an API status: %w", err)
	}
	st := status.Status()
	if st.Code != code || !strings.Contains(st.Message, message) {
		return fmt.Errorf("want a %d with %q, got %d %s: %s", code, message, st.Code, st.Reason, st.Message)
	}
	return nil
}

// testRotation forces a renewal of the serving certificate (tls.crt removed
// from the Secret: the rotator issues a new one from the same CA) while
// requests in all versions keep going through the apiserver, waits until the
// server serves the new certificate, and requires every request to succeed.
func testRotation(t *testing.T) {
	ctx := t.Context()
	before, err := s.servingLeaf()
	if err != nil {
		t.Fatal(err)
	}
	tr := startTraffic(t)
	tr.WaitFor(t, 5, 2*time.Minute)

	var secret corev1.Secret
	if err := s.client.Get(ctx, types.NamespacedName{Namespace: namespace, Name: secretName}, &secret); err != nil {
		t.Fatal(err)
	}
	caBefore := secret.Data["ca.crt"]
	delete(secret.Data, "tls.crt")
	if err := s.client.Update(ctx, &secret); err != nil {
		t.Fatalf("forcing a renewal: %v", err)
	}
	var after *x509.Certificate
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 2*time.Minute, true, func(context.Context) (bool, error) {
		after, err = s.servingLeaf()
		if err != nil {
			return false, err
		}
		return !after.Equal(before), nil
	})
	if err != nil {
		tr.Stop()
		t.Fatalf("the server did not serve a renewed certificate: %v", err)
	}
	tr.WaitFor(t, 10, 2*time.Minute)
	ok, failures := tr.Stop()
	if len(failures) > 0 {
		t.Fatalf("%d request sequences failed during the renewal (%d succeeded):\n%s", len(failures), ok, strings.Join(failures, "\n"))
	}
	if err := s.client.Get(ctx, types.NamespacedName{Namespace: namespace, Name: secretName}, &secret); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(secret.Data["ca.crt"], caBefore) {
		t.Error("the renewal replaced the CA; only the serving certificate was due")
	}
	if err := s.checkInjected(ctx); err != nil {
		t.Error(err)
	}
	t.Logf("%d request sequences succeeded, none failed; serving certificate renewed (NotBefore %s → %s)", ok, before.NotBefore, after.NotBefore)
}

// testMetrics scrapes the HTTPS metrics listener without a token, with the
// token of a ServiceAccount without RBAC, and with one bound to the chart's
// metrics-reader ClusterRole.
func testMetrics(t *testing.T) {
	ctx := t.Context()
	cs, err := kubernetes.NewForConfig(s.admin)
	if err != nil {
		t.Fatal(err)
	}
	token := func(name string) string {
		t.Helper()
		sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: testNamespace}}
		if _, err := cs.CoreV1().ServiceAccounts(testNamespace).Create(ctx, sa, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			_ = cs.CoreV1().ServiceAccounts(testNamespace).Delete(context.Background(), name, metav1.DeleteOptions{})
		})
		tr, err := cs.CoreV1().ServiceAccounts(testNamespace).CreateToken(ctx, name, &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return tr.Status.Token
	}
	reader, stranger := token("prometheus"), token("stranger")
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "prometheus-claimbridge-metrics"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: release + "-metrics-reader"},
		Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Name: "prometheus", Namespace: testNamespace}},
	}
	if _, err := cs.RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cs.RbacV1().ClusterRoleBindings().Delete(context.Background(), binding.Name, metav1.DeleteOptions{})
	})

	c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, // who serves is not the question here
	}}
	scrape := func(token string) (int, string) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, "https://"+s.metrics+"/metrics", nil)
		if err != nil {
			t.Fatal(err)
		}
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	for _, tc := range []struct {
		name, token string
		want        int
	}{
		{"no-token", "", http.StatusUnauthorized},
		// controller-runtime's filter answers a token the TokenReview
		// cannot verify with 500 "Authentication failed".
		{"bad-token", "not-a-token", http.StatusInternalServerError},
		{"no-rbac", stranger, http.StatusForbidden},
	} {
		if got, _ := scrape(tc.token); got != tc.want {
			t.Errorf("%s: status %d, want %d", tc.name, got, tc.want)
		}
	}
	// RBAC bindings take effect through the authorizer's cache: poll.
	var code int
	var body string
	_ = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		code, body = scrape(reader)
		return code == http.StatusOK, nil
	})
	if code != http.StatusOK {
		t.Fatalf("authorised scrape: status %d: %s", code, body)
	}
	for _, name := range []string{"claimbridge_webhook_requests_total", "claimbridge_certificate_expiration_timestamp_seconds"} {
		if !strings.Contains(body, "\n"+name) {
			t.Errorf("authorised scrape has no %s", name)
		}
	}
}

// startTraffic runs sequence against the apiserver until stopped: get, list,
// create, update and delete requests in v1alpha1 and v1alpha2 (converted to
// and from the storage version v1alpha3 by the webhook) plus denied creates.
func startTraffic(t *testing.T) *harness.Traffic {
	cfg := rest.CopyConfig(s.admin)
	cfg.Timeout = 30 * time.Second
	cfg.QPS, cfg.Burst = 200, 400
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return harness.StartTraffic(t, 0, func(ctx context.Context, i int) error { return sequence(ctx, dyn, i) })
}

// sequence creates a claim in v1alpha1, reads it in v1alpha2, lists it in
// v1alpha1, is denied an invalid create every third time, and deletes it.
func sequence(ctx context.Context, dyn dynamic.Interface, i int) error {
	res := func(version string) dynamic.ResourceInterface {
		return dyn.Resource(schema.GroupVersionResource{Group: api.Group, Version: version, Resource: claims}).Namespace(testNamespace)
	}
	name := fmt.Sprintf("traffic-%d", i)
	obj := claim(name, className)
	obj.SetAPIVersion(api.Group + "/v1alpha1")
	obj.SetLabels(map[string]string{"traffic": "true"})
	if _, err := res("v1alpha1").Create(ctx, obj, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create in v1alpha1: %w", err)
	}
	got, err := res("v1alpha2").Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("get in v1alpha2: %w", err)
	}
	if c, _, _ := unstructured.NestedString(got.Object, "spec", "resourceClassName"); c != className {
		return fmt.Errorf("get in v1alpha2: resourceClassName %q", c)
	}
	list, err := res("v1alpha1").List(ctx, metav1.ListOptions{LabelSelector: "traffic=true"})
	if err != nil {
		return fmt.Errorf("list in v1alpha1: %w", err)
	}
	if !slices.ContainsFunc(list.Items, func(u unstructured.Unstructured) bool { return u.GetName() == name }) {
		return fmt.Errorf("list in v1alpha1: %s missing", name)
	}
	if i%3 == 0 {
		_, err := res("v1alpha2").Create(ctx, claim(name+"-invalid", badClass), metav1.CreateOptions{})
		if err := checkDenied(err); err != nil {
			return fmt.Errorf("invalid create in v1alpha2: %w", err)
		}
	}
	if err := res("v1alpha2").Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
		return fmt.Errorf("delete in v1alpha2: %w", err)
	}
	return nil
}

func (s *suite) resource(version string) dynamic.ResourceInterface {
	return s.dynamic.Resource(schema.GroupVersionResource{Group: api.Group, Version: version, Resource: claims}).Namespace(testNamespace)
}

func claim(name, class string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": api.Group + "/v1alpha2", "kind": "ResourceClaim",
		"metadata": map[string]interface{}{"name": name, "namespace": testNamespace},
		"spec": map[string]interface{}{
			"resourceClassName": class,
			"allocationMode":    "WaitForFirstConsumer",
			"parametersRef":     map[string]interface{}{"apiGroup": "gpu.example.com", "kind": "GpuClaimParameters", "name": "two-gpus"},
		},
	}}
}
