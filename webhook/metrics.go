package webhook

import (
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/internal/version"
)

// metrics are the server's Prometheus collectors on its own registry.
type metrics struct {
	registry    *prometheus.Registry
	requests    *prometheus.CounterVec
	duration    *prometheus.HistogramVec
	inFlight    *prometheus.GaugeVec
	conversions *prometheus.CounterVec
	certReloads *prometheus.CounterVec
	panics      *prometheus.CounterVec
	// handshakeErrors counts failed TLS handshakes on the webhook listener
	// by reason (tlserrors.go).
	handshakeErrors *prometheus.CounterVec
	// tokenPolicy is the token policy check's last verdict, nil unless
	// Config.TokenPolicyGauge.
	tokenPolicy prometheus.Gauge
}

func newMetrics() *metrics {
	m := &metrics{
		registry: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "claimbridge_webhook_requests_total",
			Help: "Reviews handled, by endpoint, admission operation (empty for /convert) and result (success, failure, allowed, denied, error, bad_request, refused, unauthorized).",
		}, []string{"endpoint", "operation", "result"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "claimbridge_webhook_request_duration_seconds",
			Help:    "Time from a review's arrival (its headers read) to its answer, by endpoint and result: the read of its body and any wait for a slot included.",
			Buckets: prometheus.ExponentialBuckets(0.0005, 2, 17), // 0.5 ms … 32.8 s: past the 30 s timeouts
		}, []string{"endpoint", "result"}),
		inFlight: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "claimbridge_webhook_requests_in_flight",
			Help: "Requests being handled, by endpoint.",
		}, []string{"endpoint"}),
		conversions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "claimbridge_conversion_objects_total",
			Help: "Objects converted, by source version, target version and result (success, failure, unsupported).",
		}, []string{"from", "to", "result"}),
		certReloads: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "claimbridge_certificate_reloads_total",
			Help: "Loads of the serving certificate (success, error) and failed re-reads of --client-ca-file (error), as the --cert-reload-interval poll finds them.",
		}, []string{"result"}),
		panics: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "claimbridge_webhook_panics_total",
			Help: "Panics recovered while handling requests, by endpoint.",
		}, []string{"endpoint"}),
		handshakeErrors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "claimbridge_webhook_tls_handshake_errors_total",
			Help: "Failed TLS handshakes on the webhook port, by reason: serving_certificate_rejected (the client does not trust the serving certificate: a stale caBundle or a missing DNS name), client_certificate_rejected (not from --client-ca-file's CAs), not_tls, incompatible, client_gone, other.",
		}, []string{"reason"}),
	}
	build := version.Get()
	m.registry.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name:        "claimbridge_build_info",
		Help:        "Always 1, labelled with the running build: its version, the commit it was built from (empty when unknown) and its Go version (claimbridge version).",
		ConstLabels: prometheus.Labels{"version": build.Version, "revision": build.Revision, "go_version": build.GoVersion},
	}, func() float64 { return 1 }))
	m.registry.MustRegister(m.requests, m.duration, m.inFlight, m.conversions, m.certReloads, m.panics, m.handshakeErrors,
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// registerTokenPolicy exports claimbridge_token_policy_enforced at -1
// (unknown) until the first verdict.
func (m *metrics) registerTokenPolicy() {
	m.tokenPolicy = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "claimbridge_token_policy_enforced",
		Help: "Verdict of the last check (--token-policy-check-interval) that the ValidatingAdmissionPolicy <prefix>ca-injection-only refuses this server's ServiceAccount a change beyond the caBundles: 1 enforced (a dry-run change was refused), 0 not enforced (it was allowed), -1 unknown (no check answered yet, or the last answer proved nothing: RBAC, conflict, timeout). Exported only while the check runs.",
	})
	m.tokenPolicy.Set(-1)
	m.registry.MustRegister(m.tokenPolicy)
}

func (m *metrics) request(endpoint, operation, result string, start time.Time) {
	if m == nil {
		return
	}
	m.requests.WithLabelValues(endpoint, operation, result).Inc()
	m.duration.WithLabelValues(endpoint, result).Observe(time.Since(start).Seconds())
}

func (m *metrics) conversion(from, to, result string) {
	if m == nil {
		return
	}
	if !api.IsServed(from) {
		from = "unknown" // keep label cardinality bounded
	}
	m.conversions.WithLabelValues(from, to, result).Inc()
}

func (m *metrics) certReload(err error) {
	if m == nil {
		return
	}
	result := "success"
	if err != nil {
		result = "error"
	}
	m.certReloads.WithLabelValues(result).Inc()
}

// recordPanic counts a recovered panic of endpoint.
func (m *metrics) recordPanic(endpoint string) {
	if m == nil {
		return
	}
	m.panics.WithLabelValues(endpoint).Inc()
}

// instrument tracks in-flight requests of endpoint.
func (m *metrics) instrument(endpoint string, next http.Handler) http.Handler {
	if m == nil {
		return next
	}
	g := m.inFlight.WithLabelValues(endpoint)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		g.Inc()
		defer g.Dec()
		next.ServeHTTP(w, r)
	})
}

func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{Registry: m.registry})
}
