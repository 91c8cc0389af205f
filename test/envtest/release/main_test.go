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
// The apiservers' answers are recorded in testdata/kube-apiserver-<release>.jsonl
// (package recorded): `go test` checks claimbridge against them, and fails
// naming the request when claimbridge sends one that was never recorded.
// `make record` starts each release's control plane (DynamicResourceAllocation
// and its resource.k8s.io version enabled: DRA was alpha then) and records
// the answers anew.
package release

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"sync"
	"testing"

	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/test/envtest/harness"
	"github.com/claimbridge/claimbridge/test/recorded"
)

// release is an old Kubernetes release whose apiserver the suite runs.
type release struct {
	name    string // "1.31"
	version string // the resource.k8s.io version it serves: migrate's --to
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
	name: "1.31", version: api.V1alpha3,
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
	name: "1.30", version: api.V1alpha2,
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
	name: "1.26", version: api.V1alpha1,
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
	old       *harness.OldRelease
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
	complete = code == 0 && recorded.Complete()
	if err := stop(); err != nil {
		fmt.Fprintf(os.Stderr, "release suite: stopping: %v\n", err)
		if code == 0 {
			code = 1
		}
	}
	os.Exit(code)
}

// start runs the release's kube-apiserver and etcd, or opens its recorded
// answers, and checks that the server that answers is the release's.
func start(r release) (*cluster, error) {
	old, err := harness.StartOldRelease(r.name, r.version, "testdata/kube-apiserver-"+r.name+".jsonl")
	if err != nil {
		return nil, err
	}
	c := &cluster{release: r, old: old}
	if c.dynamic, err = dynamic.NewForConfig(old.Config); err != nil {
		return c, err
	}
	if c.core, err = kubernetes.NewForConfig(old.Config); err != nil {
		return c, err
	}
	if c.discovery, err = discovery.NewDiscoveryClientForConfig(old.Config); err != nil {
		return c, err
	}
	if err := harness.CheckServerRelease(c.discovery, r.name); err != nil {
		return c, err
	}
	return c, nil
}

// complete is true when the suite ran every test: its recorded answers
// must then all have been asked for.
var complete bool

// stop stops every control plane (writing the answers under `make record`);
// it is safe to call more than once.
func stop() error {
	stopOnce.Do(func() {
		close(done)
		mu.Lock()
		defer mu.Unlock()
		var errs []error
		for _, c := range clusters {
			errs = append(errs, c.old.Stop(complete))
		}
		stopErr = errors.Join(errs...)
	})
	return stopErr
}
