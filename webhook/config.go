// Package webhook serves claimbridge's webhooks over TLS: conversion
// (/convert), validation (/validate) and defaulting (/default), with health
// probes and metrics beside them. It is transport only: a handler decodes a
// review, calls the conversion, validation or defaulting package and
// encodes the answer.
package webhook

import (
	"cmp"
	"crypto/tls"
	"errors"
	"net/http"
	"runtime"
	"time"

	"github.com/claimbridge/claimbridge/conversion"
	"github.com/claimbridge/claimbridge/validation"
)

// Config configures a Server. A zero field means what its comment says.
type Config struct {
	// BindAddress is the IP address of the TLS listener; "" binds all.
	BindAddress string
	// Port is the TLS port; 0 picks a free one (see Server.Addr).
	Port int

	// CertFile and KeyFile, when set, are the serving pair. Otherwise CertDir
	// holds tls.crt and tls.key, generated with a CA when it holds neither.
	// The files are reloaded when they change.
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
	// MetricsFilter, if set, protects /metrics, which is then served over
	// HTTPS with the webhook's serving certificate.
	MetricsFilter func(http.Handler) (http.Handler, error)
	// TokenPolicyGauge exports claimbridge_token_policy_enforced, -1 until
	// Server.SetTokenPolicyEnforced reports a verdict.
	TokenPolicyGauge bool
	// Profiling serves net/http/pprof on the health probe listener.
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
	// ShutdownDrain is how long Run keeps serving, /readyz failing, once
	// its context is done.
	ShutdownDrain time.Duration
	// ShutdownTimeout bounds the wait for in-flight requests.
	ShutdownTimeout time.Duration

	// Converter converts one object; nil means conversion.ConvertShared.
	Converter ConvertFunc
	// Validator validates one admission request; nil means
	// validation.Validate.
	Validator ValidateFunc
	// Guard, when set, serves the upgrade guard on /guard.
	Guard *Guard
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

// complete fills in zero values, or fails for a Config no server can run.
func (c Config) complete() (Config, error) {
	if (c.CertFile == "") != (c.KeyFile == "") {
		return c, errors.New("config: CertFile and KeyFile must be set together")
	}
	if c.CertFile == "" && c.CertDir == "" {
		return c, errors.New("config: CertDir or CertFile and KeyFile must be set")
	}
	c.MinTLSVersion = cmp.Or(c.MinTLSVersion, tls.VersionTLS13)
	if c.MinTLSVersion < tls.VersionTLS12 {
		return c, errors.New("config: MinTLSVersion must be TLS 1.2 or later")
	}
	if c.CipherSuites == nil {
		c.CipherSuites = DefaultCipherSuites
	}
	if c.MaxInFlight < 0 || c.MaxQueueWait < 0 || c.ConversionCacheBytes < 0 {
		return c, errors.New("config: MaxInFlight, MaxQueueWait and ConversionCacheBytes must not be negative")
	}
	c.MaxInFlight = cmp.Or(c.MaxInFlight, DefaultMaxInFlight())
	c.MaxQueueWait = cmp.Or(c.MaxQueueWait, DefaultMaxQueueWait)
	c.RequestTimeout = cmp.Or(c.RequestTimeout, 30*time.Second)
	if c.Converter == nil {
		c.Converter = conversion.ConvertShared
	}
	if c.Validator == nil {
		c.Validator = validation.Validate
	}
	return c, nil
}
