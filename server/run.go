package server

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"

	"github.com/go-logr/logr"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	logsapi "k8s.io/component-base/logs/api/v1"
	_ "k8s.io/component-base/logs/json/register" // --log-format=json
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/metrics/filters"

	"github.com/claimbridge/claimbridge/certs/selfmanaged"
	"github.com/claimbridge/claimbridge/internal/version"
	"github.com/claimbridge/claimbridge/webhook"
)

// Certificate modes of `serve --cert-mode`.
const (
	// CertModeFiles serves the pair of --tls-cert-file or --cert-dir as it
	// is (mounted from a cert-manager Secret, or generated when absent).
	CertModeFiles = "files"
	// CertModeSelfManaged keeps the certificates in a Secret, injects the CA
	// and writes the files into --cert-dir (package certs/selfmanaged).
	CertModeSelfManaged = "self-managed"
)

// validateOps checks the flags of the certificate modes.
func (o *Options) validateOps() []error {
	var errs []error
	switch o.CertMode {
	case CertModeFiles:
	case CertModeSelfManaged:
		if o.TLSCertFile != "" {
			errs = append(errs, errors.New("--cert-mode=self-managed: writes the pair into --cert-dir; --tls-cert-file and --tls-private-key-file must not be set"))
		}
		c := o.rotatorConfig()
		errs = append(errs, o.byFlag(c.Validate(), c)...)
	default:
		errs = append(errs, fmt.Errorf("--cert-mode %q: must be files or self-managed", o.CertMode))
	}
	return errs
}

// byFlag says the findings of c.Validate in terms of the flags, with what
// to do; c has its durations defaulted.
func (o *Options) byFlag(err error, c selfmanaged.Config) []error {
	var fes []*selfmanaged.FieldError
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range joined.Unwrap() {
			if fe := (*selfmanaged.FieldError)(nil); errors.As(e, &fe) {
				fes = append(fes, fe)
			}
		}
	}
	if err != nil && len(fes) == 0 {
		return []error{fmt.Errorf("--cert-mode=self-managed: %w", err)}
	}
	negative := slices.ContainsFunc(fes, func(fe *selfmanaged.FieldError) bool { return fe.Field == selfmanaged.FieldDurations })
	var out []error
	for _, fe := range fes {
		var msg string
		switch fe.Field {
		case selfmanaged.FieldNamespace:
			msg = fmt.Sprintf("--cert-secret %q names no namespace and $POD_NAMESPACE is empty: pass --cert-secret=<namespace>/<name> or set POD_NAMESPACE", o.CertSecret)
		case selfmanaged.FieldSecretName:
			msg = fmt.Sprintf("--cert-secret %q: must name the Secret", o.CertSecret)
		case selfmanaged.FieldDNSNames:
			switch i := slices.IndexFunc(c.DNSNames, func(n string) bool { return net.ParseIP(n) != nil }); {
			case len(c.DNSNames) == 0:
				msg = "--dns-name: need at least one (the webhook Service's <name>.<namespace>.svc)"
			case slices.Contains(c.DNSNames, ""):
				msg = fmt.Sprintf("--dns-name %q: a name must not be empty", c.DNSNames)
			case i >= 0:
				msg = fmt.Sprintf("--dns-name %q: %s is an IP address; self-managed certificates hold DNS names only (cert-controller's), so give the webhook Service's <name>.<namespace>.svc", c.DNSNames, c.DNSNames[i])
			default:
				msg = fe.Error()
			}
		case selfmanaged.FieldInjectTargets:
			msg = "--cert-inject-crd, --cert-inject-validating-webhook-configuration and --cert-inject-mutating-webhook-configuration: name at least one CRD or webhook configuration to inject the CA into"
		case selfmanaged.FieldDurations:
			msg = "--cert-duration and --cert-renew-before: must not be negative"
		case selfmanaged.FieldLookahead:
			if negative {
				continue // said by the negative duration
			}
			msg = fmt.Sprintf("--cert-renew-before %s: must be shorter than --cert-duration %s", c.LookaheadInterval, c.ServerCertDuration)
		default:
			msg = fe.Error()
		}
		out = append(out, errors.New("--cert-mode=self-managed: "+msg))
	}
	return out
}

// rotatorConfig is the rotator configuration of the flags, not validated.
func (o *Options) rotatorConfig() selfmanaged.Config {
	c := selfmanaged.Config{ServerCertDuration: o.CertDuration, LookaheadInterval: o.CertRenewBefore}
	c.Namespace, c.SecretName = os.Getenv("POD_NAMESPACE"), o.CertSecret
	if ns, name, ok := strings.Cut(o.CertSecret, "/"); ok {
		c.Namespace, c.SecretName = ns, name
	}
	c.CertDir = o.CertDir
	c.DNSNames = o.DNSNames
	// An empty --cert-inject-crd= names no CRD, so that the CA can go to
	// the webhook configurations alone.
	c.CRDNames = slices.DeleteFunc(slices.Clone(o.CertInjectCRDs), func(n string) bool { return n == "" })
	c.ValidatingWebhookConfigurationName = o.CertInjectValidatingWebhookConfiguration
	c.MutatingWebhookConfigurationName = o.CertInjectMutatingWebhookConfiguration
	return c
}

// metricsSecure reports whether /metrics is served behind authentication:
// --metrics-secure with a metrics listener.
func (o *Options) metricsSecure() bool {
	return o.MetricsSecure && enabled(o.MetricsBindAddress) != ""
}

// restConfig is the Kubernetes API's configuration: --kubeconfig's file when
// given, otherwise controller-runtime's lookup.
func (o *Options) restConfig() (*rest.Config, error) {
	if o.Kubeconfig == "" {
		return ctrl.GetConfig()
	}
	c, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(
		&clientcmd.ClientConfigLoadingRules{ExplicitPath: o.Kubeconfig}, &clientcmd.ConfigOverrides{}).ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("--kubeconfig %s: %w", o.Kubeconfig, err)
	}
	return c, nil
}

// errNoAPI explains, naming the flags, why the server needs the Kubernetes
// API it could not find, and how to run without it.
func (o *Options) errNoAPI(err error) error {
	var by, instead []string
	if o.CertMode == CertModeSelfManaged {
		by = append(by, "--cert-mode=self-managed")
		instead = append(instead, "--cert-mode=files")
	}
	if o.Guard {
		by = append(by, "--guard")
		instead = append(instead, "no --guard")
	}
	if o.metricsSecure() {
		by = append(by, "--metrics-secure (the default)")
		instead = append(instead, "--metrics-secure=false (or --metrics-bind-address=0)")
	}
	return fmt.Errorf("%s: the Kubernetes API is needed (a kubeconfig or the in-cluster config); to run without one, e.g. locally, pass %s: %w",
		strings.Join(by, " and "), strings.Join(instead, " and "), err)
}

// metricsFilter protects /metrics as kubebuilder projects do, with
// controller-runtime's filters.WithAuthenticationAndAuthorization: a
// request gets through when the API server authenticates its bearer token
// (TokenReview) and lets its user get /metrics (SubjectAccessReview).
func metricsFilter(restConfig *rest.Config, log logr.Logger) (func(http.Handler) (http.Handler, error), error) {
	httpClient, err := rest.HTTPClientFor(restConfig)
	if err != nil {
		return nil, fmt.Errorf("metrics authentication client: %w", err)
	}
	filter, err := filters.WithAuthenticationAndAuthorization(restConfig, httpClient)
	if err != nil {
		return nil, fmt.Errorf("metrics authentication filter: %w", err)
	}
	return func(h http.Handler) (http.Handler, error) {
		protected, err := filter(log, h)
		if err != nil {
			return nil, fmt.Errorf("metrics authentication filter: %w", err)
		}
		return protected, nil
	}, nil
}

// runWithOps runs the webhook server of cfg with the certificate and metrics
// modes of o. Self-managed, the server starts only once the certificate is
// in --cert-dir and the CA is injected, so /readyz never passes before.
// restConfig nil means the usual lookup, done only when o needs the API:
// self-managed, or with secure metrics.
func runWithOps(ctx context.Context, cfg webhook.Config, o *Options, restConfig *rest.Config) error {
	log := ctrl.LoggerFrom(ctx)
	if restConfig == nil && (o.CertMode == CertModeSelfManaged || o.metricsSecure() || o.Guard) {
		var err error
		if restConfig, err = o.restConfig(); err != nil {
			return &ConfigError{o.errNoAPI(err)}
		}
	}
	if o.metricsSecure() {
		filter, err := metricsFilter(restConfig, log.WithName("metrics"))
		if err != nil {
			return err
		}
		cfg.MetricsFilter = filter
	}
	if o.Guard {
		var err error
		if cfg.Guard, err = o.guard(ctx, restConfig); err != nil {
			return &ConfigError{err}
		}
	}
	s, err := webhook.New(cfg)
	if err != nil {
		return &ConfigError{err}
	}
	if o.CertMode != CertModeSelfManaged {
		return o.nameFlags(s.Run(ctx))
	}

	smc := o.rotatorConfig()
	if err := smc.Validate(); err != nil {
		return &ConfigError{fmt.Errorf("--cert-mode=self-managed: %w", err)}
	}
	r, err := selfmanaged.New(smc, restConfig, log.WithName("certs"))
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	rotErr := make(chan error, 1)
	go func() { rotErr <- r.Run(ctx) }()
	defer func() { cancel(); <-rotErr }()
	log.Info("Waiting for the self-managed certificate and its CA injection", "secret", smc.Namespace+"/"+smc.SecretName)
	select {
	case <-r.Ready():
		log.Info("Certificate in place and CA injected")
	case err := <-rotErr:
		rotErr <- err
		return err
	case <-ctx.Done():
		return nil
	}
	if o.TokenPolicyCheckInterval > 0 {
		// Not part of readiness: a missing policy must not take the webhook down.
		check, err := selfmanaged.NewPolicyCheck(smc, restConfig, o.TokenPolicyCheckInterval, log.WithName("token-policy"),
			func(v selfmanaged.PolicyVerdict) { s.SetTokenPolicyEnforced(float64(v)) })
		if err != nil {
			return err
		}
		checkDone := make(chan struct{})
		go func() { defer close(checkDone); check.Run(ctx) }()
		defer func() { cancel(); <-checkDone }()
	}
	serverDone := make(chan error, 1)
	go func() { serverDone <- o.nameFlags(s.Run(ctx)) }()
	select {
	case err = <-serverDone:
		return err
	case err = <-rotErr:
		rotErr <- err
		if err == nil {
			return <-serverDone
		}
		cancel()
		return errors.Join(err, <-serverDone)
	}
}

// nameFlags prefixes a webhook.SetupError with the flags and values it comes
// from; other errors are returned as they are.
func (o *Options) nameFlags(err error) error {
	var se *webhook.SetupError
	if !errors.As(err, &se) {
		return err
	}
	var flags string
	switch se.Setting {
	case webhook.SettingListener:
		flags = fmt.Sprintf("--port=%d", o.Port)
		if o.BindAddress != "" {
			flags = fmt.Sprintf("--bind-address=%s %s", o.BindAddress, flags)
		}
	case webhook.SettingHealthProbeAddress:
		flags = fmt.Sprintf("--health-probe-bind-address=%s", o.HealthProbeBindAddress)
	case webhook.SettingMetricsAddress:
		flags = fmt.Sprintf("--metrics-bind-address=%s", o.MetricsBindAddress)
	case webhook.SettingServingCertificate:
		flags = fmt.Sprintf("--tls-cert-file=%s --tls-private-key-file=%s", o.TLSCertFile, o.TLSPrivateKeyFile)
	case webhook.SettingCertDir:
		flags = fmt.Sprintf("--cert-dir=%s", o.CertDir)
	case webhook.SettingClientCA:
		flags = fmt.Sprintf("--client-ca-file=%s", o.ClientCAFile)
	default:
		return err
	}
	return fmt.Errorf("%s: %w", flags, err)
}

// ConfigError is a configuration the server cannot use.
type ConfigError struct{ error }

func (e *ConfigError) Unwrap() error { return e.error }

// Run applies the logging options, once per process, and runs the server
// of opts until ctx is done.
func Run(ctx context.Context, opts *Options) error {
	cfg, err := opts.Config()
	if err != nil {
		return &ConfigError{err}
	}
	c := logsapi.NewLoggingConfiguration()
	c.Format = opts.LogFormat
	c.Verbosity = logsapi.VerbosityLevel(opts.Verbosity)
	if err := logsapi.ValidateAndApply(c, nil); err != nil {
		return &ConfigError{err}
	}
	defer klog.Flush()
	ctrl.SetLogger(klog.Background()) // controller-runtime and cert-controller log through klog
	log := klog.Background().WithName("claimbridge")
	v := version.Get()
	log.Info("Starting", "version", v.Version, "revision", v.Revision, "modified", v.Modified, "goVersion", v.GoVersion, "platform", v.Platform)
	return runWithOps(klog.NewContext(ctx, log), cfg, opts, nil)
}
