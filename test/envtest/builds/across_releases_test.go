//go:build envtest

package builds

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/claimbridge/claimbridge/test/envtest/harness"
)

// oldest is the control plane of the second pass: the oldest release the
// server supports (1.30), whose conversion, watch cache and
// managedFields code differ from those of the release the suite's first
// pass runs (KUBEBUILDER_ASSETS).
var oldest = harness.Assets{Variable: "ENVTEST_ASSETS_1_30", PrintFlag: "--print-assets-dir=1.30", Release: "1.30"}

// onOldestEnv, set, makes the test binary the second pass: TestMain starts
// its control plane from oldest.
const onOldestEnv = "CLAIMBRIDGE_BUILDS_ON_OLDEST"

// TestOnOldest runs every other test of the package again against
// kube-apiserver 1.30 (ENVTEST_ASSETS_1_30; a missing binary fails it): the
// rolls to, from and beside the release before this one (previousRelease)
// and a recent build (the rollback, the upgrade, refusals, server-side apply
// across builds, the conversion outage and the mixed rollout), and the rolls
// across the defaults (to and from beforeDefaults: the restore data for the
// defaulted fields). The second pass is this test binary in a process of its
// own, with a control plane, this build and the older builds of its own; it
// runs while the first pass does (its file sorts first, so it starts first),
// and its output follows the first pass's.
func TestOnOldest(t *testing.T) {
	args := []string{"-test.skip=^TestOnOldest$", "-test.count=1", fmt.Sprintf("-test.v=%t", testing.Verbose())}
	if d, ok := t.Deadline(); ok {
		args = append(args, "-test.timeout="+time.Until(d).Round(time.Second).String())
	}
	var out bytes.Buffer
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), onOldestEnv+"=1")
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting the second pass: %v", err)
	}
	t.Parallel() // the first pass runs meanwhile
	err := cmd.Wait()
	fmt.Printf("=== the package's tests against kube-apiserver 1.30 (TestOnOldest):\n%s=== end of TestOnOldest's pass\n", out.Bytes())
	if err != nil {
		t.Fatalf("the package's tests against kube-apiserver 1.30 failed (%v); their output is above", err)
	}
}
