//go:build envtest

package selfmanaged

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/claimbridge/claimbridge/test/envtest/harness"
)

// TestNewImageUnderOlderRBAC: the image of this release, rolled out before
// the manifests that add the defaulting webhook (docs/operations.md,
// "Upgrading to defaulting"), runs with the previous chart's arguments and
// RBAC — which grant nothing on MutatingWebhookConfigurations — and becomes
// ready: it injects its CA only where told to. (With the mutating
// configuration named by default, cert-controller would wait for a watch it
// may not make, and the pod would never be ready.) A second server, in a
// namespace of its own and with a webhook configuration of its own, so that
// the suite's server keeps its CA where it is, and in a process of its own.
func TestNewImageUnderOlderRBAC(t *testing.T) {
	ctx := t.Context()
	// A namespace of a generated name: envtest runs no namespace
	// controller, so the one of an earlier repetition (-count=2) stays.
	nsObj := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "claimbridge-older-"}}
	if err := s.client.Create(ctx, nsObj); err != nil {
		t.Fatalf("creating a namespace claimbridge-older-…: %v", err)
	}
	ns := nsObj.Name
	const (
		sa     = "claimbridge"
		secret = "older-webhook-server-cert"
		vwc    = "claimbridge-older-validating-webhook-configuration"
	)
	never := admissionregistrationv1.SideEffectClassNone
	url := "https://localhost:1/validate"
	objs := []client.Object{
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: sa}},
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: secret}},
		// The previous chart's rules (chart 0.3.0, templates/rbac.yaml),
		// with this test's names.
		&rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "cert-rotator"}, Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"list", "watch"}},
			{APIGroups: []string{""}, Resources: []string{"secrets"}, ResourceNames: []string{secret}, Verbs: []string{"get", "update"}},
		}},
		&rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "cert-rotator"},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "cert-rotator"},
			Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Namespace: ns, Name: sa}}},
		&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "claimbridge-older-cert-injector"}, Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{"apiextensions.k8s.io"}, Resources: []string{"customresourcedefinitions"}, Verbs: []string{"list", "watch"}},
			{APIGroups: []string{"admissionregistration.k8s.io"}, Resources: []string{"validatingwebhookconfigurations"}, Verbs: []string{"list", "watch"}},
			{APIGroups: []string{"admissionregistration.k8s.io"}, Resources: []string{"validatingwebhookconfigurations"}, ResourceNames: []string{vwc}, Verbs: []string{"get", "update"}},
		}},
		&rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "claimbridge-older-cert-injector"},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "claimbridge-older-cert-injector"},
			Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Namespace: ns, Name: sa}}},
		// A configuration of its own, for a resource nothing writes.
		&admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: vwc},
			Webhooks: []admissionregistrationv1.ValidatingWebhook{{
				Name: "validate.older.example.com", AdmissionReviewVersions: []string{"v1"}, SideEffects: &never,
				ClientConfig: admissionregistrationv1.WebhookClientConfig{URL: &url},
				Rules: []admissionregistrationv1.RuleWithOperations{{
					Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
					Rule:       admissionregistrationv1.Rule{APIGroups: []string{"example.com"}, APIVersions: []string{"v1"}, Resources: []string{"widgets"}},
				}},
			}}},
	}
	for _, o := range objs {
		if err := s.client.Create(ctx, o); err != nil {
			t.Fatalf("creating %T %s: %v", o, o.GetName(), err)
		}
	}
	t.Cleanup(func() {
		for _, o := range objs[2:] { // the namespace stays, with the ServiceAccount and the Secret
			_ = s.client.Delete(context.Background(), o)
		}
	})

	dir := t.TempDir()
	kubeconfig := filepath.Join(dir, "kubeconfig")
	if err := harness.WriteKubeconfig(harness.ServiceAccountConfig(s.admin, ns, sa), kubeconfig); err != nil {
		t.Fatal(err)
	}
	port, err := harness.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	healthPort, err := harness.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	certDir := filepath.Join(dir, "certs")
	if err := os.Mkdir(certDir, 0o700); err != nil {
		t.Fatal(err)
	}
	// The previous chart's self-managed arguments (no
	// --cert-inject-mutating-webhook-configuration), with this test's names.
	args := []string{
		"--cert-dir=" + certDir, "--dns-name=localhost",
		"--cert-mode=self-managed",
		"--cert-secret=" + ns + "/" + secret,
		"--cert-inject-crd=",
		"--cert-inject-validating-webhook-configuration=" + vwc,
		"--kubeconfig=" + kubeconfig,
		"--bind-address=127.0.0.1", fmt.Sprintf("--port=%d", port),
		fmt.Sprintf("--health-probe-bind-address=127.0.0.1:%d", healthPort),
		"--metrics-bind-address=0", "--shutdown-drain=0s",
	}
	// A process of its own: the suite's server runs in this one, and klog's
	// configuration is applied once per process.
	root, err := harness.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "claimbridge")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/claimbridge")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	log := &harness.LogBuffer{}
	cmd := exec.Command(bin, append([]string{"serve"}, args...)...)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	defer func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	}()
	err = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		select {
		case err := <-done:
			done <- err
			return false, fmt.Errorf("the server stopped before it was ready: %v", err)
		default:
		}
		return get(fmt.Sprintf("http://127.0.0.1:%d/readyz", healthPort)), nil
	})
	if err != nil {
		t.Fatalf("not ready under the previous chart's RBAC: %v\nserver log:\n%s", err, log.Tail(4000))
	}
	var got admissionregistrationv1.ValidatingWebhookConfiguration
	if err := s.client.Get(ctx, client.ObjectKey{Name: vwc}, &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Webhooks[0].ClientConfig.CABundle) == 0 {
		t.Error("ready, but no CA injected into its ValidatingWebhookConfiguration")
	}
}
