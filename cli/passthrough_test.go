package cli

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestPassThroughBytes: in YAML, convert and migrate write a document they
// do not change exactly as it was read, with the "---" line, comments and
// empty documents before it; a converted one between the comments around
// it; a List none of whose objects they change as it was read; -o json
// writes objects as it always did.
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
		{name: "helm-stream", in: "---\n" + cm + "---\n" + claim, out: "---\n" + cm + "---\n" + converted},
		{name: "separator-comments-and-document-end", in: cm + "...\n--- # next\n" + cm, out: cm + "...\n--- # next\n" + cm},
		{name: "documents-with-no-object", in: "# license\n---\n# about\n---\n" + claim + "---\n\n---\n" + cm + "---\n# end\n",
			out: "# license\n---\n# about\n---\n" + converted + "---\n\n---\n" + cm + "---\n# end\n"},
		{name: "converted-last-keeps-what-follows", in: cm + "---\n" + claim + "--- # end\n", out: cm + "---\n" + converted + "--- # end\n"},
		{name: "no-trailing-newline", in: "kind: A\napiVersion: v1\n---\nkind: B\napiVersion: v1", out: "kind: A\napiVersion: v1\n---\nkind: B\napiVersion: v1"},
		{name: "no-trailing-newline-then-converted", in: "kind: A\napiVersion: v1\n---\n" + claim[:len(claim)-1], out: "kind: A\napiVersion: v1\n---\n" + converted},
		{name: "crlf", in: "# c\r\nkind: A\r\napiVersion: v1\r\n---\r\nkind: B\r\napiVersion: v1\r\n", out: "# c\r\nkind: A\r\napiVersion: v1\r\n---\r\nkind: B\r\napiVersion: v1\r\n"},
		{name: "list-unchanged", in: cm + "---\n# l\napiVersion: v1\nkind: List\nitems:\n- {kind: A, apiVersion: v1}\n- {kind: List, apiVersion: v1, items: [{kind: B, apiVersion: v1}]}\n",
			out: cm + "---\n# l\napiVersion: v1\nkind: List\nitems:\n- {kind: A, apiVersion: v1}\n- {kind: List, apiVersion: v1, items: [{kind: B, apiVersion: v1}]}\n"},
		{name: "list-converted-is-written-as-objects", in: "apiVersion: v1\nkind: List\nitems:\n- {kind: A, apiVersion: v1}\n- " + strings.ReplaceAll(claim[strings.Index(claim, "apiVersion"):], "\n", "\n  "),
			out: "apiVersion: v1\nkind: A\n---\n" + converted[strings.Index(converted, "apiVersion"):]},
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
