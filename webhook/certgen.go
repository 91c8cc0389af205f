package webhook

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"

	certutil "k8s.io/client-go/util/cert"
)

// File names inside the certificate directory.
const (
	CAFileName   = "ca.crt"
	CertFileName = "tls.crt"
	KeyFileName  = "tls.key"
)

// GenerateCertificates returns a new self-signed CA and a serving
// certificate it signed for localhost, 127.0.0.1, ::1 and dnsNames, valid
// one year, all PEM encoded: client-go's self-signed generator (the one
// kube-apiserver uses without --tls-cert-file), split into the CA and the
// chain. It is the one certificate generator of the project: the server,
// the envtest harness and the cert-manager suite all use it.
func GenerateCertificates(dnsNames []string) (caPEM, certPEM, keyPEM []byte, err error) {
	chain, keyPEM, err := certutil.GenerateSelfSignedCertKey("localhost",
		[]net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback}, dnsNames)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("generating a serving certificate: %w", err)
	}
	certs, err := certutil.ParseCertsPEM(chain)
	if err != nil {
		return nil, nil, nil, err
	}
	if len(certs) != 2 || !certs[1].IsCA {
		return nil, nil, nil, fmt.Errorf("generating a serving certificate: got %d certificates, want the leaf and its CA", len(certs))
	}
	caPEM, err = certutil.EncodeCertificates(certs[1])
	if err != nil {
		return nil, nil, nil, err
	}
	return caPEM, chain, keyPEM, nil
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
		return false, err
	}
	keyExists, err := exists(filepath.Join(dir, KeyFileName))
	if err != nil {
		return false, err
	}
	switch {
	case certExists && keyExists:
		return false, nil
	case certExists != keyExists:
		return false, fmt.Errorf("certificate directory %s holds only one of %s and %s", dir, CertFileName, KeyFileName)
	}
	_, err = WriteCertificates(dir, dnsNames)
	return err == nil, err
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
