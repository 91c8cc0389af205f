//go:build envtest

package selfmanaged

import (
	"bytes"
	"context"
	"crypto/x509"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"

	"github.com/claimbridge/claimbridge/test/envtest/harness"
)

// TestReplicasStartTogether: two replicas of an install start at once with
// its Secret empty. Both fill it at the same resource version; the
// apiserver lets one write and refuses the other a conflict, so the Secret
// holds one CA from its first write on (watched from before the start),
// both replicas become ready, the webhook carries that CA and both serve a
// certificate it signed.
func TestReplicasStartTogether(t *testing.T) {
	ctx := t.Context()
	in := newOwnInstall(t)
	secret, err := in.getSecret(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cas := watchSecretCAs(t, in.secret, secret.ResourceVersion)

	replicas := []*replica{startReplica(t, "a", in.args(), nil), startReplica(t, "b", in.args(), nil)}
	for _, r := range replicas {
		if err := r.ready(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := in.converged(ctx, replicas...); err != nil {
		t.Fatal(err)
	}
	for _, r := range replicas {
		if err := r.stop(); err != nil {
			t.Fatal(err)
		}
	}
	if got := cas(); len(got) != 1 {
		t.Errorf("the Secret held %d CAs one after the other, want 1: a replica overwrote another's", len(got))
	}
}

// watchSecretCAs watches the Secret key from resourceVersion on (without
// its state then); the function it returns stops the watch and says the
// distinct ca.crt values it saw, in order.
func watchSecretCAs(t *testing.T, key types.NamespacedName, resourceVersion string) func() [][]byte {
	t.Helper()
	cs, err := kubernetes.NewForConfig(s.admin)
	if err != nil {
		t.Fatal(err)
	}
	w, err := cs.CoreV1().Secrets(key.Namespace).Watch(t.Context(), metav1.ListOptions{
		FieldSelector: "metadata.name=" + key.Name, ResourceVersion: resourceVersion,
	})
	if err != nil {
		t.Fatal(err)
	}
	var cas [][]byte
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev := range w.ResultChan() {
			secret, ok := ev.Object.(*corev1.Secret)
			if !ok || ev.Type == watch.Deleted {
				continue
			}
			if ca := secret.Data["ca.crt"]; len(ca) > 0 && (len(cas) == 0 || !bytes.Equal(cas[len(cas)-1], ca)) {
				cas = append(cas, ca)
			}
		}
	}()
	t.Cleanup(w.Stop)
	return func() [][]byte {
		w.Stop()
		<-done
		return cas
	}
}

// testReplicasAgree: two more replicas of the suite's install (the chart's
// arguments, the chart's ServiceAccount) run beside the suite's server when
// the Secret's data is removed (docs/operations.md: to start over with a
// new CA). All three fill it at once; one writes a new CA (a watch sees one
// only), the others get a conflict and keep it, it is injected everywhere
// and all three serve the certificate it signed.
func testReplicasAgree(t *testing.T) {
	ctx := t.Context()
	args, err := harness.ServeArgs(s.objs, namespace)
	if err != nil {
		t.Fatal(err)
	}
	replicas := []*replica{startReplica(t, "b", args, nil), startReplica(t, "c", args, nil)}
	for _, r := range replicas {
		if err := r.ready(ctx); err != nil {
			t.Fatal(err)
		}
	}
	secret, err := s.secret(ctx)
	if err != nil {
		t.Fatal(err)
	}
	before := secret.Data["ca.crt"]
	cas := watchSecretCAs(t, types.NamespacedName{Namespace: namespace, Name: secretName}, secret.ResourceVersion)
	secret.Data = nil
	if err := s.client.Update(ctx, secret); err != nil {
		t.Fatal(err)
	}
	ca, took := s.waitHealed(t, s.dnsNames(t))
	var last error
	err = wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, healTimeout, true, func(ctx context.Context) (bool, error) {
		secret, last = s.secret(ctx)
		if last != nil {
			return false, nil
		}
		for _, r := range replicas {
			var served *x509.Certificate
			if served, last = dialLeaf(r.addr, ca); last != nil {
				return false, nil
			}
			if leaf, _ := parseCert(secret.Data["tls.crt"]); !served.Equal(leaf) {
				last = fmt.Errorf("replica %s serves a certificate (NotAfter %s) other than the Secret's", r.name, served.NotAfter)
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		t.Fatalf("the replicas do not serve the Secret's certificate: %v", last)
	}
	if bytes.Equal(ca, before) {
		t.Error("the Secret holds the old CA, want a new one")
	}
	if got := cas(); len(got) != 1 {
		t.Errorf("the Secret held %d CAs one after the other, want 1: a replica overwrote another's", len(got))
	}
	t.Logf("a new CA injected and served by the suite's server in %s", took.Round(time.Millisecond))
}

// TestRestartWithDueCertificate: a replica that starts (a pod restarted,
// the other replicas gone) while the Secret holds a serving certificate or
// CA within --cert-renew-before (90 days) of its expiry, or past it,
// renews it before it is ready (likewise a serving certificate that is not
// valid for every --dns-name, and with a CA key in PKCS #8): the serving
// certificate with the same CA, a CA with a new serving certificate; the
// webhook carries the Secret's CA and the replica serves the renewed
// certificate. In a new pod (an empty cert dir) and in a restarted
// container, whose pod's emptyDir still holds the old files.
func TestRestartWithDueCertificate(t *testing.T) {
	lookahead := 90 * 24 * time.Hour
	for _, tc := range []struct {
		name             string
		caLeft, leafLeft time.Duration // validity left
		firstNameOnly    bool          // the serving certificate is for the first --dns-name only
		caKeyPKCS8       bool          // ca.key in PKCS #8
		certDirKept      bool
		newCA            bool
	}{
		{"serving-certificate-due/new-pod", 10 * 365 * 24 * time.Hour, 30 * 24 * time.Hour, false, false, false, false},
		{"serving-certificate-expired/container-restarted", 10 * 365 * 24 * time.Hour, -time.Hour, false, false, true, false},
		// Not due, but clients that dial localhost refuse it.
		{"serving-certificate-missing-a-dns-name/new-pod", 10 * 365 * 24 * time.Hour, 365 * 24 * time.Hour, true, false, false, false},
		// cert-controller keeps the CA but cannot sign with the key as
		// it is (testHealsSecret).
		{"serving-certificate-due-ca-key-in-pkcs8/new-pod", 10 * 365 * 24 * time.Hour, 30 * 24 * time.Hour, false, true, false, false},
		{"ca-due/new-pod", 30 * 24 * time.Hour, 20 * 24 * time.Hour, false, false, false, true},
		{"ca-expired/container-restarted", -time.Minute, -time.Minute, false, false, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := t.Context()
			in := newOwnInstall(t)
			ca := newTestCA(t, time.Now().Add(tc.caLeft))
			names := in.dnsNames()
			if tc.firstNameOnly {
				names = names[:1]
			}
			leafPEM, keyPEM := ca.issue(t, names, time.Now().Add(tc.leafLeft))
			secret, err := in.getSecret(ctx)
			if err != nil {
				t.Fatal(err)
			}
			secret.Data = ca.secretData(leafPEM, keyPEM)
			if tc.caKeyPKCS8 {
				secret.Data["ca.key"] = pkcs8(t, ca.key)
			}
			if err := s.client.Update(ctx, secret); err != nil {
				t.Fatal(err)
			}
			var kept map[string][]byte
			if tc.certDirKept {
				kept = map[string][]byte{"ca.crt": ca.certPEM, "tls.crt": leafPEM, "tls.key": keyPEM}
			}
			r := startReplica(t, "restarted", in.args(), kept)
			if err := r.ready(ctx); err != nil {
				t.Fatal(err)
			}
			var gotCA, leaf *x509.Certificate
			var last error
			// Ready means renewed and injected; the new files reach the
			// listener through its file watch, a moment later.
			err = wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
				gotCA, leaf, last = in.converged(ctx, r)
				return last == nil, nil
			})
			if err != nil {
				t.Fatalf("not renewed, injected and served: %v", last)
			}
			if got := !gotCA.Equal(ca.cert); got != tc.newCA {
				t.Errorf("new CA: %v, want %v", got, tc.newCA)
			}
			if !leaf.NotAfter.After(time.Now().Add(lookahead)) {
				t.Errorf("the Secret's serving certificate expires at %s, within the renewal lead", leaf.NotAfter)
			}
		})
	}
}
