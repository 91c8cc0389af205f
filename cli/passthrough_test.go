package cli

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestPassThroughBytes: in YAML, convert and migrate write a document they
// do not change exactly as it was read, and a converted one below the
// comments at its top; -o json writes objects as it always did.
func TestPassThroughBytes(t *testing.T) {
	const cm = "# Source: chart/templates/cm.yaml\nkind: ConfigMap   # kind first\napiVersion: 'v1'\nmetadata: {name: \"cm\"}\ndata:\n  z: |\n    text\n  a: \"1\"\n"
	const claim = "# Source: chart/templates/claim.yaml\napiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: gpu}\n" +
		"spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu.example.com}}]}}\n"
	const converted = "# Source: chart/templates/claim.yaml\napiVersion: resource.k8s.io/v1beta2\nkind: ResourceClaim\nmetadata:\n  name: gpu\n" +
		"spec:\n  devices:\n    requests:\n    - exactly:\n        deviceClassName: gpu.example.com\n      name: gpu\n"
	for _, c := range []struct {
		name, in, out string
		args          []string
	}{
		{name: "comments-key-order-quoting", in: cm, out: cm},
		{name: "helm-stream", in: "---\n" + cm + "---\n" + claim, out: cm + "---\n" + converted},
		{name: "separator-comments-and-document-end", in: cm + "...\n--- # next\n" + cm, out: cm + "...\n---\n" + cm},
		{name: "no-trailing-newline", in: "kind: A\napiVersion: v1\n---\nkind: B\napiVersion: v1", out: "kind: A\napiVersion: v1\n---\nkind: B\napiVersion: v1"},
		{name: "no-trailing-newline-then-converted", in: "kind: A\napiVersion: v1\n---\n" + claim[:len(claim)-1], out: "kind: A\napiVersion: v1\n---\n" + converted},
		{name: "crlf", in: "# c\r\nkind: A\r\napiVersion: v1\r\n---\r\nkind: B\r\napiVersion: v1\r\n", out: "# c\r\nkind: A\r\napiVersion: v1\r\n---\nkind: B\r\napiVersion: v1\r\n"},
		{name: "list-items-are-written-as-objects", in: "apiVersion: v1\nkind: List\nitems:\n- {kind: A, apiVersion: v1}\n", out: "apiVersion: v1\nkind: A\n"},
		{name: "json-output", in: cm, args: []string{"-o", "json"},
			out: "{\n    \"apiVersion\": \"v1\",\n    \"data\": {\n        \"a\": \"1\",\n        \"z\": \"text\\n\"\n    },\n    \"kind\": \"ConfigMap\",\n    \"metadata\": {\n        \"name\": \"cm\"\n    }\n}\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, cmd := range []string{"convert", "migrate"} {
				code, stdout, stderr := run(t, c.in, append([]string{cmd, "--to", "v1beta2", "-f", "-"}, c.args...)...)
				if code != ExitOK {
					t.Fatalf("%s: exit %d: %s", cmd, code, stderr)
				}
				if d := cmp.Diff(c.out, stdout); d != "" {
					t.Errorf("%s: stdout (-want +got):\n%s", cmd, d)
				}
			}
		})
	}
}
