package validation

import apiv1 "github.com/claimbridge/claimbridge/api/v1alpha1"

func mustSpecV1(class string) apiv1.ResourceClaimSpec {
	return apiv1.ResourceClaimSpec{ResourceClassName: class, AllocationMode: apiv1.AllocationModeWaitForFirstConsumer}
}
