package v1alpha3

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	apiservercel "k8s.io/apiserver/pkg/cel"
	"k8s.io/utils/lru"
	"k8s.io/utils/ptr"

	api "github.com/claimbridge/claimbridge/api/v1alpha3"
)

func testClaimTemplate(name, namespace string, spec api.ResourceClaimSpec) *api.ResourceClaimTemplate {
	return &api.ResourceClaimTemplate{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
		Spec:       api.ResourceClaimTemplateSpec{Spec: *spec.DeepCopy()},
	}
}

func TestValidateResourceClaimTemplate(t *testing.T) {
	scenarios := map[string]struct {
		update       func(*api.ResourceClaimTemplate)
		wantFailures field.ErrorList
	}{
		"good-template": {},
		"missing-namespace": { // rule 1
			update:       func(t *api.ResourceClaimTemplate) { t.Namespace = "" },
			wantFailures: field.ErrorList{field.Required(field.NewPath("metadata", "namespace"), "")},
		},
		"template-labels-and-annotations": {update: func(t *api.ResourceClaimTemplate) {
			t.Spec.Labels = map[string]string{"a": "b"}
			t.Spec.Annotations = map[string]string{"c": "d"}
		}},
		"template-bad-labels-and-annotations": { // rule 1 on the embedded metadata
			update: func(t *api.ResourceClaimTemplate) {
				t.Spec.Labels = map[string]string{"bad key!": "b"}
				t.Spec.Annotations = map[string]string{"bad key!": "d"}
			},
			wantFailures: func() field.ErrorList {
				const keyMsg = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
				return field.ErrorList{
					field.Invalid(field.NewPath("spec", "metadata", "annotations"), "bad key!", keyMsg),
					field.Invalid(field.NewPath("spec", "metadata", "labels"), "bad key!", keyMsg),
				}
			}(),
		},
		"template-metadata-name-forbidden": {
			update:       func(t *api.ResourceClaimTemplate) { t.Spec.Name = "foo" },
			wantFailures: field.ErrorList{field.Forbidden(field.NewPath("spec", "metadata", "name"), "cannot be set")},
		},
		"bad-classname": { // rule 18, path under spec.spec
			update:       func(t *api.ResourceClaimTemplate) { t.Spec.Spec.Devices.Requests[0].DeviceClassName = badName },
			wantFailures: field.ErrorList{field.Invalid(field.NewPath("spec", "spec", "devices", "requests").Index(0).Child("deviceClassName"), badName, dnsSubdomainMsg)},
		},
	}
	for name, scenario := range scenarios {
		t.Run(name, func(t *testing.T) {
			template := testClaimTemplate(goodName, goodNS, validClaimSpec)
			if scenario.update != nil {
				scenario.update(template)
			}
			if diff := cmp.Diff(scenario.wantFailures, ValidateResourceClaimTemplate(template, nil)); diff != "" {
				t.Errorf("unexpected errors (-want +got):\n%s", diff)
			}
		})
	}
}

func TestValidateResourceClaimTemplateUpdate(t *testing.T) {
	old := testClaimTemplate(goodName, goodNS, validClaimSpec)
	old.ResourceVersion = "1"
	changed := old.DeepCopy()
	changed.Spec.Spec.Devices.Requests[0].DeviceClassName += "2"
	if diff := cmp.Diff(field.ErrorList(nil), ValidateResourceClaimTemplateUpdate(old.DeepCopy(), old, nil)); diff != "" {
		t.Errorf("valid-no-op-update (-want +got):\n%s", diff)
	}
	want := field.ErrorList{field.Invalid(field.NewPath("spec"), changed.Spec, "field is immutable")} // rule 5
	if diff := cmp.Diff(want, ValidateResourceClaimTemplateUpdate(changed, old, nil)); diff != "" {
		t.Errorf("invalid-update-class (-want +got):\n%s", diff)
	}
	// rule 1: the 1.31 strategy runs ValidateResourceClaimTemplate too
	namespaceless := old.DeepCopy()
	namespaceless.Namespace = ""
	want = field.ErrorList{
		field.Invalid(field.NewPath("metadata", "namespace"), "", "field is immutable"),
		field.Required(field.NewPath("metadata", "namespace"), ""),
	}
	if diff := cmp.Diff(want, ValidateResourceClaimTemplateUpdate(namespaceless, old, nil)); diff != "" {
		t.Errorf("update-reruns-create-metadata-rules (-want +got):\n%s", diff)
	}
}

func TestSetDefaults(t *testing.T) {
	claim := testClaim(goodName, goodNS, api.ResourceClaimSpec{Devices: api.DeviceClaim{Requests: []api.DeviceRequest{
		{Name: "a", DeviceClassName: "c"},
		{Name: "b", DeviceClassName: "c", AllocationMode: api.DeviceAllocationModeAll},
		{Name: "c", DeviceClassName: "c", Count: 3},
		{Name: "d", DeviceClassName: "c", AllocationMode: api.DeviceAllocationModeExactCount},
	}}})
	SetDefaults(claim)
	template := testClaimTemplate(goodName, goodNS, api.ResourceClaimSpec{Devices: api.DeviceClaim{Requests: []api.DeviceRequest{{Name: "a", DeviceClassName: "c"}}}})
	SetDefaults(template)
	want := []api.DeviceRequest{
		{Name: "a", DeviceClassName: "c", AllocationMode: api.DeviceAllocationModeExactCount, Count: 1},
		{Name: "b", DeviceClassName: "c", AllocationMode: api.DeviceAllocationModeAll},
		{Name: "c", DeviceClassName: "c", AllocationMode: api.DeviceAllocationModeExactCount, Count: 3},
		{Name: "d", DeviceClassName: "c", AllocationMode: api.DeviceAllocationModeExactCount, Count: 1},
	}
	if diff := cmp.Diff(want, claim.Spec.Devices.Requests); diff != "" {
		t.Errorf("claim defaults (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want[:1], template.Spec.Spec.Devices.Requests); diff != "" {
		t.Errorf("template defaults (-want +got):\n%s", diff)
	}
}

func TestWarnings(t *testing.T) {
	claim := testClaim(goodName, goodNS, validClaimSpec)
	claim.Spec.Devices.Requests[0].AdminAccess = true
	claim.Spec.Devices.Requests[0].Selectors = []api.DeviceSelector{{CEL: &api.CELDeviceSelector{Expression: "true || " + strings.Repeat(" ", 10240)}}}
	claim.Spec.Devices.Constraints = []api.DeviceConstraint{{MatchAttribute: ptr.To(api.FullyQualifiedName("a.com/b/c"))}}
	claim.Spec.Devices.Config = []api.DeviceClaimConfiguration{{DeviceConfiguration: api.DeviceConfiguration{Opaque: opaque("dra.example.com", `{"a":"`+strings.Repeat("x", 10240)+`"}`)}}}
	want := []string{
		"spec.devices.requests[0].selectors[0].cel.expression: the expression has 10248 bytes; Kubernetes 1.32 and later reject expressions longer than 10240 bytes",
		"spec.devices.requests[0].adminAccess: admin access is neither validated nor restricted in Kubernetes 1.31; from 1.32 it is feature-gated (DRAAdminAccess) and later limited to namespaces labeled resource.kubernetes.io/admin-access=true (1.34+; resource.k8s.io/admin-access=true in 1.33)",
		`spec.devices.constraints[0].matchAttribute: "a.com/b/c" is not a valid fully qualified attribute name (<domain>/<identifier>); Kubernetes 1.31 did not check names with more than one '/', later releases reject them`,
		"spec.devices.config[0].opaque.parameters: the parameters have 10248 bytes; Kubernetes 1.32 and later reject more than 10240 bytes",
	}
	if diff := cmp.Diff(want, Warnings(claim, nil)); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
	if w := Warnings(testClaim(goodName, goodNS, validClaimSpec), nil); len(w) != 0 {
		t.Errorf("valid claim: unexpected warnings %q", w)
	}
}

// TestNoWarningsAtTheLimits: each warning's near miss, and the optional
// fields it reads left unset, yield no warning (and no panic).
func TestNoWarningsAtTheLimits(t *testing.T) {
	claim := testClaim(goodName, goodNS, validClaimSpec)
	claim.Spec.Devices.Requests[0].Selectors = []api.DeviceSelector{
		{},
		{CEL: &api.CELDeviceSelector{Expression: "true || " + strings.Repeat(" ", 10240-8)}}, // 10240 bytes, cheap
	}
	claim.Spec.Devices.Constraints = []api.DeviceConstraint{{}, {MatchAttribute: ptr.To(api.FullyQualifiedName("dra.example.com/numa"))}}
	claim.Spec.Devices.Config = []api.DeviceClaimConfiguration{
		{},
		{DeviceConfiguration: api.DeviceConfiguration{Opaque: opaque("dra.example.com", `{"a":"`+strings.Repeat("x", 10240-8)+`"}`)}}, // 10240 bytes
	}
	if w := Warnings(claim, nil); len(w) != 0 {
		t.Errorf("unexpected warnings %q", w)
	}
	claim.Status.Allocation = &api.AllocationResult{Devices: api.DeviceAllocationResult{Config: []api.DeviceAllocationConfiguration{
		{},
		{DeviceConfiguration: claim.Spec.Devices.Config[1].DeviceConfiguration},
	}}}
	if w := StatusWarnings(claim); len(w) != 0 {
		t.Errorf("unexpected status warnings %q", w)
	}
}

func TestWarningsCELCost(t *testing.T) {
	claim := testClaim(goodName, goodNS, validClaimSpec)
	// Nested comprehensions over the attribute maps are expensive in the worst case.
	expr := `device.attributes.all(d, device.attributes[d].all(a, device.attributes.all(e, device.attributes[e].all(b, string(device.attributes[d][a]) == string(device.attributes[e][b])))))`
	claim.Spec.Devices.Requests[0].Selectors = []api.DeviceSelector{{CEL: &api.CELDeviceSelector{Expression: expr}}}
	if errs := ValidateResourceClaim(claim, nil); len(errs) != 0 {
		t.Fatalf("expression must be valid in 1.31: %v", errs)
	}
	want := []string{"spec.devices.requests[0].selectors[0].cel.expression: the estimated worst-case cost 38017283 exceeds 1000000; Kubernetes 1.32 and later reject the expression as too complex"}
	if diff := cmp.Diff(want, Warnings(claim, nil)); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}

// TestCELCache: with a cache, a selector gives the findings it gives
// without one, each compilation is kept per environment, and a kept one is
// used.
func TestCELCache(t *testing.T) {
	cel := lru.New(10)
	claim := testClaim(goodName, goodNS, validClaimSpec)
	claim.Spec.Devices.Requests[0].Selectors = []api.DeviceSelector{{CEL: &api.CELDeviceSelector{Expression: `device.driver == 1`}}}
	want := ValidateResourceClaim(claim, nil)
	if len(want) == 0 {
		t.Fatal("the selector must be invalid")
	}
	for range 2 { // compiled, then kept
		if diff := cmp.Diff(want, ValidateResourceClaim(claim, cel)); diff != "" {
			t.Errorf("with a cache (-want +got):\n%s", diff)
		}
	}
	ValidateResourceClaimUpdate(claim, claim, cel)
	if cel.Len() != 2 {
		t.Errorf("cache holds %d compilations, want 2 (create and update)", cel.Len())
	}
	cel.Add(celKey{expression: "true"}, celCheck{err: &apiservercel.Error{Type: apiservercel.ErrorTypeInvalid, Detail: "kept"}})
	claim.Spec.Devices.Requests[0].Selectors[0].CEL.Expression = "true"
	if errs := ValidateResourceClaim(claim, cel); len(errs) != 1 || !strings.Contains(errs[0].Detail, "kept") {
		t.Errorf("the kept compilation was not used: %v", errs)
	}
}

func BenchmarkValidateResourceClaim(b *testing.B) {
	claim := testClaim(goodName, goodNS, validClaimSpec)
	claim.Spec.Devices.Requests[0].Selectors = []api.DeviceSelector{{CEL: &api.CELDeviceSelector{Expression: `device.driver == "dra.example.com" && device.attributes["dra.example.com"].model == "a100"`}}}
	cel := lru.New(4096) // the warm path, as a server or a CLI run validates
	ValidateResourceClaim(claim, cel)
	b.ResetTimer()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if errs := ValidateResourceClaim(claim, cel); len(errs) != 0 {
			b.Fatal(errs)
		}
	}
}
