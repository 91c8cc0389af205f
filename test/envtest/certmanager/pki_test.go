//go:build envtest

package certmanager

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	cmapi "github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1"
	cmmeta "github.com/cert-manager/cert-manager/pkg/apis/meta/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/claimbridge/claimbridge/webhook"
)

// authority is a test CA as cert-manager's CA issuer holds it (the Secret
// of the CA Certificate: certificate and key) and the serving certificate
// it signed. The key is ECDSA P-256, as config/certmanager asks for.
type authority struct {
	cert    *x509.Certificate
	pem     []byte
	key     *ecdsa.PrivateKey
	keyPEM  []byte
	serving *issued
}

// issued is a serving certificate and key, as cert-manager writes them into
// tls.crt and tls.key.
type issued struct {
	cert            *x509.Certificate
	certPEM, keyPEM []byte
}

var serialSeq atomic.Int64

// newAuthority returns a new CA (a new key) valid until notAfter, with a
// serving certificate for servingIP and servingDNSName valid for a day,
// like the two Certificates of config/certmanager with the envtest SANs.
// The serving certificate may outlive its CA certificate: cert-manager's CA
// issuer does not shorten it to the CA's expiry.
func newAuthority(commonName string, notAfter time.Time) (*authority, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, err
	}
	a := &authority{key: key, keyPEM: pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER})}
	if err := a.selfSign(commonName, notAfter); err != nil {
		return nil, err
	}
	if a.serving, err = a.issue(time.Now().Add(24 * time.Hour)); err != nil {
		return nil, err
	}
	return a, nil
}

// renewed is the CA certificate cert-manager issues when it renews the CA
// Certificate with rotationPolicy Never: the same subject and key, a new
// serial and validity. It carries no serving certificate of its own.
func (a *authority) renewed(notAfter time.Time) (*authority, error) {
	r := &authority{key: a.key, keyPEM: a.keyPEM}
	return r, r.selfSign(a.cert.Subject.CommonName, notAfter)
}

func (a *authority) selfSign(commonName string, notAfter time.Time) error {
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(serialSeq.Add(1)),
		Subject:               pkix.Name{CommonName: commonName},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              notAfter,
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &a.key.PublicKey, a.key)
	if err != nil {
		return fmt.Errorf("signing the CA: %w", err)
	}
	if a.cert, err = x509.ParseCertificate(der); err != nil {
		return err
	}
	a.pem = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	return nil
}

// issue signs a serving certificate (a new key) valid until notAfter.
func (a *authority) issue(notAfter time.Time) (*issued, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	der, err := x509.CreateCertificate(rand.Reader, &x509.Certificate{
		SerialNumber: big.NewInt(serialSeq.Add(1)),
		Subject:      pkix.Name{CommonName: servingDNSName},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     notAfter,
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames:     []string{servingDNSName},
		IPAddresses:  []net.IP{net.ParseIP(servingIP)},
	}, a.cert, &key.PublicKey, a.key)
	if err != nil {
		return nil, fmt.Errorf("signing the serving certificate: %w", err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, err
	}
	return &issued{cert: cert, certPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		keyPEM: pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER})}, nil
}

// bundle concatenates PEM blocks, as a ca.crt with several CAs.
func bundle(pems ...[]byte) []byte { return bytes.Join(pems, nil) }

// servingCertificate is the Certificate the serving Secret claims to come
// from, like config/certmanager's serving-cert with the envtest SANs.
func servingCertificate() *cmapi.Certificate {
	return &cmapi.Certificate{
		ObjectMeta: metav1.ObjectMeta{Name: certificateName, Namespace: certNamespace},
		Spec: cmapi.CertificateSpec{
			SecretName:  secretName,
			DNSNames:    []string{servingDNSName},
			IPAddresses: []string{servingIP},
			Duration:    &metav1.Duration{Duration: 90 * 24 * time.Hour},
			Usages:      []cmapi.KeyUsage{cmapi.UsageServerAuth, cmapi.UsageDigitalSignature},
			PrivateKey:  &cmapi.CertificatePrivateKey{Algorithm: cmapi.ECDSAKeyAlgorithm, Size: 256, RotationPolicy: cmapi.RotationPolicyAlways},
			IssuerRef:   cmmeta.IssuerReference{Name: issuerName, Kind: cmapi.IssuerKind, Group: "cert-manager.io"},
		},
	}
}

// caCertificate is the CA Certificate, like config/certmanager's ca: the
// cainjector resolves cert-manager.io/inject-ca-from through it to its
// Secret, and the CA Issuer signs with that Secret.
func caCertificate() *cmapi.Certificate {
	return &cmapi.Certificate{
		ObjectMeta: metav1.ObjectMeta{Name: caCertificateName, Namespace: certNamespace},
		Spec: cmapi.CertificateSpec{
			IsCA:        true,
			CommonName:  "claimbridge-ca",
			SecretName:  caSecretName,
			Duration:    &metav1.Duration{Duration: 10 * 365 * 24 * time.Hour},
			RenewBefore: &metav1.Duration{Duration: 365 * 24 * time.Hour},
			PrivateKey:  &cmapi.CertificatePrivateKey{Algorithm: cmapi.ECDSAKeyAlgorithm, Size: 256, RotationPolicy: cmapi.RotationPolicyNever},
			IssuerRef:   cmmeta.IssuerReference{Name: selfSignedIssuerName, Kind: cmapi.IssuerKind, Group: "cert-manager.io"},
		},
	}
}

// readyStatus is the status cert-manager's controller sets after issuing
// revision rev of a Certificate as cert.
func readyStatus(cert *x509.Certificate, rev int) cmapi.CertificateStatus {
	now := metav1.Now()
	notBefore, notAfter := metav1.NewTime(cert.NotBefore), metav1.NewTime(cert.NotAfter)
	renewal := metav1.NewTime(cert.NotAfter.Add(-cert.NotAfter.Sub(cert.NotBefore) / 3))
	return cmapi.CertificateStatus{
		Conditions: []cmapi.CertificateCondition{{
			Type: cmapi.CertificateConditionReady, Status: cmmeta.ConditionTrue,
			Reason: "Ready", Message: "Certificate is up to date and has not expired", LastTransitionTime: &now,
		}},
		NotBefore: &notBefore, NotAfter: &notAfter, RenewalTime: &renewal, Revision: &rev,
	}
}

// servingSecret is the serving Secret as cert-manager's controller writes
// it: type kubernetes.io/tls with tls.crt, tls.key and ca.crt (the CA
// certificate that signed it, as the CA issuer had it then), the annotations
// that tie it to its Certificate and issuer and the label that marks it as
// cert-manager's.
func servingSecret(c *issued, caCrt []byte) *corev1.Secret {
	return tlsSecret(secretName, certificateName, issuerName, c.cert, c.certPEM, c.keyPEM, caCrt)
}

// caSecret is the CA Certificate's Secret: a self-signed certificate is its
// own ca.crt. The cainjector injects from a Secret only when its
// cert-manager.io/certificate-name names the Certificate.
func caSecret(a *authority) *corev1.Secret {
	return tlsSecret(caSecretName, caCertificateName, selfSignedIssuerName, a.cert, a.pem, a.keyPEM, a.pem)
}

func tlsSecret(name, certificate, issuer string, cert *x509.Certificate, certPEM, keyPEM, caCrt []byte) *corev1.Secret {
	ann := map[string]string{
		cmapi.CertificateNameKey:       certificate,
		cmapi.IssuerNameAnnotationKey:  issuer,
		cmapi.IssuerKindAnnotationKey:  cmapi.IssuerKind,
		cmapi.IssuerGroupAnnotationKey: "cert-manager.io",
		cmapi.CommonNameAnnotationKey:  cert.Subject.CommonName,
		cmapi.AltNamesAnnotationKey:    strings.Join(cert.DNSNames, ","),
		cmapi.URISANAnnotationKey:      "",
	}
	var ips []string
	for _, ip := range cert.IPAddresses {
		ips = append(ips, ip.String())
	}
	ann[cmapi.IPSANAnnotationKey] = strings.Join(ips, ",")
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{
			Name:        name,
			Namespace:   certNamespace,
			Labels:      map[string]string{cmapi.PartOfCertManagerControllerLabelKey: "true"},
			Annotations: ann,
		},
		Type: corev1.SecretTypeTLS,
		Data: map[string][]byte{
			corev1.TLSCertKey:       certPEM,
			corev1.TLSPrivateKeyKey: keyPEM,
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
