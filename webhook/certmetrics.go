package webhook

import (
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/claimbridge/claimbridge/api"

	"github.com/claimbridge/claimbridge/certs"
)

// certCollector exports the validity window of the serving certificate at
// scrape time (#11: alerts on expiry, dashboard shows its age). It reads the
// dynamiccertificates content the TLS listener serves, wherever Config says
// the pair is (CertFile/KeyFile or CertDir), so it shows exactly what
// clients get after each reload. Before Run loaded a pair, or for content
// that does not parse, it exports nothing.
//
// It also exports the NotAfter of the CA in the cert dir's ca.crt that
// signed the serving certificate (the latest, if several did): with
// cert-manager that is the CA certificate the serving certificate was issued
// under, which cert-manager does not re-issue it from when the CA renews; if
// that CA certificate expires first, the apiserver rejects the serving
// certificate while it is still valid (docs/operations.md, "Certificate
// rotation"), and the serving certificate's own expiry says nothing of it.
type certCollector struct {
	s                   *Server
	notAfter, notBefore *prometheus.Desc
	caNotAfter          *prometheus.Desc
}

func newCertCollector(s *Server) *certCollector {
	return &certCollector{
		s: s,
		notAfter: prometheus.NewDesc("claimbridge_certificate_expiration_timestamp_seconds",
			"NotAfter of the serving certificate, in seconds since the epoch.", nil, nil),
		notBefore: prometheus.NewDesc("claimbridge_certificate_not_before_timestamp_seconds",
			"NotBefore of the serving certificate, in seconds since the epoch (its age is time() minus this).", nil, nil),
		caNotAfter: prometheus.NewDesc("claimbridge_certificate_ca_expiration_timestamp_seconds",
			"NotAfter of the CA certificate in the cert dir's ca.crt that signed the serving certificate (the latest, if several did), in seconds since the epoch.", nil, nil),
	}
}

func (c *certCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.notAfter
	ch <- c.notBefore
	ch <- c.caNotAfter
}

func (c *certCollector) Collect(ch chan<- prometheus.Metric) {
	serving := c.s.serving.Load()
	if serving == nil {
		return
	}
	certPEM, _ := serving.CurrentCertKeyContent()
	cert, err := certs.Leaf(certPEM)
	if err != nil {
		return
	}
	ch <- prometheus.MustNewConstMetric(c.notAfter, prometheus.GaugeValue, float64(cert.NotAfter.Unix()))
	ch <- prometheus.MustNewConstMetric(c.notBefore, prometheus.GaugeValue, float64(cert.NotBefore.Unix()))
	if ca := signingCA(cert, c.s.cfg.CertDir); ca != nil {
		ch <- prometheus.MustNewConstMetric(c.caNotAfter, prometheus.GaugeValue, float64(ca.NotAfter.Unix()))
	}
}

// signingCA returns the certificate of dir's ca.crt that signed leaf and
// expires last, or nil (no cert dir, no ca.crt, or no CA in it that signed
// leaf: a CA the pod is not given).
func signingCA(leaf *x509.Certificate, dir string) *x509.Certificate {
	if dir == "" {
		return nil
	}
	data, err := os.ReadFile(filepath.Join(dir, CAFileName))
	if err != nil {
		return nil
	}
	var best *x509.Certificate
	for {
		var block *pem.Block
		block, data = pem.Decode(data)
		if block == nil {
			return best
		}
		ca, err := x509.ParseCertificate(block.Bytes)
		if err != nil || leaf.CheckSignatureFrom(ca) != nil {
			continue
		}
		if best == nil || ca.NotAfter.After(best.NotAfter) {
			best = ca
		}
	}
}

// registerOpsMetrics adds the certificate collector and creates the panic,
// certificate-reload error and conversion failure and unsupported series at
// zero, so that
// alerts on their increase see a series from the start: one born at 1 with
// the first event shows no increase() until the second (test/monitoring,
// TestSeriesExistBeforeTheirFirstEvent).
func (s *Server) registerOpsMetrics() {
	s.metrics.registry.MustRegister(newCertCollector(s))
	for _, endpoint := range []string{"/convert", "/validate", "/default"} {
		s.metrics.panics.WithLabelValues(endpoint)
	}
	for _, to := range api.ServedVersions {
		for _, from := range api.ServedVersions {
			if from != to {
				s.metrics.conversions.WithLabelValues(from, to, "failure")
			}
			s.metrics.conversions.WithLabelValues(from, to, "unsupported")
		}
		s.metrics.conversions.WithLabelValues("unknown", to, "unsupported")
	}
	s.metrics.certReloads.WithLabelValues("error")
	for _, reason := range handshakeReasons {
		s.metrics.handshakeErrors.WithLabelValues(reason)
	}
}
