//go:build envtest

package envtest_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claimbridge/claimbridge/test/envtest/harness"
)

// TestKubectlPlugin runs claimbridge through the real kubectl ($KUBECTL, of
// the current release) as krew installs it: a binary named
// kubectl-claimbridge on the PATH. kubectl lists the plugin and runs it,
// and its help names the command as the user typed it.
func TestKubectlPlugin(t *testing.T) {
	kubectl := os.Getenv("KUBECTL")
	if kubectl == "" {
		t.Fatal("KUBECTL is not set: run `make envtest-assets` and set the variables of `hack/envtest-assets.sh --env` (`make test-envtest` does both)")
	}
	root, err := harness.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	build := exec.Command("go", "build", "-o", filepath.Join(bin, "kubectl-claimbridge"), "./cmd/claimbridge")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	claim := filepath.Join(t.TempDir(), "claim.yaml")
	if err := os.WriteFile(claim, []byte("apiVersion: resource.k8s.io/v1alpha2\nkind: ResourceClaim\n"+
		"metadata: {name: gpu, namespace: ml}\nspec: {resourceClassName: gpu.example.com}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"plugin", "list"}, filepath.Join(bin, "kubectl-claimbridge")},
		{[]string{"claimbridge", "--help"}, "  kubectl claimbridge [command]"},
		{[]string{"claimbridge", "migrate", "--help"}, "  kubectl claimbridge migrate --to "},
		{[]string{"claimbridge", "migrate", "--to", "v2", "-f", claim}, ""}, // its exit code reaches kubectl's caller
		{[]string{"claimbridge", "migrate", "--to", "v1", "-f", claim}, "    - exactly:\n        allocationMode: ExactCount\n"},
	} {
		cmd := exec.Command(kubectl, c.args...)
		cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
		out, err := cmd.CombinedOutput()
		if c.want == "" {
			if err == nil {
				t.Errorf("kubectl %s: no error\n%s", strings.Join(c.args, " "), out)
			}
			continue
		}
		if err != nil || !strings.Contains(string(out), c.want) {
			t.Errorf("kubectl %s: %v\n%s\nwant it to contain %q", strings.Join(c.args, " "), err, out, c.want)
		}
	}
}
