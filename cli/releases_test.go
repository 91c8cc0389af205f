package cli

import (
	"strings"
	"testing"

	"github.com/claimbridge/claimbridge/api"
)

// TestAddARelease: a release added to api.Releases is a target of every
// command, in their help too, with no other edit.
func TestAddARelease(t *testing.T) {
	saved := api.Releases
	api.Releases = append(saved[:len(saved):len(saved)], api.Release{Minor: 99, Version: api.V1})
	t.Cleanup(func() { api.Releases = saved })
	claim := "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: gpu, namespace: ml}\nspec:\n  devices:\n    requests:\n    - name: gpu\n      exactly: {deviceClassName: gpu.example.com}\n"
	for _, args := range [][]string{
		{"convert", "--to", "1.99", "-f", "-"},
		{"convert", "--to", "v1.99.2-eks-a1b2c3d", "-f", "-"},
		{"migrate", "--to", "1.99", "-f", "-"},
		{"validate", "--to", "1.99", "-f", "-"},
	} {
		code, out, errOut := run(t, claim, args...)
		if code != ExitOK {
			t.Errorf("%s: exit %d\n%s%s", strings.Join(args, " "), code, out, errOut)
		}
	}
	for _, cmd := range []string{"convert", "migrate", "validate"} {
		if _, out, _ := run(t, "", cmd, "--help"); !strings.Contains(out, "1.26 … 1.99") {
			t.Errorf("%s --help does not name 1.99:\n%s", cmd, out)
		}
	}
}
