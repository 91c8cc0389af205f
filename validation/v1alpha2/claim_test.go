package v1alpha2

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	api "github.com/claimbridge/claimbridge/api/v1alpha2"
)

const (
	goodName = "foo"
	badName  = "!@#$%^"
	goodNS   = "ns"

	dnsSubdomainMsg = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)

func testClaim(name, namespace string, spec api.ResourceClaimSpec) *api.ResourceClaim {
	return &api.ResourceClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
		Spec:       *spec.DeepCopy(),
	}
}

var validClaimSpec = api.ResourceClaimSpec{
	ResourceClassName: goodName,
	AllocationMode:    api.AllocationModeWaitForFirstConsumer,
}

func TestValidateResourceClaim(t *testing.T) {
	scenarios := map[string]struct {
		update       func(*api.ResourceClaim)
		wantFailures field.ErrorList
	}{
		"good-claim": {},
		"missing-name": { // rule 1
			update:       func(c *api.ResourceClaim) { c.Name = "" },
			wantFailures: field.ErrorList{field.Required(field.NewPath("metadata", "name"), "name or generateName is required")},
		},
		"bad-name": { // rule 1
			update:       func(c *api.ResourceClaim) { c.Name = badName },
			wantFailures: field.ErrorList{field.Invalid(field.NewPath("metadata", "name"), badName, dnsSubdomainMsg)},
		},
		"missing-namespace": { // rule 1
			update:       func(c *api.ResourceClaim) { c.Namespace = "" },
			wantFailures: field.ErrorList{field.Required(field.NewPath("metadata", "namespace"), "")},
		},
		"generate-name": {update: func(c *api.ResourceClaim) { c.GenerateName = "pvc-" }},
		"bad-classname": { // rule 2
			update:       func(c *api.ResourceClaim) { c.Spec.ResourceClassName = badName },
			wantFailures: field.ErrorList{field.Invalid(field.NewPath("spec", "resourceClassName"), badName, dnsSubdomainMsg)},
		},
		"empty-classname": { // rule 2: Invalid, not Required
			update:       func(c *api.ResourceClaim) { c.Spec.ResourceClassName = "" },
			wantFailures: field.ErrorList{field.Invalid(field.NewPath("spec", "resourceClassName"), "", dnsSubdomainMsg)},
		},
		"bad-mode": { // rule 4
			update:       func(c *api.ResourceClaim) { c.Spec.AllocationMode = "invalid" },
			wantFailures: field.ErrorList{field.NotSupported(field.NewPath("spec", "allocationMode"), api.AllocationMode("invalid"), []string{"Immediate", "WaitForFirstConsumer"})},
		},
		"good-parameters": {update: func(c *api.ResourceClaim) {
			c.Spec.ParametersRef = &api.ResourceClaimParametersReference{Kind: "foo", Name: "bar"}
		}},
		"missing-parameters-kind": { // rule 3
			update:       func(c *api.ResourceClaim) { c.Spec.ParametersRef = &api.ResourceClaimParametersReference{Name: "bar"} },
			wantFailures: field.ErrorList{field.Required(field.NewPath("spec", "parametersRef", "kind"), "")},
		},
		"missing-parameters-name": { // rule 3
			update:       func(c *api.ResourceClaim) { c.Spec.ParametersRef = &api.ResourceClaimParametersReference{Kind: "foo"} },
			wantFailures: field.ErrorList{field.Required(field.NewPath("spec", "parametersRef", "name"), "")},
		},
	}
	for name, scenario := range scenarios {
		t.Run(name, func(t *testing.T) {
			claim := testClaim(goodName, goodNS, validClaimSpec)
			if scenario.update != nil {
				scenario.update(claim)
			}
			if diff := cmp.Diff(scenario.wantFailures, Rules.ValidateResourceClaim(claim)); diff != "" {
				t.Errorf("unexpected errors (-want +got):\n%s", diff)
			}
		})
	}
}

func TestValidateResourceClaimUpdate(t *testing.T) {
	validClaim := testClaim(goodName, goodNS, validClaimSpec)
	validClaim.ResourceVersion = "1"
	immutable := func(mutate func(*api.ResourceClaimSpec)) *field.Error {
		spec := validClaimSpec.DeepCopy()
		mutate(spec)
		return field.Invalid(field.NewPath("spec"), *spec, "field is immutable")
	}
	scenarios := map[string]struct {
		oldClaim     *api.ResourceClaim
		update       func(*api.ResourceClaim)
		wantFailures field.ErrorList
	}{
		"valid-no-op-update": {oldClaim: validClaim},
		"invalid-update-class": { // rule 5
			oldClaim:     validClaim,
			update:       func(c *api.ResourceClaim) { c.Spec.ResourceClassName += "2" },
			wantFailures: field.ErrorList{immutable(func(s *api.ResourceClaimSpec) { s.ResourceClassName += "2" })},
		},
		"invalid-update-remove-parameters": { // rule 5
			oldClaim: func() *api.ResourceClaim {
				c := validClaim.DeepCopy()
				c.Spec.ParametersRef = &api.ResourceClaimParametersReference{Kind: "foo", Name: "bar"}
				return c
			}(),
			update:       func(c *api.ResourceClaim) { c.Spec.ParametersRef = nil },
			wantFailures: field.ErrorList{immutable(func(s *api.ResourceClaimSpec) {})},
		},
		"invalid-update-mode": { // rule 5
			oldClaim:     validClaim,
			update:       func(c *api.ResourceClaim) { c.Spec.AllocationMode = api.AllocationModeImmediate },
			wantFailures: field.ErrorList{immutable(func(s *api.ResourceClaimSpec) { s.AllocationMode = api.AllocationModeImmediate })},
		},
		"update-reruns-create-rules": { // rule 5 + 1: ObjectMeta create rules run again
			oldClaim: validClaim,
			update:   func(c *api.ResourceClaim) { c.Finalizers = []string{"foo"} },
			wantFailures: field.ErrorList{
				field.Invalid(field.NewPath("metadata", "finalizers").Index(0), "foo", "name is neither a standard finalizer name nor is it fully qualified"),
				field.Invalid(field.NewPath("metadata", "finalizers").Index(0), "foo", "name is neither a standard finalizer name nor is it fully qualified"),
			},
		},
	}
	for name, scenario := range scenarios {
		t.Run(name, func(t *testing.T) {
			claim := scenario.oldClaim.DeepCopy()
			if scenario.update != nil {
				scenario.update(claim)
			}
			if diff := cmp.Diff(scenario.wantFailures, Rules.ValidateResourceClaimUpdate(claim, scenario.oldClaim)); diff != "" {
				t.Errorf("unexpected errors (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSetDefaults(t *testing.T) {
	claim := testClaim(goodName, goodNS, api.ResourceClaimSpec{ResourceClassName: goodName})
	Rules.SetDefaults(claim)
	if claim.Spec.AllocationMode != api.AllocationModeWaitForFirstConsumer {
		t.Errorf("claim: allocationMode %q, want WaitForFirstConsumer", claim.Spec.AllocationMode)
	}
	template := &api.ResourceClaimTemplate{}
	Rules.SetDefaults(template)
	if template.Spec.Spec.AllocationMode != api.AllocationModeWaitForFirstConsumer {
		t.Errorf("template: allocationMode %q, want WaitForFirstConsumer", template.Spec.Spec.AllocationMode)
	}
	immediate := testClaim(goodName, goodNS, api.ResourceClaimSpec{AllocationMode: api.AllocationModeImmediate})
	Rules.SetDefaults(immediate)
	if immediate.Spec.AllocationMode != api.AllocationModeImmediate {
		t.Errorf("defaulting changed a set allocationMode to %q", immediate.Spec.AllocationMode)
	}
}

func TestWarnings(t *testing.T) {
	claim := testClaim(goodName, goodNS, validClaimSpec)
	claim.Spec.AllocationMode = api.AllocationModeImmediate
	claim.Spec.ParametersRef = &api.ResourceClaimParametersReference{APIGroup: "Example.com", Kind: "k", Name: "n"}
	want := []string{
		"spec.allocationMode: Immediate allocation does not exist in v1alpha3 (Kubernetes 1.31+); the claim is allocated when a pod needs it",
		`spec.parametersRef.apiGroup: "Example.com" is not a valid API group (Kubernetes does not check it): ` + dnsSubdomainMsg,
	}
	if diff := cmp.Diff(want, Rules.Warnings(claim)); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}
