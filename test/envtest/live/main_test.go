//go:build envtest

// Package live upgrades the DRA objects of a real Kubernetes 1.30
// kube-apiserver to the current release's through the command line, as a
// user would: claimbridge export from the 1.30 cluster, migrate with the
// current release's kube-apiserver as the target (its version discovered),
// --verify, --apply, and export from the target to read them back.
//
// Each test starts its own control planes: 1.30 from ENVTEST_ASSETS_1_30
// with --feature-gates=DynamicResourceAllocation=true and
// --runtime-config=resource.k8s.io/v1alpha2=true (DRA was alpha and off by
// default then), and the current release from KUBEBUILDER_ASSETS
// (resource.k8s.io/v1 is served by default from 1.34 on); a kubeconfig with
// the contexts old and new is written to a temporary directory. A missing
// or wrong binary fails the suite.
//
// Run with `make test-releases`, or:
//
//	env $(hack/envtest-assets.sh --env) go test -tags envtest ./test/envtest/live/
package live

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/claimbridge/claimbridge/cli"
	"github.com/claimbridge/claimbridge/manifest"
	"github.com/claimbridge/claimbridge/test/envtest/harness"
)

func TestMain(m *testing.M) {
	flag.Parse() // for -test.timeout, read by harness.StopOnSignalOrDeadline
	os.Exit(m.Run())
}

// clusters are the two control planes of a test and the kubeconfig that
// names them.
type clusters struct {
	old, new   *rest.Config
	kubeconfig string
}

// startClusters starts Kubernetes 1.30 (context old) and the current
// release (context new) for t, and stops them when t ends.
func startClusters(t *testing.T) clusters {
	t.Helper()
	oldAssets, err := harness.AssetsDirFrom("ENVTEST_ASSETS_1_30", "--print-assets-dir=1.30")
	if err != nil {
		t.Fatal(err)
	}
	if err := harness.CheckRelease(oldAssets, "1.30"); err != nil {
		t.Fatal(err)
	}
	newAssets, err := harness.AssetsDir()
	if err != nil {
		t.Fatal(err)
	}
	c := clusters{kubeconfig: filepath.Join(t.TempDir(), "kubeconfig")}
	c.old = startControlPlane(t, oldAssets, map[string]string{
		"feature-gates":  "DynamicResourceAllocation=true",
		"runtime-config": "resource.k8s.io/v1alpha2=true",
	})
	if err := harness.CheckServerRelease(discovery.NewDiscoveryClientForConfigOrDie(c.old), "1.30"); err != nil {
		t.Fatal(err)
	}
	c.new = startControlPlane(t, newAssets, nil)
	if err := harness.WriteContexts(c.kubeconfig, map[string]*rest.Config{"old": c.old, "new": c.new}); err != nil {
		t.Fatal(err)
	}
	return c
}

// startControlPlane starts the kube-apiserver and etcd of assets with args.
func startControlPlane(t *testing.T, assets string, args map[string]string) *rest.Config {
	t.Helper()
	timeout := 90 * time.Second
	if os.Getenv("KUBEBUILDER_CONTROLPLANE_START_TIMEOUT") != "" {
		timeout = 0 // envtest reads the variable itself
	}
	// The binaries by path: envtest would otherwise prefer
	// $KUBEBUILDER_ASSETS over BinaryAssetsDirectory.
	env := &envtest.Environment{BinaryAssetsDirectory: assets, ControlPlaneStartTimeout: timeout}
	apiserver := env.ControlPlane.GetAPIServer()
	apiserver.Path = filepath.Join(assets, "kube-apiserver")
	env.ControlPlane.Etcd = &envtest.Etcd{Path: filepath.Join(assets, "etcd")}
	var output bytes.Buffer
	apiserver.Err = &output
	for k, v := range args {
		apiserver.Configure().Set(k, v)
	}
	done := make(chan struct{})
	stop := func() error { return harness.StopControlPlane(env, "") }
	harness.StopOnSignalOrDeadline("live suite", stop, done)
	t.Cleanup(func() {
		close(done)
		if err := stop(); err != nil {
			t.Error(err)
		}
	})
	config, err := env.Start()
	if err != nil {
		t.Fatalf("starting %s/kube-apiserver: %v\n%s", assets, err, output.Bytes())
	}
	return config
}

// createAll creates the objects of the manifest file on the cluster of
// config, in order.
func createAll(t *testing.T, config *rest.Config, file string) {
	t.Helper()
	docs, err := manifest.ReadAll([]string{file}, nil)
	if err != nil {
		t.Fatal(err)
	}
	client := dynamic.NewForConfigOrDie(config)
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(discovery.NewDiscoveryClientForConfigOrDie(config)))
	for _, doc := range docs {
		u := &unstructured.Unstructured{Object: doc.Object}
		gvk := schema.FromAPIVersionAndKind(u.GetAPIVersion(), u.GetKind())
		m, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		if err != nil {
			t.Fatalf("%s: %v", doc.Position(), err)
		}
		var r dynamic.ResourceInterface = client.Resource(m.Resource)
		if m.Scope.Name() == meta.RESTScopeNameNamespace {
			r = client.Resource(m.Resource).Namespace(u.GetNamespace())
		}
		if _, err := r.Create(context.Background(), u, metav1.CreateOptions{}); err != nil {
			t.Fatalf("%s: creating %s %s: %v", doc.Position(), u.GetKind(), u.GetName(), err)
		}
	}
}

// claimbridge runs the command line with args and returns its exit code,
// standard output and the lines of standard error.
func claimbridge(t *testing.T, stdin string, args ...string) (int, string, []string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := cli.Main(args, strings.NewReader(stdin), &out, &errOut)
	t.Logf("claimbridge %s: exit %d\n%s", strings.Join(args, " "), code, errOut.String())
	return code, out.String(), strings.Split(strings.TrimSuffix(errOut.String(), "\n"), "\n")
}

// release is the Kubernetes release ("1.37") of the cluster of config.
func release(t *testing.T, config *rest.Config) string {
	t.Helper()
	info, err := discovery.NewDiscoveryClientForConfigOrDie(config).ServerVersion()
	if err != nil {
		t.Fatal(err)
	}
	return info.Major + "." + info.Minor
}
