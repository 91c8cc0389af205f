package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/txtar"

	"github.com/claimbridge/claimbridge/support"
)

// supportFixture is a fixture of the support package: a chart, or a
// driver repository kept as a txtar archive, unpacked.
func supportFixture(t testing.TB, name string) string {
	t.Helper()
	dir := filepath.Join("..", "support", "testdata", name)
	a, err := txtar.ParseFile(dir + ".txtar")
	if errors.Is(err, fs.ErrNotExist) {
		return dir
	}
	fsys, err := txtar.FS(a)
	if err != nil {
		t.Fatal(err)
	}
	dir = t.TempDir()
	if err := os.CopyFS(dir, fsys); err != nil {
		t.Fatal(err)
	}
	return dir
}

// supportCells runs support with args and --report json, and returns each
// cell as "RELEASE SETTING: VERDICT".
func supportCells(t *testing.T, args ...string) (code int, cells []string, m support.Matrix) {
	t.Helper()
	code, out, errOut := run(t, "", append([]string{"support", "--report", "json"}, args...)...)
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("%v\n%s%s", err, out, errOut)
	}
	for _, c := range m.Cells {
		cells = append(cells, c.Release+" "+c.Setting+": "+c.Verdict)
	}
	return code, cells, m
}

const runtimeV1beta1 = "--runtime-config=resource.k8s.io/v1beta1=true"

// draV1beta1 are the flags before 1.34, where DRA is off by default.
const draV1beta1 = "--feature-gates=DynamicResourceAllocation=true " + runtimeV1beta1

func TestSupportCharts(t *testing.T) {
	needsV1beta1 := func(minors ...int) []string {
		var out []string
		for _, m := range minors {
			out = append(out, fmt.Sprintf("1.%d defaults: needs-flags", m), fmt.Sprintf("1.%d %s: works", m, runtimeV1beta1))
		}
		return out
	}
	needsDRA := func(minors ...int) []string {
		var out []string
		for _, m := range minors {
			out = append(out, fmt.Sprintf("1.%d defaults: needs-flags", m), fmt.Sprintf("1.%d %s: works", m, draV1beta1))
		}
		return out
	}
	works := func(minors ...int) []string {
		var out []string
		for _, m := range minors {
			out = append(out, fmt.Sprintf("1.%d defaults: works", m))
		}
		return out
	}
	scenarios := map[string]struct {
		args     []string
		wantCode int
		want     []string
	}{
		"literal-v1beta1-class-and-kubeVersion": {
			// kubeVersion admits 1.38, which no longer serves v1beta1: exit 1.
			args:     []string{"--chart", supportFixture(t, "charts/v1beta1")},
			wantCode: ExitInvalid,
			want:     slices.Concat([]string{"1.31 defaults: refused"}, needsDRA(32, 33), needsV1beta1(34, 35, 36, 37), []string{"1.38 defaults: cannot"}),
		},
		"capabilities-branch": {
			args: []string{"--chart", supportFixture(t, "charts/capabilities")},
			want: slices.Concat([]string{"1.31 defaults: cannot"}, needsDRA(32, 33), works(34, 35, 36, 37, 38)),
		},
		"required-value-missing": {
			// The input is at fault, not the driver: nothing is judged.
			args:     []string{"--chart", supportFixture(t, "charts/required"), "--releases", "1.33-1.34"},
			wantCode: ExitBadInput,
			want:     []string{"1.33 defaults: unjudged", "1.34 defaults: unjudged"},
		},
		"required-value-set": {
			args: []string{"--chart", supportFixture(t, "charts/required"), "--releases", "1.33-1.34", "--set", "driver.name=gpu.example.com"},
			want: []string{"1.33 defaults: cannot", "1.34 defaults: works"},
		},
		"library-v0.33-and-capabilities-branch": {
			args: []string{supportFixture(t, "lib033"), "--chart", supportFixture(t, "charts/capabilities")},
			want: slices.Concat([]string{"1.31 defaults: cannot"}, needsDRA(32, 33), needsV1beta1(34, 35, 36, 37), []string{"1.38 defaults: cannot"}),
		},
		"device-taint-rules-declared-from-1.33": {
			args: []string{supportFixture(t, "taints"), "--releases", "1.33-1.34", "--declared", ">=1.33"},
			want: []string{
				"1.33 defaults: needs-flags", "1.33 --feature-gates=DRADeviceTaints=true,DynamicResourceAllocation=true --runtime-config=resource.k8s.io/v1alpha3=true,resource.k8s.io/v1beta2=true: works",
				"1.34 defaults: needs-flags", "1.34 --feature-gates=DRADeviceTaints=true --runtime-config=resource.k8s.io/v1alpha3=true: works",
			},
		},
	}
	for name, s := range scenarios {
		t.Run(name, func(t *testing.T) {
			code, got, _ := supportCells(t, s.args...)
			if code != s.wantCode {
				t.Errorf("exit %d, want %d", code, s.wantCode)
			}
			if diff := cmp.Diff(s.want, got); diff != "" {
				t.Errorf("cells (-want +got)\n%s", diff)
			}
		})
	}
}

// TestSupportChartReasons: a chart's objects are judged as validate --to
// judges them, with the cell's flags, and its policies' rules too.
func TestSupportChartReasons(t *testing.T) {
	class := "chart DeviceClass gpu.example.com (gpu-driver/templates/deviceclass.yaml): "
	policy := "chart ValidatingAdmissionPolicy gpu.example.com-claims (gpu-driver/templates/policy.yaml): "
	scenarios := map[string]struct {
		args []string
		want []support.Cell
	}{
		"v1beta1-class-on-1.35": {
			args: []string{"--chart", supportFixture(t, "charts/v1beta1"), "--releases", "1.35"},
			want: []support.Cell{
				{Release: "1.35", Setting: "defaults", Verdict: "needs-flags", Flags: runtimeV1beta1, Reasons: []string{
					class + "kube-apiserver 1.35 serves resource.k8s.io/v1beta1 deviceclasses only with " + runtimeV1beta1}},
				{Release: "1.35", Setting: runtimeV1beta1, Verdict: "works", Flags: runtimeV1beta1, Reasons: []string{
					class + "resource.k8s.io/v1beta1 DeviceClass is deprecated in Kubernetes 1.35 and no longer served from 1.38: use resource.k8s.io/v1"}},
			},
		},
		"v1beta1-class-on-1.38": {
			args: []string{"--chart", supportFixture(t, "charts/v1beta1"), "--releases", "1.38"},
			want: []support.Cell{{Release: "1.38", Setting: "defaults", Verdict: "cannot", Reasons: []string{
				class + "resource.k8s.io/v1beta1 deviceclasses, which Kubernetes 1.38 no longer serves (removed in 1.38)"}}},
		},
		"policy-of-v1beta1-on-1.34": {
			args: []string{"--chart", supportFixture(t, "charts/capabilities"), "--releases", "1.34"},
			want: []support.Cell{{Release: "1.34", Setting: "defaults", Verdict: "works", Reasons: []string{
				policy + "its rules name resource.k8s.io v1beta1, which Kubernetes 1.34 does not serve with this setting: they match none of its objects"}}},
		},
		"required-value": {
			args: []string{"--chart", supportFixture(t, "charts/required"), "--releases", "1.34"},
			want: []support.Cell{{Release: "1.34", Setting: "defaults", Verdict: "unjudged"}},
		},
	}
	for name, s := range scenarios {
		t.Run(name, func(t *testing.T) {
			_, _, m := supportCells(t, s.args...)
			if diff := cmp.Diff(s.want, m.Cells); diff != "" {
				t.Errorf("cells (-want +got)\n%s", diff)
			}
		})
	}
}

func TestSupportCommand(t *testing.T) {
	broken := supportFixture(t, "nolib")
	if err := os.WriteFile(filepath.Join(broken, "broken.go"), []byte("package main\n\nfunc broken( {\n}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	lib033 := supportFixture(t, "lib033")
	scenarios := map[string]supportRun{
		"text": {
			args: []string{lib033, "--releases", "1.33-1.34"},
			wantOut: `RELEASE  DEFAULTS     WITH FLAGS
1.33     needs-flags  --feature-gates=DynamicResourceAllocation=true --runtime-config=resource.k8s.io/v1beta1=true
1.34     needs-flags  --runtime-config=resource.k8s.io/v1beta1=true

Runs at defaults on none of them; with flags on 1.33–1.34.

1.33 defaults: Kubernetes 1.33 runs no DRA at its defaults: the DynamicResourceAllocation feature gate goes on kube-apiserver, kube-scheduler, kube-controller-manager and every kubelet, and kube-apiserver serves resource.k8s.io only with --runtime-config
1.33 defaults: k8s.io/dynamic-resource-allocation v0.33 (resourceslices): kube-apiserver 1.33 serves resource.k8s.io/v1beta1 resourceslices only with --feature-gates=DynamicResourceAllocation=true --runtime-config=resource.k8s.io/v1beta1=true
1.33 defaults: k8s.io/dynamic-resource-allocation v0.33 (resourceclaims): kube-apiserver 1.33 serves resource.k8s.io/v1beta1 resourceclaims only with --feature-gates=DynamicResourceAllocation=true --runtime-config=resource.k8s.io/v1beta1=true
1.34 defaults: k8s.io/dynamic-resource-allocation v0.33 (resourceslices): kube-apiserver 1.34 serves resource.k8s.io/v1beta1 resourceslices only with --runtime-config=resource.k8s.io/v1beta1=true
1.34 defaults: k8s.io/dynamic-resource-allocation v0.33 (resourceclaims): kube-apiserver 1.34 serves resource.k8s.io/v1beta1 resourceclaims only with --runtime-config=resource.k8s.io/v1beta1=true
`,
		},
		"declared-needs-flags-is-a-warning": {
			args:    []string{lib033, "--releases", "1.34", "--declared", ">=1.32", "--report", "markdown"},
			wantOut: "| Kubernetes | At defaults | With flags |\n|---|---|---|\n| 1.34 | needs-flags | works with `" + runtimeV1beta1 + "` |\n\nRuns at defaults on none of them; with flags on 1.34.\n",
			wantErr: "warning: --declared >=1.32 admits Kubernetes 1.34, where the driver runs only with " + runtimeV1beta1 + "\n",
		},
		"declared-cannot-is-an-error": {
			args:     []string{lib033, "--releases", "1.38", "--declared", ">=1.32", "--report", "markdown"},
			wantCode: ExitInvalid,
			wantOut: "| Kubernetes | At defaults | With flags |\n|---|---|---|\n| 1.38 | cannot | cannot |\n\nRuns at defaults on none of them; with flags on none of them.\n" +
				"The DRA gRPC of 1.38 is read from the sources of the kubelet and the library, not run.\n",
			wantErr: "note: " + fromSources138 + "\n" +
				"Error: --declared >=1.32 admits Kubernetes 1.38, where the driver cannot run: " +
				"k8s.io/dynamic-resource-allocation v0.33 (resourceslices): resource.k8s.io/v1beta1 resourceslices, which Kubernetes 1.38 no longer serves (removed in 1.38)\n",
		},
		"declared-cannot-in-text-says-the-reason-once": {
			args:     []string{lib033, "--releases", "1.38", "--declared", ">=1.32"},
			wantCode: ExitInvalid,
			wantOut: "RELEASE  DEFAULTS  WITH FLAGS\n1.38     cannot    cannot\n\nRuns at defaults on none of them; with flags on none of them.\n\n" +
				"1.38 defaults: k8s.io/dynamic-resource-allocation v0.33 (resourceslices): resource.k8s.io/v1beta1 resourceslices, which Kubernetes 1.38 no longer serves (removed in 1.38)\n" +
				"1.38 defaults: k8s.io/dynamic-resource-allocation v0.33 (resourceclaims): resource.k8s.io/v1beta1 resourceclaims, which Kubernetes 1.38 no longer serves (removed in 1.38)\n",
			wantErr: "note: " + fromSources138 + "\n" +
				"Error: --declared >=1.32 admits Kubernetes 1.38, where the driver cannot run (its reasons above)\n",
		},
		"no-library-and-a-file-that-does-not-parse": {
			args:    []string{broken, "--releases", "1.34", "--report", "markdown"},
			wantOut: "| Kubernetes | At defaults | With flags |\n|---|---|---|\n| 1.34 | works | works |\n\nRuns at defaults on 1.34; with flags on 1.34.\n",
			wantErr: "note: broken.go:3: does not parse: expected ')', found '{' (its other calls are read)\n" +
				"note: no binary judged imports k8s.io/dynamic-resource-allocation: what the library writes and the gRPC it serves are not judged, only the binaries' own typed calls and the install\n",
		},
		"dir-without-go.mod-and-a-chart": {
			args:    []string{"testdata/support", "--chart", supportFixture(t, "charts/required"), "--set", "driver.name=gpu.example.com", "--releases", "1.34", "--report", "markdown"},
			wantOut: "| Kubernetes | At defaults | With flags |\n|---|---|---|\n| 1.34 | works | works |\n\nRuns at defaults on 1.34; with flags on 1.34.\n",
			wantErr: "note: testdata/support has no go.mod: only the install is judged\n" +
				"note: the chart is rendered as helm install gpu-driver -n gpu-driver renders it (--release-name, --namespace)\n",
		},
		"junit-a-case-per-cell": {
			args: []string{lib033, "--releases", "1.34", "--report", "junit"},
			wantOut: `<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="claimbridge support" tests="2" failures="1" errors="0" skipped="0">
  <testsuite name="claimbridge support" tests="2" failures="1" errors="0" skipped="0">
    <testcase name="Kubernetes 1.34 (defaults)" classname="` + lib033 + `/go.mod">
      <failure message="needs-flags on Kubernetes 1.34 (defaults)" type="error">k8s.io/dynamic-resource-allocation v0.33 (resourceslices): kube-apiserver 1.34 serves resource.k8s.io/v1beta1 resourceslices only with --runtime-config=resource.k8s.io/v1beta1=true&#xA;` +
				`k8s.io/dynamic-resource-allocation v0.33 (resourceclaims): kube-apiserver 1.34 serves resource.k8s.io/v1beta1 resourceclaims only with --runtime-config=resource.k8s.io/v1beta1=true</failure>
    </testcase>
    <testcase name="Kubernetes 1.34 (--runtime-config=resource.k8s.io/v1beta1=true)" classname="` + lib033 + `/go.mod"></testcase>
  </testsuite>
</testsuites>
`,
		},
		"dir-missing": {
			args: []string{"testdata/support/missing"}, wantCode: ExitBadInput,
			wantErr: "Error: testdata/support/missing: not a directory\n",
		},
		"no-go.mod-and-no-chart": {
			args: []string{"testdata/support"}, wantCode: ExitBadInput,
			wantErr: "Error: testdata/support has no go.mod and no --chart or -f is given: nothing to judge\n",
		},
		"releases-malformed": {
			args: []string{lib033, "--releases", "1.35-1.31"}, wantCode: ExitBadInput,
			wantErr: "Error: --releases \"1.35-1.31\": not a range of releases FIRST-LAST of 1.26 … 1.38\n",
		},
		"declared-malformed": {
			args: []string{lib033, "--declared", ">=one"}, wantCode: ExitBadInput,
			wantErr: "Error: --declared \">=one\": improper constraint: \">=one\"\n",
		},
		"report-unknown": {
			args: []string{lib033, "--report", "yaml"}, wantCode: ExitBadInput,
			wantErr: "Error: --report \"yaml\": unsupported format (supported: text, markdown, json, sarif, junit)\n",
		},
	}
	runSupport(t, scenarios)
}

// TestSupportMarkdown: the table a maintainer pastes, for a v0.33 driver
// and its chart (refresh: UPDATE_GOLDEN=1).
func TestSupportMarkdown(t *testing.T) {
	_, out, _ := run(t, "", "support", supportFixture(t, "lib033"), "--chart", supportFixture(t, "charts/v1beta1"), "--report", "markdown")
	golden := filepath.Join("testdata", "support", "lib033-v1beta1.md")
	if os.Getenv("UPDATE_GOLDEN") != "" {
		if err := os.WriteFile(golden, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run UPDATE_GOLDEN=1 go test ./cli -run TestSupportMarkdown)", err)
	}
	if diff := cmp.Diff(string(want), out); diff != "" {
		t.Errorf("stdout (-golden +got)\n%s", diff)
	}
}

// TestSupportJSONShape: --report json is one object with its cells, the
// spans, and the declared ranges' errors and warnings.
func TestSupportJSONShape(t *testing.T) {
	_, out, _ := run(t, "", "support", supportFixture(t, "lib033"), "--releases", "1.34", "--declared", ">=1.34", "--report", "json")
	var got map[string]interface{}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]interface{}{
		"apiVersion": "claimbridge.dev/support/v1", "kind": "Support",
		"cells": []interface{}{
			map[string]interface{}{"release": "1.34", "setting": "defaults", "verdict": "needs-flags", "flags": runtimeV1beta1, "reasons": []interface{}{
				"k8s.io/dynamic-resource-allocation v0.33 (resourceslices): kube-apiserver 1.34 serves resource.k8s.io/v1beta1 resourceslices only with " + runtimeV1beta1,
				"k8s.io/dynamic-resource-allocation v0.33 (resourceclaims): kube-apiserver 1.34 serves resource.k8s.io/v1beta1 resourceclaims only with " + runtimeV1beta1,
			}, "grpc": "run"},
			map[string]interface{}{"release": "1.34", "setting": runtimeV1beta1, "verdict": "works", "flags": runtimeV1beta1, "grpc": "run"},
		},
		"atDefaults": map[string]interface{}{},
		"withFlags":  map[string]interface{}{"first": "1.34", "last": "1.34"},
		"warnings":   []interface{}{"--declared >=1.34 admits Kubernetes 1.34, where the driver runs only with " + runtimeV1beta1},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
}

// fromSources138 is the note on the gRPC of a v0.33 driver on 1.38.
const fromSources138 = "the DRA gRPC of the kubelet of 1.38 and the kubeletplugin of k8s.io/dynamic-resource-allocation v0.33 is judged by the versions their sources define; " +
	"only the kubelets of 1.31–1.37 and the kubeletplugins of v0.31–v0.37 have been run against each other"

// TestSupportSARIF: what the chart's kubeVersion admits and the driver
// cannot run on is said at the kubeVersion line of its Chart.yaml, as
// code scanning shows it.
func TestSupportSARIF(t *testing.T) {
	chart := supportFixture(t, "charts/v1beta1")
	code, out, _ := run(t, "", "support", supportFixture(t, "lib033"), "--chart", chart, "--releases", "1.37-1.38", "--report", "sarif")
	var log struct {
		Runs []struct {
			Results []struct {
				Level     string
				Message   struct{ Text string }
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI string }
						Region           struct{ StartLine int }
					}
				}
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &log); err != nil || len(log.Runs) != 1 {
		t.Fatalf("not one SARIF run (%v):\n%s", err, out)
	}
	var got []string
	for _, r := range log.Runs[0].Results {
		loc := r.Locations[0].PhysicalLocation
		got = append(got, fmt.Sprintf("%s:%d: %s: %s", loc.ArtifactLocation.URI, loc.Region.StartLine, r.Level, r.Message.Text))
	}
	want := []string{
		chart + "/Chart.yaml:4: note: the chart is rendered as helm install gpu-driver -n gpu-driver renders it (--release-name, --namespace)",
		chart + "/Chart.yaml:4: note: " + fromSources138,
		chart + "/Chart.yaml:4: warning: the chart's kubeVersion >=1.32.0-0 admits Kubernetes 1.37, where the driver runs only with --runtime-config=resource.k8s.io/v1beta1=true",
		chart + "/Chart.yaml:4: error: the chart's kubeVersion >=1.32.0-0 admits Kubernetes 1.38, where the driver cannot run: " +
			"k8s.io/dynamic-resource-allocation v0.33 (resourceslices): resource.k8s.io/v1beta1 resourceslices, which Kubernetes 1.38 no longer serves (removed in 1.38)",
	}
	if code != ExitInvalid || !slices.Equal(got, want) {
		t.Errorf("exit %d (want 1), results (-want +got):\n%s", code, cmp.Diff(want, got))
	}
}

// TestSupportInstall: a chart that refuses the namespace default renders
// in the chart's name; rendered in default, it is said once and nothing is
// judged (exit 2); a kustomization and plain manifests are judged as a
// chart's objects are, and their containers pick the binaries judged.
func TestSupportInstall(t *testing.T) {
	guarded := supportFixture(t, "charts/guarded")
	monorepo := supportFixture(t, "monorepo")
	refusal := "note: the chart renders on no release, as release gpu-driver in namespace default: execution error at (gpu-driver/templates/validation.yaml:2:4): " +
		"Running in the 'default' namespace is not recommended. Set '--namespace' or '-n' to change the namespace.; render it as you install it (--values, --set, --release-name, --namespace)\n"
	scenarios := map[string]supportRun{
		"guarded-chart-in-its-own-namespace": {
			args:    []string{"--chart", guarded, "--set", "image=example.com/qat:v1", "--releases", "1.34", "--report", "markdown"},
			wantOut: "| Kubernetes | At defaults | With flags |\n|---|---|---|\n| 1.34 | works | works |\n\nRuns at defaults on 1.34; with flags on 1.34.\n",
			wantErr: "note: the chart is rendered as helm install gpu-driver -n gpu-driver renders it (--release-name, --namespace)\n",
		},
		"guarded-chart-in-default": {
			args:     []string{"--chart", guarded, "-n", "default", "--release-name", "gpu-driver", "--set", "image=example.com/qat:v1", "--releases", "1.33-1.34", "--declared", ">=1.33"},
			wantCode: ExitBadInput,
			wantOut:  "RELEASE  DEFAULTS  WITH FLAGS\n1.33     unjudged  unjudged\n1.34     unjudged  unjudged\n\nRuns at defaults on none of them; with flags on none of them.\n\n",
			wantErr:  refusal + "Error: nothing could be judged\n",
		},
		"kustomization-of-a-v1-class": {
			args:    []string{"-f", supportFixture(t, "kustomize"), "--releases", "1.33-1.34", "--report", "markdown"},
			wantOut: "| Kubernetes | At defaults | With flags |\n|---|---|---|\n| 1.33 | cannot | cannot |\n| 1.34 | works | works |\n\nRuns at defaults on 1.34; with flags on 1.34.\n",
		},
		"manifests-pick-the-binary": {
			args:    []string{monorepo, "-f", filepath.Join(monorepo, "deployments"), "--releases", "1.38", "--report", "markdown"},
			wantOut: "| Kubernetes | At defaults | With flags |\n|---|---|---|\n| 1.38 | works | works |\n\nRuns at defaults on 1.38; with flags on 1.38.\nThe DRA gRPC of 1.38 is read from the sources of the kubelet and the library, not run.\n",
			wantErr: "note: judged the binaries cmd/gpu-plugin (run by the install's containers)\n" +
				"note: the DRA gRPC of the kubelet of 1.38 and the kubeletplugin of k8s.io/dynamic-resource-allocation v0.35 is judged by the versions their sources define; only the kubelets of 1.31–1.37 and the kubeletplugins of v0.31–v0.37 have been run against each other\n",
		},
		"values-given-as-manifests": {
			args: []string{"--chart", guarded, "-f", filepath.Join(guarded, "Chart.yaml")}, wantCode: ExitBadInput,
			wantErr: "Error: " + filepath.Join(guarded, "Chart.yaml") + ": document 1 (line 1): object has no \"kind\" (chart values go in --values)\n",
		},
	}
	runSupport(t, scenarios)
}

// TestSupportUpdate: --update keeps the README's table, --check fails in
// CI when it differs or is missing.
func TestSupportUpdate(t *testing.T) {
	readme := filepath.Join(t.TempDir(), "README.md")
	if err := os.WriteFile(readme, []byte("# GPU driver\n\nInstall it.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"support", supportFixture(t, "lib033"), "--releases", "1.34", "--report", "markdown", "--update", readme}
	table := "| Kubernetes | At defaults | With flags |\n|---|---|---|\n| 1.34 | needs-flags | works with `" + runtimeV1beta1 + "` |\n\nRuns at defaults on none of them; with flags on 1.34.\n"
	steps := []struct {
		args             []string
		wantCode         int
		wantErr, wantOut string
		wantFile         string
	}{
		{args: []string{"--check"}, wantCode: ExitInvalid,
			wantErr:  "Error: " + readme + " has no support table between " + support.BeginTable + " and " + support.EndTable + ": run without --check to add it\n",
			wantFile: "# GPU driver\n\nInstall it.\n"},
		{wantErr: readme + " had no support table: added at its end, between " + support.BeginTable + " and " + support.EndTable + "\n",
			wantFile: "# GPU driver\n\nInstall it.\n\n" + support.BeginTable + "\n" + table + support.EndTable + "\n"},
		{args: []string{"--check"}, wantFile: "# GPU driver\n\nInstall it.\n\n" + support.BeginTable + "\n" + table + support.EndTable + "\n"},
		{args: []string{"--check", "--releases", "1.33-1.34"}, wantCode: ExitInvalid,
			wantErr:  "Error: " + readme + ": its support table differs from the driver's: run without --check to update it\n",
			wantFile: "# GPU driver\n\nInstall it.\n\n" + support.BeginTable + "\n" + table + support.EndTable + "\n"},
	}
	for i, s := range steps {
		code, out, errOut := run(t, "", append(slices.Clone(args), s.args...)...)
		data, _ := os.ReadFile(readme)
		if code != s.wantCode || out != s.wantOut || errOut != s.wantErr || string(data) != s.wantFile {
			t.Errorf("step %d %q: exit %d (want %d), stdout %q, stderr %q (want %q), file:\n%s", i, s.args, code, s.wantCode, out, errOut, s.wantErr, cmp.Diff(s.wantFile, string(data)))
		}
	}
}

// A supportRun is `claimbridge support` with args, and what a person sees.
type supportRun struct {
	args             []string
	wantCode         int
	wantOut, wantErr string
}

func runSupport(t *testing.T, scenarios map[string]supportRun) {
	t.Helper()
	for name, s := range scenarios {
		t.Run(name, func(t *testing.T) {
			code, out, errOut := run(t, "", append([]string{"support"}, s.args...)...)
			if code != s.wantCode {
				t.Errorf("exit %d, want %d", code, s.wantCode)
			}
			if diff := cmp.Diff(s.wantOut, out); diff != "" {
				t.Errorf("stdout (-want +got)\n%s", diff)
			}
			if diff := cmp.Diff(s.wantErr, errOut); diff != "" {
				t.Errorf("stderr (-want +got)\n%s", diff)
			}
		})
	}
}
