//go:build envtest

package selfmanaged

import (
	"bytes"
	"context"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/test/envtest/harness"
)

// healTimeout bounds the wait for the server to repair what a step broke.
// It repairs in well under a second (the watch event, one update per
// object); the bound only keeps a broken repair from hanging the suite.
const healTimeout = 30 * time.Second

// secret reads the suite's certificate Secret.
func (s *suite) secret(ctx context.Context) (*corev1.Secret, error) {
	var secret corev1.Secret
	return &secret, s.client.Get(ctx, types.NamespacedName{Namespace: namespace, Name: secretName}, &secret)
}

// dnsNames are the server's --dns-name values (the chart's Service name,
// then localhost, which the apiserver dials here).
func (s *suite) dnsNames(t *testing.T) []string {
	t.Helper()
	args, err := s.serverArgs(0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, a := range args {
		if name, ok := strings.CutPrefix(a, "--dns-name="); ok {
			names = append(names, name)
		}
	}
	return names
}

// healed reports whether the Secret holds a CA and a serving certificate it
// signed for every DNS name, valid for longer than the renewal lead, the CA
// is injected everywhere, and the server serves that certificate; it
// returns the Secret's CA.
func (s *suite) healed(ctx context.Context, dnsNames []string) ([]byte, error) {
	secret, err := s.secret(ctx)
	if err != nil {
		return nil, err
	}
	caPEM := secret.Data["ca.crt"]
	leaf, err := parseCert(secret.Data["tls.crt"])
	if err != nil {
		return nil, fmt.Errorf("the Secret's tls.crt: %w", err)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(caPEM) {
		return nil, errors.New("the Secret's ca.crt holds no certificate")
	}
	for _, name := range dnsNames {
		if _, err := leaf.Verify(x509.VerifyOptions{DNSName: name, Roots: roots, CurrentTime: time.Now().Add(90 * 24 * time.Hour)}); err != nil {
			return nil, fmt.Errorf("the Secret's tls.crt for %s in 90 days: %w", name, err)
		}
	}
	if err := s.checkInjected(ctx); err != nil {
		return nil, err
	}
	served, err := dialLeaf(s.webhookAddr, caPEM)
	if err != nil {
		return nil, err
	}
	if !served.Equal(leaf) {
		return nil, fmt.Errorf("the server serves a certificate (NotAfter %s) other than the Secret's (NotAfter %s)", served.NotAfter, leaf.NotAfter)
	}
	return caPEM, nil
}

// waitHealed waits until healed and a request sequence (conversion,
// validation and defaulting through the apiserver, which picks up changed
// caBundles a moment after they are stored) succeeds; it returns the
// Secret's CA and how long that took.
func (s *suite) waitHealed(t *testing.T, dnsNames []string) ([]byte, time.Duration) {
	t.Helper()
	cfg := rest.CopyConfig(s.admin)
	cfg.Timeout = 10 * time.Second
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	var ca []byte
	var last error
	err = wait.PollUntilContextTimeout(t.Context(), 20*time.Millisecond, healTimeout, true, func(ctx context.Context) (bool, error) {
		got, err := s.healed(ctx, dnsNames)
		if err == nil {
			err = sequence(ctx, dyn, harness.NextSequence())
		}
		if ctx.Err() == nil { // not the deadline's own error
			ca, last = got, err
		}
		return err == nil, nil
	})
	if err != nil {
		t.Fatalf("not repaired within %s: %v", healTimeout, last)
	}
	return ca, time.Since(start)
}

// testHealsInjection: what an operator or a tool does to the caBundles the
// server injected — emptied or replaced (kubectl replace, helm upgrade
// --force, a restore), a webhook configuration deleted and created again
// without them, a webhook added — the server repairs with the Secret's CA
// (which stays: nothing rotates), and requests through the apiserver
// succeed again.
func testHealsInjection(t *testing.T) {
	foreign := newTestCA(t, time.Now().Add(24*time.Hour)).certPEM
	for _, tc := range []struct {
		name   string
		tamper func(context.Context) error
		undo   func(context.Context) error
	}{
		{"crd-cabundle-emptied", func(ctx context.Context) error {
			return s.updateCRD(ctx, s.client, crdNames[0], func(c *apiextensionsv1.CustomResourceDefinition) {
				c.Spec.Conversion.Webhook.ClientConfig.CABundle = nil
			})
		}, nil},
		{"crd-cabundle-foreign", func(ctx context.Context) error {
			return s.updateCRD(ctx, s.client, crdNames[1], func(c *apiextensionsv1.CustomResourceDefinition) {
				c.Spec.Conversion.Webhook.ClientConfig.CABundle = foreign
			})
		}, nil},
		{"validating-cabundle-emptied", func(ctx context.Context) error {
			return s.updateVWC(ctx, s.client, func(v *admissionregistrationv1.ValidatingWebhookConfiguration) {
				v.Webhooks[0].ClientConfig.CABundle = nil
			})
		}, nil},
		{"mutating-cabundle-foreign", func(ctx context.Context) error {
			return s.updateMWC(ctx, s.client, func(v *admissionregistrationv1.MutatingWebhookConfiguration) {
				v.Webhooks[0].ClientConfig.CABundle = foreign
			})
		}, nil},
		{"validating-recreated-without-cabundle", func(ctx context.Context) error {
			var v admissionregistrationv1.ValidatingWebhookConfiguration
			if err := s.client.Get(ctx, types.NamespacedName{Name: webhookConfig}, &v); err != nil {
				return err
			}
			if err := s.client.Delete(ctx, &v); err != nil {
				return err
			}
			v.ObjectMeta = metav1.ObjectMeta{Name: v.Name, Labels: v.Labels, Annotations: v.Annotations}
			for i := range v.Webhooks {
				v.Webhooks[i].ClientConfig.CABundle = nil
			}
			return s.client.Create(ctx, &v)
		}, nil},
		{"mutating-webhook-added", func(ctx context.Context) error {
			return s.updateMWC(ctx, s.client, func(v *admissionregistrationv1.MutatingWebhookConfiguration) {
				w := *v.Webhooks[0].DeepCopy()
				w.Name = "added." + api.Group
				w.ClientConfig.CABundle = nil
				v.Webhooks = append(v.Webhooks, w)
			})
		}, func(ctx context.Context) error {
			return s.updateMWC(ctx, s.client, func(v *admissionregistrationv1.MutatingWebhookConfiguration) {
				v.Webhooks = v.Webhooks[:1]
			})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := t.Context()
			before, err := s.secret(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if err := tc.tamper(ctx); err != nil {
				t.Fatal(err)
			}
			if tc.undo != nil {
				t.Cleanup(func() {
					if err := tc.undo(context.Background()); err != nil {
						t.Errorf("undoing: %v", err)
					}
				})
			}
			ca, took := s.waitHealed(t, s.dnsNames(t))
			if !bytes.Equal(ca, before.Data["ca.crt"]) {
				t.Error("the Secret's CA changed; only the caBundle was touched")
			}
			t.Logf("repaired in %s", took.Round(time.Millisecond))
		})
	}
}

// testReapplyKeepsCABundles: the CRDs and webhook configurations applied
// again as rendered, without caBundles (helm upgrade, which applies
// server-side from Helm 4 on; kubectl apply --server-side of the
// manifests, with --force-conflicts), keep the injected CA: the caBundles
// belong to the server's field manager, and an apply changes only the
// fields it sets. Checked on the apply's answer, before the server could
// have injected anything again.
func testReapplyKeepsCABundles(t *testing.T) {
	ctx := t.Context()
	secret, err := s.secret(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ca := base64.StdEncoding.EncodeToString(secret.Data["ca.crt"])
	for _, kind := range []string{"CustomResourceDefinition", "ValidatingWebhookConfiguration", "MutatingWebhookConfiguration"} {
		objs := harness.OfKind(s.objs, kind)
		if len(objs) == 0 {
			t.Fatalf("the chart renders no %s", kind)
		}
		for _, o := range objs {
			// As installed (install pointed the webhooks at the local
			// server in place), without a caBundle.
			obj := o.DeepCopy()
			body, err := obj.MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			if err := s.client.Patch(ctx, obj, client.RawPatch(types.ApplyPatchType, body), client.FieldOwner("helm"), client.ForceOwnership); err != nil {
				t.Fatalf("applying %s %s: %v", kind, obj.GetName(), err)
			}
			var bundles []string
			if kind == "CustomResourceDefinition" {
				b, _, _ := unstructured.NestedString(obj.Object, "spec", "conversion", "webhook", "clientConfig", "caBundle")
				bundles = append(bundles, b)
			} else {
				hooks, _, _ := unstructured.NestedSlice(obj.Object, "webhooks")
				for _, h := range hooks {
					b, _, _ := unstructured.NestedString(h.(map[string]interface{}), "clientConfig", "caBundle")
					bundles = append(bundles, b)
				}
			}
			for i, b := range bundles {
				if b != ca {
					t.Errorf("%s %s: caBundle %d after the apply is %d characters, want the Secret's CA (%d)", kind, obj.GetName(), i, len(b), len(ca))
				}
			}
		}
	}
}

// What becomes of the CA when the Secret's data is changed.
const (
	caKept    = "kept"    // the CA before the change stays
	caNew     = "new"     // the server makes a new one
	caAdopted = "adopted" // the CA written stays
)

// testHealsSecret: what an operator or a tool does to the Secret's data —
// garbage, a ca.crt alone replaced, the data removed, a serving certificate
// expired, of another CA or not for every DNS name, another install's
// valid CA and certificate (a restore) — the server repairs: it keeps a CA
// that is still valid and issues a new serving certificate where it needs
// one, or starts over with a new CA, injects the CA and serves a
// certificate it signed for every --dns-name.
func testHealsSecret(t *testing.T) {
	dnsNames := s.dnsNames(t)
	for _, tc := range []struct {
		name   string
		change func(*testing.T, map[string][]byte) map[string][]byte
		ca     string
	}{
		{"garbage", func(_ *testing.T, d map[string][]byte) map[string][]byte {
			for k := range d {
				d[k] = []byte("garbage")
			}
			return d
		}, caNew},
		{"ca-crt-replaced", func(t *testing.T, d map[string][]byte) map[string][]byte {
			d["ca.crt"] = newTestCA(t, time.Now().Add(24*time.Hour)).certPEM
			return d
		}, caNew},
		{"data-removed", func(*testing.T, map[string][]byte) map[string][]byte { return nil }, caNew},
		{"serving-certificate-expired", func(t *testing.T, d map[string][]byte) map[string][]byte {
			d["tls.crt"], d["tls.key"] = secretCA(t, d).issue(t, dnsNames, time.Now().Add(-time.Minute))
			return d
		}, caKept},
		{"serving-certificate-of-another-ca", func(t *testing.T, d map[string][]byte) map[string][]byte {
			d["tls.crt"], d["tls.key"] = newTestCA(t, time.Now().Add(24*time.Hour)).issue(t, dnsNames, time.Now().Add(24*time.Hour))
			return d
		}, caKept},
		// A certificate of the CA for the first --dns-name only, as a
		// replica run with fewer names writes it.
		{"serving-certificate-missing-a-dns-name", func(t *testing.T, d map[string][]byte) map[string][]byte {
			d["tls.crt"], d["tls.key"] = secretCA(t, d).issue(t, dnsNames[:1], time.Now().Add(365*24*time.Hour))
			return d
		}, caKept},
		// A valid CA whose key is in PKCS #8 (as OpenSSL 3 writes an RSA
		// key it converts; a restore through such a tool): cert-controller
		// keeps the CA but can sign with a PKCS #1 key only, so the expired
		// certificate was never renewed, and every start failed.
		{"ca-key-in-pkcs8-serving-certificate-expired", func(t *testing.T, _ map[string][]byte) map[string][]byte {
			ca := newTestCA(t, time.Now().Add(10*365*24*time.Hour))
			d := ca.secretData(ca.issue(t, dnsNames, time.Now().Add(-time.Minute)))
			d["ca.key"] = pkcs8(t, ca.key)
			return d
		}, caAdopted},
		// Likewise an ECDSA CA key, which cert-controller cannot sign
		// with at all.
		{"ca-key-ecdsa-serving-certificate-expired", func(t *testing.T, _ map[string][]byte) map[string][]byte {
			ca := newTestCAWithKey(t, time.Now().Add(10*365*24*time.Hour), ecdsaKey(t))
			return ca.secretData(ca.issue(t, dnsNames, time.Now().Add(-time.Minute)))
		}, caNew},
		// Valid and complete: nothing to repair, the caBundles follow.
		{"another-installs-ca-and-certificate", func(t *testing.T, _ map[string][]byte) map[string][]byte {
			ca := newTestCA(t, time.Now().Add(10*365*24*time.Hour))
			return ca.secretData(ca.issue(t, dnsNames, time.Now().Add(365*24*time.Hour)))
		}, caAdopted},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := t.Context()
			secret, err := s.secret(ctx)
			if err != nil {
				t.Fatal(err)
			}
			before := secret.Data["ca.crt"]
			secret.Data = tc.change(t, secret.Data)
			written := secret.Data["ca.crt"]
			if err := s.client.Update(ctx, secret); err != nil {
				t.Fatal(err)
			}
			ca, took := s.waitHealed(t, dnsNames)
			got := caNew
			switch {
			case bytes.Equal(ca, before):
				got = caKept
			case bytes.Equal(ca, written):
				got = caAdopted
			}
			if got != tc.ca {
				t.Errorf("CA %s, want %s", got, tc.ca)
			}
			t.Logf("repaired in %s", took.Round(time.Millisecond))
		})
	}
}

// secretGone is what the server logs when its Secret is deleted.
const secretGone = "The certificate Secret is gone"

// testSecretDeleted: the Secret deleted (kubectl delete, a namespace
// clean-up), the server keeps serving the certificate in its cert dir and
// says, as an error, what it can no longer do (repair caBundles, renew, a
// replica start). Created again as the chart renders it (helm upgrade
// creates what is missing), empty, it gets a new CA, which the running
// server injects and serves, without a restart.
func testSecretDeleted(t *testing.T) {
	ctx := t.Context()
	secret, err := s.secret(ctx)
	if err != nil {
		t.Fatal(err)
	}
	logBefore := len(s.serverLog.String())
	if err := s.client.Delete(ctx, secret); err != nil {
		t.Fatal(err)
	}
	err = wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, healTimeout, true, func(context.Context) (bool, error) {
		return strings.Contains(s.serverLog.String()[logBefore:], secretGone), nil
	})
	if err != nil {
		t.Errorf("the server did not log %q within %s", secretGone, healTimeout)
	}
	if _, err := dialLeaf(s.webhookAddr, secret.Data["ca.crt"]); err != nil {
		t.Errorf("the server no longer serves its certificate: %v", err)
	}
	if err := sequence(ctx, s.dynamic, harness.NextSequence()); err != nil {
		t.Errorf("a request sequence with the Secret gone: %v", err)
	}

	rendered := harness.OfKind(s.objs, "Secret")
	if len(rendered) != 1 {
		t.Fatalf("the chart renders %d Secrets, want 1", len(rendered))
	}
	if err := s.client.Create(ctx, rendered[0].DeepCopy()); err != nil {
		t.Fatal(err)
	}
	ca, took := s.waitHealed(t, s.dnsNames(t))
	if bytes.Equal(ca, secret.Data["ca.crt"]) {
		t.Error("the Secret created again holds the old CA, want a new one")
	}
	t.Logf("repaired in %s after the Secret was created again", took.Round(time.Millisecond))
}
