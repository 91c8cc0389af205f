//go:build envtest

package upgrade

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claimbridge/claimbridge/cli"
)

// TestUpgradeAcrossRestart: the rollback of TestUpgradeRewritesInPlace
// (1000 claims) with kube-apiserver restarted while upgrade rewrites the
// claims, as an operator restarting the wrong one would. The run, which
// reaches the apiserver with a token that outlives the restart, either
// waits out the restart and finishes, or stops and names the error; run
// again, it finishes. Then etcd holds every object as 1.33 reads it.
func TestUpgradeAcrossRestart(t *testing.T) {
	dir := t.TempDir()
	tokens := filepath.Join(dir, "tokens.csv")
	if err := os.WriteFile(tokens, []byte("upgrade-token,upgrader,upgrader,system:masters\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c := start136(t, map[string]string{"token-auth-file": tokens})
	createStored(t, t.Context(), c.d, 1000, 0)
	c.restart(t, "min-compatibility-version", "1.33") // the operator's step
	kubeconfig := filepath.Join(dir, "token-kubeconfig")
	if err := os.WriteFile(kubeconfig, fmt.Appendf(nil, `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: %q, insecure-skip-tls-verify: true}}]
users: [{name: u, user: {token: upgrade-token}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
current-context: c
`, c.cfg.Host), 0o600); err != nil {
		t.Fatal(err)
	}
	bin, args := built(t), []string{"upgrade", "--kubeconfig", kubeconfig, "--to", "1.33", "--yes"}
	rewritten := func() int { return len(storedVersions(t, c.env)["resource.k8s.io/v1beta2"]) }
	cmd, out, exited := startRun(t, bin, args, func() bool { return rewritten() >= 100 })
	s, before := c.env.ControlPlane.GetAPIServer(), rewritten()
	began := time.Now()
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		t.Fatalf("the run ended (%v) before kube-apiserver stopped: this test proves nothing\n%s", err, out)
	default:
	}
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	t.Logf("kube-apiserver stopped once %d of 1004 objects were rewritten, and was down %s", before, time.Since(began).Round(time.Millisecond))
	select {
	case <-exited:
	case <-time.After(3 * time.Minute):
		_ = cmd.Process.Kill()
		t.Fatalf("the run did not end 3 minutes after the restart:\n%s", out)
	}
	t.Logf("exit %d:\n%s", cmd.ProcessState.ExitCode(), out)
	switch code := cmd.ProcessState.ExitCode(); {
	case code == cli.ExitInvalid && strings.Contains(out.String(), "Error: "): // stopped, with the reason: run again
		cmd, out, exited = startRun(t, bin, args, func() bool { return true })
		<-exited
		if code := cmd.ProcessState.ExitCode(); code != cli.ExitOperator {
			t.Fatalf("run again: exit %d, want %d:\n%s", code, cli.ExitOperator, out)
		}
	case code != cli.ExitOperator:
		t.Fatalf("exit %d, want %d, or %d naming the error:\n%s", code, cli.ExitOperator, cli.ExitInvalid, out)
	}
	if !strings.Contains(out.String(), "resourceclaims rewritten in place (objects: 1000)") {
		t.Errorf("the last run does not say the claims are rewritten:\n%s", out)
	}
	if stored := storedVersions(t, c.env); len(stored) != 1 || len(stored["resource.k8s.io/v1beta2"]) != 1004 {
		t.Errorf("etcd holds %v, want each of the 1004 objects in v1beta2", stored)
	}
}
