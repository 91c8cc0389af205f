package cli

import (
	"path/filepath"
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
