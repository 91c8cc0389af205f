package cli

import (
	"cmp"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
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

// TestWriteList: export writes one v1 List, as kubectl get does, and
// refuses YAML that would not read back as the objects.
func TestWriteList(t *testing.T) {
	pod := func(name string) []map[string]interface{} {
		return []map[string]interface{}{{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]interface{}{"name": name}}}
	}
	for _, tt := range []struct {
		name, format string
		items        []map[string]interface{}
		want, err    string
	}{
		{"yaml", "yaml", pod("a"), "apiVersion: v1\nitems:\n- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: a\nkind: List\nmetadata:\n  resourceVersion: \"\"\n", ""},
		{"json", "json", pod("a\u009b"), "{\n    \"apiVersion\": \"v1\",\n    \"items\": [\n        {\n            \"apiVersion\": \"v1\",\n            \"kind\": \"Pod\",\n            \"metadata\": {\n                \"name\": \"a\\u009b\"\n            }\n        }\n    ],\n    \"kind\": \"List\",\n    \"metadata\": {\n        \"resourceVersion\": \"\"\n    }\n}\n", ""},
		{"yaml-control", "yaml", pod("a\u009b"), "", "the objects cannot be written as YAML: yaml: control characters are not allowed; use -o json"},
		{"yaml-garbled", "yaml", pod("a\u0085b"), "", "the objects cannot be written as YAML: items[0].metadata.name: the string \"a\\u0085b\" reads back from YAML as the string \"a b\"; use -o json"},
	} {
		var out strings.Builder
		err := writeList(&out, tt.items, tt.format)
		if out.String() != tt.want || fmt.Sprint(err) != cmp.Or(tt.err, "<nil>") {
			t.Errorf("%s: got %q, %v; want %q, %s", tt.name, out.String(), err, tt.want, tt.err)
		}
	}
}
