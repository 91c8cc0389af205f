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
	"math"
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

// GenerateCertificates returns a new self-signed CA and a serving
// certificate it signed for localhost, 127.0.0.1, ::1 and dnsNames, valid
// one year, all PEM encoded (tls.crt holds the leaf, then the CA). Both keys
// are ECDSA P-256, as the cert-manager Certificates in config/certmanager
// and the chart: a TLS handshake costs the server one P-256 signature
// (about 30 µs) instead of an RSA-2048 one (about 1 ms), which matters when
// clients open connections faster than reviews finish (docs/server.md,
// "Overload"; BenchmarkTLSHandshake). It is the one certificate generator
// of the project: the server, the envtest harness and the cert-manager
// suite all use it.
func GenerateCertificates(dnsNames []string) (caPEM, certPEM, keyPEM []byte, err error) {
	validFrom := time.Now().Add(-time.Hour) // tolerate clock skew, as client-go's generator does
	validTo := validFrom.Add(365 * 24 * time.Hour)
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("generating the CA key: %w", err)
	}
	caTemplate := &x509.Certificate{
		Subject:               pkix.Name{CommonName: fmt.Sprintf("claimbridge-ca@%d", time.Now().Unix())},
		NotBefore:             validFrom,
		NotAfter:              validTo,
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	caDER, err := createCertificate(caTemplate, caTemplate, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("signing the CA: %w", err)
	}
	caCert, err := x509.ParseCertificate(caDER)
	if err != nil {
		return nil, nil, nil, err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("generating the serving key: %w", err)
	}
	leafDER, err := createCertificate(&x509.Certificate{
		Subject:               pkix.Name{CommonName: fmt.Sprintf("localhost@%d", time.Now().Unix())},
		NotBefore:             validFrom,
		NotAfter:              validTo,
		KeyUsage:              x509.KeyUsageDigitalSignature,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		DNSNames:              append([]string{"localhost"}, dnsNames...),
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
	}, caCert, &key.PublicKey, caKey)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("signing the serving certificate: %w", err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, nil, nil, err
	}
	caPEM = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER})
	certPEM = append(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: leafDER}), caPEM...)
	keyPEM = pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER})
	return caPEM, certPEM, keyPEM, nil
}

// createCertificate signs template with a random serial number in [1, 2^63).
func createCertificate(template, parent *x509.Certificate, pub *ecdsa.PublicKey, signer *ecdsa.PrivateKey) ([]byte, error) {
	serial, err := rand.Int(rand.Reader, big.NewInt(math.MaxInt64-1))
	if err != nil {
		return nil, err
	}
	template.SerialNumber = serial.Add(serial, big.NewInt(1))
	return x509.CreateCertificate(rand.Reader, template, parent, pub, signer)
}

// WriteCertificates generates a CA and a serving certificate (see
// GenerateCertificates) into dir as ca.crt, tls.crt and tls.key (0600) and
// returns the CA in PEM, the caBundle. Each file is replaced atomically, the
// key before the certificate: a reader that sees the new tls.crt also sees
// the matching key.
func WriteCertificates(dir string, dnsNames []string) ([]byte, error) {
	caPEM, certPEM, keyPEM, err := GenerateCertificates(dnsNames)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("creating certificate directory: %w", err)
	}
	for _, f := range []struct {
		name string
		data []byte
		mode os.FileMode
	}{{CAFileName, caPEM, 0o644}, {KeyFileName, keyPEM, 0o600}, {CertFileName, certPEM, 0o644}} {
		if err := writeFileAtomic(filepath.Join(dir, f.name), f.data, f.mode); err != nil {
			return nil, err
		}
	}
	return caPEM, nil
}

// ensureCertificates generates into dir when it holds neither tls.crt nor
// tls.key and reports whether it did. One file without the other is an
// error rather than silently overwritten.
func ensureCertificates(dir string, dnsNames []string) (bool, error) {
	certExists, err := exists(filepath.Join(dir, CertFileName))
	if err != nil {
		return false, setupError(SettingCertDir, "certificate directory %s: %w", dir, err)
	}
	keyExists, err := exists(filepath.Join(dir, KeyFileName))
	if err != nil {
		return false, setupError(SettingCertDir, "certificate directory %s: %w", dir, err)
	}
	switch {
	case certExists && keyExists:
		return false, nil
	case certExists:
		return false, setupError(SettingCertDir, "certificate directory %s holds %s but no %s: add the key, or remove %s to have a pair generated", dir, CertFileName, KeyFileName, CertFileName)
	case keyExists:
		return false, setupError(SettingCertDir, "certificate directory %s holds %s but no %s: add the certificate, or remove %s to have a pair generated", dir, KeyFileName, CertFileName, KeyFileName)
	}
	if _, err = WriteCertificates(dir, dnsNames); err != nil {
		return false, setupError(SettingCertDir, "certificate directory %s holds no %s and %s, and generating them there failed (make the directory writable, or provide the pair): %w", dir, CertFileName, KeyFileName, err)
	}
	return true, nil
}

// A link to a missing file is an error, not "no file": it is the layout of a
// Secret volume whose data is not there (yet), and a pair generated in its
// place would be one the apiserver does not trust.
func exists(path string) (bool, error) {
	_, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		if fi, lerr := os.Lstat(path); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
			target, _ := os.Readlink(path)
			return false, fmt.Errorf("%s is a link to %s, which does not exist: provide the pair it points to, or remove the link to have a pair generated", path, target)
		}
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
