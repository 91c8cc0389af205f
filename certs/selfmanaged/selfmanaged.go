package selfmanaged

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"time"

	"github.com/go-logr/logr"
	"github.com/open-policy-agent/cert-controller/pkg/rotator"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

// Defaults of Config's durations.
const (
	DefaultCACertDuration         = 10 * 365 * 24 * time.Hour
	DefaultServerCertDuration     = 365 * 24 * time.Hour
	DefaultLookaheadInterval      = 90 * 24 * time.Hour
	DefaultRotationCheckFrequency = 12 * time.Hour
)

// Config says which Secret holds the certificates and where the CA goes.
type Config struct {
	// Namespace and SecretName name the Secret; it must exist (the
	// manifests create it empty) so that the RBAC needs no create.
	Namespace, SecretName string
	// CertDir receives ca.crt, tls.crt and tls.key.
	CertDir string
	// DNSNames of the serving certificate; the first is its common name,
	// e.g. claimbridge-webhook.claimbridge-system.svc.
	DNSNames []string
	// CRDNames get the CA in their conversion webhook's caBundle.
	CRDNames []string
	// ValidatingWebhookConfigurationName and MutatingWebhookConfigurationName
	// get the CA in every webhook's caBundle; empty for none.
	ValidatingWebhookConfigurationName, MutatingWebhookConfigurationName string
	// CACertDuration and ServerCertDuration are the validity periods;
	// LookaheadInterval is how long before expiry a certificate is renewed;
	// RotationCheckFrequency is how often expiry is checked. Zero means the
	// Default* constant.
	CACertDuration, ServerCertDuration, LookaheadInterval, RotationCheckFrequency time.Duration
}

// Field names the part of a Config that a FieldError is about.
type Field int

// The fields Validate checks.
const (
	FieldNamespace Field = iota + 1
	FieldSecretName
	FieldCertDir
	FieldDNSNames
	FieldInjectTargets
	FieldLookahead
	FieldDurations
)

// FieldError is one unusable field of a Config, so that a caller can name
// the flag it came from (errors.As on each error Validate joins).
type FieldError struct {
	Field Field
	Err   error
}

func (e *FieldError) Error() string { return e.Err.Error() }
func (e *FieldError) Unwrap() error { return e.Err }

// Validate reports every unusable field, each as a *FieldError, joined.
// It fills in the defaults of the durations.
func (c *Config) Validate() error {
	var errs []error
	add := func(f Field, err error) { errs = append(errs, &FieldError{Field: f, Err: err}) }
	if c.Namespace == "" {
		add(FieldNamespace, errors.New("namespace of the certificate Secret: must not be empty"))
	}
	if c.SecretName == "" {
		add(FieldSecretName, errors.New("name of the certificate Secret: must not be empty"))
	}
	if c.CertDir == "" {
		add(FieldCertDir, errors.New("cert dir: must not be empty"))
	}
	if len(c.DNSNames) == 0 {
		add(FieldDNSNames, errors.New("DNS names: need at least one (the webhook Service's <name>.<namespace>.svc)"))
	} else if slices.Contains(c.DNSNames, "") {
		add(FieldDNSNames, errors.New("DNS names: must not be empty"))
	} else if i := slices.IndexFunc(c.DNSNames, func(n string) bool { return net.ParseIP(n) != nil }); i >= 0 {
		// cert-controller writes every name as a DNS name and checks its
		// certificate against the first: with an IP address first it would
		// never find it valid and issue one after another, and as another
		// name the IP address is in no certificate a client dialing it
		// accepts.
		add(FieldDNSNames, fmt.Errorf("DNS names: %s is an IP address, which the certificate cannot hold in self-managed mode: give the webhook Service's DNS name", c.DNSNames[i]))
	}
	if slices.Contains(c.CRDNames, "") {
		add(FieldInjectTargets, errors.New("CRD names: must not be empty"))
	}
	if len(c.CRDNames) == 0 && c.ValidatingWebhookConfigurationName == "" && c.MutatingWebhookConfigurationName == "" {
		add(FieldInjectTargets, errors.New("nothing to inject the CA into: name the CRDs and/or the webhook configurations"))
	}
	c.defaults()
	if c.LookaheadInterval >= c.ServerCertDuration || c.LookaheadInterval >= c.CACertDuration {
		add(FieldLookahead, fmt.Errorf("lookahead %s: must be shorter than the certificate durations (%s, CA %s)",
			c.LookaheadInterval, c.ServerCertDuration, c.CACertDuration))
	}
	durations := []time.Duration{c.CACertDuration, c.ServerCertDuration, c.LookaheadInterval, c.RotationCheckFrequency}
	if slices.ContainsFunc(durations, func(d time.Duration) bool { return d < 0 }) {
		add(FieldDurations, errors.New("certificate durations: must not be negative"))
	}
	return errors.Join(errs...)
}

func (c *Config) defaults() {
	c.CACertDuration = cmp.Or(c.CACertDuration, DefaultCACertDuration)
	c.ServerCertDuration = cmp.Or(c.ServerCertDuration, DefaultServerCertDuration)
	c.LookaheadInterval = cmp.Or(c.LookaheadInterval, DefaultLookaheadInterval)
	c.RotationCheckFrequency = cmp.Or(c.RotationCheckFrequency, DefaultRotationCheckFrequency)
}

// Rotator runs the certificate rotation in a controller-runtime manager.
type Rotator struct {
	mgr   manager.Manager
	ready chan struct{}
}

// New builds the manager (no metrics or health listeners, no leader
// election) with the rotator and the cert-dir writer; Run starts it.
func New(cfg Config, restConfig *rest.Config, log logr.Logger) (*Rotator, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, apiextensionsv1.AddToScheme} {
		if err := add(scheme); err != nil {
			return nil, err
		}
	}
	secretKey := types.NamespacedName{Namespace: cfg.Namespace, Name: cfg.SecretName}
	// cert-controller's own cache of Secrets asks for the one Secret only
	// (withSecretNameSelector), so that RBAC may limit list and watch to it.
	mgr, err := ctrl.NewManager(withSecretNameSelector(restConfig, cfg.Namespace, cfg.SecretName), ctrl.Options{
		Scheme:                 scheme,
		Logger:                 log,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		LeaderElection:         false,
		// Tests run several managers in one process; names need not be
		// unique across them.
		Controller: config.Controller{SkipNameValidation: ptr.To(true)},
		// The manager's own cache (used by the cert-dir writer) sees the
		// one Secret only.
		Cache: cache.Options{ByObject: map[client.Object]cache.ByObject{
			&corev1.Secret{}: {
				Namespaces: map[string]cache.Config{cfg.Namespace: {}},
				Field:      fields.OneTermEqualSelector("metadata.name", cfg.SecretName),
			},
		}},
	})
	if err != nil {
		return nil, fmt.Errorf("creating the certificate manager: %w", err)
	}
	var webhooks []rotator.WebhookInfo
	for _, name := range cfg.CRDNames {
		webhooks = append(webhooks, rotator.WebhookInfo{Name: name, Type: rotator.CRDConversion})
	}
	if cfg.ValidatingWebhookConfigurationName != "" {
		webhooks = append(webhooks, rotator.WebhookInfo{Name: cfg.ValidatingWebhookConfigurationName, Type: rotator.Validating})
	}
	if cfg.MutatingWebhookConfigurationName != "" {
		webhooks = append(webhooks, rotator.WebhookInfo{Name: cfg.MutatingWebhookConfigurationName, Type: rotator.Mutating})
	}
	ready := make(chan struct{})
	if err := rotator.AddRotator(mgr, &rotator.CertRotator{
		SecretKey:              secretKey,
		CertDir:                cfg.CertDir,
		CAName:                 caName,
		CAOrganization:         "claimbridge",
		DNSName:                cfg.DNSNames[0],
		ExtraDNSNames:          cfg.DNSNames[1:],
		IsReady:                ready,
		Webhooks:               webhooks,
		FieldOwner:             "claimbridge",
		RequireLeaderElection:  false,
		CaCertDuration:         cfg.CACertDuration,
		ServerCertDuration:     cfg.ServerCertDuration,
		LookaheadInterval:      cfg.LookaheadInterval,
		RotationCheckFrequency: cfg.RotationCheckFrequency,
		EnableReadinessCheck:   true,
	}); err != nil {
		return nil, fmt.Errorf("adding the certificate rotator: %w", err)
	}
	if err := addCertDirWriter(mgr, secretKey, cfg); err != nil {
		return nil, err
	}
	return &Rotator{mgr: mgr, ready: ready}, nil
}

// Ready is closed once the certificate files are in the cert dir and the CA
// is injected.
func (r *Rotator) Ready() <-chan struct{} { return r.ready }

// Run blocks until ctx is done or the rotation fails (the Secret is missing,
// the files never appear, the CA cannot be injected).
func (r *Rotator) Run(ctx context.Context) error {
	if err := r.mgr.Start(ctx); err != nil {
		return fmt.Errorf("self-managed certificates: %w", err)
	}
	return nil
}
