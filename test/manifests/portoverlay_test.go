//go:build envtest

package manifests

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
)

// portOverlay is the kustomization docs/operations.md gives for another
// webhook port ("Ports, host network, names"): the first yaml block after
// the paragraph that starts with "**With kustomize** the port".
var portOverlay = regexp.MustCompile("(?s)\\*\\*With kustomize\\*\\* the port.*?```yaml\n(.*?)```")

// TestKustomizePortOverlay builds the overlay docs/operations.md gives for
// moving the webhook to port 10250, over both installs, and checks that the
// server listens there (one --port flag), the container port the Service
// targets is it, and the NetworkPolicy opens it and not 9443.
func TestKustomizePortOverlay(t *testing.T) {
	root := repoRoot(t)
	doc, err := os.ReadFile(filepath.Join(root, "docs", "operations.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := portOverlay.FindSubmatch(doc)
	if m == nil {
		t.Fatal("docs/operations.md: no yaml block after **With kustomize** the port")
	}
	const remote = "- github.com/claimbridge/claimbridge/config/default?ref="
	for _, base := range []string{"config/default", "config/self-managed"} {
		t.Run(base, func(t *testing.T) {
			overlay := t.TempDir()
			rel, err := filepath.Rel(overlay, filepath.Join(root, base))
			if err != nil {
				t.Fatal(err)
			}
			var lines []string
			replaced := false
			for _, line := range strings.Split(string(m[1]), "\n") {
				if strings.HasPrefix(line, remote) {
					line, replaced = "- "+filepath.ToSlash(rel), true
				}
				lines = append(lines, line)
			}
			if !replaced {
				t.Fatalf("the overlay in docs/operations.md has no resource %s…:\n%s", remote, m[1])
			}
			if err := os.WriteFile(filepath.Join(overlay, "kustomization.yaml"), []byte(strings.Join(lines, "\n")), 0o644); err != nil {
				t.Fatal(err)
			}
			r := build(t, overlay)

			var d appsv1.Deployment
			r.one(t, "Deployment", &d)
			c := d.Spec.Template.Spec.Containers[0]
			var portFlags []string
			for _, a := range c.Args {
				if strings.HasPrefix(a, "--port=") {
					portFlags = append(portFlags, a)
				}
			}
			var svc corev1.Service
			r.one(t, "Service", &svc)
			var target int32
			for _, p := range svc.Spec.Ports {
				if p.Port == 443 {
					target = resolvePort(t, &d, p.TargetPort)
				}
			}
			var policyPorts []int32
			for _, o := range r.byKind["NetworkPolicy"] {
				var np networkingv1.NetworkPolicy
				decode(t, o, &np)
				for _, rule := range np.Spec.Ingress {
					for _, p := range rule.Ports {
						policyPorts = append(policyPorts, resolvePort(t, &d, *p.Port))
					}
				}
			}
			got := []interface{}{portFlags, target, policyPorts}
			want := []interface{}{[]string{"--port=10250"}, int32(10250), []int32{8080, 10250}} // metrics, then webhook (kustomize's order)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("--port flags, the Service's target port, the NetworkPolicies' ports (-want +got):\n%s", diff)
			}
			// The names the overlay does not touch are still wired.
			checkWiring(t, r, wantNamespace, "claimbridge-")
		})
	}
}
