package selfmanaged

import (
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

	"github.com/google/go-cmp/cmp"
	"github.com/open-policy-agent/cert-controller/pkg/rotator"
)

func TestCAKeyRepair(t *testing.T) {
	now := time.Now()
	const lookahead = 90 * 24 * time.Hour
	// A CA as the rotator makes it: RSA, PKCS #1.
	ca, err := (&rotator.CertRotator{CAName: caName, CAOrganization: "claimbridge"}).CreateCACert(now.Add(-time.Hour), now.Add(10*365*24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	pkcs8 := func(key any) []byte {
		der, err := x509.MarshalPKCS8PrivateKey(key)
		if err != nil {
			t.Fatal(err)
		}
		return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
	}
	// The same CA certificate template with an ECDSA key.
	ecKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	selfSigned := func(name string, key any, pub any, notAfter time.Time) []byte {
		tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name}, DNSNames: []string{name},
			NotBefore: now.Add(-time.Hour), NotAfter: notAfter, IsCA: true, BasicConstraintsValid: true,
			KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, pub, key)
		if err != nil {
			t.Fatal(err)
		}
		return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	}
	decade := now.Add(10 * 365 * 24 * time.Hour)
	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		caCrt, caKey []byte
		wantKey      []byte
		wantChange   bool
	}{
		"pkcs1":        {ca.CertPEM, ca.KeyPEM, nil, false},
		"rsa-in-pkcs8": {ca.CertPEM, pkcs8(ca.Key), ca.KeyPEM, true},
		"ecdsa":        {selfSigned(caName, ecKey, ecKey.Public(), decade), pkcs8(ecKey), nil, true},
		"ecdsa-sec1": {selfSigned(caName, ecKey, ecKey.Public(), decade), func() []byte {
			der, err := x509.MarshalECPrivateKey(ecKey)
			if err != nil {
				t.Fatal(err)
			}
			return pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der})
		}(), nil, true},
		// What the rotator replaces itself is left to it.
		"rsa-in-pkcs8-ca-due":    {selfSigned(caName, rsaKey, rsaKey.Public(), now.Add(lookahead/2)), pkcs8(rsaKey), nil, false},
		"rsa-in-pkcs8-not-named": {selfSigned("another-ca", rsaKey, rsaKey.Public(), decade), pkcs8(rsaKey), nil, false},
		"key-of-another-ca":      {ca.CertPEM, pkcs8(rsaKey), nil, false},
		"no-key":                 {ca.CertPEM, nil, nil, false},
		"garbage-key":            {ca.CertPEM, []byte("garbage"), nil, false},
	} {
		t.Run(name, func(t *testing.T) {
			data := map[string][]byte{"ca.crt": tc.caCrt, "ca.key": tc.caKey}
			key, change := caKeyRepair(data, lookahead, now)
			if change != tc.wantChange {
				t.Errorf("change %v, want %v", change, tc.wantChange)
			}
			if diff := cmp.Diff(string(tc.wantKey), string(key)); diff != "" {
				t.Errorf("key (-want +got):\n%s", diff)
			}
		})
	}
}
