package builds

import (
	"context"
	"testing"

	"github.com/claimbridge/claimbridge/test/envtest/harness"
)

// kube131 is the control plane of the second pass: the oldest release
// whose clusters serve v1alpha3 (1.31), whose conversion, watch cache and
// managedFields code differ from those of the release the suite's first
// pass runs (KUBEBUILDER_ASSETS).
var kube131 = harness.Assets{Variable: "ENVTEST_ASSETS_1_31", PrintFlag: "--print-assets-dir=1.31", Release: "1.31"}

// TestOnKube131 runs the suite's roll properties again against
// kube-apiserver 1.31 (ENVTEST_ASSETS_1_31; a missing binary fails it):
// a control plane of its own, with this build and the older builds behind
// proxies of their own, started as TestMain starts the first, the suite's
// globals pointing at it for the length of the test. The rolls to and from
// the release before this one (previousRelease) and a recent build: the
// rollback, the upgrade, refusals and server-side apply across builds, and
// the mixed rollout with previousRelease (with both it is the suite's
// longest test; the first pass runs both).
func TestOnKube131(t *testing.T) {
	savedEnv, savedConversion, savedAdmission, savedReplicas, savedInstalled := env, conversion, admission, replicas, installed
	t.Cleanup(func() {
		env, conversion, admission, replicas, installed = savedEnv, savedConversion, savedAdmission, savedReplicas, savedInstalled
	})
	replicas, installed = map[string]string{}, ""
	e, err := harness.Start(context.Background(), harness.Options{StartServer: startReplicas, Assets: kube131})
	if err != nil {
		t.Fatalf("starting kube-apiserver 1.31 with the builds: %v", err)
	}
	t.Cleanup(func() {
		if err := e.Stop(); err != nil {
			t.Errorf("stopping kube-apiserver 1.31: %v", err)
		}
	})
	env = e
	for _, c := range []struct {
		name string
		test func(*testing.T)
	}{
		{"TestRollback", TestRollback},
		{"TestUpgrade", TestUpgrade},
		{"TestMixedRolloutRefusals", TestMixedRolloutRefusals},
		{"TestApplyAcrossBuilds", TestApplyAcrossBuilds},
		{"TestApplyVersionSwitchAcrossBuilds", TestApplyVersionSwitchAcrossBuilds},
		{"TestConversionOutageDuringStorageVersionWrite", TestConversionOutageDuringStorageVersionWrite},
		{"TestMixedRollout/" + previousRelease, func(t *testing.T) { testMixedRollout(t, previousRelease) }},
	} {
		t.Run(c.name, c.test)
	}
}
