package v1alpha2

import api "github.com/claimbridge/claimbridge/api/v1alpha2"

// SetDefaults applies upstream defaulting (SetDefaults_ResourceClaimSpec) to
// a *ResourceClaim, *ResourceClaimTemplate or their lists: an empty
// allocationMode becomes WaitForFirstConsumer. Other types are ignored.
func SetDefaults(obj interface{}) {
	switch o := obj.(type) {
	case *api.ResourceClaim:
		setDefaultsSpec(&o.Spec)
	case *api.ResourceClaimTemplate:
		setDefaultsSpec(&o.Spec.Spec)
	case *api.ResourceClaimList:
		for i := range o.Items {
			setDefaultsSpec(&o.Items[i].Spec)
		}
	case *api.ResourceClaimTemplateList:
		for i := range o.Items {
			setDefaultsSpec(&o.Items[i].Spec.Spec)
		}
	}
}

func setDefaultsSpec(spec *api.ResourceClaimSpec) {
	if spec.AllocationMode == "" {
		spec.AllocationMode = api.AllocationModeWaitForFirstConsumer
	}
}
