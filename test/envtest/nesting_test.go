package envtest_test

import (
	"encoding/json"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestClaimsNestingBeyondConversionRefused: a claim written through v1alpha3
// needs no conversion to be stored, but one to be read through v1alpha1 or
// v1alpha2, in a ConversionReview that nests its objects a level deeper than
// an AdmissionReview. A claim whose opaque parameters nest so that it fits
// the one and not the other (--max-json-depth, 1000) was admitted, and then
// every read of it and every list of claims through v1alpha1 and v1alpha2,
// in all namespaces, failed. It must be refused; one a level shallower is
// stored and read through every version.
func TestClaimsNestingBeyondConversionRefused(t *testing.T) {
	ns := newNamespace(t, "nesting")
	// withNesting is a valid v1alpha3 claim whose JSON nests depth levels.
	withNesting := func(name string, depth int) *unstructured.Unstructured {
		for k := 1; k < depth; k++ {
			claim := fromYAML(t, "v1alpha3", ns, `
kind: ResourceClaim
metadata: {name: `+name+`}
spec:
  devices:
    requests:
    - {name: gpu, deviceClassName: gpu.example.com}
`)
			params := map[string]interface{}{"kind": "GpuConfig"}
			for p, i := params, 0; i < k; i++ {
				next := map[string]interface{}{}
				p["a"], p = next, next
			}
			set(t, claim, []interface{}{map[string]interface{}{"opaque": map[string]interface{}{"driver": "gpu.example.com", "parameters": params}}}, "spec", "devices", "config")
			data, err := json.Marshal(claim.Object)
			if err != nil {
				t.Fatal(err)
			}
			if nesting(data) == depth {
				return claim
			}
		}
		t.Fatalf("no claim nesting %d levels", depth)
		return nil
	}
	// A ConversionReview nests its objects 3 levels deep
	// ({"request":{"objects":[…]}}), an AdmissionReview 2.
	const maxDepth, conversionNesting = 1000, 3
	if _, err := claims("v1alpha3", ns).Create(ctxFor(t), withNesting("too-deep", maxDepth-conversionNesting+1), metav1.CreateOptions{}); err == nil {
		t.Error("a claim that no ConversionReview within --max-json-depth carries was stored")
	} else if !strings.Contains(err.Error(), "denied the request") || !strings.Contains(err.Error(), "nesting") {
		t.Errorf("create: %s; want a webhook's denial naming the nesting", describe(err))
	}
	if _, err := claims("v1alpha2", "").List(ctxFor(t), metav1.ListOptions{}); err != nil {
		t.Errorf("listing claims of all namespaces through v1alpha2: %s", describe(err))
	}

	createClaim(t, withNesting("deepest", maxDepth-conversionNesting))
	for _, v := range []string{"v1alpha1", "v1alpha2"} {
		get(t, claims(v, ns), "deepest")
		if _, err := claims(v, "").List(ctxFor(t), metav1.ListOptions{}); err != nil {
			t.Errorf("listing claims of all namespaces through %s: %s", v, describe(err))
		}
	}
}

// nesting is how deep arrays and objects nest in data (JSON).
func nesting(data []byte) int {
	depth, deepest := 0, 0
	inString, escaped := false, false
	for _, c := range data {
		switch {
		case inString && escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case inString:
			inString = c != '"'
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			depth++
			deepest = max(deepest, depth)
		case c == '}' || c == ']':
			depth--
		}
	}
	return deepest
}
