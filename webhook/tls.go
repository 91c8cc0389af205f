package webhook

import (
	"crypto/tls"
	"fmt"
	"net"
	"slices"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apiserver/pkg/server/dynamiccertificates"

	"github.com/claimbridge/claimbridge/certs"
)

// servingTLS is the TLS side of the listener, built on k8s.io/apiserver's
// dynamiccertificates as kube-apiserver and the pod-security-admission
// webhook use them: DynamicCertKeyPairContent serves the key pair and
// DynamicFileCAContent the client CA bundle, both reloaded by Run (a pair
// that does not load, e.g. a certificate written before its key, leaves
// the current one in place), and the DynamicServingCertificateController
// turns them into the tls.Config of every handshake.
type servingTLS struct {
	config *tls.Config
	// serving is the key pair content the handshakes use.
	serving    *dynamiccertificates.DynamicCertKeyPairContent
	controller *dynamiccertificates.DynamicServingCertificateController
	// files are the reloaders of the serving pair and the client CA;
	// only Run's goroutine calls them (certreload.go).
	files []dynamiccertificates.ControllerRunner
	// watchFiles are the files they read, whose directories Run watches.
	watchFiles []string
	interval   time.Duration
	// pollOnly (tests) turns the file watch off: only the poll reloads.
	pollOnly bool
	metrics  *metrics
	log      logr.Logger
}

// newServingTLS loads the serving pair from certFile and keyFile and the
// client CA from c.ClientCAFile. The configuration allows HTTP/1.1 only,
// c.MinTLSVersion and, for TLS 1.2, c.CipherSuites. With a client CA,
// client certificates are verified when given; the /validate handler then
// requires one, /convert must work without (the apiserver sends none on
// conversion calls).
func newServingTLS(c *Config, certFile, keyFile string, m *metrics, log logr.Logger) (*servingTLS, error) {
	serving, err := dynamiccertificates.NewDynamicServingContentFromFiles("serving-cert", certFile, keyFile)
	m.certReload(err)
	if err != nil {
		return nil, setupError(servingSetting(c), "loading the serving certificate %s and key %s (both PEM, the key the certificate's): %w", certFile, keyFile, err)
	}
	base := &tls.Config{
		MinVersion:   c.MinTLSVersion,
		CipherSuites: c.CipherSuites,
		NextProtos:   []string{"http/1.1"},
	}
	s := &servingTLS{config: base, serving: serving, files: []dynamiccertificates.ControllerRunner{serving}, watchFiles: []string{certFile, keyFile},
		interval: c.CertReloadInterval, metrics: m, log: log}
	reloaded := reloadListener{metrics: m, log: log, serving: serving, dnsNames: c.DNSNames}
	reloaded.warn()

	var clientCA dynamiccertificates.CAContentProvider
	if c.ClientCAFile != "" {
		ca, err := dynamiccertificates.NewDynamicCAContentFromFile("client-ca", c.ClientCAFile)
		if err != nil {
			return nil, setupError(SettingClientCA, "loading the client CA bundle %s (PEM certificates): %w", c.ClientCAFile, err)
		}
		base.ClientAuth = tls.VerifyClientCertIfGiven
		clientCA = ca
		s.files = append(s.files, ca)
		s.watchFiles = append(s.watchFiles, c.ClientCAFile)
	}
	s.controller = dynamiccertificates.NewDynamicServingCertificateController(base, clientCA, serving, nil, nil)
	serving.AddListener(s.controller)
	serving.AddListener(reloaded)
	if ca, ok := clientCA.(*dynamiccertificates.DynamicFileCAContent); ok {
		ca.AddListener(s.controller)
	}
	if err := s.controller.RunOnce(); err != nil {
		return nil, &SetupError{Setting: servingSetting(c), Err: fmt.Errorf("building the TLS configuration: %w", err)}
	}
	base.GetConfigForClient = s.controller.GetConfigForClient
	return s, nil
}

// servingSetting is the setting the serving pair of c comes from.
func servingSetting(c *Config) Setting {
	if c.CertFile != "" {
		return SettingServingCertificate
	}
	return SettingCertDir
}

// reloadListener counts and logs each new serving pair, and what makes it
// unusable by clients.
type reloadListener struct {
	metrics  *metrics
	log      logr.Logger
	serving  *dynamiccertificates.DynamicCertKeyPairContent
	dnsNames []string
}

var _ dynamiccertificates.Listener = reloadListener{}

func (l reloadListener) Enqueue() {
	l.metrics.certReload(nil)
	l.log.Info("Reloaded serving certificate")
	l.warn()
}

// warn logs, as errors, what makes the serving certificate unusable by
// clients: the pair loads, so the server serves it, but every handshake
// with it fails.
func (l reloadListener) warn() {
	certPEM, _ := l.serving.CurrentCertKeyContent()
	for _, p := range certificateProblems(certPEM, l.dnsNames, time.Now()) {
		l.log.Error(nil, "The serving certificate is unusable: clients will refuse it; replace it", "problem", p, "certificate", l.serving.Name())
	}
}

// certificateProblems reports what makes the leaf certificate of certPEM
// fail clients' verification at now: outside its validity window, or not
// valid for one of dnsNames (Config.DNSNames, the names clients dial).
func certificateProblems(certPEM []byte, dnsNames []string, now time.Time) []string {
	cert, err := certs.Leaf(certPEM)
	if err != nil {
		return []string{err.Error()}
	}
	var problems []string
	if now.After(cert.NotAfter) {
		problems = append(problems, fmt.Sprintf("expired at %s", cert.NotAfter.UTC().Format(time.RFC3339)))
	}
	if now.Before(cert.NotBefore) {
		problems = append(problems, fmt.Sprintf("not valid before %s", cert.NotBefore.UTC().Format(time.RFC3339)))
	}
	for _, n := range dnsNames {
		if err := cert.VerifyHostname(n); err != nil {
			problems = append(problems, fmt.Sprintf("not valid for the DNS name %s (valid for %v)", n, append(slices.Clone(cert.DNSNames), ipStrings(cert.IPAddresses)...)))
		}
	}
	return problems
}

func ipStrings(ips []net.IP) []string {
	out := make([]string, len(ips))
	for i, ip := range ips {
		out[i] = ip.String()
	}
	return out
}
