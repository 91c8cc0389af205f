//go:build envtest

package check

import (
	"bytes"
	"path/filepath"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/claimbridge/claimbridge/cli"
	"github.com/claimbridge/claimbridge/test/envtest/harness"
)

// TestCheckEmulated: kube-apiserver 1.37 started with --emulated-version=1.36,
// as mid-upgrade, is checked as 1.36 going to 1.37 (its binary's release),
// and no gate at 1.36's defaults is carried as a flag. Its
// --min-compatibility-version, older than 1.36's default, is read and named.
func TestCheckEmulated(t *testing.T) {
	assets, err := harness.AssetsDir()
	if err != nil {
		t.Fatal(err)
	}
	emulated := &envtest.Environment{BinaryAssetsDirectory: assets, ControlPlaneStartTimeout: 60 * time.Second}
	emulated.ControlPlane.GetAPIServer().Configure().Set("emulated-version", "1.36").Set("min-compatibility-version", "1.34")
	cfg, err := emulated.Start()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	t.Cleanup(func() { _ = harness.StopControlPlane(emulated, dir) })
	path := filepath.Join(dir, "kubeconfig")
	if err := harness.WriteKubeconfig(cfg, path); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	code := cli.Main([]string{"check", "--kubeconfig", path}, nil, &out, &errOut)
	want := "note: the cluster's kube-apiserver 1.37 emulates Kubernetes 1.36 (--emulated-version): it is judged as 1.36\n" +
		"note: the cluster keeps what it stores readable by Kubernetes 1.34 (--min-compatibility-version): its objects are judged as stored for it\n" +
		"target: Kubernetes 1.37, the release after the cluster's 1.36\n" +
		"claimbridge check: 0 objects read: 0 valid, 0 invalid, 0 skipped, 0 warned\n"
	if code != 0 || errOut.String() != want || out.String() != "" {
		t.Errorf("exit %d\nstdout: %s\nstderr:\n%s\nwant:\n%s", code, out.String(), errOut.String(), want)
	}
}
