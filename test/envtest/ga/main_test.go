//go:build envtest

// Package ga creates claimbridge's migrations (`claimbridge migrate --to
// v1beta1|v1beta2|v1`) of 1.26, 1.30 and 1.31 claims and templates — with
// 1.30 parameters, allocated claims — in a real kube-apiserver 1.37 (envtest)
// as upstream's resource.k8s.io/v1, v1beta1 and v1beta2, writes their
// converted status (`claimbridge convert`) through the status subresource,
// and checks that what migrate refuses the apiserver rejects.
//
// The package starts its own control plane in TestMain: no CRDs and no
// claimbridge server are needed, only kube-apiserver with
// --runtime-config=resource.k8s.io/v1beta1=true,resource.k8s.io/v1beta2=true
// (1.37 serves only resource.k8s.io/v1 by default). DynamicResourceAllocation
// and DRAAdminAccess are GA in 1.37 and need no feature gate; the namespace
// carries the resource.kubernetes.io/admin-access=true label that
// adminAccess requests need.
//
// TestParityKinds checks `claimbridge validate --to 1.37`'s verdicts on
// ResourceSlices, DeviceTaintRules and DeviceClasses (judge.CheckKind)
// against the suite's apiserver; 1.37 serves DeviceTaintRule in v1 by
// default (DRADeviceTaintRules is GA), so it needs no flag either.
// TestParityKindsOld asks the same of 1.26 and 1.30–1.36, through
// `claimbridge convert --to <release>`, from their recorded answers
// (testdata/kinds-<release>.jsonl.gz).
//
// The parity tests also check judge's rules of 1.32 to 1.36 against
// those releases' kube-apiservers, through their recorded answers
// (testdata/kube-apiserver-1.<minor>.jsonl; `make record` starts them with
// the version under test enabled by --runtime-config, and 1.32 and 1.33
// with --feature-gates=DynamicResourceAllocation=true, DRA being beta and
// off by default there, and records their answers anew).
//
// Run with `make test-envtest`, or:
//
//	go test -tags envtest ./test/envtest/ga/   (with the variables of hack/envtest-assets.sh --env)
package ga

import (
	"context"
	"flag"
	"fmt"
	"os"
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

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/conversion"
	"github.com/claimbridge/claimbridge/test/envtest/harness"
	"github.com/claimbridge/claimbridge/test/recorded"
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

// suiteCluster is the suite's control plane as claimbridge is told it:
// 1.37 with runtimeConfig.
func suiteCluster(t *testing.T) api.Cluster {
	t.Helper()
	c, err := harness.Cluster("1.37", "", runtimeConfig)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

type suite struct {
	dynamic dynamic.Interface
	core    kubernetes.Interface
	env     *envtest.Environment

	stopOnce sync.Once
	stopErr  error
	done     chan struct{}
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
	// The beta versions are deprecated from 1.35; the suite creates them
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
		s.stopErr = harness.StopControlPlane(s.env, "")
	})
	return s.stopErr
}

// startRelease starts the kube-apiserver and etcd of r, an old release
// (1.32–1.36), for t, or opens its recorded answers
// (testdata/kube-apiserver-<release>.jsonl; `make record` records them):
// with DynamicResourceAllocation, a beta feature off by default then, and
// r's resource.k8s.io version, a beta version off by default. It returns a
// client, its discovery and a namespace labelled to allow admin access.
// The control plane stops when t ends.
func startRelease(t *testing.T, r parityRelease) (dynamic.Interface, discovery.DiscoveryInterface, string) {
	t.Helper()
	config := startOld(t, r.name, r.version, "testdata/kube-apiserver-"+r.name+".jsonl")
	client, err := dynamic.NewForConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	core, err := kubernetes.NewForConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	if err := harness.CheckServerRelease(core.Discovery(), r.name); err != nil {
		t.Fatal(err)
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

// startOld starts release name as harness.StartOldRelease does, with book
// its recorded answers, until t ends, and returns a client's config.
func startOld(t *testing.T, name, version, book string, also ...string) *rest.Config {
	t.Helper()
	old, err := harness.StartOldRelease(name, version, book, also...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := old.Stop(!t.Failed() && recorded.Complete()); err != nil {
			t.Errorf("Kubernetes %s: %v", name, err)
		}
	})
	return old.Config
}
