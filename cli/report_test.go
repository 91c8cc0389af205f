package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/kube-openapi/pkg/validation/spec"
	"k8s.io/kube-openapi/pkg/validation/strfmt"
	"k8s.io/kube-openapi/pkg/validation/validate"
)

// reportInput has a claim that converts, a Pod that is rewritten, a
// ConfigMap passed through and a claim whose class 1.31 requires.
const reportInput = `apiVersion: resource.k8s.io/v1alpha2
kind: ResourceClaim
metadata: {name: gpu, namespace: ml}
spec: {resourceClassName: gpu.example.com}
---
apiVersion: v1
kind: Pod
metadata: {name: trainer, namespace: ml}
spec:
  containers: [{name: c, image: i, resources: {claims: [{name: gpu}]}}]
  resourceClaims: [{name: gpu, source: {resourceClaimName: gpu}}]
---
apiVersion: v1
kind: ConfigMap
metadata: {name: settings, namespace: ml}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: any, namespace: ml}
spec: {devices: {requests: [{name: r, firstAvailable: [{name: a, deviceClassName: gpu.example.com}]}]}}
`

// TestReportJSONFollowsItsSchema: the JSON report of every command
// validates against docs/report.schema.json, and says what the text says.
func TestReportJSONFollowsItsSchema(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "docs", "report.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	var schema spec.Schema
	if err := json.Unmarshal(data, &schema); err != nil {
		t.Fatal(err)
	}
	validator := validate.NewSchemaValidator(&schema, nil, "", strfmt.Default)
	for _, args := range [][]string{
		{"convert", "--to", "1.31"},
		{"migrate", "--to", "1.31"},
		{"validate", "--to", "1.31"},
		{"validate"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			_, _, stderr := run(t, reportInput, append(args, "-f", "-", "--report", "json")...)
			var report map[string]interface{}
			if err := json.Unmarshal([]byte(stderr), &report); err != nil {
				t.Fatalf("not one JSON document: %v\n%s", err, stderr)
			}
			if res := validator.Validate(report); !res.IsValid() {
				t.Errorf("the report does not follow docs/report.schema.json: %v\n%s", res.Errors, stderr)
			}
			if findings, _ := report["findings"].([]interface{}); len(findings) == 0 {
				t.Errorf("no findings:\n%s", stderr)
			}
		})
	}
	t.Run("check", func(t *testing.T) { // a node it blocks, the steps
		kind := filepath.Join(t.TempDir(), "kind.yaml")
		config := "kind: Cluster\napiVersion: kind.x-k8s.io/v1alpha4\nnodes:\n- role: control-plane\n  image: kindest/node:v1.37.1\n- role: worker\n  image: kindest/node:v1.33.2\n"
		if err := os.WriteFile(kind, []byte(config), 0o600); err != nil {
			t.Fatal(err)
		}
		_, _, stderr := run(t, "", "check", "--cluster-config", kind, "--to", "1.38", "--report", "json")
		var report map[string]interface{}
		if err := json.Unmarshal([]byte(stderr), &report); err != nil {
			t.Fatalf("not one JSON document: %v\n%s", err, stderr)
		}
		if res := validator.Validate(report); !res.IsValid() {
			t.Errorf("the report does not follow docs/report.schema.json: %v\n%s", res.Errors, stderr)
		}
		if clients, _ := report["clients"].([]interface{}); len(clients) != 2 || report["steps"] == nil {
			t.Errorf("not a row per node, or no steps:\n%s", stderr)
		}
	})
}

// TestReportJSON: the findings of convert --to 1.31 with their positions,
// objects, paths and the release they concern, and the summary.
func TestReportJSON(t *testing.T) {
	file := filepath.Join(t.TempDir(), "in.yaml")
	if err := os.WriteFile(file, []byte(reportInput), 0o600); err != nil {
		t.Fatal(err)
	}
	report := filepath.Join(t.TempDir(), "report.json")
	code, stdout, stderr := run(t, "", "convert", "--to", "1.31", "-f", file, "--report", "json", "--report-file", report)
	// Written, exit 1: 1.31 rejects the claim without a deviceClassName.
	if code != ExitInvalid || stderr != "" || stdout == "" {
		t.Fatalf("exit %d, stderr %q, stdout %q", code, stderr, stdout)
	}
	data, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Command, Release string
		Summary          map[string]int
		Findings         []map[string]interface{}
	}
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	if got.Command != "convert" || got.Release != "1.31" {
		t.Errorf("command %q, release %q", got.Command, got.Release)
	}
	wantSummary := map[string]int{"read": 4, "converted": 2, "rewritten": 1, "passedThrough": 1, "warned": 1}
	if d := cmp.Diff(wantSummary, got.Summary); d != "" {
		t.Errorf("summary (-want +got):\n%s", d)
	}
	var severities []string
	for _, f := range got.Findings {
		if f["file"] != file || f["release"] != "1.31" {
			t.Errorf("finding %v: want file %s, release 1.31", f, file)
		}
		severities = append(severities, f["severity"].(string)+" "+f["kind"].(string)+" "+f["object"].(string))
	}
	want := []string{"note Pod ml/trainer", "warning ResourceClaim ml/any", "error ResourceClaim ml/any"}
	if d := cmp.Diff(want, severities); d != "" {
		t.Errorf("findings (-want +got):\n%s\n%s", d, data)
	}
}

// TestExitCodes: 0 when the target accepts everything, 1 when it rejects
// something (refused, invalid, or with --strict a warning), 2 for input or
// flags that cannot be used — the same for every command.
func TestExitCodes(t *testing.T) {
	const (
		valid    = "apiVersion: resource.k8s.io/v1alpha2\nkind: ResourceClaim\nmetadata: {name: a, namespace: ns}\nspec: {resourceClassName: c}\n"
		warned   = "apiVersion: resource.k8s.io/v1alpha2\nkind: ResourceClaim\nmetadata: {name: a, namespace: ns}\nspec: {resourceClassName: c, parametersRef: {kind: ConfigMap, name: p}}\n"
		rejected = "apiVersion: resource.k8s.io/v1alpha4\nkind: ResourceClaim\nmetadata: {name: a, namespace: ns}\n"
		badShape = "apiVersion: resource.k8s.io/v1alpha2\nkind: ResourceClaim\nmetadata: {name: a, namespace: ns}\nspec: [1]\n"
	)
	for _, tc := range []struct {
		name, stdin string
		args        []string
		want        int
	}{
		{"convert valid", valid, []string{"convert", "--to", "1.31"}, ExitOK},
		{"convert warned", warned, []string{"convert", "--to", "1.31"}, ExitOK},
		{"convert warned strict", warned, []string{"convert", "--to", "1.31", "--strict"}, ExitInvalid},
		{"convert refused", rejected, []string{"convert", "--to", "1.31"}, ExitInvalid},
		{"convert malformed", badShape, []string{"convert", "--to", "1.31"}, ExitBadInput},
		{"convert empty", " \n", []string{"convert", "--to", "1.31"}, ExitBadInput},
		{"convert bad release", valid, []string{"convert", "--to", "1.25"}, ExitBadInput},
		{"convert bad report", valid, []string{"convert", "--to", "1.31", "--report", "xml"}, ExitBadInput},
		{"migrate valid", valid, []string{"migrate", "--to", "1.31"}, ExitOK},
		{"migrate warned", warned, []string{"migrate", "--to", "1.31"}, ExitOK},
		{"migrate warned strict", warned, []string{"migrate", "--to", "1.31", "--strict"}, ExitInvalid},
		{"migrate refused", rejected, []string{"migrate", "--to", "1.31"}, ExitInvalid},
		{"migrate malformed", badShape, []string{"migrate", "--to", "1.31"}, ExitBadInput},
		{"migrate empty", " \n", []string{"migrate", "--to", "1.31"}, ExitBadInput},
		{"validate valid", valid, []string{"validate"}, ExitOK},
		{"validate not served", valid, []string{"validate", "--to", "1.33"}, ExitInvalid},
		{"validate served", valid, []string{"validate", "--to", "1.30"}, ExitOK},
		{"validate refused", rejected, []string{"validate"}, ExitInvalid},
		{"validate empty", " \n", []string{"validate"}, ExitBadInput},
		{"validate bad release", valid, []string{"validate", "--to", "v1"}, ExitBadInput},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if code, _, stderr := run(t, tc.stdin, append(tc.args, "-f", "-")...); code != tc.want {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, tc.want, stderr)
			}
		})
	}
}

// TestSummary: every run ends its report with one line counting the
// objects by what became of them; -q leaves it out.
func TestSummary(t *testing.T) {
	var out, errOut bytes.Buffer
	Main([]string{"convert", "--to", "1.31", "-f", "-"}, strings.NewReader(reportInput), &out, &errOut)
	lines := strings.Split(strings.TrimSuffix(errOut.String(), "\n"), "\n")
	want := "claimbridge convert: 4 objects read: 2 converted, 1 rewritten, 1 passed through, 0 left out, 1 warned, 0 refused"
	if lines[len(lines)-1] != want {
		t.Errorf("last line %q, want %q", lines[len(lines)-1], want)
	}
	out.Reset()
	errOut.Reset()
	Main([]string{"validate", "--to", "1.33", "-f", "-"}, strings.NewReader(reportInput), &out, &errOut)
	if want := "claimbridge validate: 4 objects read: 0 valid, 2 invalid, 2 skipped, 0 warned\n"; !strings.HasSuffix(errOut.String(), want) {
		t.Errorf("validate: stderr %q, want it to end with %q", errOut.String(), want)
	}
	errOut.Reset()
	Main([]string{"convert", "--to", "1.31", "-q", "-f", "-"}, strings.NewReader(reportInput), &out, &errOut)
	if strings.Contains(errOut.String(), " read: ") {
		t.Errorf("-q: %q", errOut.String())
	}
}

// TestRepeatedFindingsAreCounted: a finding about many objects is printed
// once with a count, every time with --verbose.
func TestRepeatedFindingsAreCounted(t *testing.T) {
	var in strings.Builder
	for _, name := range []string{"a", "b", "c", "d", "e"} {
		in.WriteString("---\napiVersion: resource.k8s.io/v1alpha2\nkind: ResourceClaimParameters\nmetadata: {name: " + name + ", namespace: ns}\n")
	}
	_, _, stderr := run(t, in.String(), "migrate", "--to", "1.33", "-f", "-")
	want := "<stdin>: document 1 (line 2): ResourceClaimParameters ns/a: left out: Kubernetes 1.33 does not serve it (and 4 more objects; --verbose lists each)\n"
	if stderr != want {
		t.Errorf("stderr:\n%s\nwant:\n%s", stderr, want)
	}
	_, _, stderr = run(t, in.String(), "migrate", "--to", "1.33", "--verbose", "-f", "-")
	if n := strings.Count(stderr, "left out"); n != 5 {
		t.Errorf("--verbose: %d lines:\n%s", n, stderr)
	}
}

// TestToRelease: a release picks the version it serves and is judged by
// its own rules (the one after the newest by the newest's); the same
// version for another release is judged by that one's.
func TestToRelease(t *testing.T) {
	const claim = "apiVersion: resource.k8s.io/v1alpha2\nkind: ResourceClaim\nmetadata: {name: a, namespace: ns}\nspec: {resourceClassName: gpu}\n"
	for to, want := range map[string]string{
		"1.26": "apiVersion: resource.k8s.io/v1alpha1", "1.28": "apiVersion: resource.k8s.io/v1alpha2",
		"1.31": "apiVersion: resource.k8s.io/v1alpha3", "1.32": "apiVersion: resource.k8s.io/v1beta1",
		"1.33": "apiVersion: resource.k8s.io/v1beta2", "1.34": "apiVersion: resource.k8s.io/v1\n", "1.37": "apiVersion: resource.k8s.io/v1\n",
		"1.38": "apiVersion: resource.k8s.io/v1\n", // the release after the newest: by the newest's rules
	} {
		code, stdout, stderr := run(t, claim, "migrate", "--to", to, "-f", "-")
		if code != ExitOK || !strings.Contains(stdout, want) {
			t.Errorf("--to %s: exit %d, stdout:\n%s\nstderr:\n%s", to, code, stdout, stderr)
		}
	}
	// 1.36 has no workloadRef (1.35 had it): --to 1.35 takes it, 1.36 refuses it.
	const pod = "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ns}\nspec:\n  workloadRef: {name: w, podGroup: g}\n  containers: [{name: c, image: i}]\n"
	if code, _, stderr := run(t, pod, "migrate", "--to", "1.35", "-f", "-"); code != ExitOK {
		t.Errorf("--to 1.35: exit %d: %s", code, stderr)
	}
	code, _, stderr := run(t, pod, "migrate", "--to", "1.36", "-f", "-")
	if want := "spec.workloadRef: Kubernetes 1.36 has no such field (1.35 had it)"; code != ExitInvalid || !strings.Contains(stderr, want) {
		t.Errorf("--to 1.36: exit %d, stderr %q, want %q", code, stderr, want)
	}
}

// TestConvertDeviceClass: a chart's DeviceClass gets the target's version,
// as its claims do; one with a field the target lacks is refused, naming it.
func TestConvertDeviceClass(t *testing.T) {
	const class = "apiVersion: resource.k8s.io/v1beta1\nkind: DeviceClass\nmetadata:\n  name: gpu.example.com\nspec:\n  selectors:\n  - cel:\n      expression: device.driver == \"gpu.example.com\"\n"
	code, stdout, stderr := run(t, class, "convert", "--to", "1.34", "-f", "-")
	if want := strings.Replace(class, "v1beta1", "v1", 1); code != ExitOK || stdout != want || stderr != "" {
		t.Errorf("exit %d, stderr %q, stdout:\n%s\nwant:\n%s", code, stderr, stdout, want)
	}
	code, back, _ := run(t, stdout, "convert", "--to", "v1beta1", "-f", "-")
	if code != ExitOK || back != class {
		t.Errorf("back: exit %d:\n%s", code, back)
	}
	const classic = "apiVersion: resource.k8s.io/v1alpha3\nkind: DeviceClass\nmetadata: {name: c}\nspec: {suitableNodes: {nodeSelectorTerms: []}}\n"
	code, stdout, stderr = run(t, classic, "convert", "--to", "1.34", "-f", "-")
	want := "<stdin>: document 1 (line 1): warning: DeviceClass c: spec.suitableNodes: a field that resource.k8s.io/v1 does not have (classic DRA): kept only in a restore annotation\n"
	if code != ExitOK || stderr != want || strings.Contains(stdout, "suitableNodes:") {
		t.Errorf("exit %d, stderr %q, want %q; stdout:\n%s", code, stderr, want, stdout)
	}
	code, back, _ = run(t, stdout, "convert", "--to", "v1alpha3", "-f", "-")
	if want := "apiVersion: resource.k8s.io/v1alpha3\nkind: DeviceClass\nmetadata:\n  name: c\nspec:\n  suitableNodes:\n    nodeSelectorTerms: []\n"; code != ExitOK || back != want {
		t.Errorf("back: exit %d:\n%s\nwant:\n%s", code, back, want)
	}
}

// TestConvertResourceSlice: a ResourceSlice gets the target's version, its
// devices' fields under basic in v1beta1 and on the device from v1beta2,
// and back as it was; a field its version lacks is refused, named.
func TestConvertResourceSlice(t *testing.T) {
	const slice = "apiVersion: resource.k8s.io/v1beta1\nkind: ResourceSlice\nmetadata:\n  name: node-1-gpu\nspec:\n  devices:\n  - basic:\n      attributes:\n        model:\n          string: a100\n      capacity:\n        memory:\n          value: 40Gi\n    name: gpu-0\n  driver: gpu.example.com\n  nodeName: node-1\n  pool:\n    generation: 1\n    name: node-1\n    resourceSliceCount: 1\n"
	const flat = "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata:\n  name: node-1-gpu\nspec:\n  devices:\n  - attributes:\n      model:\n        string: a100\n    capacity:\n      memory:\n        value: 40Gi\n    name: gpu-0\n  driver: gpu.example.com\n  nodeName: node-1\n  pool:\n    generation: 1\n    name: node-1\n    resourceSliceCount: 1\n"
	code, stdout, stderr := run(t, slice, "convert", "--to", "1.34", "-f", "-")
	if code != ExitOK || stdout != flat || stderr != "" {
		t.Errorf("exit %d, stderr %q, stdout:\n%s\nwant:\n%s", code, stderr, stdout, flat)
	}
	if code, back, _ := run(t, flat, "convert", "--to", "v1beta1", "-f", "-"); code != ExitOK || back != slice {
		t.Errorf("back: exit %d:\n%s", code, back)
	}
	// Another field beside basic: refused, and named.
	odd := strings.Replace(slice, "    name: gpu-0\n", "    name: gpu-0\n    extra: 1\n", 1)
	code, stdout, stderr = run(t, odd, "convert", "--to", "1.34", "-f", "-")
	if want := "Error: <stdin>: document 1 (line 1): ResourceSlice node-1-gpu: not converted to resource.k8s.io/v1: spec.devices[0].extra: a field that resource.k8s.io/v1beta1 does not have\n"; code != ExitInvalid || stdout != "" || stderr != want {
		t.Errorf("exit %d, stderr %q, stdout:\n%s", code, stderr, stdout)
	}
}
