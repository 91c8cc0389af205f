package webhook

import (
	"bytes"
	"crypto/x509"
	"io"
	"log"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	certutil "k8s.io/client-go/util/cert"
	"k8s.io/klog/v2"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/certs"
	"github.com/claimbridge/claimbridge/internal/version"
)

// metrics are the series operators use (docs/operations.md).
type metrics struct {
	registry        *prometheus.Registry
	requests        *prometheus.CounterVec
	duration        *prometheus.HistogramVec
	inFlight        *prometheus.GaugeVec
	shed            *prometheus.CounterVec
	conversions     *prometheus.CounterVec
	certReloads     *prometheus.CounterVec
	panics          *prometheus.CounterVec
	handshakeErrors *prometheus.CounterVec
	guardObjects    *prometheus.CounterVec
	guardFindings   *prometheus.CounterVec
	tokenPolicy     prometheus.Gauge // nil unless Config.TokenPolicyGauge
}

func newMetrics(s *Server, tokenPolicy bool) *metrics {
	counter := func(name, help string, labels ...string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, labels)
	}
	m := &metrics{
		registry: prometheus.NewRegistry(),
		requests: counter("claimbridge_webhook_requests_total",
			"Reviews handled, by endpoint, admission operation (empty for /convert) and result (success, failure, allowed, denied, error, bad_request, refused, unauthorized, shed).",
			"endpoint", "operation", "result"),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "claimbridge_webhook_request_duration_seconds",
			Help:    "Time from a review's arrival to its answer, by endpoint and result.",
			Buckets: prometheus.ExponentialBuckets(0.0005, 2, 17),
		}, []string{"endpoint", "result"}),
		inFlight: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "claimbridge_webhook_requests_in_flight",
			Help: "Requests being handled, by endpoint.",
		}, []string{"endpoint"}),
		shed: counter("claimbridge_webhook_shed_total",
			"Reviews not started for want of a slot, by endpoint and reason (wait_expired: no slot within --max-queue-wait; client_gone: the client left or its timeout passed while it waited).",
			"endpoint", "reason"),
		conversions: counter("claimbridge_conversion_objects_total",
			"Objects converted, by source version, target version and result (success, failure, unsupported).", "from", "to", "result"),
		certReloads: counter("claimbridge_certificate_reloads_total", "Loads of the serving certificate, by result.", "result"),
		panics:      counter("claimbridge_webhook_panics_total", "Panics recovered while handling requests, by endpoint.", "endpoint"),
		handshakeErrors: counter("claimbridge_webhook_tls_handshake_errors_total",
			"Failed TLS handshakes on the webhook port, by reason: serving_certificate_rejected (a stale caBundle or a missing DNS name), client_certificate_rejected, not_tls, incompatible, client_gone, other.",
			"reason"),
		guardObjects: counter("claimbridge_guard_objects_total",
			"resource.k8s.io objects the upgrade guard judged, by kind, guarded release and verdict (ready: no finding; not_ready: the release rejects it; warned).",
			"kind", "release", "verdict"),
		guardFindings: counter("claimbridge_guard_findings_total",
			"Findings of the upgrade guard, by kind, reason (rejected, dropped, deprecated, warning) and guarded release.", "kind", "reason", "release"),
	}
	build := version.Get()
	m.registry.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name:        "claimbridge_build_info",
		Help:        "Always 1, labelled with the running build.",
		ConstLabels: prometheus.Labels{"version": build.Version, "revision": build.Revision, "go_version": build.GoVersion},
	}, func() float64 { return 1 }))
	m.registry.MustRegister(m.requests, m.duration, m.inFlight, m.shed, m.conversions, m.certReloads, m.panics, m.handshakeErrors,
		m.guardObjects, m.guardFindings, certCollector{s}, collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	if tokenPolicy {
		m.tokenPolicy = prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "claimbridge_token_policy_enforced",
			Help: "Verdict of the last check that the ValidatingAdmissionPolicy <prefix>ca-injection-only refuses this server's ServiceAccount any change beyond the caBundles: 1 enforced, 0 not enforced, -1 unknown.",
		})
		m.tokenPolicy.Set(-1)
		m.registry.MustRegister(m.tokenPolicy)
	}
	// Series the alerts compare against exist from the start, at 0.
	for _, endpoint := range []string{"/convert", "/validate", "/default"} {
		m.panics.WithLabelValues(endpoint)
		m.shed.WithLabelValues(endpoint, "wait_expired")
	}
	for _, to := range api.ServedVersions {
		for _, from := range append([]string{"unknown"}, api.ServedVersions...) {
			m.conversions.WithLabelValues(from, to, "unsupported")
			if from != to && from != "unknown" {
				m.conversions.WithLabelValues(from, to, "failure")
			}
		}
	}
	if g := s.cfg.Guard; g != nil { // the objects its alert counts
		for _, kind := range []string{api.KindClaim, api.KindTemplate, api.KindDeviceClass, api.KindDeviceTaintRule, api.KindResourceSlice} {
			m.guardObjects.WithLabelValues(kind, g.Release, "not_ready")
		}
	}
	for _, reason := range []string{"serving_certificate_rejected", "client_certificate_rejected", "not_tls", "incompatible", "client_gone", "other"} {
		m.handshakeErrors.WithLabelValues(reason)
	}
	return m
}

func (m *metrics) request(endpoint, operation, result string, start time.Time) {
	m.requests.WithLabelValues(endpoint, operation, result).Inc()
	m.duration.WithLabelValues(endpoint, result).Observe(time.Since(start).Seconds())
}

// guarded counts an object the guard judged and its findings.
func (m *metrics) guarded(kind, release string, errs, warnings []string) {
	verdict := "ready"
	switch {
	case len(errs) > 0:
		verdict = "not_ready"
	case len(warnings) > 0:
		verdict = "warned"
	}
	m.guardObjects.WithLabelValues(kind, release, verdict).Inc()
	if len(errs) > 0 {
		m.guardFindings.WithLabelValues(kind, "rejected", release).Add(float64(len(errs)))
	}
	for _, w := range warnings {
		m.guardFindings.WithLabelValues(kind, guardReason(w), release).Inc()
	}
}

func (m *metrics) conversion(from, to, result string) {
	if !api.IsServed(from) {
		from = "unknown" // the client's string: keep the label's values bounded
	}
	m.conversions.WithLabelValues(from, to, result).Inc()
}

// certCollector exports the serving certificate's validity and that of
// the CA in the cert dir's ca.crt that signed it.
type certCollector struct{ s *Server }

var (
	certNotAfter   = prometheus.NewDesc("claimbridge_certificate_expiration_timestamp_seconds", "NotAfter of the serving certificate, in seconds since the epoch.", nil, nil)
	certNotBefore  = prometheus.NewDesc("claimbridge_certificate_not_before_timestamp_seconds", "NotBefore of the serving certificate, in seconds since the epoch.", nil, nil)
	caCertNotAfter = prometheus.NewDesc("claimbridge_certificate_ca_expiration_timestamp_seconds", "NotAfter of the CA in the cert dir's ca.crt that signed the serving certificate (the latest, if several did).", nil, nil)
)

func (c certCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- certNotAfter
	ch <- certNotBefore
	ch <- caCertNotAfter
}

func (c certCollector) Collect(ch chan<- prometheus.Metric) {
	serving := c.s.serving.Load()
	if serving == nil {
		return
	}
	certPEM, _ := serving.CurrentCertKeyContent()
	cert, err := certs.Leaf(certPEM)
	if err != nil {
		return
	}
	ch <- prometheus.MustNewConstMetric(certNotAfter, prometheus.GaugeValue, float64(cert.NotAfter.Unix()))
	ch <- prometheus.MustNewConstMetric(certNotBefore, prometheus.GaugeValue, float64(cert.NotBefore.Unix()))
	if c.s.cfg.CertDir == "" {
		return
	}
	data, err := os.ReadFile(filepath.Join(c.s.cfg.CertDir, CAFileName))
	if err != nil {
		return
	}
	cas, _ := certutil.ParseCertsPEM(data)
	var best *x509.Certificate
	for _, ca := range cas {
		if cert.CheckSignatureFrom(ca) == nil && (best == nil || ca.NotAfter.After(best.NotAfter)) {
			best = ca
		}
	}
	if best != nil {
		ch <- prometheus.MustNewConstMetric(caCertNotAfter, prometheus.GaugeValue, float64(best.NotAfter.Unix()))
	}
}

// newErrorLog is the webhook http.Server's error log: klog, counting the
// failed TLS handshakes net/http reports there by reason.
func newErrorLog(m *metrics) *log.Logger {
	std := klog.NewStandardLogger("INFO")
	return log.New(handshakeCounter{m: m, next: std.Writer()}, std.Prefix(), std.Flags())
}

type handshakeCounter struct {
	m    *metrics
	next io.Writer
}

func (w handshakeCounter) Write(p []byte) (int, error) {
	const prefix = "http: TLS handshake error from "
	if i := bytes.Index(p, []byte(prefix)); i >= 0 {
		_, reason, _ := strings.Cut(strings.TrimSpace(string(p[i+len(prefix):])), ": ")
		w.m.handshakeErrors.WithLabelValues(handshakeReason(reason)).Inc()
	}
	return w.next.Write(p)
}

// handshakeReason sorts crypto/tls's error text into the reason label.
func handshakeReason(reason string) string {
	has := func(subs ...string) bool {
		return slices.ContainsFunc(subs, func(s string) bool { return strings.Contains(reason, s) })
	}
	switch {
	case strings.Contains(reason, "remote error: tls: ") && has("certificate", "unrecognized name"), reason == "local error: tls: bad record MAC":
		return "serving_certificate_rejected"
	case has("tls: failed to verify certificate", "tls: client didn't provide a certificate", "certificate signed by unknown authority"):
		return "client_certificate_rejected"
	case has("client sent an HTTP request to an HTTPS server", "first record does not look like a TLS handshake", "unsupported SSLv2 handshake", "oversized record"):
		return "not_tls"
	case has("unsupported versions", "protocol version not supported", "no cipher suite", "no ECDHE curve", "no mutually supported", "unsupported application protocols", "remote error: tls: handshake failure"):
		return "incompatible"
	case has("EOF", "connection reset by peer", "broken pipe", "i/o timeout", "use of closed network connection", "context canceled", "deadline exceeded"):
		return "client_gone"
	}
	return "other"
}
