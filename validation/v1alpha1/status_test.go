package v1alpha1

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	api "github.com/claimbridge/claimbridge/api/v1alpha1"
	"github.com/claimbridge/claimbridge/validation/common"
)

const (
	goodName = "foo"
	goodNS   = "ns"

	dnsSubdomainMsg = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)

// The rules this version shares with the others are tested once, in
// validation/classic; these rows cover what is this version's own.

func testClaim() *api.ResourceClaim {
	return &api.ResourceClaim{
		ObjectMeta: metav1.ObjectMeta{Name: goodName, Namespace: goodNS},
		Spec:       api.ResourceClaimSpec{ResourceClassName: goodName, AllocationMode: api.AllocationModeWaitForFirstConsumer},
	}
}

func TestValidateResourceClaimStatusUpdate(t *testing.T) {
	validClaim := testClaim()
	validClaim.ResourceVersion = "1"
	allocatedClaim := validClaim.DeepCopy()
	allocatedClaim.Status.DriverName = "valid"
	allocatedClaim.Status.Allocation = &api.AllocationResult{Shareable: true}
	scenarios := map[string]struct {
		oldClaim     *api.ResourceClaim
		update       func(*api.ResourceClaim)
		wantFailures field.ErrorList
	}{
		"upper-case-driver": {oldClaim: validClaim, update: func(c *api.ResourceClaim) { c.Status.DriverName = "Valid.Example.com" }},
		"invalid-driver-name": { // rule 6
			oldClaim:     validClaim,
			update:       func(c *api.ResourceClaim) { c.Status.DriverName = "-x" },
			wantFailures: field.ErrorList{field.Invalid(field.NewPath("status", "driverName"), "-x", dnsSubdomainMsg)},
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
		"invalid-allocation-modification": { // rule 52: claimbridge is stricter than 1.26 here
			oldClaim:     allocatedClaim,
			update:       func(c *api.ResourceClaim) { c.Status.Allocation.ResourceHandle = "changed" },
			wantFailures: field.ErrorList{field.Invalid(field.NewPath("status", "allocation"), &api.AllocationResult{Shareable: true, ResourceHandle: "changed"}, "field is immutable")},
		},
	}
	for name, scenario := range scenarios {
		t.Run(name, func(t *testing.T) {
			claim := scenario.oldClaim.DeepCopy()
			if scenario.update != nil {
				scenario.update(claim)
			}
			if diff := cmp.Diff(scenario.wantFailures, Rules.ValidateStatusUpdate(claim, scenario.oldClaim, false)); diff != "" {
				t.Errorf("unexpected errors (-want +got):\n%s", diff)
			}
		})
	}
}
