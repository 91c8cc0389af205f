package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	api "github.com/claimbridge/claimbridge/api/v1alpha1"
	"github.com/claimbridge/claimbridge/validation/classic"
	"github.com/claimbridge/claimbridge/validation/common"
)

// Rules are the shared classic rules bound to the v1alpha1 types; only the
// allocation result (validateAllocationResult) is this version's own.
var Rules = &classic.Binding[api.ResourceClaim, api.ResourceClaimList, api.ResourceClaimTemplate, api.ResourceClaimTemplateList,
	api.ResourceClaimTemplateSpec, api.ResourceClaimSpec, api.AllocationResult, api.AllocationMode]{
	Claim: func(c *api.ResourceClaim) (*metav1.ObjectMeta, *api.ResourceClaimSpec, classic.Status[api.AllocationResult]) {
		s := &c.Status
		return &c.ObjectMeta, &c.Spec, classic.Status[api.AllocationResult]{DriverName: s.DriverName, Allocation: s.Allocation, View: common.StatusView{
			Allocated:             s.Allocation != nil,
			NotShareable:          s.Allocation != nil && !s.Allocation.Shareable,
			ReservedFor:           common.Consumers(s.ReservedFor),
			DeallocationRequested: s.DeallocationRequested,
		}}
	},
	Template: func(t *api.ResourceClaimTemplate) (*metav1.ObjectMeta, *api.ResourceClaimTemplateSpec) {
		return &t.ObjectMeta, &t.Spec
	},
	TemplateSpec: func(t *api.ResourceClaimTemplateSpec) (*metav1.ObjectMeta, *api.ResourceClaimSpec) {
		return &t.ObjectMeta, &t.Spec
	},
	Spec: func(s *api.ResourceClaimSpec) classic.Spec[api.AllocationMode] {
		return classic.Spec[api.AllocationMode]{ResourceClassName: s.ResourceClassName,
			ParametersRef: (*common.ParametersRef)(s.ParametersRef), AllocationMode: &s.AllocationMode}
	},
	ClaimItems:           func(l *api.ResourceClaimList) []api.ResourceClaim { return l.Items },
	TemplateItems:        func(l *api.ResourceClaimTemplateList) []api.ResourceClaimTemplate { return l.Items },
	ValidateAllocation:   validateAllocationResult,
	WaitForFirstConsumer: api.AllocationModeWaitForFirstConsumer,
}
