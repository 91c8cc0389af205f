package v1alpha3

import api "github.com/claimbridge/claimbridge/api/v1alpha3"

// SetDefaults applies upstream defaulting (SetDefaults_DeviceRequest) to a
// *ResourceClaim or *ResourceClaimTemplate: for every request, an empty
// allocationMode becomes ExactCount, and an ExactCount request with count 0
// gets count 1. Other types, and nil pointers, are ignored.
func SetDefaults(obj interface{}) {
	switch o := obj.(type) {
	case *api.ResourceClaim:
		if o != nil {
			setDefaultsSpec(&o.Spec)
		}
	case *api.ResourceClaimTemplate:
		if o != nil {
			setDefaultsSpec(&o.Spec.Spec)
		}
	}
}

func setDefaultsSpec(spec *api.ResourceClaimSpec) {
	for i := range spec.Devices.Requests {
		request := &spec.Devices.Requests[i]
		if request.AllocationMode == "" {
			request.AllocationMode = api.DeviceAllocationModeExactCount
		}
		if request.AllocationMode == api.DeviceAllocationModeExactCount && request.Count == 0 {
			request.Count = 1
		}
	}
}
