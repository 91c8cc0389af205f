package v1alpha2

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"

	api "github.com/claimbridge/claimbridge/api/v1alpha2"
	"github.com/claimbridge/claimbridge/validation/common"
)

func consumers(n int) []api.ResourceClaimConsumerReference {
	var refs []api.ResourceClaimConsumerReference
	for i := 0; i < n; i++ {
		refs = append(refs, api.ResourceClaimConsumerReference{Resource: "pods", Name: "foo", UID: types.UID(strings.Repeat("x", i+1))})
	}
	return refs
}

func TestValidateResourceClaimStatusUpdate(t *testing.T) {
	validClaim := testClaim(goodName, goodNS, validClaimSpec)
	validClaim.ResourceVersion = "1"
	allocatedClaim := validClaim.DeepCopy()
	allocatedClaim.Status.DriverName = "valid"
	allocatedClaim.Status.Allocation = &api.AllocationResult{Shareable: true}
	now := metav1.Now()
	handlesPath := field.NewPath("status", "allocation", "resourceHandles")
	with := func(base *api.ResourceClaim, mutate func(*api.ResourceClaim)) *api.ResourceClaim {
		c := base.DeepCopy()
		mutate(c)
		return c
	}
	scenarios := map[string]struct {
		oldClaim     *api.ResourceClaim
		update       func(*api.ResourceClaim)
		wantFailures field.ErrorList
	}{
		"valid-no-op-update": {oldClaim: validClaim},
		"add-driver":         {oldClaim: validClaim, update: func(c *api.ResourceClaim) { c.Status.DriverName = "valid" }},
		"invalid-add-allocation": { // rule 7
			oldClaim:     validClaim,
			update:       func(c *api.ResourceClaim) { c.Status.Allocation = &api.AllocationResult{} },
			wantFailures: field.ErrorList{field.Required(field.NewPath("status", "driverName"), "must be specified when `allocation` is set")},
		},
		"invalid-driver-name": { // rule 6
			oldClaim: validClaim,
			update:   func(c *api.ResourceClaim) { c.Status.DriverName = strings.Repeat("a", 64) },
			wantFailures: field.ErrorList{
				common.TooLongBytes(field.NewPath("status", "driverName"), strings.Repeat("a", 64), 63),
			},
		},
		"valid-add-allocation": {oldClaim: validClaim, update: func(c *api.ResourceClaim) {
			c.Status.DriverName = "valid"
			c.Status.Allocation = &api.AllocationResult{ResourceHandles: []api.ResourceHandle{{DriverName: "valid", Data: strings.Repeat(" ", api.ResourceHandleDataMaxSize)}}}
		}},
		"valid-add-empty-allocation-structured": {oldClaim: validClaim, update: func(c *api.ResourceClaim) {
			c.Status.DriverName = "valid"
			c.Status.Allocation = &api.AllocationResult{ResourceHandles: []api.ResourceHandle{{DriverName: "valid", StructuredData: &api.StructuredResourceHandle{}}}}
		}},
		"valid-add-allocation-structured": {oldClaim: validClaim, update: func(c *api.ResourceClaim) {
			c.Status.DriverName = "valid"
			c.Status.Allocation = &api.AllocationResult{ResourceHandles: []api.ResourceHandle{{DriverName: "valid", StructuredData: &api.StructuredResourceHandle{
				NodeName: "worker",
				Results:  []api.DriverAllocationResult{{AllocationResultModel: api.AllocationResultModel{NamedResources: &api.NamedResourcesAllocationResult{Name: "some-resource-instance"}}}},
			}}}}
		}},
		"invalid-add-allocation-structured": { // rules 11, 12, 13
			oldClaim: validClaim,
			update: func(c *api.ResourceClaim) {
				c.Status.DriverName = "valid"
				c.Status.Allocation = &api.AllocationResult{ResourceHandles: []api.ResourceHandle{{DriverName: "valid", StructuredData: &api.StructuredResourceHandle{
					NodeName: "&%node",
					Results: []api.DriverAllocationResult{
						{AllocationResultModel: api.AllocationResultModel{NamedResources: &api.NamedResourcesAllocationResult{Name: "&%instance"}}},
						{},
					},
				}}}}
			},
			wantFailures: field.ErrorList{
				field.Invalid(handlesPath.Index(0).Child("structuredData", "nodeName"), "&%node", dnsSubdomainMsg),
				field.Invalid(handlesPath.Index(0).Child("structuredData", "results").Index(0).Child("namedResources", "name"), "&%instance", dnsSubdomainMsg),
				field.Required(handlesPath.Index(0).Child("structuredData", "results").Index(1), "exactly one structured model field must be set"),
			},
		},
		"invalid-duplicated-data": { // rule 14
			oldClaim: validClaim,
			update: func(c *api.ResourceClaim) {
				c.Status.DriverName = "valid"
				c.Status.Allocation = &api.AllocationResult{ResourceHandles: []api.ResourceHandle{{DriverName: "valid", Data: "something", StructuredData: &api.StructuredResourceHandle{}}}}
			},
			wantFailures: field.ErrorList{field.Invalid(handlesPath.Index(0), nil, "data and structuredData are mutually exclusive")},
		},
		"invalid-allocation-resourceHandles": { // rule 15
			oldClaim: validClaim,
			update: func(c *api.ResourceClaim) {
				c.Status.DriverName = "valid"
				c.Status.Allocation = &api.AllocationResult{}
				for i := 0; i < api.AllocationResultResourceHandlesMaxSize+1; i++ {
					c.Status.Allocation.ResourceHandles = append(c.Status.Allocation.ResourceHandles, api.ResourceHandle{DriverName: "valid"})
				}
			},
			wantFailures: field.ErrorList{common.TooLongMaxLength(handlesPath, 33, 32)},
		},
		"invalid-allocation-resource-handle-drivername": { // rule 9
			oldClaim: validClaim,
			update: func(c *api.ResourceClaim) {
				c.Status.DriverName = "valid"
				c.Status.Allocation = &api.AllocationResult{ResourceHandles: []api.ResourceHandle{{DriverName: "&%$"}, {}}}
			},
			wantFailures: field.ErrorList{
				field.Invalid(handlesPath.Index(0).Child("driverName"), "&%$", dnsSubdomainMsg),
				field.Required(handlesPath.Index(1).Child("driverName"), ""),
				field.Invalid(handlesPath.Index(1).Child("driverName"), "", dnsSubdomainMsg),
			},
		},
		"invalid-allocation-resource-handle-data": { // rule 10
			oldClaim: validClaim,
			update: func(c *api.ResourceClaim) {
				c.Status.DriverName = "valid"
				c.Status.Allocation = &api.AllocationResult{ResourceHandles: []api.ResourceHandle{{DriverName: "valid", Data: strings.Repeat(" ", api.ResourceHandleDataMaxSize+1)}}}
			},
			wantFailures: field.ErrorList{common.TooLongMaxLength(handlesPath.Index(0).Child("data"), api.ResourceHandleDataMaxSize+1, api.ResourceHandleDataMaxSize)},
		},
		"invalid-node-selector": { // rule 16
			oldClaim: validClaim,
			update: func(c *api.ResourceClaim) {
				c.Status.DriverName = "valid"
				c.Status.Allocation = &api.AllocationResult{AvailableOnNodes: &v1.NodeSelector{}}
			},
			wantFailures: field.ErrorList{field.Required(field.NewPath("status", "allocation", "availableOnNodes", "nodeSelectorTerms"), "must have at least one node selector term")},
		},
		"add-reservation": {oldClaim: allocatedClaim, update: func(c *api.ResourceClaim) { c.Status.ReservedFor = consumers(32) }},
		"add-reservation-and-allocation": {oldClaim: validClaim, update: func(c *api.ResourceClaim) {
			c.Status.DriverName = "valid"
			c.Status.Allocation = &api.AllocationResult{}
			c.Status.ReservedFor = consumers(1)
		}},
		"invalid-reserved-for-too-large": { // rule 48
			oldClaim:     allocatedClaim,
			update:       func(c *api.ResourceClaim) { c.Status.ReservedFor = consumers(33) },
			wantFailures: field.ErrorList{common.TooLongMaxLength(field.NewPath("status", "reservedFor"), 33, 32)},
		},
		"invalid-reserved-for-duplicate": { // rule 47: the duplicate entry is not checked further
			oldClaim: allocatedClaim,
			update: func(c *api.ResourceClaim) {
				c.Status.ReservedFor = []api.ResourceClaimConsumerReference{{Resource: "pods", Name: "foo", UID: "1"}, {UID: "1"}, {Name: "foo", UID: "2"}}
			},
			wantFailures: field.ErrorList{
				field.Duplicate(field.NewPath("status", "reservedFor").Index(1).Child("uid"), types.UID("1")),
				field.Required(field.NewPath("status", "reservedFor").Index(2).Child("resource"), ""),
			},
		},
		"invalid-reserved-for-not-shared": { // rule 50
			oldClaim:     with(allocatedClaim, func(c *api.ResourceClaim) { c.Status.Allocation.Shareable = false }),
			update:       func(c *api.ResourceClaim) { c.Status.ReservedFor = consumers(2) },
			wantFailures: field.ErrorList{field.Forbidden(field.NewPath("status", "reservedFor"), "may not be reserved more than once")},
		},
		"invalid-reserved-for-no-allocation": { // rule 49
			oldClaim:     validClaim,
			update:       func(c *api.ResourceClaim) { c.Status.DriverName = "valid"; c.Status.ReservedFor = consumers(1) },
			wantFailures: field.ErrorList{field.Forbidden(field.NewPath("status", "reservedFor"), "may not be specified when `allocated` is not set")},
		},
		"invalid-reserved-for-no-fields": { // rule 46
			oldClaim: allocatedClaim,
			update:   func(c *api.ResourceClaim) { c.Status.ReservedFor = []api.ResourceClaimConsumerReference{{}} },
			wantFailures: field.ErrorList{
				field.Required(field.NewPath("status", "reservedFor").Index(0).Child("resource"), ""),
				field.Required(field.NewPath("status", "reservedFor").Index(0).Child("name"), ""),
				field.Required(field.NewPath("status", "reservedFor").Index(0).Child("uid"), ""),
			},
		},
		"invalid-reserved-deleted": { // rule 51
			oldClaim:     with(allocatedClaim, func(c *api.ResourceClaim) { c.DeletionTimestamp = &now }),
			update:       func(c *api.ResourceClaim) { c.Status.ReservedFor = consumers(1) },
			wantFailures: field.ErrorList{field.Forbidden(field.NewPath("status", "reservedFor"), "new entries may not be added while `deallocationRequested` or `deletionTimestamp` are set")},
		},
		"invalid-reserved-deallocation-requested": { // rule 51
			oldClaim:     with(allocatedClaim, func(c *api.ResourceClaim) { c.Status.DeallocationRequested = true }),
			update:       func(c *api.ResourceClaim) { c.Status.ReservedFor = consumers(1) },
			wantFailures: field.ErrorList{field.Forbidden(field.NewPath("status", "reservedFor"), "new entries may not be added while `deallocationRequested` or `deletionTimestamp` are set")},
		},
		"add-deallocation-requested": {oldClaim: allocatedClaim, update: func(c *api.ResourceClaim) { c.Status.DeallocationRequested = true }},
		"remove-allocation": {
			oldClaim: with(allocatedClaim, func(c *api.ResourceClaim) { c.Status.DeallocationRequested = true }),
			update: func(c *api.ResourceClaim) {
				c.Status.DeallocationRequested = false
				c.Status.Allocation = nil
			},
		},
		"invalid-deallocation-requested-removal": { // rule 55
			oldClaim:     with(allocatedClaim, func(c *api.ResourceClaim) { c.Status.DeallocationRequested = true }),
			update:       func(c *api.ResourceClaim) { c.Status.DeallocationRequested = false },
			wantFailures: field.ErrorList{field.Forbidden(field.NewPath("status", "deallocationRequested"), "may not be cleared when `allocation` is set")},
		},
		"invalid-allocation-modification": { // rule 52
			oldClaim: allocatedClaim,
			update: func(c *api.ResourceClaim) {
				c.Status.Allocation.ResourceHandles = []api.ResourceHandle{{DriverName: "valid", Data: "new data"}}
			},
			wantFailures: field.ErrorList{field.Invalid(field.NewPath("status", "allocation"), &api.AllocationResult{Shareable: true, ResourceHandles: []api.ResourceHandle{{DriverName: "valid", Data: "new data"}}}, "field is immutable")},
		},
		"invalid-deallocation-requested-in-use": { // rule 53
			oldClaim:     with(allocatedClaim, func(c *api.ResourceClaim) { c.Status.ReservedFor = consumers(1) }),
			update:       func(c *api.ResourceClaim) { c.Status.DeallocationRequested = true },
			wantFailures: field.ErrorList{field.Forbidden(field.NewPath("status", "deallocationRequested"), "deallocation cannot be requested while `reservedFor` is set")},
		},
		"invalid-deallocation-not-allocated": { // rule 54
			oldClaim:     validClaim,
			update:       func(c *api.ResourceClaim) { c.Status.DeallocationRequested = true },
			wantFailures: field.ErrorList{field.Forbidden(field.NewPath("status"), "`allocation` must be set when `deallocationRequested` is set")},
		},
		"invalid-allocation-removal-not-reset": { // rule 54
			oldClaim:     with(allocatedClaim, func(c *api.ResourceClaim) { c.Status.DeallocationRequested = true }),
			update:       func(c *api.ResourceClaim) { c.Status.Allocation = nil },
			wantFailures: field.ErrorList{field.Forbidden(field.NewPath("status"), "`allocation` must be set when `deallocationRequested` is set")},
		},
	}
	for name, scenario := range scenarios {
		t.Run(name, func(t *testing.T) {
			claim := scenario.oldClaim.DeepCopy()
			if scenario.update != nil {
				scenario.update(claim)
			}
			if diff := cmp.Diff(scenario.wantFailures, Rules.ValidateResourceClaimStatusUpdate(claim, scenario.oldClaim)); diff != "" {
				t.Errorf("unexpected errors (-want +got):\n%s", diff)
			}
		})
	}
}

func TestValidateResourceClaimTemplate(t *testing.T) {
	template := &api.ResourceClaimTemplate{
		ObjectMeta: metav1.ObjectMeta{Name: goodName, Namespace: goodNS},
		Spec:       api.ResourceClaimTemplateSpec{Spec: validClaimSpec},
	}
	if diff := cmp.Diff(field.ErrorList(nil), Rules.ValidateResourceClaimTemplate(template)); diff != "" {
		t.Errorf("good-template (-want +got):\n%s", diff)
	}
	bad := template.DeepCopy()
	bad.Spec.Spec.ResourceClassName = badName
	bad.Spec.Namespace = "other"
	want := field.ErrorList{ // rule 2 under spec.spec; embedded metadata allow-list
		field.Forbidden(field.NewPath("spec", "metadata", "namespace"), "cannot be set"),
		field.Invalid(field.NewPath("spec", "spec", "resourceClassName"), badName, dnsSubdomainMsg),
	}
	if diff := cmp.Diff(want, Rules.ValidateResourceClaimTemplate(bad)); diff != "" {
		t.Errorf("bad-template (-want +got):\n%s", diff)
	}
	old := template.DeepCopy()
	old.ResourceVersion = "1"
	changed := old.DeepCopy()
	changed.Spec.Spec.AllocationMode = api.AllocationModeImmediate
	want = field.ErrorList{field.Invalid(field.NewPath("spec"), changed.Spec, "field is immutable")} // rule 5
	if diff := cmp.Diff(want, Rules.ValidateResourceClaimTemplateUpdate(changed, old)); diff != "" {
		t.Errorf("invalid-update-mode (-want +got):\n%s", diff)
	}
}
