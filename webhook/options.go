package webhook

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"time"

	"github.com/spf13/pflag"
)

// Options configures the webhook server. NewOptions returns it with every
// default set; AddFlags binds each field to a command-line flag.
type Options struct {
	// BindAddress is the IP address the TLS webhook listener binds to.
	// Default "" (all interfaces).
	BindAddress string
	// Port is the TLS port serving /convert and /validate. Default 9443;
	// 0 picks a free port (see Server.Addr).
	Port int
	// CertDir holds tls.crt and tls.key, reloaded on change. When it holds
	// neither, a CA and serving certificate are generated and written into it
	// (ca.crt, tls.crt, tls.key). Default <temp-dir>/claimbridge/serving-certs.
	CertDir string
	// DNSNames are added to the SANs of a generated serving certificate
	// besides localhost and 127.0.0.1, e.g. <service>.<namespace>.svc.
	// Default none.
	DNSNames []string
	// ClientCAFile, if set, is a PEM bundle; /validate then requires a client
	// certificate that verifies against it. /convert never requires one (the
	// apiserver presents none on conversion calls). Default "" (no check).
	ClientCAFile string
	// TLSMinVersion is the lowest TLS version accepted: "1.2" or "1.3".
	// With 1.2 only ECDHE AEAD cipher suites are offered. Default "1.3".
	TLSMinVersion string

	// HealthProbeBindAddress serves /healthz and /readyz over plain HTTP.
	// Default ":8081"; "0" disables.
	HealthProbeBindAddress string
	// MetricsBindAddress serves Prometheus /metrics over plain HTTP.
	// Default ":8080"; "0" disables.
	MetricsBindAddress string

	// MaxConvertBodyBytes caps a ConversionReview body; larger bodies get
	// 413. Default 64 MiB (see docs/server.md for the sizing).
	MaxConvertBodyBytes int64
	// MaxValidateBodyBytes caps an AdmissionReview body; larger bodies get
	// 413. Default 7 MiB: two 3 MiB objects (old and new) plus 1 MiB.
	MaxValidateBodyBytes int64
	// MaxJSONDepth is the deepest JSON nesting accepted in a review body,
	// checked before decoding; deeper bodies get 400. Default 1000.
	MaxJSONDepth int
	// MaxConnections limits concurrently open TLS connections; 0 means no
	// limit. Default 512: under overload, clients then reuse their
	// keep-alive connections instead of opening new ones whose TLS
	// handshakes compete with the reviews for the CPU (docs/server.md,
	// "Overload"); kube-apiserver keeps at most 25 idle connections per
	// webhook host.
	MaxConnections int
	// MaxHeaderBytes caps request headers. Default 64 KiB.
	MaxHeaderBytes int
	// MaxInFlight is the number of reviews processed at once; further
	// reviews wait (see MaxQueueWait). Default DefaultMaxInFlight(): twice
	// the CPUs usable (GOMAXPROCS), at least 8.
	MaxInFlight int
	// MaxQueueWait is the longest a review waits for a slot; one whose
	// expected wait is longer is shed at once (docs/server.md, "Overload").
	// Default 1s.
	MaxQueueWait time.Duration

	// ReadHeaderTimeout bounds reading the TLS handshake and request headers.
	// Default 10s.
	ReadHeaderTimeout time.Duration
	// ReadTimeout bounds reading a whole request, body included. Default 30s.
	ReadTimeout time.Duration
	// WriteTimeout bounds handling and writing a response, counted from the
	// end of the request headers. Default 60s.
	WriteTimeout time.Duration
	// IdleTimeout closes keep-alive connections idle this long. Default 120s.
	IdleTimeout time.Duration
	// RequestTimeout is the deadline of one review; conversion stops between
	// objects once it passes. Default 30s (the apiserver's own limit).
	RequestTimeout time.Duration
	// ShutdownDrain is how long the server keeps serving after a stop signal
	// with /readyz failing, so endpoints drop it before the listener closes.
	// Default 5s.
	ShutdownDrain time.Duration
	// ShutdownTimeout bounds waiting for in-flight requests after the
	// listener closed. Default 30s.
	ShutdownTimeout time.Duration
	// CertReloadInterval is the poll interval of the certificate reloader,
	// a fallback beside file-system notifications. Default 10s.
	CertReloadInterval time.Duration

	// LogFormat is "text" or "json". Default "text". Applied by the command,
	// not by Run.
	LogFormat string
	// Verbosity is the klog verbosity (-v). Default 0. Applied by the command,
	// not by Run.
	Verbosity int

	// Converter converts one object (no flag). Default conversion.Convert.
	Converter ConvertFunc
	// Validator validates one admission request (no flag). Default
	// validation.Validate.
	Validator ValidateFunc
}

// Defaults, in one place.
const (
	DefaultPort                   = 9443
	DefaultHealthProbeBindAddress = ":8081"
	DefaultMetricsBindAddress     = ":8080"
	DefaultTLSMinVersion          = "1.3"
	DefaultMaxConvertBodyBytes    = 64 << 20
	DefaultMaxValidateBodyBytes   = 7 << 20
	DefaultMaxJSONDepth           = 1000
	DefaultMaxHeaderBytes         = 64 << 10
	DefaultReadHeaderTimeout      = 10 * time.Second
	DefaultReadTimeout            = 30 * time.Second
	DefaultWriteTimeout           = 60 * time.Second
	DefaultIdleTimeout            = 120 * time.Second
	DefaultRequestTimeout         = 30 * time.Second
	DefaultShutdownDrain          = 5 * time.Second
	DefaultShutdownTimeout        = 30 * time.Second
	DefaultCertReloadInterval     = 10 * time.Second
	DefaultMaxQueueWait           = time.Second
	DefaultMaxConnections         = 512
	DefaultLogFormat              = "text"
)

// DefaultMaxInFlight is twice GOMAXPROCS, at least 8: reviews are
// CPU-bound, so more at once only makes each slower, but a few beyond the
// CPUs overlap the writes of responses to slow readers.
func DefaultMaxInFlight() int { return max(8, 2*runtime.GOMAXPROCS(0)) }

// DefaultCertDir is where certificates are read or generated by default.
var DefaultCertDir = filepath.Join(os.TempDir(), "claimbridge", "serving-certs")

// NewOptions returns Options with all defaults set.
func NewOptions() *Options {
	return &Options{
		Port:                   DefaultPort,
		CertDir:                DefaultCertDir,
		TLSMinVersion:          DefaultTLSMinVersion,
		HealthProbeBindAddress: DefaultHealthProbeBindAddress,
		MetricsBindAddress:     DefaultMetricsBindAddress,
		MaxConvertBodyBytes:    DefaultMaxConvertBodyBytes,
		MaxValidateBodyBytes:   DefaultMaxValidateBodyBytes,
		MaxJSONDepth:           DefaultMaxJSONDepth,
		MaxHeaderBytes:         DefaultMaxHeaderBytes,
		MaxInFlight:            DefaultMaxInFlight(),
		MaxConnections:         DefaultMaxConnections,
		MaxQueueWait:           DefaultMaxQueueWait,
		ReadHeaderTimeout:      DefaultReadHeaderTimeout,
		ReadTimeout:            DefaultReadTimeout,
		WriteTimeout:           DefaultWriteTimeout,
		IdleTimeout:            DefaultIdleTimeout,
		RequestTimeout:         DefaultRequestTimeout,
		ShutdownDrain:          DefaultShutdownDrain,
		ShutdownTimeout:        DefaultShutdownTimeout,
		CertReloadInterval:     DefaultCertReloadInterval,
		LogFormat:              DefaultLogFormat,
		Converter:              defaultConverter,
		Validator:              defaultValidator,
	}
}

// AddFlags binds the options to fs; the current values are the defaults
// shown in --help.
func (o *Options) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.BindAddress, "bind-address", o.BindAddress, "IP address the TLS webhook listener binds to (empty: all interfaces).")
	fs.IntVar(&o.Port, "port", o.Port, "TLS port serving /convert and /validate (0: pick a free port).")
	fs.StringVar(&o.CertDir, "cert-dir", o.CertDir, "Directory holding tls.crt and tls.key (reloaded on change); if it holds neither, a CA and serving certificate are generated into it (ca.crt, tls.crt, tls.key).")
	fs.StringArrayVar(&o.DNSNames, "dns-name", o.DNSNames, "DNS name added to a generated serving certificate, e.g. claimbridge.claimbridge-system.svc (repeatable; localhost and 127.0.0.1 are always included).")
	fs.StringVar(&o.ClientCAFile, "client-ca-file", o.ClientCAFile, "PEM CA bundle; if set, /validate requires a client certificate verified by it (/convert never does).")
	fs.StringVar(&o.TLSMinVersion, "tls-min-version", o.TLSMinVersion, `Minimum TLS version: "1.2" (ECDHE AEAD suites only) or "1.3".`)
	fs.StringVar(&o.HealthProbeBindAddress, "health-probe-bind-address", o.HealthProbeBindAddress, `Address serving /healthz and /readyz over HTTP ("0" disables).`)
	fs.StringVar(&o.MetricsBindAddress, "metrics-bind-address", o.MetricsBindAddress, `Address serving Prometheus /metrics over HTTP ("0" disables).`)
	fs.Int64Var(&o.MaxConvertBodyBytes, "max-convert-body-bytes", o.MaxConvertBodyBytes, "Largest ConversionReview body accepted on /convert; larger gets 413.")
	fs.Int64Var(&o.MaxValidateBodyBytes, "max-validate-body-bytes", o.MaxValidateBodyBytes, "Largest AdmissionReview body accepted on /validate; larger gets 413.")
	fs.IntVar(&o.MaxJSONDepth, "max-json-depth", o.MaxJSONDepth, "Deepest JSON nesting accepted in a review body; deeper gets 400.")
	fs.IntVar(&o.MaxConnections, "max-connections", o.MaxConnections, "Maximum concurrently open TLS connections (0: no limit).")
	fs.IntVar(&o.MaxHeaderBytes, "max-header-bytes", o.MaxHeaderBytes, "Largest request header block accepted.")
	fs.IntVar(&o.MaxInFlight, "max-in-flight", o.MaxInFlight, "Reviews processed at once (default: twice GOMAXPROCS, at least 8); others wait for a slot or are shed.")
	fs.DurationVar(&o.MaxQueueWait, "max-queue-wait", o.MaxQueueWait, "Longest wait for a slot; a review expected to wait longer is shed at once (429, retried by kube-apiserver/client-go).")
	fs.DurationVar(&o.ReadHeaderTimeout, "read-header-timeout", o.ReadHeaderTimeout, "Time allowed for the TLS handshake and request headers.")
	fs.DurationVar(&o.ReadTimeout, "read-timeout", o.ReadTimeout, "Time allowed for reading a whole request, body included.")
	fs.DurationVar(&o.WriteTimeout, "write-timeout", o.WriteTimeout, "Time allowed for handling a request and writing its response.")
	fs.DurationVar(&o.IdleTimeout, "idle-timeout", o.IdleTimeout, "Idle keep-alive connections are closed after this long.")
	fs.DurationVar(&o.RequestTimeout, "request-timeout", o.RequestTimeout, "Deadline of one review.")
	fs.DurationVar(&o.ShutdownDrain, "shutdown-drain", o.ShutdownDrain, "After SIGTERM, keep serving this long with /readyz failing before closing the listener.")
	fs.DurationVar(&o.ShutdownTimeout, "shutdown-timeout", o.ShutdownTimeout, "After closing the listener, wait at most this long for in-flight requests.")
	fs.DurationVar(&o.CertReloadInterval, "cert-reload-interval", o.CertReloadInterval, "Poll interval for certificate changes (file-system events trigger reloads sooner).")
	fs.StringVar(&o.LogFormat, "log-format", o.LogFormat, `Log format: "text" or "json".`)
	fs.IntVarP(&o.Verbosity, "v", "v", o.Verbosity, "Log verbosity; 4 logs every review (never object contents).")
}

// Validate reports every unusable option.
func (o *Options) Validate() error {
	var errs []error
	if o.Port < 0 || o.Port > 65535 {
		errs = append(errs, fmt.Errorf("--port %d: must be between 0 and 65535", o.Port))
	}
	if o.BindAddress != "" && net.ParseIP(o.BindAddress) == nil {
		errs = append(errs, fmt.Errorf("--bind-address %q: must be an IP address", o.BindAddress))
	}
	if o.CertDir == "" {
		errs = append(errs, errors.New("--cert-dir: must not be empty"))
	}
	if _, err := parseTLSVersion(o.TLSMinVersion); err != nil {
		errs = append(errs, err)
	}
	for _, a := range []struct{ flag, addr string }{
		{"--health-probe-bind-address", o.HealthProbeBindAddress},
		{"--metrics-bind-address", o.MetricsBindAddress},
	} {
		if err := validateBindAddress(a.addr); err != nil {
			errs = append(errs, fmt.Errorf("%s %q: %w", a.flag, a.addr, err))
		}
	}
	positive := []struct {
		flag string
		v    int64
	}{
		{"--max-convert-body-bytes", o.MaxConvertBodyBytes},
		{"--max-validate-body-bytes", o.MaxValidateBodyBytes},
		{"--max-json-depth", int64(o.MaxJSONDepth)},
		{"--max-header-bytes", int64(o.MaxHeaderBytes)},
		{"--max-in-flight", int64(o.MaxInFlight)},
		{"--max-queue-wait", int64(o.MaxQueueWait)},
		{"--read-header-timeout", int64(o.ReadHeaderTimeout)},
		{"--read-timeout", int64(o.ReadTimeout)},
		{"--write-timeout", int64(o.WriteTimeout)},
		{"--idle-timeout", int64(o.IdleTimeout)},
		{"--request-timeout", int64(o.RequestTimeout)},
		{"--shutdown-timeout", int64(o.ShutdownTimeout)},
		{"--cert-reload-interval", int64(o.CertReloadInterval)},
	}
	for _, p := range positive {
		if p.v <= 0 {
			errs = append(errs, fmt.Errorf("%s: must be greater than zero", p.flag))
		}
	}
	if o.MaxConnections < 0 {
		errs = append(errs, errors.New("--max-connections: must not be negative"))
	}
	if o.ShutdownDrain < 0 {
		errs = append(errs, errors.New("--shutdown-drain: must not be negative"))
	}
	if o.LogFormat != "text" && o.LogFormat != "json" {
		errs = append(errs, fmt.Errorf("--log-format %q: must be text or json", o.LogFormat))
	}
	if o.Verbosity < 0 {
		errs = append(errs, errors.New("-v: must not be negative"))
	}
	if o.Converter == nil {
		errs = append(errs, errors.New("converter: must be set"))
	}
	if o.Validator == nil {
		errs = append(errs, errors.New("validator: must be set"))
	}
	return errors.Join(errs...)
}

// disabled reports whether a plain-HTTP bind address turns its server off.
func disabled(addr string) bool { return addr == "" || addr == "0" }

func validateBindAddress(addr string) error {
	if disabled(addr) {
		return nil
	}
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return errors.New("must be host:port or 0")
	}
	if p, err := strconv.Atoi(port); err != nil || p < 0 || p > 65535 {
		return errors.New("must have a port between 0 and 65535")
	}
	return nil
}

func parseTLSVersion(v string) (uint16, error) {
	switch v {
	case "1.2":
		return tls.VersionTLS12, nil
	case "1.3":
		return tls.VersionTLS13, nil
	}
	return 0, fmt.Errorf("--tls-min-version %q: must be 1.2 or 1.3", v)
}
