package cli

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"
)

// TestClusterFlagErrors: the flags of export, --verify and --apply that
// cannot be used are refused with exit 2 before anything is read or sent.
func TestClusterFlagErrors(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "kubeconfig")
	claim := filepath.Join("..", "examples", "claim-v1alpha2.yaml")
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"verify-without-target", []string{"migrate", "--to", "v1", "-f", claim, "--verify"},
			"Error: --verify and --apply need the target cluster: --target-context or --target-kubeconfig\n"},
		{"apply-without-target", []string{"convert", "--to", "v1", "-f", claim, "--apply"},
			"Error: --verify and --apply need the target cluster: --target-context or --target-kubeconfig\n"},
		{"target-kubeconfig-missing", []string{"migrate", "-f", claim, "--target-kubeconfig", missing},
			"Error: the target cluster: stat " + missing + ": no such file or directory\n"},
		{"export-output", []string{"export", "-o", "wide"},
			"Error: -o \"wide\": unsupported output format (supported: yaml, json)\n"},
		{"export-kubeconfig-missing", []string{"export", "--kubeconfig", missing},
			"Error: stat " + missing + ": no such file or directory\n"},
		{"export-arguments", []string{"export", "old"},
			"Error: unknown command \"old\" for \"claimbridge export\"\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := run(t, "", tt.args...)
			if code != ExitBadInput || stdout != "" || stderr != tt.want {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 2 and %q", code, stdout, stderr, tt.want)
			}
		})
	}
}

// TestListWriter: export's List is what encoding the whole List writes,
// as kubectl get -o yaml|json does, item by item; YAML that would not read
// back as the objects is refused.
func TestListWriter(t *testing.T) {
	pod := func(name string, annotations map[string]interface{}) map[string]interface{} {
		return map[string]interface{}{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]interface{}{"name": name, "annotations": annotations},
			"spec": map[string]interface{}{"containers": []interface{}{map[string]interface{}{"name": "c", "args": []interface{}{"a", "b"}}}}}
	}
	lists := map[string][]map[string]interface{}{
		"empty": {},
		"one":   {pod("a", nil)},
		"several": {
			pod("a", map[string]interface{}{"script": "set -e\n  indented\n\nlast\n", "lead": "  spaces", "html": "<a & b>"}),
			{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]interface{}{"name": "b"}, "data": map[string]interface{}{"k": "v1\nv2"}},
			pod("c", map[string]interface{}{"empty": ""}),
		},
	}
	for name, items := range lists {
		list := map[string]interface{}{"apiVersion": "v1", "kind": "List", "metadata": map[string]interface{}{"resourceVersion": ""}, "items": items}
		wantYAML, err := yaml.Marshal(list)
		if err != nil {
			t.Fatal(err)
		}
		var wantJSON bytes.Buffer
		enc := json.NewEncoder(&wantJSON)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "    ")
		if err := enc.Encode(list); err != nil {
			t.Fatal(err)
		}
		for format, want := range map[string]string{"yaml": string(wantYAML), "json": wantJSON.String()} {
			w := listWriter{format: format}
			for _, obj := range items {
				if err := w.add(obj); err != nil {
					t.Fatal(err)
				}
			}
			var out strings.Builder
			if err := w.writeTo(&out); err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(want, out.String()); d != "" {
				t.Errorf("%s, %s (-whole List +item by item):\n%s", name, format, d)
			}
		}
	}
	for _, tt := range []struct{ format, name, want string }{
		{"json", "a\u009b", ""},
		{"yaml", "a\u009b", "Pod a\u009b cannot be written as YAML: yaml: control characters are not allowed; use -o json"},
		{"yaml", "a\u0085b", "Pod a\u0085b cannot be written as YAML: metadata.name: the string \"a\\u0085b\" reads back from YAML as the string \"a b\"; use -o json"},
	} {
		w := listWriter{format: tt.format}
		got := ""
		if err := w.add(pod(tt.name, nil)); err != nil {
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("%s %q: got error %q, want %q", tt.format, tt.name, got, tt.want)
		}
	}
	w := listWriter{format: "json"}
	if err := w.add(pod("a\u009b", nil)); err != nil || !strings.Contains(w.buf.String(), `"name": "a\u009b"`) {
		t.Errorf("JSON: C1 controls not escaped: %v %s", err, w.buf.String())
	}
}
