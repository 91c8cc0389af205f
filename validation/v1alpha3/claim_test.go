package v1alpha3

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	api "github.com/claimbridge/claimbridge/api/v1alpha3"
	"github.com/claimbridge/claimbridge/validation/common"
)

const (
	goodName = "foo"
	badName  = "!@#$%^"
	goodNS   = "ns"

	dnsSubdomainMsg = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
	dnsLabelMsg     = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
	cIdentifierMsg  = "a valid C identifier must start with alphabetic character or '_', followed by a string of alphanumeric characters or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName', regex used for validation is '[A-Za-z_][A-Za-z0-9_]*')"
)

func testClaim(name, namespace string, spec api.ResourceClaimSpec) *api.ResourceClaim {
	return &api.ResourceClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
		Spec:       *spec.DeepCopy(),
	}
}

var validClaimSpec = api.ResourceClaimSpec{
	Devices: api.DeviceClaim{
		Requests: []api.DeviceRequest{{
			Name:            goodName,
			DeviceClassName: goodName,
			AllocationMode:  api.DeviceAllocationModeExactCount,
			Count:           1,
		}},
	},
}

func opaque(driver, params string) *api.OpaqueDeviceConfiguration {
	return &api.OpaqueDeviceConfiguration{Driver: driver, Parameters: runtime.RawExtension{Raw: []byte(params)}}
}

func requestsPath(i int) *field.Path { return field.NewPath("spec", "devices", "requests").Index(i) }

func TestValidateResourceClaim(t *testing.T) {
	now := metav1.Now()
	badValue := "spaces not allowed"
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
		"generate-name":                 {update: func(c *api.ResourceClaim) { c.GenerateName = "pvc-" }},
		"uid":                           {update: func(c *api.ResourceClaim) { c.UID = "ac051fac-2ead-46d9-b8b4-4e0fbeb7455d" }},
		"resource-version":              {update: func(c *api.ResourceClaim) { c.ResourceVersion = "1" }},
		"generation":                    {update: func(c *api.ResourceClaim) { c.Generation = 100 }},
		"creation-timestamp":            {update: func(c *api.ResourceClaim) { c.CreationTimestamp = now }},
		"deletion-grace-period-seconds": {update: func(c *api.ResourceClaim) { c.DeletionGracePeriodSeconds = ptr.To[int64](10) }},
		"owner-references": {update: func(c *api.ResourceClaim) {
			c.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "pod", Name: "foo", UID: "ac051fac-2ead-46d9-b8b4-4e0fbeb7455d"}}
		}},
		"finalizers": {update: func(c *api.ResourceClaim) { c.Finalizers = []string{"example.com/foo"} }},
		"bad-finalizer": { // rule 1
			update:       func(c *api.ResourceClaim) { c.Finalizers = []string{"foo"} },
			wantFailures: field.ErrorList{field.Invalid(field.NewPath("metadata", "finalizers").Index(0), "foo", "name is neither a standard finalizer name nor is it fully qualified")},
		},
		"managed-fields": {update: func(c *api.ResourceClaim) {
			c.ManagedFields = []metav1.ManagedFieldsEntry{{FieldsType: "FieldsV1", Operation: "Apply", APIVersion: "apps/v1", Manager: "foo"}}
		}},
		"good-labels": {update: func(c *api.ResourceClaim) { c.Labels = map[string]string{"apps.kubernetes.io/name": "test"} }},
		"bad-labels": { // rule 1
			update:       func(c *api.ResourceClaim) { c.Labels = map[string]string{"hello-world": badValue} },
			wantFailures: field.ErrorList{field.Invalid(field.NewPath("metadata", "labels"), badValue, "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')")},
		},
		"good-annotations": {update: func(c *api.ResourceClaim) { c.Annotations = map[string]string{"foo": "bar"} }},
		"bad-annotations": { // rule 1
			update:       func(c *api.ResourceClaim) { c.Annotations = map[string]string{badName: "hello world"} },
			wantFailures: field.ErrorList{field.Invalid(field.NewPath("metadata", "annotations"), badName, "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")},
		},
		"bad-request-name": { // rule 17
			update:       func(c *api.ResourceClaim) { c.Spec.Devices.Requests[0].Name = "a.b" },
			wantFailures: field.ErrorList{field.Invalid(requestsPath(0).Child("name"), "a.b", "must not contain dots")},
		},
		"empty-request-name": { // rule 17: empty is Invalid, not Required
			update: func(c *api.ResourceClaim) { c.Spec.Devices.Requests[0].Name = "" },
			wantFailures: field.ErrorList{
				field.Invalid(requestsPath(0).Child("name"), "", dnsLabelMsg),
			},
		},
		"bad-classname": { // rule 18
			update:       func(c *api.ResourceClaim) { c.Spec.Devices.Requests[0].DeviceClassName = badName },
			wantFailures: field.ErrorList{field.Invalid(requestsPath(0).Child("deviceClassName"), badName, dnsSubdomainMsg)},
		},
		"missing-classname": { // rule 18
			update:       func(c *api.ResourceClaim) { c.Spec.Devices.Requests[0].DeviceClassName = "" },
			wantFailures: field.ErrorList{field.Required(requestsPath(0).Child("deviceClassName"), "")},
		},
		"missing-cel": { // rule 19
			update:       func(c *api.ResourceClaim) { c.Spec.Devices.Requests[0].Selectors = []api.DeviceSelector{{}} },
			wantFailures: field.ErrorList{field.Required(requestsPath(0).Child("selectors").Index(0).Child("cel"), "")},
		},
		"CEL-compile-errors": { // rule 20
			update: func(c *api.ResourceClaim) {
				c.Spec.Devices.Requests = append(c.Spec.Devices.Requests, c.Spec.Devices.Requests[0])
				c.Spec.Devices.Requests[1].Name += "-2"
				c.Spec.Devices.Requests[1].Selectors = []api.DeviceSelector{
					{CEL: &api.CELDeviceSelector{Expression: `device.driver == "dra.example.com"`}},
					{CEL: &api.CELDeviceSelector{Expression: `device.attributes[true].someBoolean`}},
				}
			},
			wantFailures: field.ErrorList{
				field.Invalid(requestsPath(1).Child("selectors").Index(1).Child("cel", "expression"), `device.attributes[true].someBoolean`, "compilation failed: ERROR: <input>:1:18: found no matching overload for '_[_]' applied to '(map(string, map(string, any)), bool)'\n | device.attributes[true].someBoolean\n | .................^"),
			},
		},
		"CEL-wrong-type": { // rule 20
			update: func(c *api.ResourceClaim) {
				c.Spec.Devices.Requests[0].Selectors = []api.DeviceSelector{{CEL: &api.CELDeviceSelector{Expression: `device.driver`}}}
			},
			wantFailures: field.ErrorList{field.Invalid(requestsPath(0).Child("selectors").Index(0).Child("cel", "expression"), `device.driver`, "must evaluate to bool or the unknown type, not string")},
		},
		"CEL-any-type-and-quantity": {
			update: func(c *api.ResourceClaim) {
				c.Spec.Devices.Requests[0].Selectors = []api.DeviceSelector{
					{CEL: &api.CELDeviceSelector{Expression: `device.attributes["dra.example.com"].foo`}},
					{CEL: &api.CELDeviceSelector{Expression: `device.capacity["dra.example.com"].mem.compareTo(quantity("1Gi")) >= 0`}},
				}
			},
		},
		"too-many-selectors": { // rule 21
			update: func(c *api.ResourceClaim) {
				for i := 0; i < api.DeviceSelectorsMaxSize+1; i++ {
					c.Spec.Devices.Requests[0].Selectors = append(c.Spec.Devices.Requests[0].Selectors, api.DeviceSelector{CEL: &api.CELDeviceSelector{Expression: "true"}})
				}
			},
			wantFailures: field.ErrorList{common.TooLongMaxLength(requestsPath(0).Child("selectors"), 33, 32)},
		},
		"count-with-all": { // rule 22
			update:       func(c *api.ResourceClaim) { c.Spec.Devices.Requests[0].AllocationMode = api.DeviceAllocationModeAll },
			wantFailures: field.ErrorList{field.Invalid(requestsPath(0).Child("count"), int64(1), "must not be specified when allocationMode is 'All'")},
		},
		"all-without-count": {
			update: func(c *api.ResourceClaim) {
				c.Spec.Devices.Requests[0].AllocationMode = api.DeviceAllocationModeAll
				c.Spec.Devices.Requests[0].Count = 0
			},
		},
		"zero-count": { // rule 23: zero is not greater than zero (defaulting turns it into 1 first, but the rule itself refuses it)
			update:       func(c *api.ResourceClaim) { c.Spec.Devices.Requests[0].Count = 0 },
			wantFailures: field.ErrorList{field.Invalid(requestsPath(0).Child("count"), int64(0), "must be greater than zero")},
		},
		"negative-count": { // rule 23
			update:       func(c *api.ResourceClaim) { c.Spec.Devices.Requests[0].Count = -1 },
			wantFailures: field.ErrorList{field.Invalid(requestsPath(0).Child("count"), int64(-1), "must be greater than zero")},
		},
		"bad-mode": { // rule 24
			update:       func(c *api.ResourceClaim) { c.Spec.Devices.Requests[0].AllocationMode = "Some" },
			wantFailures: field.ErrorList{field.NotSupported(requestsPath(0).Child("allocationMode"), api.DeviceAllocationMode("Some"), []string{"All", "ExactCount"})},
		},
		"too-many-requests": { // rule 25
			update: func(c *api.ResourceClaim) {
				c.Spec.Devices.Requests = nil
				for i := 0; i < api.DeviceRequestsMaxSize+1; i++ {
					r := validClaimSpec.Devices.Requests[0]
					r.Name = "r" + strings.Repeat("x", i)
					c.Spec.Devices.Requests = append(c.Spec.Devices.Requests, r)
				}
			},
			wantFailures: field.ErrorList{common.TooLongMaxLength(field.NewPath("spec", "devices", "requests"), 33, 32)},
		},
		"duplicate-request-after-item-errors": { // rule 26
			update: func(c *api.ResourceClaim) {
				r := c.Spec.Devices.Requests[0]
				r.DeviceClassName = ""
				c.Spec.Devices.Requests = append(c.Spec.Devices.Requests, r)
			},
			wantFailures: field.ErrorList{
				field.Required(requestsPath(1).Child("deviceClassName"), ""),
				field.Duplicate(requestsPath(1).Child("name"), goodName),
			},
		},
		"invalid-request-name": { // rule 27 (upstream scenario)
			update: func(c *api.ResourceClaim) {
				c.Spec.Devices.Constraints = []api.DeviceConstraint{{
					Requests:       []string{goodName, badName},
					MatchAttribute: ptr.To(api.FullyQualifiedName("dra.example.com/numa")),
				}}
				c.Spec.Devices.Config = []api.DeviceClaimConfiguration{{
					Requests:            []string{goodName, badName},
					DeviceConfiguration: api.DeviceConfiguration{Opaque: opaque("dra.example.com", `{"kind": "foo", "apiVersion": "dra.example.com/v1"}`)},
				}}
			},
			wantFailures: field.ErrorList{
				field.Invalid(field.NewPath("spec", "devices", "constraints").Index(0).Child("requests").Index(1), badName, dnsLabelMsg),
				field.Invalid(field.NewPath("spec", "devices", "constraints").Index(0).Child("requests").Index(1), badName, "must be the name of a request in the claim"),
				field.Invalid(field.NewPath("spec", "devices", "config").Index(0).Child("requests").Index(1), badName, dnsLabelMsg),
				field.Invalid(field.NewPath("spec", "devices", "config").Index(0).Child("requests").Index(1), badName, "must be the name of a request in the claim"),
			},
		},
		"duplicate-constraint-request": { // rule 27
			update: func(c *api.ResourceClaim) {
				c.Spec.Devices.Constraints = []api.DeviceConstraint{{Requests: []string{goodName, goodName}, MatchAttribute: ptr.To(api.FullyQualifiedName("dra.example.com/numa"))}}
			},
			wantFailures: field.ErrorList{field.Duplicate(field.NewPath("spec", "devices", "constraints").Index(0).Child("requests").Index(1), goodName)},
		},
		"too-many-constraint-requests": { // rule 28
			update: func(c *api.ResourceClaim) {
				reqs := make([]string, 33)
				for i := range reqs {
					reqs[i] = goodName
				}
				c.Spec.Devices.Constraints = []api.DeviceConstraint{{Requests: reqs, MatchAttribute: ptr.To(api.FullyQualifiedName("dra.example.com/numa"))}}
			},
			wantFailures: func() field.ErrorList {
				p := field.NewPath("spec", "devices", "constraints").Index(0).Child("requests")
				errs := field.ErrorList{common.TooLongMaxLength(p, 33, 32)}
				for i := 1; i < 33; i++ {
					errs = append(errs, field.Duplicate(p.Index(i), goodName))
				}
				return errs
			}(),
		},
		"missing-match-attribute": { // rule 29
			update: func(c *api.ResourceClaim) {
				c.Spec.Devices.Constraints = []api.DeviceConstraint{{}}
			},
			wantFailures: field.ErrorList{field.Required(field.NewPath("spec", "devices", "constraints").Index(0).Child("matchAttribute"), "")},
		},
		"bad-match-attributes": { // rule 30
			update: func(c *api.ResourceClaim) {
				for _, a := range []string{"", "numa", "/numa", "dra.example.com/", "Dra_Example/numa", "dra.example.com/1numa", "dra.example.com/" + strings.Repeat("x", 33), "a.com/b/c", "1numa", "dra.example.com/" + strings.Repeat("x", 32)} {
					c.Spec.Devices.Constraints = append(c.Spec.Devices.Constraints, api.DeviceConstraint{MatchAttribute: ptr.To(api.FullyQualifiedName(a))})
				}
			},
			wantFailures: func() field.ErrorList {
				p := func(i int) *field.Path {
					return field.NewPath("spec", "devices", "constraints").Index(i).Child("matchAttribute")
				}
				long := strings.Repeat("x", 33)
				return field.ErrorList{
					field.Required(p(0), "name required"),
					field.Required(p(0).Child("domain"), "must include a prefix"),
					field.Required(p(1).Child("domain"), "must include a prefix"),
					field.Required(p(2), "the prefix must not be empty"),
					field.Required(p(3), "the name must not be empty"),
					field.Invalid(p(4), "Dra_Example", dnsSubdomainMsg),
					field.TypeInvalid(p(5), "1numa", cIdentifierMsg),
					common.TooLongMaxLength(p(6), long, 32),
					// "a.com/b/c": accepted, as in 1.31.
					// "1numa": without a domain, the identifier is still checked.
					field.TypeInvalid(p(8), "1numa", cIdentifierMsg),
					field.Required(p(8).Child("domain"), "must include a prefix"),
					// An identifier of exactly 32 bytes is accepted.
				}
			}(),
		},
		"too-many-constraints": { // rule 31
			update: func(c *api.ResourceClaim) {
				for i := 0; i < 33; i++ {
					c.Spec.Devices.Constraints = append(c.Spec.Devices.Constraints, api.DeviceConstraint{MatchAttribute: ptr.To(api.FullyQualifiedName("dra.example.com/numa"))})
				}
			},
			wantFailures: field.ErrorList{common.TooLongMaxLength(field.NewPath("spec", "devices", "constraints"), 33, 32)},
		},
		"too-many-configs": { // rule 31
			update: func(c *api.ResourceClaim) {
				for i := 0; i < 33; i++ {
					c.Spec.Devices.Config = append(c.Spec.Devices.Config, api.DeviceClaimConfiguration{DeviceConfiguration: api.DeviceConfiguration{Opaque: opaque("dra.example.com", `{}`)}})
				}
			},
			wantFailures: field.ErrorList{common.TooLongMaxLength(field.NewPath("spec", "devices", "config"), 33, 32)},
		},
		"missing-opaque": { // rule 32
			update:       func(c *api.ResourceClaim) { c.Spec.Devices.Config = []api.DeviceClaimConfiguration{{}} },
			wantFailures: field.ErrorList{field.Required(field.NewPath("spec", "devices", "config").Index(0).Child("opaque"), "")},
		},
		"bad-opaque-driver": { // rule 33
			update: func(c *api.ResourceClaim) {
				c.Spec.Devices.Config = []api.DeviceClaimConfiguration{
					{DeviceConfiguration: api.DeviceConfiguration{Opaque: opaque("", `{}`)}},
					{DeviceConfiguration: api.DeviceConfiguration{Opaque: opaque(strings.Repeat("a", 64), `{}`)}},
					{DeviceConfiguration: api.DeviceConfiguration{Opaque: opaque("DRA.example.com", `{}`)}},
				}
			},
			wantFailures: field.ErrorList{
				field.Required(field.NewPath("spec", "devices", "config").Index(0).Child("opaque", "driver"), ""),
				field.Invalid(field.NewPath("spec", "devices", "config").Index(0).Child("opaque", "driver"), "", dnsSubdomainMsg),
				common.TooLongBytes(field.NewPath("spec", "devices", "config").Index(1).Child("opaque", "driver"), strings.Repeat("a", 64), 63),
			},
		},
		"invalid-config-json": { // rule 34 (upstream scenario)
			update: func(c *api.ResourceClaim) {
				for _, raw := range []string{``, `{`, `"hello-world"`, `null`} {
					c.Spec.Devices.Config = append(c.Spec.Devices.Config, api.DeviceClaimConfiguration{DeviceConfiguration: api.DeviceConfiguration{Opaque: opaque("dra.example.com", raw)}})
				}
			},
			wantFailures: field.ErrorList{
				field.Required(field.NewPath("spec", "devices", "config").Index(0).Child("opaque", "parameters"), ""),
				field.Invalid(field.NewPath("spec", "devices", "config").Index(1).Child("opaque", "parameters"), "<value omitted>", "error parsing data: unexpected end of JSON input"),
				field.Invalid(field.NewPath("spec", "devices", "config").Index(2).Child("opaque", "parameters"), "<value omitted>", "parameters must be a valid JSON object"),
				field.Required(field.NewPath("spec", "devices", "config").Index(3).Child("opaque", "parameters"), ""),
			},
		},
		"bad-controller": { // rule 35
			update:       func(c *api.ResourceClaim) { c.Spec.Controller = "dra_example" },
			wantFailures: field.ErrorList{field.Invalid(field.NewPath("spec", "controller"), "dra_example", dnsSubdomainMsg)},
		},
		"long-controller": { // rule 35
			update:       func(c *api.ResourceClaim) { c.Spec.Controller = strings.Repeat("a", 64) },
			wantFailures: field.ErrorList{common.TooLongBytes(field.NewPath("spec", "controller"), strings.Repeat("a", 64), 63)},
		},
		"upper-case-controller": {update: func(c *api.ResourceClaim) { c.Spec.Controller = "DRA.example.com" }},
		"no-requests":           {update: func(c *api.ResourceClaim) { c.Spec.Devices.Requests = nil }},
	}
	for name, scenario := range scenarios {
		t.Run(name, func(t *testing.T) {
			claim := testClaim(goodName, goodNS, validClaimSpec)
			if scenario.update != nil {
				scenario.update(claim)
			}
			errs := ValidateResourceClaim(claim, nil)
			if diff := cmp.Diff(scenario.wantFailures, errs); diff != "" {
				t.Errorf("unexpected errors (-want +got):\n%s", diff)
			}
		})
	}
}

func TestValidateResourceClaimUpdate(t *testing.T) {
	validClaim := testClaim(goodName, goodNS, validClaimSpec)
	validClaim.ResourceVersion = "1"
	scenarios := map[string]struct {
		both         func(*api.ResourceClaim) // applied to the old and the new claim
		update       func(*api.ResourceClaim)
		wantFailures field.ErrorList
	}{
		"valid-no-op-update": {},
		"invalid-update-class": { // rule 5
			update: func(c *api.ResourceClaim) { c.Spec.Devices.Requests[0].DeviceClassName += "2" },
			wantFailures: field.ErrorList{field.Invalid(field.NewPath("spec"), func() api.ResourceClaimSpec {
				spec := validClaimSpec.DeepCopy()
				spec.Devices.Requests[0].DeviceClassName += "2"
				return *spec
			}(), "field is immutable")},
		},
		"invalid-update-reports-spec-errors-once": { // rule 5 + 18
			update: func(c *api.ResourceClaim) { c.Spec.Devices.Requests[0].DeviceClassName = "" },
			wantFailures: field.ErrorList{
				field.Invalid(field.NewPath("spec"), func() api.ResourceClaimSpec {
					spec := validClaimSpec.DeepCopy()
					spec.Devices.Requests[0].DeviceClassName = ""
					return *spec
				}(), "field is immutable"),
				field.Required(requestsPath(0).Child("deviceClassName"), ""),
			},
		},
		"stored-expression-that-does-not-compile": { // rule 20: an update compiles in the stored-expressions environment, which refuses it too
			both: func(c *api.ResourceClaim) {
				c.Spec.Devices.Requests[0].Selectors = []api.DeviceSelector{{CEL: &api.CELDeviceSelector{Expression: `device.attributes[true].someBoolean`}}}
			},
			wantFailures: field.ErrorList{
				field.Invalid(requestsPath(0).Child("selectors").Index(0).Child("cel", "expression"), `device.attributes[true].someBoolean`, "compilation failed: ERROR: <input>:1:18: found no matching overload for '_[_]' applied to '(map(string, map(string, any)), bool)'\n | device.attributes[true].someBoolean\n | .................^"),
			},
		},
		"missing-resource-version": { // rule 1
			update:       func(c *api.ResourceClaim) { c.ResourceVersion = "" },
			wantFailures: field.ErrorList{field.Invalid(field.NewPath("metadata", "resourceVersion"), "", "must be specified for an update")},
		},
		"labels-may-change": {update: func(c *api.ResourceClaim) { c.Labels = map[string]string{"a": "b"} }},
		"update-reruns-create-metadata-rules": { // rule 5 + 1: the 1.31 strategy runs ValidateResourceClaim too
			update: func(c *api.ResourceClaim) { c.Finalizers = []string{"foo"} },
			wantFailures: field.ErrorList{
				field.Invalid(field.NewPath("metadata", "finalizers").Index(0), "foo", "name is neither a standard finalizer name nor is it fully qualified"),
				field.Invalid(field.NewPath("metadata", "finalizers").Index(0), "foo", "name is neither a standard finalizer name nor is it fully qualified"),
			},
		},
	}
	for name, scenario := range scenarios {
		t.Run(name, func(t *testing.T) {
			oldClaim := validClaim.DeepCopy()
			if scenario.both != nil {
				scenario.both(oldClaim)
			}
			claim := oldClaim.DeepCopy()
			if scenario.update != nil {
				scenario.update(claim)
			}
			errs := ValidateResourceClaimUpdate(claim, oldClaim, nil)
			if diff := cmp.Diff(scenario.wantFailures, errs); diff != "" {
				t.Errorf("unexpected errors (-want +got):\n%s", diff)
			}
		})
	}
}
