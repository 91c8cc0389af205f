//go:build envtest

package envtest_test

import (
	"encoding/json"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/conversion"
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

// TestRestoreDataBeyondConversionDepthRefused: a restore annotation is a
// patch its client can write (conversion's fingerprint of the spec is its
// base), whose data comes back, as objects, only in its version's view. A
// namespace user patched a claim through v1alpha3 (stored with no
// conversion) with a restore-v1alpha2 or restore-v1alpha1 annotation
// putting an unknown spec field nested 996 levels into that view, which
// /convert refused to return (998 levels, one more than a ConversionReview
// within --max-json-depth carries): the patch was admitted, and then every
// read of the claim and every list of claims through that version, in all
// namespaces, failed. It must be refused, naming the annotation, and so
// must any unknown field such data adds, at any depth (5,500 of them made
// every read through v1alpha1 diff them), as a create's are; the claim
// stays readable and listable through every version.
func TestRestoreDataBeyondConversionDepthRefused(t *testing.T) {
	ns := newNamespace(t, "restore-depth")
	const maxDepth, conversionNesting = 1000, 3
	// restorePatch is a merge patch setting the restore annotation of view
	// on stored (a v1alpha3 claim as read) so that its view in that
	// version nests depth levels ({"spec":{"x":…}}).
	restorePatch := func(stored *unstructured.Unstructured, view string, depth int) []byte {
		seen, err := conversion.Convert(stored.Object, view)
		if err != nil {
			t.Fatal(err)
		}
		seen["spec"].(map[string]interface{})["x"] = "PLACEHOLDER"
		back, err := conversion.Convert(seen, "v1alpha3")
		if err != nil {
			t.Fatal(err)
		}
		key := api.RestoreAnnotation(view)
		data, _ := back["metadata"].(map[string]interface{})["annotations"].(map[string]interface{})[key].(string)
		if !strings.Contains(data, `"PLACEHOLDER"`) {
			t.Fatalf("%s holds no placeholder: %q", key, data)
		}
		n := depth - 2
		data = strings.Replace(data, `"PLACEHOLDER"`, strings.Repeat(`{"a":`, n-1)+"{}"+strings.Repeat("}", n-1), 1)
		patch, err := json.Marshal(map[string]interface{}{"metadata": map[string]interface{}{"annotations": map[string]string{key: data}}})
		if err != nil {
			t.Fatal(err)
		}
		return patch
	}
	for _, tc := range []struct {
		name    string
		view    string
		depth   int
		tooDeep bool
	}{
		{"v1alpha2-too-deep", "v1alpha2", maxDepth - conversionNesting + 1, true},
		{"v1alpha1-too-deep", "v1alpha1", maxDepth - conversionNesting + 1, true},
		{"v1alpha2-deepest", "v1alpha2", maxDepth - conversionNesting, false},
		{"v1alpha1-shallow", "v1alpha1", 4, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stored := createClaim(t, fromYAML(t, "v1alpha3", ns, `
kind: ResourceClaim
metadata: {name: `+tc.name+`}
spec:
  devices:
    requests:
    - {name: gpu, deviceClassName: gpu.example.com}
`))
			_, err := claims("v1alpha3", ns).Patch(ctxFor(t), tc.name, types.MergePatchType, restorePatch(stored, tc.view, tc.depth), metav1.PatchOptions{})
			switch key := api.RestoreAnnotation(tc.view); {
			case err == nil:
				t.Errorf("a claim whose %s view has an unknown field nesting %d levels was stored", tc.view, tc.depth)
			case !strings.Contains(err.Error(), "denied the request") || !strings.Contains(err.Error(), "metadata.annotations["+key+"]") ||
				!strings.Contains(err.Error(), "spec.x: Forbidden: unknown field"):
				t.Errorf("patch: %s; want a webhook's denial at the annotation naming the unknown field", describe(err))
			case strings.Contains(err.Error(), "nests deeper than 997 levels") != tc.tooDeep:
				t.Errorf("patch: %s; want the nesting named: %v", describe(err), tc.tooDeep)
			}
			for _, v := range []string{"v1alpha1", "v1alpha2"} {
				if _, err := claims(v, ns).Get(ctxFor(t), tc.name, metav1.GetOptions{}); err != nil {
					t.Errorf("reading the claim through %s: %s", v, describe(err))
				}
				if _, err := claims(v, "").List(ctxFor(t), metav1.ListOptions{}); err != nil {
					t.Errorf("listing claims of all namespaces through %s: %s", v, describe(err))
				}
			}
		})
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
