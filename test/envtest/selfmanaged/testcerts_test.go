//go:build envtest

package selfmanaged

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"testing"
	"time"
)

// testCA signs certificates in the tests: a CA as cert-controller makes
// them (an RSA key in PKCS #1, the DNS name claimbridge-ca, which it
// checks), so that the server keeps one it finds valid.
type testCA struct {
	cert            *x509.Certificate
	key             crypto.Signer
	certPEM, keyPEM []byte
}

// newTestCA is a CA valid from an hour ago until notAfter.
func newTestCA(t *testing.T, notAfter time.Time) *testCA {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	return newTestCAWithKey(t, notAfter, key)
}

// newTestCAWithKey is newTestCA with key, in PKCS #1 if RSA, else PKCS #8.
func newTestCAWithKey(t *testing.T, notAfter time.Time, key crypto.Signer) *testCA {
	t.Helper()
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "claimbridge-ca", Organization: []string{"claimbridge"}},
		DNSNames:  []string{"claimbridge-ca"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: notAfter,
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment | x509.KeyUsageCertSign,
		BasicConstraintsValid: true, IsCA: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	keyPEM := pkcs8(t, key)
	if rsaKey, ok := key.(*rsa.PrivateKey); ok {
		keyPEM = pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(rsaKey)})
	}
	return &testCA{cert: cert, key: key, certPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), keyPEM: keyPEM}
}

// pkcs8 is key in PKCS #8 PEM.
func pkcs8(t *testing.T, key crypto.Signer) []byte {
	t.Helper()
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
}

// ecdsaKey is a new P-256 key.
func ecdsaKey(t *testing.T) crypto.Signer {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return key
}

// secretCA is the CA of a Secret the server filled (ca.crt, ca.key).
func secretCA(t *testing.T, data map[string][]byte) *testCA {
	t.Helper()
	cert, err := parseCert(data["ca.crt"])
	if err != nil {
		t.Fatalf("the Secret's ca.crt: %v", err)
	}
	block, _ := pem.Decode(data["ca.key"])
	if block == nil {
		t.Fatal("the Secret's ca.key holds no PEM block")
	}
	key, err := x509.ParsePKCS1PrivateKey(block.Bytes)
	if err != nil {
		t.Fatalf("the Secret's ca.key: %v", err)
	}
	return &testCA{cert: cert, key: key, certPEM: data["ca.crt"], keyPEM: data["ca.key"]}
}

// issue is a serving certificate and its key for names, valid from an hour
// ago until notAfter.
func (ca *testCA) issue(t *testing.T, names []string, notAfter time.Time) (certPEM, keyPEM []byte) {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: names[0]}, DNSNames: names,
		NotBefore: time.Now().Add(-time.Hour), NotAfter: notAfter,
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, key.Public(), ca.key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
}

// secretData is the content of a filled Secret: ca's certificate and key
// and a serving certificate and key.
func (ca *testCA) secretData(certPEM, keyPEM []byte) map[string][]byte {
	return map[string][]byte{"ca.crt": ca.certPEM, "ca.key": ca.keyPEM, "tls.crt": certPEM, "tls.key": keyPEM}
}
