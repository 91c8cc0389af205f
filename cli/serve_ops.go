package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/pflag"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/claimbridge/claimbridge/certs/selfmanaged"
	"github.com/claimbridge/claimbridge/webhook"
	"github.com/claimbridge/claimbridge/webhook/securemetrics"
)

// Certificate modes of `serve --cert-mode`.
const (
	// CertModeFiles serves tls.crt/tls.key from --cert-dir as they are
	// (mounted from a cert-manager Secret, or generated when absent).
	CertModeFiles = "files"
	// CertModeSelfManaged keeps the certificates in a Secret, injects the CA
	// and writes the files into --cert-dir (package certs/selfmanaged).
	CertModeSelfManaged = "self-managed"
)

// opsOptions are the flags of the in-cluster operation modes (#11): where
// the certificates come from and how metrics are protected. Both modes that
// use them need the Kubernetes API; with the defaults of NewOptions plus
// --cert-mode=files --metrics-secure=false the server never calls it.
type opsOptions struct {
	// CertMode is "files" or "self-managed". Default "files".
	CertMode string
	// CertSecret is <namespace>/<name> of the self-managed Secret; a name
	// alone means $POD_NAMESPACE/<name>. Default "claimbridge-webhook-server-cert".
	CertSecret string
	// CRDNames get the CA in their conversion caBundle (self-managed).
	// Default the two claimbridge CRDs.
	CRDNames []string
	// WebhookConfigName is the ValidatingWebhookConfiguration that gets the
	// CA (self-managed). Default "claimbridge-validating-webhook-configuration".
	WebhookConfigName string
	// CertDuration is the validity of the self-managed serving certificate;
	// CertRenewBefore is how long before expiry it (and the CA) is renewed.
	// Defaults one year and 90 days.
	CertDuration, CertRenewBefore time.Duration
	// MetricsSecure serves metrics over HTTPS behind TokenReview and
	// SubjectAccessReview; false serves plain HTTP. Default true.
	MetricsSecure bool
}

func newOpsOptions() *opsOptions {
	return &opsOptions{
		CertMode:          CertModeFiles,
		CertSecret:        "claimbridge-webhook-server-cert",
		CRDNames:          []string{"resourceclaims.resource.claimbridge.dev", "resourceclaimtemplates.resource.claimbridge.dev"},
		WebhookConfigName: "claimbridge-validating-webhook-configuration",
		CertDuration:      selfmanaged.DefaultServerCertDuration,
		CertRenewBefore:   selfmanaged.DefaultLookaheadInterval,
		MetricsSecure:     true,
	}
}

func (o *opsOptions) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.CertMode, "cert-mode", o.CertMode, `Where the serving certificate comes from: "files" (--cert-dir as mounted, e.g. by cert-manager; generated if empty) or "self-managed" (kept in --cert-secret, CA injected into the CRDs and the webhook configuration, renewed before expiry).`)
	fs.StringVar(&o.CertSecret, "cert-secret", o.CertSecret, "Self-managed mode: the Secret holding the CA and serving certificate, <namespace>/<name> or <name> in $POD_NAMESPACE. It must exist.")
	fs.StringArrayVar(&o.CRDNames, "cert-inject-crd", o.CRDNames, "Self-managed mode: CRD whose conversion webhook caBundle gets the CA (repeatable).")
	fs.StringVar(&o.WebhookConfigName, "cert-inject-validating-webhook-configuration", o.WebhookConfigName, "Self-managed mode: ValidatingWebhookConfiguration whose webhooks get the CA (empty: none).")
	fs.DurationVar(&o.CertDuration, "cert-duration", o.CertDuration, "Self-managed mode: validity of the serving certificate.")
	fs.DurationVar(&o.CertRenewBefore, "cert-renew-before", o.CertRenewBefore, "Self-managed mode: renew the serving certificate (and the CA) this long before it expires.")
	fs.BoolVar(&o.MetricsSecure, "metrics-secure", o.MetricsSecure, "Serve /metrics over HTTPS (certificate from --cert-dir) to clients the API server authenticates and authorises for GET /metrics; false serves plain HTTP without authentication.")
}

// selfManagedConfig completes the rotator configuration from the flags.
func (o *opsOptions) selfManagedConfig(opts *webhook.Options) (selfmanaged.Config, error) {
	c := selfmanaged.Config{ServerCertDuration: o.CertDuration, LookaheadInterval: o.CertRenewBefore}
	c.Namespace, c.SecretName = splitNamespacedName(o.CertSecret, os.Getenv("POD_NAMESPACE"))
	c.CertDir = opts.CertDir
	c.DNSNames = opts.DNSNames
	c.CRDNames = o.CRDNames
	c.ValidatingWebhookConfigurationName = o.WebhookConfigName
	if err := c.Validate(); err != nil {
		return c, fmt.Errorf("--cert-mode=self-managed: %w", err)
	}
	return c, nil
}

func (o *opsOptions) Validate(opts *webhook.Options) error {
	var errs []error
	switch o.CertMode {
	case CertModeFiles:
	case CertModeSelfManaged:
		if _, err := o.selfManagedConfig(opts); err != nil {
			errs = append(errs, err)
		}
	default:
		errs = append(errs, fmt.Errorf("--cert-mode %q: must be files or self-managed", o.CertMode))
	}
	return errors.Join(errs...)
}

func splitNamespacedName(s, defaultNamespace string) (namespace, name string) {
	for i := 0; i < len(s); i++ {
		if s[i] == '/' {
			return s[:i], s[i+1:]
		}
	}
	return defaultNamespace, s
}

// needsAPI reports whether the options call the Kubernetes API.
func (o *opsOptions) needsAPI(opts *webhook.Options) bool {
	return o.CertMode == CertModeSelfManaged || (o.MetricsSecure && !disabledAddr(opts.MetricsBindAddress))
}

func disabledAddr(a string) bool { return a == "" || a == "0" }

// runWithOps runs the webhook server with the operation modes: in
// self-managed mode it starts the rotator and starts the server only once
// the certificate is in --cert-dir and the CA is injected (so /readyz never
// passes before); with secure metrics it serves the server's registry on
// --metrics-bind-address over HTTPS behind authentication instead of the
// server's plain listener. restConfig nil means the usual kubeconfig or
// in-cluster lookup.
func runWithOps(ctx context.Context, opts *webhook.Options, o *opsOptions, restConfig *rest.Config) error {
	if err := o.Validate(opts); err != nil {
		return withCode(ExitBadInput, err)
	}
	log := ctrl.LoggerFrom(ctx)
	if restConfig == nil && o.needsAPI(opts) {
		var err error
		if restConfig, err = ctrl.GetConfig(); err != nil {
			return fmt.Errorf("--cert-mode=self-managed and --metrics-secure need the Kubernetes API: %w", err)
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make(chan error, 3)

	if o.CertMode == CertModeSelfManaged {
		cfg, _ := o.selfManagedConfig(opts)
		r, err := selfmanaged.New(cfg, restConfig, log.WithName("certs"))
		if err != nil {
			return err
		}
		rotDone := make(chan struct{})
		defer func() { cancel(); <-rotDone }()
		go func() {
			defer close(rotDone)
			if err := r.Run(ctx); err != nil {
				errs <- err
			}
		}()
		log.Info("Waiting for the self-managed certificate and its CA injection", "secret", cfg.Namespace+"/"+cfg.SecretName)
		select {
		case <-r.Ready():
			log.Info("Certificate in place and CA injected")
		case err := <-errs:
			return err
		case <-ctx.Done():
			return nil
		}
	}

	metricsAddr := opts.MetricsBindAddress
	secure := o.MetricsSecure && !disabledAddr(metricsAddr)
	if secure {
		opts.MetricsBindAddress = "0" // the server's plain listener stays off
	}
	s, err := webhook.New(opts)
	if err != nil {
		return withCode(ExitBadInput, err)
	}
	serverDone := make(chan error, 1)
	go func() { serverDone <- s.Run(ctx) }()
	if secure {
		// After Started the cert dir holds a key pair (mounted, written by
		// the rotator or generated by the server).
		select {
		case <-s.Started():
		case err := <-serverDone:
			return err
		}
		ms, err := securemetrics.Listen(metricsAddr, opts.CertDir, s.MetricsHandler(), restConfig, log.WithName("metrics"))
		if err != nil {
			cancel()
			return errors.Join(err, <-serverDone)
		}
		log.Info("Serving metrics over HTTPS with authentication and authorization", "address", ms.Addr())
		go func() {
			if err := ms.Serve(ctx); err != nil {
				errs <- fmt.Errorf("serving metrics: %w", err)
			}
		}()
	}
	select {
	case err = <-serverDone:
		return err
	case err = <-errs:
		cancel()
		return errors.Join(err, <-serverDone)
	}
}

// Serve runs `claimbridge serve args...` in this process until ctx is done,
// exactly as the binary does (flags, logging, certificate and metrics
// modes); the envtest suites run the real command through it.
func Serve(ctx context.Context, args []string, out, errOut io.Writer) error {
	cmd := newServeCommand(streams{out: out, err: errOut})
	cmd.SetArgs(args)
	cmd.SetOut(out)
	cmd.SetErr(errOut)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	return cmd.ExecuteContext(ctx)
}
