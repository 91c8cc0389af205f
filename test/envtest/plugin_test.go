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

// buildAs builds claimbridge into a new directory under the name name and
// returns the directory, to put in front of the PATH.
func buildAs(t *testing.T, name string) string {
	t.Helper()
	root, err := harness.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	build := exec.Command("go", "build", "-o", filepath.Join(bin, name), "./cmd/claimbridge")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// TestKubectlPlugin runs claimbridge through the real kubectl ($KUBECTL, of
// the current release) as krew installs it: a binary named
// kubectl-claimbridge on the PATH. kubectl lists the plugin and runs it,
// and its help names the command as the user typed it.
func TestKubectlPlugin(t *testing.T) {
	kubectl := os.Getenv("KUBECTL")
	if kubectl == "" {
		t.Fatal("KUBECTL is not set: run `make envtest-assets` and set the variables of `hack/envtest-assets.sh --env` (`make test-envtest` does both)")
	}
	bin := buildAs(t, "kubectl-claimbridge")
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

// TestHelmPostRenderer installs plugins/helm into the real helm ($HELM,
// Helm 4) and renders a chart written for resource.k8s.io/v1 for a 1.33
// cluster (v1beta2) through it: the claim template is converted, the
// ConfigMap passes through.
func TestHelmPostRenderer(t *testing.T) {
	helm := os.Getenv("HELM")
	if helm == "" {
		t.Fatal("HELM is not set: run `make envtest-assets` and set the variables of `hack/envtest-assets.sh --env` (`make test-envtest` does both)")
	}
	root, err := harness.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	bin, home := buildAs(t, "claimbridge"), t.TempDir()
	chart := filepath.Join(t.TempDir(), "gpu")
	for name, text := range map[string]string{
		"Chart.yaml": "apiVersion: v2\nname: gpu\nversion: 0.1.0\n",
		"templates/template.yaml": `apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata:
  name: {{ .Release.Name }}-gpu
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly:
          deviceClassName: gpu.example.com
`,
		"templates/settings.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-settings\ndata:\n  mode: shared\n",
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(chart, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(chart, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Plugins go to HELM_DATA_HOME/plugins (helm 4.3 installs there even
	// when HELM_PLUGINS says otherwise).
	var env []string
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, "HELM_") {
			env = append(env, e)
		}
	}
	env = append(env, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
		"HELM_CONFIG_HOME="+filepath.Join(home, "config"), "HELM_CACHE_HOME="+filepath.Join(home, "cache"),
		"HELM_DATA_HOME="+filepath.Join(home, "data"))
	helmRun := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(helm, args...)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("helm %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	helmRun("plugin", "install", filepath.Join(root, "plugins", "helm"))
	out := helmRun("template", "gpu", chart, "--post-renderer", "claimbridge", "--post-renderer-args=--to=v1beta2")
	for _, want := range []string{
		"apiVersion: resource.k8s.io/v1beta2\nkind: ResourceClaimTemplate\n",
		"      - exactly:\n          deviceClassName: gpu.example.com\n        name: gpu\n",
		"apiVersion: v1\ndata:\n  mode: shared\nkind: ConfigMap\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("helm template through the plugin:\n%s\nwant it to contain:\n%s", out, want)
		}
	}
}
