package v1alpha3

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"

	api "github.com/claimbridge/claimbridge/api/v1alpha3"
	"github.com/claimbridge/claimbridge/validation/common"
)

func goodResult() api.DeviceRequestAllocationResult {
	return api.DeviceRequestAllocationResult{Request: goodName, Driver: goodName, Pool: goodName, Device: goodName}
}

func goodAllocation() *api.AllocationResult {
	return &api.AllocationResult{Devices: api.DeviceAllocationResult{Results: []api.DeviceRequestAllocationResult{goodResult()}}}
}

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
	allocatedClaim.Status.Allocation = goodAllocation()
	now := metav1.Now()
	resultsPath := field.NewPath("status", "allocation", "devices", "results")
	configPath := field.NewPath("status", "allocation", "devices", "config")

	scenarios := map[string]struct {
		oldClaim     *api.ResourceClaim
		update       func(*api.ResourceClaim)
		wantFailures field.ErrorList
	}{
		"valid-no-op-update":             {oldClaim: validClaim},
		"valid-add-allocation-empty":     {oldClaim: validClaim, update: func(c *api.ResourceClaim) { c.Status.Allocation = &api.AllocationResult{} }},
		"valid-add-allocation-non-empty": {oldClaim: validClaim, update: func(c *api.ResourceClaim) { c.Status.Allocation = goodAllocation() }},
		"invalid-add-allocation-bad-request": { // rule 36
			oldClaim: validClaim,
			update: func(c *api.ResourceClaim) {
				c.Status.Allocation = goodAllocation()
				c.Status.Allocation.Devices.Results[0].Request = badName
			},
			wantFailures: field.ErrorList{
				field.Invalid(resultsPath.Index(0).Child("request"), badName, dnsLabelMsg),
				field.Invalid(resultsPath.Index(0).Child("request"), badName, "must be the name of a request in the claim"),
			},
		},
		"invalid-result-driver-pool-device": { // rules 37, 38, 39
			oldClaim: validClaim,
			update: func(c *api.ResourceClaim) {
				c.Status.Allocation = goodAllocation()
				c.Status.Allocation.Devices.Results = append(c.Status.Allocation.Devices.Results, goodResult(), goodResult(), goodResult())
				r := c.Status.Allocation.Devices.Results
				r[0].Driver, r[0].Pool, r[0].Device = "", "", "a.b"
				r[1].Pool = "a//B"
				r[2].Pool = strings.Repeat("a", 254)
				r[3].Pool = strings.Repeat("a", 253) // at the limit: accepted
			},
			wantFailures: field.ErrorList{
				field.Required(resultsPath.Index(0).Child("driver"), ""),
				field.Invalid(resultsPath.Index(0).Child("driver"), "", dnsSubdomainMsg),
				field.Required(resultsPath.Index(0).Child("pool"), ""),
				field.Invalid(resultsPath.Index(0).Child("device"), "a.b", "must not contain dots"),
				field.Invalid(resultsPath.Index(1).Child("pool"), "", dnsSubdomainMsg),
				field.Invalid(resultsPath.Index(1).Child("pool"), "B", dnsSubdomainMsg),
				common.TooLongMaxLength(resultsPath.Index(2).Child("pool"), strings.Repeat("a", 254), 253),
				field.Invalid(resultsPath.Index(2).Child("pool"), strings.Repeat("a", 254), "must be no more than 253 characters"),
			},
		},
		"too-many-results": { // rule 40
			oldClaim: validClaim,
			update: func(c *api.ResourceClaim) {
				c.Status.Allocation = &api.AllocationResult{}
				for i := 0; i < 33; i++ {
					c.Status.Allocation.Devices.Results = append(c.Status.Allocation.Devices.Results, goodResult())
				}
			},
			wantFailures: field.ErrorList{common.TooLongMaxLength(resultsPath, 33, 32)},
		},
		"config-source": { // rule 41, 32
			oldClaim: validClaim,
			update: func(c *api.ResourceClaim) {
				c.Status.Allocation = &api.AllocationResult{Devices: api.DeviceAllocationResult{Config: []api.DeviceAllocationConfiguration{
					{DeviceConfiguration: api.DeviceConfiguration{Opaque: opaque("dra.example.com", `{}`)}},
					{Source: "FromNowhere", DeviceConfiguration: api.DeviceConfiguration{Opaque: opaque("dra.example.com", `{}`)}},
					{Source: api.AllocationConfigSourceClass},
				}}}
			},
			wantFailures: field.ErrorList{
				field.Required(configPath.Index(0).Child("source"), ""),
				field.NotSupported(configPath.Index(1).Child("source"), api.AllocationConfigSource("FromNowhere"), []string{"FromClaim", "FromClass"}),
				field.Required(configPath.Index(2).Child("opaque"), ""),
			},
		},
		"invalid-request-name": { // rule 42 (upstream scenario)
			oldClaim: validClaim,
			update: func(c *api.ResourceClaim) {
				c.Status.Allocation = &api.AllocationResult{Devices: api.DeviceAllocationResult{Config: []api.DeviceAllocationConfiguration{{
					Source:              api.AllocationConfigSourceClaim,
					Requests:            []string{goodName, badName},
					DeviceConfiguration: api.DeviceConfiguration{Opaque: opaque("dra.example.com", `{"kind": "foo", "apiVersion": "dra.example.com/v1"}`)},
				}}}}
			},
			wantFailures: field.ErrorList{
				field.Invalid(configPath.Index(0).Child("requests").Index(1), badName, dnsLabelMsg),
				field.Invalid(configPath.Index(0).Child("requests").Index(1), badName, "must be the name of a request in the claim"),
			},
		},
		"too-many-allocated-configs": { // rule 43
			oldClaim: validClaim,
			update: func(c *api.ResourceClaim) {
				c.Status.Allocation = &api.AllocationResult{}
				for i := 0; i < 65; i++ {
					c.Status.Allocation.Devices.Config = append(c.Status.Allocation.Devices.Config, api.DeviceAllocationConfiguration{Source: api.AllocationConfigSourceClass, DeviceConfiguration: api.DeviceConfiguration{Opaque: opaque("dra.example.com", `{}`)}})
				}
			},
			wantFailures: field.ErrorList{common.TooLongMaxLength(configPath, 65, 64)},
		},
		"invalid-node-selector": { // rule 44
			oldClaim: validClaim,
			update: func(c *api.ResourceClaim) {
				c.Status.Allocation = &api.AllocationResult{NodeSelector: &v1.NodeSelector{}}
			},
			wantFailures: field.ErrorList{field.Required(field.NewPath("status", "allocation", "nodeSelector", "nodeSelectorTerms"), "must have at least one node selector term")},
		},
		"invalid-allocation-controller": { // rule 45
			oldClaim:     validClaim,
			update:       func(c *api.ResourceClaim) { c.Status.Allocation = &api.AllocationResult{Controller: "-bad"} },
			wantFailures: field.ErrorList{field.Invalid(field.NewPath("status", "allocation", "controller"), "-bad", dnsSubdomainMsg)},
		},
		"add-reservation": {
			oldClaim: allocatedClaim,
			update:   func(c *api.ResourceClaim) { c.Status.ReservedFor = consumers(32) },
		},
		"add-reservation-and-allocation": {
			oldClaim: validClaim,
			update: func(c *api.ResourceClaim) {
				c.Status.Allocation = goodAllocation()
				c.Status.ReservedFor = consumers(2) // no shareable rule in v1alpha3 (rule 50 is v1/v2 only)
			},
		},
		"invalid-reserved-for-too-large": { // rule 48
			oldClaim:     allocatedClaim,
			update:       func(c *api.ResourceClaim) { c.Status.ReservedFor = consumers(33) },
			wantFailures: field.ErrorList{common.TooLongMaxLength(field.NewPath("status", "reservedFor"), 33, 32)},
		},
		"invalid-reserved-for-duplicate": { // rule 46, 47: entries checked first, duplicates last
			oldClaim: allocatedClaim,
			update: func(c *api.ResourceClaim) {
				c.Status.ReservedFor = []api.ResourceClaimConsumerReference{
					{Resource: "pods", Name: "foo", UID: "1"},
					{Resource: "", Name: "foo", UID: "1"},
				}
			},
			wantFailures: field.ErrorList{
				field.Required(field.NewPath("status", "reservedFor").Index(1).Child("resource"), ""),
				field.Duplicate(field.NewPath("status", "reservedFor").Index(1).Child("uid"), types.UID("1")),
			},
		},
		"invalid-reserved-for-no-fields": { // rule 46
			oldClaim: allocatedClaim,
			update: func(c *api.ResourceClaim) {
				c.Status.ReservedFor = []api.ResourceClaimConsumerReference{{}}
			},
			wantFailures: field.ErrorList{
				field.Required(field.NewPath("status", "reservedFor").Index(0).Child("resource"), ""),
				field.Required(field.NewPath("status", "reservedFor").Index(0).Child("name"), ""),
				field.Required(field.NewPath("status", "reservedFor").Index(0).Child("uid"), ""),
			},
		},
		"invalid-reserved-for-no-allocation": { // rule 49
			oldClaim:     validClaim,
			update:       func(c *api.ResourceClaim) { c.Status.ReservedFor = consumers(1) },
			wantFailures: field.ErrorList{field.Forbidden(field.NewPath("status", "reservedFor"), "may not be specified when `allocated` is not set")},
		},
		"invalid-reserved-deleted": { // rule 51
			oldClaim: func() *api.ResourceClaim {
				c := allocatedClaim.DeepCopy()
				c.DeletionTimestamp = &now
				return c
			}(),
			update:       func(c *api.ResourceClaim) { c.Status.ReservedFor = consumers(1) },
			wantFailures: field.ErrorList{field.Forbidden(field.NewPath("status", "reservedFor"), "new entries may not be added while `deallocationRequested` or `deletionTimestamp` are set")},
		},
		"invalid-reserved-deallocation-requested": { // rule 51, 53
			oldClaim: allocatedClaim,
			update: func(c *api.ResourceClaim) {
				c.Status.DeallocationRequested = true
				c.Status.ReservedFor = consumers(1)
			},
			wantFailures: field.ErrorList{
				field.Forbidden(field.NewPath("status", "reservedFor"), "new entries may not be added while `deallocationRequested` or `deletionTimestamp` are set"),
				field.Forbidden(field.NewPath("status", "deallocationRequested"), "deallocation cannot be requested while `reservedFor` is set"),
			},
		},
		"renamed-consumer-is-new-entry": { // rule 51: whole-struct comparison
			oldClaim: func() *api.ResourceClaim {
				c := allocatedClaim.DeepCopy()
				c.Status.ReservedFor = consumers(1)
				c.Status.DeallocationRequested = true
				return c
			}(),
			update:       func(c *api.ResourceClaim) { c.Status.ReservedFor[0].Name = "bar" },
			wantFailures: field.ErrorList{field.Forbidden(field.NewPath("status", "reservedFor"), "new entries may not be added while `deallocationRequested` or `deletionTimestamp` are set")},
		},
		"remove-reservation-while-deallocating": {
			oldClaim: func() *api.ResourceClaim {
				c := allocatedClaim.DeepCopy()
				c.Status.ReservedFor = consumers(2)
				c.Status.DeallocationRequested = true
				return c
			}(),
			update: func(c *api.ResourceClaim) { c.Status.ReservedFor = c.Status.ReservedFor[:1] },
		},
		"add-deallocation-requested": {
			oldClaim: allocatedClaim,
			update:   func(c *api.ResourceClaim) { c.Status.DeallocationRequested = true },
		},
		"remove-allocation": {
			oldClaim: func() *api.ResourceClaim {
				c := allocatedClaim.DeepCopy()
				c.Status.DeallocationRequested = true
				return c
			}(),
			update: func(c *api.ResourceClaim) {
				c.Status.DeallocationRequested = false
				c.Status.Allocation = nil
			},
		},
		"invalid-deallocation-requested-removal": { // rule 55
			oldClaim: func() *api.ResourceClaim {
				c := allocatedClaim.DeepCopy()
				c.Status.DeallocationRequested = true
				return c
			}(),
			update:       func(c *api.ResourceClaim) { c.Status.DeallocationRequested = false },
			wantFailures: field.ErrorList{field.Forbidden(field.NewPath("status", "deallocationRequested"), "may not be cleared when `allocation` is set")},
		},
		"invalid-allocation-modification": { // rule 52
			oldClaim: allocatedClaim,
			update:   func(c *api.ResourceClaim) { c.Status.Allocation.Devices.Results[0].Driver += "-2" },
			wantFailures: field.ErrorList{field.Invalid(field.NewPath("status", "allocation"), func() *api.AllocationResult {
				a := goodAllocation()
				a.Devices.Results[0].Driver += "-2"
				return a
			}(), "field is immutable")},
		},
		"invalid-deallocation-requested-in-use": { // rule 53
			oldClaim: func() *api.ResourceClaim {
				c := allocatedClaim.DeepCopy()
				c.Status.ReservedFor = consumers(1)
				return c
			}(),
			update:       func(c *api.ResourceClaim) { c.Status.DeallocationRequested = true },
			wantFailures: field.ErrorList{field.Forbidden(field.NewPath("status", "deallocationRequested"), "deallocation cannot be requested while `reservedFor` is set")},
		},
		"invalid-deallocation-not-allocated": { // rule 54
			oldClaim:     validClaim,
			update:       func(c *api.ResourceClaim) { c.Status.DeallocationRequested = true },
			wantFailures: field.ErrorList{field.Forbidden(field.NewPath("status"), "`allocation` must be set when `deallocationRequested` is set")},
		},
		"invalid-allocation-removal-not-reset": { // rule 54
			oldClaim: func() *api.ResourceClaim {
				c := allocatedClaim.DeepCopy()
				c.Status.DeallocationRequested = true
				return c
			}(),
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
			errs := ValidateResourceClaimStatusUpdate(claim, scenario.oldClaim, false)
			if diff := cmp.Diff(scenario.wantFailures, errs); diff != "" {
				t.Errorf("unexpected errors (-want +got):\n%s", diff)
			}
		})
	}
}

// A stored allocation is not validated again; the rest of the write is.
func TestStatusUpdateOfStoredAllocation(t *testing.T) {
	old := testClaim(goodName, goodNS, validClaimSpec)
	old.ResourceVersion = "1"
	old.Status.Allocation = goodAllocation()
	old.Status.Allocation.Devices.Results[0].Device = badName
	claim := old.DeepCopy()
	claim.Status.ReservedFor = consumers(1)
	claim.Status.ReservedFor[0].UID = ""
	deviceErr := field.Invalid(field.NewPath("status", "allocation", "devices", "results").Index(0).Child("device"), badName, dnsLabelMsg)
	uidErr := field.Required(field.NewPath("status", "reservedFor").Index(0).Child("uid"), "")
	for _, tc := range []struct {
		stored bool
		want   field.ErrorList
	}{{false, field.ErrorList{deviceErr, uidErr}}, {true, field.ErrorList{uidErr}}} {
		if diff := cmp.Diff(tc.want, ValidateResourceClaimStatusUpdate(claim, old, tc.stored)); diff != "" {
			t.Errorf("allocationStored %v (-want +got):\n%s", tc.stored, diff)
		}
	}
}
