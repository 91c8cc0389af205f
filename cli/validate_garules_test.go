package cli

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestGARulesName: a v1 claim named like a template placeholder is refused
// by validate, as the same name in v1alpha3 is, and by migrate --to v1.
func TestGARulesName(t *testing.T) {
	claim := func(apiVersion string) string {
		return "apiVersion: " + apiVersion + `
kind: ResourceClaim
metadata: {name: 'test-claim-{{.Index}}'}
spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu.example.com}}]}}
`
	}
	want := `<stdin>: document 1 (line 1): ResourceClaim test-claim-{{.Index}}: metadata.name: Invalid value: "test-claim-{{.Index}}": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')` + "\n"
	code, out, _ := run(t, claim("resource.k8s.io/v1"), "validate", "-f", "-")
	if code != ExitInvalid {
		t.Errorf("validate: exit %d, want %d", code, ExitInvalid)
	}
	if d := cmp.Diff(want, out); d != "" {
		t.Errorf("validate (-want +got):\n%s", d)
	}
	code, _, stderr := run(t, claim("resource.k8s.io/v1beta2"), "migrate", "--to", "v1", "-f", "-")
	if code != ExitInvalid || !strings.Contains(stderr, "would reject the migrated object: metadata.name: Invalid value") {
		t.Errorf("migrate --to v1: exit %d, stderr %q; want %d and a refusal naming metadata.name", code, stderr, ExitInvalid)
	}
}
