package cli

import (
	"strings"
	"testing"
)

// TestToClusterVersion: --to takes a cluster's version string, as
// `--to "$KUBE_VERSION"` passes it, and means its release: the output, the
// findings, the JSON report and the exit code are those of --to 1.33.
func TestToClusterVersion(t *testing.T) {
	for _, tc := range []struct{ command, version string }{
		{"convert", "v1.33.4+k3s1"},
		{"validate", "v1.33.4-eks-a1b2c3d"},
		{"migrate", "v1.33.4-gke.1200"},
		{"validate", "1.33.4"},
	} {
		t.Run(tc.command+" "+tc.version, func(t *testing.T) {
			for _, report := range []string{"text", "json"} {
				args := func(to string) []string {
					return []string{tc.command, "--to", to, "-f", "-", "--report", report}
				}
				wantCode, wantOut, wantErr := run(t, reportInput, args("1.33")...)
				code, stdout, stderr := run(t, reportInput, args(tc.version)...)
				if code != wantCode || stdout != wantOut || stderr != wantErr {
					t.Errorf("--report %s: exit %d, stdout:\n%s\nstderr:\n%s\nwant as --to 1.33: exit %d, stdout:\n%s\nstderr:\n%s",
						report, code, stdout, stderr, wantCode, wantOut, wantErr)
				}
			}
		})
	}
	for _, command := range []string{"convert", "validate"} {
		for _, to := range []string{"v1.33.x", "2.33", "1.99"} {
			if code, _, stderr := run(t, reportInput, command, "--to", to, "-f", "-"); code != ExitBadInput || !strings.Contains(stderr, to) {
				t.Errorf("%s --to %s: exit %d, stderr %q; want %d naming it", command, to, code, stderr, ExitBadInput)
			}
		}
	}
}
