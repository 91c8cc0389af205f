package webhook

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/go-logr/logr"
)

// secureTLS12Suites are the ECDHE AEAD suites offered when TLS 1.2 is
// allowed (TLS 1.3 suites are not configurable and all AEAD).
var secureTLS12Suites = []uint16{
	tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,
	tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
	tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,
	tls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
	tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,
	tls.TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
}

// newTLSConfig builds the listener's TLS configuration: HTTP/1.1 only, the
// minimum version from opts and, with a client CA, client certificates
// verified when given (the /validate handler then requires one; /convert
// must work without, as the apiserver sends none on conversion calls).
func newTLSConfig(opts *Options, getCert func(*tls.ClientHelloInfo) (*tls.Certificate, error), clientCAs *x509.CertPool) (*tls.Config, error) {
	minVersion, err := parseTLSVersion(opts.TLSMinVersion)
	if err != nil {
		return nil, err
	}
	cfg := &tls.Config{
		MinVersion:     minVersion,
		NextProtos:     []string{"http/1.1"},
		GetCertificate: getCert,
	}
	if minVersion == tls.VersionTLS12 {
		cfg.CipherSuites = secureTLS12Suites
	}
	if clientCAs != nil {
		cfg.ClientCAs = clientCAs
		cfg.ClientAuth = tls.VerifyClientCertIfGiven
	}
	return cfg, nil
}

func loadClientCAs(path string) (*x509.CertPool, error) {
	if path == "" {
		return nil, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading client CA file: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(data) {
		return nil, fmt.Errorf("client CA file %s holds no PEM certificate", path)
	}
	return pool, nil
}

// certReloader serves the key pair in a directory and reloads it when the
// files change. It watches the directory rather than the files, so that
// the atomic symlink swap of a Kubernetes Secret volume (..data renamed)
// is seen, and it also polls as a fallback. A pair that does not load (for
// example a certificate written before its key) leaves the current one in
// place until the next event or poll.
type certReloader struct {
	dir, certPath, keyPath string
	interval               time.Duration
	metrics                *metrics
	log                    logr.Logger

	mu              sync.RWMutex
	cert            *tls.Certificate
	certPEM, keyPEM []byte
}

func newCertReloader(dir string, interval time.Duration, m *metrics, log logr.Logger) (*certReloader, error) {
	c := &certReloader{
		dir: dir, certPath: filepath.Join(dir, CertFileName), keyPath: filepath.Join(dir, KeyFileName),
		interval: interval, metrics: m, log: log,
	}
	if _, err := c.reload(); err != nil {
		return nil, err
	}
	return c, nil
}

// GetCertificate is tls.Config.GetCertificate.
func (c *certReloader) GetCertificate(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.cert, nil
}

// reload reads the pair and swaps it in when it changed and loads.
func (c *certReloader) reload() (bool, error) {
	certPEM, err := os.ReadFile(c.certPath)
	if err != nil {
		c.metrics.certReload(err)
		return false, err
	}
	keyPEM, err := os.ReadFile(c.keyPath)
	if err != nil {
		c.metrics.certReload(err)
		return false, err
	}
	c.mu.RLock()
	same := bytes.Equal(certPEM, c.certPEM) && bytes.Equal(keyPEM, c.keyPEM)
	c.mu.RUnlock()
	if same {
		return false, nil
	}
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		c.metrics.certReload(err)
		return false, fmt.Errorf("loading %s and %s: %w", c.certPath, c.keyPath, err)
	}
	c.mu.Lock()
	c.cert, c.certPEM, c.keyPEM = &pair, certPEM, keyPEM
	c.mu.Unlock()
	c.metrics.certReload(nil)
	return true, nil
}

// Run watches until ctx is done.
func (c *certReloader) Run(ctx context.Context) {
	var events <-chan fsnotify.Event
	var errs <-chan error
	w, err := fsnotify.NewWatcher()
	if err == nil {
		err = w.Add(c.dir)
	}
	if err != nil {
		c.log.Error(err, "Watching the certificate directory failed; polling only", "certDir", c.dir, "interval", c.interval)
	} else {
		defer w.Close()
		events, errs = w.Events, w.Errors
	}
	ticker := time.NewTicker(c.interval)
	defer ticker.Stop()
	for {
		polled := false
		select {
		case <-ctx.Done():
			return
		case _, ok := <-events:
			if !ok {
				events = nil
				continue
			}
		case err, ok := <-errs:
			if !ok {
				errs = nil
				continue
			}
			c.log.Error(err, "Certificate directory watch error", "certDir", c.dir)
			continue
		case <-ticker.C:
			polled = true
		}
		changed, err := c.reload()
		switch {
		case err != nil && polled:
			// Still failing at a poll: not a write in progress.
			c.log.Error(err, "Reloading the serving certificate failed; keeping the current one", "certDir", c.dir)
		case err != nil:
			c.log.V(1).Info("Certificate not reloaded yet", "err", err)
		case changed:
			c.log.Info("Reloaded serving certificate", "certDir", c.dir)
		}
	}
}
