//go:build envtest

package envtest_test

import (
	"fmt"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// The CRD's schema must not answer for upstream where upstream answers
// otherwise: what 1.26–1.31 accepted is accepted (also with kubectl's
// strict field validation), and what they refused reaches the webhook,
// which refuses it as they did, instead of being pruned silently.

// TestSchemaAcceptsWhatUpstreamAccepts writes, with strict field validation,
// objects the releases' apiservers accept and the schema once refused or
// pruned, and reads each back unchanged through the version it was written
// in.
func TestSchemaAcceptsWhatUpstreamAccepts(t *testing.T) {
	ns := newNamespace(t, "schema-accepts")
	strict := metav1.CreateOptions{FieldValidation: metav1.FieldValidationStrict}
	for _, v := range []string{"v1alpha1", "v1alpha2", "v1alpha3"} {
		// Every 1.26–1.31 export of a template writes it.
		t.Run(v+" template with spec.metadata.creationTimestamp: null", func(t *testing.T) {
			spec := "resourceClassName: gpu.example.com"
			if v == "v1alpha3" {
				spec = "devices: {requests: [{name: gpu, deviceClassName: gpu.example.com}]}"
			}
			name := "created-null-" + v
			obj := fromYAML(t, v, ns, fmt.Sprintf(`
kind: ResourceClaimTemplate
metadata: {name: %s}
spec:
  metadata: {creationTimestamp: null, labels: {team: a}}
  spec: {%s}
`, name, spec))
			if _, err := templates(v, ns).Create(ctxFor(t), obj, strict); err != nil {
				t.Fatalf("create: %s", describe(err))
			}
			// The null is pruned, as for every field the schema does not
			// make nullable.
			expectField(t, get(t, templates(v, ns), name), map[string]interface{}{"labels": map[string]interface{}{"team": "a"}}, "spec", "metadata")
		})
	}
	// 1.31 has no required check on a claim's or a template's spec, but the
	// schema keeps requiring it (docs/validation.md, schema floor): an
	// object without one would have v1alpha1/v1alpha2 views without one,
	// which their schemas refuse on every write. spec: {} is that claim,
	// and it stays writable through every version.
	for _, c := range []struct{ resource, doc string }{
		{claimsResource, "kind: ResourceClaim\nmetadata: {name: no-spec}\n"},
		{templatesResource, "kind: ResourceClaimTemplate\nmetadata: {name: no-spec}\n"},
	} {
		obj := fromYAML(t, "v1alpha3", ns, c.doc)
		t.Run(fmt.Sprintf("v1alpha3 %s without spec is refused by the schema", c.resource), func(t *testing.T) {
			_, err := res("v1alpha3", c.resource, ns).Create(ctxFor(t), obj, strict)
			expectInvalid(t, err, bySchema, cause{Field: "spec", Type: causeRequired})
		})
	}
	t.Run("v1alpha3 claim with an empty spec is writable through every version", func(t *testing.T) {
		obj := fromYAML(t, "v1alpha3", ns, "kind: ResourceClaim\nmetadata: {name: empty-spec, finalizers: [example.com/f]}\nspec: {}\n")
		if _, err := claims("v1alpha3", ns).Create(ctxFor(t), obj, strict); err != nil {
			t.Fatalf("create: %s", describe(err))
		}
		for _, v := range []string{"v1alpha1", "v1alpha2"} {
			if _, err := claims(v, ns).Patch(ctxFor(t), "empty-spec", types.MergePatchType, []byte(`{"metadata":{"labels":{"seen-by":"`+v+`"}}}`), metav1.PatchOptions{}); err != nil {
				t.Fatalf("label through %s: %s", v, describe(err))
			}
		}
		if _, err := claims("v1alpha1", ns).Patch(ctxFor(t), "empty-spec", types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{}); err != nil {
			t.Fatalf("finalizer removal through v1alpha1: %s", describe(err))
		}
	})
	// 1.30's structured handle: results has no omitempty (a nil list is
	// sent as null, which the apiserver prunes) and the vendor parameters
	// are any JSON value.
	for _, c := range []struct{ name, structured, stored string }{
		{"results-null", `{nodeName: worker-1, results: null}`, `{nodeName: worker-1}`},
		{"results-absent", `{nodeName: worker-1}`, ""},
		{"vendor-parameters-not-objects", `{nodeName: worker-1, vendorClassParameters: "x", vendorClaimParameters: [1, 2],
        results: [{vendorRequestParameters: 7, namedResources: {name: gpu-0}}]}`, ""},
	} {
		t.Run("v1alpha2 structured handle "+c.name, func(t *testing.T) {
			doc := `
kind: ResourceClaim
metadata: {name: %s, finalizers: [dra.k8s.io/delete-protection]}
spec: {resourceClassName: gpu.example.com, allocationMode: WaitForFirstConsumer}
status:
  driverName: gpu.example.com
  allocation:
    shareable: true
    resourceHandles:
    - driverName: gpu.example.com
      structuredData: %s
`
			createClaim(t, fromYAML(t, "v1alpha2", ns, fmt.Sprintf(doc, c.name, c.structured)))
			stored := c.stored
			if stored == "" {
				stored = c.structured
			}
			want := fromYAML(t, "v1alpha2", ns, fmt.Sprintf(doc, c.name, stored))
			expectSection(t, "status", want, get(t, claims("v1alpha2", ns), c.name))
		})
	}
}

// TestTemplateMetadataReachesTheWebhook: fields of a template's
// spec.metadata other than labels and annotations are refused by the
// webhook as upstream refuses them, in every version, not pruned; a field
// ObjectMeta does not have is pruned as upstream's apiserver drops it (a
// strict client is refused), and a value of the wrong type is refused by
// the schema, webhook or not.
func TestTemplateMetadataReachesTheWebhook(t *testing.T) {
	ns := newNamespace(t, "template-metadata")
	var cases []validationCase
	for _, v := range []string{"v1alpha1", "v1alpha2", "v1alpha3"} {
		spec := "resourceClassName: gpu.example.com"
		if v == "v1alpha3" {
			spec = "devices: {requests: [{name: gpu, deviceClassName: gpu.example.com}]}"
		}
		doc := func(meta string) string {
			return fmt.Sprintf("kind: ResourceClaimTemplate\nmetadata: {name: %%s}\nspec:\n  metadata: %s\n  spec: {%s}\n", meta, spec)
		}
		cases = append(cases,
			validationCase{name: "spec.metadata.generateName", version: v, who: byWebhook, create: doc("{generateName: g-}"),
				want: []cause{{Field: "spec.metadata.generateName", Type: causeForbidden, Detail: "cannot be set"}}},
			validationCase{name: "spec.metadata.ownerReferences", version: v, who: byWebhook,
				create: doc("{ownerReferences: [{apiVersion: v1, kind: Pod, name: p, uid: 00000000-0000-4000-8000-000000000001}]}"),
				want:   []cause{{Field: "spec.metadata.ownerReferences", Type: causeForbidden, Detail: "cannot be set"}}},
		)
	}
	runValidationCases(t, templatesResource, ns, cases)

	doc := "kind: ResourceClaimTemplate\nmetadata: {name: %s}\nspec:\n  metadata: %s\n  spec: {resourceClassName: gpu.example.com}\n"
	t.Run("unknown field pruned, or refused by a strict client", func(t *testing.T) {
		obj := fromYAML(t, "v1alpha1", ns, fmt.Sprintf(doc, "unknown-field", "{colour: blue, labels: {a: b}}"))
		if _, err := templates("v1alpha1", ns).Create(ctxFor(t), obj.DeepCopy(), metav1.CreateOptions{FieldValidation: metav1.FieldValidationStrict}); err == nil || !strings.Contains(err.Error(), `unknown field "spec.metadata.colour"`) {
			t.Errorf("strict create: %v, want the unknown field refused", err)
		}
		if _, err := templates("v1alpha1", ns).Create(ctxFor(t), obj, metav1.CreateOptions{FieldValidation: metav1.FieldValidationWarn}); err != nil {
			t.Fatalf("create: %s", describe(err))
		}
		expectField(t, get(t, templates("v1alpha1", ns), "unknown-field"), map[string]interface{}{"labels": map[string]interface{}{"a": "b"}}, "spec", "metadata")
	})
	t.Run("wrong type refused by the schema", func(t *testing.T) {
		_, err := templates("v1alpha1", ns).Create(ctxFor(t), fromYAML(t, "v1alpha1", ns, fmt.Sprintf(doc, "wrong-type", "{creationTimestamp: 5}")), metav1.CreateOptions{})
		expectInvalid(t, err, bySchema, cause{Field: "spec.metadata.creationTimestamp", Type: metav1.CauseType("FieldValueTypeInvalid")})
	})
}
