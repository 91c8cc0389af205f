//go:build envtest

package envtest_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"

	"github.com/claimbridge/claimbridge/test/envtest/harness"
)

// writeTree writes files (path: text) under dir.
func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// findingsChart writes a chart written for Kubernetes 1.36+ that a 1.34
// cluster reads differently: a DeviceClass with extendedResourceName, a
// claim asking for capacity (fields 1.34 drops with its default feature
// gates) and, with --set old=true, a
// claim of a version that never existed, which claimbridge refuses.
func findingsChart(t *testing.T) string {
	t.Helper()
	chart := filepath.Join(t.TempDir(), "gpu")
	writeTree(t, chart, map[string]string{
		"Chart.yaml":  "apiVersion: v2\nname: gpu\nversion: 0.1.0\n",
		"values.yaml": "old: false\n",
		"templates/class.yaml": `apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: gpu.example.com
spec:
  extendedResourceName: example.com/gpu
  selectors:
  - cel:
      expression: device.driver == "gpu.example.com"
`,
		"templates/claim.yaml": `apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: {{ .Release.Name }}-shared
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClassName: gpu.example.com
        capacity:
          requests:
            memory: 1Gi
`,
		"templates/old.yaml": `{{- if .Values.old }}
apiVersion: resource.k8s.io/v1alpha4
kind: ResourceClaim
metadata:
  name: old
{{- end }}
`,
	})
	return chart
}

// What claimbridge says of findingsChart for 1.34, after the position of
// the object in what Helm gives it.
const (
	classWarning = "warning: DeviceClass gpu.example.com: spec.extendedResourceName: Kubernetes 1.34 drops it on a create: " +
		"its DRAExtendedResource feature gate is off by default (on from 1.36)\n"
	claimWarning = "warning: ResourceClaim gpu-shared: spec.devices.requests[0].exactly.capacity: Kubernetes 1.34 drops it on a create: " +
		"its DRAConsumableCapacity feature gate is off by default (on from 1.36)\n"
	oldRefused = "ResourceClaim old: not converted: apiVersion \"resource.k8s.io/v1alpha4\": unsupported version \"v1alpha4\""
	// helmFailed is all Helm 4 says of a post-renderer that fails.
	helmFailed = "Error: error while running post render on files: failed to invoke post-renderer plugin \"claimbridge\": plugin \"claimbridge\" exited with error\n"
)

// helmOutput is what a run of helm showed: its standard output and
// standard error, or what its terminal showed (both, "\r\n" read as
// "\n"), and its error.
type helmOutput struct {
	stdout, stderr string
	err            error
}

// TestHelmPostRendererFindings renders findingsChart for 1.34 through the
// plugin with the real Helm 4 ($HELM), which keeps what a plugin writes on
// standard error to itself: claimbridge writes its findings where helm
// writes, its standard error, in CI (a pipe, no terminal) as in a terminal
// (script(1) gives helm one). When helm's standard error is a file, they go
// to the terminal. With --strict, or when claimbridge refuses an object,
// helm fails with the findings shown.
func TestHelmPostRendererFindings(t *testing.T) {
	helm := os.Getenv("HELM")
	if helm == "" {
		t.Fatal("HELM is not set: run `make envtest-assets` and set the variables of `hack/envtest-assets.sh --env` (`make test-envtest` does both)")
	}
	if _, err := exec.LookPath("script"); err != nil {
		t.Fatalf("script (util-linux) gives helm a terminal: %v", err)
	}
	root, err := harness.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	env := helmEnv(t, buildAs(t, "claimbridge"))
	install := exec.Command(helm, "plugin", "install", filepath.Join(root, "plugins", "helm"))
	install.Env = env
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("helm plugin install: %v\n%s", err, out)
	}
	chart := findingsChart(t)
	render := []string{"template", "gpu", chart, "--post-renderer", "claimbridge", "--post-renderer-args=--to=1.34"}
	// ci runs helm as CI does: its output in pipes, without a terminal.
	ci := func(args ...string) helmOutput {
		var stdout, stderr bytes.Buffer
		cmd := exec.Command(helm, args...)
		cmd.Env, cmd.Stdout, cmd.Stderr = env, &stdout, &stderr
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} // no controlling terminal
		err := cmd.Run()
		return helmOutput{stdout.String(), stderr.String(), err}
	}
	// terminal runs the shell command line in a terminal, and returns
	// what the terminal showed as stdout.
	terminal := func(line string) helmOutput {
		cmd := exec.Command("script", "-qec", line, "/dev/null")
		cmd.Env = env
		out, err := cmd.Output()
		return helmOutput{strings.ReplaceAll(string(out), "\r\n", "\n"), string(stderrOf(err)), err}
	}
	quoted := func(args []string) string {
		q := []string{"'" + helm + "'"}
		for _, a := range args {
			q = append(q, "'"+a+"'")
		}
		return strings.Join(q, " ")
	}
	stderrFile, reportFile := filepath.Join(t.TempDir(), "stderr"), filepath.Join(t.TempDir(), "report.txt")

	for _, c := range []struct {
		name string
		run  func() helmOutput
		// want are the lines said, in order, where the person sees them
		// (on standard error, or on the terminal: stdout).
		want   []string
		failed bool
	}{
		{"ci", func() helmOutput { return ci(render...) },
			[]string{"<stdin>: document 1 (line 1): " + claimWarning + "<stdin>: document 2 (line 17): " + classWarning}, false},
		{"ci-strict", func() helmOutput { return ci(append(render, "--post-renderer-args=--strict")...) },
			[]string{"<stdin>: document 1 (line 1): " + claimWarning + "<stdin>: document 2 (line 17): " + classWarning + helmFailed}, true},
		{"ci-refused", func() helmOutput { return ci(append(render, "--set=old=true")...) },
			[]string{"Error: <stdin>: document 3 (line 29): " + oldRefused, helmFailed}, true},
		{"ci-report-file", func() helmOutput { return ci(append(render, "--post-renderer-args=--report-file="+reportFile)...) },
			nil, false},
		{"terminal", func() helmOutput { return terminal(quoted(render)) },
			[]string{claimWarning, classWarning, "kind: DeviceClass\n"}, false},
		{"terminal-strict", func() helmOutput { return terminal(quoted(append(render, "--post-renderer-args=--strict"))) },
			[]string{claimWarning, classWarning, helmFailed}, true},
		{"terminal-stderr-to-file", func() helmOutput { return terminal(quoted(render) + " 2>'" + stderrFile + "'") },
			[]string{claimWarning, classWarning}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := c.run()
			if (got.err != nil) != c.failed {
				t.Errorf("helm failed: %v, want failed: %v\nstdout:\n%s\nstderr:\n%s", got.err, c.failed, got.stdout, got.stderr)
			}
			seen := got.stderr
			if strings.HasPrefix(c.name, "terminal") {
				seen = got.stdout
			}
			rest := seen
			for _, w := range c.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Errorf("helm did not show, in this order:\n%s\nit showed:\n%s\nstdout:\n%s", strings.Join(c.want, "\n"), seen, got.stdout)
					break
				}
				rest = rest[i+len(w):]
			}
		})
	}
	if text, err := os.ReadFile(stderrFile); err != nil || strings.Contains(string(text), "warning:") {
		t.Errorf("helm's standard error, a file: %v\n%s\nwant no finding in it (it went to the terminal)", err, text)
	}
	if text, err := os.ReadFile(reportFile); err != nil || !strings.Contains(string(text), claimWarning) || !strings.Contains(string(text), classWarning) {
		t.Errorf("--report-file: %v\n%s\nwant both warnings in it", err, text)
	}
	// docs/pipelines.md shows what ci-strict shows.
	docs, err := os.ReadFile(filepath.Join(root, "docs", "pipelines.md"))
	if err != nil {
		t.Fatal(err)
	}
	if strict := "<stdin>: document 1 (line 1): " + claimWarning + "<stdin>: document 2 (line 17): " + classWarning + helmFailed; !strings.Contains(string(docs), strict) {
		t.Errorf("docs/pipelines.md does not show what helm shows with --strict:\n%s", strict)
	}
}

// TestHelm3PostRendererFindings renders findingsChart for 1.34 with the
// real Helm 3 ($HELM3) and claimbridge as its executable post-renderer.
// Helm 3 prints a post-renderer's standard error only when it fails:
// claimbridge writes its warnings on helm's standard error, and a refusal
// fails the render, named.
func TestHelm3PostRendererFindings(t *testing.T) {
	helm := os.Getenv("HELM3")
	if helm == "" {
		t.Fatal("HELM3 is not set: run `make envtest-assets` and set the variables of `hack/envtest-assets.sh --env` (`make test-envtest` does both)")
	}
	env := helmEnv(t, buildAs(t, "claimbridge"))
	chart := findingsChart(t)
	for _, c := range []struct {
		name   string
		set    string
		want   []string
		failed bool
	}{
		{"warned", "old=false", []string{"<stdin>: document 1 (line 2): " + classWarning + "<stdin>: document 2 (line 13): " + claimWarning}, false},
		{"refused", "old=true", []string{"Error: <stdin>: document 3 (line 28): " + oldRefused, "Error: error while running post render on files: error while running command "}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			cmd := exec.Command(helm, "template", "gpu", chart, "--set="+c.set, "--post-renderer", "claimbridge",
				"--post-renderer-args=convert", "--post-renderer-args=--to=1.34", "--post-renderer-args=-q", "--post-renderer-args=-f=-")
			cmd.Env, cmd.Stdout, cmd.Stderr = env, &stdout, &stderr
			cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
			err := cmd.Run()
			if (err != nil) != c.failed {
				t.Errorf("helm failed: %v, want failed: %v\nstdout:\n%s\nstderr:\n%s", err, c.failed, &stdout, &stderr)
			}
			rest := stderr.String()
			for _, w := range c.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Errorf("helm's standard error does not show, in this order:\n%s\nit is:\n%s", strings.Join(c.want, "\n"), &stderr)
					break
				}
				rest = rest[i+len(w):]
			}
		})
	}
}

// TestArgoCDPlugin runs the generate command of the config management
// plugin of docs/pipelines.md as Argo CD's sidecar runs it: in the chart's
// directory, with the build environment, helm ($HELM) and claimbridge on
// the PATH. KUBE_VERSION is a cluster's version as Argo CD gives it.
func TestArgoCDPlugin(t *testing.T) {
	helm := os.Getenv("HELM")
	if helm == "" {
		t.Fatal("HELM is not set: run `make envtest-assets` and set the variables of `hack/envtest-assets.sh --env` (`make test-envtest` does both)")
	}
	root, err := harness.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	docs, err := os.ReadFile(filepath.Join(root, "docs", "pipelines.md"))
	if err != nil {
		t.Fatal(err)
	}
	var plugin struct {
		Kind string
		Spec struct {
			Generate struct{ Command, Args []string }
		}
	}
	for _, block := range strings.Split(string(docs), "```yaml\n")[1:] {
		block, _, _ = strings.Cut(block, "```")
		if strings.Contains(block, "kind: ConfigManagementPlugin\n") {
			if err := yaml.Unmarshal([]byte(block), &plugin); err != nil {
				t.Fatalf("docs/pipelines.md: the ConfigManagementPlugin: %v", err)
			}
		}
	}
	command := append(plugin.Spec.Generate.Command, plugin.Spec.Generate.Args...)
	if plugin.Kind != "ConfigManagementPlugin" || len(command) == 0 {
		t.Fatal("docs/pipelines.md shows no ConfigManagementPlugin with a generate command")
	}
	bin := buildAs(t, "claimbridge")
	if err := os.Symlink(helm, filepath.Join(bin, "helm")); err != nil {
		t.Fatal(err)
	}
	// generate runs the command in chart for a cluster of version.
	generate := func(t *testing.T, chart, version string) (stdout, stderr string, err error) {
		var out, errOut bytes.Buffer
		cmd := exec.Command(command[0], command[1:]...)
		cmd.Dir, cmd.Stdout, cmd.Stderr = chart, &out, &errOut
		cmd.Env = append(helmEnv(t, bin), "ARGOCD_APP_NAME=gpu", "ARGOCD_APP_NAMESPACE=ml", "ARGOCD_APP_SOURCE_PATH=gpu",
			"KUBE_VERSION="+version, "KUBE_API_VERSIONS=v1,apps/v1,resource.k8s.io/v1beta1,resource.k8s.io/v1beta2")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // as Argo CD runs it
		err = cmd.Run()
		return out.String(), errOut.String(), err
	}
	chart := gpuChart(t)
	for _, version := range []string{"1.33", "1.33.4", "v1.33.4+k3s1"} {
		t.Run(version, func(t *testing.T) {
			stdout, stderr, err := generate(t, chart, version)
			if err != nil {
				t.Fatalf("%s: %v\n%s", strings.Join(command, " "), err, stderr)
			}
			if d := cmp.Diff("---\n"+gpuSettings+"\n---\n"+gpuTemplate, stdout); d != "" {
				t.Errorf("the generate command (-want +got):\n%s", d)
			}
		})
	}
	// A refused object, and a chart helm cannot render, fail the command,
	// with why on its standard error (which Argo CD shows).
	refused := findingsChart(t)
	writeTree(t, refused, map[string]string{"values.yaml": "old: true\n"})
	broken := findingsChart(t)
	writeTree(t, broken, map[string]string{"templates/broken.yaml": "{{ .Values.missing.field }}\n"})
	for chart, want := range map[string]string{
		refused: oldRefused,
		broken:  "nil pointer evaluating interface {}.field",
	} {
		if _, stderr, err := generate(t, chart, "1.33"); err == nil || !strings.Contains(stderr, want) {
			t.Errorf("the generate command in %s: %v\n%s\nwant it to fail, saying %q", filepath.Base(filepath.Dir(chart)), err, stderr, want)
		}
	}
}
