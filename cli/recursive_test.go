package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRecursive: -R reads a chart-like tree (nested directories, other
// files beside the manifests) in the order of the paths, for every command
// that takes -f; without it a directory of subdirectories has no manifest.
func TestRecursive(t *testing.T) {
	dir := t.TempDir()
	claim := func(name string) string {
		return "apiVersion: resource.k8s.io/v1beta1\nkind: ResourceClaim\nmetadata: {name: " + name + ", namespace: ns}\n" +
			"spec:\n  devices:\n    requests:\n    - name: gpu\n      deviceClassName: gpu.example.com\n"
	}
	for name, text := range map[string]string{
		"templates/b/claim.yaml": claim("b"),
		"templates/a.yaml":       claim("a"),
		"templates/NOTES.txt":    "not a manifest",
		"Chart.yml.orig":         "not a manifest",
	} {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"validate"}, {"convert", "--to", "1.32"}, {"migrate", "--to", "1.32"}} {
		code, stdout, stderr := run(t, "", append(args, "-R", "-f", dir)...)
		if args[0] == "validate" {
			stdout = "" // findings, none
		}
		if code != ExitOK || stderr != "" || strings.Index(stdout, "name: a") > strings.Index(stdout, "name: b") {
			t.Errorf("%s -R: exit %d, stderr %q, stdout:\n%s", args[0], code, stderr, stdout)
		}
		if args[0] != "validate" && strings.Count(stdout, "kind: ResourceClaim") != 2 {
			t.Errorf("%s -R: want both claims:\n%s", args[0], stdout)
		}
		code, _, stderr = run(t, "", append(args, "-f", dir)...)
		if want := "no .yaml, .yml or .json file in the directory\n"; code != ExitBadInput || !strings.HasSuffix(stderr, want) {
			t.Errorf("%s without -R: exit %d, stderr %q", args[0], code, stderr)
		}
	}
	empty := filepath.Join(dir, "templates", "b", "none")
	if err := os.MkdirAll(empty, 0o700); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := run(t, "", "validate", "-R", "-f", empty)
	if want := empty + ": no .yaml, .yml or .json file in the directory or its subdirectories\n"; code != ExitBadInput || !strings.HasSuffix(stderr, want) {
		t.Errorf("empty tree: exit %d, stderr %q", code, stderr)
	}
}
