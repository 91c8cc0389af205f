//go:build envtest

// Package selfmanaged installs what `helm template charts/claimbridge`
// renders in its default (self-managed certificate) mode into a real
// kube-apiserver and runs the real `claimbridge serve` command in this
// process with the Deployment's arguments, as the chart's ServiceAccount
// (impersonated, so the chart's RBAC is what it gets):
//
//   - the CRDs and the webhook configurations are installed with no
//     caBundle and the server injects its CA; /readyz passes only then;
//   - conversion and validation work through the apiserver;
//   - a forced renewal of the serving certificate under load fails no request;
//   - metrics are refused without a token or without RBAC and served to a
//     ServiceAccount bound to the chart's metrics-reader ClusterRole;
//   - the chart's ValidatingAdmissionPolicy lets the ServiceAccount change
//     only the caBundles of the objects its RBAC lets it update;
//   - this release's image, run as a process of its own with the previous
//     chart's arguments and RBAC (the upgrade order docs/operations.md
//     gives), becomes ready;
//   - caBundles emptied or replaced, a webhook configuration created again
//     without them, a webhook added, and a Secret holding garbage, another
//     CA's certificate, an expired one or no data are repaired by the
//     running server, and requests pass again;
//   - replicas (further processes: startReplica) that start together on an
//     empty Secret agree on one CA, and a replica that starts with a due or
//     expired certificate in the Secret renews it before it is ready.
//
// The suite needs KUBEBUILDER_ASSETS and HELM (`make test` sets both; a
// missing one is an error).
package selfmanaged

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/cli"
	"github.com/claimbridge/claimbridge/test/envtest/harness"
)

const (
	namespace     = "claimbridge-system"
	release       = "claimbridge"
	testNamespace = "team-a"
)

// Names the chart gives its objects for release "claimbridge".
const (
	serviceAccount = "claimbridge"
	secretName     = "claimbridge-webhook-server-cert"
	webhookConfig  = "claimbridge-validating-webhook-configuration"
	mutatingConfig = "claimbridge-mutating-webhook-configuration"
)

var crdNames = []string{"resourceclaims." + api.Group, "resourceclaimtemplates." + api.Group}

type suite struct {
	env     *envtest.Environment
	admin   *rest.Config
	client  client.Client
	dynamic dynamic.Interface
	objs    []*unstructured.Unstructured

	certDir                          string
	port                             int
	webhookAddr, healthAddr, metrics string
	serverLog                        *harness.LogBuffer // klog's output included
	stopServer                       func() error
	done                             chan struct{}
}

var s *suite

func TestMain(m *testing.M) {
	if os.Getenv(serveEnv) != "" { // a replica started by startReplica
		os.Exit(harness.ServeChild())
	}
	flag.Parse() // for -test.timeout, read by harness.StopOnSignalOrDeadline
	var err error
	s, err = start(context.Background())
	if err != nil {
		fmt.Fprintf(os.Stderr, "self-managed suite: %v\n", err)
		if s != nil {
			if s.serverLog != nil {
				fmt.Fprintf(os.Stderr, "server log:\n%s\n", s.serverLog.String())
			}
			_ = s.stop()
		}
		os.Exit(1)
	}
	code := m.Run()
	if code != 0 {
		fmt.Fprintf(os.Stderr, "server log (tail):\n%s\n", s.serverLog.Tail(8000))
	}
	if err := s.stop(); err != nil {
		fmt.Fprintf(os.Stderr, "self-managed suite: stopping: %v\n", err)
		code = max(code, 1)
	}
	os.Exit(code)
}

func start(ctx context.Context) (*suite, error) {
	assets, err := harness.AssetsDir()
	if err != nil {
		return nil, err
	}
	objs, err := harness.RenderChart(release, namespace)
	if err != nil {
		return nil, err
	}
	s := &suite{objs: objs, done: make(chan struct{}), serverLog: &harness.LogBuffer{}}
	if s.certDir, err = os.MkdirTemp("", "claimbridge-envtest-selfmanaged-"); err != nil {
		return nil, err
	}
	timeout := 60 * time.Second
	if os.Getenv("KUBEBUILDER_CONTROLPLANE_START_TIMEOUT") != "" {
		timeout = 0
	}
	s.env = &envtest.Environment{BinaryAssetsDirectory: assets, ControlPlaneStartTimeout: timeout}
	harness.StopOnSignalOrDeadline("self-managed suite", s.stop, s.done)
	if s.admin, err = s.env.Start(); err != nil {
		return s, fmt.Errorf("starting envtest (KUBEBUILDER_ASSETS=%s; rebuild with `make envtest-assets`): %w", assets, err)
	}
	if s.client, s.dynamic, err = harness.AdminClients(s.admin); err != nil {
		return s, err
	}
	for _, ns := range []string{namespace, testNamespace} {
		if err := s.client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
			return s, err
		}
	}
	if s.port, err = harness.FreePort(); err != nil {
		return s, err
	}
	if err := s.install(ctx); err != nil {
		return s, err
	}
	if err := s.waitForPolicy(ctx); err != nil {
		return s, err
	}
	if err := s.startServer(ctx); err != nil {
		return s, err
	}
	return s, nil
}

// install applies the rendered objects the apiserver can use here (no
// Deployment, Service, PDB or NetworkPolicy: the server runs in this process).
// The webhooks' clientConfig.service becomes a URL on localhost, the name
// the server's certificate carries besides the Service name; the caBundles
// stay empty for the server to fill.
func (s *suite) install(ctx context.Context) error {
	for _, o := range s.objs {
		switch o.GetKind() {
		case "CustomResourceDefinition":
			if err := unstructured.SetNestedField(o.Object, map[string]interface{}{"url": s.url("/convert")},
				"spec", "conversion", "webhook", "clientConfig"); err != nil {
				return err
			}
		case "ValidatingWebhookConfiguration", "MutatingWebhookConfiguration":
			path := "/validate"
			if o.GetKind() == "MutatingWebhookConfiguration" {
				path = "/default"
			}
			hooks, _, _ := unstructured.NestedSlice(o.Object, "webhooks")
			for _, h := range hooks {
				h.(map[string]interface{})["clientConfig"] = map[string]interface{}{"url": s.url(path)}
			}
			if err := unstructured.SetNestedSlice(o.Object, hooks, "webhooks"); err != nil {
				return err
			}
		case "ServiceAccount", "Secret", "Role", "RoleBinding", "ClusterRole", "ClusterRoleBinding",
			"ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding":
		default:
			continue
		}
		if err := s.client.Create(ctx, o.DeepCopy()); err != nil {
			return fmt.Errorf("creating %s %s: %w", o.GetKind(), o.GetName(), err)
		}
	}
	return nil
}

func (s *suite) url(path string) string { return fmt.Sprintf("https://localhost:%d%s", s.port, path) }

// serverArgs are the Deployment's arguments with $(POD_NAMESPACE) expanded,
// followed by the local listeners and cert dir, and localhost as a DNS name.
func (s *suite) serverArgs(healthPort, metricsPort int) ([]string, error) {
	args, err := harness.ServeArgs(s.objs, namespace)
	if err != nil {
		return nil, err
	}
	return append(args,
		"--cert-dir="+s.certDir,
		"--bind-address=127.0.0.1",
		fmt.Sprintf("--port=%d", s.port),
		"--dns-name=localhost",
		fmt.Sprintf("--health-probe-bind-address=127.0.0.1:%d", healthPort),
		fmt.Sprintf("--metrics-bind-address=127.0.0.1:%d", metricsPort),
		"--shutdown-drain=0s",
		// The chart passes 5m; testTokenPolicyChecked waits for a check.
		"--token-policy-check-interval=2s",
	), nil
}

// startServer runs `claimbridge serve` as the chart's ServiceAccount and
// checks, every time /readyz is polled, that it passes only once both CRDs
// and the webhook configuration carry the CA of the Secret.
func (s *suite) startServer(ctx context.Context) error {
	healthPort, err := harness.FreePort()
	if err != nil {
		return err
	}
	metricsPort, err := harness.FreePort()
	if err != nil {
		return err
	}
	args, err := s.serverArgs(healthPort, metricsPort)
	if err != nil {
		return err
	}
	kubeconfig, err := s.impersonatingKubeconfig()
	if err != nil {
		return err
	}
	os.Setenv("KUBECONFIG", kubeconfig)
	os.Setenv("POD_NAMESPACE", namespace)

	s.healthAddr = fmt.Sprintf("127.0.0.1:%d", healthPort)
	s.metrics = fmt.Sprintf("127.0.0.1:%d", metricsPort)
	s.webhookAddr = fmt.Sprintf("127.0.0.1:%d", s.port)
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	w := s.serverLog
	// The server logs through its logging options' logger, which writes to
	// os.Stderr as it is when the server starts: a pipe that copies into
	// the log too, for the tests that look for a line.
	if err := teeStderr(w); err != nil {
		cancel()
		return err
	}
	go func() { done <- cli.Serve(ctx, args, w, w) }()
	s.stopServer = func() error {
		cancel()
		return <-done
	}

	readyErr := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 3*time.Minute, true, func(ctx context.Context) (bool, error) {
		select {
		case err := <-done:
			done <- err
			return false, fmt.Errorf("the server stopped before it was ready: %v", err)
		default:
		}
		ready := get("http://" + s.healthAddr + "/readyz")
		if !ready {
			return false, nil
		}
		// Ready: the CA must be injected everywhere already.
		return true, s.checkInjected(ctx)
	})
	return readyErr
}

func get(url string) bool {
	c := &http.Client{Timeout: 5 * time.Second}
	resp, err := c.Get(url)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode == http.StatusOK
}

// impersonatingKubeconfig writes a kubeconfig of the admin credentials that
// impersonates the chart's ServiceAccount.
func (s *suite) impersonatingKubeconfig() (string, error) {
	path := filepath.Join(s.certDir, "..", filepath.Base(s.certDir)+".kubeconfig")
	return path, harness.WriteKubeconfig(harness.ServiceAccountConfig(s.admin, namespace, serviceAccount), path)
}

func (s *suite) stop() error {
	return harness.StopServerAndControlPlane(s.done, s.stopServer, s.env, s.certDir)
}

// teeStderr replaces os.Stderr by a pipe whose output goes to the process's
// stderr and to w.
func teeStderr(w io.Writer) error {
	r, pw, err := os.Pipe()
	if err != nil {
		return err
	}
	stderr := os.Stderr
	os.Stderr = pw
	go func() { _, _ = io.Copy(io.MultiWriter(stderr, w), r) }()
	return nil
}
