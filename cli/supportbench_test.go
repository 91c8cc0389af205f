package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkSupport: support of a driver module (library v0.37, its own
// typed calls) with a chart of 24 templates (a DeviceClass per
// .Capabilities branch, DeviceTaintRules, an admission policy, a
// DaemonSet and its RBAC), on 1.31–1.38: every cell rendered and judged,
// the report written as JSON.
func BenchmarkSupport(b *testing.B) {
	chart := b.TempDir()
	files := map[string]string{
		"Chart.yaml":  "apiVersion: v2\nname: gpu-driver\nversion: 0.1.0\nkubeVersion: \">=1.32.0-0\"\n",
		"values.yaml": "driver: gpu.example.com\n",
		"templates/daemonset.yaml": "apiVersion: apps/v1\nkind: DaemonSet\nmetadata:\n  name: {{ .Release.Name }}\nspec:\n  selector:\n    matchLabels: {app: driver}\n" +
			"  template:\n    metadata:\n      labels: {app: driver}\n    spec:\n      containers:\n      - name: plugin\n        image: example.com/driver:v1\n",
		"templates/rbac.yaml": "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: {{ .Release.Name }}\nrules:\n" +
			"- apiGroups: [resource.k8s.io]\n  resources: [resourceslices, resourceclaims]\n  verbs: [get, list, watch, create, update, delete]\n",
		"templates/policy.yaml": "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\nmetadata:\n  name: {{ .Release.Name }}\nspec:\n" +
			"  matchConstraints:\n    resourceRules:\n    - apiGroups: [resource.k8s.io]\n      apiVersions: [v1beta1]\n      operations: [CREATE]\n      resources: [resourceclaims]\n" +
			"  validations:\n  - expression: \"true\"\n",
	}
	for i := range 20 {
		files[fmt.Sprintf("templates/class-%d.yaml", i)] = "{{- if .Capabilities.APIVersions.Has \"resource.k8s.io/v1\" }}\napiVersion: resource.k8s.io/v1\n{{- else }}\napiVersion: resource.k8s.io/v1beta1\n{{- end }}\n" +
			fmt.Sprintf("kind: DeviceClass\nmetadata:\n  name: class-%d.{{ .Values.driver }}\nspec:\n  selectors:\n  - cel:\n      expression: device.driver == \"{{ .Values.driver }}\" && device.attributes[\"{{ .Values.driver }}\"].index == %d\n", i, i)
	}
	files["templates/taints.yaml"] = "{{- if .Capabilities.APIVersions.Has \"resource.k8s.io/v1/DeviceTaintRule\" }}\napiVersion: resource.k8s.io/v1\nkind: DeviceTaintRule\nmetadata:\n  name: maintenance\n" +
		"spec:\n  deviceSelector:\n    driver: {{ .Values.driver }}\n  taint:\n    key: maintenance\n    effect: NoSchedule\n{{- end }}\n"
	for name, text := range files {
		path := filepath.Join(chart, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			b.Fatal(err)
		}
	}
	args := []string{"support", supportFixture(b, "lib037"), "--chart", chart, "--releases", "1.31-1.38", "--report", "json"}
	if code := Main(args, nil, io.Discard, io.Discard); code == ExitBadInput {
		b.Fatalf("support: exit %d", code)
	}
	b.ReportAllocs()
	for b.Loop() {
		Main(args, nil, io.Discard, io.Discard)
	}
}
