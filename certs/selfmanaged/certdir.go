package selfmanaged

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// certDirFiles are the Secret keys copied into the cert dir, in write
// order: the key before the certificate, so that a reloader that sees the
// new certificate also finds its key (a reloader that sees the new key with
// the old certificate fails to load the pair and keeps serving the current
// one). ca.key never leaves the Secret.
var certDirFiles = []string{"ca.crt", "tls.key", "tls.crt"}

// certDirWriter copies the Secret's certificate files into the cert dir.
type certDirWriter struct {
	reader    client.Reader
	writer    client.Writer
	secretKey types.NamespacedName
	dir       string
	// dnsNames and lookahead are the rotator's (Config.DNSNames,
	// LookaheadInterval): a serving certificate not valid for every name
	// is issued again (missingDNSNames).
	dnsNames  []string
	lookahead time.Duration
}

func addCertDirWriter(mgr manager.Manager, key types.NamespacedName, cfg Config) error {
	w := &certDirWriter{
		reader: mgr.GetCache(), writer: mgr.GetClient(), secretKey: key, dir: cfg.CertDir,
		dnsNames: cfg.DNSNames, lookahead: cfg.LookaheadInterval,
	}
	err := builder.ControllerManagedBy(mgr).
		Named("claimbridge-cert-dir").
		For(&corev1.Secret{}, builder.WithPredicates(predicate.NewPredicateFuncs(func(o client.Object) bool {
			return o.GetNamespace() == key.Namespace && o.GetName() == key.Name
		}))).
		Complete(w)
	if err != nil {
		return fmt.Errorf("adding the cert dir writer: %w", err)
	}
	return nil
}

// Reconcile writes the files of a complete Secret; an incomplete one (the
// rotator has not filled it yet) is left for its next update. It also
// repairs what the rotator keeps but should not:
//   - a CA key it cannot sign with is written in the form it can, or
//     removed (caKeyRepair);
//   - a serving certificate not valid for every DNS name is written too (at
//     start the rotator acts on no change of the Secret before the files
//     are there), then removed from the Secret (as docs/operations.md tells
//     operators to force a renewal), so that the rotator issues one for
//     every name, which replaces it a moment later.
func (w *certDirWriter) Reconcile(ctx context.Context, _ reconcile.Request) (reconcile.Result, error) {
	var s corev1.Secret
	if err := w.reader.Get(ctx, w.secretKey, &s); err != nil {
		if apierrors.IsNotFound(err) {
			// The rotator says nothing (until its next expiry check, up
			// to 12 hours on) and needs no Secret to keep serving.
			ctrl.LoggerFrom(ctx).Error(nil, "The certificate Secret is gone: this replica keeps serving the certificate in its cert dir, "+
				"but no longer repairs the caBundles or renews the certificate, and no replica can start; "+
				"create it again, empty (helm upgrade, or kubectl apply of the install's manifests), to have a new CA issued and injected")
			return reconcile.Result{}, nil
		}
		return reconcile.Result{}, err
	}
	// Before the completeness check: with a CA key it cannot sign with,
	// the rotator never fills a Secret whose serving certificate is gone.
	if key, change := caKeyRepair(s.Data, w.lookahead, time.Now()); change {
		if key != nil {
			ctrl.LoggerFrom(ctx).Info("The Secret's ca.key is an RSA key in PKCS #8, which cert-controller cannot sign with; writing it in PKCS #1")
			s.Data["ca.key"] = key
		} else {
			ctrl.LoggerFrom(ctx).Error(nil, "The Secret's ca.key is not an RSA key, which cert-controller cannot sign with; removing it to start over with a new CA")
			delete(s.Data, "ca.key")
		}
		// Against the resourceVersion read, as below.
		return reconcile.Result{}, w.writer.Update(ctx, &s)
	}
	if slices.ContainsFunc(certDirFiles, func(name string) bool { return len(s.Data[name]) == 0 }) {
		return reconcile.Result{}, nil
	}
	if err := writeCertDir(w.dir, s.Data); err != nil {
		return reconcile.Result{}, err
	}
	missing := missingDNSNames(s.Data, w.dnsNames, w.lookahead, time.Now())
	if len(missing) == 0 {
		return reconcile.Result{}, nil
	}
	ctrl.LoggerFrom(ctx).Info("The Secret's serving certificate is not valid for every --dns-name; removing it from the Secret to have it issued again",
		"missingDNSNames", missing)
	delete(s.Data, "tls.crt")
	// Against the resourceVersion read: a replica that removed it first,
	// or a rotator that renewed it meanwhile, makes this a conflict,
	// retried with the Secret as it is then.
	return reconcile.Result{}, w.writer.Update(ctx, &s)
}

// writeCertDir writes each of certDirFiles whose content differs, through a
// temporary file renamed into place.
func writeCertDir(dir string, data map[string][]byte) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("creating cert dir: %w", err)
	}
	for _, name := range certDirFiles {
		path := filepath.Join(dir, name)
		if cur, err := os.ReadFile(path); err == nil && bytes.Equal(cur, data[name]) {
			continue
		}
		tmp, err := os.CreateTemp(dir, "."+name+".*")
		if err != nil {
			return fmt.Errorf("writing %s: %w", path, err)
		}
		_, werr := tmp.Write(data[name])
		if werr = cmp.Or(werr, tmp.Close()); werr == nil {
			werr = os.Rename(tmp.Name(), path)
		}
		if werr != nil {
			_ = os.Remove(tmp.Name())
			return fmt.Errorf("writing %s: %w", path, werr)
		}
	}
	return nil
}
