//go:build envtest

// Package certmanager runs claimbridge the way config/certmanager deploys it,
// against a real kube-apiserver (envtest): cert-manager's CRDs are installed,
// cert-manager's cainjector runs in this process, claimbridge serves a
// certificate from a Secret shaped like one cert-manager issued, and the CRDs
// and the ValidatingWebhookConfiguration carry no caBundle, only the
// cert-manager.io/inject-ca-from annotation naming the CA Certificate. The
// tests check that the cainjector fills the caBundles, that conversion and
// validation then work through the apiserver, and that neither a renewal of
// the CA with its key (past the expiry of the CA certificate that signed the
// serving certificate) nor a replaced CA and a serving certificate rotated
// to it loses a request.
//
// The package starts its own control plane in TestMain (one per package):
// it does not use harness.Start, which installs the CRDs with a caBundle.
package certmanager

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	cmapi "github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1"
	"github.com/cert-manager/cert-manager/pkg/controller/cainjector"
	cmutil "github.com/cert-manager/cert-manager/pkg/util"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/server"
	"github.com/claimbridge/claimbridge/test/envtest/harness"
	"github.com/claimbridge/claimbridge/webhook"
)

const (
	// certNamespace holds the Certificate and its Secret, like the
	// claimbridge-system namespace of config/default.
	certNamespace   = "claimbridge-system"
	certificateName = "serving-cert"
	secretName      = "webhook-server-cert"
	issuerName      = "ca-issuer"
	// The CA Certificate, its Secret and its self-signed Issuer; the
	// inject-ca-from annotations name the CA Certificate.
	caCertificateName    = "ca"
	caSecretName         = "ca-secret"
	selfSignedIssuerName = "selfsigned-issuer"
	// testNamespace holds the claims the tests create.
	testNamespace = "certmanager-suite"

	servingIP      = "127.0.0.1"
	servingDNSName = "localhost"

	webhookConfigurationName = "claimbridge-certmanager-envtest"
	fieldManager             = "claimbridge-envtest-certmanager"

	claims    = "resourceclaims"
	templates = "resourceclaimtemplates"
)

var crdNames = []string{claims + "." + api.Group, templates + "." + api.Group}

// suite is the running environment shared by the tests.
type suite struct {
	config  *rest.Config
	client  client.Client
	dynamic dynamic.Interface
	apiext  apiextensionsclient.Interface
	disco   discovery.DiscoveryInterface

	// serverAddr is claimbridge's TLS address, 127.0.0.1:<port>.
	serverAddr string
	// volume is claimbridge's --cert-dir, laid out like a mounted Secret.
	volume *secretVolume
	// ca and serving are the CA and serving certificate in the Secrets at
	// start.
	ca      *authority
	serving *issued

	env        *envtest.Environment
	stopServer func()
	stopInject func() error
	stopOnce   sync.Once
	stopErr    error
	done       chan struct{}
}

var s *suite

func TestMain(m *testing.M) {
	flag.Parse() // for -test.timeout, read by harness.StopOnSignalOrDeadline
	ctrl.SetLogger(klog.Background())

	var err error
	s, err = start(context.Background())
	if err != nil {
		fmt.Fprintf(os.Stderr, "certmanager suite: %v\n", err)
		if s != nil {
			if stopErr := s.stop(); stopErr != nil {
				fmt.Fprintf(os.Stderr, "certmanager suite: stopping after the failed start: %v\n", stopErr)
			}
		}
		os.Exit(1)
	}
	code := m.Run()
	if err := s.stop(); err != nil {
		fmt.Fprintf(os.Stderr, "certmanager suite: stopping: %v\n", err)
		if code == 0 {
			code = 1
		}
	}
	os.Exit(code)
}

// start brings the environment up. On error the returned suite (if not nil)
// holds whatever was started and must be stopped.
func start(ctx context.Context) (*suite, error) {
	assets, err := harness.AssetsDir()
	if err != nil {
		return nil, err
	}
	cmCRDs, err := certManagerCRDDir()
	if err != nil {
		return nil, err
	}
	// Render first: a missing KUSTOMIZE fails before any process starts.
	crds, err := renderCRDs()
	if err != nil {
		return nil, err
	}
	webhookConfigs, err := renderWebhookConfigurations()
	if err != nil {
		return nil, err
	}

	s := &suite{done: make(chan struct{})}
	certDir, err := os.MkdirTemp("", "claimbridge-envtest-certmanager-")
	if err != nil {
		return nil, err
	}
	s.volume = &secretVolume{dir: certDir}

	timeout := 60 * time.Second
	if os.Getenv("KUBEBUILDER_CONTROLPLANE_START_TIMEOUT") != "" {
		timeout = 0 // envtest reads the variable itself
	}
	s.env = &envtest.Environment{
		BinaryAssetsDirectory:    assets,
		ControlPlaneStartTimeout: timeout,
		// cert-manager's own CRDs (no conversion webhook), so envtest may
		// install them and wait until they are served.
		CRDInstallOptions: envtest.CRDInstallOptions{Paths: []string{cmCRDs}, ErrorIfPathMissing: true},
	}
	harness.StopOnSignalOrDeadline("certmanager suite", s.stop, s.done)
	if s.config, err = s.env.Start(); err != nil {
		return s, fmt.Errorf("starting envtest (KUBEBUILDER_ASSETS=%s; rebuild with `make envtest-assets`): %w", assets, err)
	}
	if err := s.clients(); err != nil {
		return s, err
	}
	if err := s.issueInitial(ctx); err != nil {
		return s, err
	}
	if err := s.startServer(ctx); err != nil {
		return s, err
	}
	if err := s.startCAInjector(ctx); err != nil {
		return s, err
	}
	// Installed after the cainjector runs, as when claimbridge is deployed
	// into a cluster that already has cert-manager.
	if err := s.installCRDs(ctx, crds); err != nil {
		return s, err
	}
	for _, c := range webhookConfigs {
		if err := s.installWebhookConfiguration(ctx, c); err != nil {
			return s, err
		}
	}
	if err := s.client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: testNamespace}}); err != nil {
		return s, err
	}
	return s, nil
}

// stop stops the cainjector, claimbridge and the control plane and removes
// the cert dir; it is safe to call more than once.
func (s *suite) stop() error {
	s.stopOnce.Do(func() {
		close(s.done)
		var errs []error
		if s.stopInject != nil {
			if err := s.stopInject(); err != nil {
				errs = append(errs, fmt.Errorf("cainjector: %w", err))
			}
		}
		if s.stopServer != nil {
			s.stopServer()
		}
		var dir string
		if s.volume != nil {
			dir = s.volume.dir
		}
		if err := harness.StopControlPlane(s.env, dir); err != nil {
			errs = append(errs, err)
		}
		s.stopErr = errors.Join(errs...)
	})
	return s.stopErr
}

func newScheme() (*runtime.Scheme, error) {
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		clientgoscheme.AddToScheme, apiextensionsv1.AddToScheme, cmapi.AddToScheme, apiregistrationv1.AddToScheme,
	} {
		if err := add(scheme); err != nil {
			return nil, err
		}
	}
	return scheme, nil
}

func (s *suite) clients() error {
	scheme, err := newScheme()
	if err != nil {
		return err
	}
	if s.client, err = client.New(s.config, client.Options{Scheme: scheme}); err != nil {
		return err
	}
	if s.dynamic, err = dynamic.NewForConfig(s.config); err != nil {
		return err
	}
	if s.disco, err = discovery.NewDiscoveryClientForConfig(s.config); err != nil {
		return err
	}
	s.apiext, err = apiextensionsclient.NewForConfig(s.config)
	return err
}

// issueInitial does what cert-manager does for config/certmanager: the
// self-signed Issuer, the CA Certificate and its Secret, the CA Issuer, the
// serving Certificate and the Secret it issues; then mounts the serving
// Secret into claimbridge's cert dir.
func (s *suite) issueInitial(ctx context.Context) error {
	var err error
	if s.ca, err = newAuthority("claimbridge-ca", time.Now().Add(10*365*24*time.Hour)); err != nil {
		return err
	}
	s.serving = s.ca.serving
	if err := s.client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: certNamespace}}); err != nil {
		return err
	}
	for _, issuer := range []*cmapi.Issuer{
		{
			ObjectMeta: metav1.ObjectMeta{Name: selfSignedIssuerName, Namespace: certNamespace},
			Spec:       cmapi.IssuerSpec{IssuerConfig: cmapi.IssuerConfig{SelfSigned: &cmapi.SelfSignedIssuer{}}},
		},
		{
			ObjectMeta: metav1.ObjectMeta{Name: issuerName, Namespace: certNamespace},
			Spec:       cmapi.IssuerSpec{IssuerConfig: cmapi.IssuerConfig{CA: &cmapi.CAIssuer{SecretName: caSecretName}}},
		},
	} {
		if err := s.client.Create(ctx, issuer); err != nil {
			return fmt.Errorf("creating Issuer %s: %w", issuer.Name, err)
		}
	}
	for _, c := range []struct {
		cert   *cmapi.Certificate
		status cmapi.CertificateStatus
		secret *corev1.Secret
	}{
		{caCertificate(), readyStatus(s.ca.cert, 1), caSecret(s.ca)},
		{servingCertificate(), readyStatus(s.serving.cert, 1), servingSecret(s.serving, s.ca.pem)},
	} {
		if err := s.client.Create(ctx, c.cert); err != nil {
			return fmt.Errorf("creating Certificate %s: %w", c.cert.Name, err)
		}
		c.cert.Status = c.status
		if err := s.client.Status().Update(ctx, c.cert); err != nil {
			return fmt.Errorf("setting the status of Certificate %s: %w", c.cert.Name, err)
		}
		if err := s.client.Create(ctx, c.secret); err != nil {
			return fmt.Errorf("creating Secret %s: %w", c.secret.Name, err)
		}
	}
	return s.volume.project(servingSecret(s.serving, s.ca.pem).Data)
}

// startServer starts claimbridge in this process on a free port of
// 127.0.0.1, reading its certificate from the Secret volume.
func (s *suite) startServer(ctx context.Context) error {
	opts := server.NewOptions()
	opts.BindAddress = servingIP
	opts.Port = 0
	opts.CertDir = s.volume.dir
	opts.HealthProbeBindAddress = "0"
	opts.MetricsBindAddress = "0"
	opts.ShutdownDrain = 0
	opts.ShutdownTimeout = 5 * time.Second
	cfg, err := opts.Config()
	if err != nil {
		return err
	}
	srv, err := webhook.New(cfg)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	select {
	case <-srv.Started():
	case err := <-done:
		cancel()
		return fmt.Errorf("starting the claimbridge server: %w", err)
	case <-time.After(30 * time.Second):
		cancel()
		<-done
		return errors.New("the claimbridge server did not start serving within 30s")
	}
	s.serverAddr = srv.Addr().String()
	s.stopServer = func() {
		cancel()
		<-done
	}
	return nil
}

// startCAInjector runs cert-manager's cainjector controllers in a
// controller-runtime manager, set up as cert-manager's cainjector binary sets
// it up (cmd/cainjector/app): Secrets are read directly, never cached, and
// watched as metadata only; the Certificate data source is enabled; of the
// injectable kinds, CRDs and Validating- and MutatingWebhookConfigurations
// are enabled.
func (s *suite) startCAInjector(ctx context.Context) error {
	scheme, err := newScheme()
	if err != nil {
		return err
	}
	// The user agent names the cainjector's server-side apply field manager.
	cfg := cmutil.RestConfigWithUserAgent(s.config, "cainjector")
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                 scheme,
		Cache:                  cache.Options{ReaderFailOnMissingInformer: true},
		Client:                 client.Options{Cache: &client.CacheOptions{DisableFor: []client.Object{&corev1.Secret{}}}},
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		LeaderElection:         false,
	})
	if err != nil {
		return fmt.Errorf("creating the cainjector manager: %w", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	err = cainjector.RegisterAllInjectors(ctx, mgr, cainjector.SetupOptions{
		EnableCertificatesDataSource: true,
		EnabledReconcilersFor: map[string]bool{
			cainjector.CustomResourceDefinitionName:       true,
			cainjector.ValidatingWebhookConfigurationName: true,
			cainjector.MutatingWebhookConfigurationName:   true,
			cainjector.APIServiceName:                     false,
		},
	})
	if err != nil {
		cancel()
		return fmt.Errorf("registering the cainjector controllers: %w", err)
	}
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	s.stopInject = func() error {
		cancel()
		select {
		case err := <-done:
			return err
		case <-time.After(30 * time.Second):
			return errors.New("the cainjector manager did not stop within 30s")
		}
	}
	// Wait for its caches so that a failure to start shows here.
	syncCtx, cancelSync := context.WithTimeout(ctx, 60*time.Second)
	defer cancelSync()
	if !mgr.GetCache().WaitForCacheSync(syncCtx) {
		select {
		case err := <-done:
			done <- err // for stopInject
			return fmt.Errorf("the cainjector manager stopped: %w", err)
		default:
			return errors.New("the cainjector's caches did not sync within 60s")
		}
	}
	return nil
}

// injectFrom is the cert-manager.io/inject-ca-from value of the CRDs and the
// webhook configurations, as config/default sets it: the CA Certificate.
func injectFrom() string { return certNamespace + "/" + caCertificateName }

func (s *suite) convertURL() string  { return "https://" + s.serverAddr + "/convert" }
func (s *suite) validateURL() string { return "https://" + s.serverAddr + "/validate" }
func (s *suite) defaultURL() string  { return "https://" + s.serverAddr + "/default" }

func renderCRDs() ([]*unstructured.Unstructured, error) {
	objs, err := harness.Render("config/crd")
	if err != nil {
		return nil, err
	}
	var crds []*unstructured.Unstructured
	for _, o := range objs {
		if o.GetKind() == "CustomResourceDefinition" {
			crds = append(crds, o)
		}
	}
	if len(crds) != len(crdNames) {
		return nil, fmt.Errorf("kustomize build config/crd rendered %d CustomResourceDefinitions, want %d", len(crds), len(crdNames))
	}
	return crds, nil
}

// renderWebhookConfigurations returns the ValidatingWebhookConfiguration
// and the MutatingWebhookConfiguration of config/webhook.
func renderWebhookConfigurations() ([]*unstructured.Unstructured, error) {
	objs, err := harness.Render("config/webhook")
	if err != nil {
		return nil, err
	}
	var out []*unstructured.Unstructured
	for _, kind := range []string{"ValidatingWebhookConfiguration", "MutatingWebhookConfiguration"} {
		var found []*unstructured.Unstructured
		for _, o := range objs {
			if o.GetKind() == kind {
				found = append(found, o)
			}
		}
		if len(found) != 1 {
			return nil, fmt.Errorf("kustomize build config/webhook rendered %d %ss, want 1", len(found), kind)
		}
		out = append(out, found[0])
	}
	return out, nil
}

func setInjectFrom(obj *unstructured.Unstructured) {
	ann := obj.GetAnnotations()
	if ann == nil {
		ann = map[string]string{}
	}
	ann[cmapi.WantInjectAnnotation] = injectFrom()
	obj.SetAnnotations(ann)
}

// installCRDs applies the CRDs of config/crd with the conversion webhook at
// claimbridge's URL, no caBundle and the inject-ca-from annotation, and waits
// until they are served.
func (s *suite) installCRDs(ctx context.Context, crds []*unstructured.Unstructured) error {
	gvr := apiextensionsv1.SchemeGroupVersion.WithResource("customresourcedefinitions")
	for _, crd := range crds {
		crd = crd.DeepCopy()
		if st, _, _ := unstructured.NestedString(crd.Object, "spec", "conversion", "strategy"); st != string(apiextensionsv1.WebhookConverter) {
			return fmt.Errorf("CRD %s from config/crd: conversion strategy %q, want Webhook", crd.GetName(), st)
		}
		if err := unstructured.SetNestedField(crd.Object, map[string]interface{}{"url": s.convertURL()},
			"spec", "conversion", "webhook", "clientConfig"); err != nil {
			return err
		}
		setInjectFrom(crd)
		if _, err := s.dynamic.Resource(gvr).Apply(ctx, crd.GetName(), crd, metav1.ApplyOptions{FieldManager: fieldManager, Force: true}); err != nil {
			return fmt.Errorf("applying CRD %s: %w", crd.GetName(), err)
		}
	}
	var last error
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 60*time.Second, true, func(ctx context.Context) (bool, error) {
		last = nil
		for _, name := range crdNames {
			if last = s.crdServed(ctx, name); last != nil {
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil && last != nil {
		return fmt.Errorf("waiting for the CRDs: %w (%w)", last, err)
	}
	return err
}

func (s *suite) crdServed(ctx context.Context, name string) error {
	crd, err := s.apiext.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	if !slices.ContainsFunc(crd.Status.Conditions, func(c apiextensionsv1.CustomResourceDefinitionCondition) bool {
		return c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue
	}) {
		return fmt.Errorf("CRD %s is not Established", name)
	}
	for _, v := range crd.Spec.Versions {
		gv := crd.Spec.Group + "/" + v.Name
		list, err := s.disco.ServerResourcesForGroupVersion(gv)
		if err != nil {
			return fmt.Errorf("discovery of %s: %w", gv, err)
		}
		if !slices.ContainsFunc(list.APIResources, func(r metav1.APIResource) bool { return r.Name == crd.Spec.Names.Plural }) {
			return fmt.Errorf("%s is not in discovery of %s", crd.Spec.Names.Plural, gv)
		}
	}
	return nil
}

// installWebhookConfiguration applies a webhook configuration of
// config/webhook (validating or mutating) with each webhook at claimbridge's
// /validate or /default URL, no caBundle and the inject-ca-from annotation.
func (s *suite) installWebhookConfiguration(ctx context.Context, config *unstructured.Unstructured) error {
	config = config.DeepCopy()
	config.SetName(webhookConfigurationName)
	setInjectFrom(config)
	url, resource := s.validateURL(), "validatingwebhookconfigurations"
	if config.GetKind() == "MutatingWebhookConfiguration" {
		url, resource = s.defaultURL(), "mutatingwebhookconfigurations"
	}
	webhooks, _, _ := unstructured.NestedSlice(config.Object, "webhooks")
	for i := range webhooks {
		wh, ok := webhooks[i].(map[string]interface{})
		if !ok {
			return fmt.Errorf("webhooks[%d] is not an object", i)
		}
		wh["clientConfig"] = map[string]interface{}{"url": url}
	}
	if err := unstructured.SetNestedSlice(config.Object, webhooks, "webhooks"); err != nil {
		return err
	}
	gvr := schema.GroupVersionResource{Group: "admissionregistration.k8s.io", Version: "v1", Resource: resource}
	if _, err := s.dynamic.Resource(gvr).Apply(ctx, config.GetName(), config, metav1.ApplyOptions{FieldManager: fieldManager, Force: true}); err != nil {
		return fmt.Errorf("applying %s: %w", config.GetKind(), err)
	}
	return nil
}

// certManagerCRDDir is deploy/crds of the cert-manager module this test is
// built with: cert-manager's CRDs as controller-gen generates them (the Helm
// chart templates the same files).
func certManagerCRDDir() (string, error) {
	root, err := harness.RepoRoot()
	if err != nil {
		return "", err
	}
	cmd := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/cert-manager/cert-manager")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			err = fmt.Errorf("%w: %s", err, ee.Stderr)
		}
		return "", fmt.Errorf("locating the cert-manager module (go list -m): %w", err)
	}
	dir := filepath.Join(strings.TrimSpace(string(out)), "deploy", "crds")
	if _, err := os.Stat(filepath.Join(dir, "cert-manager.io_certificates.yaml")); err != nil {
		return "", fmt.Errorf("cert-manager CRDs: %w (run `go mod download github.com/cert-manager/cert-manager`)", err)
	}
	return dir, nil
}
