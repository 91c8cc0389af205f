package release

import (
	"fmt"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/conversion"
	"github.com/claimbridge/claimbridge/migrate"
	"github.com/claimbridge/claimbridge/test/migratetest"
)

// TestMigrateRefusedIsRejected backs migrate's refusals for the alpha
// targets (package validation, run on the migrated object as a create):
// what migrate refuses naming a field of the target version, the release's
// apiserver rejects naming that field when the plain conversion is created;
// what migrate accepts, the release stores as migrated.
func TestMigrateRefusedIsRejected(t *testing.T) {
	const class = "spec.resourceClassName" // 1.26 and 1.30: "" is Invalid
	tests := []struct {
		name, in string
		// fields maps a target version to the field migrate's error and
		// the apiserver's message name; none: accepted.
		fields map[string]string
	}{{"v1-first-available", `
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: first-available}
spec:
  devices:
    requests: [{name: r, firstAvailable: [{name: big, deviceClassName: gpu.example.com}]}]
`, map[string]string{api.V1alpha3: "spec.devices.requests[0].deviceClassName", api.V1alpha2: class, api.V1alpha1: class}}, {
		"v1beta1-distinct-attribute", `
apiVersion: resource.k8s.io/v1beta1
kind: ResourceClaim
metadata: {name: distinct-attribute}
spec:
  devices:
    requests: [{name: gpu, deviceClassName: gpu.example.com}]
    constraints: [{requests: [gpu], distinctAttribute: gpu.example.com/uuid}]
`, map[string]string{api.V1alpha3: "spec.devices.constraints[0].matchAttribute"}}, {
		"v1alpha3-without-requests", `
apiVersion: resource.k8s.io/v1alpha3
kind: ResourceClaim
metadata: {name: without-requests}
spec: {devices: {}}
`, map[string]string{api.V1alpha2: class, api.V1alpha1: class}},
	}
	for _, r := range releases {
		c := clusters[r.name]
		ns := fmt.Sprintf("r%s-refused", strings.ReplaceAll(r.name, ".", ""))
		ns = c.createNamespace(t, ns)
		for _, tt := range tests {
			t.Run(r.name+"/"+tt.name, func(t *testing.T) {
				var in map[string]interface{}
				if err := yaml.Unmarshal([]byte(tt.in), &in); err != nil {
					t.Fatal(err)
				}
				field := tt.fields[r.version]
				out, _, err := migratetest.Migrated(t, in, r.version, migrate.Options{})
				if field == "" {
					if err != nil {
						t.Fatalf("migrate --to %s: %v, want the object migrated", r.version, err)
					}
					c.createAndCompare(t, out, ns, "")
					return
				}
				if err == nil || !strings.Contains(err.Error(), "apiserver would reject the migrated object: "+field) {
					t.Fatalf("migrate --to %s: %v, want a refusal naming %s", r.version, err, field)
				}
				plain, err := conversion.Convert(in, r.version)
				if err != nil {
					t.Fatal(err)
				}
				c.createAndCompare(t, plain, ns, field)
			})
		}
	}
}
