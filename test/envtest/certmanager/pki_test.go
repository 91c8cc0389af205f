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
	"time"

	cmapi "github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1"
	cmmeta "github.com/cert-manager/cert-manager/pkg/apis/meta/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/claimbridge/claimbridge/webhook"
)

// authority is a test CA.
type authority struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	pem  []byte
}

// issued is a serving certificate and key, as cert-manager writes them into
// tls.crt and tls.key.
type issued struct {
	cert            *x509.Certificate
	certPEM, keyPEM []byte
}

func newAuthority(name string) (*authority, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{CommonName: name},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(365 * 24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	return &authority{cert: cert, key: key, pem: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}, nil
}

// issue signs a serving certificate for servingIP and servingDNSName, like the
// serving-cert Certificate of config/certmanager with the envtest SANs.
func (a *authority) issue() (*issued, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: serial(),
		Subject:      pkix.Name{CommonName: servingIP},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(90 * 24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames:     []string{servingDNSName},
		IPAddresses:  []net.IP{net.ParseIP(servingIP)},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, a.cert, &key.PublicKey, a.key)
	if err != nil {
		return nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, err
	}
	return &issued{
		cert:    cert,
		certPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		keyPEM:  pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}),
	}, nil
}

func serial() *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		panic(err)
	}
	return n
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
			PrivateKey:  &cmapi.CertificatePrivateKey{Algorithm: cmapi.ECDSAKeyAlgorithm, Size: 256, RotationPolicy: cmapi.RotationPolicyAlways},
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
