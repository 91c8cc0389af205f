//go:build envtest

package envtest_test

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

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

// gpuChart writes a chart written for resource.k8s.io/v1: a claim
// template and a ConfigMap. gpuSettings and gpuTemplate are its documents
// as claimbridge writes them for a 1.33 cluster (v1beta2): the ConfigMap as
// the chart wrote it, the template converted below its "# Source:" line.
func gpuChart(t *testing.T) string {
	t.Helper()
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
		"templates/settings.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-settings\ndata:\n  mode: 'shared' # quoted\n",
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(chart, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(chart, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return chart
}

const (
	gpuSettings = `# Source: gpu/templates/settings.yaml
apiVersion: v1
kind: ConfigMap
metadata:
  name: gpu-settings
data:
  mode: 'shared' # quoted
`
	gpuTemplate = `# Source: gpu/templates/template.yaml
apiVersion: resource.k8s.io/v1beta2
kind: ResourceClaimTemplate
metadata:
  name: gpu-gpu
spec:
  spec:
    devices:
      requests:
      - exactly:
          deviceClassName: gpu.example.com
        name: gpu
`
)

// helmRunner runs helm with claimbridge (in bin) on the PATH and its own
// HELM_*_HOME directories, failing the test when it fails.
func helmRunner(t *testing.T, helm, bin string) func(args ...string) string {
	env := helmEnv(t, bin)
	return func(args ...string) string {
		t.Helper()
		cmd := exec.Command(helm, args...)
		cmd.Env = env
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("helm %s: %v\n%s%s", strings.Join(args, " "), err, out, stderrOf(err))
		}
		return string(out)
	}
}

// helmEnv is the environment of helmRunner: bin first on the PATH, and
// HELM_*_HOME directories of the test's own.
func helmEnv(t *testing.T, bin string) []string {
	home := t.TempDir()
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
	return env
}

// stderrOf is the standard error of a command that failed.
func stderrOf(err error) []byte {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.Stderr
	}
	return nil
}

// TestHelmPostRenderer installs plugins/helm into the real helm ($HELM,
// Helm 4) and renders gpuChart for a 1.33 cluster (v1beta2) through it.
// Helm 4 writes each document it is given back with a "---" line before it
// and a blank line after it.
func TestHelmPostRenderer(t *testing.T) {
	helm := os.Getenv("HELM")
	if helm == "" {
		t.Fatal("HELM is not set: run `make envtest-assets` and set the variables of `hack/envtest-assets.sh --env` (`make test-envtest` does both)")
	}
	root, err := harness.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	helmRun := helmRunner(t, helm, buildAs(t, "claimbridge"))
	helmRun("plugin", "install", filepath.Join(root, "plugins", "helm"))
	out := helmRun("template", "gpu", gpuChart(t), "--post-renderer", "claimbridge", "--post-renderer-args=--to=v1beta2")
	if d := cmp.Diff("---\n"+gpuSettings+"\n---\n"+gpuTemplate, out); d != "" {
		t.Errorf("helm template through the plugin (-want +got):\n%s", d)
	}
}

// TestHelm3PostRenderer renders gpuChart with the real Helm 3 ($HELM3)
// for a 1.33 cluster, with claimbridge as its executable post-renderer:
// what Helm 3 gives it, "---" lines included, comes back but the template.
func TestHelm3PostRenderer(t *testing.T) {
	helm := os.Getenv("HELM3")
	if helm == "" {
		t.Fatal("HELM3 is not set: run `make envtest-assets` and set the variables of `hack/envtest-assets.sh --env` (`make test-envtest` does both)")
	}
	helmRun := helmRunner(t, helm, buildAs(t, "claimbridge"))
	out := helmRun("template", "gpu", gpuChart(t), "--post-renderer", "claimbridge",
		"--post-renderer-args=convert", "--post-renderer-args=--to=v1beta2", "--post-renderer-args=-f=-")
	if d := cmp.Diff("---\n"+gpuSettings+"---\n"+gpuTemplate, out); d != "" {
		t.Errorf("helm template through claimbridge (-want +got):\n%s", d)
	}
}

// The overlay of TestKustomizeFunction, as docs/pipelines.md shows it: the
// function config names claimbridge on the PATH and the target version.
const (
	fnKustomization = `resources:
- ../base
transformers:
- claimbridge.yaml
`
	fnConfig = `apiVersion: v1
kind: ConfigMap
metadata:
  name: claimbridge
  annotations:
    config.kubernetes.io/function: |
      exec:
        path: claimbridge
        args: [fn]
data:
  to: v1beta2
`
)

// TestKustomizeFunction runs claimbridge as an exec KRM function in an
// overlay through the real kustomize ($KUSTOMIZE): the claim template of
// the base is converted, the ConfigMap comes out as the base alone gives
// it, and a claim that cannot be converted fails the build, named.
func TestKustomizeFunction(t *testing.T) {
	kustomize := os.Getenv("KUSTOMIZE")
	if kustomize == "" {
		t.Fatal("KUSTOMIZE is not set: run `make envtest-assets` and set the variables of `hack/envtest-assets.sh --env` (`make test-envtest` does both)")
	}
	root, err := harness.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	docs, err := os.ReadFile(filepath.Join(root, "docs", "pipelines.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{fnKustomization, fnConfig} {
		if !strings.Contains(string(docs), "```yaml\n"+text+"```\n") {
			t.Errorf("docs/pipelines.md does not show:\n%s", text)
		}
	}
	dir, bin := t.TempDir(), buildAs(t, "claimbridge")
	settings := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  count: '0123'\n  script: |\n    echo 1\n"
	for name, text := range map[string]string{
		"base/kustomization.yaml":    "resources:\n- settings.yaml\n- template.yaml\n",
		"base/settings.yaml":         settings,
		"base/template.yaml":         "apiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\nmetadata:\n  name: gpu\nspec:\n  spec:\n    devices:\n      requests:\n      - name: gpu\n        exactly:\n          deviceClassName: gpu.example.com\n",
		"overlay/kustomization.yaml": fnKustomization,
		"overlay/claimbridge.yaml":   fnConfig,
		"refused/kustomization.yaml": "resources:\n- ../base\n- claim.yaml\ntransformers:\n- claimbridge.yaml\n",
		"refused/claimbridge.yaml":   fnConfig,
		"refused/claim.yaml":         "apiVersion: resource.k8s.io/v1alpha4\nkind: ResourceClaim\nmetadata:\n  name: old\n",
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	build := func(name string) (string, error) {
		cmd := exec.Command(kustomize, "build", "--enable-alpha-plugins", "--enable-exec", filepath.Join(dir, name))
		cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
		out, err := cmd.Output()
		if err != nil {
			err = fmt.Errorf("%w\n%s", err, stderrOf(err))
		}
		return string(out), err
	}
	base, err := build("base")
	if err != nil {
		t.Fatal(err)
	}
	configMap, _, _ := strings.Cut(base, "---\n")
	out, err := build("overlay")
	if err != nil {
		t.Fatal(err)
	}
	want := configMap + "---\napiVersion: resource.k8s.io/v1beta2\nkind: ResourceClaimTemplate\nmetadata:\n  name: gpu\nspec:\n  spec:\n    devices:\n" +
		"      requests:\n      - exactly:\n          deviceClassName: gpu.example.com\n        name: gpu\n"
	if d := cmp.Diff(want, out); d != "" {
		t.Errorf("kustomize build of the overlay (-want +got):\n%s", d)
	}
	if !strings.Contains(configMap, "  count: \"0123\"\n  script: |\n    echo 1\n") {
		t.Errorf("kustomize build of the base: no ConfigMap as written:\n%s", base)
	}
	if out, err := build("refused"); err == nil || !strings.Contains(err.Error(), "[error] resource.k8s.io/v1alpha4/ResourceClaim/old: not converted: ") {
		t.Errorf("kustomize build of a claim that cannot be converted: %v\n%s", err, out)
	}
}
