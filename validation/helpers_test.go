package validation

import apiv1 "github.com/claimbridge/claimbridge/api/v1alpha1"

func mustSpecV1(class string) apiv1.ResourceClaimSpec {
	return apiv1.ResourceClaimSpec{ResourceClassName: class, AllocationMode: apiv1.AllocationModeWaitForFirstConsumer}
}

// restoreHint ends a main update's cross-version finding when the update's
// restore annotations are not the old object's.
const restoreHint = " (the update's claimbridge.dev/restore-* annotations are not the ones the object was read with: " +
	"write back the object as read, or change it with patch or apply)"
