package conversion_test

import (
	"testing"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/conversion"
)

// TestStructuredNodeNameFromNodeSelector: the structuredData.nodeName of a
// structured handle, which a 1.30 scheduler reads as the node the devices are
// on, is the node of a 1.31 nodeSelector only when it selects exactly one
// node by name (one term, one matchFields requirement metadata.name In with
// one value, no matchExpressions); any other selector leaves the node to the
// pool the driver's results share (docs/conversion.md §2.4).
func TestStructuredNodeNameFromNodeSelector(t *testing.T) {
	const (
		n1 = `{"key":"metadata.name","operator":"In","values":["n1"]}`
		ex = `{"key":"zone","operator":"In","values":["z"]}`
	)
	for _, c := range []struct {
		name, selector, want string
	}{
		{"one node by name", `{"nodeSelectorTerms":[{"matchFields":[` + n1 + `]}]}`, `"n1"`},
		{"two terms", `{"nodeSelectorTerms":[{"matchFields":[` + n1 + `]},{"matchFields":[` + n1 + `]}]}`, `"pool-a"`},
		{"no terms", `{"nodeSelectorTerms":[]}`, `"pool-a"`},
		{"a matchExpressions beside", `{"nodeSelectorTerms":[{"matchExpressions":[` + ex + `],"matchFields":[` + n1 + `]}]}`, `"pool-a"`},
		{"two matchFields", `{"nodeSelectorTerms":[{"matchFields":[` + n1 + `,` + n1 + `]}]}`, `"pool-a"`},
		{"no matchFields", `{"nodeSelectorTerms":[{"matchExpressions":[` + ex + `]}]}`, `"pool-a"`},
		{"another key", `{"nodeSelectorTerms":[{"matchFields":[{"key":"metadata.namespace","operator":"In","values":["n1"]}]}]}`, `"pool-a"`},
		{"operator NotIn", `{"nodeSelectorTerms":[{"matchFields":[{"key":"metadata.name","operator":"NotIn","values":["n1"]}]}]}`, `"pool-a"`},
		{"two values", `{"nodeSelectorTerms":[{"matchFields":[{"key":"metadata.name","operator":"In","values":["n1","n2"]}]}]}`, `"pool-a"`},
		{"no values", `{"nodeSelectorTerms":[{"matchFields":[{"key":"metadata.name","operator":"In","values":[]}]}]}`, `"pool-a"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := tblDecode(t, v3Claim+`"spec":{"devices":{"requests":[{"name":"request","deviceClassName":"gpu","allocationMode":"ExactCount","count":1}]}},
				"status":{"allocation":{"nodeSelector":`+c.selector+`,"devices":{
					"results":[{"request":"request","driver":"d","pool":"pool-a","device":"gpu-0"}]}}}}`)
			out, err := conversion.Convert(in, api.V1alpha2)
			if err != nil {
				t.Fatal(err)
			}
			got, ok := lookup(out, "status.allocation.resourceHandles[0].structuredData.nodeName")
			gotJSON := absent
			if ok {
				gotJSON = tblJSON(t, got)
			}
			if gotJSON != c.want {
				t.Errorf("structuredData.nodeName = %s, want %s", gotJSON, c.want)
			}
		})
	}
}
