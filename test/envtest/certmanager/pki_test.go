package certmanager

import (
	"bytes"
	"crypto/x509"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	cmapi "github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1"
	cmmeta "github.com/cert-manager/cert-manager/pkg/apis/meta/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	certutil "k8s.io/client-go/util/cert"

	"github.com/claimbridge/claimbridge/webhook"
)

// authority is a test CA and the serving certificate it signed, as
// cert-manager's CA issuer would hold and issue them. Both come from
// webhook.GenerateCertificates, the generator `claimbridge serve` uses.
type authority struct {
	pem     []byte
	serving *issued
}

// issued is a serving certificate and key, as cert-manager writes them into
// tls.crt and tls.key.
type issued struct {
	cert            *x509.Certificate
	certPEM, keyPEM []byte
}

// newAuthority returns a new CA with a serving certificate for servingIP and
// servingDNSName (the generator's SANs always include 127.0.0.1 and
// localhost), like the serving-cert Certificate of config/certmanager with
// the envtest SANs.
func newAuthority() (*authority, error) {
	caPEM, certPEM, keyPEM, err := webhook.GenerateCertificates(nil)
	if err != nil {
		return nil, err
	}
	chain, err := certutil.ParseCertsPEM(certPEM)
	if err != nil {
		return nil, err
	}
	for _, name := range []string{servingIP, servingDNSName} {
		if err := chain[0].VerifyHostname(name); err != nil {
			return nil, fmt.Errorf("generated serving certificate: %w", err)
		}
	}
	return &authority{pem: caPEM, serving: &issued{cert: chain[0], certPEM: certPEM, keyPEM: keyPEM}}, nil
}

// bundle concatenates PEM blocks, as a ca.crt with several CAs.
func bundle(pems ...[]byte) []byte { return bytes.Join(pems, nil) }

// certificate is the Certificate object the Secret claims to come from; the
// cainjector resolves cert-manager.io/inject-ca-from through it.
func certificate() *cmapi.Certificate {
	return &cmapi.Certificate{
		ObjectMeta: metav1.ObjectMeta{Name: certificateName, Namespace: certNamespace},
		Spec: cmapi.CertificateSpec{
			SecretName:  secretName,
			DNSNames:    []string{servingDNSName},
			IPAddresses: []string{servingIP},
			Duration:    &metav1.Duration{Duration: 90 * 24 * time.Hour},
			Usages:      []cmapi.KeyUsage{cmapi.UsageServerAuth, cmapi.UsageDigitalSignature},
			PrivateKey:  &cmapi.CertificatePrivateKey{Algorithm: cmapi.RSAKeyAlgorithm, Size: 2048, RotationPolicy: cmapi.RotationPolicyAlways},
			IssuerRef:   cmmeta.IssuerReference{Name: issuerName, Kind: cmapi.IssuerKind, Group: "cert-manager.io"},
		},
	}
}

// readyStatus is the status cert-manager's controller sets after issuing
// revision rev.
func readyStatus(c *issued, rev int) cmapi.CertificateStatus {
	now := metav1.Now()
	notBefore, notAfter := metav1.NewTime(c.cert.NotBefore), metav1.NewTime(c.cert.NotAfter)
	renewal := metav1.NewTime(c.cert.NotAfter.Add(-c.cert.NotAfter.Sub(c.cert.NotBefore) / 3))
	return cmapi.CertificateStatus{
		Conditions: []cmapi.CertificateCondition{{
			Type: cmapi.CertificateConditionReady, Status: cmmeta.ConditionTrue,
			Reason: "Ready", Message: "Certificate is up to date and has not expired", LastTransitionTime: &now,
		}},
		NotBefore: &notBefore, NotAfter: &notAfter, RenewalTime: &renewal, Revision: &rev,
	}
}

// secret is the Secret as cert-manager's controller writes it: type
// kubernetes.io/tls with tls.crt, tls.key and ca.crt, the annotations that tie
// it to its Certificate and issuer (the cainjector only injects from a Secret
// whose cert-manager.io/certificate-name names the Certificate) and the label
// that marks it as cert-manager's.
func secret(c *issued, caCrt []byte) *corev1.Secret {
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{
			Name:      secretName,
			Namespace: certNamespace,
			Labels:    map[string]string{cmapi.PartOfCertManagerControllerLabelKey: "true"},
			Annotations: map[string]string{
				cmapi.CertificateNameKey:       certificateName,
				cmapi.IssuerNameAnnotationKey:  issuerName,
				cmapi.IssuerKindAnnotationKey:  cmapi.IssuerKind,
				cmapi.IssuerGroupAnnotationKey: "cert-manager.io",
				cmapi.CommonNameAnnotationKey:  c.cert.Subject.CommonName,
				cmapi.AltNamesAnnotationKey:    servingDNSName,
				cmapi.IPSANAnnotationKey:       servingIP,
				cmapi.URISANAnnotationKey:      "",
			},
		},
		Type: corev1.SecretTypeTLS,
		Data: map[string][]byte{
			corev1.TLSCertKey:       c.certPEM,
			corev1.TLSPrivateKeyKey: c.keyPEM,
			cmmeta.TLSCAKey:         caCrt,
		},
	}
}

// secretVolume lays a Secret's data out in a directory the way the kubelet
// mounts a Secret volume (its AtomicWriter): the files are in a timestamped
// directory, ..data links to it, and each key is a link through ..data. An
// update writes a new timestamped directory and renames a new ..data link over
// the old one, so a reader sees either the old or the new data, never a mix of
// tls.crt and tls.key.
type secretVolume struct {
	dir string
	gen int
	cur string // current timestamped directory, relative to dir
}

func (v *secretVolume) project(data map[string][]byte) error {
	v.gen++
	ts := "..gen-" + strconv.Itoa(v.gen) + "-" + time.Now().UTC().Format("2006_01_02_15_04_05.000000000")
	if err := os.Mkdir(filepath.Join(v.dir, ts), 0o755); err != nil {
		return err
	}
	for k, b := range data {
		mode := os.FileMode(0o644)
		if k == webhook.KeyFileName {
			mode = 0o600
		}
		if err := os.WriteFile(filepath.Join(v.dir, ts, k), b, mode); err != nil {
			return err
		}
	}
	tmp := filepath.Join(v.dir, "..data_tmp")
	_ = os.Remove(tmp)
	if err := os.Symlink(ts, tmp); err != nil {
		return err
	}
	if err := os.Rename(tmp, filepath.Join(v.dir, "..data")); err != nil {
		return err
	}
	for k := range data {
		link := filepath.Join(v.dir, k)
		if _, err := os.Lstat(link); err == nil {
			continue
		}
		if err := os.Symlink(filepath.Join("..data", k), link); err != nil {
			return err
		}
	}
	if v.cur != "" {
		if err := os.RemoveAll(filepath.Join(v.dir, v.cur)); err != nil {
			return fmt.Errorf("removing the previous projection: %w", err)
		}
	}
	v.cur = ts
	return nil
}
