//go:build envtest

package ga

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/conversion"
	"github.com/claimbridge/claimbridge/judge"
	"github.com/claimbridge/claimbridge/test/envtest/harness"
	"github.com/claimbridge/claimbridge/test/recorded"
)

// allDRAGates turns on every DRA gate of release minor that is not locked,
// and the gates they depend on.
func allDRAGates(minor int) string {
	on := map[string]bool{}
	var add func(name string)
	add = func(name string) {
		if spec, _ := api.Gate(minor, name); !spec.Locked && !on[name] {
			on[name] = true
			for _, dep := range spec.Deps {
				add(dep)
			}
		}
	}
	for _, name := range api.DRAGates(minor) {
		add(name)
	}
	var flags []string
	for _, name := range slices.Sorted(maps.Keys(on)) {
		flags = append(flags, name+"=true")
	}
	return strings.Join(flags, ",")
}

// TestParityGatesOn: kube-apiserver 1.37 started with every DRA feature
// gate on and api/all=true, and claimbridge told the same
// (--feature-gates, --runtime-config), agree on every object of the kinds
// corpus (DeviceClasses, ResourceSlices, DeviceTaintRules) and the claim
// corpora: the same verdict, the same field paths on a 422, and every
// field the apiserver drops named by a warning.
func TestParityGatesOn(t *testing.T) {
	featureGates, runtimeConfig := allDRAGates(37), "api/all=true"
	c, err := harness.Cluster("1.37", featureGates, runtimeConfig)
	if err != nil {
		t.Fatal(err)
	}
	config := startGated(t, featureGates, runtimeConfig)
	client, err := dynamic.NewForConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	core, err := kubernetes.NewForConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	ns, err := core.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{
		GenerateName: "gates-on-", Labels: map[string]string{conversion.AdminAccessLabel: "true"},
	}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	objects := kindsCorpus(t)
	for _, dir := range []string{"parity", "parity-1.33", "parity-1.32", "parity-deviceclass"} {
		files, err := filepath.Glob(filepath.Join("testdata", dir, "*.yaml"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no corpus in testdata/%s: %v", dir, err)
		}
		for _, file := range files {
			objects[dir+"/"+strings.TrimSuffix(filepath.Base(file), ".yaml")] = readObject(t, file, ns.Name)
		}
	}
	refused := 0
	for _, name := range slices.Sorted(maps.Keys(objects)) {
		t.Run(name, func(t *testing.T) {
			obj := objects[name]
			if version, _ := judge.KindOf(obj); version != "" {
				if testKindParity(t, c, obj, client) != nil {
					refused++
				}
				return
			}
			if testClaimParity(t, c, obj, client, ns.Name) != nil {
				refused++
			}
		})
	}
	t.Logf("parity with kube-apiserver 1.37 --feature-gates=%s --runtime-config=%s: %d objects, %d refused", featureGates, runtimeConfig, len(objects), refused)
}

// testClaimParity is testKindParity for a claim or template: the verdict
// of judge.Check, as validate gives it, against the apiserver's.
func testClaimParity(t *testing.T, c api.Cluster, obj map[string]interface{}, client dynamic.Interface, ns string) error {
	t.Helper()
	version, kind := kindOf(obj)
	errs, _ := judge.Check(api.DeepCopyJSON(obj), c, kind)
	serverErr := dryRunCreate(client, ns, api.DeepCopyJSON(obj), version, kind)
	switch {
	case len(errs) == 0 && serverErr != nil:
		t.Fatalf("claimbridge accepts it, kube-apiserver 1.37 refuses it: %v", serverErr)
	case len(errs) > 0 && serverErr == nil:
		t.Fatalf("claimbridge refuses it, kube-apiserver 1.37 accepts it:\n%s", strings.Join(errs, "\n"))
	}
	return serverErr
}

// startGated starts a second control plane of the current release with
// the flags given, for t.
func startGated(t *testing.T, featureGates, runtimeConfig string) *rest.Config {
	t.Helper()
	assets, err := harness.AssetsDir()
	if err != nil {
		t.Fatal(err)
	}
	timeout := 60 * time.Second
	if os.Getenv("KUBEBUILDER_CONTROLPLANE_START_TIMEOUT") != "" {
		timeout = 0 // envtest reads the variable itself
	}
	env := &envtest.Environment{BinaryAssetsDirectory: assets, ControlPlaneStartTimeout: timeout}
	args := env.ControlPlane.GetAPIServer().Configure()
	args.Set("feature-gates", featureGates)
	args.Set("runtime-config", runtimeConfig)
	config, err := env.Start()
	if err != nil {
		t.Fatal(fmt.Errorf("starting kube-apiserver with --feature-gates=%s --runtime-config=%s: %w", featureGates, runtimeConfig, err))
	}
	t.Cleanup(func() {
		if err := harness.StopControlPlane(env, ""); err != nil {
			t.Error(err)
		}
	})
	config.WarningHandler = rest.NoWarnings{}
	return config
}

// TestParityGatesOnOld: TestParityGatesOn for 1.26 and 1.30–1.36, each
// release's kube-apiserver started with every DRA gate it has on and
// api/all=true, live under `make record` or from its recorded answers
// (testdata/gates-on-<release>.jsonl.gz): the kinds TestParityKindsOld
// sends it, and from 1.32 the claim corpora of TestParity1_32 … 1_36.
func TestParityGatesOnOld(t *testing.T) {
	corpus := kindsCorpus(t)
	for _, r := range kindsReleases {
		t.Run(r.name, func(t *testing.T) {
			minor, _ := api.ParseMinor(r.name)
			featureGates, runtimeConfig := allDRAGates(minor), "api/all=true"
			c, err := harness.Cluster(r.name, featureGates, runtimeConfig)
			if err != nil {
				t.Fatal(err)
			}
			old, err := harness.StartOldReleaseWith(r.name, "testdata/gates-on-"+r.name+".jsonl.gz", featureGates, runtimeConfig)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				if err := old.Stop(!t.Failed() && recorded.Complete()); err != nil {
					t.Errorf("Kubernetes %s: %v", r.name, err)
				}
			})
			client, err := dynamic.NewForConfig(old.Config)
			if err != nil {
				t.Fatal(err)
			}
			// Both admin-access labels: 1.33's and the one of 1.34+.
			ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "gates-on",
				Labels: map[string]string{conversion.AdminAccessLabel: "true", conversion.AdminAccessLabel133: "true"}}}
			if _, err := kubernetes.NewForConfigOrDie(old.Config).CoreV1().Namespaces().Create(context.Background(), ns, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			objects := map[string]map[string]interface{}{}
			for name, obj := range corpus {
				if out := convertKind(t, obj, r.name); out != nil {
					objects["converted-"+name] = out
				}
			}
			if r.native != "" {
				maps.Copy(objects, readKindsDir(t, r.native))
			}
			if minor >= 32 {
				for _, dir := range []string{"parity", "parity-1.33", "parity-1.32", "parity-deviceclass"} {
					files, _ := filepath.Glob(filepath.Join("testdata", dir, "*.yaml"))
					for _, file := range files {
						obj := readObject(t, file, ns.Name)
						if version, kind := kindOf(obj); c.Has(version, kind) {
							objects[dir+"/"+strings.TrimSuffix(filepath.Base(file), ".yaml")] = obj
						}
					}
				}
			}
			refused := 0
			for _, name := range slices.Sorted(maps.Keys(objects)) {
				t.Run(name, func(t *testing.T) {
					obj := objects[name]
					var serverErr error
					if version, _ := judge.KindOf(obj); version != "" {
						serverErr = testKindParity(t, c, obj, client)
					} else {
						serverErr = testClaimParity(t, c, obj, client, ns.Name)
					}
					if serverErr != nil {
						refused++
					}
				})
			}
			t.Logf("parity with kube-apiserver %s --feature-gates=%s --runtime-config=%s: %d objects, %d refused", r.name, featureGates, runtimeConfig, len(objects), refused)
		})
	}
}
