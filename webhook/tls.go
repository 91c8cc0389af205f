package webhook

import (
	"cmp"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
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

	"github.com/go-logr/logr"
	"k8s.io/apiserver/pkg/server/dynamiccertificates"
	certutil "k8s.io/client-go/util/cert"
	"k8s.io/client-go/util/keyutil"

	"github.com/claimbridge/claimbridge/certs"
)

// File names inside the certificate directory.
const (
	CAFileName   = "ca.crt"
	CertFileName = "tls.crt"
	KeyFileName  = "tls.key"
)

// servingTLS is the listener's TLS on dynamiccertificates, as in
// kube-apiserver: the contents reload their files (following kubelet's
// symlink swaps), the controller builds each handshake's tls.Config.
type servingTLS struct {
	config     *tls.Config
	serving    *dynamiccertificates.DynamicCertKeyPairContent
	clientCA   *dynamiccertificates.DynamicFileCAContent // nil without a client CA
	controller *dynamiccertificates.DynamicServingCertificateController
}

// newServingTLS loads the serving pair and the client CA, which verifies a
// client certificate when one is given. Only HTTP/1.1 is offered.
func newServingTLS(c *Config, certFile, keyFile string, m *metrics, log logr.Logger) (*servingTLS, error) {
	setting := SettingCertDir
	if c.CertFile != "" {
		setting = SettingServingCertificate
	}
	serving, err := dynamiccertificates.NewDynamicServingContentFromFiles("serving-cert", certFile, keyFile)
	if err != nil {
		return nil, setupError(setting, "loading the serving certificate %s and key %s (both PEM, the key the certificate's): %w", certFile, keyFile, err)
	}
	m.certReloads.WithLabelValues("success").Inc()
	base := &tls.Config{MinVersion: c.MinTLSVersion, CipherSuites: c.CipherSuites, NextProtos: []string{"http/1.1"}}
	s := &servingTLS{config: base, serving: serving}
	var clientCA dynamiccertificates.CAContentProvider
	if c.ClientCAFile != "" {
		if s.clientCA, err = dynamiccertificates.NewDynamicCAContentFromFile("client-ca", c.ClientCAFile); err != nil {
			return nil, setupError(SettingClientCA, "loading the client CA bundle %s (PEM certificates): %w", c.ClientCAFile, err)
		}
		base.ClientAuth = tls.VerifyClientCertIfGiven
		clientCA = s.clientCA
	}
	s.controller = dynamiccertificates.NewDynamicServingCertificateController(base, clientCA, serving, nil, nil)
	serving.AddListener(s.controller)
	if s.clientCA != nil {
		s.clientCA.AddListener(s.controller)
	}
	reloaded := reloadListener{m: m, log: log, serving: serving, dnsNames: c.DNSNames}
	serving.AddListener(reloaded)
	reloaded.warn()
	if err := s.controller.RunOnce(); err != nil {
		return nil, setupError(setting, "building the TLS configuration: %w", err)
	}
	base.GetConfigForClient = s.controller.GetConfigForClient
	return s, nil
}

// run reloads the files until ctx is done.
func (s *servingTLS) run(ctx context.Context) {
	go s.serving.Run(ctx, 1)
	if s.clientCA != nil {
		go s.clientCA.Run(ctx, 1)
	}
	go s.controller.Run(1, ctx.Done())
}

// reloadListener counts each new serving pair and logs what makes it
// unusable by clients.
type reloadListener struct {
	m        *metrics
	log      logr.Logger
	serving  *dynamiccertificates.DynamicCertKeyPairContent
	dnsNames []string
}

func (l reloadListener) Enqueue() {
	l.m.certReloads.WithLabelValues("success").Inc()
	l.log.Info("Reloaded serving certificate")
	l.warn()
}

// warn logs, as errors, why clients will refuse the serving certificate:
// outside its validity window, or not valid for a name they dial.
func (l reloadListener) warn() {
	certPEM, _ := l.serving.CurrentCertKeyContent()
	cert, err := certs.Leaf(certPEM)
	var problems []string
	switch now := time.Now(); {
	case err != nil:
		problems = append(problems, err.Error())
	case now.After(cert.NotAfter):
		problems = append(problems, "expired at "+cert.NotAfter.UTC().Format(time.RFC3339))
	case now.Before(cert.NotBefore):
		problems = append(problems, "not valid before "+cert.NotBefore.UTC().Format(time.RFC3339))
	}
	for _, n := range l.dnsNames {
		if cert != nil && cert.VerifyHostname(n) != nil {
			problems = append(problems, fmt.Sprintf("not valid for the DNS name %s (valid for %v)", n, cert.DNSNames))
		}
	}
	for _, p := range problems {
		l.log.Error(nil, "The serving certificate is unusable: clients will refuse it; replace it", "problem", p, "certificate", l.serving.Name())
	}
}

// WriteCertificates generates a new self-signed CA and a serving
// certificate it signed for localhost, 127.0.0.1, ::1 and dnsNames, valid
// one year, into dir as ca.crt, tls.crt (the leaf, then the CA) and
// tls.key, the key before its certificate, and returns the CA in PEM, the
// caBundle. The keys are ECDSA P-256, as in config/ and the chart.
func WriteCertificates(dir string, dnsNames []string) ([]byte, error) {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	ca, err := certutil.NewSelfSignedCACert(certutil.Config{CommonName: fmt.Sprintf("claimbridge-ca@%d", now.Unix()), NotBefore: now.Add(-time.Hour)}, caKey)
	if err != nil {
		return nil, fmt.Errorf("signing the CA: %w", err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	serial, err := rand.Int(rand.Reader, big.NewInt(math.MaxInt64))
	if err != nil {
		return nil, err
	}
	der, err := x509.CreateCertificate(rand.Reader, &x509.Certificate{
		SerialNumber:          serial.Add(serial, big.NewInt(1)),
		Subject:               pkix.Name{CommonName: fmt.Sprintf("localhost@%d", now.Unix())},
		NotBefore:             now.Add(-time.Hour), // clock skew, as client-go's generator allows
		NotAfter:              now.Add(365 * 24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		DNSNames:              append([]string{"localhost"}, dnsNames...),
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
	}, ca, &key.PublicKey, caKey)
	if err != nil {
		return nil, fmt.Errorf("signing the serving certificate: %w", err)
	}
	caPEM := pem.EncodeToMemory(&pem.Block{Type: certutil.CertificateBlockType, Bytes: ca.Raw})
	certPEM := append(pem.EncodeToMemory(&pem.Block{Type: certutil.CertificateBlockType, Bytes: der}), caPEM...)
	keyPEM, err := keyutil.MarshalPrivateKeyToPEM(key)
	if err != nil {
		return nil, err
	}
	if err := certutil.WriteCert(filepath.Join(dir, CAFileName), caPEM); err != nil {
		return nil, err
	}
	if err := keyutil.WriteKey(filepath.Join(dir, KeyFileName), keyPEM); err != nil {
		return nil, err
	}
	return caPEM, certutil.WriteCert(filepath.Join(dir, CertFileName), certPEM)
}

// ensureCertificates generates into dir when it holds neither tls.crt nor
// tls.key, and reports whether it did. One without the other is an error.
func ensureCertificates(dir string, dnsNames []string) (bool, error) {
	certExists, certErr := exists(filepath.Join(dir, CertFileName))
	keyExists, keyErr := exists(filepath.Join(dir, KeyFileName))
	if err := cmp.Or(certErr, keyErr); err != nil {
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
	if _, err := WriteCertificates(dir, dnsNames); err != nil {
		return false, setupError(SettingCertDir, "certificate directory %s holds no %s and %s, and generating them there failed (make the directory writable, or provide the pair): %w", dir, CertFileName, KeyFileName, err)
	}
	return true, nil
}

// exists treats a link to a missing file as an error: it is a Secret
// volume whose data is not there yet, and a pair generated in its place
// would not be the one the apiserver trusts.
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
