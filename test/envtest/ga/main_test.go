// Package ga creates claimbridge's migrations (`claimbridge migrate --to
// v1beta1|v1beta2|v1`) of 1.26, 1.30 and 1.31 claims and templates — with
// 1.30 parameters, allocated claims — in a real kube-apiserver 1.36 (envtest)
// as upstream's resource.k8s.io/v1, v1beta1 and v1beta2, writes their
// converted status (`claimbridge convert`) through the status subresource,
// and checks that what migrate refuses the apiserver rejects.
//
// The package starts its own control plane in TestMain: no CRDs and no
// claimbridge server are needed, only kube-apiserver with
// --runtime-config=resource.k8s.io/v1beta1=true,resource.k8s.io/v1beta2=true
// (1.36 serves only resource.k8s.io/v1 by default). DynamicResourceAllocation
// and DRAAdminAccess are GA in 1.36 and need no feature gate; the namespace
// carries the resource.kubernetes.io/admin-access=true label that
// adminAccess requests need.
//
// The parity tests also start kube-apiserver 1.32 and 1.33 (built like
// 1.36 by hack/envtest-assets.sh), one at a time, to check gacheck's
// v1beta1 and v1beta2 rules against the release that serves each version.
// They run with --feature-gates=DynamicResourceAllocation=true and
// --runtime-config=resource.k8s.io/<version>=true: DRA is beta and off by
// default in both. A missing binary, or one of another release, fails them.
//
// Run with `make test`, or:
//
//	make envtest-assets
//	KUBEBUILDER_ASSETS=$(hack/envtest-assets.sh --print-assets-dir) \
//	ENVTEST_ASSETS_1_32=$(hack/envtest-assets.sh --print-assets-dir=1.32) \
//	ENVTEST_ASSETS_1_33=$(hack/envtest-assets.sh --print-assets-dir=1.33) \
//	go test ./test/envtest/ga/
package ga

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/claimbridge/claimbridge/conversion"
	"github.com/claimbridge/claimbridge/test/envtest/harness"
)

// namespace holds the objects the running test creates: each top-level test
// gets a labelled namespace of its own (useNamespace), so that a repetition
// (-count=2) in the same control plane meets none of the objects of the
// run before.
var namespace string

// useNamespace creates a namespace for t, labelled to allow admin access,
// and makes it the suite's namespace for t's duration. The tests of the
// suite run one after the other.
func useNamespace(t *testing.T) {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{
		GenerateName: "ga-suite-",
		Labels:       map[string]string{conversion.AdminAccessLabel: "true"},
	}}
	created, err := s.core.CoreV1().Namespaces().Create(context.Background(), ns, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	namespace = created.Name
	t.Cleanup(func() { namespace = "" })
}

// run is a suffix unique to this run of a test in the process, for the
// names of cluster-scoped objects.
func run(t *testing.T) string {
	t.Helper()
	if namespace == "" {
		t.Fatal("run before useNamespace")
	}
	return namespace[len("ga-suite-"):]
}

// runtimeConfig enables the beta versions next to v1.
const runtimeConfig = "resource.k8s.io/v1beta1=true,resource.k8s.io/v1beta2=true"

type suite struct {
	dynamic dynamic.Interface
	core    kubernetes.Interface
	env     *envtest.Environment

	stopOnce sync.Once
	stopErr  error
	done     chan struct{}

	mu       sync.Mutex             // guards old and oldError
	old      []*envtest.Environment // the running 1.32 and 1.33 control planes (startRelease)
	oldError error                  // set when the suite stopped them
}

var s *suite

func TestMain(m *testing.M) {
	flag.Parse() // for -test.timeout, read by harness.StopOnSignalOrDeadline
	var err error
	s, err = start(context.Background())
	if err != nil {
		fmt.Fprintf(os.Stderr, "ga suite: %v\n", err)
		if s != nil {
			if stopErr := s.stop(); stopErr != nil {
				fmt.Fprintf(os.Stderr, "ga suite: stopping after the failed start: %v\n", stopErr)
			}
		}
		os.Exit(1)
	}
	code := m.Run()
	if err := s.stop(); err != nil {
		fmt.Fprintf(os.Stderr, "ga suite: stopping: %v\n", err)
		if code == 0 {
			code = 1
		}
	}
	os.Exit(code)
}

func start(ctx context.Context) (*suite, error) {
	assets, err := harness.AssetsDir()
	if err != nil {
		return nil, err
	}
	timeout := 60 * time.Second
	if os.Getenv("KUBEBUILDER_CONTROLPLANE_START_TIMEOUT") != "" {
		timeout = 0 // envtest reads the variable itself
	}
	s := &suite{done: make(chan struct{})}
	s.env = &envtest.Environment{BinaryAssetsDirectory: assets, ControlPlaneStartTimeout: timeout}
	s.env.ControlPlane.GetAPIServer().Configure().Set("runtime-config", runtimeConfig)
	harness.StopOnSignalOrDeadline("ga suite", s.stop, s.done)
	config, err := s.env.Start()
	if err != nil {
		return s, fmt.Errorf("starting envtest (KUBEBUILDER_ASSETS=%s; rebuild with `make envtest-assets`): %w", assets, err)
	}
	// The beta versions are deprecated in 1.35/1.36; the suite creates them
	// on purpose.
	config.WarningHandler = rest.NoWarnings{}
	if s.dynamic, err = dynamic.NewForConfig(config); err != nil {
		return s, err
	}
	if s.core, err = kubernetes.NewForConfig(config); err != nil {
		return s, err
	}
	return s, nil
}

// stop stops the control plane; it is safe to call more than once.
func (s *suite) stop() error {
	s.stopOnce.Do(func() {
		close(s.done)
		s.mu.Lock()
		old := s.old
		s.old, s.oldError = nil, errors.New("the suite is stopping")
		s.mu.Unlock()
		errs := []error{harness.StopControlPlane(s.env, "")}
		for _, env := range old {
			errs = append(errs, harness.StopControlPlane(env, ""))
		}
		s.stopErr = errors.Join(errs...)
	})
	return s.stopErr
}

// startRelease starts the kube-apiserver and etcd of r, an old release
// (1.32, 1.33), for t: with DynamicResourceAllocation, a beta feature off by
// default then, and r's resource.k8s.io version, a beta version off by
// default. It returns a client, its discovery and a namespace labelled to
// allow admin access. The control plane stops when t ends, or with the suite (a signal,
// the test deadline). A missing binary, or one of another release, fails t.
func startRelease(t *testing.T, r parityRelease) (dynamic.Interface, discovery.DiscoveryInterface, string) {
	t.Helper()
	assets, err := harness.AssetsDirFrom(r.assetsVar, r.printFlag)
	if err != nil {
		t.Fatal(err)
	}
	if err := harness.CheckRelease(assets, r.name); err != nil {
		t.Fatal(err)
	}
	timeout := 90 * time.Second
	if os.Getenv("KUBEBUILDER_CONTROLPLANE_START_TIMEOUT") != "" {
		timeout = 0 // envtest reads the variable itself
	}
	// The binaries by path: envtest would otherwise prefer
	// $KUBEBUILDER_ASSETS (1.36) over BinaryAssetsDirectory.
	env := &envtest.Environment{BinaryAssetsDirectory: assets, ControlPlaneStartTimeout: timeout}
	apiserver := env.ControlPlane.GetAPIServer()
	apiserver.Path = filepath.Join(assets, "kube-apiserver")
	env.ControlPlane.Etcd = &envtest.Etcd{Path: filepath.Join(assets, "etcd")}
	var output bytes.Buffer
	apiserver.Err = &output
	args := apiserver.Configure()
	args.Set("feature-gates", "DynamicResourceAllocation=true")
	args.Set("runtime-config", conversion.UpstreamGroup+"/"+r.version+"=true")
	s.mu.Lock()
	if s.oldError != nil {
		s.mu.Unlock()
		t.Fatal(s.oldError)
	}
	s.old = append(s.old, env)
	s.mu.Unlock()
	t.Cleanup(func() {
		s.mu.Lock()
		running := slices.Contains(s.old, env)
		s.old = slices.DeleteFunc(s.old, func(e *envtest.Environment) bool { return e == env })
		s.mu.Unlock()
		if running {
			if err := harness.StopControlPlane(env, ""); err != nil {
				t.Errorf("Kubernetes %s: %v", r.name, err)
			}
		}
	})
	config, err := env.Start()
	if err != nil {
		t.Fatalf("starting envtest (%s=%s; rebuild with `make envtest-assets`): %v\nkube-apiserver output (last 4 KiB):\n%s",
			r.assetsVar, assets, err, tail(output.Bytes(), 4096))
	}
	config.WarningHandler = rest.NoWarnings{}
	client, err := dynamic.NewForConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	core, err := kubernetes.NewForConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	if err := harness.CheckServerRelease(core.Discovery(), r.name); err != nil {
		t.Fatalf("the control plane started from %s: %v", assets, err)
	}
	// Both admin-access labels: 1.33's and the one of 1.34+.
	ns, err := core.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{
		GenerateName: "ga-suite-",
		Labels:       map[string]string{conversion.AdminAccessLabel: "true", conversion.AdminAccessLabel133: "true"},
	}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return client, core.Discovery(), ns.Name
}

// tail returns the last n bytes of b.
func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}
