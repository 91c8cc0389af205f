package conversion_test

import (
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/conversion"
)

// TestNestedUnknownFieldsGoToTheAnnotation: a field that neither v1alpha3
// nor v1beta1, v1beta2 and v1 have, nested in a selector, its CEL
// expression or opaque configuration, is kept only in the restore
// annotation (as the warnings say), in both directions: the converted
// object decodes strictly into upstream's types, and converting back gives
// the input exactly.
func TestNestedUnknownFieldsGoToTheAnnotation(t *testing.T) {
	const v1alpha3 = `apiVersion: resource.k8s.io/v1alpha3
kind: ResourceClaim
metadata: {name: gpu, namespace: ml}
spec:
  devices:
    requests:
    - name: gpu
      deviceClassName: gpu.example.com
      selectors:
      - cel: {expression: 'device.driver == "gpu.example.com"', costHint: 3}
        priority: 1
    config:
    - requests: [gpu]
      opaque: {driver: gpu.example.com, parameters: {sharing: TimeSlicing}, schema: v2}
status:
  allocation:
    devices:
      results: [{request: gpu, driver: gpu.example.com, pool: node-1, device: gpu-0}]
      config:
      - source: FromClaim
        opaque: {driver: gpu.example.com, parameters: {sharing: TimeSlicing}, schema: v2}
`
	const v1 = `apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: gpu, namespace: ml}
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly:
          deviceClassName: gpu.example.com
          selectors:
          - cel: {expression: 'device.driver == "gpu.example.com"', costHint: 3}
            priority: 1
      config:
      - requests: [gpu]
        opaque: {driver: gpu.example.com, parameters: {sharing: TimeSlicing}, schema: v2}
`
	for _, tc := range []struct {
		name, in string
		to       []string
	}{
		{"v1alpha3", v1alpha3, []string{api.V1beta1, api.V1beta2, api.V1}},
		{"v1", v1, []string{api.V1alpha3, api.V1alpha2}},
	} {
		var in map[string]interface{}
		if err := yaml.Unmarshal([]byte(tc.in), &in); err != nil {
			t.Fatal(err)
		}
		_, from, _, _ := conversion.Identify(in)
		for _, to := range tc.to {
			t.Run(tc.name+"-to-"+to, func(t *testing.T) {
				out, err := conversion.Convert(in, to)
				if err != nil {
					t.Fatal(err)
				}
				withoutAnnotations := api.DeepCopyJSON(out)
				delete(withoutAnnotations["metadata"].(map[string]interface{}), "annotations")
				body := mustJSON(withoutAnnotations)
				for _, field := range []string{"costHint", "priority", "schema"} {
					if strings.Contains(body, field) {
						t.Errorf("the converted object carries %s: %s", field, body)
					}
				}
				if to != api.V1alpha3 && to != api.V1alpha2 {
					if err := decodeStrict(out, to); err != nil {
						t.Errorf("strict decode into %s: %v", to, err)
					}
				}
				back, err := conversion.Convert(out, from)
				if err != nil {
					t.Fatal(err)
				}
				if got, want := mustJSON(back), mustJSON(in); got != want {
					t.Errorf("back to %s:\n got %s\nwant %s", from, got, want)
				}
			})
		}
	}
}
