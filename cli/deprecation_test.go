package cli

import "testing"

// TestValidateWarnsOfDeprecatedVersions: validate --to a release that
// serves a version as deprecated (from 1.34 a beta only with
// --runtime-config) warns, in upstream's words, naming the release that
// stops serving it; --strict makes that exit 1, so that CI catches a
// v1beta1 chart before 1.38. Without --to there is no target, and no
// warning.
func TestValidateWarnsOfDeprecatedVersions(t *testing.T) {
	const claim = `apiVersion: resource.k8s.io/v1beta1
kind: ResourceClaim
metadata: {name: gpu, namespace: ml}
spec:
  devices:
    requests:
    - name: gpu
      deviceClassName: gpu.example.com
`
	const warning = "<stdin>: document 1 (line 1): warning: ResourceClaim ml/gpu: resource.k8s.io/v1beta1 ResourceClaim is deprecated in Kubernetes 1.35 and no longer served from 1.38: use resource.k8s.io/v1\n"
	for _, tc := range []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"--to", "1.35", "--runtime-config", "resource.k8s.io/v1beta1=true"}, ExitOK, warning},
		{[]string{"--to", "1.37", "--runtime-config", "api/beta=true"}, ExitOK, warning},
		{[]string{"--to", "1.35", "--runtime-config", "api/all=true", "--strict"}, ExitInvalid, warning},
		{[]string{"--to", "1.34", "--runtime-config", "resource.k8s.io/v1beta1=true"}, ExitOK, ""},
		{[]string{"--to", "1.34", "--runtime-config", "resource.k8s.io/v1beta1=true", "--strict"}, ExitOK, ""},
		{[]string{"--to", "1.33"}, ExitOK, ""},
		{nil, ExitOK, ""},
	} {
		code, stdout, stderr := run(t, claim, append([]string{"validate", "-f", "-"}, tc.args...)...)
		if code != tc.code || stdout != "" || stderr != tc.stderr {
			t.Errorf("validate %v: exit %d, stdout %q, stderr %q; want exit %d, stderr %q", tc.args, code, stdout, stderr, tc.code, tc.stderr)
		}
	}
}
