// Package release creates the output of `claimbridge migrate` in the real
// kube-apiserver of the release that serves the target version — Kubernetes
// 1.31.14 for v1alpha3, 1.30.14 for v1alpha2, 1.26.15 for v1alpha1 — built
// from that release's own sources (hack/tools/kube-apiserver-1.31, -1.30,
// -1.26, with etcd 3.5 from hack/tools/etcd-3.5). It migrates the 1.26 and
// 1.30 manifests of examples/ and conversion/testdata (claims, templates,
// typed lists, 1.30 parameters) with the CLI in-process — to v1alpha3 for
// 1.31, the 1.26 ones to v1alpha2 for 1.30, 1.26 and 1.30 ones without
// parameter objects to v1alpha1 for 1.26 — creates every result, and compares what the apiserver stored
// with what migrate wrote, exactly, modulo the server-set metadata, the
// fields serialized when unset and the defaults listed in expected_test.go.
// test/oracle checks the same migrations against upstream's validation and
// create strategy of 1.26, 1.30 and 1.31 (docs/validation.md); this suite is
// the proof with the apiserver itself. TestConvertVerdicts sends what
// `claimbridge convert` writes to the same apiservers (harness.ConvertVerdicts).
//
// TestMain starts one control plane per row of releases, with
// --feature-gates=DynamicResourceAllocation=true and
// --runtime-config=resource.k8s.io/<version>=true (DRA was alpha then). A
// missing binary, or one of another release, fails the suite.
//
// Run with `make test`, or:
//
//	make envtest-assets
//	ENVTEST_ASSETS_1_31=$(hack/envtest-assets.sh --print-assets-dir=1.31) \
//	ENVTEST_ASSETS_1_30=$(hack/envtest-assets.sh --print-assets-dir=1.30) \
//	ENVTEST_ASSETS_1_26=$(hack/envtest-assets.sh --print-assets-dir=1.26) \
//	go test ./test/envtest/release/
package release

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/claimbridge/claimbridge/conversion"
	"github.com/claimbridge/claimbridge/test/envtest/harness"
)

// release is an old Kubernetes release whose apiserver the suite runs.
type release struct {
	name      string // "1.31"
	version   string // the resource.k8s.io version it serves: migrate's --to
	assetsVar string // environment variable naming the assets directory
	printFlag string // hack/envtest-assets.sh flag that prints it
	// inputs are the manifests (globs, relative to this package) migrated to
	// version and created.
	inputs []string
	// rejected maps an input (file name) whose migration the release
	// rejects to the field its error must name: partial fixtures that their
	// own release rejects as well. migrate must refuse them naming that
	// field, and the release must reject their plain conversion.
	rejected map[string]string
}

var releases = []release{{
	name: "1.31", version: conversion.V1alpha3,
	assetsVar: "ENVTEST_ASSETS_1_31", printFlag: "--print-assets-dir=1.31",
	inputs: []string{
		"../../../examples/claim-v1alpha1.yaml",
		"../../../examples/claim-v1alpha2.yaml",
		"../../../examples/template-v1alpha2.yaml",
		"../../../examples/migrate/exported-1.30.yaml",
		"../../../conversion/testdata/*.v1alpha1.yaml",
		"../../../conversion/testdata/*.v1alpha2.yaml",
		"../../../test/manifests/exports/*/claims.*", // real 1.30 and 1.26 exports
	},
	// A spec without metadata: no release creates an object without a name.
	rejected: map[string]string{"partial-spec.v1alpha1.yaml": "metadata.name"},
}, {
	name: "1.30", version: conversion.V1alpha2,
	assetsVar: "ENVTEST_ASSETS_1_30", printFlag: "--print-assets-dir=1.30",
	inputs: []string{
		"../../../examples/claim-v1alpha1.yaml",
		"../../../conversion/testdata/*.v1alpha1.yaml",
		"../../../test/manifests/exports/1.26/claims.*",
	},
	// A status without a spec: no resourceClassName, which 1.26's
	// v1alpha1 requires as well as 1.30's v1alpha2 (1.31's v1alpha3 claim
	// has no class and accepts it).
	rejected: map[string]string{"partial-status.v1alpha1.yaml": "spec.resourceClassName", "partial-spec.v1alpha1.yaml": "metadata.name"},
}, {
	// Re-creating 1.26 claims on 1.26, and 1.30 claims (without parameter
	// objects, which 1.26 does not serve) on 1.26.
	name: "1.26", version: conversion.V1alpha1,
	assetsVar: "ENVTEST_ASSETS_1_26", printFlag: "--print-assets-dir=1.26",
	inputs: []string{
		"../../../examples/claim-v1alpha1.yaml",
		"../../../examples/claim-v1alpha2.yaml",
		"../../../examples/template-v1alpha2.yaml",
		"../../../conversion/testdata/*.v1alpha1.yaml",
		"../../../conversion/testdata/*.v1alpha2.yaml",
		"../../../test/manifests/exports/*/claims.*",
	},
	rejected: map[string]string{"partial-status.v1alpha1.yaml": "spec.resourceClassName", "partial-spec.v1alpha1.yaml": "metadata.name"},
}}

// cluster is a running control plane of a release.
type cluster struct {
	release
	env       *envtest.Environment
	dynamic   dynamic.Interface
	core      kubernetes.Interface
	discovery discovery.DiscoveryInterface
}

var (
	mu       sync.Mutex // guards clusters against stop on a signal
	clusters = map[string]*cluster{}

	stopOnce sync.Once
	stopErr  error
	done     = make(chan struct{})
)

func TestMain(m *testing.M) {
	flag.Parse() // for -test.timeout, read by harness.StopOnSignalOrDeadline
	harness.StopOnSignalOrDeadline("release suite", stop, done)
	for _, r := range releases {
		c, err := start(r)
		if c != nil {
			mu.Lock()
			clusters[r.name] = c
			mu.Unlock()
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "release suite: Kubernetes %s: %v\n", r.name, err)
			if stopErr := stop(); stopErr != nil {
				fmt.Fprintf(os.Stderr, "release suite: stopping after the failed start: %v\n", stopErr)
			}
			os.Exit(1)
		}
	}
	code := m.Run()
	if err := stop(); err != nil {
		fmt.Fprintf(os.Stderr, "release suite: stopping: %v\n", err)
		if code == 0 {
			code = 1
		}
	}
	os.Exit(code)
}

// start runs the release's kube-apiserver and etcd, after checking that the
// binary is that release's (a 1.36 binary would prove nothing).
func start(r release) (*cluster, error) {
	assets, err := harness.AssetsDirFrom(r.assetsVar, r.printFlag)
	if err != nil {
		return nil, err
	}
	if err := harness.CheckRelease(assets, r.name); err != nil {
		return nil, err
	}
	timeout := 90 * time.Second
	if os.Getenv("KUBEBUILDER_CONTROLPLANE_START_TIMEOUT") != "" {
		timeout = 0 // envtest reads the variable itself
	}
	// The binaries by path: envtest would otherwise prefer $KUBEBUILDER_ASSETS
	// (make test points it at 1.36) over BinaryAssetsDirectory. The
	// kube-apiserver's output is kept for the error of a failed start.
	c := &cluster{release: r}
	c.env = &envtest.Environment{BinaryAssetsDirectory: assets, ControlPlaneStartTimeout: timeout}
	apiserver := c.env.ControlPlane.GetAPIServer()
	apiserver.Path = assets + "/kube-apiserver"
	c.env.ControlPlane.Etcd = &envtest.Etcd{Path: assets + "/etcd"}
	var output bytes.Buffer
	apiserver.Err = &output
	args := apiserver.Configure()
	args.Set("feature-gates", "DynamicResourceAllocation=true")
	args.Set("runtime-config", conversion.UpstreamGroup+"/"+r.version+"=true")
	config, err := c.env.Start()
	if err != nil {
		_ = harness.StopControlPlane(c.env, "")
		return nil, fmt.Errorf("starting envtest (%s=%s; rebuild with `make envtest-assets`): %w\nkube-apiserver output (last 4 KiB):\n%s",
			r.assetsVar, assets, err, tail(output.Bytes(), 4096))
	}
	if c.dynamic, err = dynamic.NewForConfig(config); err != nil {
		return c, err
	}
	if c.core, err = kubernetes.NewForConfig(config); err != nil {
		return c, err
	}
	if c.discovery, err = discovery.NewDiscoveryClientForConfig(config); err != nil {
		return c, err
	}
	// The server that answers must be the release's, not another one.
	if err := harness.CheckServerRelease(c.discovery, r.name); err != nil {
		return c, fmt.Errorf("the control plane started from %s: %w", assets, err)
	}
	return c, nil
}

// tail returns the last n bytes of b.
func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}

// stop stops every control plane; it is safe to call more than once.
func stop() error {
	stopOnce.Do(func() {
		close(done)
		mu.Lock()
		defer mu.Unlock()
		var errs []error
		for _, c := range clusters {
			errs = append(errs, harness.StopControlPlane(c.env, ""))
		}
		stopErr = errors.Join(errs...)
	})
	return stopErr
}
