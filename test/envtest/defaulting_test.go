package envtest_test

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/claimbridge/claimbridge/conversion"
)

// TestDefaulting creates claims and templates without the defaults of their
// version's release, through kube-apiserver with the mutating webhook of
// config/webhook: they are stored with them, as each release's apiserver
// stored every object (a 1.31 scheduler fails a request without an
// allocation mode and allocates no device for ExactCount without a count),
// and read through another version they need no restore data for them.
func TestDefaulting(t *testing.T) {
	ns := newNamespace(t, "defaulting")

	v3 := createClaim(t, fromYAML(t, "v1alpha3", ns, `
kind: ResourceClaim
metadata: {name: requests}
spec:
  devices:
    requests:
    - {name: gpu, deviceClassName: gpu.example.com}
    - {name: two, deviceClassName: gpu.example.com, count: 2}
    - {name: zero, deviceClassName: gpu.example.com, allocationMode: ExactCount, count: 0}
    - {name: all, deviceClassName: nic.example.com, allocationMode: All}
`))
	want := []interface{}{
		map[string]interface{}{"name": "gpu", "deviceClassName": "gpu.example.com", "allocationMode": "ExactCount", "count": 1},
		map[string]interface{}{"name": "two", "deviceClassName": "gpu.example.com", "allocationMode": "ExactCount", "count": 2},
		map[string]interface{}{"name": "zero", "deviceClassName": "gpu.example.com", "allocationMode": "ExactCount", "count": 1},
		map[string]interface{}{"name": "all", "deviceClassName": "nic.example.com", "allocationMode": "All"},
	}
	expectField(t, v3, want, "spec", "devices", "requests")
	expectField(t, get(t, claims("v1alpha3", ns), "requests"), want, "spec", "devices", "requests")

	tmpl3 := createObject(t, templatesResource, fromYAML(t, "v1alpha3", ns, `
kind: ResourceClaimTemplate
metadata: {name: template}
spec: {spec: {devices: {requests: [{name: request, deviceClassName: gpu.example.com}]}}}
`))
	expectField(t, tmpl3, []interface{}{map[string]interface{}{"name": "request", "deviceClassName": "gpu.example.com", "allocationMode": "ExactCount", "count": 1}},
		"spec", "spec", "devices", "requests")
	// Defaulted as 1.31 stores it, the single request of a class reads as a
	// 1.30 claim without restore data.
	seen := get(t, templates("v1alpha2", ns), "template")
	expectField(t, seen, map[string]interface{}{"resourceClassName": "gpu.example.com", "allocationMode": "WaitForFirstConsumer"}, "spec", "spec")
	expectNoField(t, seen, "metadata", "annotations", conversion.RestoreAnnotation(conversion.V1alpha3))

	// v1alpha1/v1alpha2: the CRD defaults an absent mode, the webhook an
	// empty one too (upstream's SetDefaults_ResourceClaimSpec replaces "").
	for _, version := range []string{"v1alpha1", "v1alpha2"} {
		for name, mode := range map[string]string{"absent": "", "empty": `, allocationMode: ""`} {
			c := createClaim(t, fromYAML(t, version, ns, `
kind: ResourceClaim
metadata: {name: `+version+`-`+name+`}
spec: {resourceClassName: gpu.example.com`+mode+`}
`))
			expectField(t, c, "WaitForFirstConsumer", "spec", "allocationMode")
			seen := get(t, claims("v1alpha3", ns), c.GetName())
			expectField(t, seen, []interface{}{map[string]interface{}{"name": "request", "deviceClassName": "gpu.example.com", "allocationMode": "ExactCount", "count": 1}},
				"spec", "devices", "requests")
			expectNoField(t, seen, "metadata", "annotations")
		}
	}

	// An update of the main resource is defaulted too: a spec sent back
	// without its defaults is the same spec, and is stored with them.
	stripped := get(t, claims("v1alpha3", ns), "requests")
	reqs := stripped.Object["spec"].(map[string]interface{})["devices"].(map[string]interface{})["requests"].([]interface{})
	first := reqs[0].(map[string]interface{})
	delete(first, "allocationMode")
	delete(first, "count")
	stripped.SetLabels(map[string]string{"team": "a"})
	updated, err := claims("v1alpha3", ns).Update(ctxFor(t), stripped, metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("update without the defaults: %s", describe(err))
	}
	expectField(t, updated, want, "spec", "devices", "requests")
}
