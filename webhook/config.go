// Package webhook serves claimbridge's three webhooks over TLS: the CRD
// conversion webhook (/convert), the validating admission webhook
// (/validate) and the defaulting admission webhook (/default), with health
// probes and Prometheus metrics beside them.
//
// It is transport only. The decisions live in the conversion, validation
// and defaulting packages; a handler decodes a review with encoding/json,
// calls one of them and encodes the answer.
package webhook

import (
	"crypto/tls"
	"errors"
	"net/http"
	"runtime"
	"time"
)

// Config is everything New needs to build a Server. The command line
// (cli.ServeOptions) fills it from flags; tests build it directly. A zero
// value means what its field's comment says.
type Config struct {
	// BindAddress is the IP address of the TLS listener; "" binds all.
	BindAddress string
	// Port is the TLS port; 0 picks a free one (see Server.Addr).
	Port int

	// CertFile and KeyFile, when both set, are the serving pair. Otherwise
	// CertDir holds tls.crt and tls.key; when it holds neither, a CA and
	// a serving certificate are generated into it. The files are reloaded
	// when they change.
	CertDir, CertFile, KeyFile string
	// DNSNames are added to a generated serving certificate, beside
	// localhost, 127.0.0.1 and ::1.
	DNSNames []string
	// ClientCAFile, if set, is a PEM bundle, reloaded when it changes.
	// /validate and /default then require a client certificate it
	// verifies. /convert never does: the apiserver presents none there.
	ClientCAFile string
	// MinTLSVersion is the lowest TLS version accepted; 0 means TLS 1.3.
	MinTLSVersion uint16
	// CipherSuites are the TLS 1.2 suites; nil means DefaultCipherSuites.
	CipherSuites []uint16

	// HealthProbeAddress serves /healthz and /readyz over HTTP; "" disables.
	HealthProbeAddress string
	// MetricsAddress serves /metrics; "" disables. It is plain HTTP
	// unless MetricsFilter is set.
	MetricsAddress string
	// MetricsFilter, if set, protects /metrics (authentication and
	// authorization), which is then served over HTTPS with the serving
	// certificate of the webhook listener.
	MetricsFilter func(http.Handler) (http.Handler, error)
	// TokenPolicyGauge exports claimbridge_token_policy_enforced, -1 until
	// Server.SetTokenPolicyEnforced reports a verdict.
	TokenPolicyGauge bool
	// Profiling serves net/http/pprof under /debug/pprof/ on the health
	// probe listener.
	Profiling bool

	// MaxConvertBodyBytes caps a /convert body and MaxValidateBodyBytes a
	// /validate or /default body.
	MaxConvertBodyBytes, MaxValidateBodyBytes int64
	// MaxJSONDepth is the deepest JSON nesting of a review; 0: no limit.
	MaxJSONDepth int
	// MaxHeaderBytes caps request headers.
	MaxHeaderBytes int
	// MaxInFlight is the number of reviews processed at once; 0 means
	// DefaultMaxInFlight().
	MaxInFlight int
	// MaxQueueWait is the longest a review waits for a slot before it is
	// shed; 0 means DefaultMaxQueueWait.
	MaxQueueWait time.Duration
	// ConversionCacheBytes bounds the conversion cache; 0 turns it off.
	ConversionCacheBytes int64

	// ReadHeaderTimeout, ReadTimeout, WriteTimeout and IdleTimeout are the
	// http.Server timeouts of every listener; 0 means none.
	ReadHeaderTimeout, ReadTimeout, WriteTimeout, IdleTimeout time.Duration
	// RequestTimeout is the deadline of one review, unless the apiserver's
	// ?timeout= is shorter.
	RequestTimeout time.Duration
	// ShutdownDrain is how long the server keeps serving with /readyz
	// failing after its context is done.
	ShutdownDrain time.Duration
	// ShutdownTimeout bounds the wait for in-flight requests.
	ShutdownTimeout time.Duration

	// Converter converts one object; nil means conversion.Convert.
	Converter ConvertFunc
	// Validator validates one admission request; nil means
	// validation.Validate.
	Validator ValidateFunc
}

// DefaultCipherSuites are the TLS 1.2 suites offered unless configured:
// ECDHE key exchange with AEAD ciphers only.
var DefaultCipherSuites = []uint16{
	tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,
	tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
	tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,
	tls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
	tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,
	tls.TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
}

// DefaultMaxQueueWait is the default of Config.MaxQueueWait.
const DefaultMaxQueueWait = 250 * time.Millisecond

// DefaultMaxInFlight is twice GOMAXPROCS, at least 8: reviews are
// CPU-bound, and a few beyond the CPUs overlap slow reads and writes.
func DefaultMaxInFlight() int { return max(8, 2*runtime.GOMAXPROCS(0)) }

// complete fills in the meanings of zero values, or fails for a Config no
// server can run with.
func (c Config) complete() (Config, error) {
	if (c.CertFile == "") != (c.KeyFile == "") {
		return c, errors.New("config: CertFile and KeyFile must be set together")
	}
	if c.CertFile == "" && c.CertDir == "" {
		return c, errors.New("config: CertDir or CertFile and KeyFile must be set")
	}
	if c.MinTLSVersion == 0 {
		c.MinTLSVersion = tls.VersionTLS13
	}
	if c.MinTLSVersion < tls.VersionTLS12 {
		return c, errors.New("config: MinTLSVersion must be TLS 1.2 or later")
	}
	if c.CipherSuites == nil {
		c.CipherSuites = DefaultCipherSuites
	}
	if c.MaxInFlight < 0 || c.MaxQueueWait < 0 || c.ConversionCacheBytes < 0 {
		return c, errors.New("config: MaxInFlight, MaxQueueWait and ConversionCacheBytes must not be negative")
	}
	if c.MaxInFlight == 0 {
		c.MaxInFlight = DefaultMaxInFlight()
	}
	if c.MaxQueueWait == 0 {
		c.MaxQueueWait = DefaultMaxQueueWait
	}
	if c.RequestTimeout == 0 {
		c.RequestTimeout = 30 * time.Second
	}
	if c.Converter == nil {
		c.Converter = defaultConverter
	}
	if c.Validator == nil {
		c.Validator = defaultValidator
	}
	return c, nil
}
