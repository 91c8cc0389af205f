package classic

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"

	api1 "github.com/claimbridge/claimbridge/api/v1alpha1"
	api2 "github.com/claimbridge/claimbridge/api/v1alpha2"
	"github.com/claimbridge/claimbridge/validation/common"
)

const (
	goodName = "foo"
	goodNS   = "ns"

	dnsSubdomainMsg = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)

// The rules the versions share are tested once, on both, in
// rules_test.go; these rows cover each version's allocation result.

func testClaim1() *api1.ResourceClaim {
	return &api1.ResourceClaim{
		ObjectMeta: metav1.ObjectMeta{Name: goodName, Namespace: goodNS},
		Spec:       api1.ResourceClaimSpec{ResourceClassName: goodName, AllocationMode: api1.AllocationModeWaitForFirstConsumer},
	}
}

func TestV1alpha1AllocationStatusUpdate(t *testing.T) {
	validClaim := testClaim1()
	validClaim.ResourceVersion = "1"
	allocatedClaim := validClaim.DeepCopy()
	allocatedClaim.Status.DriverName = "valid"
	allocatedClaim.Status.Allocation = &api1.AllocationResult{Shareable: true}
	scenarios := map[string]struct {
		oldClaim     *api1.ResourceClaim
		update       func(*api1.ResourceClaim)
		wantFailures field.ErrorList
	}{
		"upper-case-driver": {oldClaim: validClaim, update: func(c *api1.ResourceClaim) { c.Status.DriverName = "Valid.Example.com" }},
		"invalid-driver-name": { // rule 6
			oldClaim:     validClaim,
			update:       func(c *api1.ResourceClaim) { c.Status.DriverName = "-x" },
			wantFailures: field.ErrorList{field.Invalid(field.NewPath("status", "driverName"), "-x", dnsSubdomainMsg)},
		},
		"valid-add-allocation": {oldClaim: validClaim, update: func(c *api1.ResourceClaim) {
			c.Status.DriverName = "valid"
			c.Status.Allocation = &api1.AllocationResult{ResourceHandle: strings.Repeat(" ", api1.ResourceHandleMaxSize)}
		}},
		"invalid-allocation-handle": { // rule 8
			oldClaim: validClaim,
			update: func(c *api1.ResourceClaim) {
				c.Status.DriverName = "valid"
				c.Status.Allocation = &api1.AllocationResult{ResourceHandle: strings.Repeat(" ", api1.ResourceHandleMaxSize+1)}
			},
			wantFailures: field.ErrorList{common.TooLongMaxLength(field.NewPath("status", "allocation", "resourceHandle"), api1.ResourceHandleMaxSize+1, api1.ResourceHandleMaxSize)},
		},
		"invalid-node-selector": { // rule 16
			oldClaim: validClaim,
			update: func(c *api1.ResourceClaim) {
				c.Status.DriverName = "valid"
				c.Status.Allocation = &api1.AllocationResult{AvailableOnNodes: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{
					MatchExpressions: []v1.NodeSelectorRequirement{{Key: "a", Operator: "Bad"}},
				}}}}
			},
			wantFailures: field.ErrorList{field.Invalid(field.NewPath("status", "allocation", "availableOnNodes", "nodeSelectorTerms").Index(0).Child("matchExpressions").Index(0).Child("operator"), v1.NodeSelectorOperator("Bad"), "not a valid selector operator")},
		},
		"invalid-allocation-modification": { // rule 52: claimbridge is stricter than 1.26 here
			oldClaim:     allocatedClaim,
			update:       func(c *api1.ResourceClaim) { c.Status.Allocation.ResourceHandle = "changed" },
			wantFailures: field.ErrorList{field.Invalid(field.NewPath("status", "allocation"), &api1.AllocationResult{Shareable: true, ResourceHandle: "changed"}, "field is immutable")},
		},
	}
	for name, scenario := range scenarios {
		t.Run(name, func(t *testing.T) {
			claim := scenario.oldClaim.DeepCopy()
			if scenario.update != nil {
				scenario.update(claim)
			}
			if diff := cmp.Diff(scenario.wantFailures, Rules{}.ValidateStatusUpdate(claim, scenario.oldClaim, false)); diff != "" {
				t.Errorf("unexpected errors (-want +got):\n%s", diff)
			}
		})
	}
}

func testClaim2() *api2.ResourceClaim {
	return &api2.ResourceClaim{
		ObjectMeta: metav1.ObjectMeta{Name: goodName, Namespace: goodNS},
		Spec:       api2.ResourceClaimSpec{ResourceClassName: goodName, AllocationMode: api2.AllocationModeWaitForFirstConsumer},
	}
}

func consumers(n int) []api2.ResourceClaimConsumerReference {
	var refs []api2.ResourceClaimConsumerReference
	for i := 0; i < n; i++ {
		refs = append(refs, api2.ResourceClaimConsumerReference{Resource: "pods", Name: "foo", UID: types.UID(strings.Repeat("x", i+1))})
	}
	return refs
}

func TestV1alpha2AllocationStatusUpdate(t *testing.T) {
	validClaim := testClaim2()
	validClaim.ResourceVersion = "1"
	allocatedClaim := validClaim.DeepCopy()
	allocatedClaim.Status.DriverName = "valid"
	allocatedClaim.Status.Allocation = &api2.AllocationResult{Shareable: true}
	handlesPath := field.NewPath("status", "allocation", "resourceHandles")
	with := func(base *api2.ResourceClaim, mutate func(*api2.ResourceClaim)) *api2.ResourceClaim {
		c := base.DeepCopy()
		mutate(c)
		return c
	}
	scenarios := map[string]struct {
		oldClaim     *api2.ResourceClaim
		update       func(*api2.ResourceClaim)
		wantFailures field.ErrorList
	}{
		"invalid-driver-name": { // rule 6
			oldClaim: validClaim,
			update:   func(c *api2.ResourceClaim) { c.Status.DriverName = strings.Repeat("a", 64) },
			wantFailures: field.ErrorList{
				common.TooLongBytes(field.NewPath("status", "driverName"), strings.Repeat("a", 64), 63),
			},
		},
		"valid-add-allocation": {oldClaim: validClaim, update: func(c *api2.ResourceClaim) {
			c.Status.DriverName = "valid"
			c.Status.Allocation = &api2.AllocationResult{ResourceHandles: []api2.ResourceHandle{{DriverName: "valid", Data: strings.Repeat(" ", api2.ResourceHandleDataMaxSize)}}}
		}},
		"valid-add-empty-allocation-structured": {oldClaim: validClaim, update: func(c *api2.ResourceClaim) {
			c.Status.DriverName = "valid"
			c.Status.Allocation = &api2.AllocationResult{ResourceHandles: []api2.ResourceHandle{{DriverName: "valid", StructuredData: &api2.StructuredResourceHandle{}}}}
		}},
		"valid-add-allocation-structured": {oldClaim: validClaim, update: func(c *api2.ResourceClaim) {
			c.Status.DriverName = "valid"
			c.Status.Allocation = &api2.AllocationResult{ResourceHandles: []api2.ResourceHandle{{DriverName: "valid", StructuredData: &api2.StructuredResourceHandle{
				NodeName: "worker",
				Results:  []api2.DriverAllocationResult{{AllocationResultModel: api2.AllocationResultModel{NamedResources: &api2.NamedResourcesAllocationResult{Name: "some-resource-instance"}}}},
			}}}}
		}},
		"invalid-add-allocation-structured": { // rules 11, 12, 13
			oldClaim: validClaim,
			update: func(c *api2.ResourceClaim) {
				c.Status.DriverName = "valid"
				c.Status.Allocation = &api2.AllocationResult{ResourceHandles: []api2.ResourceHandle{{DriverName: "valid", StructuredData: &api2.StructuredResourceHandle{
					NodeName: "&%node",
					Results: []api2.DriverAllocationResult{
						{AllocationResultModel: api2.AllocationResultModel{NamedResources: &api2.NamedResourcesAllocationResult{Name: "&%instance"}}},
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
			update: func(c *api2.ResourceClaim) {
				c.Status.DriverName = "valid"
				c.Status.Allocation = &api2.AllocationResult{ResourceHandles: []api2.ResourceHandle{
					{DriverName: "valid", Data: "something", StructuredData: &api2.StructuredResourceHandle{}},
					{DriverName: "valid", Data: "x", StructuredData: &api2.StructuredResourceHandle{}}, // one byte is data too
				}}
			},
			wantFailures: field.ErrorList{
				field.Invalid(handlesPath.Index(0), nil, "data and structuredData are mutually exclusive"),
				field.Invalid(handlesPath.Index(1), nil, "data and structuredData are mutually exclusive"),
			},
		},
		"valid-allocation-resourceHandles-at-the-limit": { // rule 15: 32 handles are accepted
			oldClaim: validClaim,
			update: func(c *api2.ResourceClaim) {
				c.Status.DriverName = "valid"
				c.Status.Allocation = &api2.AllocationResult{}
				for i := 0; i < api2.AllocationResultResourceHandlesMaxSize; i++ {
					c.Status.Allocation.ResourceHandles = append(c.Status.Allocation.ResourceHandles, api2.ResourceHandle{DriverName: "valid"})
				}
			},
		},
		"invalid-allocation-resourceHandles": { // rule 15
			oldClaim: validClaim,
			update: func(c *api2.ResourceClaim) {
				c.Status.DriverName = "valid"
				c.Status.Allocation = &api2.AllocationResult{}
				for i := 0; i < api2.AllocationResultResourceHandlesMaxSize+1; i++ {
					c.Status.Allocation.ResourceHandles = append(c.Status.Allocation.ResourceHandles, api2.ResourceHandle{DriverName: "valid"})
				}
			},
			wantFailures: field.ErrorList{common.TooLongMaxLength(handlesPath, 33, 32)},
		},
		"invalid-allocation-resource-handle-drivername": { // rule 9
			oldClaim: validClaim,
			update: func(c *api2.ResourceClaim) {
				c.Status.DriverName = "valid"
				c.Status.Allocation = &api2.AllocationResult{ResourceHandles: []api2.ResourceHandle{{DriverName: "&%$"}, {}}}
			},
			wantFailures: field.ErrorList{
				field.Invalid(handlesPath.Index(0).Child("driverName"), "&%$", dnsSubdomainMsg),
				field.Required(handlesPath.Index(1).Child("driverName"), ""),
				field.Invalid(handlesPath.Index(1).Child("driverName"), "", dnsSubdomainMsg),
			},
		},
		"invalid-allocation-resource-handle-data": { // rule 10
			oldClaim: validClaim,
			update: func(c *api2.ResourceClaim) {
				c.Status.DriverName = "valid"
				c.Status.Allocation = &api2.AllocationResult{ResourceHandles: []api2.ResourceHandle{{DriverName: "valid", Data: strings.Repeat(" ", api2.ResourceHandleDataMaxSize+1)}}}
			},
			wantFailures: field.ErrorList{common.TooLongMaxLength(handlesPath.Index(0).Child("data"), api2.ResourceHandleDataMaxSize+1, api2.ResourceHandleDataMaxSize)},
		},
		"invalid-node-selector": { // rule 16
			oldClaim: validClaim,
			update: func(c *api2.ResourceClaim) {
				c.Status.DriverName = "valid"
				c.Status.Allocation = &api2.AllocationResult{AvailableOnNodes: &v1.NodeSelector{}}
			},
			wantFailures: field.ErrorList{field.Required(field.NewPath("status", "allocation", "availableOnNodes", "nodeSelectorTerms"), "must have at least one node selector term")},
		},
		"add-reservation-and-allocation": {oldClaim: validClaim, update: func(c *api2.ResourceClaim) {
			c.Status.DriverName = "valid"
			c.Status.Allocation = &api2.AllocationResult{}
			c.Status.ReservedFor = consumers(1)
		}},
		"invalid-reserved-for-no-fields": { // rule 46
			oldClaim: allocatedClaim,
			update:   func(c *api2.ResourceClaim) { c.Status.ReservedFor = []api2.ResourceClaimConsumerReference{{}} },
			wantFailures: field.ErrorList{
				field.Required(field.NewPath("status", "reservedFor").Index(0).Child("resource"), ""),
				field.Required(field.NewPath("status", "reservedFor").Index(0).Child("name"), ""),
				field.Required(field.NewPath("status", "reservedFor").Index(0).Child("uid"), ""),
			},
		},
		"invalid-reserved-deallocation-requested": { // rule 51
			oldClaim:     with(allocatedClaim, func(c *api2.ResourceClaim) { c.Status.DeallocationRequested = true }),
			update:       func(c *api2.ResourceClaim) { c.Status.ReservedFor = consumers(1) },
			wantFailures: field.ErrorList{field.Forbidden(field.NewPath("status", "reservedFor"), "new entries may not be added while `deallocationRequested` or `deletionTimestamp` are set")},
		},
		"remove-allocation": {
			oldClaim: with(allocatedClaim, func(c *api2.ResourceClaim) { c.Status.DeallocationRequested = true }),
			update: func(c *api2.ResourceClaim) {
				c.Status.DeallocationRequested = false
				c.Status.Allocation = nil
			},
		},
		"invalid-allocation-modification": { // rule 52
			oldClaim: allocatedClaim,
			update: func(c *api2.ResourceClaim) {
				c.Status.Allocation.ResourceHandles = []api2.ResourceHandle{{DriverName: "valid", Data: "new data"}}
			},
			wantFailures: field.ErrorList{field.Invalid(field.NewPath("status", "allocation"), &api2.AllocationResult{Shareable: true, ResourceHandles: []api2.ResourceHandle{{DriverName: "valid", Data: "new data"}}}, "field is immutable")},
		},
		"invalid-allocation-removal-not-reset": { // rule 54
			oldClaim:     with(allocatedClaim, func(c *api2.ResourceClaim) { c.Status.DeallocationRequested = true }),
			update:       func(c *api2.ResourceClaim) { c.Status.Allocation = nil },
			wantFailures: field.ErrorList{field.Forbidden(field.NewPath("status"), "`allocation` must be set when `deallocationRequested` is set")},
		},
	}
	for name, scenario := range scenarios {
		t.Run(name, func(t *testing.T) {
			claim := scenario.oldClaim.DeepCopy()
			if scenario.update != nil {
				scenario.update(claim)
			}
			if diff := cmp.Diff(scenario.wantFailures, Rules{}.ValidateStatusUpdate(claim, scenario.oldClaim, false)); diff != "" {
				t.Errorf("unexpected errors (-want +got):\n%s", diff)
			}
		})
	}
}
