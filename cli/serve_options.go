package cli

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"
	cliflag "k8s.io/component-base/cli/flag"

	"github.com/claimbridge/claimbridge/certs/selfmanaged"
	"github.com/claimbridge/claimbridge/webhook"
)

// ServeOptions are the flags of `claimbridge serve`. NewServeOptions holds
// every default, and --help, the README's flag table (checked by a test)
// and Config read them from there. Adding a flag: a field here with its
// default in NewServeOptions, AddFlags, Validate, and a field in
// webhook.Config that Config fills.
type ServeOptions struct {
	// BindAddress is the IP address of the TLS listener. Default "" (all).
	BindAddress string
	// Port is the TLS port; 0 picks a free one. Default 9443.
	Port int
	// CertDir holds tls.crt and tls.key, or gets a generated CA and serving
	// certificate when it holds neither. Default <temp-dir>/claimbridge/serving-certs.
	CertDir string
	// TLSCertFile and TLSPrivateKeyFile name the serving pair directly;
	// CertDir is then not used for it. Default "".
	TLSCertFile, TLSPrivateKeyFile string
	// DNSNames are extra SANs of a generated certificate. Default none.
	DNSNames []string
	// ClientCAFile makes /validate and /default require a client certificate it
	// verifies. Default "".
	ClientCAFile string
	// TLSMinVersion is a component-base TLS version name. Default VersionTLS13.
	TLSMinVersion string
	// TLSCipherSuites are component-base cipher suite names for TLS 1.2.
	// Default the ECDHE AEAD suites (webhook.DefaultCipherSuites).
	TLSCipherSuites []string
	// CertReloadInterval is the poll fallback for certificate changes. Default 10s.
	CertReloadInterval time.Duration

	// HealthProbeBindAddress serves /healthz and /readyz; "0" disables. Default ":8081".
	HealthProbeBindAddress string
	// MetricsBindAddress serves /metrics; "0" disables. Default ":8080".
	MetricsBindAddress string

	// MaxConvertBodyBytes caps a ConversionReview. Default 64 MiB (docs/server.md).
	MaxConvertBodyBytes int64
	// MaxValidateBodyBytes caps an AdmissionReview. Default 7 MiB: two
	// 3 MiB objects (old and new) plus 1 MiB.
	MaxValidateBodyBytes int64
	// MaxJSONDepth is the deepest nesting accepted. Default 1000.
	MaxJSONDepth int
	// MaxConnections limits open TLS connections; 0: no limit. Default
	// 32: under overload, clients then reuse their keep-alive connections
	// instead of opening new ones whose TLS handshakes compete with the
	// reviews for the CPU, and the reviews inside the server (reading,
	// queued, running) stay few; 32 measured better than 8, 16, 128, 256,
	// 512 and 2048 at 2× capacity on two CPUs (docs/server.md, "Overload").
	// Idle connections do not hold places from a client that needs one
	// (webhook/connlimit.go).
	MaxConnections int
	// ListenBacklog is the webhook listener's accept queue; 0: the system's
	// net.core.somaxconn. A connection the kernel accepts into a long
	// queue costs its client a TLS key generation and the server, once the
	// client has given up, a close; a short queue drops the SYN instead,
	// which the client retransmits after 1 s. Short all the time it slows
	// the recovery after an overload; OverloadListenBacklog shortens it only
	// while overloaded (docs/server.md, "Overload").
	ListenBacklog int
	// OverloadListenBacklog is the accept queue while the server is
	// overloaded (a connection waits for a place, none is idle to spare,
	// the accept queue is at least four times this long); restored once
	// the clients have had connections to spare for 2 s. 0: never
	// shortened. Default 64 (webhook/overloadbacklog.go).
	OverloadListenBacklog int
	// OverloadRefuseAfter: the queue shortened and no connection to spare
	// at every check for this long, the listener refuses new connections
	// (the clients' dials fail at once) except for a short window about
	// every 750 ms, until the overload ends, so that the clients' dials do
	// not pile up in their kernels and take their CPU to the ephemeral port
	// search. 0: never. Default 1s (webhook/overloadrefuse.go).
	OverloadRefuseAfter time.Duration
	// MaxHeaderBytes caps request headers. Default 64 KiB.
	MaxHeaderBytes int
	// MaxInFlight is the number of reviews processed at once; 0 means
	// webhook.DefaultMaxInFlight() (twice GOMAXPROCS, at least 8), resolved
	// when the server starts so that --help and the README show the same
	// default on every machine. Default 0.
	MaxInFlight int
	// MaxQueueWait is the longest a review waits for a slot before it is
	// shed. Default 1s.
	MaxQueueWait time.Duration
	// Profiling serves /debug/pprof/ on the health probe listener. Default
	// false.
	Profiling bool
	// MaxReviewMemory bounds the estimated decoded memory of the large
	// reviews in progress (webhook.Config.MaxReviewMemory); 0: no bound.
	MaxReviewMemory int64
	// ConversionCacheBytes bounds the conversion cache; 0 turns it off.
	// Default 16 MiB.
	ConversionCacheBytes int64
	// ReleaseStartupPages unmaps the executable's start-up pages once
	// serving (Linux). Default true.
	ReleaseStartupPages bool

	// ReadHeaderTimeout bounds the TLS handshake and headers. Default 10s.
	ReadHeaderTimeout time.Duration
	// ReadTimeout bounds reading a whole request. Default 30s.
	ReadTimeout time.Duration
	// WriteTimeout bounds handling and writing a response. Default 60s.
	WriteTimeout time.Duration
	// IdleTimeout closes idle keep-alive connections. Default 120s.
	IdleTimeout time.Duration
	// RequestTimeout is the deadline of one review. Default 30s (the
	// apiserver's own limit).
	RequestTimeout time.Duration
	// ShutdownDrain keeps serving after SIGTERM with /readyz failing. Default 5s.
	ShutdownDrain time.Duration
	// ShutdownTimeout bounds waiting for in-flight requests. Default 30s.
	ShutdownTimeout time.Duration

	// CertMode is where the serving certificate comes from: "files"
	// (--tls-cert-file/--tls-private-key-file or --cert-dir as they are)
	// or "self-managed" (certs/selfmanaged keeps it in --cert-secret and
	// writes it into --cert-dir). Default "files".
	CertMode string
	// CertSecret is <namespace>/<name> of the self-managed Secret; a name
	// alone means $POD_NAMESPACE/<name>. Default "claimbridge-webhook-server-cert".
	CertSecret string
	// CertInjectCRDs get the CA in their conversion caBundle (self-managed).
	// Default the two claimbridge CRDs.
	CertInjectCRDs []string
	// CertInjectValidatingWebhookConfiguration gets the CA in its webhooks
	// (self-managed); "" none. Default "claimbridge-validating-webhook-configuration".
	CertInjectValidatingWebhookConfiguration string
	// CertInjectMutatingWebhookConfiguration gets the CA in its webhooks
	// (self-managed); "" none, the default: the manifests name it, and an
	// image rolled out before the manifests that install the configuration
	// (and its RBAC) must not wait for one it may not read.
	CertInjectMutatingWebhookConfiguration string
	// CertDuration is the validity of the self-managed serving certificate;
	// CertRenewBefore is how long before expiry it (and the CA) is renewed.
	// Defaults one year and 90 days.
	CertDuration, CertRenewBefore time.Duration
	// TokenPolicyCheckInterval is how often, in self-managed mode, the
	// server checks that the token policy (ValidatingAdmissionPolicy
	// <prefix>ca-injection-only) refuses its ServiceAccount a change beyond
	// the caBundles, by a dry-run update (certs/selfmanaged PolicyCheck);
	// 0 disables the check. Default 0: only the install knows whether it
	// installed the policy, and the chart and config/self-managed pass 5m
	// when they do.
	TokenPolicyCheckInterval time.Duration
	// MetricsSecure serves /metrics over HTTPS behind TokenReview and
	// SubjectAccessReview, which needs the Kubernetes API (kubeconfig or
	// in-cluster); false serves plain HTTP. Default true: a cluster
	// deployment is protected unless it opts out; running locally passes
	// --metrics-secure=false (README quick start).
	MetricsSecure bool
	// Kubeconfig is the kubeconfig file for the Kubernetes API when the
	// server needs it (self-managed certificates, secure metrics); "" means
	// controller-runtime's lookup: $KUBECONFIG if set, else the in-cluster
	// config, else ~/.kube/config.
	Kubeconfig string

	// LogFormat is "text" or "json". Default "text".
	LogFormat string
	// Verbosity is the klog verbosity. Default 0.
	Verbosity int
}

// NewServeOptions returns the options with every default set.
func NewServeOptions() *ServeOptions {
	suites := make([]string, len(webhook.DefaultCipherSuites))
	for i, id := range webhook.DefaultCipherSuites {
		suites[i] = tls.CipherSuiteName(id)
	}
	return &ServeOptions{
		Port:                   9443,
		CertDir:                filepath.Join(os.TempDir(), "claimbridge", "serving-certs"),
		TLSMinVersion:          "VersionTLS13",
		TLSCipherSuites:        suites,
		CertReloadInterval:     10 * time.Second,
		HealthProbeBindAddress: ":8081",
		MetricsBindAddress:     ":8080",
		MaxConvertBodyBytes:    64 << 20,
		MaxValidateBodyBytes:   7 << 20,
		MaxJSONDepth:           1000,
		MaxHeaderBytes:         64 << 10,
		MaxConnections:         32,
		OverloadListenBacklog:  64,
		OverloadRefuseAfter:    time.Second,
		MaxQueueWait:           webhook.DefaultMaxQueueWait,
		ReleaseStartupPages:    true,
		ConversionCacheBytes:   16 << 20,
		MaxReviewMemory:        webhook.DefaultMaxReviewMemory,
		ReadHeaderTimeout:      10 * time.Second,
		ReadTimeout:            30 * time.Second,
		WriteTimeout:           60 * time.Second,
		IdleTimeout:            120 * time.Second,
		RequestTimeout:         30 * time.Second,
		ShutdownDrain:          5 * time.Second,
		ShutdownTimeout:        30 * time.Second,
		LogFormat:              "text",

		CertMode:                                 CertModeFiles,
		CertSecret:                               "claimbridge-webhook-server-cert",
		CertInjectCRDs:                           []string{"resourceclaims.resource.claimbridge.dev", "resourceclaimtemplates.resource.claimbridge.dev"},
		CertInjectValidatingWebhookConfiguration: "claimbridge-validating-webhook-configuration",
		CertDuration:                             selfmanaged.DefaultServerCertDuration,
		CertRenewBefore:                          selfmanaged.DefaultLookaheadInterval,
		MetricsSecure:                            true,
	}
}

// AddFlags binds the options to fs; the current values are the defaults
// shown in --help.
func (o *ServeOptions) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.BindAddress, "bind-address", o.BindAddress, "IP address the TLS webhook listener binds to (empty: all interfaces).")
	fs.IntVar(&o.Port, "port", o.Port, "TLS port serving /convert, /validate and /default (0: pick a free port).")
	fs.StringVar(&o.CertDir, "cert-dir", o.CertDir, "Directory holding tls.crt and tls.key (reloaded on change); if it holds neither, a CA and serving certificate are generated into it (ca.crt, tls.crt, tls.key). Not used for serving when --tls-cert-file is set.")
	fs.StringVar(&o.TLSCertFile, "tls-cert-file", o.TLSCertFile, "PEM serving certificate (leaf first, then intermediates), reloaded on change; with --tls-private-key-file it replaces the pair in --cert-dir.")
	fs.StringVar(&o.TLSPrivateKeyFile, "tls-private-key-file", o.TLSPrivateKeyFile, "PEM private key of --tls-cert-file.")
	fs.StringArrayVar(&o.DNSNames, "dns-name", o.DNSNames, "DNS name added to a generated serving certificate, e.g. claimbridge-webhook.claimbridge-system.svc (repeatable; localhost, 127.0.0.1 and ::1 are always included; --cert-mode=self-managed needs at least one).")
	fs.StringVar(&o.ClientCAFile, "client-ca-file", o.ClientCAFile, "PEM CA bundle, reloaded on change; if set, /validate and /default require a client certificate verified by it (/convert requires none, but a certificate that is presented must verify on either path, or the TLS handshake fails).")
	fs.StringVar(&o.TLSMinVersion, "tls-min-version", o.TLSMinVersion, `Minimum TLS version: VersionTLS12 or VersionTLS13 ("1.2" and "1.3" are deprecated spellings).`)
	fs.StringSliceVar(&o.TLSCipherSuites, "tls-cipher-suites", o.TLSCipherSuites, "Comma-separated TLS 1.2 cipher suites (TLS 1.3 suites are not configurable); insecure suites are refused. Possible values: "+strings.Join(secureCipherNames(), ", ")+".")
	fs.DurationVar(&o.CertReloadInterval, "cert-reload-interval", o.CertReloadInterval, "Poll interval for certificate changes, 0 or at least 1s (file-system events trigger reloads sooner; the poll counts failed reloads in claimbridge_certificate_reloads_total; 0 disables it).")
	fs.StringVar(&o.HealthProbeBindAddress, "health-probe-bind-address", o.HealthProbeBindAddress, `Address serving /healthz and /readyz over HTTP ("0" disables).`)
	fs.StringVar(&o.MetricsBindAddress, "metrics-bind-address", o.MetricsBindAddress, `Address serving Prometheus /metrics: over HTTPS with --metrics-secure (the default), else over HTTP ("0" disables).`)
	fs.Int64Var(&o.MaxConvertBodyBytes, "max-convert-body-bytes", o.MaxConvertBodyBytes, "Largest ConversionReview body accepted on /convert; larger gets 413.")
	fs.Int64Var(&o.MaxValidateBodyBytes, "max-validate-body-bytes", o.MaxValidateBodyBytes, "Largest AdmissionReview body accepted on /validate and /default; larger gets 413.")
	fs.IntVar(&o.MaxJSONDepth, "max-json-depth", o.MaxJSONDepth, "Deepest JSON nesting accepted in a review body; deeper gets 400.")
	fs.IntVar(&o.MaxConnections, "max-connections", o.MaxConnections, "Maximum concurrently open TLS connections (0: no limit); a connection idle for a second is closed to admit a waiting one, and while none is idle one busy connection a second is closed after its answer.")
	fs.IntVar(&o.ListenBacklog, "listen-backlog", o.ListenBacklog, "Connections the kernel completes and queues for the webhook listener (0: the system's net.core.somaxconn); further connection attempts are dropped and retried by their clients' kernels after 1 s. Linux only.")
	fs.IntVar(&o.OverloadListenBacklog, "overload-listen-backlog", o.OverloadListenBacklog, "Accept queue of the webhook listener while overloaded: when a connection waits for a place (--max-connections), no open connection has been idle (or open without a request) for 100 ms and at least four times this many wait in the accept queue, the queue is shortened to this (surplus connection attempts are dropped and retried by their clients' kernels); it is restored once a place was free or a connection idle for 100 ms at every check for 2 s (0: never shortened). Linux only.")
	fs.DurationVar(&o.OverloadRefuseAfter, "overload-refuse-after", o.OverloadRefuseAfter, "Once the accept queue has been shortened (--overload-listen-backlog), no connection has been to spare at every check (every 250 ms) for this long, and over that time half the reviews waited for a slot or the accept queues dropped 2 SYNs per review, the webhook listener refuses new connections, except for a short window about every 750 ms, until the overload ends: surplus connection attempts fail at once instead of piling up in their clients' kernels (0: never). Linux only.")
	fs.IntVar(&o.MaxHeaderBytes, "max-header-bytes", o.MaxHeaderBytes, "Largest request header block accepted.")
	fs.IntVar(&o.MaxInFlight, "max-in-flight", o.MaxInFlight, "Reviews processed at once (0: twice GOMAXPROCS, at least 8); others wait for a slot or are shed.")
	fs.DurationVar(&o.MaxQueueWait, "max-queue-wait", o.MaxQueueWait, "Longest wait for a slot; a review expected to wait longer is shed at once (a conversion gets 429 with Retry-After, which kube-apiserver retries; a validation gets a denial with code 429, which the writing client retries).")
	fs.BoolVar(&o.Profiling, "profiling", o.Profiling, "Serve Go's pprof profiles under /debug/pprof/ on the health probe listener (plain HTTP, no authentication: keep it off in clusters unless you need a profile).")
	fs.Int64Var(&o.MaxReviewMemory, "max-review-memory", o.MaxReviewMemory, "Estimated memory the large reviews (bodies of 16 KiB or more) may hold at once when decoded and checked (every JSON value becomes a Go value: the estimate counts about 250 bytes each and 10 a byte, so a body dense in small values counts 50–180 times its size; the real binary holds a tenth to a third of the estimate). A large review waits for room as for a slot (or is shed with 429); one that alone needs more is refused with 413. A large body takes twice its announced length before it is read, and one announced longer than a tenth of the bound is refused unread, so that the bodies read ahead are within it too. Raise it with the pod's memory limit (0: no bound).")
	fs.Int64Var(&o.ConversionCacheBytes, "conversion-cache-bytes", o.ConversionCacheBytes, "Memory for the answers to recent ConversionReviews: a review equal to an earlier one but for its uid (the apiserver converts stored objects again on every GET, etcd LIST, watch-cache rebuild and apiserver replica) is answered without converting again; a review larger than 1/256 of this (at least 64 KiB, at most 256 KiB) is not cached. 0 turns the cache off.")
	fs.BoolVar(&o.ReleaseStartupPages, "release-startup-pages", o.ReleaseStartupPages, "Once serving, unmap the executable's code and read-only data pages that start-up mapped (Linux): they stay in the page cache and fault back in when used, so the resident set is what serving uses.")
	fs.DurationVar(&o.ReadHeaderTimeout, "read-header-timeout", o.ReadHeaderTimeout, "Time allowed for the TLS handshake and request headers.")
	fs.DurationVar(&o.ReadTimeout, "read-timeout", o.ReadTimeout, "Time allowed for reading a whole request, body included.")
	fs.DurationVar(&o.WriteTimeout, "write-timeout", o.WriteTimeout, "Time allowed for handling a request and writing its response.")
	fs.DurationVar(&o.IdleTimeout, "idle-timeout", o.IdleTimeout, "Idle keep-alive connections are closed after this long.")
	fs.DurationVar(&o.RequestTimeout, "request-timeout", o.RequestTimeout, "Deadline of one review, from its arrival (its body's read and its wait for a slot count).")
	fs.DurationVar(&o.ShutdownDrain, "shutdown-drain", o.ShutdownDrain, "After SIGTERM, keep serving this long with /readyz failing before closing the listener.")
	fs.DurationVar(&o.ShutdownTimeout, "shutdown-timeout", o.ShutdownTimeout, "After closing the listener, wait at most this long for in-flight requests.")
	fs.StringVar(&o.CertMode, "cert-mode", o.CertMode, `Where the serving certificate comes from: "files" (--tls-cert-file/--tls-private-key-file or --cert-dir as mounted, e.g. by cert-manager; generated into --cert-dir if empty) or "self-managed" (kept in --cert-secret, written into --cert-dir, CA injected into the CRDs and the webhook configuration, renewed before expiry).`)
	fs.StringVar(&o.CertSecret, "cert-secret", o.CertSecret, "Self-managed mode: the Secret holding the CA and serving certificate, <namespace>/<name> or <name> in $POD_NAMESPACE. It must exist.")
	fs.StringArrayVar(&o.CertInjectCRDs, "cert-inject-crd", o.CertInjectCRDs, "Self-managed mode: CRD whose conversion webhook caBundle gets the CA (repeatable; an empty value names none).")
	fs.StringVar(&o.CertInjectValidatingWebhookConfiguration, "cert-inject-validating-webhook-configuration", o.CertInjectValidatingWebhookConfiguration, "Self-managed mode: ValidatingWebhookConfiguration whose webhooks get the CA (empty: none).")
	fs.StringVar(&o.CertInjectMutatingWebhookConfiguration, "cert-inject-mutating-webhook-configuration", o.CertInjectMutatingWebhookConfiguration, "Self-managed mode: MutatingWebhookConfiguration (defaulting) whose webhooks get the CA (empty: none; the manifests name claimbridge-mutating-webhook-configuration).")
	fs.DurationVar(&o.CertDuration, "cert-duration", o.CertDuration, "Self-managed mode: validity of the serving certificate.")
	fs.DurationVar(&o.CertRenewBefore, "cert-renew-before", o.CertRenewBefore, "Self-managed mode: renew the serving certificate (and the CA) this long before it expires.")
	fs.DurationVar(&o.TokenPolicyCheckInterval, "token-policy-check-interval", o.TokenPolicyCheckInterval, "Self-managed mode: check at start and then this often, by a dry-run update of the webhook configuration as the server's ServiceAccount, that the ValidatingAdmissionPolicy <prefix>ca-injection-only refuses it any change beyond the caBundles; the verdict goes to claimbridge_token_policy_enforced and a policy not enforced is logged as an error (0: no check; else at least 1s). Readiness does not depend on it.")
	fs.StringVar(&o.Kubeconfig, "kubeconfig", o.Kubeconfig, "Kubeconfig file for the Kubernetes API, needed only by --cert-mode=self-managed and --metrics-secure; empty: $KUBECONFIG if set, else the in-cluster config, else ~/.kube/config.")
	fs.BoolVar(&o.MetricsSecure, "metrics-secure", o.MetricsSecure, "Serve /metrics over HTTPS (the serving certificate and TLS settings of the webhook listener) to clients the API server authenticates and authorises for GET /metrics; needs a kubeconfig or in-cluster config. false serves plain HTTP without authentication.")
	fs.StringVar(&o.LogFormat, "log-format", o.LogFormat, `Log format: "text" or "json".`)
	fs.IntVarP(&o.Verbosity, "v", "v", o.Verbosity, "Log verbosity; 4 logs every review (never object contents).")
}

// Validate reports every unusable flag, by its name.
func (o *ServeOptions) Validate() error {
	var errs []error
	if o.Port < 0 || o.Port > 65535 {
		errs = append(errs, fmt.Errorf("--port %d: must be between 0 and 65535", o.Port))
	}
	if o.BindAddress != "" && net.ParseIP(o.BindAddress) == nil {
		errs = append(errs, fmt.Errorf("--bind-address %q: must be an IP address", o.BindAddress))
	}
	if (o.TLSCertFile == "") != (o.TLSPrivateKeyFile == "") {
		errs = append(errs, errors.New("--tls-cert-file and --tls-private-key-file: must be set together"))
	}
	if o.TLSCertFile == "" && o.CertDir == "" {
		errs = append(errs, errors.New("--cert-dir: must not be empty without --tls-cert-file"))
	}
	if _, err := o.minTLSVersion(); err != nil {
		errs = append(errs, err)
	}
	if _, err := o.cipherSuites(); err != nil {
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
	for _, p := range []struct {
		flag string
		v    int64
	}{
		{"--max-convert-body-bytes", o.MaxConvertBodyBytes},
		{"--max-validate-body-bytes", o.MaxValidateBodyBytes},
		{"--max-json-depth", int64(o.MaxJSONDepth)},
		{"--max-header-bytes", int64(o.MaxHeaderBytes)},
		{"--max-queue-wait", int64(o.MaxQueueWait)},
		{"--read-header-timeout", int64(o.ReadHeaderTimeout)},
		{"--read-timeout", int64(o.ReadTimeout)},
		{"--write-timeout", int64(o.WriteTimeout)},
		{"--idle-timeout", int64(o.IdleTimeout)},
		{"--request-timeout", int64(o.RequestTimeout)},
		{"--shutdown-timeout", int64(o.ShutdownTimeout)},
	} {
		if p.v <= 0 {
			errs = append(errs, fmt.Errorf("%s: must be greater than zero", p.flag))
		}
	}
	for _, p := range []struct {
		flag string
		v    int64
	}{
		{"--max-connections", int64(o.MaxConnections)},
		{"--listen-backlog", int64(o.ListenBacklog)},
		{"--overload-listen-backlog", int64(o.OverloadListenBacklog)},
		{"--overload-refuse-after", int64(o.OverloadRefuseAfter)},
		{"--max-in-flight", int64(o.MaxInFlight)},
		{"--conversion-cache-bytes", o.ConversionCacheBytes},
		{"--max-review-memory", o.MaxReviewMemory},
		{"--shutdown-drain", int64(o.ShutdownDrain)},
		{"--cert-reload-interval", int64(o.CertReloadInterval)},
		{"--token-policy-check-interval", int64(o.TokenPolicyCheckInterval)},
		{"-v", int64(o.Verbosity)},
	} {
		if p.v < 0 {
			errs = append(errs, fmt.Errorf("%s: must not be negative", p.flag))
		}
	}
	if o.CertReloadInterval > 0 && o.CertReloadInterval < time.Second {
		// Each poll re-reads and parses every certificate file.
		errs = append(errs, fmt.Errorf("--cert-reload-interval %s: must be 0 (no poll) or at least 1s", o.CertReloadInterval))
	}
	if o.TokenPolicyCheckInterval > 0 && o.TokenPolicyCheckInterval < time.Second {
		errs = append(errs, fmt.Errorf("--token-policy-check-interval %s: must be 0 (no check) or at least 1s", o.TokenPolicyCheckInterval))
	}
	if o.TokenPolicyCheckInterval > 0 && o.CertMode != CertModeSelfManaged {
		errs = append(errs, fmt.Errorf("--token-policy-check-interval %s: only with --cert-mode=self-managed (the token policy restricts the ServiceAccount that injects the CA); pass 0", o.TokenPolicyCheckInterval))
	}
	if o.LogFormat != "text" && o.LogFormat != "json" {
		errs = append(errs, fmt.Errorf("--log-format %q: must be text or json", o.LogFormat))
	}
	errs = append(errs, o.validateOps()...)
	return errors.Join(errs...)
}

// Config returns the server configuration of valid options.
func (o *ServeOptions) Config() (webhook.Config, error) {
	if err := o.Validate(); err != nil {
		return webhook.Config{}, err
	}
	minVersion, _ := o.minTLSVersion()
	suites, _ := o.cipherSuites()
	return webhook.Config{
		BindAddress:           o.BindAddress,
		Port:                  o.Port,
		CertDir:               o.CertDir,
		CertFile:              o.TLSCertFile,
		KeyFile:               o.TLSPrivateKeyFile,
		DNSNames:              o.DNSNames,
		ClientCAFile:          o.ClientCAFile,
		MinTLSVersion:         minVersion,
		CipherSuites:          suites,
		CertReloadInterval:    o.CertReloadInterval,
		HealthProbeAddress:    enabled(o.HealthProbeBindAddress),
		MetricsAddress:        enabled(o.MetricsBindAddress),
		MaxConvertBodyBytes:   o.MaxConvertBodyBytes,
		MaxValidateBodyBytes:  o.MaxValidateBodyBytes,
		MaxJSONDepth:          o.MaxJSONDepth,
		MaxConnections:        o.MaxConnections,
		ListenBacklog:         o.ListenBacklog,
		OverloadListenBacklog: o.OverloadListenBacklog,
		OverloadRefuseAfter:   o.OverloadRefuseAfter,
		MaxHeaderBytes:        o.MaxHeaderBytes,
		MaxInFlight:           o.MaxInFlight,
		MaxQueueWait:          o.MaxQueueWait,
		MaxReviewMemory:       o.MaxReviewMemory,
		Profiling:             o.Profiling,
		ReleaseStartupPages:   o.ReleaseStartupPages,
		ConversionCacheBytes:  o.ConversionCacheBytes,
		ReadHeaderTimeout:     o.ReadHeaderTimeout,
		ReadTimeout:           o.ReadTimeout,
		WriteTimeout:          o.WriteTimeout,
		IdleTimeout:           o.IdleTimeout,
		RequestTimeout:        o.RequestTimeout,
		ShutdownDrain:         o.ShutdownDrain,
		ShutdownTimeout:       o.ShutdownTimeout,
		TokenPolicyGauge:      o.TokenPolicyCheckInterval > 0,
	}, nil
}

// deprecatedTLSVersions are the spellings --tls-min-version accepted before
// it took component-base's names.
var deprecatedTLSVersions = map[string]string{"1.2": "VersionTLS12", "1.3": "VersionTLS13"}

// minTLSVersion parses --tls-min-version with component-base; TLS 1.0 and
// 1.1 are refused.
func (o *ServeOptions) minTLSVersion() (uint16, error) {
	name := o.TLSMinVersion
	if n, ok := deprecatedTLSVersions[name]; ok {
		name = n
	}
	v, err := cliflag.TLSVersion(name)
	if err != nil || name == "" || v < tls.VersionTLS12 {
		return 0, fmt.Errorf("--tls-min-version %q: must be VersionTLS12 or VersionTLS13", o.TLSMinVersion)
	}
	return v, nil
}

// cipherSuites parses --tls-cipher-suites with component-base and refuses
// the suites it lists as insecure.
func (o *ServeOptions) cipherSuites() ([]uint16, error) {
	insecure := cliflag.InsecureTLSCiphers()
	for _, n := range o.TLSCipherSuites {
		if _, bad := insecure[n]; bad {
			return nil, fmt.Errorf("--tls-cipher-suites: %s is insecure", n)
		}
	}
	ids, err := cliflag.TLSCipherSuites(o.TLSCipherSuites)
	if err != nil {
		return nil, fmt.Errorf("--tls-cipher-suites: %w", err)
	}
	if len(ids) == 0 {
		return nil, errors.New("--tls-cipher-suites: must name at least one suite")
	}
	return ids, nil
}

// secureCipherNames are the names --tls-cipher-suites accepts.
func secureCipherNames() []string {
	insecure := cliflag.InsecureTLSCiphers()
	var names []string
	for _, n := range cliflag.TLSCipherPossibleValues() {
		if _, bad := insecure[n]; !bad {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return names
}

// enabled maps a plain-HTTP bind address flag to webhook.Config's form:
// "" or "0" disable the listener.
func enabled(addr string) string {
	if addr == "0" {
		return ""
	}
	return addr
}

func validateBindAddress(addr string) error {
	if addr == "" || addr == "0" {
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
