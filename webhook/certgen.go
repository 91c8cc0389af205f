package webhook

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// File names inside the certificate directory.
const (
	CAFileName   = "ca.crt"
	CertFileName = "tls.crt"
	KeyFileName  = "tls.key"
)

// Validity of generated certificates.
const (
	generatedCAValidity   = 10 * 365 * 24 * time.Hour
	generatedCertValidity = 365 * 24 * time.Hour
)

// ensureCertificates generates a CA and a serving certificate into dir when
// it holds neither tls.crt nor tls.key. It reports whether it generated.
// One file without the other is an error rather than silently overwritten.
func ensureCertificates(dir string, dnsNames []string) (bool, error) {
	certPath, keyPath := filepath.Join(dir, CertFileName), filepath.Join(dir, KeyFileName)
	certExists, err := exists(certPath)
	if err != nil {
		return false, err
	}
	keyExists, err := exists(keyPath)
	if err != nil {
		return false, err
	}
	switch {
	case certExists && keyExists:
		return false, nil
	case certExists != keyExists:
		return false, fmt.Errorf("certificate directory %s holds only one of %s and %s", dir, CertFileName, KeyFileName)
	}
	caPEM, certPEM, keyPEM, err := GenerateCertificates(dnsNames)
	if err != nil {
		return false, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return false, fmt.Errorf("creating certificate directory: %w", err)
	}
	// The key is written first and the certificate last: a reader that
	// sees tls.crt also sees the matching key.
	for _, f := range []struct {
		name string
		data []byte
		mode os.FileMode
	}{{CAFileName, caPEM, 0o644}, {KeyFileName, keyPEM, 0o600}, {CertFileName, certPEM, 0o644}} {
		if err := writeFileAtomic(filepath.Join(dir, f.name), f.data, f.mode); err != nil {
			return false, err
		}
	}
	return true, nil
}

func exists(path string) (bool, error) {
	_, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}

// writeFileAtomic writes data to a temporary file and renames it into place.
func writeFileAtomic(path string, data []byte, mode os.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if err := f.Chmod(mode); err != nil {
		f.Close()
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

// GenerateCertificates returns a new self-signed CA and a serving
// certificate it signed for localhost, 127.0.0.1, ::1 and dnsNames, all PEM
// encoded. Tests use it to rotate certificates.
func GenerateCertificates(dnsNames []string) (caPEM, certPEM, keyPEM []byte, err error) {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, nil, err
	}
	now := time.Now().Add(-time.Hour) // tolerate clock skew
	caTmpl := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{CommonName: "claimbridge-webhook-ca"},
		NotBefore:             now,
		NotAfter:              now.Add(generatedCAValidity),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
		MaxPathLenZero:        true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, nil, nil, err
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		return nil, nil, nil, err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, nil, err
	}
	names := append([]string{"localhost"}, dnsNames...)
	tmpl := &x509.Certificate{
		SerialNumber: serial(),
		Subject:      pkix.Name{CommonName: names[len(names)-1]},
		NotBefore:    now,
		NotAfter:     now.Add(generatedCertValidity),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames:     names,
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		return nil, nil, nil, err
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, nil, nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}),
		pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}), nil
}

func serial() *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	return n
}
