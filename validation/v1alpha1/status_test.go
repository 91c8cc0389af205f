package v1alpha1

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"

	api "github.com/claimbridge/claimbridge/api/v1alpha1"
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
		"upper-case-driver":  {oldClaim: validClaim, update: func(c *api.ResourceClaim) { c.Status.DriverName = "Valid.Example.com" }},
		"invalid-driver-name": { // rule 6
			oldClaim:     validClaim,
			update:       func(c *api.ResourceClaim) { c.Status.DriverName = "-x" },
			wantFailures: field.ErrorList{field.Invalid(field.NewPath("status", "driverName"), "-x", dnsSubdomainMsg)},
		},
		"invalid-add-allocation": { // rule 7
			oldClaim:     validClaim,
			update:       func(c *api.ResourceClaim) { c.Status.Allocation = &api.AllocationResult{} },
			wantFailures: field.ErrorList{field.Required(field.NewPath("status", "driverName"), "must be specified when `allocation` is set")},
		},
		"valid-add-allocation": {oldClaim: validClaim, update: func(c *api.ResourceClaim) {
			c.Status.DriverName = "valid"
			c.Status.Allocation = &api.AllocationResult{ResourceHandle: strings.Repeat(" ", api.ResourceHandleMaxSize)}
		}},
		"invalid-allocation-handle": { // rule 8
			oldClaim: validClaim,
			update: func(c *api.ResourceClaim) {
				c.Status.DriverName = "valid"
				c.Status.Allocation = &api.AllocationResult{ResourceHandle: strings.Repeat(" ", api.ResourceHandleMaxSize+1)}
			},
			wantFailures: field.ErrorList{common.TooLongMaxLength(field.NewPath("status", "allocation", "resourceHandle"), api.ResourceHandleMaxSize+1, api.ResourceHandleMaxSize)},
		},
		"invalid-node-selector": { // rule 16
			oldClaim: validClaim,
			update: func(c *api.ResourceClaim) {
				c.Status.DriverName = "valid"
				c.Status.Allocation = &api.AllocationResult{AvailableOnNodes: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{
					MatchExpressions: []v1.NodeSelectorRequirement{{Key: "a", Operator: "Bad"}},
				}}}}
			},
			wantFailures: field.ErrorList{field.Invalid(field.NewPath("status", "allocation", "availableOnNodes", "nodeSelectorTerms").Index(0).Child("matchExpressions").Index(0).Child("operator"), v1.NodeSelectorOperator("Bad"), "not a valid selector operator")},
		},
		"add-reservation": {oldClaim: allocatedClaim, update: func(c *api.ResourceClaim) { c.Status.ReservedFor = consumers(32) }},
		"invalid-reserved-for-too-large": { // rule 48
			oldClaim:     allocatedClaim,
			update:       func(c *api.ResourceClaim) { c.Status.ReservedFor = consumers(33) },
			wantFailures: field.ErrorList{common.TooLongMaxLength(field.NewPath("status", "reservedFor"), 33, 32)},
		},
		"invalid-reserved-for-duplicate": { // rule 47
			oldClaim: allocatedClaim,
			update: func(c *api.ResourceClaim) {
				c.Status.ReservedFor = []api.ResourceClaimConsumerReference{{Resource: "pods", Name: "foo", UID: "1"}, {Resource: "pods", Name: "foo", UID: "1"}}
			},
			wantFailures: field.ErrorList{field.Duplicate(field.NewPath("status", "reservedFor").Index(1).Child("uid"), types.UID("1"))},
		},
		"invalid-reserved-for-not-shared": { // rule 50
			oldClaim:     with(allocatedClaim, func(c *api.ResourceClaim) { c.Status.Allocation.Shareable = false }),
			update:       func(c *api.ResourceClaim) { c.Status.ReservedFor = consumers(2) },
			wantFailures: field.ErrorList{field.Forbidden(field.NewPath("status", "reservedFor"), "may not be reserved more than once")},
		},
		"invalid-reserved-for-no-allocation": { // rule 49
			oldClaim:     validClaim,
			update:       func(c *api.ResourceClaim) { c.Status.ReservedFor = consumers(1) },
			wantFailures: field.ErrorList{field.Forbidden(field.NewPath("status", "reservedFor"), "may not be specified when `allocated` is not set")},
		},
		"invalid-reserved-for-no-uid": { // rule 46
			oldClaim: allocatedClaim,
			update: func(c *api.ResourceClaim) {
				c.Status.ReservedFor = []api.ResourceClaimConsumerReference{{Resource: "pods", Name: "foo"}}
			},
			wantFailures: field.ErrorList{field.Required(field.NewPath("status", "reservedFor").Index(0).Child("uid"), "")},
		},
		"invalid-reserved-deleted": { // rule 51
			oldClaim:     with(allocatedClaim, func(c *api.ResourceClaim) { c.DeletionTimestamp = &now }),
			update:       func(c *api.ResourceClaim) { c.Status.ReservedFor = consumers(1) },
			wantFailures: field.ErrorList{field.Forbidden(field.NewPath("status", "reservedFor"), "new entries may not be added while `deallocationRequested` or `deletionTimestamp` are set")},
		},
		"add-deallocation-requested": {oldClaim: allocatedClaim, update: func(c *api.ResourceClaim) { c.Status.DeallocationRequested = true }},
		"invalid-allocation-modification": { // rule 52: claimbridge is stricter than 1.26 here
			oldClaim:     allocatedClaim,
			update:       func(c *api.ResourceClaim) { c.Status.Allocation.ResourceHandle = "changed" },
			wantFailures: field.ErrorList{field.Invalid(field.NewPath("status", "allocation"), &api.AllocationResult{Shareable: true, ResourceHandle: "changed"}, "field is immutable")},
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
		"invalid-deallocation-requested-removal": { // rule 55
			oldClaim:     with(allocatedClaim, func(c *api.ResourceClaim) { c.Status.DeallocationRequested = true }),
			update:       func(c *api.ResourceClaim) { c.Status.DeallocationRequested = false },
			wantFailures: field.ErrorList{field.Forbidden(field.NewPath("status", "deallocationRequested"), "may not be cleared when `allocation` is set")},
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
