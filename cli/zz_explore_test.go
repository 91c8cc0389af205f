package cli

import (
	"fmt"
	"testing"
)

func TestZZExplore(t *testing.T) {
	ins := map[string]string{
		"v1beta1-claim": `apiVersion: resource.k8s.io/v1beta1
kind: ResourceClaim
metadata: {name: c, namespace: ns}
spec:
  devices:
    requests:
    - {name: a, deviceClassName: gpu, adminAccess: true}
`,
		"v1beta2-template": `apiVersion: resource.k8s.io/v1beta2
kind: ResourceClaimTemplate
metadata: {name: t, namespace: ns}
spec:
  spec:
    devices:
      requests:
      - {name: a, exactly: {deviceClassName: gpu, adminAccess: true}}
`,
		"v1alpha3-claim": `apiVersion: resource.k8s.io/v1alpha3
kind: ResourceClaim
metadata: {name: c, namespace: ns}
spec:
  devices:
    requests:
    - {name: a, deviceClassName: gpu, adminAccess: true}
`,
	}
	for name, in := range ins {
		for _, to := range []string{"1.32", "1.33", "1.34", "v1beta2"} {
			for _, gates := range []string{"", "DRAAdminAccess=true"} {
				for _, cmd := range []string{"convert", "migrate", "validate"} {
					args := []string{cmd, "--to", to, "-f", "-"}
					if gates != "" {
						args = append(args, "--feature-gates", gates)
					}
					code, out, stderr := run(t, in, args...)
					if cmd != "validate" {
						out = ""
					}
					fmt.Printf("=== %s %v: %d\n%s%s", name, args, code, out, stderr)
				}
			}
		}
	}
}
