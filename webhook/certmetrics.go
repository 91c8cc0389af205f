package webhook

import (
	"crypto/x509"
	"encoding/pem"
	"net/http"
	"os"
	"path/filepath"

	"github.com/prometheus/client_golang/prometheus"
)

// certFileCollector exports the validity window of the serving certificate
// file at scrape time (#11: alerts on expiry, dashboard shows its age). It
// reads the file rather than the reloader's state so that it works with
// whichever loader serves the certificate; a file that does not parse
// exports nothing, which the expiry alert's absent() clause catches.
type certFileCollector struct {
	path                string
	notAfter, notBefore *prometheus.Desc
}

func newCertFileCollector(certDir string) *certFileCollector {
	return &certFileCollector{
		path: filepath.Join(certDir, CertFileName),
		notAfter: prometheus.NewDesc("claimbridge_certificate_expiration_timestamp_seconds",
			"NotAfter of the serving certificate in the cert dir, in seconds since the epoch.", nil, nil),
		notBefore: prometheus.NewDesc("claimbridge_certificate_not_before_timestamp_seconds",
			"NotBefore of the serving certificate in the cert dir, in seconds since the epoch (its age is time() minus this).", nil, nil),
	}
}

func (c *certFileCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.notAfter
	ch <- c.notBefore
}

func (c *certFileCollector) Collect(ch chan<- prometheus.Metric) {
	data, err := os.ReadFile(c.path)
	if err != nil {
		return
	}
	block, _ := pem.Decode(data)
	if block == nil {
		return
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		return
	}
	ch <- prometheus.MustNewConstMetric(c.notAfter, prometheus.GaugeValue, float64(cert.NotAfter.Unix()))
	ch <- prometheus.MustNewConstMetric(c.notBefore, prometheus.GaugeValue, float64(cert.NotBefore.Unix()))
}

// registerOpsMetrics adds the certificate collector and creates the panic
// and certificate-reload error series at zero, so that alerts on their
// increase see a series from the start (test/monitoring checks that every
// name the alerts use is exported).
func (s *Server) registerOpsMetrics() {
	s.metrics.registry.MustRegister(newCertFileCollector(s.opts.CertDir))
	for _, endpoint := range []string{"/convert", "/validate"} {
		s.metrics.panics.WithLabelValues(endpoint)
	}
	s.metrics.certReloads.WithLabelValues("error")
}

// MetricsHandler serves the server's Prometheus registry; the command
// mounts it behind authentication when metrics are secure (#11).
func (s *Server) MetricsHandler() http.Handler { return s.metrics.handler() }
