//go:build envtest

package selfmanaged

import (
	"bytes"
	"context"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"path/filepath"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/claimbridge/claimbridge/test/envtest/harness"
)

// ownInstall is a self-managed install of its own beside the suite's: a
// namespace and an empty Secret of generated names and a
// ValidatingWebhookConfiguration (for a resource nothing writes) that gets
// the CA, so that its replicas never touch the suite's CRDs, webhook
// configurations or Secret. Its replicas run with the admin's credentials:
// what the chart's RBAC lets the server do is TestServiceAccountRights's
// question, not this one's.
type ownInstall struct {
	dnsName    string // the first --dns-name; replicaArgs adds localhost
	secret     types.NamespacedName
	webhook    string // the ValidatingWebhookConfiguration's name
	kubeconfig string
}

func newOwnInstall(t *testing.T) *ownInstall {
	t.Helper()
	ctx := t.Context()
	// Generated names: envtest runs no namespace controller, so the
	// objects of an earlier repetition (-count=2) stay.
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "claimbridge-own-"}}
	if err := s.client.Create(ctx, ns); err != nil {
		t.Fatal(err)
	}
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns.Name, Name: "claimbridge-webhook-server-cert"}}
	if err := s.client.Create(ctx, secret); err != nil {
		t.Fatal(err)
	}
	never := admissionregistrationv1.SideEffectClassNone
	url := "https://localhost:1/validate"
	vwc := &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{GenerateName: "claimbridge-own-"},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name: "validate.own.example.com", AdmissionReviewVersions: []string{"v1"}, SideEffects: &never,
			ClientConfig: admissionregistrationv1.WebhookClientConfig{URL: &url},
			Rules: []admissionregistrationv1.RuleWithOperations{{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
				Rule:       admissionregistrationv1.Rule{APIGroups: []string{"example.com"}, APIVersions: []string{"v1"}, Resources: []string{"widgets"}},
			}},
		}}}
	if err := s.client.Create(ctx, vwc); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = s.client.Delete(context.Background(), vwc)
		_ = s.client.Delete(context.Background(), secret)
	})
	in := &ownInstall{
		dnsName:    "claimbridge-webhook." + ns.Name + ".svc",
		secret:     client.ObjectKeyFromObject(secret),
		webhook:    vwc.Name,
		kubeconfig: filepath.Join(t.TempDir(), "kubeconfig"),
	}
	if err := harness.WriteKubeconfig(s.admin, in.kubeconfig); err != nil {
		t.Fatal(err)
	}
	return in
}

// args are the serve arguments of the install's replicas (replicaArgs adds
// the listeners and the cert dir).
func (in *ownInstall) args() []string {
	return []string{
		"--cert-mode=self-managed",
		"--cert-secret=" + in.secret.String(),
		"--cert-inject-crd=",
		"--cert-inject-validating-webhook-configuration=" + in.webhook,
		"--kubeconfig=" + in.kubeconfig,
		"--dns-name=" + in.dnsName,
	}
}

// dnsNames are the DNS names of its replicas' serving certificates.
func (in *ownInstall) dnsNames() []string { return []string{in.dnsName, "localhost"} }

// getSecret reads the install's Secret.
func (in *ownInstall) getSecret(ctx context.Context) (*corev1.Secret, error) {
	var secret corev1.Secret
	return &secret, s.client.Get(ctx, in.secret, &secret)
}

// converged reports whether the install's webhook carries exactly the
// Secret's ca.crt and every replica serves the Secret's tls.crt, verified
// against it for localhost; it returns the Secret's CA and serving
// certificate.
func (in *ownInstall) converged(ctx context.Context, replicas ...*replica) (ca, leaf *x509.Certificate, err error) {
	secret, err := in.getSecret(ctx)
	if err != nil {
		return nil, nil, err
	}
	caPEM := secret.Data["ca.crt"]
	if ca, err = parseCert(caPEM); err != nil {
		return nil, nil, fmt.Errorf("the Secret's ca.crt: %w", err)
	}
	if leaf, err = parseCert(secret.Data["tls.crt"]); err != nil {
		return nil, nil, fmt.Errorf("the Secret's tls.crt: %w", err)
	}
	var vwc admissionregistrationv1.ValidatingWebhookConfiguration
	if err := s.client.Get(ctx, types.NamespacedName{Name: in.webhook}, &vwc); err != nil {
		return nil, nil, err
	}
	if got := vwc.Webhooks[0].ClientConfig.CABundle; !bytes.Equal(got, caPEM) {
		return nil, nil, fmt.Errorf("the webhook's caBundle is not the Secret's ca.crt (%d bytes, want %d)", len(got), len(caPEM))
	}
	for _, r := range replicas {
		served, err := dialLeaf(r.addr, caPEM)
		if err != nil {
			return nil, nil, fmt.Errorf("replica %s: %w", r.name, err)
		}
		if !served.Equal(leaf) {
			return nil, nil, fmt.Errorf("replica %s serves a certificate (NotAfter %s) other than the Secret's (NotAfter %s)", r.name, served.NotAfter, leaf.NotAfter)
		}
	}
	return ca, leaf, nil
}

// parseCert parses the first PEM certificate of b.
func parseCert(b []byte) (*x509.Certificate, error) {
	block, _ := pem.Decode(b)
	if block == nil {
		return nil, errors.New("no PEM block")
	}
	return x509.ParseCertificate(block.Bytes)
}
