// Package server runs `claimbridge serve`: its Options (flags, defaults and
// their checks) and the start of the webhook server with its certificates,
// metrics and signals.
package server

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

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/certs/selfmanaged"
	"github.com/claimbridge/claimbridge/webhook"
)

// Options are the flags of `claimbridge serve`. NewOptions holds
// every default; --help, docs/server.md and Config read them from there.
// Adding a flag: a field here with its default in NewOptions, a line
// in Flags, a check in Validate and a field of webhook.Config that Config
// fills.
type Options struct {
	// BindAddress is the IP address of the TLS listener. Default "" (all).
	BindAddress string
	// Port is the TLS port; 0 picks a free one. Default 9443.
	Port int
	// CertDir holds tls.crt and tls.key, or gets a generated CA and serving
	// certificate when it holds neither. Default <temp-dir>/claimbridge/serving-certs.
	CertDir string
	// TLSCertFile and TLSPrivateKeyFile name the serving pair directly.
	TLSCertFile, TLSPrivateKeyFile string
	// DNSNames are extra SANs of a generated certificate.
	DNSNames []string
	// ClientCAFile makes /validate and /default require a client
	// certificate it verifies.
	ClientCAFile string
	// TLSMinVersion is a component-base TLS version name. Default VersionTLS13.
	TLSMinVersion string
	// TLSCipherSuites are the TLS 1.2 suites. Default webhook.DefaultCipherSuites.
	TLSCipherSuites []string

	// HealthProbeBindAddress serves /healthz and /readyz; "0" disables. Default ":8081".
	HealthProbeBindAddress string
	// MetricsBindAddress serves /metrics; "0" disables. Default "0": off,
	// as kubebuilder projects do; the chart and kustomize turn it on.
	MetricsBindAddress string
	// MetricsSecure serves /metrics over HTTPS behind TokenReview and
	// SubjectAccessReview, which needs the Kubernetes API. Default true.
	MetricsSecure bool
	// Profiling serves /debug/pprof/ on the health probe listener.
	Profiling bool

	// MaxConvertBodyBytes caps a ConversionReview. Default 64 MiB.
	MaxConvertBodyBytes int64
	// MaxValidateBodyBytes caps an AdmissionReview. Default 7 MiB: two
	// 3 MiB objects (old and new) plus 1 MiB.
	MaxValidateBodyBytes int64
	// MaxJSONDepth is the deepest nesting accepted. Default 1000.
	MaxJSONDepth int
	// MaxHeaderBytes caps request headers. Default 64 KiB.
	MaxHeaderBytes int
	// MaxInFlight is the number of reviews processed at once; 0 means
	// webhook.DefaultMaxInFlight(), resolved at start. Default 0.
	MaxInFlight int
	// MaxQueueWait is the longest a review waits for a slot. Default 250ms.
	MaxQueueWait time.Duration
	// ConversionCacheBytes bounds the conversion cache; 0 turns it off.
	// Default 16 MiB.
	ConversionCacheBytes int64

	// ReadHeaderTimeout bounds the TLS handshake and headers. Default 10s.
	ReadHeaderTimeout time.Duration
	// ReadTimeout bounds reading a whole request. Default 30s.
	ReadTimeout time.Duration
	// WriteTimeout bounds handling and writing a response. Default 60s.
	WriteTimeout time.Duration
	// IdleTimeout closes idle keep-alive connections. Default 120s.
	IdleTimeout time.Duration
	// RequestTimeout is the deadline of one review, unless the apiserver's
	// ?timeout= is shorter. Default 30s.
	RequestTimeout time.Duration
	// ShutdownDrain keeps serving after SIGTERM with /readyz failing. Default 5s.
	ShutdownDrain time.Duration
	// ShutdownTimeout bounds waiting for in-flight requests. Default 30s.
	ShutdownTimeout time.Duration

	// CertMode is where the serving certificate comes from: "files" or
	// "self-managed" (certs/selfmanaged keeps it in CertSecret and writes
	// it into CertDir). Default "files".
	CertMode string
	// CertSecret is <namespace>/<name> of the self-managed Secret; a name
	// alone means $POD_NAMESPACE/<name>. Default "claimbridge-webhook-server-cert".
	CertSecret string
	// CertInjectCRDs get the CA in their conversion caBundle (self-managed).
	// Default the two claimbridge CRDs.
	CertInjectCRDs []string
	// CertInjectValidatingWebhookConfiguration gets the CA (self-managed).
	// Default "claimbridge-validating-webhook-configuration".
	CertInjectValidatingWebhookConfiguration string
	// CertInjectMutatingWebhookConfiguration gets the CA (self-managed).
	// Default "": an image rolled out before the manifests that install it
	// must not wait for one it may not read.
	CertInjectMutatingWebhookConfiguration string
	// CertDuration and CertRenewBefore: validity and renewal of the
	// self-managed certificate. Defaults one year and 90 days.
	CertDuration, CertRenewBefore time.Duration
	// TokenPolicyCheckInterval is how often, self-managed, the server checks
	// that the token policy refuses its ServiceAccount a change beyond the
	// caBundles; 0 disables it. Default 0.
	TokenPolicyCheckInterval time.Duration
	// Kubeconfig is the kubeconfig file, when the server needs the API.
	Kubeconfig string

	// Guard serves the upgrade guard on /guard: every resource.k8s.io write
	// is told what the guarded release will do with it. Default false.
	Guard bool
	// GuardTo is the release the guard judges for; "" is the release after
	// the cluster's (/version). Default "".
	GuardTo string
	// GuardEnforce denies what the guarded release rejects. Default false:
	// a warning.
	GuardEnforce bool
	// GuardFeatureGates and GuardRuntimeConfig are the guarded release's
	// kube-apiserver flags, over those the cluster runs with. Default "".
	GuardFeatureGates, GuardRuntimeConfig string
	// Judge is `claimbridge validate --to`'s verdict on one object for
	// cluster c (beyond: the release after the newest, or 0); the CLI sets
	// it, and the guard needs it.
	Judge func(obj map[string]interface{}, c api.Cluster, beyond int) (errs, warnings []string)

	// LogFormat is "text" or "json". Default "text".
	LogFormat string
	// Verbosity is the klog verbosity. Default 0.
	Verbosity int
}

// NewOptions returns the options with every default set.
func NewOptions() *Options {
	suites := make([]string, len(webhook.DefaultCipherSuites))
	for i, id := range webhook.DefaultCipherSuites {
		suites[i] = tls.CipherSuiteName(id)
	}
	return &Options{
		Port:                   9443,
		CertDir:                filepath.Join(os.TempDir(), "claimbridge", "serving-certs"),
		TLSMinVersion:          "VersionTLS13",
		TLSCipherSuites:        suites,
		HealthProbeBindAddress: ":8081",
		MetricsBindAddress:     "0",
		MetricsSecure:          true,
		MaxConvertBodyBytes:    64 << 20,
		MaxValidateBodyBytes:   7 << 20,
		MaxJSONDepth:           1000,
		MaxHeaderBytes:         64 << 10,
		MaxQueueWait:           webhook.DefaultMaxQueueWait,
		ConversionCacheBytes:   16 << 20,
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
	}
}

// AddFlags binds every flag to fs and returns them by group (Flags).
func (o *Options) AddFlags(fs *pflag.FlagSet) cliflag.NamedFlagSets {
	nfs := o.Flags()
	for _, name := range nfs.Order {
		fs.AddFlagSet(nfs.FlagSets[name])
	}
	return nfs
}

// Flags binds the options to flag sets by group, in the order --help
// shows them; the current values are the defaults shown.
func (o *Options) Flags() cliflag.NamedFlagSets {
	var nfs cliflag.NamedFlagSets
	fs := nfs.FlagSet("serving")
	fs.StringVar(&o.BindAddress, "bind-address", o.BindAddress, "IP address of the TLS listener (empty: all interfaces).")
	fs.IntVar(&o.Port, "port", o.Port, "TLS port serving /convert, /validate and /default (0: pick a free port).")
	fs.StringVar(&o.TLSMinVersion, "tls-min-version", o.TLSMinVersion, "Minimum TLS version: VersionTLS12 or VersionTLS13.")
	fs.StringSliceVar(&o.TLSCipherSuites, "tls-cipher-suites", o.TLSCipherSuites, "TLS 1.2 cipher suites, comma-separated; insecure suites are refused. Possible values: "+strings.Join(secureCipherNames(), ", ")+".")
	fs.StringVar(&o.ClientCAFile, "client-ca-file", o.ClientCAFile, "PEM CA bundle, reloaded on change. If set, /validate and /default require a client certificate it verifies; /convert requires none.")

	fs = nfs.FlagSet("certificates")
	fs.StringVar(&o.CertMode, "cert-mode", o.CertMode, `Where the serving certificate comes from: "files" (--tls-cert-file or --cert-dir, e.g. mounted by cert-manager) or "self-managed" (kept in --cert-secret, CA injected, renewed before expiry).`)
	fs.StringVar(&o.CertDir, "cert-dir", o.CertDir, "Directory holding tls.crt and tls.key, reloaded on change. If it holds neither, a CA and serving certificate are generated into it (ca.crt, tls.crt, tls.key).")
	fs.StringVar(&o.TLSCertFile, "tls-cert-file", o.TLSCertFile, "PEM serving certificate (leaf first), reloaded on change; replaces the pair in --cert-dir.")
	fs.StringVar(&o.TLSPrivateKeyFile, "tls-private-key-file", o.TLSPrivateKeyFile, "PEM private key of --tls-cert-file.")
	fs.StringArrayVar(&o.DNSNames, "dns-name", o.DNSNames, "DNS name of a generated serving certificate, e.g. claimbridge-webhook.claimbridge-system.svc (repeatable; localhost, 127.0.0.1 and ::1 are always in it).")
	fs.StringVar(&o.CertSecret, "cert-secret", o.CertSecret, "Self-managed: the Secret holding the CA and serving certificate, <namespace>/<name> or <name> in $POD_NAMESPACE. It must exist.")
	fs.StringArrayVar(&o.CertInjectCRDs, "cert-inject-crd", o.CertInjectCRDs, "Self-managed: CRD whose conversion webhook gets the CA (repeatable; an empty value names none).")
	fs.StringVar(&o.CertInjectValidatingWebhookConfiguration, "cert-inject-validating-webhook-configuration", o.CertInjectValidatingWebhookConfiguration, "Self-managed: ValidatingWebhookConfiguration whose webhooks get the CA (empty: none).")
	fs.StringVar(&o.CertInjectMutatingWebhookConfiguration, "cert-inject-mutating-webhook-configuration", o.CertInjectMutatingWebhookConfiguration, "Self-managed: MutatingWebhookConfiguration whose webhooks get the CA (empty: none).")
	fs.DurationVar(&o.CertDuration, "cert-duration", o.CertDuration, "Self-managed: validity of the serving certificate.")
	fs.DurationVar(&o.CertRenewBefore, "cert-renew-before", o.CertRenewBefore, "Self-managed: renew the serving certificate (and the CA) this long before it expires.")
	fs.DurationVar(&o.TokenPolicyCheckInterval, "token-policy-check-interval", o.TokenPolicyCheckInterval, "Self-managed: how often to check that the ValidatingAdmissionPolicy <prefix>ca-injection-only refuses this ServiceAccount any change beyond the caBundles (0: never; else at least 1s).")
	fs.StringVar(&o.Kubeconfig, "kubeconfig", o.Kubeconfig, "Kubeconfig for the Kubernetes API, needed only by --cert-mode=self-managed and secure metrics (empty: $KUBECONFIG, in-cluster, ~/.kube/config).")

	fs = nfs.FlagSet("probes and metrics")
	fs.StringVar(&o.HealthProbeBindAddress, "health-probe-bind-address", o.HealthProbeBindAddress, `Address serving /healthz and /readyz over HTTP ("0": off).`)
	fs.StringVar(&o.MetricsBindAddress, "metrics-bind-address", o.MetricsBindAddress, `Address serving Prometheus /metrics, e.g. :8443 ("0": off).`)
	fs.BoolVar(&o.MetricsSecure, "metrics-secure", o.MetricsSecure, "Serve /metrics over HTTPS to clients the API server authenticates and authorises; needs a kubeconfig or in-cluster config. false: plain HTTP.")
	fs.BoolVar(&o.Profiling, "profiling", o.Profiling, "Serve pprof under /debug/pprof/ on the health probe address (plain HTTP, no authentication).")

	fs = nfs.FlagSet("limits")
	fs.IntVar(&o.MaxInFlight, "max-in-flight", o.MaxInFlight, "Reviews processed at once (0: twice GOMAXPROCS, at least 8).")
	fs.DurationVar(&o.MaxQueueWait, "max-queue-wait", o.MaxQueueWait, "Longest wait for a slot. Past it /convert answers 429 with Retry-After, and admission a denial with code 429.")
	fs.Int64Var(&o.MaxConvertBodyBytes, "max-convert-body-bytes", o.MaxConvertBodyBytes, "Largest ConversionReview accepted.")
	fs.Int64Var(&o.MaxValidateBodyBytes, "max-validate-body-bytes", o.MaxValidateBodyBytes, "Largest AdmissionReview accepted.")
	fs.IntVar(&o.MaxJSONDepth, "max-json-depth", o.MaxJSONDepth, "Deepest JSON nesting accepted in a review.")
	fs.IntVar(&o.MaxHeaderBytes, "max-header-bytes", o.MaxHeaderBytes, "Largest request header block accepted.")
	fs.Int64Var(&o.ConversionCacheBytes, "conversion-cache-bytes", o.ConversionCacheBytes, "Memory for recent conversions, reused when kube-apiserver converts the same object again (0: off).")

	fs = nfs.FlagSet("timeouts")
	fs.DurationVar(&o.ReadHeaderTimeout, "read-header-timeout", o.ReadHeaderTimeout, "Time allowed for the TLS handshake and request headers.")
	fs.DurationVar(&o.ReadTimeout, "read-timeout", o.ReadTimeout, "Time allowed for reading a whole request.")
	fs.DurationVar(&o.WriteTimeout, "write-timeout", o.WriteTimeout, "Time allowed for handling a request and writing its response.")
	fs.DurationVar(&o.IdleTimeout, "idle-timeout", o.IdleTimeout, "Idle keep-alive connections are closed after this long.")
	fs.DurationVar(&o.RequestTimeout, "request-timeout", o.RequestTimeout, "Deadline of one review, or the apiserver's ?timeout= when shorter.")
	fs.DurationVar(&o.ShutdownDrain, "shutdown-drain", o.ShutdownDrain, "After SIGTERM, keep serving this long with /readyz failing.")
	fs.DurationVar(&o.ShutdownTimeout, "shutdown-timeout", o.ShutdownTimeout, "Then wait at most this long for in-flight requests.")

	fs = nfs.FlagSet("upgrade guard")
	fs.BoolVar(&o.Guard, "guard", o.Guard, "Serve the upgrade guard on /guard: admit every resource.k8s.io write with warnings of what the guarded release will reject or drop (needs the Kubernetes API).")
	fs.StringVar(&o.GuardTo, "guard-to", o.GuardTo, "The release the guard judges for, as validate --to takes it (empty: the release after the cluster's).")
	fs.BoolVar(&o.GuardEnforce, "guard-enforce", o.GuardEnforce, "Deny, instead of warn of, what the guarded release would reject.")
	fs.StringVar(&o.GuardFeatureGates, "guard-feature-gates", o.GuardFeatureGates, "The guarded release's --feature-gates, over those the cluster runs with (read from its /metrics).")
	fs.StringVar(&o.GuardRuntimeConfig, "guard-runtime-config", o.GuardRuntimeConfig, "The guarded release's --runtime-config, over the versions the cluster serves.")

	fs = nfs.FlagSet("logging")
	fs.StringVar(&o.LogFormat, "log-format", o.LogFormat, `Log format: "text" or "json".`)
	fs.IntVarP(&o.Verbosity, "v", "v", o.Verbosity, "Log verbosity; 4 logs every review (never object contents).")

	return nfs
}

// Validate reports every unusable flag, by its name.
func (o *Options) Validate() error {
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
	if !o.Guard && (o.GuardTo != "" || o.GuardEnforce || o.GuardFeatureGates != "" || o.GuardRuntimeConfig != "") {
		errs = append(errs, errors.New("--guard-to, --guard-enforce, --guard-feature-gates and --guard-runtime-config: need --guard"))
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
		flag   string
		v      int64
		zeroOK bool
	}{
		{"--max-convert-body-bytes", o.MaxConvertBodyBytes, false},
		{"--max-validate-body-bytes", o.MaxValidateBodyBytes, false},
		{"--max-json-depth", int64(o.MaxJSONDepth), false},
		{"--max-header-bytes", int64(o.MaxHeaderBytes), false},
		{"--max-queue-wait", int64(o.MaxQueueWait), false},
		{"--read-header-timeout", int64(o.ReadHeaderTimeout), false},
		{"--read-timeout", int64(o.ReadTimeout), false},
		{"--write-timeout", int64(o.WriteTimeout), false},
		{"--idle-timeout", int64(o.IdleTimeout), false},
		{"--request-timeout", int64(o.RequestTimeout), false},
		{"--shutdown-timeout", int64(o.ShutdownTimeout), false},
		{"--max-in-flight", int64(o.MaxInFlight), true},
		{"--conversion-cache-bytes", o.ConversionCacheBytes, true},
		{"--shutdown-drain", int64(o.ShutdownDrain), true},
		{"--token-policy-check-interval", int64(o.TokenPolicyCheckInterval), true},
		{"-v", int64(o.Verbosity), true},
	} {
		switch {
		case p.v < 0 && p.zeroOK:
			errs = append(errs, fmt.Errorf("%s: must not be negative", p.flag))
		case p.v <= 0 && !p.zeroOK:
			errs = append(errs, fmt.Errorf("%s: must be greater than zero", p.flag))
		}
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
func (o *Options) Config() (webhook.Config, error) {
	if err := o.Validate(); err != nil {
		return webhook.Config{}, err
	}
	minVersion, _ := o.minTLSVersion()
	suites, _ := o.cipherSuites()
	return webhook.Config{
		BindAddress:          o.BindAddress,
		Port:                 o.Port,
		CertDir:              o.CertDir,
		CertFile:             o.TLSCertFile,
		KeyFile:              o.TLSPrivateKeyFile,
		DNSNames:             o.DNSNames,
		ClientCAFile:         o.ClientCAFile,
		MinTLSVersion:        minVersion,
		CipherSuites:         suites,
		HealthProbeAddress:   enabled(o.HealthProbeBindAddress),
		MetricsAddress:       enabled(o.MetricsBindAddress),
		MaxConvertBodyBytes:  o.MaxConvertBodyBytes,
		MaxValidateBodyBytes: o.MaxValidateBodyBytes,
		MaxJSONDepth:         o.MaxJSONDepth,
		MaxHeaderBytes:       o.MaxHeaderBytes,
		MaxInFlight:          o.MaxInFlight,
		MaxQueueWait:         o.MaxQueueWait,
		Profiling:            o.Profiling,
		ConversionCacheBytes: o.ConversionCacheBytes,
		ReadHeaderTimeout:    o.ReadHeaderTimeout,
		ReadTimeout:          o.ReadTimeout,
		WriteTimeout:         o.WriteTimeout,
		IdleTimeout:          o.IdleTimeout,
		RequestTimeout:       o.RequestTimeout,
		ShutdownDrain:        o.ShutdownDrain,
		ShutdownTimeout:      o.ShutdownTimeout,
		TokenPolicyGauge:     o.TokenPolicyCheckInterval > 0,
	}, nil
}

// DeprecatedTLSVersions are the spellings --tls-min-version accepted before
// it took component-base's names.
var DeprecatedTLSVersions = map[string]string{"1.2": "VersionTLS12", "1.3": "VersionTLS13"}

// minTLSVersion parses --tls-min-version with component-base; TLS 1.0 and
// 1.1 are refused.
func (o *Options) minTLSVersion() (uint16, error) {
	name := o.TLSMinVersion
	if n, ok := DeprecatedTLSVersions[name]; ok {
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
func (o *Options) cipherSuites() ([]uint16, error) {
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
	names := slices.DeleteFunc(cliflag.TLSCipherPossibleValues(), func(n string) bool { _, bad := insecure[n]; return bad })
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
