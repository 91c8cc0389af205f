package webhook

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestSigningCA: the CA exported as claimbridge_certificate_ca_expiration_timestamp_seconds
// is the one of ca.crt that signed the serving certificate, the latest to
// expire if several did (a CA renewed with its key, as config/certmanager
// renews it); another CA in the bundle does not count, and without one that
// signed it nothing is exported.
func TestSigningCA(t *testing.T) {
	key := func() *ecdsa.PrivateKey {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	ca := func(k *ecdsa.PrivateKey, cn string, notAfter time.Time) *x509.Certificate {
		tmpl := &x509.Certificate{Subject: pkix.Name{CommonName: cn}, NotBefore: time.Now().Add(-time.Hour), NotAfter: notAfter,
			KeyUsage: x509.KeyUsageCertSign, BasicConstraintsValid: true, IsCA: true}
		der, err := createCertificate(tmpl, tmpl, &k.PublicKey, k)
		if err != nil {
			t.Fatal(err)
		}
		c, err := x509.ParseCertificate(der)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	caKey, otherKey, leafKey := key(), key(), key()
	soon := time.Now().Add(20 * 24 * time.Hour).Truncate(time.Second)
	later := time.Now().Add(10 * 365 * 24 * time.Hour).Truncate(time.Second)
	first := ca(caKey, "claimbridge-ca", soon)
	renewed := ca(caKey, "claimbridge-ca", later)
	other := ca(otherKey, "other-ca", later.Add(time.Hour))
	der, err := createCertificate(&x509.Certificate{Subject: pkix.Name{CommonName: "localhost"}, NotBefore: time.Now().Add(-time.Hour),
		NotAfter: later, KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}, first, &leafKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	bundle := func(cs ...*x509.Certificate) string {
		dir := t.TempDir()
		var data []byte
		for _, c := range cs {
			data = append(data, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.Raw})...)
		}
		if err := os.WriteFile(filepath.Join(dir, CAFileName), data, 0o644); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	for _, tt := range []struct {
		name string
		dir  string
		want time.Time // zero: none
	}{
		{"the signing CA", bundle(first), soon},
		{"renewed with its key: the later", bundle(other, first, renewed), later},
		{"another CA only", bundle(other), time.Time{}},
		{"no ca.crt", t.TempDir(), time.Time{}},
		{"no cert dir", "", time.Time{}},
	} {
		got := signingCA(leaf, tt.dir)
		switch {
		case tt.want.IsZero() && got != nil:
			t.Errorf("%s: %v, want none", tt.name, got.NotAfter)
		case !tt.want.IsZero() && (got == nil || !got.NotAfter.Equal(tt.want)):
			t.Errorf("%s: %v, want NotAfter %v", tt.name, got, tt.want)
		}
	}
}
