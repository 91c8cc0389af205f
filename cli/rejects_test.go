package cli

import (
	"strings"
	"testing"
)

// TestConvertExitsOneOnWhatTheTargetRejects: a 1.34 DeviceClass with an
// extendedResourceName converted for 1.33, which has no such field, is
// written with an error naming the field and the release, and exit 1, as
// the README promises; migrate drops the field and writes what 1.33 takes.
func TestConvertExitsOneOnWhatTheTargetRejects(t *testing.T) {
	const class = `apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: gpu.example.com
spec:
  extendedResourceName: example.com/gpu
  selectors:
  - cel:
      expression: device.driver == "gpu.example.com"
`
	code, stdout, stderr := run(t, class, "convert", "--to", "1.33", "-f", "-")
	want := "Error: <stdin>: document 1 (line 1): DeviceClass gpu.example.com: a Kubernetes 1.33 apiserver would reject it: " +
		"spec.extendedResourceName: Forbidden: unknown field: Kubernetes 1.33 does not have it (1.34+)\n"
	if code != ExitInvalid || stderr != want || stdout != strings.Replace(class, "/v1\n", "/v1beta2\n", 1) {
		t.Errorf("convert: exit %d, stderr %q, want exit %d, %q; stdout:\n%s", code, stderr, ExitInvalid, want, stdout)
	}
	code, stdout, stderr = run(t, class, "migrate", "--to", "1.33", "-f", "-")
	if code != ExitOK || strings.Contains(stdout, "extendedResourceName") || !strings.Contains(stderr, "lost spec.extendedResourceName") {
		t.Errorf("migrate: exit %d, stderr %q, stdout:\n%s", code, stderr, stdout)
	}
}
