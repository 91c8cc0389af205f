package webhook

import (
	"crypto/tls"
	"errors"
	"net/http"
	"runtime"
	"time"
)

// Config is everything New needs to build a Server. It holds plain values:
// the command line (cli.ServeOptions) parses and validates flags into it,
// and tests build it directly. The flag defaults live with the flags; a
// zero value here means what its field's comment says.
type Config struct {
	// BindAddress is the IP address the TLS listener binds to; "" binds all
	// interfaces.
	BindAddress string
	// Port is the TLS port serving /convert, /validate and /default; 0 picks a free
	// port (see Server.Addr).
	Port int

	// CertFile and KeyFile, when both set, are the serving certificate
	// (PEM, the chain's leaf first) and its key. Otherwise CertDir holds
	// them as tls.crt and tls.key; when it holds neither, a CA and a serving
	// certificate are generated into it (ca.crt, tls.crt, tls.key). Either
	// way the files are reloaded when they change.
	CertDir, CertFile, KeyFile string
	// DNSNames are added to the SANs of a generated serving certificate
	// besides localhost, 127.0.0.1 and ::1.
	DNSNames []string
	// ClientCAFile, if set, is a PEM bundle, reloaded when it changes;
	// /validate and /default then require a client certificate that verifies against
	// it. /convert never requires one (the apiserver presents none on
	// conversion calls).
	ClientCAFile string
	// MinTLSVersion is the lowest TLS version accepted (tls.VersionTLS12 or
	// tls.VersionTLS13); 0 means TLS 1.3.
	MinTLSVersion uint16
	// CipherSuites are the TLS 1.2 cipher suites offered; nil means
	// DefaultCipherSuites. TLS 1.3 suites are not configurable.
	CipherSuites []uint16
	// CertReloadInterval is how often the certificate files are re-read as
	// a fallback beside file-system notifications; 0 disables the poll.
	CertReloadInterval time.Duration

	// HealthProbeAddress serves /healthz and /readyz over plain HTTP;
	// "" disables it.
	HealthProbeAddress string
	// MetricsAddress serves Prometheus /metrics; "" disables it. It is
	// plain HTTP unless MetricsFilter is set.
	MetricsAddress string
	// MetricsFilter, if set, protects /metrics (e.g. authentication and
	// authorization, package webhook/securemetrics), and the metrics
	// listener then serves HTTPS with the serving certificate and TLS
	// settings of the webhook listener (same content, same reloads).
	MetricsFilter func(http.Handler) (http.Handler, error)
	// TokenPolicyGauge exports claimbridge_token_policy_enforced, -1
	// (unknown) until Server.SetTokenPolicyEnforced reports a verdict: the
	// command sets it when it checks its token policy (self-managed
	// certificates, --token-policy-check-interval).
	TokenPolicyGauge bool

	// MaxConvertBodyBytes and MaxValidateBodyBytes cap the request body of
	// /convert and of /validate and /default; larger bodies get 413.
	MaxConvertBodyBytes, MaxValidateBodyBytes int64
	// MaxJSONDepth is the deepest JSON nesting accepted in a review body,
	// enforced by the one-pass decoder (or scanned before the slow path
	// decodes); deeper bodies get 400.
	MaxJSONDepth int
	// MaxConnections limits concurrently open TLS connections; 0 means no
	// limit (the command line's default is 32, docs/server.md "Overload").
	MaxConnections int
	// ListenBacklog is the webhook listener's accept queue (listen(2)'s
	// backlog); 0 keeps Go's, the system's net.core.somaxconn. Linux only
	// (backlog_linux.go).
	ListenBacklog int
	// OverloadListenBacklog, with MaxConnections, is the accept queue while
	// the server is overloaded (overloadbacklog.go); 0: never shortened.
	// Linux only.
	OverloadListenBacklog int
	// OverloadRefuseAfter: the accept queue shortened and no connection to
	// spare at every check for this long, the listener refuses new connections between short
	// windows until the overload ends (overloadrefuse.go); 0: never.
	// Linux only.
	OverloadRefuseAfter time.Duration
	// MaxHeaderBytes caps request headers (http.Server.MaxHeaderBytes).
	MaxHeaderBytes int
	// MaxInFlight is the number of reviews processed at once; further
	// reviews wait for a slot (MaxQueueWait) or are shed (shed.go). 0 means
	// DefaultMaxInFlight().
	MaxInFlight int
	// MaxReviewMemory bounds the estimated decoded memory of the large
	// reviews in progress at once (reviewmemory.go): a review body of 16 KiB
	// or more waits for room (as for a slot) or is shed, and one whose
	// estimate alone exceeds it is refused with 413. 0 means no bound (the
	// command line's default is DefaultMaxReviewMemory).
	MaxReviewMemory int64
	// ConversionCacheBytes bounds the conversion cache (convcache.go): the
	// answers to recent ConversionReviews, so that a review equal but for
	// its uid to an earlier one is answered without converting again. 0
	// turns the cache off (the command line's default is 16 MiB).
	ConversionCacheBytes int64
	// MaxQueueWait is the longest a review waits for a slot; one whose
	// expected wait is longer is shed at once. 0 means DefaultMaxQueueWait.
	MaxQueueWait time.Duration
	// Profiling serves Go's net/http/pprof handlers under /debug/pprof/ on
	// the health probe listener (HealthProbeAddress). Off by default: the
	// listener is plain HTTP without authentication.
	Profiling bool
	// ReleaseStartupPages unmaps, once serving, the executable's code and
	// read-only data pages that start-up mapped (Linux; see
	// releaseStartupPages): they stay in the page cache and fault back in
	// when used, and the resident set shrinks to what serving uses.
	ReleaseStartupPages bool

	// ReadHeaderTimeout, ReadTimeout, WriteTimeout and IdleTimeout are the
	// http.Server timeouts of every listener; 0 means none.
	ReadHeaderTimeout, ReadTimeout, WriteTimeout, IdleTimeout time.Duration
	// RequestTimeout is the deadline of one review; conversion stops
	// between objects once it passes.
	RequestTimeout time.Duration
	// ShutdownDrain is how long the server keeps serving after its context
	// is done, with /readyz failing, before the listener closes.
	ShutdownDrain time.Duration
	// ShutdownTimeout bounds waiting for in-flight requests after the
	// listener closed.
	ShutdownTimeout time.Duration

	// Converter converts one object; nil means conversion.ConvertShared
	// (conversion.Convert without copying what it does not change). It
	// must keep no reference to the object or its result after it returns
	// (ConvertFunc: the handler reuses the object's maps).
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

// DefaultMaxReviewMemory is the command line's default of
// Config.MaxReviewMemory: half of config/manager's 256 MiB memory limit,
// which leaves the other half for the small reviews (the slots bound them),
// the bodies read ahead, the connections, the conversion cache and the
// collector's room. It admits any claim the apiserver stores (etcd's 1.5 MiB)
// but one dense in tiny values.
const DefaultMaxReviewMemory = 128 << 20

// DefaultMaxQueueWait is the default of Config.MaxQueueWait and
// --max-queue-wait.
const DefaultMaxQueueWait = time.Second

// DefaultMaxInFlight is twice GOMAXPROCS, at least 8: reviews are
// CPU-bound, so more at once only makes each slower, but a few beyond the
// CPUs overlap the writes of responses to slow readers. It is the default
// of Config.MaxInFlight and --max-in-flight.
func DefaultMaxInFlight() int { return max(8, 2*runtime.GOMAXPROCS(0)) }

// complete returns a copy of c with the documented meanings of its zero
// values filled in, or an error for a Config no server can run with.
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
	if c.MaxInFlight < 0 || c.MaxQueueWait < 0 || c.ConversionCacheBytes < 0 || c.MaxReviewMemory < 0 {
		return c, errors.New("config: MaxInFlight, MaxQueueWait, ConversionCacheBytes and MaxReviewMemory must not be negative")
	}
	if c.MaxInFlight == 0 {
		c.MaxInFlight = DefaultMaxInFlight()
	}
	if c.MaxQueueWait == 0 {
		c.MaxQueueWait = DefaultMaxQueueWait
	}
	if c.Converter == nil {
		c.Converter = defaultConverter
	}
	if c.Validator == nil {
		c.Validator = defaultValidator
	}
	return c, nil
}
