package harness

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	v1alpha1 "github.com/claimbridge/claimbridge/api/v1alpha1"
	v1alpha2 "github.com/claimbridge/claimbridge/api/v1alpha2"
	v1alpha3 "github.com/claimbridge/claimbridge/api/v1alpha3"
	"github.com/claimbridge/claimbridge/webhook"
)

// FieldManager is the server-side apply field manager of Env.Apply. Objects
// the harness installs are applied by it too, so an Apply of another shape of
// the same object replaces the harness's fields instead of merging with them.
const FieldManager = "claimbridge-envtest"

// Options configure Start. The zero value is the usual setup.
type Options struct {
	// StartServer starts the claimbridge server. Default InProcessServer.
	StartServer ServerFunc
	// ControlPlaneStartTimeout bounds starting etcd and kube-apiserver each.
	// Default $KUBEBUILDER_CONTROLPLANE_START_TIMEOUT, else 60s (a cold
	// kube-apiserver on two cores needs more than envtest's 20s).
	ControlPlaneStartTimeout time.Duration
	// ReadyTimeout bounds waiting for the CRDs to be Established and served.
	// Default 60s.
	ReadyTimeout time.Duration
	// Assets selects another kube-apiserver and etcd than
	// $KUBEBUILDER_ASSETS's (an older release's). The zero value is
	// $KUBEBUILDER_ASSETS.
	Assets Assets
}

// Assets names the directory of an older release's kube-apiserver and etcd
// (`make envtest-assets` builds them).
type Assets struct {
	// Variable is the environment variable that holds the directory
	// (ENVTEST_ASSETS_1_30) and PrintFlag the flag of
	// hack/envtest-assets.sh that prints it (--print-assets-dir=1.30).
	Variable, PrintFlag string
	// Release is the Kubernetes minor version ("1.30") that the binary and
	// the running apiserver must report: a binary of another release is an
	// error, as a missing one is.
	Release string
}

// Env is a running environment. Its fields are set by Start and not changed
// afterwards.
type Env struct {
	// Config is an admin (system:masters) client configuration.
	Config *rest.Config
	// Client is a controller-runtime client with the client-go scheme, the
	// apiextensions types and claimbridge's api/v1alpha1..3 types. It
	// converts nothing: a typed object is sent in its own version.
	Client client.Client
	// Dynamic is the client the suites use with unstructured objects of each
	// version (see Resource).
	Dynamic dynamic.Interface
	// Discovery is an uncached discovery client.
	Discovery discovery.DiscoveryInterface
	// CertDir holds the server's ca.crt, tls.crt and tls.key.
	CertDir string
	// CABundle is the test CA in PEM, as set in the CRDs' and the webhook
	// configuration's caBundle.
	CABundle []byte
	// Port is the claimbridge server's port on 127.0.0.1.
	Port int
	// ConvertURL, ValidateURL and DefaultURL are the webhook URLs the
	// apiserver calls.
	ConvertURL, ValidateURL, DefaultURL string

	apiext       apiextensionsclient.Interface
	env          *envtest.Environment
	readyTimeout time.Duration

	stopOnce    sync.Once
	stopErr     error
	startServer ServerFunc
	serverCtx   context.Context
	serverMu    sync.Mutex // guards stopServer
	stopServer  func()
	stopReaper  func()
	cancel      context.CancelFunc
	done        chan struct{} // closed by Stop: ends the signal and deadline watchers
}

// Start starts an environment (see the package documentation). On error
// nothing is left running. The caller must call Stop.
func Start(ctx context.Context, opts Options) (_ *Env, retErr error) {
	if opts.StartServer == nil {
		opts.StartServer = InProcessServer
	}
	if opts.ReadyTimeout == 0 {
		opts.ReadyTimeout = 60 * time.Second
	}
	if opts.ControlPlaneStartTimeout == 0 && os.Getenv("KUBEBUILDER_CONTROLPLANE_START_TIMEOUT") == "" {
		opts.ControlPlaneStartTimeout = 60 * time.Second
	}
	assets, err := AssetsDir()
	if opts.Assets.Variable != "" {
		assets, err = AssetsDirFrom(opts.Assets.Variable, opts.Assets.PrintFlag)
	}
	if err != nil {
		return nil, err
	}
	if opts.Assets.Release != "" {
		if err := CheckRelease(assets, opts.Assets.Release); err != nil {
			return nil, err
		}
	}
	root, err := RepoRoot()
	if err != nil {
		return nil, err
	}
	if _, err := kustomizeBinary(root); err != nil {
		return nil, err
	}

	e := &Env{readyTimeout: opts.ReadyTimeout, done: make(chan struct{})}
	ctx, e.cancel = context.WithCancel(ctx)
	defer func() {
		if r := recover(); r != nil {
			_ = e.Stop()
			panic(r)
		}
		if retErr != nil {
			if err := e.Stop(); err != nil {
				retErr = errors.Join(retErr, fmt.Errorf("stopping after the failed start: %w", err))
			}
		}
	}()

	if e.CertDir, err = os.MkdirTemp("", "claimbridge-envtest-certs-"); err != nil {
		return nil, err
	}
	if e.CABundle, err = webhook.WriteCertificates(e.CertDir, nil); err != nil {
		return nil, err
	}
	if e.Port, err = FreePort(); err != nil {
		return nil, err
	}
	base := fmt.Sprintf("https://127.0.0.1:%d", e.Port)
	e.ConvertURL, e.ValidateURL, e.DefaultURL = base+"/convert", base+"/validate", base+"/default"

	// From here on processes run: watch for signals and the test deadline.
	e.env = &envtest.Environment{
		BinaryAssetsDirectory:    assets,
		ControlPlaneStartTimeout: opts.ControlPlaneStartTimeout,
	}
	variable := "KUBEBUILDER_ASSETS"
	if opts.Assets.Variable != "" {
		// The binaries by path: envtest would otherwise prefer
		// $KUBEBUILDER_ASSETS over BinaryAssetsDirectory.
		variable = opts.Assets.Variable
		e.env.ControlPlane.GetAPIServer().Path = filepath.Join(assets, "kube-apiserver")
		e.env.ControlPlane.Etcd = &envtest.Etcd{Path: filepath.Join(assets, "etcd")}
	}
	StopOnSignalOrDeadline("envtest harness", e.Stop, e.done)
	if e.Config, err = e.env.Start(); err != nil {
		return nil, fmt.Errorf("starting envtest (%s=%s; rebuild with `make envtest-assets`): %w", variable, assets, err)
	}
	dirs := []string{e.env.ControlPlane.APIServer.CertDir}
	if e.env.ControlPlane.Etcd != nil {
		dirs = append(dirs, e.env.ControlPlane.Etcd.DataDir)
	}
	if e.stopReaper, err = startReaper(assets, dirs); err != nil {
		return nil, err
	}
	if err := e.clients(); err != nil {
		return nil, err
	}
	if opts.Assets.Release != "" {
		if err := CheckServerRelease(e.Discovery, opts.Assets.Release); err != nil {
			return nil, err
		}
	}
	e.startServer, e.serverCtx = opts.StartServer, ctx
	if e.stopServer, err = opts.StartServer(ctx, e.CertDir, e.Port); err != nil {
		return nil, err
	}
	if err := e.InstallCRDs(ctx); err != nil {
		return nil, err
	}
	if err := e.InstallWebhookConfiguration(ctx); err != nil {
		return nil, err
	}
	return e, nil
}

// StartT starts an environment for one test and stops it in t.Cleanup. It
// fails t (Fatal, never Skip) when the environment cannot start.
func StartT(t testing.TB, opts Options) *Env {
	t.Helper()
	e, err := Start(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := e.Stop(); err != nil {
			t.Errorf("stopping envtest: %v", err)
		}
	})
	return e
}

// Main is a TestMain body: it starts an environment into *env, runs the tests,
// stops the environment and returns the exit code for os.Exit. A failed start
// or stop prints the error and makes the code non-zero.
func Main(m *testing.M, opts Options, env **Env) int {
	e, err := Start(context.Background(), opts)
	if err != nil {
		fmt.Fprintf(os.Stderr, "envtest harness: %v\n", err)
		return 1
	}
	*env = e
	code := m.Run()
	if err := e.Stop(); err != nil {
		fmt.Fprintf(os.Stderr, "envtest harness: stopping: %v\n", err)
		if code == 0 {
			code = 1
		}
	}
	return code
}

// Stop stops the server and the control plane and removes the cert dir. It is
// safe to call more than once and from several goroutines; later calls return
// the first call's result.
func (e *Env) Stop() error {
	e.stopOnce.Do(func() {
		close(e.done)
		e.StopServer()
		if e.cancel != nil {
			e.cancel()
		}
		if e.stopReaper != nil {
			e.stopReaper()
		}
		e.stopErr = StopControlPlane(e.env, e.CertDir)
	})
	return e.stopErr
}

// StopServer stops the claimbridge server and waits for it: its port refuses
// connections (every webhook call fails) until StartServer. Stopping a
// stopped server does nothing.
func (e *Env) StopServer() {
	e.serverMu.Lock()
	defer e.serverMu.Unlock()
	if e.stopServer != nil {
		e.stopServer()
		e.stopServer = nil
	}
}

// StartServer starts the claimbridge server again after StopServer, as Start
// did (Options.StartServer), on the same port with the same certificate. It
// is an error while the server runs.
func (e *Env) StartServer() error {
	e.serverMu.Lock()
	defer e.serverMu.Unlock()
	if e.stopServer != nil {
		return errors.New("the claimbridge server is running")
	}
	stop, err := e.startServer(e.serverCtx, e.CertDir, e.Port)
	if err != nil {
		return err
	}
	e.stopServer = stop
	return nil
}

func (e *Env) clients() error {
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		clientgoscheme.AddToScheme, apiextensionsv1.AddToScheme,
		v1alpha1.AddToScheme, v1alpha2.AddToScheme, v1alpha3.AddToScheme,
	} {
		if err := add(scheme); err != nil {
			return err
		}
	}
	var err error
	if e.Client, err = client.New(e.Config, client.Options{Scheme: scheme}); err != nil {
		return err
	}
	if e.Dynamic, err = dynamic.NewForConfig(e.Config); err != nil {
		return err
	}
	if e.Discovery, err = discovery.NewDiscoveryClientForConfig(e.Config); err != nil {
		return err
	}
	e.apiext, err = apiextensionsclient.NewForConfig(e.Config)
	return err
}

// AdminClients are a typed client (the core and apiextensions types) and a
// dynamic client of cfg, for the suites that install rendered manifests
// without an Env.
func AdminClients(cfg *rest.Config) (client.Client, dynamic.Interface, error) {
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, apiextensionsv1.AddToScheme} {
		if err := add(scheme); err != nil {
			return nil, nil, err
		}
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return nil, nil, err
	}
	d, err := dynamic.NewForConfig(cfg)
	return c, d, err
}
